package render

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// navRulesSite is testdata/nav-rules.txtar.
var navRulesSite = func() string {
	data, err := os.ReadFile("testdata/nav-rules.txtar")
	if err != nil {
		panic(err)
	}
	return string(data)
}()

// searchPaths returns the page paths of the site's search index.
func searchPaths(t *testing.T, out *memOutput) []string {
	t.Helper()
	var paths []string
	for _, d := range searchDocs(t, out) {
		paths = append(paths, d.Path)
	}
	return paths
}

// sitemapPaths returns the URL paths the sitemap lists, under /docs.
func sitemapPaths(t *testing.T, out *memOutput) []string {
	t.Helper()
	var paths []string
	for _, m := range regexp.MustCompile(`<loc>https://docs\.example\.com/docs/?([^<]*)</loc>`).FindAllStringSubmatch(out.get(t, "sitemap.xml"), -1) {
		paths = append(paths, m[1])
	}
	return paths
}

// The site's root is the first page of the navigation, and the pages the
// navigation generates from an OpenAPI document come at their place in it.
func TestNavRootIsFirstPage(t *testing.T) {
	t.Parallel()
	_, out := build(t, navRulesSite, Options{BasePath: "/docs", SiteURL: "https://docs.example.com/docs"})
	home := out.get(t, "index.html")
	if !strings.Contains(home, `<h1 class="lc-title">Introduction</h1>`) {
		t.Errorf("index.html is not the first page of the navigation:\n%.600s", home)
	}
	site := sitemapPaths(t, out)
	if len(site) == 0 || site[0] != "intro" || !strings.HasPrefix(site[len(site)-1], "api-reference/") {
		t.Errorf("sitemap order: %v", site)
	}
	if s := searchPaths(t, out); len(s) == 0 || s[0] != "intro" {
		t.Errorf("search order: %v", s)
	}
}

// Every page of the repository is built; those the navigation does not list
// are in no sidebar, search index or sitemap, and links and redirects to
// them work. Front matter "hidden" adds a noindex tag; hidden groups keep
// their pages out of search unless "searchable".
func TestNavUnlistedPages(t *testing.T) {
	t.Parallel()
	res, out := build(t, navRulesSite, Options{BasePath: "/docs", SiteURL: "https://docs.example.com/docs"})
	for _, w := range res.Warnings {
		if strings.Contains(w.Message, "legal/privacy") || strings.Contains(w.Message, "secret") || strings.Contains(w.Message, "setup.py") {
			t.Errorf("unexpected warning: %s", w)
		}
	}
	privacy := out.get(t, "legal/privacy.html")
	if !strings.Contains(privacy, "We keep nothing.") || strings.Contains(privacy, `name="robots"`) {
		t.Errorf("legal/privacy.html (unlisted) is not built as a page without noindex:\n%.400s", privacy)
	}
	// Its sidebar is that of the section of its nearest listed neighbour
	// (the root folder: Guides), and no sidebar lists it.
	if !strings.Contains(privacy, `>Introduction</a>`) {
		t.Errorf("legal/privacy.html shows no sidebar")
	}
	for name, data := range out.files {
		if strings.HasSuffix(name, ".html") && strings.Contains(sidebarRE.FindString(string(data)), "Privacy") {
			t.Errorf("%s lists the unlisted page in its sidebar", name)
		}
	}
	if !strings.Contains(out.get(t, "intro.html"), `href="/docs/legal/privacy"`) {
		t.Errorf("intro.html does not link to the unlisted page")
	}
	if r := out.get(t, "privacy.html"); !strings.Contains(r, `url=/docs/legal/privacy`) {
		t.Errorf("the redirect to the unlisted page is not written: %s", r)
	}
	if !strings.Contains(out.get(t, "secret.html"), `<meta name="robots" content="noindex">`) {
		t.Errorf("a hidden page has no noindex tag")
	}
	if strings.Contains(out.get(t, "internal/notes.html"), `name="robots"`) {
		t.Errorf("a page of a hidden group has a noindex tag")
	}
	search, site := strings.Join(searchPaths(t, out), " "), strings.Join(sitemapPaths(t, out), " ")
	for _, p := range []string{"legal/privacy", "secret", "internal/notes", "npm"} {
		if strings.Contains(" "+search+" ", " "+p+" ") || strings.Contains(" "+site+" ", " "+p+" ") {
			t.Errorf("%s is in search (%s) or the sitemap (%s)", p, search, site)
		}
	}
	// noindex: in neither; "searchable" on a hidden group: in both.
	if strings.Contains(search, "legacy") || strings.Contains(site, "legacy") {
		t.Errorf("a noindex page is in search or the sitemap")
	}
	if !strings.Contains(search, "internal/found") || !strings.Contains(site, "internal/found") {
		t.Errorf("a page of a searchable hidden group is not in search (%s) and the sitemap (%s)", search, site)
	}
	// seo.indexing "all" puts hidden and unlisted pages back.
	all := strings.Replace(navRulesSite, `{"name": "Rules",`, `{"name": "Rules", "seo": {"indexing": "all"},`, 1)
	_, out = build(t, all, Options{BasePath: "/docs", SiteURL: "https://docs.example.com/docs"})
	search, site = strings.Join(searchPaths(t, out), " "), strings.Join(sitemapPaths(t, out), " ")
	for _, p := range []string{"legal/privacy", "secret", "internal/notes"} {
		if !strings.Contains(search, p) || !strings.Contains(site, p) {
			t.Errorf("with seo.indexing all, %s is not in search (%s) or the sitemap (%s)", p, search, site)
		}
	}
	if strings.Contains(out.get(t, "secret.html"), `name="robots"`) {
		t.Errorf("with seo.indexing all, a hidden page has a noindex tag")
	}
}

