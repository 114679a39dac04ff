package config

import (
	"strings"
)

// Contextual is the contextual menu of the pages (docs.json contextual,
// as on Mintlify): a button at the top of every page for its first
// option, and a menu of them all and "Copy link".
//
//	"contextual": {"options": ["copy", "view"]}
//
// Lectern offers the options that stay on the site: "copy" (copy the
// page as Markdown) and "view" (open the page's Markdown, PAGE.md).
// Mintlify's options that send the page to another service ("chatgpt",
// "claude", "perplexity", "assistant", "mcp", "cursor", "vscode", ...) and
// custom options (objects) are left out with a warning: pages link to no
// other host on their own. Without "contextual" (and for mint.json or a
// site without a configuration) the options are DefaultContextual; an
// empty list turns the menu off.
type Contextual struct {
	// Configured says docs.json has contextual.options.
	Configured bool
	// Options are the options of Configured, as ContextualCopy and
	// ContextualView, in their order.
	Options []string
}

// The options of the contextual menu that Lectern offers.
const (
	ContextualCopy = "copy"
	ContextualView = "view"
)

// DefaultContextual are the options of a site that does not configure
// the menu: copying the page and viewing it as Markdown.
var DefaultContextual = []string{ContextualCopy, ContextualView}

// Offered returns the options of the menu, in order: Options, or
// DefaultContextual when the menu is not configured. None: no menu.
func (c Contextual) Offered() []string {
	if !c.Configured {
		return DefaultContextual
	}
	return c.Options
}

// outsideOptions are Mintlify's options that open another service.
var outsideOptions = map[string]bool{
	"chatgpt": true, "claude": true, "perplexity": true, "assistant": true, "mcp": true, "cursor": true, "vscode": true,
	"grok": true, "aistudio": true, "devin": true, "devin-desktop": true, "windsurf": true, "add-mcp": true,
}

// parseContextual reads docs.json's contextual: one warning for the
// options that open another service, one for the unknown ones, and one
// for anything else.
func parseContextual(cfg *Config, raw map[string]any, cw *cfgWarner) {
	c, ok := object(raw, "contextual", cw)
	if !ok {
		return
	}
	list, isList := c["options"].([]any)
	if !isList {
		if c["options"] != nil {
			cw.warn(Str(c["options"]), "contextual.options must be a list such as [\"copy\", \"view\"]; using the default menu (copy, view)")
		}
		return
	}
	cfg.Contextual = Contextual{Configured: true, Options: []string{}}
	seen := map[string]bool{}
	var outside, unknown, other []string
	for _, v := range list {
		switch o := v.(type) {
		case string:
			switch name := strings.ToLower(strings.TrimSpace(o)); {
			case name == ContextualCopy || name == ContextualView:
				if !seen[name] {
					seen[name] = true
					cfg.Contextual.Options = append(cfg.Contextual.Options, name)
				}
			case outsideOptions[name]:
				outside = append(outside, o)
			default:
				unknown = append(unknown, o)
			}
		case map[string]any:
			other = append(other, "a custom option "+quoted(Str(o["title"])))
		default:
			other = append(other, quoted(v))
		}
	}
	const offered = "Lectern offers \"copy\" and \"view\""
	if len(outside) > 0 {
		cw.warn(outside[0], "contextual options %s send the page to another service, which Lectern's pages do not do; left out (%s)", quotedList(outside), offered)
	}
	if len(unknown) > 0 {
		cw.warn(unknown[0], "unknown contextual options %s; left out (%s)", quotedList(unknown), offered)
	}
	if len(other) > 0 {
		cw.warn("", "contextual.options holds %s, which Lectern does not support; left out (%s)", strings.Join(other, ", "), offered)
	}
}

// quotedList quotes each name and joins them with commas.
func quotedList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = quoted(n)
	}
	return strings.Join(q, ", ")
}
