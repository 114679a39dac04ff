package render

import (
	"context"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"golang.org/x/net/html"
	"lectern.dev/lectern/render/diag"
	"lectern.dev/lectern/render/features"
	"lectern.dev/lectern/render/safe"
)

func TestURLAllowed(t *testing.T) {
	for _, c := range []struct {
		u           string
		link, image bool
	}{
		{"https://example.com/x", true, true},
		{"HTTP://example.com", true, true},
		{"mailto:a@b.test", true, true},
		{"tel:+123", true, true},
		{"/guides/x", true, true},
		{"guides/x?a=b#c", true, true},
		{"#section", true, true},
		{"", true, true},
		{"//cdn.test/x.png", true, true},
		{"./javascript:alert(1)", true, true},
		{"images/a:b.png", true, true}, // a colon after a slash: a path
		{"data:image/png;base64,AAAA", false, true},
		{"DATA:Image/svg+xml,<svg/>", false, true},
		{"data:text/html,<script>alert(1)</script>", false, false},
		{"javascript:alert(1)", false, false},
		{"JaVaScRiPt:alert(1)", false, false},
		{"  javascript:alert(1)", false, false},
		{"\x01\x02javascript:alert(1)", false, false},
		{"jav\tascript:alert(1)", false, false},
		{"jav\nas\rcript:alert(1)", false, false},
		{"jav&#x09;ascript:alert(1)", false, false},
		{"&#106;avascript:alert(1)", false, false},
		{"javascript&colon;alert(1)", false, false},
		{"vbscript:msgbox", false, false},
		{"file:///etc/passwd", false, false},
		{"blob:https://x/1", false, false},
		{"data:image/png", false, true},
	} {
		if got := safe.URLAllowed(c.u, false); got != c.link {
			t.Errorf("urlAllowed(%q, link) = %v, want %v", c.u, got, c.link)
		}
		if got := safe.URLAllowed(c.u, true); got != c.image {
			t.Errorf("urlAllowed(%q, image) = %v, want %v", c.u, got, c.image)
		}
	}
}

// activeVectors is a page of everything that would run script if it
// reached the output as written.
const activeVectors = `---
title: Vectors
---
<iframe srcdoc="<script>parent.__pwned=1</script>"></iframe>
<iframe srcDoc="<script>parent.__pwned=1</script>" />
<a href="javascript:window.__pwned=1">js link</a>
<a href="  JaVaScRiPt:window.__pwned=1">mixed case</a>
<a href="jav&#x09;ascript:window.__pwned=1">entity tab</a>
<a href={"java\tscript:window.__pwned=1"}>expression tab</a>
<Card title="Card" href="javascript:window.__pwned=1">card</Card>
<Card title="Card img" img="javascript:window.__pwned=1" icon="javascript:x.png">card</Card>
<Tile href="javascript:window.__pwned=1" title="Tile">tile</Tile>
<iframe src="data:text/html,<script>parent.__pwned=1</script>"></iframe>
<object data="data:text/html,<script>parent.__pwned=1</script>"></object>
<embed src="data:text/html;base64,PHNjcmlwdD5wYXJlbnQuX19wd25lZD0xPC9zY3JpcHQ+" />
<form action="javascript:window.__pwned=1"><button formAction="javascript:window.__pwned=1">go</button></form>
<img src="missing.png" onError="window.__pwned=1" />
<div onClick="window.__pwned=1" onload={"window.__pwned=1"}>click</div>
<svg><a xlinkHref="javascript:window.__pwned=1"><text>svg link</text></a><animate attributeName="href" to="javascript:window.__pwned=1" /></svg>
<blockquote cite="javascript:x">q</blockquote>
<a href="/" ping="javascript:x">ping</a>
<img srcSet="javascript:x 1x" />
<video poster="javascript:x" src="data:text/html,x"></video>
<script>window.__pwned=1</script>
<script src="evil.js"></script>

[md link](javascript:window.__pwned=1)
[md entity](jav&#x09;ascript:window.__pwned=1)
[missing page named like a scheme](./javascript:alert(1))
![md image](javascript:window.__pwned=2)
![data image](data:image/png;base64,iVBORw0KGgo=)
<https://example.com/autolink>

<!-- a comment --!><img src="x" onerror="window.__pwned=1"> -->

<iframe src="evil.svg?x=1"></iframe>

<svg><set attributeName="onmouseover" to="window.__pwned=1" /></svg>

<pre><img src="x" onerror="window.__pwned=1"><a href="javascript:window.__pwned=1">pre</a><meta http-equiv="refresh" content="0;url=https://evil.example/"></pre>
<code><script src="custom.js"></script></code>
<textarea></TEXTAREA><img src="x" onerror="window.__pwned=1"></textarea>
`

