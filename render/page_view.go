package render

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"html"
	"html/template"
	"path"
	"sort"
	"strings"
	"sync"

	"lectern.dev/lectern"
	"lectern.dev/lectern/render/config"
	"lectern.dev/lectern/render/diag"
	"lectern.dev/lectern/render/features"
	"lectern.dev/lectern/render/icons"
	"lectern.dev/lectern/render/links"
	"lectern.dev/lectern/render/mdx"
	"lectern.dev/lectern/render/safe"
	"lectern.dev/lectern/render/search"
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

	Favicon     string
	LogoLight   string
	LogoDark    string
	LogoHref    string
	StyleURL    string
	ScriptURL   string
	InitURL     string // _lectern/theme-init.js, loaded blocking in <head>
	SearchURL   string // _lectern/search-index.js, loaded when search opens
	RootURL     string // the site root, to which search-index URLs are relative
	HomeURL     string
	PrimaryHex  string
	CSP         string        // the policy of an export page's <meta http-equiv> (render/features)
	ExtraHead   template.HTML // more <head> content (page-type specific assets)
	ExtraScript template.HTML // more scripts at the end of <body>
	// CustomScripts are the URLs of the repository's scripts, with
	// Options.CustomScripts (custom_scripts.go).
	CustomScripts []string

	// Features are the optional features of the build (Options.Features),
	// whose markup the layout writes between markers (render/features).
	Features       features.Site
	SearchJSURL    string        // _lectern/search.js
	AssistantJSURL string        // _lectern/assistant.js
	AnalyticsJSURL string        // _lectern/analytics.js
	AssistantMeta  template.HTML // <meta> holding Features.AssistantURL
	AnalyticsMeta  template.HTML // <meta> holding Features.AnalyticsURL

	NavbarLinks   []linkView
	NavbarPrimary *linkView
	Tabs          []linkView
	Selectors     []selectorView
	Anchors       []linkView
	Footer        []linkView
	Sidebar       template.HTML
	Breadcrumbs   []linkView

	Body template.HTML
	TOC  []search.TOCItem
	Prev *linkView
	Next *linkView
}

// Begin and End are the markers around the markup of feature name
// (render/features); html/template drops comments written in the layout.
func (v *pageView) Begin(name string) template.HTML {
	return template.HTML(features.BeginMarker(lectern.Feature(name)))
}

// End: see Begin.
func (v *pageView) End(name string) template.HTML {
	return template.HTML(features.EndMarker(lectern.Feature(name)))
}

// linkView is a link of the header, tabs, anchors, footer, breadcrumbs or
// pager. URL is empty for breadcrumbs that are not links.
type linkView struct {
	Label, URL, Icon string
	Active, External bool
	// IconHTML is the icon as inline SVG, for the footer's social links.
	IconHTML template.HTML
}

// selectorView is a choice between divisions shown as a menu (versions,
// languages, products, dropdowns).
type selectorView struct {
	Kind    string // "version", "language", ...
	Current string
	Options []linkView
}

