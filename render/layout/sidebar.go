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
	"lectern.dev/lectern/render/diag"
	"lectern.dev/lectern/render/icons"
	"lectern.dev/lectern/render/page"
	"lectern.dev/lectern/render/safe"
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
	// windows holds the flattened sections of windowed sidebars, nil
	// for the others (sidebar_window.go).
	windows map[*config.Nav]*sidebarWindow
}

// sidebar returns the sidebar of the navigation section root (the root
// of the navigation or a division) for output files in the folder of
// outName, rendering it on first use. Safe for concurrent use.
//
// Its warnings (broken links) are muted: they are those of sidebarLinks,
// which Prewarm calls for every section in navigation order,
// whereas which page renders a sidebar first depends on the scheduling of
// the workers.
func (t *Theme) sidebar(root *config.Nav, outName string) *sidebarHTML {
	key := t.sidebarKeyOf(root, outName)
	t.sidebars.mu.Lock()
	defer t.sidebars.mu.Unlock()
	if sb := t.sidebars.m[key]; sb != nil {
		return sb
	}
	if t.sidebars.m == nil {
		t.sidebars.m = map[sidebarKey]*sidebarHTML{}
	}
	muted := t.ForWarner(&diag.Warner{Mute: 1})
	sb := renderSidebar(muted.sideItems(root.Children, outName, ""), t.s.Config.Icons())
	t.sidebars.m[key] = sb
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

// sidebarLinks gives the warnings of sideItems for nodes: it resolves the
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

// sidebarInputs hashes what the sidebar of section root depends on
// besides the configuration and the set of files, which the cache's key
// covers, and the folder of the output file (export form), which
// Prewarm adds: the label, icon and hidden state of each
// page under it and, for a windowed sidebar (sidebar_window.go), the
// window's threshold and size. Equal inputs give an equal sidebar
// (SidebarSum, for the rebuild cache), without rendering it.
func (t *Theme) sidebarInputs(root *config.Nav) string {
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
				if p := t.s.Pages[n.Page]; p == nil {
					buf = append(buf, 0)
				} else {
					field(NavLabel(p))
					field(p.Front.Icon)
					field(pageTag(p))
					field(p.Front.URL)
					field(methodBadge(p))
					buf = append(buf, 1)
					if p.Front.Hidden {
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
		buf = binary.AppendUvarint(buf, uint64(t.window().Min))
		buf = binary.AppendUvarint(buf, uint64(w.size))
	}
	h.Write(buf)
	var sumBuf [sha256.Size]byte
	return hex.EncodeToString(h.Sum(sumBuf[:0])[:16])
}

// renderSidebar renders the sidebar: top-level groups as titled sections,
// nested groups as collapsible <details>, their icons from library lib. It
// is written in Go rather than the template because it is most of each
// page.
func renderSidebar(items []*sideItem, lib icons.Library) *sidebarHTML {
	w := &sidebarWriter{active: map[string][]insertion{}, lib: lib}
	for _, it := range items {
		if it.IsGroup {
			w.b.WriteString(`<div class="lc-nav-section"><p class="lc-nav-heading">` + lib.HTML(it.Icon) + sideLabel(it.Label, it.Tag) + "</p>")
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
	lib    icons.Library
}

// list writes a list of entries; opens are the offsets of the open
// attribute of the enclosing groups.
func (w *sidebarWriter) list(items []*sideItem, opens []int) {
	b := &w.b
	b.WriteString(`<ul class="lc-nav-list">`)
	for _, it := range items {
		if it.IsGroup {
			b.WriteString(`<li class="lc-nav-group"><details`)
			inner := opens
			if it.Expanded {
				b.WriteString(openAttr) // open for every page: nothing to insert
			} else {
				inner = append(opens[:len(opens):len(opens)], b.Len())
			}
			b.WriteString("><summary>" + w.lib.HTML(it.Icon) + sideLabel(it.Label, it.Tag) + "</summary>")
			w.list(it.Items, inner)
			b.WriteString("</details></li>")
			continue
		}
		b.WriteString(`<li><a href="` + html.EscapeString(safe.Href(it.URL)) + `"`)
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
		b.WriteString(">" + it.Badge + sideLabel(it.Label, it.Tag) + "</a></li>")
	}
	b.WriteString("</ul>")
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

// sideItems builds the sidebar entries for nav nodes. Hidden pages are
// left out, except the page show ("" for none), which is the current one.
func (t *Theme) sideItems(nodes []*config.Nav, outName, show string) []*sideItem {
	var out []*sideItem
	for _, n := range nodes {
		if n.Hidden {
			continue
		}
		switch {
		case n.Kind == config.NavPage:
			p := t.s.Pages[n.Page]
			if p == nil || p.Front.Hidden && n.Page != show {
				continue
			}
			if p.Front.URL != "" {
				// A page that is a link elsewhere (front matter "url").
				u, ext := t.pageURL(outName, p)
				out = append(out, &sideItem{Label: NavLabel(p), URL: u, Icon: p.Front.Icon, Tag: pageTag(p), External: ext})
				continue
			}
			out = append(out, &sideItem{Label: NavLabel(p), URL: t.s.Links.PageURL(outName, n.Page), Icon: p.Front.Icon, Tag: pageTag(p), Page: n.Page,
				Badge: methodBadge(p)})
		case n.Kind == config.NavLink:
			u, ext := t.configLink(outName, n.Href)
			out = append(out, &sideItem{Label: n.Label, URL: u, Icon: n.Icon, External: ext})
		case len(n.Children) > 0:
			items := t.sideItems(n.Children, outName, show)
			if len(items) == 0 {
				continue
			}
			out = append(out, &sideItem{Label: n.Label, Icon: n.Icon, Tag: n.Tag, IsGroup: true, Expanded: n.Expanded, Items: items})
		case n.Href != "":
			u, ext := t.configLink(outName, n.Href)
			out = append(out, &sideItem{Label: n.Label, URL: u, Icon: n.Icon, External: ext})
		}
	}
	return out
}

// Prewarm finds, in navigation order and with the build's own
// diag.Warner, the warnings of the sidebar of every section (broken links of
// the configuration), so that they are found in the same order whatever
// the scheduling of the workers, which render the sidebars with their
// warnings muted (sidebar). With hashes (a rebuild cache), it also
// records the hash of what each page's sidebar shows, for SidebarSum. It
// mirrors the choice of the section in view.
func (t *Theme) Prewarm(hashes bool) {
	warned := map[*config.Nav]bool{}
	sectionSums := map[*config.Nav]string{} // sidebarInputs of each section
	if hashes {
		t.sidebarSums = make([]string, len(t.s.Order))
	}
	for i, p := range t.s.Order {
		root := t.section(p)
		if !warned[root] {
			warned[root] = true
			t.sidebarLinks(root.Children)
		}
		if hashes {
			sum, ok := sectionSums[root]
			if !ok {
				sum = t.sidebarInputs(root)
				sectionSums[root] = sum
			}
			// The section's hash has a fixed length: the folder
			// (export form) follows it unambiguously.
			t.sidebarSums[i] = sum + t.sidebarKeyOf(root, p.Path+".html").dir
		}
	}
}

// SidebarSum is the hash of the inputs of the sidebar that page i of the
// navigation order shows, after Prewarm with hashes.
func (t *Theme) SidebarSum(i int) string {
	return t.sidebarSums[i]
}

// section returns the navigation section whose sidebar page p shows: the
// innermost division of its first appearance, or the root.
func (t *Theme) section(p *page.Page) *config.Nav {
	root := t.s.Config.Nav
	for i, n := range t.chains[p.Path] {
		if i > 0 && n.IsDivision() {
			root = n
		}
	}
	return root
}
