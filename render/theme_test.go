package render

import (
	"regexp"
	"strings"
	"testing"

	"lectern.dev/lectern/render/layout"
	"lectern.dev/lectern/render/search"
)

// themeSite has every piece of chrome the theme shows: navbar links and
// button, logo variants with a link, favicon, socials, colours, tabs, a
// version selector, nested groups, redirects.
const themeSite = `
-- docs.json --
{
  "name": "Chrome Docs",
  "colors": {"primary": "#0d9373", "light": "#55d799", "dark": "#0a7a5f"},
  "logo": {"light": "/logo/light.svg", "dark": "/logo/dark.svg", "href": "https://chrome.test"},
  "favicon": "/favicon.svg",
  "navbar": {
    "links": [{"label": "Support", "href": "mailto:help@chrome.test"}, {"label": "Blog", "href": "https://chrome.test/blog"}],
    "primary": {"type": "button", "label": "Dashboard", "href": "https://app.chrome.test"}
  },
  "footer": {"socials": {"github": "https://github.com/chrome", "x": "https://x.com/chrome"}},
  "styling": {"eyebrows": "breadcrumbs"},
  "navigation": {
    "versions": [
      {"version": "v2", "tabs": [
        {"tab": "Guides", "groups": [
          {"group": "Start", "pages": ["index", "guides/setup", {"group": "Deep", "pages": [{"group": "Deeper", "pages": ["guides/deep/inner"]}]}]}
        ]},
        {"tab": "API", "groups": [{"group": "Endpoints", "pages": ["api/list"]}]}
      ]},
      {"version": "v1", "groups": [{"group": "Old", "pages": ["v1/home"]}]}
    ]
  },
  "redirects": [
    {"source": "/old-setup", "destination": "/guides/setup", "permanent": true},
    {"source": "/legacy/deep/page", "destination": "/guides/deep/inner#part"},
    {"source": "/blog/:slug*", "destination": "https://chrome.test/blog/:slug*"},
    {"source": "/gone", "destination": "/nowhere"}
  ]
}
-- index.mdx --
---
title: Home
---
Welcome.
-- guides/setup.mdx --
---
title: Setup
description: Install it
---
## Install

<Tabs>
  <Tab title="npm">Use npm.</Tab>
  <Tab title="yarn">Use yarn.</Tab>
</Tabs>

### Verify

Run it. Zebraword appears here.
-- guides/deep/inner.mdx --
---
title: Inner
---
## Part
Deep text.
-- api/list.mdx --
---
title: List things
---
Lists.
-- v1/home.mdx --
---
title: Old home
---
Old.
-- logo/light.svg --
<svg/>
-- logo/dark.svg --
<svg/>
-- favicon.svg --
<svg/>
`

var themePages = []string{"index", "guides/setup", "guides/deep/inner", "api/list", "v1/home"}

