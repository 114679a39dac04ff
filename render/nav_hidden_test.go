package render

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"lectern.dev/lectern/render/links"
)

// hiddenSite (testdata/hidden-pages.txtar) has hidden pages: one between
// two pages of a group, one alone in a nested group, and one in another
// tab. render/layout's tests read it too.
var hiddenSite = func() string {
	data, err := os.ReadFile("testdata/hidden-pages.txtar")
	if err != nil {
		panic(err)
	}
	return string(data)
}()

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

func pathDir(name string) string {
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		return name[:i]
	}
	return "."
}