// activeContent returns what in doc (an HTML document) could run script:
// event handler attributes, srcdoc, URL attributes of another scheme than
// http(s), mailto and tel (data: only as the source of an image), inline
// scripts and scripts from outside _lectern/. It reads the page as a
// browser does, with its own tokenizer.
func activeContent(doc string) []string {
	var bad []string
	z := html.NewTokenizer(strings.NewReader(doc))
	inScript := false
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return bad
		case html.TextToken:
			if inScript && strings.TrimSpace(string(z.Text())) != "" {
				bad = append(bad, "inline script "+diag.FirstLine(string(z.Text()), 60))
			}
			continue
		case html.EndTagToken:
			inScript = false
			continue
		case html.StartTagToken, html.SelfClosingTagToken:
		default:
			continue
		}
		tok := z.Token()
		if tok.Data == "script" && tt == html.StartTagToken {
			inScript = true
		}
		if tok.Data == "meta" || tok.Data == "base" {
			for _, a := range tok.Attr {
				if k := strings.ToLower(a.Key); k == "http-equiv" && strings.EqualFold(a.Val, "refresh") || tok.Data == "base" && k == "href" {
					bad = append(bad, "<"+tok.Data+" "+k+"="+a.Val+">")
				}
			}
		}
		for _, a := range tok.Attr {
			k := strings.ToLower(a.Key)
			if a.Namespace != "" {
				k = a.Namespace + ":" + k
			}
			switch {
			case strings.HasPrefix(k, "on") && len(k) > 2: // "on" alone handles no event
				bad = append(bad, "<"+tok.Data+" "+k+">")
			case k == "srcdoc":
				bad = append(bad, "<"+tok.Data+" srcdoc>")
			case k == "attributename" && (strings.Contains(strings.ToLower(a.Val), "href") || strings.HasPrefix(strings.ToLower(strings.TrimSpace(a.Val)), "on")):
				bad = append(bad, "<"+tok.Data+" attributeName="+a.Val+">")
			case tok.Data == "script" && k == "src":
				if !strings.Contains(a.Val, "_lectern/") {
					bad = append(bad, "<script src="+a.Val+">")
				}
			case k == "srcset":
				for _, c := range strings.Split(a.Val, ",") {
					if f := strings.Fields(c); len(f) > 0 && !inertURL(f[0], true) {
						bad = append(bad, "<"+tok.Data+" srcset="+a.Val+">")
					}
				}
			case testURLAttrs[k]:
				image := (tok.Data == "img" || tok.Data == "source") && k == "src"
				if !inertURL(a.Val, image) {
					bad = append(bad, "<"+tok.Data+" "+k+"="+a.Val+">")
				}
			}
		}
	}
}

var testURLAttrs = map[string]bool{
	"href": true, "src": true, "action": true, "formaction": true, "data": true, "poster": true,
	"xlink:href": true, "background": true, "cite": true, "ping": true, "longdesc": true, "usemap": true,
	"manifest": true, "codebase": true, "archive": true, "classid": true, "icon": true, "lowsrc": true, "dynsrc": true,
}

var testSchemeRE = regexp.MustCompile(`^([a-z][a-z0-9+.\-]*):`)