func TestThemeChrome(t *testing.T) {
	t.Parallel()
	for _, export := range []bool{false, true} {
		opts := Options{Export: export}
		if !export {
			opts.BasePath = "/docs"
		}
		_, out := build(t, themeSite, opts)
		u := func(live, exp string) string {
			if export {
				return exp
			}
			return live
		}
		setup := out.get(t, "guides/setup.html")
		for _, want := range []string{
			// head: theme-init.js blocking, before the stylesheet applies
			`<script src="` + u("/docs/_lectern/theme-init.js", "../_lectern/theme-init.js") + `"></script>`,
			`<link rel="icon" href="` + u("/docs/favicon.svg", "../favicon.svg") + `">`,
			// header
			`<a class="lc-brand" href="https://chrome.test">`,
			`<img class="lc-logo lc-logo-light" src="` + u("/docs/logo/light.svg", "../logo/light.svg") + `"`,
			`<img class="lc-logo lc-logo-dark" src="` + u("/docs/logo/dark.svg", "../logo/dark.svg") + `"`,
			`<a href="mailto:help@chrome.test" rel="noopener">Support</a>`,
			`<a href="https://chrome.test/blog" rel="noopener">Blog</a>`,
			`<a class="lc-navbar-primary" id="topbar-cta-button" href="https://app.chrome.test" rel="noopener">Dashboard</a>`,
			`<button class="lc-search-button"`,
			`<button class="lc-theme-toggle"`,
			`<input id="lc-search-input"`,
			`data-search-index="` + u("/docs/_lectern/search/meta.js", "../_lectern/search/meta.js") + `"`,
			`data-root="` + u("/docs/", "../") + `"`,
			// tabs of the current version, selector between versions
			`<nav class="lc-tabs-nav" aria-label="Sections">`,
			`<a href="` + u("/docs/", "../index.html") + `" class="lc-active" aria-current="true">Guides</a>`,
			`<a href="` + u("/docs/api/list", "../api/list.html") + `">API</a>`,
			`<details class="lc-selector lc-selector-version"><summary><span class="lc-selector-kind">version</span> v2</summary>`,
			`<a href="` + u("/docs/v1/home", "../v1/home.html") + `">v1</a>`,
			// sidebar: the current tab's groups, current page active
			`<a href="` + u("/docs/guides/setup", "setup.html") + `" class="lc-active" aria-current="page">Setup</a>`,
			`<li class="lc-nav-group"><details><summary>Deep</summary>`,
			// breadcrumbs (styling.eyebrows): the divisions and groups, not the page
			`<nav class="lc-breadcrumbs" aria-label="Breadcrumbs"><ol class="breadcrumb-list"><li class="breadcrumb-item"><a href="` + u("/docs/", "../index.html") + `">v2</a></li><li class="breadcrumb-item"><a href="` + u("/docs/", "../index.html") + `">Guides</a></li><li class="breadcrumb-item"><span>Start</span></li></ol></nav>`,
			// prev/next
			`<a class="lc-pager-prev" href="` + u("/docs/", "../index.html") + `" rel="prev"><span>Previous</span>Home</a>`,
			`<a class="lc-pager-next" href="` + u("/docs/guides/deep/inner", "deep/inner.html") + `" rel="next"><span>Next</span>Inner</a>`,
			// table of contents
			`<li class="lc-toc-h2"><a href="#install">Install</a></li>`,
			`<li class="lc-toc-h3"><a href="#verify">Verify</a></li>`,
			// tabs component
			`<div class="lc-tabs"><section class="lc-tab"><div class="lc-tab-title">npm</div>`,
			// footer socials
			`<a class="lc-social lc-social-github" href="https://github.com/chrome" aria-label="GitHub" title="GitHub" rel="noopener"><svg class="lc-icon" data-icon="github"`,
			`<a class="lc-social lc-social-x" href="https://x.com/chrome" aria-label="X" title="X" rel="noopener"><svg class="lc-icon" data-icon="x-twitter"`,
		} {
			if want = out.named(want); !strings.Contains(setup, want) {
				t.Errorf("export=%v: guides/setup.html lacks %s", export, want)
			}
		}
		if strings.Index(setup, "theme-init.js") > strings.Index(setup, "</head>") {
			t.Errorf("export=%v: theme-init.js is not in <head>", export)
		}
		if strings.Contains(setup, "<script>") || strings.Contains(setup, " onclick=") {
			t.Errorf("export=%v: inline script in a page", export)
		}
		// Nested groups open around the current page only.
		inner := out.get(t, "guides/deep/inner.html")
		for _, want := range []string{
			`<li class="lc-nav-group"><details open><summary>Deep</summary><ul class="lc-nav-list"><li class="lc-nav-group"><details open><summary>Deeper</summary>`,
			`class="lc-active" aria-current="page">Inner</a>`,
			`<li class="breadcrumb-item"><span>Start</span></li><li class="breadcrumb-item"><span>Deep</span></li><li class="breadcrumb-item"><span>Deeper</span></li></ol></nav>`,
		} {
			if !strings.Contains(inner, want) {
				t.Errorf("export=%v: guides/deep/inner.html lacks %s", export, want)
			}
		}
		if strings.Count(inner, `aria-current="page"`) != 1 { // the sidebar's link
			t.Errorf("export=%v: inner.html marks %d current items", export, strings.Count(inner, `aria-current="page"`))
		}
		// The other tab's sidebar and the version without tabs.
		api := out.get(t, "api/list.html")
		if !strings.Contains(api, `<p class="lc-nav-heading">Endpoints</p>`) || strings.Contains(api, `<p class="lc-nav-heading">Start</p>`) {
			t.Errorf("export=%v: api/list.html does not show the API tab's groups", export)
		}
		v1 := out.get(t, "v1/home.html")
		if !strings.Contains(v1, `<p class="lc-nav-heading">Old</p>`) || strings.Contains(v1, `lc-tabs-nav`) {
			t.Errorf("export=%v: v1/home.html sidebar or tabs wrong", export)
		}
		for _, name := range []string{"_lectern/theme-init.js", "_lectern/site.js", "_lectern/style.css"} {
			if !out.has(name) {
				t.Errorf("export=%v: missing %s", export, name)
			}
		}
		checkNoExternalRefs(t, out.files)
	}
}

func TestThemeSidebarSharedAcrossPages(t *testing.T) {
	t.Parallel()
	_, out := build(t, themeSite, Options{})
	re := regexp.MustCompile(`(?s)<nav class="lc-sidebar".*?</nav>\n<main`)
	strip := strings.NewReplacer(` class="lc-active" aria-current="page"`, "", "<details open>", "<details>")
	a := strip.Replace(re.FindString(out.get(t, "index.html")))
	b := strip.Replace(re.FindString(out.get(t, "guides/deep/inner.html")))
	if a == "" || a != b {
		t.Errorf("the sidebar of two pages of one section differs beyond the current page:\n%s\n%s", a, b)
	}
}