// sideItem is an entry of the sidebar: a page, a link or a group.
type sideItem struct {
	Label, URL, Icon string
	Page             string // for page entries
	External         bool
	IsGroup          bool
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
		InitURL:    s.assetURL(outName, "_lectern/theme-init.js"),
		SearchURL:  s.assetURL(outName, features.SearchIndexJSFile),
		HomeURL:    s.urlFor(outName, links.Target{Kind: links.Page}),
		PrimaryHex: t.primary,
	}
	for _, f := range t.customJS {
		v.CustomScripts = append(v.CustomScripts, s.assetURL(outName, features.CustomScriptDir+f))
	}
	v.Features = s.opts.features()
	if s.opts.Export {
		v.CSP = v.Features.MetaContentSecurityPolicy()
	}
	if v.Features.Search {
		v.SearchJSURL = s.assetURL(outName, features.SearchJSFile)
	}
	if v.Features.Assistant {
		v.AssistantJSURL = s.assetURL(outName, features.AssistantJSFile)
		v.AssistantMeta = template.HTML(features.MetaTag(features.AssistantMetaName, v.Features.AssistantURL))
	}
	if v.Features.Analytics {
		v.AnalyticsJSURL = s.assetURL(outName, features.AnalyticsJSFile)
		v.AnalyticsMeta = template.HTML(features.MetaTag(features.AnalyticsMetaName, v.Features.AnalyticsURL))
	}
	v.RootURL = v.HomeURL
	if s.opts.Export {
		v.RootURL = strings.TrimSuffix(v.HomeURL, "index.html")
	}
	v.LogoHref = v.HomeURL
	if t.logoHref != "" {
		v.LogoHref, _ = t.configLink(outName, t.logoHref)
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
	nav := t.links(outName, s.cfg.NavbarLinks)
	if t.navbarPrimary && len(nav) > 0 {
		v.NavbarPrimary = &nav[len(nav)-1]
		nav = nav[:len(nav)-1]
	}
	v.NavbarLinks = nav
	v.Anchors = t.links(outName, s.cfg.Anchors)
	v.Footer = t.socials(outName) // socials.go

	current := ""
	var chain []*config.Nav
	if p != nil {
		current = p.path
		chain = t.chains[p.path]
	} else {
		// 404.html shows the first section.
		for n := s.cfg.Nav; n != nil; {
			chain = append(chain, n)
			var next *config.Nav
			for _, c := range n.Children {
				if c.IsDivision() && !c.Hidden && c.FirstPage() != "" {
					next = c
					break
				}
			}
			n = next
		}
	}
	// Each division of the chain offers its siblings: tabs and anchors as
	// tabs in the header, the other kinds as selectors. The sidebar shows
	// the innermost division.
	root := s.cfg.Nav
	for i, n := range chain {
		if i == 0 || !n.IsDivision() {
			continue
		}
		root = n
		var opts []linkView
		for _, c := range chain[i-1].Children {
			if !c.IsDivision() || c.Hidden {
				continue
			}
			l := linkView{Label: c.Label, Icon: c.Icon, Active: c == n}
			if first := c.FirstPage(); first != "" {
				l.URL = s.pageURL(outName, first)
			} else if c.Href != "" {
				l.URL, l.External = t.configLink(outName, c.Href)
			} else {
				continue
			}
			opts = append(opts, l)
		}
		switch n.Kind {
		case config.NavTab, config.NavAnchor, config.NavMenu:
			v.Tabs = opts
		default:
			if len(opts) > 1 {
				v.Selectors = append(v.Selectors, selectorView{Kind: string(n.Kind), Current: n.Label, Options: opts})
			}
		}
	}
	if w := t.sidebarWindowOf(root); w != nil {
		v.Sidebar = template.HTML(w.render(s, outName, current)) // sidebar_window.go
	} else if p != nil && p.fm.Hidden {
		// A hidden page is shown in the sidebar where the navigation has
		// it, on its own page only: that sidebar is not shared.
		v.Sidebar = renderSidebar(t.sideItems(root.Children, outName, p.path)).forPage(current)
	} else {
		v.Sidebar = t.sidebar(root, outName).forPage(current)
	}
	if p != nil {
		v.Breadcrumbs = t.breadcrumbs(outName, p, chain)
	}
	return v
}

// breadcrumbs lists the divisions (linked to their first page) and groups
// above page p, then the page itself.
func (t *theme) breadcrumbs(outName string, p *page, chain []*config.Nav) []linkView {
	var out []linkView
	for i, n := range chain {
		switch {
		case i == 0 || n.Label == "":
		case n.IsDivision():
			l := linkView{Label: n.Label}
			if first := n.FirstPage(); first != "" {
				l.URL = t.s.pageURL(outName, first)
			}
			out = append(out, l)
		case n.Kind == config.NavGroup:
			out = append(out, linkView{Label: n.Label})
		}
	}
	return append(out, linkView{Label: t.navLabel(p), Active: true})
}

// sidebarHTML is the sidebar of one navigation section, rendered once for
// the folder of the output files that show it (URLs are relative in the
// export form) and shared by all its pages. Marking the current page costs
// a few string insertions: active lists, for each page, the offsets where
// the active link's attributes and the open attribute of the groups
// holding it go.
type sidebarHTML struct {
	html   string
	active map[string][]insertion
}

type insertion struct {
	at   int
	text string
}

const (
	activeAttrs = ` class="lc-active" aria-current="page"`
	openAttr    = " open"
)

// forPage returns the sidebar with page marked as current ("" for none).
func (sb *sidebarHTML) forPage(page string) template.HTML {
	ins := sb.active[page]
	if len(ins) == 0 {
		return template.HTML(sb.html)
	}
	var b strings.Builder
	b.Grow(len(sb.html) + len(ins)*len(activeAttrs))
	last := 0
	for _, in := range ins {
		b.WriteString(sb.html[last:in.at])
		b.WriteString(in.text)
		last = in.at
	}
	b.WriteString(sb.html[last:])
	return template.HTML(b.String())
}

// sidebarKey identifies a rendered sidebar: a section and the folder of
// the output files (always "" in the live form, whose URLs are absolute;
// 404.html's own in the export form).
type sidebarKey struct {
	root *config.Nav
	dir  string
}

