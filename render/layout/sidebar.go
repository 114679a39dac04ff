package layout

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

	"lectern.dev/lectern/render/config"
	"lectern.dev/lectern/render/links"
	"lectern.dev/lectern/render/page"
)

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
	// navs holds the flattened sections, from which whole and split
	// sidebars are rendered (sidebar_split.go).
	navs map[*config.Nav]*sectionNav
	// parts holds the rendered parts of split sidebars that pages share
	// (sidebar_split.go).
	parts map[partKey]*sidebarHTML
}

// sidebar returns the sidebar of the navigation section root (the root
// of the navigation or a division) for output files in the folder of
// outName, rendering it on first use (from the flattened section,
// sidebar_split.go). Safe for concurrent use.
//
// It gives no warnings: sidebarLinks, which Prewarm calls for every
// section in navigation order, gives those of its links, whereas which
// page renders a sidebar first depends on the scheduling of the workers.
func (t *Theme) sidebar(root *config.Nav, outName string) *sidebarHTML {
	nav := t.flatNav(root)
	return rendered(t.sidebars, &t.sidebars.m, t.sidebarKeyOf(root, outName), func(active map[string][]insertion) string {
		return nav.full(t.s, outName, "", nil, active)
	})
}

// rendered returns the sidebar (or part) of key in *m, rendering it on
// first use, with the insertions that mark each page (sidebarHTML.forPage).
func rendered[K comparable](c *sidebarCache, m *map[K]*sidebarHTML, key K, render func(active map[string][]insertion) string) *sidebarHTML {
	c.mu.Lock()
	defer c.mu.Unlock()
	if sb := (*m)[key]; sb != nil {
		return sb
	}
	if *m == nil {
		*m = map[K]*sidebarHTML{}
	}
	sb := &sidebarHTML{active: map[string][]insertion{}}
	sb.html = render(sb.active)
	sortInsertions(sb.active)
	(*m)[key] = sb
	return sb
}

// sidebarKeyOf is the key of the sidebar of section root for the output
// file outName.
func (t *Theme) sidebarKeyOf(root *config.Nav, outName string) sidebarKey {
	key := sidebarKey{root: root}
	if t.s.Links.Export {
		key.dir = path.Dir(outName)
		if outName == "404.html" {
			key.dir = outName // its URLs are absolute, unlike its neighbours'
		}
	}
	return key
}

