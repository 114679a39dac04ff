package layout

import (
	"html"
	"strings"

	"lectern.dev/lectern/render/config"
	"lectern.dev/lectern/render/icons"
	"lectern.dev/lectern/render/links"
	"lectern.dev/lectern/render/safe"
)

// Split sidebars.
//
// The sidebar of a section lists every entry of the section, on every
// page of it: for a section of N entries, N pages of N links each, output
// that grows with N². A section with more than Split.Min entries
// therefore has its sidebar split: each page carries its part of it (the
// group that holds it, under the headings of the groups around that
// group, with the page marked and its groups open), which works without
// JavaScript and is what search engines read, and loads the section's
// navigation file (navfile.go), written once per section and cached by
// the browser, from which site.js draws the whole sidebar in its place.
//
// A page's part is the outermost group holding it that has at most
// Split.Group entries and groups inside it; when even the innermost is
// larger (or the page is at the top level of its section, among more than
// Split.Group entries there), Split.Window entries of it around the page.
// Its cost is bounded, in the live and export forms and in 404.html
// (which shows the part of the first entry). A page whose part is the
// whole section shows the full sidebar, byte for byte as in a small
// section, without a navigation file.
//
// Site.Split sets the thresholds; its zero value takes defaultSplit's.
type Split struct {
	// Min is the number of entries (pages, hidden ones included, and
	// links) above which a section's sidebar is split.
	Min int
	// Group is the number of entries of the largest group a page of a
	// split section shows whole.
	Group int
	// Window is the number of entries a page shows of a larger group.
	Window int
}

// defaultSplit is the split of every build. Min: past about 250 entries a
// full sidebar outweighs the rest of a typical page (docs/architecture.md,
// "Sidebars of large sections are split"). Group: a group of 1,000
// entries costs a page about 50 KB.
var defaultSplit = Split{Min: 250, Group: 1000, Window: 100}

// split returns the site's split, with defaultSplit's for zero fields.
func (t *Theme) split() Split {
	sp := t.s.Split
	if sp.Min == 0 {
		sp.Min = defaultSplit.Min
	}
	if sp.Group == 0 {
		sp.Group = defaultSplit.Group
	}
	if sp.Window <= 0 {
		sp.Window = defaultSplit.Window
	}
	return sp
}

// sectionNav is a section flattened, from which its sidebar is rendered,
// whole (sidebar.go) or split. It depends on the section only, not on the
// folder of the output file.
type sectionNav struct {
	id      string        // its navigation file: _lectern/nav/<id>.js
	split   bool          // more than Split.Min entries: its sidebar is split
	lib     icons.Library // the site's icon library, for the groups' icons
	groups  []sideGroup
	entries []sideEntry // the visible entries, in navigation order
	// at is the index of the first entry of each visible page.
	at map[string]int
	// hidden holds the hidden pages (front matter), each shown only on
	// its own page, at its first place in the navigation.
	hidden map[string]hiddenEntry
	// runLo and runHi are, for each top-level entry (in no group), the
	// run of top-level entries that holds it (runs).
	runLo, runHi []int
}

// sideGroup is a group of a flattened section: a heading at the top level
// (depth 0), a collapsible <details> below.
type sideGroup struct {
	label, icon, tag string
	parent           int // index in sectionNav.groups; -1 for none
	depth            int
	expanded         bool // open on every page
	lo, hi           int  // its entries: [lo, hi) of sectionNav.entries
	inner            int  // the groups inside it, at every depth
}

// size is what a part showing group g whole holds: its entries and the
// groups inside it, each of which it renders (a group of few pages, each
// nested 64 groups deep, is no small part).
func (g *sideGroup) size() int { return g.hi - g.lo + g.inner }

// sideEntry is a link of a flattened section: a page, or a link of the
// configuration (resolved once; its URL depends on the output file).
type sideEntry struct {
	label, tag string
	badge      string       // the HTTP method of an API page (methodBadge)
	page       string       // for pages
	link       links.Target // for links
	group      int          // innermost group; -1 for none
}

// hiddenEntry is a hidden page and the index of the visible entry it
// goes before.
type hiddenEntry struct {
	entry sideEntry
	at    int
}

