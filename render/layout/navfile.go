package layout

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"lectern.dev/lectern/render/config"
	"lectern.dev/lectern/render/features"
	"lectern.dev/lectern/render/openapi"
)

// Navigation files.
//
// A split section (sidebar_split.go) has one navigation file,
// NavDir + <id> + ".js", that holds its whole sidebar: the markup of the
// full sidebar, with no page marked, its URLs as a file at the site's root
// has them (absolute on a live site, relative to the root in an export).
// It is a script rather than JSON because pages opened from file:// may
// load scripts but not fetch() files; it sets window.lecternNav and calls
// window.lecternNavReady when site.js has set it, whichever of the two
// runs first. site.js puts the markup in place of the page's part, with
// the URLs prefixed by the part's data-root where relative, and marks the
// current page (the link of the part's active one) and opens its groups.
//
// The file's name depends on the labels of the section's divisions only,
// never on its content, so that pages link to it by a URL that does not
// change when the section does: a rebuild that adds a page to a group
// writes that group's pages and the navigation file, not every page.
// Servers must therefore revalidate it (sites and selfhost send it with
// no-cache).

// NavDir is the folder of the navigation files in the output.
const NavDir = features.NavDir

// NavFile is a file of the output: a section's navigation file.
type NavFile struct {
	Name string
	Data []byte
}

// navIDs names the navigation file of every section of the navigation
// root: the root ("site") and each division, by the labels of its
// divisions, lower case, joined by "-" ("v2-guides"); a name taken by an
// earlier section gets "-2", "-3"... in navigation order. Names are
// letters, digits and "-", and never end in what looks like a content
// hash, which servers could cache for good.
func navIDs(root *config.Nav) map[*config.Nav]string {
	ids := map[*config.Nav]string{}
	used := map[string]bool{}
	next := map[string]int{} // the next number to try after a base taken
	name := func(n *config.Nav, labels string) {
		base := unhashed(labels)
		if n == root {
			base = "site"
		} else if base == "" {
			base = "section"
		}
		id := base
		if used[id] {
			// From where the last section of this base stopped: many
			// sections of one name cost as many tries, not their square.
			i := max(next[base], 2)
			for id = base + "-" + strconv.Itoa(i); used[id]; id = base + "-" + strconv.Itoa(i) {
				i++
			}
			next[base] = i + 1
		}
		used[id] = true
		ids[n] = id
	}
	// labels is the slug of the labels of the divisions down to n, which
	// is at most 48 bytes: each label is read once.
	var walk func(n *config.Nav, labels string)
	walk = func(n *config.Nav, labels string) {
		if n.IsDivision() {
			labels = asciiSlug(labels + " " + n.Label)
			name(n, labels)
		}
		for _, c := range n.Children {
			walk(c, labels)
		}
	}
	name(root, "")
	walk(root, "")
	return ids
}

// asciiSlug is openapi.Slugify of the ASCII letters and digits of s, the
// rest as spaces, cut to 48 bytes.
func asciiSlug(s string) string {
	out := openapi.Slugify(strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return ' '
	}, s))
	if len(out) > 48 {
		out = strings.TrimSuffix(out[:48], "-")
	}
	return out
}

// unhashed is slug s with "n" after a last run of 8 or more hexadecimal
// digits.
func unhashed(s string) string {
	hex := 0
	for i := len(s) - 1; i >= 0 && strings.IndexByte("0123456789abcdef", s[i]) >= 0; i-- {
		hex++
	}
	if hex >= 8 {
		return s + "n"
	}
	return s
}

// NavFiles returns the navigation files of the split sections that a
// page, or 404.html, shows part of, sorted by name.
func (t *Theme) NavFiles() []NavFile {
	sp := t.split()
	need := map[*config.Nav]bool{}
	mark := func(root *config.Nav, current string) {
		if need[root] {
			return
		}
		if nav := t.sectionNavOf(root); nav != nil {
			if !nav.whole(nav.part(sp, current)) {
				need[root] = true
			}
		}
	}
	for _, p := range t.s.Order {
		mark(t.section(p), p.Path)
	}
	mark(t.notFoundSection(), "")
	var files []NavFile
	for root := range need {
		files = append(files, NavFile{Name: NavDir + t.sectionNavOf(root).id + ".js", Data: t.navFile(root)})
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Name < files[j].Name })
	return files
}

// notFoundSection is the section whose sidebar 404.html shows.
func (t *Theme) notFoundSection() *config.Nav { return t.sectionOfChain(t.firstSectionChain()) }

// navFile returns the navigation file of section root.
func (t *Theme) navFile(root *config.Nav) []byte {
	// The sidebar of a file at the root.
	nav := t.sectionNavOf(root)
	var b bytes.Buffer
	b.WriteString("window.lecternNav=")
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // a script of its own: "</script>" ends nothing
	// json escapes U+2028 and U+2029: the JSON is a JavaScript expression.
	_ = enc.Encode(struct {
		ID   string `json:"id"`
		HTML string `json:"html"`
	}{nav.id, nav.full(t.s, "index.html", "", nil, nil)})
	b.Truncate(b.Len() - 1) // Encode's newline
	b.WriteString(";if(window.lecternNavReady)window.lecternNavReady();\n")
	return b.Bytes()
}
