package render

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"lectern.dev/lectern/internal/sitetest"
	"lectern.dev/lectern/render/config"
	"lectern.dev/lectern/render/output"
)

func TestDocsJSONNavigationForms(t *testing.T) {
	t.Parallel()
	const site = `
-- docs.json --
{"name": "Forms", "navigation": {
  "versions": [
    {"version": "v2", "languages": [{"language": "en", "tabs": [{"tab": "T", "anchors": [{"anchor": "A",
      "dropdowns": [{"dropdown": "D", "products": [{"product": "P", "groups": [
        {"group": "G", "pages": ["a", {"group": "Nested", "pages": ["/b.mdx", {"group": "Deeper", "pages": ["c"]}]}]}
      ]}]}]}]}]}]},
    {"version": "v1", "pages": ["old", "a"]},
    {"version": "v0", "href": "https://v0.test"}
  ],
  "global": {"anchors": [{"anchor": "Status", "href": "https://status.test", "icon": "signal"}]}
}}
-- a.mdx --
A
-- b.mdx --
B
-- c.mdx --
C
-- old.mdx --
Old
`
	res, out := build(t, site, Options{})
	got := res.Config.Nav.Pages()
	want := []config.NavEntry{
		{Page: "a", Groups: []string{"G"}, Division: "P"},
		{Page: "b", Groups: []string{"G", "Nested"}, Division: "P"},
		{Page: "c", Groups: []string{"G", "Nested", "Deeper"}, Division: "P"},
		{Page: "old", Division: "v1"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Pages() = %+v\nwant %+v", got, want)
	}
	if res.Pages != 4 {
		t.Errorf("Pages = %d, want 4", res.Pages)
	}
	if len(res.Config.Anchors) != 1 || res.Config.Anchors[0] != (config.Link{Label: "Status", Href: "https://status.test", Icon: "signal"}) {
		t.Errorf("Anchors = %+v", res.Config.Anchors)
	}
	c := out.get(t, "c.html")
	for _, want := range []string{`<p class="lc-nav-heading">G</p>`, `<details open><summary>Nested</summary>`, `<details open><summary>Deeper</summary>`,
		`<a href="/c" class="lc-active" aria-current="page">C</a>`, `<p class="lc-eyebrow eyebrow">Deeper</p>`} {
		if !strings.Contains(c, want) {
			t.Errorf("c.html lacks %s", want)
		}
	}
	old := out.get(t, "old.html")
	if !strings.Contains(old, `<a href="/a">v2</a>`) || !strings.Contains(old, `<a href="https://v0.test" rel="noopener">v0</a>`) {
		t.Errorf("old.html does not list the versions as sections")
	}
}

func TestMintJSON(t *testing.T) {
	t.Parallel()
	const site = `
-- mint.json --
{"name": "Mint", "logo": "/logo.svg", "favicon": "/fav.png", "colors": {"primary": "#123456"},
 "topbarLinks": [{"name": "Blog", "url": "https://blog.test"}],
 "tabs": [{"name": "API", "url": "api"}],
 "anchors": [{"name": "Community", "url": "https://community.test"}, {"name": "API ref", "url": "api"}],
 "navigation": [
   {"group": "Start", "pages": ["intro", {"group": "More", "pages": ["more/x"]}]},
   {"group": "API", "pages": ["api/users"]}
 ]}
-- intro.mdx --
Intro
-- more/x.mdx --
X
-- api/users.mdx --
Users
-- logo.svg --
<svg/>
-- fav.png --
PNG
`
	res, out := build(t, site, Options{Export: true})
	if res.Config.Source != "mint.json" || res.Config.Name != "Mint" || res.Config.Colors.Primary != "#123456" {
		t.Errorf("Config = %+v", res.Config)
	}
	if res.Pages != 3 || len(res.Warnings) != 0 {
		t.Errorf("Pages = %d, warnings %v", res.Pages, res.Warnings)
	}
	intro := out.get(t, "intro.html")
	for _, want := range []string{
		`<a href="intro.html" class="lc-active" aria-current="true">Documentation</a><a href="api/users.html">API</a>`,
		`<a href="https://blog.test" rel="noopener">Blog</a>`,
		`<a href="https://community.test" rel="noopener">Community</a>`, `<a href="api/users.html">API ref</a>`,
		`<img class="lc-logo" src="logo.svg" alt="Mint">`, `<link rel="icon" href="fav.png">`,
	} {
		if !strings.Contains(intro, want) {
			t.Errorf("intro.html lacks %s", want)
		}
	}
	if users := out.get(t, "api/users.html"); !strings.Contains(users, `<p class="lc-nav-heading">API</p>`) || strings.Contains(users, ">Start<") {
		t.Errorf("api/users.html does not show the API tab's sidebar")
	}
	if !strings.Contains(out.get(t, "index.html"), `<h1 class="lc-title">Intro</h1>`) {
		t.Errorf("index.html is not a copy of the first page")
	}
}

func TestFolderTreeNavigation(t *testing.T) {
	t.Parallel()
	const site = `
-- guides/b.mdx --
# Bee
-- guides/a.md --
# Ay
-- index.mdx --
# Home
-- zeta.mdx --
# Zeta
-- snippets/s.mdx --
not a page
`
	res, out := build(t, site, Options{})
	var pages []string
	for _, e := range res.Config.Nav.Pages() {
		pages = append(pages, e.Page)
	}
	if strings.Join(pages, " ") != "index zeta guides/a guides/b" {
		t.Errorf("pages = %v", pages)
	}
	if res.Config.Source != "" || res.Config.Name != "Documentation" {
		t.Errorf("Config = %+v", res.Config)
	}
	if !strings.Contains(out.get(t, "guides/a.html"), `<p class="lc-nav-heading">Guides</p>`) || out.has("snippets/s.html") {
		t.Errorf("folder groups or snippets wrong")
	}
}

func TestConfigWarnings(t *testing.T) {
	t.Parallel()
	const site = `
-- docs.json --
{
  "colors": {"primary": "red; background: url(https://x.test/a.png)"},
  "logo": "/missing-logo.svg",
  "favicon": "https://cdn.test/favicon.ico",
  "navbar": {"links": [{"label": "Gone", "href": "/gone"}]},
  "navigation": {"groups": [{"group": "G", "pages": ["index", 7]}], "tabs": "nope"}
}
-- index.mdx --
Hi
`
	res, out := build(t, site, Options{})
	text := warningsText(res.Warnings)
	for _, want := range []string{
		`docs.json: navigation.groups[0].pages[1] must be a page path or a group; ignored`,
		`docs.json: navigation.tabs must be a list; ignored`,
		`docs.json:2: colors.primary "red; background: url(https://x.test/a.png)" is not a CSS colour`,
		`docs.json:3: logo "/missing-logo.svg" not found`,
		`docs.json:4: favicon "https://cdn.test/favicon.ico" is on another host`,
		`docs.json:5: broken link "/gone"`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("warnings lack %q:\n%s", want, text)
		}
	}
	checkNoExternalRefs(t, out.files)
}

