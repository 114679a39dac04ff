package render

import (
	"html/template"
	"strings"
)

// pageView is what theme/layout.html renders. Every URL in it is already
// in the form of the build (absolute or relative to the output file).
type pageView struct {
	SiteName    string
	Title       string
	Description string
	Keywords    string
	Canonical   string
	Mode        string
	Eyebrow     string // the page's group
	NoIndex     bool
	NotFound    bool

	Favicon    string
	LogoLight  string
	LogoDark   string
	StyleURL   string
	ScriptURL  string
	SearchURL  string
	HomeURL    string
	PrimaryHex string

	NavbarLinks []linkView
	Tabs        []linkView
	Anchors     []linkView
	Footer      []linkView
	Sidebar     template.HTML

	Body template.HTML
	TOC  []tocItem
	Prev *linkView
	Next *linkView
}

// linkView is a link of the header, tabs, anchors, footer or pager.
type linkView struct {
	Label, URL, Icon string
	Active, External bool
}

// sideItem is an entry of the sidebar: a page, a link or a group.
type sideItem struct {
	Label, URL, Icon string
	Active, External bool
	IsGroup, Open    bool
	Items            []*sideItem
}

// view builds the site chrome for the output file outName, showing page p
// as current (p is nil for 404.html).
func (t *theme) view(outName string, p *page) *pageView {
	s := t.s
	v := &pageView{
		SiteName:   s.cfg.Name,
		StyleURL:   s.assetURL(outName, "_lectern/style.css"),
		ScriptURL:  s.assetURL(outName, "_lectern/site.js"),
		SearchURL:  s.assetURL(outName, "_lectern/search-index.json"),
		HomeURL:    s.urlFor(outName, target{kind: tPage}),
		PrimaryHex: t.primary,
	}
	if t.favicon != "" {
		v.Favicon = s.assetURL(outName, t.favicon)
	}
	if t.logoLight != "" {
		v.LogoLight = s.assetURL(outName, t.logoLight)
	}
	if t.logoDark != "" {
		v.LogoDark = s.assetURL(outName, t.logoDark)
	}
	v.NavbarLinks = t.links(outName, s.cfg.NavbarLinks)
	v.Anchors = t.links(outName, s.cfg.Anchors)
	v.Footer = t.links(outName, s.cfg.FooterLinks)

	current := ""
	var chain []*Nav
	if p != nil {
		current = p.path
		chain = t.chains[p.path]
	}
	// The sidebar shows the innermost division holding the page (the
	// first division for 404.html); the header lists that division's
	// siblings as tabs.
	var division, parent *Nav = nil, s.cfg.Nav
	for i, n := range chain {
		if n.IsDivision() {
			division, parent = n, chain[i-1]
		}
	}
	if p == nil {
		for _, c := range s.cfg.Nav.Children {
			if c.IsDivision() && c.FirstPage() != "" {
				division = c
				break
			}
		}
	}
	root := s.cfg.Nav
	if division != nil {
		root = division
		for _, c := range parent.Children {
			if !c.IsDivision() || c.Hidden {
				continue
			}
			l := linkView{Label: c.Label, Icon: c.Icon, Active: c == division}
			if first := c.FirstPage(); first != "" {
				l.URL = s.pageURL(outName, first)
			} else if c.Href != "" {
				l.URL, l.External = t.configLink(outName, c.Href)
			} else {
				continue
			}
			v.Tabs = append(v.Tabs, l)
		}
	}
	v.Sidebar = sidebarHTML(t.sideItems(root.Children, outName, current))
	return v
}

// sidebarHTML renders the sidebar: top-level groups as titled sections,
// nested groups as <details>, open when they hold the current page. It is
// written in Go rather than the template because it is most of each page.
func sidebarHTML(items []*sideItem) template.HTML {
	var b strings.Builder
	for _, it := range items {
		if it.IsGroup {
			b.WriteString(`<div class="lc-nav-section"><p class="lc-nav-heading">` + esc(it.Label) + "</p>")
			writeNavList(&b, it.Items)
			b.WriteString("</div>\n")
			continue
		}
		writeNavList(&b, []*sideItem{it})
		b.WriteString("\n")
	}
	return template.HTML(b.String())
}

func writeNavList(b *strings.Builder, items []*sideItem) {
	b.WriteString(`<ul class="lc-nav-list">`)
	for _, it := range items {
		if it.IsGroup {
			b.WriteString(`<li class="lc-nav-group"><details`)
			if it.Open {
				b.WriteString(" open")
			}
			b.WriteString("><summary>" + esc(it.Label) + "</summary>")
			writeNavList(b, it.Items)
			b.WriteString("</details></li>")
			continue
		}
		b.WriteString(`<li><a href="` + esc(safeHref(it.URL)) + `"`)
		if it.Active {
			b.WriteString(` class="lc-active" aria-current="page"`)
		}
		if it.External {
			b.WriteString(` rel="noopener"`)
		}
		b.WriteString(">" + esc(it.Label) + "</a></li>")
	}
	b.WriteString("</ul>")
}

// safeHref keeps URLs whose scheme is harmless in a link and replaces the
// others (javascript:, data:, ...) by "#".
func safeHref(u string) string {
	if !isExternal(u) || strings.HasPrefix(u, "//") {
		return u
	}
	scheme := strings.ToLower(u[:strings.IndexByte(u, ':')])
	switch scheme {
	case "http", "https", "mailto", "tel":
		return u
	}
	return "#"
}

// sideItems builds the sidebar entries for nav nodes.
func (t *theme) sideItems(nodes []*Nav, outName, current string) []*sideItem {
	var out []*sideItem
	for _, n := range nodes {
		if n.Hidden {
			continue
		}
		switch {
		case n.Kind == NavPage:
			p := t.s.pages[n.Page]
			if p == nil || (p.fm.Hidden && n.Page != current) {
				continue
			}
			out = append(out, &sideItem{Label: t.navLabel(p), URL: t.s.pageURL(outName, n.Page), Icon: p.fm.Icon, Active: n.Page == current})
		case n.Kind == NavLink:
			u, ext := t.configLink(outName, n.Href)
			out = append(out, &sideItem{Label: n.Label, URL: u, Icon: n.Icon, External: ext})
		case len(n.Children) > 0:
			items := t.sideItems(n.Children, outName, current)
			if len(items) == 0 {
				continue
			}
			g := &sideItem{Label: n.Label, Icon: n.Icon, IsGroup: true, Items: items}
			for _, it := range items {
				if it.Active || it.Open {
					g.Open = true
				}
			}
			out = append(out, g)
		case n.Href != "":
			u, ext := t.configLink(outName, n.Href)
			out = append(out, &sideItem{Label: n.Label, URL: u, Icon: n.Icon, External: ext})
		}
	}
	return out
}

// links resolves configuration links for the output file outName.
func (t *theme) links(outName string, list []Link) []linkView {
	var out []linkView
	for _, l := range list {
		u, ext := t.configLink(outName, l.Href)
		out = append(out, linkView{Label: l.Label, URL: u, Icon: l.Icon, External: ext})
	}
	return out
}

// configLink resolves a link of the configuration, warning (once) when an
// internal one is broken.
func (t *theme) configLink(outName, href string) (u string, external bool) {
	tg := t.s.resolve("", href)
	if tg.kind == tMissing {
		t.s.cfg.warn(t.s.w, href, "broken link %q: %s", href, tg.reason)
	}
	return t.s.urlFor(outName, tg), tg.kind == tExternal
}
