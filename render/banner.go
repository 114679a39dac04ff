package render

import (
	"path"
	"strings"
	"sync"

	"lectern.dev/lectern/render/components"
	"lectern.dev/lectern/render/diag"
	"lectern.dev/lectern/render/mdx"
	"lectern.dev/lectern/render/safe"
)

// Mintlify's banner is a setting of docs.json, not a component:
//
//	"banner": {"content": "Markdown", "type": "info|warning|critical",
//	           "color": {"light": "#hex", "dark": "#hex"}, "dismissible": true}
//
// Lectern shows it as a static bar at the top of every page, its content
// rendered as Markdown for each page (links are relative in an export).
// It cannot be dismissed: that would need the page to remember a choice.

// siteBanner is the banner setting of the configuration.
type siteBanner struct {
	content, kind, light, dark string
}

// readBanner returns the configuration's banner, or nil when it has none.
func (s *site) readBanner() *siteBanner {
	if s.cfg == nil {
		return nil
	}
	raw, ok := s.cfg.Raw["banner"].(map[string]any)
	if !ok {
		return nil
	}
	str := func(m map[string]any, k string) string {
		v, _ := m[k].(string)
		return strings.TrimSpace(v)
	}
	b := &siteBanner{content: str(raw, "content"), kind: str(raw, "type")}
	if b.content == "" {
		return nil
	}
	switch b.kind {
	case "warning", "critical":
	default:
		b.kind = "info"
	}
	if col, ok := raw["color"].(map[string]any); ok {
		b.light, b.dark = safe.Color(str(col, "light")), safe.Color(str(col, "dark"))
		if b.light == "" {
			b.light = b.dark
		}
		if b.dark == "" {
			b.dark = b.light
		}
	}
	return b
}

// bannerFunc returns the function that writes the banner of each page
// (layout.Site.Banner), or nil without a banner. The content is rendered
// here once with the build's warnings, then once for each folder of
// pages, in silence: its links are the same for every page of a folder.
func (s *site) bannerFunc() func(outName string) string {
	b := s.readBanner()
	if b == nil {
		return nil
	}
	var byDir sync.Map // folder of the page → the banner's HTML
	byDir.Store(".", b.html(s, "index.html", s.w))
	return func(outName string) string {
		dir := path.Dir(outName)
		if h, ok := byDir.Load(dir); ok {
			return h.(string)
		}
		h := b.html(s, outName, &diag.Warner{Mute: 1})
		byDir.Store(dir, h)
		return h
	}
}

// html renders the banner for the page written as outName.
func (b *siteBanner) html(s *site, outName string, w *diag.Warner) string {
	env := s.renderEnv()
	env.W = w
	env.LoadModule = func(string) *mdx.Module { return nil } // no snippets in a banner
	r := components.New(env, s.cfg.Source, "", outName)
	body := strings.TrimSpace(r.MarkdownText(b.content, &mdx.Scope{}))
	if strings.HasPrefix(body, "<p>") && strings.HasSuffix(body, "</p>") && strings.Count(body, "<p>") == 1 {
		body = body[3 : len(body)-4]
	}
	style := ""
	if b.light != "" {
		style = ` style="--lc-banner-bg: ` + b.light + `; --lc-banner-bg-dark: ` + b.dark + `"`
	}
	return `<div class="lc-banner-bar lc-banner-` + b.kind + `" role="region" aria-label="Announcement"` + style +
		`><div class="lc-banner-content">` + body + "</div></div>"
}