// sidebarCache holds the rendered sidebars; safe for concurrent use.
type sidebarCache struct {
	mu sync.Mutex
	m  map[sidebarKey]*sidebarHTML
	// windows holds the flattened sections of windowed sidebars, nil
	// for the others (sidebar_window.go).
	windows map[*config.Nav]*sidebarWindow
}

// sidebar returns the sidebar of the navigation section root (the root
// of the navigation or a division) for output files in the folder of
// outName, rendering it on first use. Safe for concurrent use.
//
// Its warnings (broken links) are muted: they are those of sidebarLinks,
// which site.prewarmSidebars calls for every section in navigation order,
// whereas which page renders a sidebar first depends on the scheduling of
// the workers.
func (t *theme) sidebar(root *config.Nav, outName string) *sidebarHTML {
	key := t.sidebarKeyOf(root, outName)
	t.sidebars.mu.Lock()
	defer t.sidebars.mu.Unlock()
	if sb := t.sidebars.m[key]; sb != nil {
		return sb
	}
	if t.sidebars.m == nil {
		t.sidebars.m = map[sidebarKey]*sidebarHTML{}
	}
	muted := *t
	ms := *t.s
	ms.w = &diag.Warner{Mute: 1}
	muted.s = &ms
	sb := renderSidebar(muted.sideItems(root.Children, outName, ""))
	t.sidebars.m[key] = sb
	return sb
}

// sidebarKeyOf is the key of the sidebar of section root for the output
// file outName.
func (t *theme) sidebarKeyOf(root *config.Nav, outName string) sidebarKey {
	key := sidebarKey{root: root}
	if t.s.opts.Export {
		key.dir = path.Dir(outName)
		if outName == "404.html" {
			key.dir = outName // its URLs are absolute, unlike its neighbours'
		}
	}
	return key
}

// sidebarLinks gives the warnings of sideItems for nodes: it resolves the
// same links, in the same order.
func (t *theme) sidebarLinks(nodes []*config.Nav) {
	for _, n := range nodes {
		if n.Hidden {
			continue
		}
		switch {
		case n.Kind == config.NavPage:
		case n.Kind == config.NavLink:
			t.configLink("", n.Href)
		case len(n.Children) > 0:
			t.sidebarLinks(n.Children)
		case n.Href != "":
			t.configLink("", n.Href)
		}
	}
}

// sidebarInputs hashes what the sidebar of section root depends on
// besides the configuration and the set of files, which the cache's key
// covers, and the folder of the output file (export form), which
// site.prewarmSidebars adds: the label, icon and hidden state of each
// page under it and, for a windowed sidebar (sidebar_window.go), the
// window's threshold and size. Equal inputs give an equal sidebar
// (buildCache.contextHash), without rendering it.
func (t *theme) sidebarInputs(root *config.Nav) string {
	h := sha256.New()
	buf := make([]byte, 0, 512)
	field := func(v string) {
		buf = binary.AppendUvarint(buf, uint64(len(v)))
		buf = append(buf, v...)
	}
	var walk func(nodes []*config.Nav)
	walk = func(nodes []*config.Nav) {
		for _, n := range nodes {
			if n.Kind == config.NavPage {
				field(n.Page)
				if p := t.s.pages[n.Page]; p == nil {
					buf = append(buf, 0)
				} else {
					field(t.navLabel(p))
					field(p.fm.Icon)
					buf = append(buf, 1)
					if p.fm.Hidden {
						buf = append(buf, 1)
					} else {
						buf = append(buf, 0)
					}
				}
				if len(buf) > 256 {
					h.Write(buf)
					buf = buf[:0]
				}
			}
			walk(n.Children)
		}
	}
	walk(root.Children)
	if w := t.sidebarWindowOf(root); w != nil {
		// What is shown of a windowed sidebar depends on its size too.
		buf = append(buf, 'w')
		buf = binary.AppendUvarint(buf, uint64(sidebarWindowMin))
		buf = binary.AppendUvarint(buf, uint64(w.size))
	}
	h.Write(buf)
	var sumBuf [sha256.Size]byte
	return hex.EncodeToString(h.Sum(sumBuf[:0])[:16])
}