// sectionNavOf returns the flattened section root when its sidebar is
// split, nil when it is not.
func (t *Theme) sectionNavOf(root *config.Nav) *sectionNav {
	if w := t.flatNav(root); w.split {
		return w
	}
	return nil
}

// flatNav returns the section root flattened, from which its sidebar is
// rendered, whole or split. Safe for concurrent use; the section is
// flattened on first use.
func (t *Theme) flatNav(root *config.Nav) *sectionNav {
	c := t.sidebars
	c.mu.Lock()
	defer c.mu.Unlock()
	if w, ok := c.navs[root]; ok {
		return w
	}
	if c.navs == nil {
		c.navs = map[*config.Nav]*sectionNav{}
	}
	w := &sectionNav{id: t.navIDs[root], lib: t.s.Config.Icons(), at: map[string]int{}, hidden: map[string]hiddenEntry{}}
	t.flattenSidebar(w, root.Children, -1, 0)
	w.runs()
	// Hidden pages count: each shows the sidebar with itself added, which
	// the full sidebar renders for that page alone.
	w.split = len(w.entries)+len(w.hidden) > t.split().Min
	c.navs[root] = w
	return w
}

// full renders the whole sidebar for the output file outName, with page
// current ("" for none) marked and the hidden page hid (nil for none) in
// its place (render).
func (w *sectionNav) full(s *Site, outName, current string, hid *hiddenEntry, active map[string][]insertion) string {
	return w.render(s, outName, current, 0, len(w.entries), hid, active)
}

// flattenSidebar adds the entries of nodes, in group parent at depth, to
// w. Hidden navigation nodes are left out, and so are groups without
// visible entries (by never being shown); sidebarLinks warns of its
// broken links.
func (t *Theme) flattenSidebar(w *sectionNav, nodes []*config.Nav, parent, depth int) {
	for _, n := range nodes {
		if n.Hidden {
			continue
		}
		switch {
		case n.Kind == config.NavPage:
			p := t.s.Pages[n.Page]
			if p == nil {
				continue
			}
			e := sideEntry{label: NavLabel(p), tag: pageTag(p), page: n.Page, group: parent}
			if p.Front.URL != "" {
				e.page, e.link = "", t.pageTarget(p)
				if !p.Front.Hidden {
					w.entries = append(w.entries, e)
				}
				continue
			}
			e.badge = methodBadge(p)
			if p.Front.Hidden {
				if _, ok := w.hidden[n.Page]; !ok {
					w.hidden[n.Page] = hiddenEntry{entry: e, at: len(w.entries)}
				}
				continue
			}
			if _, ok := w.at[n.Page]; !ok {
				w.at[n.Page] = len(w.entries)
			}
			w.entries = append(w.entries, e)
		case n.Kind == config.NavLink || n.Href != "" && len(n.Children) == 0:
			w.entries = append(w.entries, sideEntry{label: n.Label, link: t.configTarget(n.Href), group: parent})
		case len(n.Children) > 0:
			w.groups = append(w.groups, sideGroup{label: n.Label, icon: n.Icon, tag: n.Tag, parent: parent, depth: depth, expanded: n.Expanded,
				lo: len(w.entries)})
			g := len(w.groups) - 1
			t.flattenSidebar(w, n.Children, g, depth+1)
			w.groups[g].hi = len(w.entries)
			w.groups[g].inner = len(w.groups) - g - 1 // those added since
		}
	}
}

// runs records the runs of top-level entries (runLo, runHi), once, for
// part's windows of them: a section of thousands of top-level pages would
// otherwise be walked for each of its pages.
func (w *sectionNav) runs() {
	n := len(w.entries)
	w.runLo, w.runHi = make([]int, n), make([]int, n)
	for i := range n {
		w.runLo[i] = i
		if i > 0 && w.entries[i-1].group < 0 {
			w.runLo[i] = w.runLo[i-1]
		}
	}
	for i := n - 1; i >= 0; i-- {
		w.runHi[i] = i + 1
		if i+1 < n && w.entries[i+1].group < 0 {
			w.runHi[i] = w.runHi[i+1]
		}
	}
}