// inertURL is the test's own reading of a URL attribute (already decoded
// by the tokenizer), as the WHATWG URL parser reads it.
func inertURL(u string, image bool) bool {
	u = strings.TrimFunc(u, func(r rune) bool { return r <= 0x20 })
	u = strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, u)
	m := testSchemeRE.FindStringSubmatch(strings.ToLower(u))
	if m == nil {
		return true
	}
	switch m[1] {
	case "http", "https", "mailto", "tel":
		return true
	case "data":
		return image && strings.HasPrefix(strings.ToLower(u), "data:image/")
	}
	return false
}

// vectorSite is a site whose index page is src.
func vectorSite(src string) fstest.MapFS {
	return fstest.MapFS{
		"docs.json":  {Data: []byte(`{"name": "Vectors", "navigation": {"pages": ["index"]}}`)},
		"index.mdx":  {Data: []byte(src)},
		"evil.js":    {Data: []byte("window.__pwned = 1\n")},
		"missing.md": {Data: []byte("# not in the navigation\n")},
	}
}

func TestActiveContentRemoved(t *testing.T) {
	for _, export := range []bool{false, true} {
		out := newMemOutput()
		res, err := Build(context.Background(), vectorSite(activeVectors), out, Options{Export: export})
		if err != nil {
			t.Fatal(err)
		}
		page := out.get(t, "index.html")
		if bad := activeContent(page); len(bad) > 0 {
			t.Errorf("export=%v: the page carries active content:\n%s", export, strings.Join(bad, "\n"))
		}
		for _, want := range []string{`<img src="data:image/png;base64,iVBORw0KGgo=" alt="data image">`, ">js link</a>", ">click</div>", "https://example.com/autolink"} {
			if !strings.Contains(page, want) {
				t.Errorf("export=%v: the page lost harmless content %q", export, want)
			}
		}
		var msgs []string
		for _, w := range res.Warnings {
			msgs = append(msgs, w.String())
		}
		all := strings.Join(msgs, "\n")
		for _, want := range []string{
			"index.mdx:4: <iframe srcdoc>: not allowed",
			`index.mdx:6: <a href> "javascript:window.__pwned=1" removed`,
			`index.mdx:10: link "javascript:window.__pwned=1" removed`,
			"index.mdx:17: <img onError>: event handler attributes are not allowed",
			`index.mdx:27: link "javascript:window.__pwned=1" removed`,
			`index.mdx:30: image "javascript:window.__pwned=2" removed`,
			`index.mdx:36: <iframe src="evil.svg?x=1">: a frame may not show an SVG or XML file`,
		} {
			if !strings.Contains(all, want) {
				t.Errorf("export=%v: no warning %q; warnings:\n%s", export, want, all)
			}
		}
	}
}

// FuzzActiveContent renders a page made of the input, alone and inside
// the attributes that carry URLs, and fails when the output carries
// anything that could run script (activeContent).
//
//	go test -run=^$ -fuzz=FuzzActiveContent -fuzztime=60s ./render
func FuzzActiveContent(f *testing.F) {
	for _, s := range []string{
		"javascript:alert(1)", "JaVaScRiPt:alert(1)", "  javascript:alert(1)", "jav&#x09;ascript:alert(1)",
		"jav&#X0A;ascript:alert(1)", "&#106;avascript:alert(1)", "java\tscript:alert(1)", "\x00javascript:alert(1)",
		"data:text/html,<script>alert(1)</script>", "vbscript:x", "./javascript:alert(1)", "a/../javascript:alert(1)",
		"javascript&colon;alert(1)", "data:image/svg+xml,<svg onload=alert(1)>", "https://example.com/",
		"<img src=x onerror=alert(1)>", "<iframe srcdoc='<script>alert(1)</script>'/>", activeVectors,
		"<!-- a --!><script>alert(1)</script> -->", "x <!-- a --!><img src=x onerror=alert(1)> -->", "<!--", "<!--><b>x</b>-->",
		"<pre><img src=x onerror=alert(1)></pre>", "<textarea></TEXTAREA><img src=x onerror=alert(1)></textarea>",
		`<code><meta http-equiv="refresh" content="0;url=https://evil.example/"></code>`,
		"https://www.youtube.com/embed/x\" onload=\"alert(1)", "https://example.com:8443/x", "http://example.com/x",
		"//www.youtube.com/embed/x", "https://evil.example/?www.youtube.com", "https://www.youtube.com.evil.example/embed/x",
		"https://user@www.youtube.com/embed/x", "<video><source src=\"https://evil.example/a.mp4\" /></video>",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, name := range []string{"index.mdx", "index.md"} {
			fuzzActiveContent(t, name, s)
		}
	})
}