// Files about the repository, snippets, ignored folders and files of types a
// site does not serve are not published, unless a page links to them.
func TestNavPublishedFiles(t *testing.T) {
	t.Parallel()
	res, out := build(t, navRulesSite, Options{})
	for _, f := range []string{"README.html", "AGENTS.html", "snippets/part.html", "drafts/wip.html", "node_modules/pkg/index.html",
		"Makefile", "scripts/other.py", "tests/fixture.sh"} {
		if out.has(f) {
			t.Errorf("%s is published", f)
		}
	}
	for _, f := range []string{"scripts/setup.py", "scripts/my tool.sh"} {
		if !out.has(f) {
			t.Errorf("%s, which a page links to, is not published", f)
		}
	}
	var draft bool
	for _, w := range res.Warnings {
		draft = draft || w.File == "intro.mdx" && strings.Contains(w.Message, `broken link "/drafts/wip"`)
	}
	if !draft {
		t.Errorf("a link to a page .mintignore leaves out is not reported: %v", res.Warnings)
	}
}

// A "url" page is a sidebar link elsewhere; groups with "expanded" are open
// on every page; tags show beside groups and pages; global anchors carry
// their icons; "hideFooterPagination" drops the pager.
func TestNavSidebarDetails(t *testing.T) {
	t.Parallel()
	for _, opts := range []Options{{BasePath: "/docs"}, {Export: true}} {
		_, out := build(t, navRulesSite, opts)
		intro := out.get(t, "intro.html")
		side := sidebarRE.FindString(intro)
		for _, want := range []string{
			`<a href="https://www.npmjs.com/package/example" rel="noopener">npm package</a>`,
			`Start <span class="lc-nav-tag">NEW</span>`,
			`Tagged <span class="lc-nav-tag">BETA</span>`,
			`Legacy <span class="lc-nav-tag">Deprecated</span>`,
			`<details open><summary>Advanced</summary>`,
			`<details><summary>Closed</summary>`,
		} {
			if !strings.Contains(side, want) {
				t.Errorf("export=%v: intro's sidebar lacks %s:\n%s", opts.Export, want, side)
			}
		}
		if !regexp.MustCompile(`<a href="https://example.com/blog" rel="noopener"><span class="lc-anchor-icon"><svg[^>]*data-icon="newspaper"`).MatchString(intro) {
			t.Errorf("export=%v: the global anchor has no icon", opts.Export)
		}
		// The pager skips the url page: intro's next page is "Tagged".
		if !regexp.MustCompile(`(?s)class="lc-pager-next"[^>]*>.*?Tagged`).MatchString(intro) {
			t.Errorf("export=%v: intro's next page is not Tagged:\n%s", opts.Export, regexp.MustCompile(`(?s)<nav class="lc-pager.*?</nav>`).FindString(intro))
		}
		if strings.Contains(out.get(t, "tagged.html"), "lc-pager-next") {
			t.Errorf("export=%v: hideFooterPagination left the pager", opts.Export)
		}
		if !strings.Contains(out.get(t, "_lectern/style.css"), ".lc-nav-list a[rel~=noopener]::after") {
			t.Errorf("export=%v: sidebar links to other hosts have no arrow", opts.Export)
		}
		if npm := out.get(t, "npm.html"); !strings.Contains(npm, `This page is at <a href="https://www.npmjs.com/package/example"`) {
			t.Errorf("export=%v: the url page's own page does not link to it", opts.Export)
		}
	}
}

