package render

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"regexp"
	"strings"
	"testing"

	"lectern.dev/lectern/render/icons"
	"lectern.dev/lectern/render/layout"
)

func fileExists(name string) bool {
	_, err := os.Stat(name)
	return err == nil
}

// The tests that lower buildSplit.Min do not call t.Parallel: they run
// before the parallel tests of the package start.

// setSplit sets when sidebars are split until restore is called (at the
// latest, at the end of the test).
func setSplit(t *testing.T, minEntries, group, window int) (restore func()) {
	t.Helper()
	old := buildSplit
	buildSplit = layout.Split{Min: minEntries, Group: group, Window: window}
	restore = func() { buildSplit = old }
	t.Cleanup(restore)
	return restore
}

// buildFS runs Build on fsys and fails the test on error.
func buildFS(t *testing.T, fsys fs.FS, opts Options) *memOutput {
	t.Helper()
	out := newMemOutput()
	if _, err := Build(context.Background(), fsys, out, opts); err != nil {
		t.Fatalf("Build: %v", err)
	}
	return out
}

// splitSite has 11 visible entries in three top-level groups, one of
// them with a nested group, an external link and a hidden page.
const splitSite = `
-- docs.json --
{"name": "Win", "navigation": {"groups": [
  {"group": "Start", "pages": ["index", "a/one", "a/two"]},
  {"group": "Guide", "icon": "book", "pages": [
    "g/first",
    {"group": "Deep", "pages": ["g/deep/d1", "g/deep/d2", "g/deep/d3", "g/deep/secret"]},
    {"label": "Status", "href": "https://status.win.test"},
    "g/last"
  ]},
  {"group": "End", "pages": ["e/one", "e/two"]}
]}}
-- index.mdx --
# Home
-- a/one.mdx --
# A1
-- a/two.mdx --
# A2
-- g/first.mdx --
# G first
-- g/deep/d1.mdx --
# D1
-- g/deep/d2.mdx --
---
title: D2 <two>
---
x
-- g/deep/d3.mdx --
# D3
-- g/deep/secret.mdx --
---
title: Secret
hidden: true
---
x
-- g/last.mdx --
# G last
-- e/one.mdx --
# E1
-- e/two.mdx --
# E2
`

var sideNavRE = regexp.MustCompile(`(?s)<nav class="lc-sidebar" id="sidebar" aria-label="Documentation">\n(.*?)\n</nav>\n<main`)

// sidebarOf returns the sidebar of a page without selectors or anchors.
func sidebarOf(t *testing.T, page string) string {
	t.Helper()
	m := sideNavRE.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no sidebar in page:\n%s", page)
	}
	return m[1]
}