// fuzzActiveContent builds the page of FuzzActiveContent for s as file
// name and checks every HTML file of the output.
func fuzzActiveContent(t *testing.T, name, s string) {
	q := strings.NewReplacer(`"`, "&quot;").Replace(s)
	page := s + "\n\n" +
		`<a href="` + q + `">a</a> <img src="` + q + `" /> <iframe src="` + q + `" /> <form action="` + q + `"><button formAction="` + q + `">b</button></form>` + "\n\n" +
		`<Card title="c" href="` + q + `" img="` + q + `">c</Card>` + "\n\n" +
		"[l](" + s + ") ![i](" + s + ")\n\n" +
		`<a href={` + "`" + strings.ReplaceAll(s, "`", "") + "`" + `}>e</a>` + "\n"
	// A live site that allows embeds from two hosts shows their iframes,
	// sandboxed, and no other.
	embeds := features.Default()
	embeds.EmbedHosts = []string{"example.com", "www.youtube.com"}
	for _, opts := range []Options{{}, {Export: true}, {Features: &embeds}} {
		out := newMemOutput()
		src := vectorSite(page)
		if name != "index.mdx" {
			delete(src, "index.mdx")
			src[name] = &fstest.MapFile{Data: []byte(page)}
		}
		if _, err := Build(context.Background(), src, out, opts); err != nil {
			t.Fatalf("Build: %v", err)
		}
		hosts := map[bool][]string{true: embeds.EmbedHosts}[opts.Features != nil]
		for file, data := range out.files {
			if !strings.HasSuffix(file, ".html") {
				continue
			}
			bad := append(activeContent(string(data)), remoteFrames(string(data), hosts)...)
			if len(bad) > 0 {
				t.Fatalf("%s, export=%v, embeds %v: %s carries active content for input %q:\n%s", name, opts.Export, hosts, file, s, strings.Join(bad, "\n"))
			}
		}
	}
}

// remoteFrames returns the iframes of doc that show a page of another
// host: each must be on one of hosts, over https, and sandboxed as an
// embed is.
func remoteFrames(doc string, hosts []string) []string {
	var bad []string
	z := html.NewTokenizer(strings.NewReader(doc))
	for tt := z.Next(); tt != html.ErrorToken; tt = z.Next() {
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		tok := z.Token()
		if tok.Data != "iframe" && tok.Data != "frame" && tok.Data != "object" && tok.Data != "embed" {
			continue
		}
		attrs := map[string]string{}
		for _, a := range tok.Attr {
			attrs[strings.ToLower(a.Key)] = a.Val
		}
		src := strings.TrimSpace(attrs["src"] + attrs["data"])
		u, err := url.Parse(src)
		if err != nil || (u.Host == "" && !strings.HasPrefix(src, "//") && u.Scheme == "") {
			continue // the site's own
		}
		if tok.Data != "iframe" || u.Scheme != "https" || !slices.Contains(hosts, u.Hostname()) ||
			attrs["sandbox"] != "allow-scripts allow-same-origin allow-presentation allow-popups" {
			bad = append(bad, "remote frame "+tok.String())
		}
	}
	return bad
}

