package render

import (
	"fmt"
	"strings"
	"testing"

	"lectern.dev/lectern/render/config"
)

func TestExternalCSSURLs(t *testing.T) {
	t.Parallel()
	css := `/* @import "https://in.comment/x.css";
   still a comment */
@import url("https://fonts.test/css2?family=Inter:wght@0,400;1,700&display=swap");
@import 'https://single.test/a.css' screen;
@import local.css;
@import "//protocol.test/b.css";
.a { background: url(https://img.test/a.png) no-repeat, url('/local.png'); }
.b { background: url( "data:image/png;base64,AAAA" ); mask: url(#m); }
.c { src: url("HTTPS://upper.test/f.woff2") format("woff2"); }
`
	var got []string
	for _, u := range externalCSSURLs([]byte(css)) {
		got = append(got, fmt.Sprintf("%d %s %s", u.line, u.kind, u.url))
	}
	want := []string{
		"3 @import https://fonts.test/css2?family=Inter:wght@0,400;1,700&display=swap",
		"4 @import https://single.test/a.css",
		"6 @import //protocol.test/b.css",
		"7 url() https://img.test/a.png",
		"9 url() HTTPS://upper.test/f.woff2",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("externalCSSURLs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// FuzzExternalCSSURLs checks that any stylesheet is read without a
// failure, and that what it reports names another host, on a line of the
// stylesheet.
func FuzzExternalCSSURLs(f *testing.F) {
	f.Add(`@import url("https://a.test/x.css"); .a { background: url(//b.test/y.png) }`)
	f.Add("/* x\n*/ @import 'http://c.test'\n.b{src:url( \"data:font/woff2;base64,AA\" )}")
	f.Fuzz(func(t *testing.T, css string) {
		lines := strings.Count(css, "\n") + 1
		for _, u := range externalCSSURLs([]byte(css)) {
			if !config.IsExternal(u.url) || u.line < 1 || u.line > lines {
				t.Errorf("%+v", u)
			}
		}
	})
}

// Every page loads the repository's stylesheets and scripts: at most
// maxEveryPageFiles of each, the first by path, with a warning naming the
// first left out.
func TestEveryPageFilesBounded(t *testing.T) {
	t.Parallel()
	var site strings.Builder
	site.WriteString("-- docs.json --\n{\"navigation\": {\"pages\": [\"index\"]}}\n-- index.mdx --\n# Home\n")
	n := maxEveryPageFiles + 5
	for i := range n {
		fmt.Fprintf(&site, "-- css/s%03d.css --\n.s%d {}\n-- js/s%03d.js --\n// %d\n", i, i, i, i)
	}
	res, out := build(t, site.String(), Options{CustomScripts: true})
	index := out.get(t, "index.html")
	if got := strings.Count(index, `<link rel="stylesheet" href="/css/`); got != maxEveryPageFiles {
		t.Errorf("index.html links %d stylesheets of the repository, want %d", got, maxEveryPageFiles)
	}
	if got := strings.Count(index, `<script src="/_lectern/custom/js/`); got != maxEveryPageFiles {
		t.Errorf("index.html loads %d scripts of the repository, want %d", got, maxEveryPageFiles)
	}
	last := fmt.Sprintf("s%03d", maxEveryPageFiles-1)
	if !strings.Contains(index, "/css/"+last+".css") || strings.Contains(index, fmt.Sprintf("/css/s%03d.css", maxEveryPageFiles)) {
		t.Errorf("index.html does not link the first %d stylesheets by path", maxEveryPageFiles)
	}
	for _, ext := range []string{"css", "js"} {
		file := fmt.Sprintf("%s/s%03d.%s", ext, maxEveryPageFiles, ext)
		if !hasWarning(res.Warnings, file, fmt.Sprintf("the repository has %d .%s files; pages load the first %d", n, ext, maxEveryPageFiles)) {
			t.Errorf("no warning on %s that pages load the first %d: %v", file, maxEveryPageFiles, res.Warnings)
		}
	}
}