// A "url" page whose address is not allowed or names nothing is reported
// with its own file, and links nowhere; an index page the navigation does
// not list is not built, with a warning saying what the root is.
func TestNavURLPageWarnings(t *testing.T) {
	t.Parallel()
	res, out := build(t, `-- docs.json --
{"name": "X", "navigation": {"pages": ["intro", "bad", "gone"]}}
-- intro.mdx --
# Intro
-- bad.mdx --
---
title: Bad
url: "javascript:alert(1)"
---
-- gone.mdx --
---
title: Gone
url: /nowhere
---
-- index.mdx --
# Not listed
`, Options{})
	want := map[string]string{
		"bad.mdx":   `url "javascript:alert(1)" removed`,
		"gone.mdx":  `url "/nowhere": broken link`,
		"index.mdx": "not built: the navigation does not list it, and the site's root is the navigation's first page (intro)",
	}
	for _, w := range res.Warnings {
		if m, ok := want[w.File]; ok && strings.Contains(w.Message, m) {
			delete(want, w.File)
		}
	}
	for f, m := range want {
		t.Errorf("no warning for %s: %s (warnings: %v)", f, m, res.Warnings)
	}
	side := sidebarRE.FindString(out.get(t, "intro.html"))
	if strings.Contains(side, "javascript:") || !strings.Contains(side, `<a href="#">Bad</a>`) {
		t.Errorf("the sidebar links the disallowed url page:\n%s", side)
	}
	if !strings.Contains(out.get(t, "index.html"), `<h1 class="lc-title">Intro</h1>`) {
		t.Errorf("the root is not the navigation's first page")
	}
}

// A page outside the navigation whose page file could not be written (a
// name of 255 bytes) is left out with a warning instead of failing the
// build.
func TestNavUnlistedLongName(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", 252) + ".md" // 255 bytes; its page would be 257
	res, out := build(t, "-- docs.json --\n{\"name\": \"X\", \"navigation\": {\"pages\": [\"index\"]}}\n-- index.mdx --\n# Home\n-- "+long+" --\n# Long\n", Options{})
	if out.has(strings.TrimSuffix(long, ".md") + ".html") {
		t.Errorf("the page of a 255-byte name was written")
	}
	var warned bool
	for _, w := range res.Warnings {
		warned = warned || w.File == long && strings.Contains(w.Message, "file name would be over 255 bytes")
	}
	if !warned {
		t.Errorf("no warning: %v", res.Warnings)
	}
}