// run returns the run of top-level entries [lo, hi) around place c (an
// entry's index, or where a hidden page goes: before entry c).
func (w *sectionNav) run(c int) (lo, hi int) {
	top := func(i int) bool { return i >= 0 && i < len(w.entries) && w.entries[i].group < 0 }
	lo, hi = c, c
	if top(c) {
		lo, hi = w.runLo[c], w.runHi[c]
	} else if top(c - 1) {
		lo = w.runLo[c-1]
	}
	return lo, hi
}

// pagePart is what a page shows of a split section: the entries [lo, hi),
// and its own entry when it is a hidden page (nil otherwise). window says
// that the entries are a window of a larger group, which each page has its
// own of; the other parts are shared by the pages of a group.
type pagePart struct {
	lo, hi int
	hid    *hiddenEntry
	window bool
}

// part returns what the page current ("" for 404.html) shows of the
// section: see "Split sidebars" above.
func (w *sectionNav) part(sp Split, current string) pagePart {
	lo, hi, hid, window := w.partRange(sp, current)
	return pagePart{lo: lo, hi: hi, hid: hid, window: window}
}

// partRange is part's body.
func (w *sectionNav) partRange(sp Split, current string) (lo, hi int, hid *hiddenEntry, window bool) {
	n := len(w.entries)
	c, g := 0, -1
	if i, ok := w.at[current]; ok {
		c, g = i, w.entries[i].group
	} else if h, ok := w.hidden[current]; ok {
		hid, c, g = &h, h.at, h.entry.group
	} else if n > 0 {
		g = w.entries[0].group
	}
	extra := 0
	if hid != nil {
		extra = 1
	}
	chain := w.chainOf(g)
	for _, k := range chain {
		if gr := &w.groups[k]; gr.size()+extra <= sp.Group {
			return gr.lo, gr.hi, hid, false
		}
	}
	// The innermost group, or the run of top-level entries around the
	// page, is too large: a window of it.
	var clo, chi int
	if g >= 0 {
		clo, chi = w.groups[g].lo, w.groups[g].hi
	} else {
		clo, chi = w.run(c)
		if chi-clo+extra <= sp.Group {
			return clo, chi, hid, false
		}
	}
	size := max(sp.Window-extra, 1)
	lo = max(c-size/2, clo)
	hi = min(lo+size, chi)
	lo = max(hi-size, clo)
	return lo, hi, hid, true
}

// whole reports whether part p is the whole section.
func (w *sectionNav) whole(p pagePart) bool { return p.lo == 0 && p.hi == len(w.entries) }

// partKey identifies the rendered part of a split sidebar that the pages
// of a group share: the section, the entries, and the folder of the
// output files (sidebarKey).
type partKey struct {
	nav    *sectionNav
	lo, hi int
	dir    string
}

// partHTML returns part p of section nav as the page current, written as
// outName, shows it. A part that pages share (not a window, no hidden
// page) is rendered once per folder of the output files, with the
// insertions that mark each page, as full sidebars are (sidebarHTML).
func (t *Theme) partHTML(root *config.Nav, nav *sectionNav, p pagePart, outName, current string) string {
	if p.window || p.hid != nil {
		return nav.render(t.s, outName, current, p.lo, p.hi, p.hid, nil)
	}
	key := partKey{nav: nav, lo: p.lo, hi: p.hi, dir: t.sidebarKeyOf(root, outName).dir}
	sb := rendered(t.sidebars, &t.sidebars.parts, key, func(active map[string][]insertion) string {
		return nav.render(t.s, outName, "", p.lo, p.hi, nil, active)
	})
	return string(sb.forPage(current))
}

