package layout

import (
	"html"
	"sort"
	"strconv"
	"strings"

	"lectern.dev/lectern/render/config"
	"lectern.dev/lectern/render/icons"
	"lectern.dev/lectern/render/links"
	"lectern.dev/lectern/render/safe"
)

// Windowed sidebars.
//
// The sidebar of a section lists every entry of the section, on every
// page of it: for a section of N entries, N pages of N links each. Past a
// few thousand entries that output grows with N² (a section of 100,000
// pages would write megabytes of sidebar into each page). A section with
// more than Window.Min entries therefore gets a windowed sidebar:
// each page shows Window.Size entries around itself, in navigation
// order, under the headings and groups that hold them (open where they
// hold the page), and a "… N more pages" link to the first page left out
// where entries before or after the window were left out (in the group
// that holds them all, if the window shows it). Every page stays
// reachable through those links, the pager (previous and next) and
// search.
//
// A windowed sidebar costs each page O(Window.Size): the section is
// flattened once into entries (sidebarWindow), and a page's sidebar is
// written from its slice of them, with its URLs for the page's folder.
// Sections at or under the threshold keep the full, shared sidebar
// (sidebarHTML), byte for byte.
//
// Site.Window sets the threshold and the size; its zero value takes
// defaultWindow's.
type Window struct {
	// Min is the number of entries (pages, hidden ones included, and
	// links) above which a section's sidebar is windowed.
	Min int
	// Size is the number of entries a windowed sidebar shows.
	Size int
}

// defaultWindow is the window of every build: the sidebars of real
// documentation sites have a few hundred entries (the largest of the test
// corpus, Pipecat's, 392).
var defaultWindow = Window{Min: 1000, Size: 100}

// window returns the site's window, with defaultWindow's for zero fields.
func (t *Theme) window() Window {
	w := t.s.Window
	if w.Min == 0 {
		w.Min = defaultWindow.Min
	}
	if w.Size == 0 {
		w.Size = defaultWindow.Size
	}
	return w
}

// sidebarWindow is a section flattened for windowed sidebars. It depends
// on the section only, not on the folder of the output file.
type sidebarWindow struct {
	size    int           // entries shown: Window.Size when it was made
	lib     icons.Library // the site's icon library, for the groups' icons
	groups  []sideGroup
	entries []sideEntry // the visible entries, in navigation order
	pages   []int       // indices of the page entries, ascending
	// at is the index of the first entry of each visible page.
	at map[string]int
	// hidden holds the hidden pages (front matter), each shown only on
	// its own page, at its first place in the navigation.
	hidden map[string]hiddenEntry
}

// sideGroup is a group of a windowed sidebar: a heading at the top level
// (depth 0), a collapsible <details> below.
type sideGroup struct {
	label, icon, tag string
	parent           int // index in sidebarWindow.groups; -1 for none
	depth            int
	expanded         bool // open on every page
}

// sideEntry is a link of a windowed sidebar: a page, or a link of the
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

// sidebarWindowOf returns the flattened section root when its sidebar is
// windowed, nil when it is not. Safe for concurrent use; the section is
// flattened on first use.
func (t *Theme) sidebarWindowOf(root *config.Nav) *sidebarWindow {
	c := t.sidebars
	c.mu.Lock()
	defer c.mu.Unlock()
	if w, ok := c.windows[root]; ok {
		return w
	}
	if c.windows == nil {
		c.windows = map[*config.Nav]*sidebarWindow{}
	}
	w := &sidebarWindow{size: max(t.window().Size, 1), lib: t.s.Config.Icons(), at: map[string]int{}, hidden: map[string]hiddenEntry{}}
	t.flattenSidebar(w, root.Children, -1, 0)
	// Hidden pages count: each shows the sidebar with itself added, which
	// the full sidebar renders for that page alone.
	if len(w.entries)+len(w.hidden) <= t.window().Min {
		w = nil
	}
	c.windows[root] = w
	return w
}

// flattenSidebar adds the entries of nodes, in group parent at depth, to
// w. It mirrors sideItems: hidden navigation nodes are left out, and so
// are groups without visible entries (by never being shown).
func (t *Theme) flattenSidebar(w *sidebarWindow, nodes []*config.Nav, parent, depth int) {
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
			w.pages = append(w.pages, len(w.entries))
			w.entries = append(w.entries, e)
		case n.Kind == config.NavLink:
			w.entries = append(w.entries, sideEntry{label: n.Label, link: t.s.Links.Resolve("", n.Href), group: parent})
		case len(n.Children) > 0:
			w.groups = append(w.groups, sideGroup{label: n.Label, icon: n.Icon, tag: n.Tag, parent: parent, depth: depth, expanded: n.Expanded})
			t.flattenSidebar(w, n.Children, len(w.groups)-1, depth+1)
		case n.Href != "":
			w.entries = append(w.entries, sideEntry{label: n.Label, link: t.s.Links.Resolve("", n.Href), group: parent})
		}
	}
}

