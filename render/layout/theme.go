package layout

import (
	"bytes"
	"embed"
	"html"
	"html/template"
	"strings"
	"sync"

	"lectern.dev/lectern/render/config"
	"lectern.dev/lectern/render/diag"
	"lectern.dev/lectern/render/features"
	"lectern.dev/lectern/render/highlight"
	"lectern.dev/lectern/render/links"
	"lectern.dev/lectern/render/page"
	"lectern.dev/lectern/render/safe"
	"lectern.dev/lectern/render/search"
)

// themeFS holds the theme: layout.html, style.css, the scripts under
// _lectern/ and any asset added to theme/ later.
//
//go:embed theme
var themeFS embed.FS

var (
	layoutTmpl = template.Must(template.New("layout.html").ParseFS(themeFS, "theme/layout.html", "theme/features.html"))
	styleCSS   = Asset("theme/style.css")
	// utilitiesCSS are the utility classes (Tailwind's names) pages may
	// use, written by TestUtilitiesCSS.
	utilitiesCSS = Asset("theme/utilities.css")
	SiteJS       = Asset("theme/site.js")
	ThemeInit    = Asset("theme/theme-init.js")
)

// Asset returns a file of the theme folder, such as "theme/search.js".
// It panics for a file that is not there: names are constants.
func Asset(name string) []byte {
	data, err := themeFS.ReadFile(name)
	if err != nil {
		panic(err) // embedded at compile time: cannot fail
	}
	return data
}

// DefaultPrimary is the accent colour when the configuration has none.
const DefaultPrimary = "#2563eb"

// Theme renders pages into the site's HTML layout. Its methods are safe
// for concurrent use once New has returned.
type Theme struct {
	s         *Site
	primary   string // colors.primary: accent on light backgrounds
	light     string // colors.light: accent on dark backgrounds
	dark      string // colors.dark: buttons and hover on light backgrounds
	logoLight string // source file paths, "" when absent
	logoDark  string
	logoHref  string // the logo's link target from the configuration, or ""
	favicon   string
	// chains holds, for each page, the navigation nodes from the root to
	// its first appearance.
	chains map[string][]*config.Nav
	// seq are the pages of s.Order that previous and next links lead
	// through (inPager), and index is each one's position in seq.
	seq      []*page.Page
	index    map[*page.Page]int
	sidebars *sidebarCache // shared by the per-page copies (ForWarner) of a parallel build
	features *featureCache // as sidebars
	// sidebarSums are, by page of s.Order, the hashes of what its sidebar
	// shows (sidebarInputs of the section, then the folder in the export
	// form), set by Prewarm with hashes; read-only after.
	sidebarSums []string
	// chromeSum is the hash of where the configuration's links lead
	// (ChromeSum), set by Prewarm with hashes.
	chromeSum string
	// navIDs names the navigation file of each section (navfile.go): the
	// root of the navigation and each division.
	navIDs map[*config.Nav]string
	// metaCSP is the policy of an export's pages without a playground
	// (features.Site.MetaContentSecurityPolicy), "" for a live site.
	metaCSP string
	// w receives the warnings: s.Warner, or another in a copy made by
	// ForWarner.
	w *diag.Warner
	// socialViews are the labels and icons of the footer's social links
	// (socials.go), in the order of cfg.FooterLinks.
	socialViews []socialView
	// anchorIcons are the icons of the global anchors, drawn once, in the
	// order of cfg.Anchors.
	anchorIcons []template.HTML
	// accentLight and accentDark are the accent colours of text in
	// light and dark mode (accents).
	accentLight, accentDark string
	// look is the configured look: fonts, background, colour mode,
	// styling (look.go).
	look look
}