// navFileHTML returns the markup of the whole sidebar that the navigation
// file name of out holds, checking that it is the script site.js expects.
func navFileHTML(t *testing.T, out *memOutput, name, id string) string {
	t.Helper()
	data := out.get(t, name)
	const head, tail = "window.lecternNav=", ";if(window.lecternNavReady)window.lecternNavReady();\n"
	if !strings.HasPrefix(data, head) || !strings.HasSuffix(data, tail) {
		t.Fatalf("%s is not the script site.js expects:\n%.300s", name, data)
	}
	var v struct{ ID, HTML string }
	if err := json.Unmarshal([]byte(data[len(head):len(data)-len(tail)]), &v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if v.ID != id {
		t.Errorf("%s: id %q, want %q", name, v.ID, id)
	}
	return v.HTML
}

func TestSidebarSplit(t *testing.T) {
	setSplit(t, 10, 4, 100)
	_, live := build(t, splitSite, Options{BasePath: "/docs"})
	_, export := build(t, splitSite, Options{Export: true})
	book := icons.HTML("book")
	deep := func(open string, items string) string {
		return `<li class="lc-nav-group"><details` + open + `><summary>Deep</summary><ul class="lc-nav-list">` + items + `</ul></details></li>`
	}
	part := func(root, inner string) string {
		return `<div class="lc-nav-part" data-nav="site" data-root="` + root + `">` + "\n" + inner + "</div>"
	}
	guide := `<div class="lc-nav-section"><p class="lc-nav-heading">` + book + `Guide</p><ul class="lc-nav-list">`
	cases := []struct {
		out          *memOutput
		file, script string
		want         string
	}{
		// The part of a page: the largest group holding it of at most 4
		// entries (Deep: Guide has 6), under the heading of Guide.
		{live, "g/deep/d2.html", "/docs/_lectern/nav/site.js", part("/docs/", guide+
			deep(" open", `<li><a href="/docs/g/deep/d1">D1</a></li><li><a href="/docs/g/deep/d2" class="lc-active" aria-current="page">D2 &lt;two&gt;</a></li><li><a href="/docs/g/deep/d3">D3</a></li>`)+"</ul></div>\n")},
		{live, "index.html", "/docs/_lectern/nav/site.js", part("/docs/", `<div class="lc-nav-section"><p class="lc-nav-heading">Start</p><ul class="lc-nav-list"><li><a href="/docs/" class="lc-active" aria-current="page">Home</a></li><li><a href="/docs/a/one">A1</a></li><li><a href="/docs/a/two">A2</a></li></ul></div>
`)},
		// A hidden page is shown on its own page, where the navigation
		// has it, and counts: Deep and it make 4.
		{live, "g/deep/secret.html", "/docs/_lectern/nav/site.js", part("/docs/", guide+
			deep(" open", `<li><a href="/docs/g/deep/d1">D1</a></li><li><a href="/docs/g/deep/d2">D2 &lt;two&gt;</a></li><li><a href="/docs/g/deep/d3">D3</a></li><li><a href="/docs/g/deep/secret" class="lc-active" aria-current="page">Secret</a></li>`)+"</ul></div>\n")},
		// A page directly in a group too large: a window of it, here
		// all of Guide's 6 entries (Deep closed), links keeping rel.
		{live, "g/first.html", "/docs/_lectern/nav/site.js", part("/docs/", guide+`<li><a href="/docs/g/first" class="lc-active" aria-current="page">G first</a></li>`+
			deep("", `<li><a href="/docs/g/deep/d1">D1</a></li><li><a href="/docs/g/deep/d2">D2 &lt;two&gt;</a></li><li><a href="/docs/g/deep/d3">D3</a></li>`)+
			`<li><a href="https://status.win.test" rel="noopener">Status</a></li><li><a href="/docs/g/last">G last</a></li></ul></div>
`)},
		// 404.html shows the part of the first entry, nothing current.
		{live, "404.html", "/docs/_lectern/nav/site.js", part("/docs/", `<div class="lc-nav-section"><p class="lc-nav-heading">Start</p><ul class="lc-nav-list"><li><a href="/docs/">Home</a></li><li><a href="/docs/a/one">A1</a></li><li><a href="/docs/a/two">A2</a></li></ul></div>
`)},
		// The export form: URLs relative to the page's folder, and
		// absolute in 404.html; data-root leads to the site's root.
		{export, "g/deep/d2.html", "../../_lectern/nav/site.js", part("../../", guide+
			deep(" open", `<li><a href="d1.html">D1</a></li><li><a href="d2.html" class="lc-active" aria-current="page">D2 &lt;two&gt;</a></li><li><a href="d3.html">D3</a></li>`)+"</ul></div>\n")},
		{export, "index.html", "_lectern/nav/site.js", part("", `<div class="lc-nav-section"><p class="lc-nav-heading">Start</p><ul class="lc-nav-list"><li><a href="index.html" class="lc-active" aria-current="page">Home</a></li><li><a href="a/one.html">A1</a></li><li><a href="a/two.html">A2</a></li></ul></div>
`)},
		{export, "404.html", "/_lectern/nav/site.js", part("/", `<div class="lc-nav-section"><p class="lc-nav-heading">Start</p><ul class="lc-nav-list"><li><a href="/index.html">Home</a></li><li><a href="/a/one.html">A1</a></li><li><a href="/a/two.html">A2</a></li></ul></div>
`)},
	}
	for _, c := range cases {
		form := "live"
		if c.out == export {
			form = "export"
		}
		page := c.out.get(t, c.file)
		if got := sidebarOf(t, page); got != c.want {
			t.Errorf("%s %s sidebar:\n%s\nwant:\n%s", form, c.file, got, c.want)
		}
		if tag := `<script src="` + c.script + `" async></script>`; !strings.Contains(page, tag) {
			t.Errorf("%s %s does not load its navigation file with %s", form, c.file, tag)
		}
	}
	// The navigation file holds the whole sidebar, nothing current: in
	// the live form, that of 404.html in a build that does not split it.
	nav := navFileHTML(t, live, "_lectern/nav/site.js", "site")
	restore := setSplit(t, 1000, 0, 0)
	_, full := build(t, splitSite, Options{BasePath: "/docs"})
	restore()
	if want := sidebarOf(t, full.get(t, "404.html")); nav != want {
		t.Errorf("live navigation file:\n%s\nwant the full sidebar:\n%s", nav, want)
	}
	if strings.Contains(nav, "secret") || strings.Contains(nav, "lc-active") {
		t.Errorf("the navigation file shows a hidden or current page:\n%s", nav)
	}
	if full.has("_lectern/nav/site.js") || strings.Contains(full.get(t, "index.html"), "_lectern/nav/") {
		t.Error("a site whose sections are small has a navigation file")
	}
	// In the export, its URLs are relative to the root.
	if nav := navFileHTML(t, export, "_lectern/nav/site.js", "site"); !strings.Contains(nav, `<a href="g/deep/d1.html">D1</a>`) || !strings.Contains(nav, `<a href="index.html">Home</a>`) {
		t.Errorf("export navigation file:\n%s", nav)
	}

	// A window of a group larger than Split.Group: Window entries around
	// the page, under the headings and groups that hold them.
	setSplit(t, 10, 2, 2)
	_, one := build(t, splitSite, Options{BasePath: "/docs"})
	if got, want := sidebarOf(t, one.get(t, "g/deep/d3.html")), part("/docs/", guide+
		deep(" open", `<li><a href="/docs/g/deep/d2">D2 &lt;two&gt;</a></li><li><a href="/docs/g/deep/d3" class="lc-active" aria-current="page">D3</a></li>`)+"</ul></div>\n"); got != want {
		t.Errorf("window of 2, g/deep/d3.html sidebar:\n%s\nwant:\n%s", got, want)
	}
}

// TestSidebarSplitWhole checks that a page whose part would be its whole
// section shows the full sidebar, byte for byte, and that no navigation
// file is written when no page needs one.
func TestSidebarSplitWhole(t *testing.T) {
	const site = `
-- docs.json --
{"name": "One", "navigation": {"groups": [{"group": "All", "pages": ["index", "b", "c"]}]}}
-- index.mdx --
# Home
-- b.mdx --
# B
-- c.mdx --
# C
`
	setSplit(t, 1, 1000, 100)
	_, split := build(t, site, Options{Export: true})
	setSplit(t, 1000, 0, 0)
	_, full := build(t, site, Options{Export: true})
	for name, data := range full.files {
		if !bytes.Equal(split.files[name], data) {
			t.Errorf("%s differs when the part is the whole section", name)
		}
	}
	if len(split.files) != len(full.files) {
		t.Errorf("%d files, %d without split", len(split.files), len(full.files))
	}
}

// TestNavIDs checks the names of the navigation files: by the labels of
// the sections' divisions, distinct.
func TestNavIDs(t *testing.T) {
	setSplit(t, 2, 2, 2)
	const site = `
-- docs.json --
{"name": "Ids", "navigation": {"versions": [
  {"version": "v2", "tabs": [
    {"tab": "Guides", "groups": [{"group": "G", "pages": ["v2/a", "v2/b"]}, {"group": "H", "pages": ["v2/c"]}]},
    {"tab": "API / Reference", "groups": [{"group": "G", "pages": ["v2/d", "v2/e"]}, {"group": "H", "pages": ["v2/f"]}]}]},
  {"version": "v1", "tabs": [
    {"tab": "Guides", "groups": [{"group": "G", "pages": ["v1/a", "v1/b"]}, {"group": "H", "pages": ["v1/c"]}]},
    {"tab": "Guides", "groups": [{"group": "G", "pages": ["v1/d", "v1/e"]}, {"group": "H", "pages": ["v1/f"]}]}]}
]}}
`
	archive := site
	for _, v := range []string{"v1", "v2"} {
		for _, p := range "abcdef" {
			archive += "-- " + v + "/" + string(p) + ".mdx --\n# " + strings.ToUpper(string(p)) + "\n"
		}
	}
	_, out := build(t, archive, Options{})
	for page, want := range map[string]string{"v2/a.html": "v2-guides", "v2/e.html": "v2-api-reference", "v1/b.html": "v1-guides", "v1/f.html": "v1-guides-2"} {
		if tag := `<script src="/_lectern/nav/` + want + `.js" async></script>`; !strings.Contains(out.get(t, page), tag) {
			t.Errorf("%s does not load %s", page, tag)
		}
		navFileHTML(t, out, "_lectern/nav/"+want+".js", want)
	}
}

// TestSidebarSplitRemovedLink checks that a link of the configuration
// that is not allowed is "#" in a page's part as in the full sidebar,
// without the rel of an external link.
func TestSidebarSplitRemovedLink(t *testing.T) {
	const site = `
-- docs.json --
{"name": "Bad", "navigation": {"groups": [
  {"group": "A", "pages": ["index", {"group": "Deep", "pages": ["a/one", "a/two"]}, {"label": "Bad", "href": "javascript:alert(1)"}]},
  {"group": "B", "pages": ["b/one", "b/two"]}
]}}
-- index.mdx --
# Home
-- a/one.mdx --
# A1
-- a/two.mdx --
# A2
-- b/one.mdx --
# B1
-- b/two.mdx --
# B2
`
	setSplit(t, 2, 4, 100)
	_, out := build(t, site, Options{})
	page := out.get(t, "index.html")
	side := sidebarOf(t, page)
	if !strings.Contains(side, `lc-nav-part`) || !strings.Contains(side, `<li><a href="#">Bad</a></li>`) || strings.Contains(side, "javascript:") {
		t.Errorf("part of index.html:\n%s", side)
	}
	if nav := navFileHTML(t, out, "_lectern/nav/site.js", "site"); !strings.Contains(nav, `<li><a href="#">Bad</a></li>`) {
		t.Errorf("navigation file:\n%s", nav)
	}
}
