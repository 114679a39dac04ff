package render

import (
	"bytes"
	"embed"
	"html/template"
	"strings"
)

//go:embed theme/layout.html theme/style.css theme/site.js
var themeFS embed.FS

var (
	layoutTmpl = template.Must(template.New("layout.html").ParseFS(themeFS, "theme/layout.html"))
	styleCSS   = mustRead("theme/style.css")
	siteJS     = mustRead("theme/site.js")
)

func mustRead(name string) []byte {
	data, err := themeFS.ReadFile(name)
	if err != nil {
		panic(err) // embedded at compile time: cannot fail
	}
	return data
}

// defaultPrimary is the accent colour when the configuration has none.
const defaultPrimary = "#2563eb"

// theme renders pages into the site's HTML layout.
type theme struct {
	s         *site
	primary   string
	logoLight string // source file paths, "" when absent
	logoDark  string
	favicon   string
	// chains holds, for each page, the navigation nodes from the root to
	// its first appearance.
	chains map[string][]*Nav
}

func newTheme(s *site) *theme {
	t := &theme{s: s, primary: defaultPrimary, chains: map[string][]*Nav{}}
	cfg := s.cfg
	if c := cfg.Colors.Primary; c != "" {
		if safe := safeColor(c); safe != "" {
			t.primary = safe
		} else {
			cfg.warn(s.w, c, "colors.primary %q is not a CSS colour; using the default", c)
		}
	}
	t.logoLight = t.configFile(cfg.Logo.Light, "logo")
	t.logoDark = t.logoLight
	if cfg.Logo.Dark != cfg.Logo.Light {
		t.logoDark = t.configFile(cfg.Logo.Dark, "logo")
	}
	t.favicon = t.configFile(cfg.Favicon, "favicon")
	var walk func(n *Nav, chain []*Nav)
	walk = func(n *Nav, chain []*Nav) {
		chain = append(chain[:len(chain):len(chain)], n)
		if n.Kind == NavPage {
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
	return t
}

// configFile resolves a file named by the configuration (logo, favicon) to
// a source file, warning when it is missing or on another host.
func (t *theme) configFile(p, what string) string {
	if p == "" {
		return ""
	}
	tg := t.s.resolve("", p)
	switch tg.kind {
	case tFile:
		return tg.path
	case tExternal:
		t.s.cfg.warn(t.s.w, p, "%s %q is on another host; not used, pages load nothing from other hosts", what, p)
	default:
		t.s.cfg.warn(t.s.w, p, "%s %q not found", what, p)
	}
	return ""
}

// css returns _lectern/style.css with the site's primary colour.
func (t *theme) css() []byte {
	head := ":root { --lc-primary: " + t.primary + "; }\n"
	return append([]byte(head), styleCSS...)
}

// page renders page p, written as outName, with its rendered body.
func (t *theme) page(p *page, outName, body string, toc []tocItem) []byte {
	v := t.view(outName, p)
	v.Title = p.title
	v.Description = p.fm.Description
	v.Body = template.HTML(body)
	v.TOC = toc
	v.Mode = p.fm.Mode
	v.NoIndex = p.fm.NoIndex
	v.Keywords = strings.Join(p.fm.Keywords, ", ")
	if g := t.s.entries[p.path].Groups; len(g) > 0 {
		v.Eyebrow = g[len(g)-1]
	}
	if t.s.opts.SiteURL != "" {
		v.Canonical = t.s.canonicalURL(p.path)
	}
	for i, q := range t.s.order {
		if q != p {
			continue
		}
		if i > 0 {
			v.Prev = &linkView{Label: t.navLabel(t.s.order[i-1]), URL: t.s.pageURL(outName, t.s.order[i-1].path)}
		}
		if i+1 < len(t.s.order) {
			v.Next = &linkView{Label: t.navLabel(t.s.order[i+1]), URL: t.s.pageURL(outName, t.s.order[i+1].path)}
		}
		break
	}
	return t.execute(v)
}

// notFound renders 404.html.
func (t *theme) notFound() []byte {
	v := t.view("404.html", nil)
	v.Title = "Page not found"
	v.Description = "The page you are looking for does not exist or has moved."
	v.Body = template.HTML(`<p><a href="` + esc(v.HomeURL) + `">Go to the home page</a></p>`)
	v.NoIndex = true
	v.NotFound = true
	return t.execute(v)
}

func (t *theme) execute(v *pageView) []byte {
	var buf bytes.Buffer
	if err := layoutTmpl.Execute(&buf, v); err != nil {
		// Only a bug in the template can get here; keep the page usable.
		return []byte("<!doctype html><meta charset=utf-8><title>" + esc(v.Title) + "</title>" + string(v.Body))
	}
	return buf.Bytes()
}

// navLabel is a page's label in navigation: sidebarTitle, else title.
func (t *theme) navLabel(p *page) string {
	if p.fm.SidebarTitle != "" {
		return p.fm.SidebarTitle
	}
	return p.title
}
