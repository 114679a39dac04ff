package render

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"regexp"
	"strings"
	"testing"

	"lectern.dev/lectern/internal/sitetest"
	"lectern.dev/lectern/render/icons"
	"lectern.dev/lectern/render/layout"
)

func fileExists(name string) bool {
	_, err := os.Stat(name)
	return err == nil
}

// The tests that lower buildWindow.Min do not call t.Parallel: they run
// before the parallel tests of the package start.

// setWindow sets the window's threshold and size until restore is
// called (at the latest, at the end of the test).
func setWindow(t *testing.T, minEntries, size int) (restore func()) {
	t.Helper()
	old := buildWindow
	buildWindow = layout.Window{Min: minEntries, Size: size}
	restore = func() { buildWindow = old }
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

// windowSite has 11 visible entries in three top-level groups, one of
// them with a nested group, an external link and a hidden page.
const windowSite = `
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

func TestSidebarWindow(t *testing.T) {
	setWindow(t, 10, 4)
	_, live := build(t, windowSite, Options{BasePath: "/docs"})
	_, export := build(t, windowSite, Options{Export: true})
	book := icons.HTML("book")
	deep := func(open string, items string) string {
		return `<li class="lc-nav-group"><details` + open + `><summary>Deep</summary><ul class="lc-nav-list">` + items + `</ul></details></li>`
	}
	cases := []struct {
		out  *memOutput
		file string
		want string
	}{
		// In the middle: the window around the page, under its headings
		// and open groups, with what is left out before and after.
		{live, "g/deep/d2.html", `<ul class="lc-nav-list"><li><a class="lc-nav-more" href="/docs/">… 3 more pages</a></li></ul>
<div class="lc-nav-section"><p class="lc-nav-heading">` + book + `Guide</p><ul class="lc-nav-list"><li><a href="/docs/g/first">G first</a></li>` +
			deep(" open", `<li><a href="/docs/g/deep/d1">D1</a></li><li><a href="/docs/g/deep/d2" class="lc-active" aria-current="page">D2 &lt;two&gt;</a></li><li><a href="/docs/g/deep/d3">D3</a></li>`) + `</ul></div>
<ul class="lc-nav-list"><li><a class="lc-nav-more" href="/docs/g/last">… 4 more entries</a></li></ul>
`},
		// The first page: the window starts at the start.
		{live, "index.html", `<div class="lc-nav-section"><p class="lc-nav-heading">Start</p><ul class="lc-nav-list"><li><a href="/docs/" class="lc-active" aria-current="page">Home</a></li><li><a href="/docs/a/one">A1</a></li><li><a href="/docs/a/two">A2</a></li></ul></div>
<div class="lc-nav-section"><p class="lc-nav-heading">` + book + `Guide</p><ul class="lc-nav-list"><li><a href="/docs/g/first">G first</a></li></ul></div>
<ul class="lc-nav-list"><li><a class="lc-nav-more" href="/docs/g/deep/d1">… 7 more entries</a></li></ul>
`},
		// The last page: the window ends at the end; links keep rel.
		{live, "e/two.html", `<ul class="lc-nav-list"><li><a class="lc-nav-more" href="/docs/">… 7 more pages</a></li></ul>
<div class="lc-nav-section"><p class="lc-nav-heading">` + book + `Guide</p><ul class="lc-nav-list"><li><a href="https://status.win.test" rel="noopener">Status</a></li><li><a href="/docs/g/last">G last</a></li></ul></div>
<div class="lc-nav-section"><p class="lc-nav-heading">End</p><ul class="lc-nav-list"><li><a href="/docs/e/one">E1</a></li><li><a href="/docs/e/two" class="lc-active" aria-current="page">E2</a></li></ul></div>
`},
		// A hidden page is shown on its own page, where the navigation
		// has it.
		{live, "g/deep/secret.html", `<ul class="lc-nav-list"><li><a class="lc-nav-more" href="/docs/">… 6 more pages</a></li></ul>
<div class="lc-nav-section"><p class="lc-nav-heading">` + book + `Guide</p><ul class="lc-nav-list">` +
			deep(" open", `<li><a href="/docs/g/deep/d3">D3</a></li><li><a href="/docs/g/deep/secret" class="lc-active" aria-current="page">Secret</a></li>`) + `<li><a href="https://status.win.test" rel="noopener">Status</a></li><li><a href="/docs/g/last">G last</a></li></ul></div>
<ul class="lc-nav-list"><li><a class="lc-nav-more" href="/docs/e/one">… 2 more pages</a></li></ul>
`},
		// 404.html shows the start of the section, nothing current.
		{live, "404.html", `<div class="lc-nav-section"><p class="lc-nav-heading">Start</p><ul class="lc-nav-list"><li><a href="/docs/">Home</a></li><li><a href="/docs/a/one">A1</a></li><li><a href="/docs/a/two">A2</a></li></ul></div>
<div class="lc-nav-section"><p class="lc-nav-heading">` + book + `Guide</p><ul class="lc-nav-list"><li><a href="/docs/g/first">G first</a></li></ul></div>
<ul class="lc-nav-list"><li><a class="lc-nav-more" href="/docs/g/deep/d1">… 7 more entries</a></li></ul>
`},
		// The export form: URLs relative to the page's folder, and
		// absolute in 404.html.
		{export, "g/deep/d2.html", `<ul class="lc-nav-list"><li><a class="lc-nav-more" href="../../index.html">… 3 more pages</a></li></ul>
<div class="lc-nav-section"><p class="lc-nav-heading">` + book + `Guide</p><ul class="lc-nav-list"><li><a href="../first.html">G first</a></li>` +
			deep(" open", `<li><a href="d1.html">D1</a></li><li><a href="d2.html" class="lc-active" aria-current="page">D2 &lt;two&gt;</a></li><li><a href="d3.html">D3</a></li>`) + `</ul></div>
<ul class="lc-nav-list"><li><a class="lc-nav-more" href="../last.html">… 4 more entries</a></li></ul>
`},
		{export, "404.html", `<div class="lc-nav-section"><p class="lc-nav-heading">Start</p><ul class="lc-nav-list"><li><a href="/index.html">Home</a></li><li><a href="/a/one.html">A1</a></li><li><a href="/a/two.html">A2</a></li></ul></div>
<div class="lc-nav-section"><p class="lc-nav-heading">` + book + `Guide</p><ul class="lc-nav-list"><li><a href="/g/first.html">G first</a></li></ul></div>
<ul class="lc-nav-list"><li><a class="lc-nav-more" href="/g/deep/d1.html">… 7 more entries</a></li></ul>
`},
	}
	for _, c := range cases {
		form := "live"
		if c.out == export {
			form = "export"
		}
		if got := sidebarOf(t, c.out.get(t, c.file)); got != c.want {
			t.Errorf("%s %s sidebar:\n%s\nwant:\n%s", form, c.file, got, c.want)
		}
	}
	// The entries left out go where they are: in the group that holds
	// them and the entries shown next to them, if there is one.
	setWindow(t, 10, 1)
	_, one := build(t, windowSite, Options{BasePath: "/docs"})
	for file, want := range map[string]string{
		"a/two.html": `<div class="lc-nav-section"><p class="lc-nav-heading">Start</p><ul class="lc-nav-list"><li><a class="lc-nav-more" href="/docs/">… 2 more pages</a></li><li><a href="/docs/a/two" class="lc-active" aria-current="page">A2</a></li></ul></div>
<ul class="lc-nav-list"><li><a class="lc-nav-more" href="/docs/g/first">… 8 more entries</a></li></ul>
`,
		"e/one.html": `<ul class="lc-nav-list"><li><a class="lc-nav-more" href="/docs/">… 9 more entries</a></li></ul>
<div class="lc-nav-section"><p class="lc-nav-heading">End</p><ul class="lc-nav-list"><li><a href="/docs/e/one" class="lc-active" aria-current="page">E1</a></li><li><a class="lc-nav-more" href="/docs/e/two">… 1 more page</a></li></ul></div>
`,
	} {
		if got := sidebarOf(t, one.get(t, file)); got != want {
			t.Errorf("window of 1, %s sidebar:\n%s\nwant:\n%s", file, got, want)
		}
	}
	// A group whose page is not current stays closed.
	if got := sidebarOf(t, live.get(t, "g/first.html")); !strings.Contains(got, deep("", `<li><a href="/docs/g/deep/d1">D1</a></li>`)) {
		t.Errorf("g/first.html sidebar does not show Deep closed:\n%s", got)
	}
}

// TestSidebarWindowAsFull checks that a windowed sidebar that shows every
// entry is the full sidebar, byte for byte: the two write the same
// markup.
func TestSidebarWindowAsFull(t *testing.T) {
	sites := map[string]fs.FS{}
	for name, archive := range map[string]string{"small": smallSite, "theme": themeSite, "hidden": hiddenSite, "window": windowSite} {
		sites[name] = sitetest.Archive(t, archive)
	}
	if src := corpusDir + "pipecat-docs"; fileExists(src + "/docs.json") {
		sites["pipecat"] = os.DirFS(src)
	}
	for name, fsys := range sites {
		for _, opts := range []Options{{BasePath: "/docs"}, {Export: true}} {
			if name == "pipecat" && !opts.Export {
				continue // the export form, whose URLs differ by folder, is enough
			}
			full := buildFS(t, fsys, opts)
			restore := setWindow(t, -1, 1<<20)
			windowed := buildFS(t, fsys, opts)
			restore()
			n := 0
			for file, data := range full.files {
				if !strings.HasSuffix(file, ".html") {
					continue
				}
				n++
				if !bytes.Equal(windowed.files[file], data) {
					t.Errorf("%s export=%v: %s differs with a window of every entry:\n%s", name, opts.Export, file, sitetest.FirstDiff(string(data), string(windowed.files[file])))
				}
			}
			if n == 0 {
				t.Errorf("%s: no pages", name)
			}
		}
	}
}

// TestSidebarWindowCache checks that the rebuild cache renders again the
// pages of a windowed section when the section changes, or the window.
func TestSidebarWindowCache(t *testing.T) {
	setWindow(t, 20, 6)
	for _, export := range []bool{false, true} {
		buildWindow = layout.Window{Min: 20, Size: 6}
		fsys := bigSite(2, 3, 10) // 60 pages, 30 per tab
		dir, cache := t.TempDir(), t.TempDir()
		step := func(what string, wantReused int) {
			t.Helper()
			res := cacheBuild(t, fsys, dir, "", cache, export)
			if res.Reused != wantReused {
				t.Fatalf("export=%v, %s: %d pages reused, want %d", export, what, res.Reused, wantReused)
			}
		}
		step("first build", 0)
		if page := string(sitetest.ReadDir(t, dir)["t0/p015.html"]); !strings.Contains(page, `class="lc-nav-more"`) {
			t.Fatalf("export=%v: t0/p015.html has no windowed sidebar:\n%s", export, page)
		}
		step("nothing changed", 60)
		// A title is in the sidebar of its tab, windowed or not.
		fsys["t1/p040.mdx"].Data = bytes.Replace(fsys["t1/p040.mdx"].Data, []byte("title: Page 40"), []byte("title: Renamed"), 1)
		step("one title changed", 30)
		buildWindow.Size = 8
		step("window size changed", 0)
		buildWindow.Min = 25
		step("threshold changed", 0)
		buildWindow.Min = 1000
		step("no window", 0)
		step("nothing changed again", 60)
	}
}
