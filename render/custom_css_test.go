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
