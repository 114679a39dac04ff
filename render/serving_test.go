package render

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"lectern.dev/lectern/render/features"
)

func TestServeHeaders(t *testing.T) {
	const page = "default-src 'self'"
	for _, c := range []struct{ name, ctype, wantType, wantCSP string }{
		{"index.html", "text/html; charset=utf-8", "text/html; charset=utf-8", page},
		{"guides/raw.htm", "text/html", "text/html", page},
		{"_lectern/site.js", "text/javascript; charset=utf-8", "text/javascript; charset=utf-8", features.FileCSP},
		{"_lectern/custom/widget.js", "text/javascript; charset=utf-8", "text/javascript; charset=utf-8", features.FileCSP},
		{"evil.js", "text/javascript; charset=utf-8", "text/plain; charset=utf-8", features.FileCSP},
		{"lib/evil.mjs", "application/javascript", "text/plain; charset=utf-8", features.FileCSP},
		{"/../_lectern/../evil.js", "text/javascript", "text/plain; charset=utf-8", features.FileCSP},
		{"x.cjs", "Application/X-JavaScript", "text/plain; charset=utf-8", features.FileCSP},
		{"logo.svg", "image/svg+xml", "image/svg+xml", features.FileCSP},
		{"sitemap.xml", "application/xml", "application/xml", features.FileCSP},
		{"img.png", "image/png", "image/png", features.FileCSP},
		// A page's Markdown is text, whatever the system's table of types says.
		{"guides/x.md", "application/octet-stream", features.MarkdownType, features.FileCSP},
		{"index.md", "", features.MarkdownType, features.FileCSP},
		{"index.md", "text/markdown; charset=utf-8", "text/markdown; charset=utf-8", features.FileCSP},
		{"llms.txt", "text/plain; charset=utf-8", "text/plain; charset=utf-8", features.FileCSP},
	} {
		gotType, gotCSP := features.ServeHeaders(c.name, c.ctype, page)
		if gotType != c.wantType || gotCSP != c.wantCSP {
			t.Errorf("ServeHeaders(%q, %q) = %q, %q; want %q, %q", c.name, c.ctype, gotType, gotCSP, c.wantType, c.wantCSP)
		}
	}
	for name, want := range map[string]bool{"guides/x.md": true, "llms.txt": true, "llms-full.txt": true, "guides/x.html": true,
		"guides/llms.txt": false, "images/a.png": false, features.SearchChunkDir + "x.js": false} {
		if got := features.Revalidated(name); got != want {
			t.Errorf("Revalidated(%q) = %v, want %v", name, got, want)
		}
	}
	if !strings.HasPrefix(features.FileCSP, "sandbox;") || !strings.Contains(features.FileCSP, "default-src 'none'") {
		t.Errorf("FileCSP = %q: it must sandbox the file and allow no script", features.FileCSP)
	}
}

func TestExportCarriesPolicy(t *testing.T) {
	src := fstest.MapFS{
		"docs.json": {Data: []byte(`{"name": "P", "navigation": {"pages": ["index"]}, "redirects": [{"source": "/old", "destination": "/"}]}`)},
		"index.mdx": {Data: []byte("# Hi\n")},
		"raw.html":  {Data: []byte("<!doctype html><script>window.__pwned=1</script>")},
	}
	out := newMemOutput()
	if _, err := Build(context.Background(), src, out, Options{Export: true}); err != nil {
		t.Fatal(err)
	}
	pageMeta := features.CSPMetaTag(features.Default().MetaContentSecurityPolicy())
	for _, name := range []string{"index.html", "404.html", "old.html"} {
		if got := out.get(t, name); !strings.Contains(got, pageMeta) {
			t.Errorf("%s has no %s", name, pageMeta)
		}
	}
	if got := out.get(t, "raw.html"); !strings.HasPrefix(got, features.CSPMetaTag(features.RawHTMLCSP)+"\n") {
		t.Errorf("raw.html does not start with its policy:\n%s", got)
	}
	if strings.Contains(pageMeta, "frame-ancestors") {
		t.Errorf("the meta policy has frame-ancestors, which browsers ignore there: %s", pageMeta)
	}

	// The live form has no meta: its server sends the header.
	live := newMemOutput()
	if _, err := Build(context.Background(), src, live, Options{}); err != nil {
		t.Fatal(err)
	}
	if got := live.get(t, "index.html"); strings.Contains(got, "http-equiv=\"Content-Security-Policy\"") {
		t.Errorf("a live page carries a meta policy")
	}
	if got := live.get(t, "raw.html"); got != "<!doctype html><script>window.__pwned=1</script>" {
		t.Errorf("live raw.html changed: %s", got)
	}

	// A self-hosted site's policy replaces the page's.
	f := features.Site{Search: true, Assistant: true, AssistantURL: "https://ai.example.test/ask"}
	got, _, err := f.Transform("index.html", []byte(out.get(t, "index.html")))
	if err != nil {
		t.Fatal(err)
	}
	want := features.CSPMetaTag(f.MetaContentSecurityPolicy())
	if !strings.Contains(string(got), want) || strings.Contains(string(got), pageMeta) || !strings.Contains(want, "https://ai.example.test") {
		t.Errorf("Transform did not write the site's policy %s", want)
	}
	raw, _, _ := f.Transform("raw.html", []byte(out.get(t, "raw.html")))
	if !strings.HasPrefix(string(raw), features.CSPMetaTag(features.RawHTMLCSP)) {
		t.Errorf("Transform changed the policy of a raw HTML file: %s", raw)
	}
}

func TestCustomScripts(t *testing.T) {
	src := fstest.MapFS{
		"docs.json":               {Data: []byte(`{"name": "P", "navigation": {"pages": ["index", "guides/x"]}}`)},
		"index.mdx":               {Data: []byte("# Hi\n")},
		"guides/x.mdx":            {Data: []byte("# X\n")},
		"widget.js":               {Data: []byte("window.widget = 1\n")},
		"scripts/b.js":            {Data: []byte("window.b = 1\n")},
		"node_modules/dep/dep.js": {Data: []byte("dep\n")},
	}
	for _, on := range []bool{false, true} {
		for _, export := range []bool{false, true} {
			out := newMemOutput()
			if _, err := Build(context.Background(), src, out, Options{CustomScripts: on, Export: export}); err != nil {
				t.Fatal(err)
			}
			page := out.get(t, "guides/x.html")
			want := []string{`<script src="/_lectern/custom/scripts/b.js" defer></script>`, `<script src="/_lectern/custom/widget.js" defer></script>`}
			if export {
				want = []string{`<script src="../_lectern/custom/scripts/b.js" defer></script>`, `<script src="../_lectern/custom/widget.js" defer></script>`}
			}
			for _, w := range want {
				if strings.Contains(page, w) != on {
					t.Errorf("custom scripts %v, export %v: page has %s: %v", on, export, w, !on)
				}
			}
			if on && strings.Index(page, want[0]) > strings.Index(page, want[1]) {
				t.Errorf("custom scripts not in the order of their paths")
			}
			if out.has("_lectern/custom/widget.js") != on || out.has("_lectern/custom/node_modules/dep/dep.js") || strings.Contains(page, "node_modules") {
				t.Errorf("custom scripts %v: copies %v", on, slices.Sorted(maps.Keys(out.files)))
			}
			if !out.has("widget.js") {
				t.Errorf("the repository's widget.js is not copied as a file")
			}
		}
	}
}
