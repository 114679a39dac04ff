package config

import (
	"fmt"
	"path"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// NavKind says what a navigation node is.
type NavKind string

// The navigation node kinds. Divisions (tab, anchor, dropdown, version,
// language, product, menu item) split the site into sections; groups are
// labelled lists in the sidebar; pages and links are its entries.
const (
	NavRoot     NavKind = "root"
	NavTab      NavKind = "tab"
	NavAnchor   NavKind = "anchor"
	NavDropdown NavKind = "dropdown"
	NavVersion  NavKind = "version"
	NavLanguage NavKind = "language"
	NavProduct  NavKind = "product"
	NavMenu     NavKind = "menu"
	NavGroup    NavKind = "group"
	NavPage     NavKind = "page"
	NavLink     NavKind = "link"
)

// Nav is a node of the navigation tree.
type Nav struct {
	Kind NavKind
	// Label is the name of a division or group; empty for pages.
	Label string
	// Page is the page path of a NavPage, without extension ("guides/x").
	Page string
	// Href is the target of a NavLink, or of a division that is a link.
	Href   string
	Icon   string
	Hidden bool
	// Searchable (docs.json "searchable": true on a hidden group or
	// division) keeps the pages under a hidden node in search and the
	// sitemap.
	Searchable bool
	// Expanded (a group's "expanded": true) opens a nested group in the
	// sidebar by default.
	Expanded bool
	// Tag is a short label shown beside a group's name ("NEW").
	Tag string
	// Children are in source order.
	Children []*Nav
	// OpenAPI is the node's "openapi" key, or nil (the build expands it: render/openapi_nav.go).
	OpenAPI *NavOpenAPI
}

// IsDivision reports whether n is a tab, anchor, dropdown, version,
// language, product or menu item: a section with its own sidebar.
func (n *Nav) IsDivision() bool {
	switch n.Kind {
	case NavTab, NavAnchor, NavDropdown, NavVersion, NavLanguage, NavProduct, NavMenu:
		return true
	}
	return false
}

// NavEntry is a page of the navigation with where it first appears.
type NavEntry struct {
	Page string
	// Groups are the labels of the enclosing groups, outermost first.
	Groups []string
	// Division is the label of the innermost enclosing division, or "".
	Division string
	// Hidden is set when an enclosing group or division is hidden and
	// none nearer the page is searchable: the page is left out of search
	// and the sitemap (Mintlify's rule).
	Hidden bool
}

// HasOpenAPI reports whether a node of n has an "openapi" key.
func (n *Nav) HasOpenAPI() bool {
	if n.OpenAPI != nil {
		return true
	}
	for _, c := range n.Children {
		if c.HasOpenAPI() {
			return true
		}
	}
	return false
}

// countPages counts the page nodes under n.
func (n *Nav) countPages() int {
	if n.Kind == NavPage {
		return 1
	}
	c := 0
	for _, x := range n.Children {
		c += x.countPages()
	}
	return c
}

// Pages returns the distinct pages under n in navigation order, each with
// the location of its first appearance.
func (n *Nav) Pages() []NavEntry {
	count := n.countPages()
	out := make([]NavEntry, 0, count)
	seen := make(map[string]bool, count)
	var walk func(x *Nav, groups []string, div string, hidden bool)
	walk = func(x *Nav, groups []string, div string, hidden bool) {
		switch {
		case x.Kind == NavPage:
			if !seen[x.Page] {
				seen[x.Page] = true
				out = append(out, NavEntry{Page: x.Page, Groups: groups, Division: div, Hidden: hidden})
			}
			return
		case x.Kind == NavGroup:
			groups = append(groups[:len(groups):len(groups)], x.Label)
		case x.IsDivision():
			div = x.Label
		}
		switch {
		case x.Hidden:
			hidden = !x.Searchable
		case x.Searchable:
			hidden = false
		}
		for _, c := range x.Children {
			walk(c, groups, div, hidden)
		}
	}
	walk(n, nil, "", false)
	return out
}

// FirstPage returns the first page under n, or "".
func (n *Nav) FirstPage() string {
	if n.Kind == NavPage {
		return n.Page
	}
	for _, c := range n.Children {
		if p := c.FirstPage(); p != "" {
			return p
		}
	}
	return ""
}

// navBuilder walks the navigation forms of docs.json.
type navBuilder struct {
	cw    *cfgWarner
	depth int
}

// divisionKeys are the docs.json keys holding divisions, with the key of
// each item's label.
var divisionKeys = []struct {
	key, label string
	kind       NavKind
}{
	{"products", "product", NavProduct},
	{"languages", "language", NavLanguage},
	{"versions", "version", NavVersion},
	{"tabs", "tab", NavTab},
	{"anchors", "anchor", NavAnchor},
	{"dropdowns", "dropdown", NavDropdown},
	{"menu", "item", NavMenu},
}

// object adds the navigation held by a docs.json object (the navigation
// itself, a division or a group) to parent.
func (b *navBuilder) object(obj map[string]any, parent *Nav, where string) {
	if b.depth > 64 {
		b.cw.warn("", "%s: navigation nested too deeply; ignored", where)
		return
	}
	b.depth++
	defer func() { b.depth-- }()
	if ref, ok := obj["$ref"]; ok {
		// Mintlify's composable configuration: not read, so say so rather
		// than leave a part of the navigation out silently.
		b.cw.warn(Str(ref), "%s: \"$ref\" (a configuration split into files) is not supported; %q ignored", where, Str(ref))
	}
	if v, ok := obj["openapi"]; ok {
		parent.OpenAPI = ParseNavOpenAPI(v)
	}
	if root := Str(obj["root"]); root != "" {
		parent.Children = append(parent.Children, &Nav{Kind: NavPage, Page: CleanPagePath(root)})
	}
	if v, ok := obj["pages"]; ok {
		b.pages(v, parent, where+".pages")
	}
	if v, ok := obj["groups"]; ok {
		list, isList := v.([]any)
		if !isList {
			b.cw.warn("", "%s.groups must be a list; ignored", where)
		}
		for i, item := range list {
			g, isObj := item.(map[string]any)
			if !isObj {
				b.cw.warn("", "%s.groups[%d] must be an object; ignored", where, i)
				continue
			}
			b.group(g, parent, fmt.Sprintf("%s.groups[%d]", where, i))
		}
	}
	for _, dk := range divisionKeys {
		v, ok := obj[dk.key]
		if !ok {
			continue
		}
		list, isList := v.([]any)
		if !isList {
			b.cw.warn("", "%s.%s must be a list; ignored", where, dk.key)
			continue
		}
		for i, item := range list {
			m, isObj := item.(map[string]any)
			if !isObj {
				continue
			}
			d := &Nav{Kind: dk.kind, Label: Str(m[dk.label]), Icon: Str(m["icon"]), Href: Str(m["href"]),
				Hidden: boolean(m["hidden"]), Searchable: boolean(m["searchable"])}
			if d.Label == "" {
				d.Label = Str(m["name"])
			}
			b.object(m, d, fmt.Sprintf("%s.%s[%d]", where, dk.key, i))
			if len(d.Children) == 0 && d.Href == "" && d.OpenAPI == nil {
				continue // an empty division adds nothing
			}
			parent.Children = append(parent.Children, d)
		}
	}
}

// group adds a {"group": ..., "pages": [...]} object.
func (b *navBuilder) group(g map[string]any, parent *Nav, where string) {
	n := &Nav{Kind: NavGroup, Label: Str(g["group"]), Icon: Str(g["icon"]), Hidden: boolean(g["hidden"]),
		Searchable: boolean(g["searchable"]), Expanded: boolean(g["expanded"]), Tag: Str(g["tag"])}
	b.object(g, n, where)
	parent.Children = append(parent.Children, n)
}

// pages adds the entries of a "pages" list: page paths and nested groups.
func (b *navBuilder) pages(v any, parent *Nav, where string) {
	list, ok := v.([]any)
	if !ok {
		b.cw.warn("", "%s must be a list; ignored", where)
		return
	}
	for i, item := range list {
		switch x := item.(type) {
		case string:
			if strings.TrimSpace(x) == "" {
				b.cw.warn("", "%s[%d] is empty; ignored", where, i)
				continue
			}
			if IsExternal(x) {
				parent.Children = append(parent.Children, &Nav{Kind: NavLink, Label: x, Href: x})
				continue
			}
			parent.Children = append(parent.Children, &Nav{Kind: NavPage, Page: CleanPagePath(x)})
		case map[string]any:
			if _, isGroup := x["group"]; isGroup {
				b.group(x, parent, fmt.Sprintf("%s[%d]", where, i))
			} else if l, isLink := LinkItem(x); isLink {
				parent.Children = append(parent.Children, &Nav{Kind: NavLink, Label: l.Label, Href: l.Href, Icon: l.Icon})
			} else {
				b.object(x, parent, fmt.Sprintf("%s[%d]", where, i))
			}
		default:
			b.cw.warn("", "%s[%d] must be a page path or a group; ignored", where, i)
		}
	}
}

// CleanPagePath normalises a navigation entry: no leading slash, no
// extension, no trailing slash.
func CleanPagePath(p string) string {
	p = strings.TrimSpace(p)
	p = strings.TrimPrefix(p, "./")
	p = strings.Trim(p, "/")
	for _, ext := range []string{".mdx", ".md"} {
		p = strings.TrimSuffix(p, ext)
	}
	if p == "" {
		return "index"
	}
	return p
}

// parseMintJSON reads the legacy mint.json navigation: a list of groups,
// with tabs and anchors matched to groups by URL prefix.
func parseMintJSON(cfg *Config, raw map[string]any, cw *cfgWarner) {
	cfg.NavbarLinks = linkList(raw["topbarLinks"])
	cfg.NavbarPrimary = parseButton(raw["topbarCtaButton"], "topbarCtaButton", cw)
	b := &navBuilder{cw: cw}
	groups := &Nav{Kind: NavRoot}
	b.pages(raw["navigation"], groups, "navigation")
	cfg.Nav = &Nav{Kind: NavRoot}
	tabs := linkList(raw["tabs"])
	if len(tabs) == 0 {
		cfg.Nav.Children = groups.Children
	} else {
		primary := "Documentation"
		if p, ok := raw["primaryTab"].(map[string]any); ok && Str(p["name"]) != "" {
			primary = Str(p["name"])
		}
		divs := []*Nav{{Kind: NavTab, Label: primary}}
		for _, t := range tabs {
			if IsExternal(t.Href) {
				cfg.Anchors = append(cfg.Anchors, t)
				continue
			}
			divs = append(divs, &Nav{Kind: NavTab, Label: t.Label, Href: CleanPagePath(t.Href)})
		}
		for _, g := range groups.Children {
			target := divs[0]
			first := g.FirstPage()
			for _, d := range divs[1:] {
				if first == d.Href || strings.HasPrefix(first, d.Href+"/") {
					target = d
				}
			}
			target.Children = append(target.Children, g)
		}
		for _, d := range divs {
			if len(d.Children) > 0 {
				d.Href = ""
				cfg.Nav.Children = append(cfg.Nav.Children, d)
			}
		}
	}
	for _, a := range linkList(raw["anchors"]) {
		if !IsExternal(a.Href) {
			prefix := CleanPagePath(a.Href)
			for _, e := range cfg.Nav.Pages() {
				if e.Page == prefix || strings.HasPrefix(e.Page, prefix+"/") {
					a.Href = "/" + e.Page
					break
				}
			}
		}
		cfg.Anchors = append(cfg.Anchors, a)
	}
}

// FolderNav builds a navigation from the page files when there is no
// configuration: root pages first, then one group per folder, sorted, with
// "index" first at each level. Files under snippets/ are not pages.
func FolderNav(pageFiles []string) *Nav {
	root := &Nav{Kind: NavRoot}
	groups := map[string]*Nav{"": root}
	var paths []string
	for _, f := range pageFiles {
		if strings.HasPrefix(f, "snippets/") {
			continue
		}
		paths = append(paths, strings.TrimSuffix(strings.TrimSuffix(f, ".mdx"), ".md"))
	}
	sort.Slice(paths, func(i, j int) bool {
		di, dj := path.Dir(paths[i]), path.Dir(paths[j])
		if di != dj {
			if di == "." || dj == "." {
				return di == "."
			}
			return di < dj
		}
		bi, bj := path.Base(paths[i]), path.Base(paths[j])
		if (bi == "index") != (bj == "index") {
			return bi == "index"
		}
		return bi < bj
	})
	var groupFor func(dir string) *Nav
	groupFor = func(dir string) *Nav {
		if dir == "." {
			dir = ""
		}
		if g, ok := groups[dir]; ok {
			return g
		}
		parent := groupFor(path.Dir(dir))
		g := &Nav{Kind: NavGroup, Label: Humanize(path.Base(dir))}
		parent.Children = append(parent.Children, g)
		groups[dir] = g
		return g
	}
	seen := map[string]bool{}
	for _, p := range paths {
		if seen[p] { // x.md and x.mdx
			continue
		}
		seen[p] = true
		g := groupFor(path.Dir(p))
		g.Children = append(g.Children, &Nav{Kind: NavPage, Page: p})
	}
	return root
}

// Humanize turns a file or folder name into a label: "getting-started" →
// "Getting started".
func Humanize(name string) string {
	name = strings.NewReplacer("-", " ", "_", " ").Replace(name)
	name = strings.TrimSpace(name)
	r, size := utf8.DecodeRuneInString(name)
	if r == utf8.RuneError {
		return name
	}
	return string(unicode.ToUpper(r)) + name[size:]
}

// NavOpenAPI is the "openapi" key of a navigation tab, group or other
// division: the documents to generate pages from, and the folder of the
// generated pages.
type NavOpenAPI struct {
	Sources   []string
	Directory string
}

// ParseNavOpenAPI reads an "openapi" value: "file", ["a", "b"] or
// {"source": "file", "directory": "dir"}.
func ParseNavOpenAPI(v any) *NavOpenAPI {
	n := &NavOpenAPI{}
	switch x := v.(type) {
	case string:
		n.Sources = []string{strings.TrimSpace(x)}
	case []any:
		for _, e := range x {
			if s := Str(e); s != "" {
				n.Sources = append(n.Sources, s)
			}
		}
	case map[string]any:
		if s := Str(x["source"]); s != "" {
			n.Sources = []string{s}
		}
		n.Directory = strings.Trim(Str(x["directory"]), "/")
	}
	if len(n.Sources) == 0 || n.Sources[0] == "" {
		return nil
	}
	return n
}