// render writes the sidebar of the output file outName, showing page
// current ("" for none) as the current one.
func (w *sidebarWindow) render(s *Site, outName, current string) string {
	n := len(w.entries)
	size := w.size
	center, hid := -1, (*hiddenEntry)(nil)
	if i, ok := w.at[current]; ok {
		center = i
	} else if h, ok := w.hidden[current]; ok {
		hid, center = &h, h.at
		size--
	}
	lo := 0
	if center >= 0 {
		lo = max(center-size/2, 0)
	}
	hi := min(lo+size, n)
	lo = max(hi-size, 0)
	shown := make([]*sideEntry, 0, hi-lo+1)
	for i := lo; i < hi; i++ {
		if hid != nil && i == hid.at {
			shown = append(shown, &hid.entry)
		}
		shown = append(shown, &w.entries[i])
	}
	if hid != nil && hid.at >= hi {
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
	closeTo := func(depth int) {
		for len(stack) > depth {
			w.closeGroup(&b, stack[len(stack)-1])
			stack = stack[:len(stack)-1]
		}
	}
	if lo > 0 && len(shown) > 0 {
		// The entries left out before the window, as the first item of
		// the innermost group that holds them and the first shown.
		first := w.chain(shown[0])
		depth := commonDepth(w.chain(&w.entries[0]), w.chain(&w.entries[lo-1]), first)
		for _, g := range first[:depth] {
			w.openGroup(&b, g, open[g])
			stack = append(stack, g)
		}
		w.more(&b, s, outName, 0, lo, depth == 0)
	}
	for _, e := range shown {
		chain := w.chain(e)
		k := commonDepth(stack, chain, chain)
		closeTo(k)
		for _, g := range chain[k:] {
			w.openGroup(&b, g, open[g])
			stack = append(stack, g)
		}
		if len(stack) == 0 {
			b.WriteString(`<ul class="lc-nav-list">`)
		}
		writeSideLink(&b, s, outName, e, current)
		if len(stack) == 0 {
			b.WriteString("</ul>\n")
		}
	}
	if hi < n {
		// The entries left out after the window, as the last item of
		// the innermost group that holds them and the last shown.
		depth := commonDepth(w.chain(&w.entries[hi]), w.chain(&w.entries[n-1]), stack)
		closeTo(depth)
		w.more(&b, s, outName, hi, n, depth == 0)
	}
	closeTo(0)
	return b.String()
}

// chain returns the groups holding entry e, outermost first.
func (w *sidebarWindow) chain(e *sideEntry) []int {
	var c []int
	for g := e.group; g >= 0; g = w.groups[g].parent {
		c = append(c, g)
	}
	for i, j := 0, len(c)-1; i < j; i, j = i+1, j-1 {
		c[i], c[j] = c[j], c[i]
	}
	return c
}

// commonDepth returns the length of the common start of a, b and c.
func commonDepth(a, b, c []int) int {
	k := 0
	for k < len(a) && k < len(b) && k < len(c) && a[k] == b[k] && a[k] == c[k] {
		k++
	}
	return k
}

// openGroup writes the start of group g as renderSidebar does.
func (w *sidebarWindow) openGroup(b *strings.Builder, g int, open bool) {
	gr := &w.groups[g]
	if gr.depth == 0 {
		b.WriteString(`<div class="lc-nav-section"><p class="lc-nav-heading">` + w.lib.HTML(gr.icon) + sideLabel(gr.label, gr.tag) + `</p><ul class="lc-nav-list">`)
		return
	}
	b.WriteString(`<li class="lc-nav-group"><details`)
	if open || gr.expanded {
		b.WriteString(openAttr)
	}
	b.WriteString("><summary>" + w.lib.HTML(gr.icon) + sideLabel(gr.label, gr.tag) + `</summary><ul class="lc-nav-list">`)
}

// closeGroup writes the end of group g.
func (w *sidebarWindow) closeGroup(b *strings.Builder, g int) {
	if w.groups[g].depth == 0 {
		b.WriteString("</ul></div>\n")
		return
	}
	b.WriteString("</ul></details></li>")
}

// writeSideLink writes the list item of entry e as sidebarWriter.list does.
func writeSideLink(b *strings.Builder, s *Site, outName string, e *sideEntry, current string) {
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
	if e.page != "" && e.page == current {
		b.WriteString(activeAttrs)
	}
	if external {
		b.WriteString(` rel="noopener"`)
	}
	b.WriteByte('>')
	b.WriteString(e.badge + sideLabel(e.label, e.tag))
	b.WriteString("</a></li>")
}

// more writes the item that stands for the entries [from, to) left out
// of the window: a link "… N more pages" (or "entries", when some are
// links) to the first page among them (or, when there is none, to the
// first entry); in a list of its own when alone (at the top level).
func (w *sidebarWindow) more(b *strings.Builder, s *Site, outName string, from, to int, alone bool) {
	first := sort.SearchInts(w.pages, from)
	pages := sort.SearchInts(w.pages, to) - first
	var u string
	if pages > 0 {
		u = s.Links.PageURL(outName, w.entries[w.pages[first]].page)
	} else {
		u = s.Links.URL(outName, w.entries[from].link)
	}
	what := " more page"
	if pages != to-from {
		what = " more entr"
		if to-from == 1 {
			what += "y"
		} else {
			what += "ies"
		}
	} else if to-from > 1 {
		what += "s"
	}
	if alone {
		b.WriteString(`<ul class="lc-nav-list">`)
	}
	b.WriteString(`<li><a class="lc-nav-more" href="` + html.EscapeString(safe.Href(u)) + `">… ` + groupDigits(to-from) + what + "</a></li>")
	if alone {
		b.WriteString("</ul>\n")
	}
}

// groupDigits writes n with a comma between groups of three digits.
func groupDigits(n int) string {
	d := strconv.Itoa(n)
	var b strings.Builder
	for i, c := range d {
		if i > 0 && (len(d)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