func TestThemeColors(t *testing.T) {
	t.Parallel()
	res, out := build(t, themeSite, Options{})
	css := out.get(t, "_lectern/style.css")
	for _, want := range []string{"--lc-primary: #0d9373", "--lc-primary-light: #55d799", "--lc-primary-dark: #0a7a5f",
		`:root[data-theme="dark"]`, "prefers-color-scheme: dark", ".lc-search-result", ".lc-tab-button"} {
		if !strings.Contains(css, want) {
			t.Errorf("style.css lacks %s", want)
		}
	}
	if !strings.Contains(out.get(t, "index.html"), `<meta name="theme-color" content="#0d9373">`) {
		t.Errorf("theme-color is not the primary colour")
	}
	for _, w := range res.Warnings {
		if strings.Contains(w.Message, "colors.") {
			t.Errorf("unexpected warning %v", w)
		}
	}

	const bad = `
-- docs.json --
{"colors": {"primary": "red; } body { display: none", "light": "#fff"}, "navigation": {"pages": ["index"]}}
-- index.mdx --
# Hi
`
	res, out = build(t, bad, Options{})
	css = out.get(t, "_lectern/style.css")
	if !strings.Contains(css, "--lc-primary: "+layout.DefaultPrimary+";") || strings.Contains(css, "display: none;") && strings.Contains(css, "red;") {
		t.Errorf("an unsafe colour reached the CSS:\n%s", css[:200])
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0].Message, "colors.primary") {
		t.Errorf("warnings = %v, want one about colors.primary", res.Warnings)
	}
}

func TestThemeFiles(t *testing.T) {
	t.Parallel()
	_, out := build(t, themeSite, Options{})
	init := out.get(t, "_lectern/theme-init.js")
	for _, want := range []string{"localStorage", "data-theme", "try"} {
		if !strings.Contains(init, want) {
			t.Errorf("theme-init.js lacks %s", want)
		}
	}
	js := out.get(t, "_lectern/site.js")
	for _, want := range []string{".lc-copy", "Copied", "lc-tab-button", "lc-toc", "lc-theme-toggle", "lectern-theme"} {
		if !strings.Contains(js, want) {
			t.Errorf("site.js lacks %s", want)
		}
	}
	search := out.get(t, "_lectern/search.js")
	for _, want := range []string{".lc-search-button", "lc-search-input", "LECTERN_SEARCH", "lecternStem", "lecternUnsnap", "lc-search-result",
		"ArrowDown", "Escape", `"/"`, "metaKey"} {
		if !strings.Contains(search, want) {
			t.Errorf("search.js lacks %s", want)
		}
	}
	for name, data := range map[string]string{"site.js": js, "search.js": search} {
		if strings.Contains(data, "fetch(") {
			t.Errorf("%s uses fetch(), which fails from file://", name)
		}
	}
}

func TestSearchIndexFiles(t *testing.T) {
	t.Parallel()
	for _, export := range []bool{false, true} {
		opts := Options{Export: export}
		if !export {
			opts.BasePath = "/docs"
		}
		_, out := build(t, themeSite, opts)
		for name, data := range out.files {
			if !strings.HasPrefix(name, search.Dir) {
				continue
			}
			// Scripts, which load from file:// where fetch() fails.
			if !strings.HasPrefix(string(data), `LECTERN_SEARCH("`) || !strings.HasSuffix(string(data), "\");\n") {
				t.Errorf("%s is not a search index script: %.60s", name, data)
			}
		}
		docs := searchDocs(t, out)
		if len(docs) != len(themePages) {
			t.Fatalf("index has %d pages, want %d", len(docs), len(themePages))
		}
		for i, d := range docs {
			if d.Path != themePages[i] || d.Title == "" {
				t.Errorf("page %d = %+v", i, d)
			}
			for _, s := range d.Sections {
				if strings.ContainsAny(s.Text, "<>") {
					t.Errorf("page %s keeps markup: %q", d.Path, s.Text)
				}
			}
		}
		setup := docs[1]
		wantURL := "/docs/guides/setup"
		if export {
			wantURL = "guides/setup.html"
		}
		if setup.URL != wantURL || len(setup.Sections) != 2 || setup.Sections[1].Anchor != "verify" {
			t.Errorf("setup page = %+v", setup)
		}
		if got := searchFor(t, out, "zebraword"); len(got) != 1 || !strings.HasPrefix(got[0], wantURL) {
			t.Errorf("zebraword: %v, want the setup page", got)
		}
	}
}

// TestSearchIndexKeepsAllText: a word at the end of a long page is found
// (the index once kept 3,000 characters a page).
func TestSearchIndexKeepsAllText(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("lorem ipsum dolor sit amet ", 20000)
	_, out := build(t, "-- docs.json --\n{\"navigation\": {\"pages\": [\"index\", \"other\"]}}\n-- index.mdx --\n# Long\n\n"+long+"\n\n## The end\n\nQuetzalword ends it.\n-- other.mdx --\n# Other\n\nNothing.\n", Options{})
	got := searchFor(t, out, "quetzalword")
	if len(got) != 1 || got[0] != "/#the-end" {
		t.Errorf("quetzalword: %v, want /#the-end", got)
	}
}
