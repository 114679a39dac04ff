package layout

import (
	"strings"

	"lectern.dev/lectern/render/config"
)

// The page actions: at the top of every page, a button for the first
// option of the contextual menu (docs.json contextual, render/config:
// "Copy page", which copies the page's Markdown, or "View as Markdown"),
// and a menu button that offers every option and "Copy link". The page's
// Markdown is PAGE.md beside PAGE.html (render: page_markdown.go).
// contextual.js gives them their behaviour; a page whose Markdown cannot
// be fetched (an export opened from file://) opens it instead of copying
// it.

// ContextualJSFile is the script of the page actions, written when the
// menu has an option (ContextualJS).
const ContextualJSFile = "_lectern/contextual.js"

// ContextualJS is the script of the page actions (theme/contextual.js).
var ContextualJS = Asset("theme/contextual.js")

// contextualView is what layout.html shows of the page actions.
type contextualView struct {
	// MarkdownURL is the page's Markdown, as a link of the page.
	MarkdownURL string
	// ScriptURL is contextual.js, as a link of the page.
	ScriptURL string
	// CopyFirst says the main button copies the page (the first option
	// is "copy"); else it is a link to the Markdown.
	CopyFirst bool
	// Copy and View are the options of the menu.
	Copy, View bool
}

// HasContextualMenu reports whether the site's pages have the page
// actions, whose script (ContextualJS) the build then writes.
func (t *Theme) HasContextualMenu() bool {
	return len(t.s.Config.Contextual.Offered()) > 0
}

// contextual returns the page actions of the page written as outName, or
// nil when the site has none.
func (t *Theme) contextual(outName string) *contextualView {
	opts := t.s.Config.Contextual.Offered()
	if len(opts) == 0 {
		return nil
	}
	md := strings.TrimSuffix(outName, ".html") + ".md"
	v := &contextualView{
		MarkdownURL: t.s.Links.AssetURL(outName, md),
		ScriptURL:   t.s.Links.AssetURL(outName, ContextualJSFile),
		CopyFirst:   opts[0] == config.ContextualCopy,
	}
	for _, o := range opts {
		switch o {
		case config.ContextualCopy:
			v.Copy = true
		case config.ContextualView:
			v.View = true
		}
	}
	return v
}