func TestRawHTML(t *testing.T) {
	for in, want := range map[string]string{
		"<!-- note -->":                     "<!-- note -->",
		"<!-- a --!><script>x</script> -->": "<!-- a -- !><script>x</script> -->",
		"<!-->":                             "",
		"<!--->":                            "",
		"<!-- unterminated":                 "",
		"<!--><b>x</b>-->":                  "<!--<b>x</b>-->",
		"</div>":                            "</div>",
	} {
		if got := safe.RawHTML(in); got != want {
			t.Errorf("rawHTML(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestConfigLinksChecked: links of docs.json go through the same check.
func TestConfigLinksChecked(t *testing.T) {
	src := fstest.MapFS{
		"docs.json": {Data: []byte(`{"name": "C", "navigation": {"pages": ["index", {"group": "G", "pages": [], "href": "javascript:alert(2)"}]},
  "logo": {"light": "logo.png", "href": "  javascript:alert(3)"},
  "navbar": {"links": [{"label": "Evil", "href": "JaVaScRiPt:alert(1)"}, {"label": "Good", "href": "https://example.com/"}]}}`)},
		"index.mdx": {Data: []byte("# Hi\n")},
		"logo.png":  {Data: []byte("png")},
	}
	for _, export := range []bool{false, true} {
		out := newMemOutput()
		res, err := Build(context.Background(), src, out, Options{Export: export})
		if err != nil {
			t.Fatal(err)
		}
		page := out.get(t, "index.html")
		if bad := activeContent(page); len(bad) > 0 {
			t.Errorf("export=%v: %v", export, bad)
		}
		if !strings.Contains(page, `href="https://example.com/"`) {
			t.Errorf("export=%v: the good navbar link is gone", export)
		}
		var warned bool
		for _, w := range res.Warnings {
			warned = warned || w.File == "docs.json" && w.Line == 3 && strings.Contains(w.Message, `link "JaVaScRiPt:alert(1)" removed`)
		}
		if !warned {
			t.Errorf("export=%v: no warning at docs.json:3 for the navbar link: %v", export, res.Warnings)
		}
	}
}

// TestRedirectDestinationsChecked: a redirect to a javascript: URL leads
// nowhere, neither from its static page nor from the wildcard script.
func TestRedirectDestinationsChecked(t *testing.T) {
	src := fstest.MapFS{
		"docs.json": {Data: []byte(`{"name": "R", "navigation": {"pages": ["index"]}, "redirects": [
  {"source": "/evil", "destination": "javascript:alert(1)"},
  {"source": "/evil2", "destination": " JAVASCRIPT:alert(2)"},
  {"source": "/old/:slug*", "destination": "/evil"}]}`)},
		"index.mdx": {Data: []byte("# Hi\n")},
	}
	for _, export := range []bool{false, true} {
		out := newMemOutput()
		if _, err := Build(context.Background(), src, out, Options{Export: export}); err != nil {
			t.Fatal(err)
		}
		for name, data := range out.files {
			if strings.Contains(strings.ToLower(string(data)), "javascript:alert") {
				t.Errorf("export=%v: %s carries the javascript: destination", export, name)
			}
		}
	}
}

// TestColonPagesLinked checks that a page whose name has a colon is
// linked, in an export, by a relative URL that cannot read as a scheme
// (from its own folder, "v1:intro.html" would be a URL of scheme v1),
// everywhere a link to it is written: the sidebar, the pager and a
// page's Markdown link.
func TestColonPagesLinked(t *testing.T) {
	t.Parallel()
	archive := `
-- docs.json --
{"navigation": {"groups": [{"group": "G", "pages": ["index", "guides/start", "guides/v1:intro"]}]}}
-- index.mdx --
# Home
-- guides/start.mdx --
# Start

See [the intro](/guides/v1:intro).
-- guides/v1:intro.mdx --
# Intro
`
	_, out := build(t, archive, Options{Export: true})
	page := out.get(t, "guides/start.html")
	if n := strings.Count(page, `href="./v1:intro.html"`); n < 3 {
		t.Errorf("guides/start.html links guides/v1:intro as ./v1:intro.html %d times, want the sidebar, the pager and the body:\n%s", n, page)
	}
	if strings.Contains(page, `href="v1:intro.html"`) || strings.Contains(page, `href="#">Intro`) {
		t.Errorf("guides/start.html has a link to the intro that reads as a URL of scheme v1, or none")
	}
}