// render writes the entries [lo, hi) of the section and the hidden entry
// hid (nil for none) for the output file outName, showing page current
// ("" for none) as the current one, under the headings and groups that
// hold them: top-level groups as titled sections, nested groups as
// collapsible <details>, with their icons (in Go rather than the
// template: it is most of each page). With active not nil, it records
// there, for each page shown, where the attributes that mark it as the
// current one go (sidebarHTML.forPage).
func (w *sectionNav) render(s *Site, outName, current string, lo, hi int, hid *hiddenEntry, active map[string][]insertion) string {
	shown := make([]*sideEntry, 0, hi-lo+1)
	for i := lo; i < hi; i++ {
		if hid != nil && i == hid.at {
			shown = append(shown, &hid.entry)
		}
		shown = append(shown, &w.entries[i])
	}
	if hid != nil && (hid.at >= hi || hid.at < lo) {
		shown = append(shown, &hid.entry)
	}

	// The groups holding the current page are open.
	open := map[int]bool{}
	for _, e := range shown {
		if current != "" && e.page == current {
			for g := e.group; g >= 0; g = w.groups[g].parent {
				open[g] = true
			}
		}
	}

	var b strings.Builder
	b.Grow(len(shown) * 96)
	var stack []int // the groups written and not yet closed, outermost first
	var opens []int // for each of stack, where its open attribute goes, or -1
	for _, e := range shown {
		chain := w.chainOf(e.group)
		k := commonDepth(stack, chain)
		for len(stack) > k {
			w.closeGroup(&b, stack[len(stack)-1])
			stack, opens = stack[:len(stack)-1], opens[:len(opens)-1]
		}
		for _, g := range chain[k:] {
			stack, opens = append(stack, g), append(opens, w.openGroup(&b, g, open[g]))
		}
		if len(stack) == 0 {
			b.WriteString(`<ul class="lc-nav-list">`)
		}
		at := writeSideLink(&b, s, outName, e, current)
		if active != nil && e.page != "" {
			ins := active[e.page]
			for _, o := range opens {
				if o >= 0 {
					ins = append(ins, insertion{at: o, text: openAttr})
				}
			}
			active[e.page] = append(ins, insertion{at: at, text: activeAttrs})
		}
		if len(stack) == 0 {
			b.WriteString("</ul>\n")
		}
	}
	for len(stack) > 0 {
		w.closeGroup(&b, stack[len(stack)-1])
		stack = stack[:len(stack)-1]
	}
	return b.String()
}

// chainOf returns group g and the groups holding it, outermost first.
func (w *sectionNav) chainOf(g int) []int {
	var c []int
	for ; g >= 0; g = w.groups[g].parent {
		c = append(c, g)
	}
	for i, j := 0, len(c)-1; i < j; i, j = i+1, j-1 {
		c[i], c[j] = c[j], c[i]
	}
	return c
}

// commonDepth returns the length of the common start of a and b.
func commonDepth(a, b []int) int {
	k := 0
	for k < len(a) && k < len(b) && a[k] == b[k] {
		k++
	}
	return k
}

// openGroup writes the start of group g, and returns where its open
// attribute goes when it is closed, -1 otherwise.
func (w *sectionNav) openGroup(b *strings.Builder, g int, open bool) int {
	gr := &w.groups[g]
	if gr.depth == 0 {
		b.WriteString(`<div class="lc-nav-section"><p class="lc-nav-heading">` + w.lib.HTML(gr.icon) + sideLabel(gr.label, gr.tag) + `</p><ul class="lc-nav-list">`)
		return -1
	}
	b.WriteString(`<li class="lc-nav-group"><details`)
	at := -1
	if open || gr.expanded {
		b.WriteString(openAttr)
	} else {
		at = b.Len()
	}
	b.WriteString("><summary>" + w.lib.HTML(gr.icon) + sideLabel(gr.label, gr.tag) + `</summary><ul class="lc-nav-list">`)
	return at
}

// closeGroup writes the end of group g.
func (w *sectionNav) closeGroup(b *strings.Builder, g int) {
	if w.groups[g].depth == 0 {
		b.WriteString("</ul></div>\n")
		return
	}
	b.WriteString("</ul></details></li>")
}

// writeSideLink writes the list item of entry e, and returns where the
// attributes of the current page go.
func writeSideLink(b *strings.Builder, s *Site, outName string, e *sideEntry, current string) int {
	var u string
	external := false
	if e.page != "" {
		u = s.Links.PageURL(outName, e.page)
	} else {
		u, external = s.Links.URL(outName, e.link), e.link.Kind == links.External
	}
	b.WriteString(`<li><a href="`)
	b.WriteString(html.EscapeString(safe.Href(u)))
	b.WriteByte('"')
	at := b.Len()
	if e.page != "" && e.page == current {
		b.WriteString(activeAttrs)
	}
	if external {
		b.WriteString(` rel="noopener"`)
	}
	b.WriteByte('>')
	b.WriteString(e.badge + sideLabel(e.label, e.tag))
	b.WriteString("</a></li>")
	return at
}
