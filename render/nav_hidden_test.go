package render

import (
	"regexp"
	"strings"
	"testing"

	"lectern.dev/lectern/render/config"
	"lectern.dev/lectern/render/diag"
	"lectern.dev/lectern/render/links"
	"lectern.dev/lectern/render/mdx"
	"lectern.dev/lectern/render/page"
)

// hiddenSite has hidden pages: one between two pages of a group, one
// alone in a nested group, and one in another tab.
const hiddenSite = `
-- docs.json --
{"navigation": {"tabs": [
  {"tab": "Guides", "groups": [
    {"group": "Start", "pages": ["index", "secret", "b", {"group": "Inner", "pages": ["deep/only-hidden"]}]}
  ]},
  {"tab": "API", "groups": [{"group": "Calls", "pages": ["api/list", "api/internal"]}]}
]}}
-- index.mdx --
# Home
-- secret.mdx --
---
title: Secret
hidden: true
---
Not listed.
-- b.mdx --
# B
-- deep/only-hidden.mdx --
---
title: Only hidden
sidebarTitle: Lonely
hidden: true
---
x
-- api/list.mdx --
# List
-- api/internal.mdx --
---
title: Internal
hidden: true
---
y
`

var sidebarRE = regexp.MustCompile(`(?s)<nav class="lc-sidebar".*?</nav>\n<main`)

func TestHiddenPageSidebar(t *testing.T) {
	t.Parallel()
	for _, opts := range []Options{{BasePath: "/docs"}, {Export: true}} {
		_, out := build(t, hiddenSite, opts)
		side := func(name string) string { return sidebarRE.FindString(out.get(t, name)) }
		link := func(from, page string) string {
			u := opts.BasePath + "/" + strings.TrimSuffix(page, "index")
			if opts.Export {
				u = links.RelPath(pathDir(from), page+".html")
			}
			return `<a href="` + u + `"`
		}
		// Other pages do not list hidden pages.
		for _, name := range []string{"index.html", "b.html"} {
			sb := side(name)
			for _, hidden := range []string{"secret", "deep/only-hidden", "Lonely", "Inner"} {
				if strings.Contains(sb, hidden) {
					t.Errorf("export=%v: %s sidebar shows %s:\n%s", opts.Export, name, hidden, sb)
				}
			}
		}
		if strings.Contains(side("api/list.html"), "Internal") {
			t.Errorf("export=%v: api/list.html sidebar shows a hidden page", opts.Export)
		}
		// A hidden page is in its own sidebar, where the navigation has it,
		// marked current.
		sb := side("secret.html")
		home, secret, b := strings.Index(sb, link("secret.html", "index")+">Home</a>"),
			strings.Index(sb, link("secret.html", "secret")+` class="lc-active" aria-current="page">Secret</a>`),
			strings.Index(sb, link("secret.html", "b")+">B</a>")
		if home < 0 || secret < home || b < secret {
			t.Errorf("export=%v: secret.html sidebar (home %d, secret %d, b %d):\n%s", opts.Export, home, secret, b, sb)
		}
		sb = side("deep/only-hidden.html")
		if !strings.Contains(sb, `<details open><summary>Inner</summary><ul class="lc-nav-list"><li>`+link("deep/only-hidden.html", "deep/only-hidden")+` class="lc-active" aria-current="page">Lonely</a>`) ||
			strings.Contains(sb, ">Secret<") {
			t.Errorf("export=%v: deep/only-hidden.html sidebar:\n%s", opts.Export, sb)
		}
		if sb := side("api/internal.html"); !strings.Contains(sb, `aria-current="page">Internal</a>`) || strings.Contains(sb, "Home") {
			t.Errorf("export=%v: api/internal.html sidebar:\n%s", opts.Export, sb)
		}
		// Without the hidden page, its sidebar is the group's shared one.
		strip := strings.NewReplacer(` class="lc-active" aria-current="page"`, "", "<details open>", "<details>")
		withoutSecret := regexp.MustCompile(`<li><a href="[^"]*secret[^"]*">Secret</a></li>`).ReplaceAllString(strip.Replace(side("secret.html")), "")
		if withoutSecret != strip.Replace(side("b.html")) {
			t.Errorf("export=%v: secret.html sidebar differs from b.html's beyond the hidden page:\n%s\n%s", opts.Export, withoutSecret, strip.Replace(side("b.html")))
		}
	}
}

// TestHiddenPageSidebarNotShared checks that the sidebar cache holds one
// sidebar per section: the variants of hidden pages are not kept in it.
func TestHiddenPageSidebarNotShared(t *testing.T) {
	t.Parallel()
	s := &site{src: siteFS(t, hiddenSite), opts: Options{}, out: newMemOutput(), w: &diag.Warner{},
		pages: map[string]*page.Page{}, entries: map[string]config.NavEntry{}, files: map[string]bool{}, mods: map[string]*mdx.Module{}}
	if err := s.load(); err != nil {
		t.Fatal(err)
	}
	for _, p := range s.order {
		s.renderPage(p, p.Path+".html")
	}
	if n := len(s.theme.sidebars.m); n != 2 {
		t.Errorf("%d sidebars rendered for the cache, want 2 (one per tab)", n)
	}
	for key, sb := range s.theme.sidebars.m {
		if strings.Contains(sb.html, "secret") || strings.Contains(sb.html, "internal") || strings.Contains(sb.html, "only-hidden") {
			t.Errorf("the shared sidebar of %s lists a hidden page:\n%s", key.root.Label, sb.html)
		}
	}
}

func pathDir(name string) string {
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		return name[:i]
	}
	return "."
}