func TestRedirectsResolveLinks(t *testing.T) {
	t.Parallel()
	const site = `
-- docs.json --
{"navigation": {"pages": ["index", "new/page", "intro"]},
 "redirects": [
   {"source": "/old/:slug*", "destination": "/new/:slug*"},
   {"source": "/legacy", "destination": "/intro"},
   {"source": "/away", "destination": "https://elsewhere.test/"}
 ]}
-- index.mdx --
[a](/old/page) [b](/legacy#x) [c](/away)
-- new/page.mdx --
P
-- intro.mdx --
I
`
	res, out := build(t, site, Options{})
	body := sitetest.Content(t, out.get(t, "index.html"))
	for _, want := range []string{`<a href="/new/page">a</a>`, `<a href="/intro#x">b</a>`, `<a href="https://elsewhere.test/">c</a>`} {
		if !strings.Contains(body, want) {
			t.Errorf("body lacks %s:\n%s", want, body)
		}
	}
	// The wildcard is followed by 404.html's script (redirects_wildcard.go).
	if len(res.Warnings) != 0 {
		t.Errorf("warnings: %v", res.Warnings)
	}
}

func TestDirOutput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := output.Dir{Dir: filepath.Join(dir, "site")}
	if err := out.WriteFile("a/b/c.html", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "site", "a", "b", "c.html")); err != nil || string(data) != "x" {
		t.Errorf("read back: %q, %v", data, err)
	}
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "site", "link")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"../escape.html", "/abs.html", "a/../b.html", "", ".", "a//b", "link/x.html"} {
		if err := out.WriteFile(name, []byte("x")); err == nil {
			t.Errorf("WriteFile(%q) succeeded", name)
		}
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("a file was written outside the output folder")
	}
	if _, err := os.Stat(filepath.Join(dir, "escape.html")); err == nil {
		t.Errorf("../escape.html was written")
	}
}
