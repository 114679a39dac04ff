package render

import (
	"fmt"
	"strings"
	"testing"
)

func TestRedirectPages(t *testing.T) {
	t.Parallel()
	cases := []struct {
		opts  Options
		files map[string]string // output file → expected target
	}{
		{Options{BasePath: "/docs"}, map[string]string{
			"old-setup.html":              "/docs/guides/setup",
			"old-setup/index.html":        "/docs/guides/setup",
			"legacy/deep/page.html":       "/docs/guides/deep/inner#part",
			"legacy/deep/page/index.html": "/docs/guides/deep/inner#part",
		}},
		{Options{Export: true}, map[string]string{
			"old-setup.html":        "guides/setup.html",
			"legacy/deep/page.html": "../../guides/deep/inner.html#part",
		}},
	}
	for _, c := range cases {
		res, out := build(t, themeSite, c.opts)
		for name, target := range c.files {
			page := out.get(t, name)
			for _, want := range []string{
				`<meta http-equiv="refresh" content="0; url=` + target + `">`,
				`<link rel="canonical" href="` + target + `">`,
				`<a href="` + target + `">`,
			} {
				if !strings.Contains(page, want) {
					t.Errorf("export=%v: %s lacks %s:\n%s", c.opts.Export, name, want, page)
				}
			}
		}
		if c.opts.Export && (out.has("old-setup/index.html") || out.has("legacy/deep/page/index.html")) {
			t.Errorf("export form has folder index redirects")
		}
		for _, name := range []string{"blog.html", "gone.html", "gone/index.html"} {
			if out.has(name) {
				t.Errorf("export=%v: unexpected redirect page %s", c.opts.Export, name)
			}
		}
		for name := range out.files {
			if strings.Contains(name, ":") || strings.Contains(name, "*") {
				t.Errorf("export=%v: wildcard redirect written as %s", c.opts.Export, name)
			}
		}
		var missing bool
		for _, w := range res.Warnings {
			switch {
			case strings.Contains(w.Message, `redirect destination "/nowhere"`) && w.File == "docs.json" && w.Line > 0:
				missing = true
			default:
				t.Errorf("unexpected warning %v", w)
			}
		}
		if !missing {
			t.Errorf("export=%v: warnings %v lack the missing destination", c.opts.Export, res.Warnings)
		}
		// The wildcard is left to 404.html's script.
		if !strings.Contains(out.get(t, "_lectern/redirects.js"), `"rules":[{"s":[{"l":"blog"},{"p":"slug","m":"*"}],"d":[{"l":"https:"},{},{"l":"chrome.test"},{"l":"blog"},{"p":"slug"}],"x":true}]`) {
			t.Errorf("export=%v: _lectern/redirects.js lacks the wildcard rule:\n%s", c.opts.Export, out.get(t, "_lectern/redirects.js"))
		}
		wantTag := out.named(`<script src="` + c.opts.BasePath + `/_lectern/redirects.js"></script>`)
		if !strings.Contains(out.get(t, "404.html"), wantTag) {
			t.Errorf("export=%v: 404.html lacks %s", c.opts.Export, wantTag)
		}
		// Every link of the site, redirect pages included, leads somewhere.
		for _, l := range internalLinks(t, out.files, c.opts) {
			if !out.has(l.target) {
				t.Errorf("%s: link %q → %s does not exist", l.from, l.href, l.target)
			}
		}
	}
}

func TestRedirectCanonicalWithSiteURL(t *testing.T) {
	t.Parallel()
	_, out := build(t, themeSite, Options{Export: true, SiteURL: "https://docs.chrome.test"})
	page := out.get(t, "old-setup.html")
	if !strings.Contains(page, `<link rel="canonical" href="https://docs.chrome.test/guides/setup">`) ||
		!strings.Contains(page, `url=guides/setup.html"`) {
		t.Errorf("old-setup.html:\n%s", page)
	}
}

func TestRedirectDoesNotShadowPages(t *testing.T) {
	t.Parallel()
	const site = `
-- docs.json --
{"navigation": {"pages": ["index", "a"]}, "redirects": [
  {"source": "/a", "destination": "/"},
  {"source": "/img.png", "destination": "/a"},
  {"source": "/b/", "destination": "/a"},
  {"source": "/c", "destination": "https://elsewhere.test/c"}
]}
-- index.mdx --
# Home
-- a.mdx --
# A
-- img.png --
PNG
`
	_, out := build(t, site, Options{})
	if !strings.Contains(out.get(t, "a.html"), `<h1 class="lc-title">A</h1>`) {
		t.Errorf("a redirect replaced the page a")
	}
	if out.get(t, "img.png") != "PNG\n" {
		t.Errorf("a redirect replaced a file")
	}
	if !strings.Contains(out.get(t, "b.html"), `url=/a"`) || !strings.Contains(out.get(t, "c/index.html"), `url=https://elsewhere.test/c"`) {
		t.Errorf("redirect pages b or c wrong")
	}
}

// TestRedirectIntoBuildFolderRefused checks that no redirect page is
// written in the folder of the build's own files, in any case (a file
// system that ignores case would put _LECTERN/x.html over _lectern/'s).
func TestRedirectIntoBuildFolderRefused(t *testing.T) {
	t.Parallel()
	res, out := build(t, `
-- docs.json --
{"navigation": {"pages": ["index"]}, "redirects": [{"source": "/_LECTERN/site", "destination": "/"}, {"source": "/_lectern", "destination": "/"}]}
-- index.mdx --
# Home
`, Options{})
	for name := range out.files {
		if strings.EqualFold(name, "_lectern/site.html") || strings.EqualFold(name, "_lectern.html") {
			t.Errorf("a redirect page %s was written in the build's folder", name)
		}
	}
	if n := strings.Count(fmt.Sprint(res.Warnings), "is not a page path"); n != 2 {
		t.Errorf("%d warnings for the two redirects, want 2: %v", n, res.Warnings)
	}
}