// sidebarLinks gives the warnings of the sidebar of nodes: it resolves the
// same links, in the same order.
func (t *Theme) sidebarLinks(nodes []*config.Nav) {
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

// appendNode appends what a node of the navigation other than a page
// shows, or decides for its pages, as fields (appendField).
func appendNode(buf []byte, n *config.Nav) []byte {
	flags := byte(0)
	for i, f := range []bool{n.Hidden, n.Searchable, n.Expanded} {
		if f {
			flags |= 1 << i
		}
	}
	buf = append(buf, flags)
	buf = appendField(buf, string(n.Kind))
	for _, v := range []string{n.Label, n.Icon, n.Tag, n.Href} {
		buf = appendField(buf, v)
	}
	if o := n.OpenAPI; o != nil {
		buf = appendField(buf, o.Directory)
		for _, src := range o.Sources {
			buf = appendField(buf, src)
		}
	}
	return append(buf, 0)
}

// chainInputs hashes the navigation nodes from the root down to page p's
// first place: its section, groups (eyebrow, breadcrumbs, the group of
// its search result), and what they decide for it (hidden, searchable,
// the OpenAPI document of its operation).
func (t *Theme) chainInputs(p string) string {
	var buf []byte
	for _, n := range t.chains[p] {
		buf = appendNode(buf, n)
	}
	return sumOf(string(buf))
}

// sidebarInputs hashes what the full sidebar of section root depends on
// besides the configuration and the files other than pages, which the
// cache's key covers, and the folder of the output file (export form),
// which Prewarm adds: the label, icon, tag, method badge and hidden state
// of each page under it, where each link of the section leads, and where
// each group starts and ends with what it shows (appendNode), pages being
// added and removed without a change of key. Equal inputs give an equal sidebar
// (SidebarSum, for the rebuild cache), without rendering it.
func (t *Theme) sidebarInputs(root *config.Nav) string {
	h := sha256.New()
	buf := make([]byte, 0, 512)
	field := func(v string) { buf = appendField(buf, v) }
	var walk func(nodes []*config.Nav)
	walk = func(nodes []*config.Nav) {
		for _, n := range nodes {
			switch {
			case n.Kind == config.NavPage:
				field(n.Page)
				if p := t.s.Pages[n.Page]; p == nil {
					buf = append(buf, 0)
				} else {
					field(NavLabel(p))
					field(p.Front.Icon)
					field(pageTag(p))
					field(p.Front.URL)
					if p.Front.URL != "" {
						field(targetKey(t.pageTarget(p)))
					}
					field(methodBadge(p))
					buf = append(buf, 1)
					if p.Front.Hidden {
						buf = append(buf, 1)
					} else {
						buf = append(buf, 0)
					}
				}
			case n.Href != "":
				field(targetKey(t.s.Links.Resolve("", n.Href)))
			}
			if len(buf) > 256 {
				h.Write(buf)
				buf = buf[:0]
			}
			if n.Kind != config.NavPage {
				// Where each group starts and ends: which pages it holds.
				buf = append(buf, '(')
				buf = appendNode(buf, n)
				walk(n.Children)
				buf = append(buf, ')')
				continue
			}
			walk(n.Children)
		}
	}
	walk(root.Children)
	h.Write(buf)
	var sumBuf [sha256.Size]byte
	return hex.EncodeToString(h.Sum(sumBuf[:0])[:16])
}

// targetKey writes a resolved link as a string, for the hashes of the
// rebuild cache.
func targetKey(tg links.Target) string {
	return string(rune('0'+tg.Kind)) + tg.Path + "\x00" + tg.Suffix + "\x00" + tg.Reason
}

// sumOf hashes fields, each length-prefixed.
func sumOf(fields ...string) string {
	var buf []byte
	for _, f := range fields {
		buf = appendField(buf, f)
	}
	sum := sha256.Sum256(buf)
	return hex.EncodeToString(sum[:16])
}

// appendField appends v to a hash's input, its length first, so that
// fields never run into each other.
func appendField(buf []byte, v string) []byte {
	return append(binary.AppendUvarint(buf, uint64(len(v))), v...)
}

// sortInsertions puts the insertions of each page in the order of their
// offsets, once each.
func sortInsertions(active map[string][]insertion) {
	for pg, ins := range active {
		sort.SliceStable(ins, func(i, j int) bool { return ins[i].at < ins[j].at })
		out := ins[:0]
		for i, in := range ins {
			if i > 0 && in.at == ins[i-1].at {
				continue
			}
			out = append(out, in)
		}
		active[pg] = out
	}
}

// sideLabel is the markup of a sidebar entry's label: the label, then its
// tag (a group's or page's "tag", or "Deprecated") as a small badge.
func sideLabel(label, tag string) string {
	if tag == "" {
		return html.EscapeString(label)
	}
	return html.EscapeString(label) + ` <span class="lc-nav-tag">` + html.EscapeString(tag) + `</span>`
}

// pageTag is the tag the sidebar shows beside page p: its front matter's
// "tag", else "Deprecated" for a deprecated page.
func pageTag(p *page.Page) string {
	if p.Front.Tag == "" && p.Front.Deprecated {
		return "Deprecated"
	}
	return p.Front.Tag
}

// Prewarm finds, in navigation order and with the build's own
// diag.Warner, the warnings of the sidebar of every section (broken links of
// the configuration), so that they are found in the same order whatever
// the scheduling of the workers, which render the sidebars without
// warnings (sidebar). With hashes (a rebuild cache), it also
// records the hash of what each page shows of its section's sidebar, for
// SidebarSum, and of the links of the configuration, for ChromeSum. It
// mirrors the choice of the section in view.
func (t *Theme) Prewarm(hashes bool) {
	warned := map[*config.Nav]bool{}
	sectionSums := map[*config.Nav]string{} // sidebarInputs of each section
	partSums := map[partKey]string{}
	if hashes {
		t.sidebarSums = make([]string, len(t.s.Order))
		t.chromeSum = t.chromeInputs()
	}
	sp := t.split()
	for i, p := range t.s.Order {
		root := t.section(p)
		if !warned[root] {
			warned[root] = true
			t.sidebarLinks(root.Children)
		}
		if !hashes {
			continue
		}
		sum := ""
		if nav := t.sectionNavOf(root); nav != nil {
			// A split sidebar: the page's part of it, and the name of
			// the navigation file (sidebar_split.go).
			if pp := nav.part(sp, p.Path); !nav.whole(pp) {
				k := partKey{nav: nav, lo: pp.lo, hi: pp.hi}
				ps, ok := partSums[k]
				if !ok || pp.hid != nil {
					ps = sumOf("part", nav.id, nav.render(t.s, "index.html", "", pp.lo, pp.hi, pp.hid, nil))
					if pp.hid == nil {
						partSums[k] = ps
					}
				}
				sum = ps
			}
		}
		if sum == "" {
			var ok bool
			if sum, ok = sectionSums[root]; !ok {
				sum = t.sidebarInputs(root)
				sectionSums[root] = sum
			}
		}
		own := ""
		if p.Front.URL != "" {
			// A page that is a link elsewhere says where (Theme.Page).
			own = targetKey(t.pageTarget(p))
		}
		t.sidebarSums[i] = sumOf(sum, t.sidebarKeyOf(root, p.Path+".html").dir, own, t.chainInputs(p.Path))
	}
}

// SidebarSum is the hash of what page i of the navigation order shows of
// its section's sidebar (and, for a page that is a link elsewhere, where
// it leads), and of the groups and divisions that hold it, after Prewarm
// with hashes.
func (t *Theme) SidebarSum(i int) string {
	return t.sidebarSums[i]
}

// ChromeSum is the hash of where the links of the configuration every
// page shows lead (header, anchors, footer, tabs and selectors, the
// banner), after Prewarm with hashes: pages are added and removed without
// a change of the rebuild cache's key.
func (t *Theme) ChromeSum() string {
	return t.chromeSum
}

// chromeInputs hashes the links of the configuration outside the
// sidebars, resolved, the first page of each division (where its tab
// leads), and the banner as the site's first folder shows it.
func (t *Theme) chromeInputs() string {
	cfg := t.s.Config
	var fields []string
	add := func(href string) {
		if href != "" {
			fields = append(fields, targetKey(t.s.Links.Resolve("", href)))
		}
	}
	for _, list := range [][]config.Link{cfg.NavbarLinks, cfg.Anchors, cfg.FooterLinks} {
		for _, l := range list {
			add(l.Href)
		}
	}
	if cfg.NavbarPrimary != nil {
		add(cfg.NavbarPrimary.Href)
	}
	add(t.logoHref)
	var walk func(n *config.Nav)
	walk = func(n *config.Nav) {
		if n.IsDivision() {
			add(n.Href)
			// Its tab or selector leads to its first page: the rebuild
			// cache's key holds the navigation without its pages
			// (render/rebuild_key.go).
			fields = append(fields, "first:"+n.FirstPage())
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(cfg.Nav)
	if t.s.Banner != nil {
		fields = append(fields, t.s.Banner("index.html"))
	}
	return sumOf(fields...)
}

// section returns the navigation section whose sidebar page p shows: the
// innermost division of its first appearance, or the root.
func (t *Theme) section(p *page.Page) *config.Nav { return t.sectionOfChain(t.chains[p.Path]) }

// sectionOfChain is the section that the navigation chain (root first)
// ends in: its innermost division, or the whole navigation.
func (t *Theme) sectionOfChain(chain []*config.Nav) *config.Nav {
	root := t.s.Config.Nav
	for i, n := range chain {
		if i > 0 && n.IsDivision() {
			root = n
		}
	}
	return root
}