// New makes the theme of site s, warning of configuration it cannot use
// (colours, logo, favicon). s must not change after.
func New(s *Site) *Theme {
	t := &Theme{s: s, primary: DefaultPrimary, chains: map[string][]*config.Nav{}, index: map[*page.Page]int{}, sidebars: &sidebarCache{}, features: &featureCache{}, w: s.Warner}
	if s.Links.Export {
		t.metaCSP = s.Features.MetaContentSecurityPolicy()
	}
	cfg := s.Config
	color := func(c, what string) string {
		if c == "" {
			return ""
		}
		if safe := safe.Color(c); safe != "" {
			return safe
		}
		cfg.Warn(t.w, c, "colors.%s %q is not a CSS colour; using the default", what, c)
		return ""
	}
	if c := color(cfg.Colors.Primary, "primary"); c != "" {
		t.primary = c
	}
	t.light = color(cfg.Colors.Light, "light")
	t.dark = color(cfg.Colors.Dark, "dark")
	t.logoLight = t.configFile(cfg.Logo.Light, "logo")
	t.logoDark = t.logoLight
	if cfg.Logo.Dark != cfg.Logo.Light {
		t.logoDark = t.configFile(cfg.Logo.Dark, "logo")
		if t.logoDark == "" {
			t.logoDark = t.logoLight
		}
	}
	if t.logoLight == "" {
		t.logoLight = t.logoDark
	}
	t.logoHref = cfg.Logo.Href
	t.favicon = t.configFile(cfg.Favicon, "favicon")
	t.socialViews = socialViews(cfg.FooterLinks)
	t.anchorIcons = make([]template.HTML, len(cfg.Anchors))
	for i, a := range cfg.Anchors {
		t.anchorIcons[i] = template.HTML(cfg.Icons().HTML(a.Icon))
	}
	t.look = t.newLook()
	t.accentLight, t.accentDark = t.accents() // contrast.go
	for _, p := range s.Order {
		if inPager(p) {
			t.index[p] = len(t.seq)
			t.seq = append(t.seq, p)
		}
	}
	var walk func(n *config.Nav, chain []*config.Nav)
	walk = func(n *config.Nav, chain []*config.Nav) {
		chain = append(chain[:len(chain):len(chain)], n)
		if n.Kind == config.NavPage {
			if _, seen := t.chains[n.Page]; !seen {
				t.chains[n.Page] = chain
			}
			return
		}
		for _, c := range n.Children {
			walk(c, chain)
		}
	}
	walk(cfg.Nav, nil)
	t.placeUnlisted()
	t.navIDs = navIDs(cfg.Nav)
	return t
}

// configFile resolves a file named by the configuration (logo, favicon) to
// a source file, warning when it is missing or on another host.
func (t *Theme) configFile(p, what string) string {
	if p == "" {
		return ""
	}
	tg := t.s.Links.Resolve("", p)
	switch tg.Kind {
	case links.File:
		return tg.Path
	case links.External:
		t.s.Config.Warn(t.w, p, "%s %q is on another host; not used, pages load nothing from other hosts", what, p)
	default:
		t.s.Config.Warn(t.w, p, "%s %q not found", what, p)
	}
	return ""
}

// CSS returns _lectern/style.css: the theme's stylesheet with the site's
// colours, then the syntax highlighting, the utility classes pages use
// (utilities.css) and the configured look (look.go). --lc-primary,
// --lc-primary-light and --lc-primary-dark are the configured colours;
// --lc-accent-on-light and --lc-accent-on-dark the accents of text in
// either mode (primary and light, unless hard to read: accents);
// --lc-primary-dark colours buttons in both modes, whose label is
// --lc-on-button: white or near-black, whichever contrasts more.
func (t *Theme) CSS() []byte {
	light, dark := t.light, t.dark
	if light == "" {
		light = t.primary
	}
	if dark == "" {
		dark = t.primary
	}
	head := ":root { --lc-primary: " + t.primary + "; --lc-primary-light: " + light + "; --lc-primary-dark: " + dark +
		"; --lc-on-button: " + labelOn(dark) + "; --lc-accent-on-light: " + t.accentLight + "; --lc-accent-on-dark: " + t.accentDark + "; }\n"
	out := append([]byte(head), staticCSS()...)
	return append(out, withToggleDark(t.lookCSS())...)
}