// renderSidebar renders the sidebar: top-level groups as titled sections,
// nested groups as collapsible <details>. It is written in Go rather than
// the template because it is most of each page.
func renderSidebar(items []*sideItem) *sidebarHTML {
	w := &sidebarWriter{active: map[string][]insertion{}}
	for _, it := range items {
		if it.IsGroup {
			w.b.WriteString(`<div class="lc-nav-section"><p class="lc-nav-heading">` + icons.HTML(it.Icon) + html.EscapeString(it.Label) + "</p>")
			w.list(it.Items, nil)
			w.b.WriteString("</div>\n")
			continue
		}
		w.list([]*sideItem{it}, nil)
		w.b.WriteString("\n")
	}
	for pg, ins := range w.active {
		sort.SliceStable(ins, func(i, j int) bool { return ins[i].at < ins[j].at })
		out := ins[:0]
		for i, in := range ins {
			if i > 0 && in.at == ins[i-1].at {
				continue
			}
			out = append(out, in)
		}
		w.active[pg] = out
	}
	return &sidebarHTML{html: w.b.String(), active: w.active}
}

type sidebarWriter struct {
	b      strings.Builder
	active map[string][]insertion
}

// list writes a list of entries; opens are the offsets of the open
// attribute of the enclosing groups.
func (w *sidebarWriter) list(items []*sideItem, opens []int) {
	b := &w.b
	b.WriteString(`<ul class="lc-nav-list">`)
	for _, it := range items {
		if it.IsGroup {
			b.WriteString(`<li class="lc-nav-group"><details`)
			at := b.Len()
			b.WriteString("><summary>" + icons.HTML(it.Icon) + html.EscapeString(it.Label) + "</summary>")
			w.list(it.Items, append(opens[:len(opens):len(opens)], at))
			b.WriteString("</details></li>")
			continue
		}
		b.WriteString(`<li><a href="` + html.EscapeString(safeHref(it.URL)) + `"`)
		if it.Page != "" {
			ins := w.active[it.Page]
			for _, o := range opens {
				ins = append(ins, insertion{at: o, text: openAttr})
			}
			w.active[it.Page] = append(ins, insertion{at: b.Len(), text: activeAttrs})
		}
		if it.External {
			b.WriteString(` rel="noopener"`)
		}
		b.WriteString(">" + html.EscapeString(it.Label) + "</a></li>")
	}
	b.WriteString("</ul>")
}

// safeHref keeps URLs whose scheme is harmless in a link and replaces the
// others (javascript:, data:, ...) by "#".
func safeHref(u string) string {
	if safe.URLAllowed(u, false) {
		return u
	}
	return "#"
}

// sideItems builds the sidebar entries for nav nodes. Hidden pages are
// left out, except the page show ("" for none), which is the current one.
func (t *theme) sideItems(nodes []*config.Nav, outName, show string) []*sideItem {
	var out []*sideItem
	for _, n := range nodes {
		if n.Hidden {
			continue
		}
		switch {
		case n.Kind == config.NavPage:
			p := t.s.pages[n.Page]
			if p == nil || p.fm.Hidden && n.Page != show {
				continue
			}
			out = append(out, &sideItem{Label: t.navLabel(p), URL: t.s.pageURL(outName, n.Page), Icon: p.fm.Icon, Page: n.Page})
		case n.Kind == config.NavLink:
			u, ext := t.configLink(outName, n.Href)
			out = append(out, &sideItem{Label: n.Label, URL: u, Icon: n.Icon, External: ext})
		case len(n.Children) > 0:
			items := t.sideItems(n.Children, outName, show)
			if len(items) == 0 {
				continue
			}
			out = append(out, &sideItem{Label: n.Label, Icon: n.Icon, IsGroup: true, Items: items})
		case n.Href != "":
			u, ext := t.configLink(outName, n.Href)
			out = append(out, &sideItem{Label: n.Label, URL: u, Icon: n.Icon, External: ext})
		}
	}
	return out
}

// links resolves configuration links for the output file outName.
func (t *theme) links(outName string, list []config.Link) []linkView {
	var out []linkView
	for _, l := range list {
		u, ext := t.configLink(outName, l.Href)
		out = append(out, linkView{Label: l.Label, URL: safeHref(u), Icon: l.Icon, External: ext})
	}
	return out
}

// configLink resolves a link of the configuration, warning (once) when an
// internal one is broken.
func (t *theme) configLink(outName, href string) (u string, external bool) {
	if !safe.URLAllowed(href, false) {
		t.s.cfg.Warn(t.s.w, href, "link %q removed: only http, https, mailto and tel URLs, relative links and fragments are allowed", mdx.FirstLine(href, 60))
		return "#", false
	}
	tg := t.s.resolve("", href)
	if tg.Kind == links.Missing {
		t.s.cfg.Warn(t.s.w, href, "broken link %q: %s", href, tg.Reason)
	}
	return safeHref(t.s.urlFor(outName, tg)), tg.Kind == links.External
}