// staticCSS is the part of style.css every site has: the theme's rules,
// the syntax highlighting (render/highlight) and the utility classes,
// with the rules of the toggle's dark mode (dark.go).
var staticCSS = sync.OnceValue(func() []byte {
	return []byte(withToggleDark(string(styleCSS)) + string(highlight.CSS()) + withToggleDark(string(utilitiesCSS)))
})

// Page renders page p, written as outName, with its rendered body.
func (t *Theme) Page(p *page.Page, outName, body string, toc []search.TOCItem) []byte {
	v := t.view(outName, p)
	v.Title = p.Title
	v.Description = p.Front.Description
	v.Body = template.HTML(body)
	if t.s.Links.Export && v.Features.Playground {
		// The "Try it" forms of the page may call the API servers it
		// offers, also when the export is served by a static host.
		if o := features.PlaygroundServerOrigins([]byte(body)); len(o) > 0 {
			f := v.Features
			f.PlaygroundOrigins = append(append([]string(nil), f.PlaygroundOrigins...), o...)
			v.CSP = f.MetaContentSecurityPolicy()
		}
	}
	v.TOC = toc
	v.Mode = p.Front.Mode
	v.Contextual = t.contextual(outName)
	// Mintlify gives a hidden page a noindex tag; an unlisted one is only
	// left out of the sitemap.
	v.NoIndex = p.Front.NoIndex || p.Front.Hidden && !t.s.Config.IndexAll
	v.Keywords = strings.Join(p.Front.Keywords, ", ")
	if g := t.s.Entries[p.Path].Groups; len(g) > 0 && t.look.styling.Eyebrows != config.EyebrowsBreadcrumbs {
		v.Eyebrow = g[len(g)-1]
	}
	if t.s.Links.SiteURL != "" {
		v.Canonical = t.s.Links.Canonical(p.Path)
	}
	if prev, next := t.Neighbours(p); !p.Front.HideFooterPagination {
		if prev != nil {
			v.Prev = &linkView{Label: NavLabel(prev), URL: t.s.Links.PageURL(outName, prev.Path)}
		}
		if next != nil {
			v.Next = &linkView{Label: NavLabel(next), URL: t.s.Links.PageURL(outName, next.Path)}
		}
	}
	if p.Front.URL != "" && strings.TrimSpace(body) == "" {
		// A page that is a link of the navigation, opened by its own path.
		u, _ := t.pageURL(outName, p)
		v.Body = template.HTML(`<p class="lc-url-page">This page is at <a href="` + html.EscapeString(u) + `" rel="noopener">` +
			html.EscapeString(p.Front.URL) + `</a>.</p>`)
	}
	return t.execute(v)
}

// NotFound renders 404.html, with extraHead added to its <head>.
func (t *Theme) NotFound(extraHead string) []byte {
	v := t.view("404.html", nil)
	v.Title = "Page not found"
	v.Description = "The page you are looking for does not exist or has moved."
	v.Body = template.HTML(`<p><a href="` + html.EscapeString(v.HomeURL) + `">Go to the home page</a></p>`)
	v.NoIndex = true
	v.NotFound = true
	v.ExtraHead += template.HTML(extraHead)
	return t.execute(v)
}

func (t *Theme) execute(v *pageView) []byte {
	t.features.set(v)
	var buf bytes.Buffer
	buf.Grow(len(v.Body) + len(v.Sidebar) + 8192)
	if err := layoutTmpl.Execute(&buf, v); err != nil {
		// Only a bug in the template can get here; keep the page usable.
		return []byte("<!doctype html><meta charset=utf-8><title>" + html.EscapeString(v.Title) + "</title>" + string(v.Body))
	}
	return buf.Bytes()
}

// NavLabel is a page's label in navigation: sidebarTitle, else title.
func NavLabel(p *page.Page) string {
	if p.Front.SidebarTitle != "" {
		return p.Front.SidebarTitle
	}
	return p.Title
}

// ForWarner returns a copy of t that reports its warnings to w, for the
// renderer of one page.
func (t *Theme) ForWarner(w *diag.Warner) *Theme {
	c := *t
	c.w = w
	return &c
}
