package render

import (
	"bytes"
	"compress/gzip"
	"context"
	"strings"
	"testing"
	"testing/fstest"
)

func TestActiveXML(t *testing.T) {
	inert := []string{
		`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><rect width="10" height="10" fill="red"/></svg>`,
		`<?xml version="1.0" encoding="UTF-8"?><!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">` +
			`<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"><defs><linearGradient id="g"><stop offset="0"/></linearGradient></defs>` +
			`<style>.a { fill: url(#g) }</style><use xlink:href="#g"/><image href="data:image/png;base64,AAAA"/><a href="https://example.com/"><text>x</text></a>` +
			`<animate attributeName="opacity" values="0;1" dur="1s"/></svg>`,
		`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://docs.example.com/</loc></url></urlset>`,
	}
	active := []string{
		`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`,
		`<svg xmlns="http://www.w3.org/2000/svg" xmlns:s="http://www.w3.org/2000/svg"><s:script>alert(1)</s:script></svg>`,
		`<svg xmlns="http://www.w3.org/2000/svg" ONLOAD="alert(1)"/>`,
		`<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"><a xlink:href="&#106;avascript:alert(1)"><text>x</text></a></svg>`,
		`<svg xmlns="http://www.w3.org/2000/svg"><a href=" JaVa&#x09;Script:alert(1)"><text>x</text></a></svg>`,
		`<svg xmlns="http://www.w3.org/2000/svg"><foreignObject><div xmlns="http://www.w3.org/1999/xhtml">x</div></foreignObject></svg>`,
		`<svg xmlns="http://www.w3.org/2000/svg"><a><set attributeName="href" to="javascript:alert(1)"/><text>x</text></a></svg>`,
		`<?xml-stylesheet type="text/xsl" href="x.xsl"?><doc/>`,
		`<!DOCTYPE svg [<!ENTITY e "&#60;script&#62;alert(1)&#60;/script&#62;">]><svg xmlns="http://www.w3.org/2000/svg">&e;</svg>`,
		`<html xmlns="http://www.w3.org/1999/xhtml"><body><iframe src="x.html"/></body></html>`,
		`<svg xmlns="http://www.w3.org/2000/svg"><rect`,
	}
	for _, s := range inert {
		if why := activeXML([]byte(s)); why != "" {
			t.Errorf("activeXML(%.60q) = %q, want inert", s, why)
		}
	}
	for _, s := range active {
		if why := activeXML([]byte(s)); why == "" {
			t.Errorf("activeXML(%.80q) is inert, want active", s)
		}
	}
}

func TestExportLeavesOutActiveXML(t *testing.T) {
	src := fstest.MapFS{
		"docs.json":      {Data: []byte(`{"name": "X", "navigation": {"pages": ["index"]}}`)},
		"index.mdx":      {Data: []byte("# Hi\n")},
		"images/ok.svg":  {Data: []byte(`<svg xmlns="http://www.w3.org/2000/svg"><rect width="1" height="1"/></svg>`)},
		"images/bad.svg": {Data: []byte(`<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>`)},
	}
	for _, export := range []bool{false, true} {
		out := newMemOutput()
		res, err := Build(context.Background(), src, out, Options{Export: export})
		if err != nil {
			t.Fatal(err)
		}
		if !out.has("images/ok.svg") || out.has("images/bad.svg") == export {
			t.Errorf("export=%v: ok.svg copied %v, bad.svg copied %v", export, out.has("images/ok.svg"), out.has("images/bad.svg"))
		}
		var warned bool
		for _, w := range res.Warnings {
			warned = warned || w.File == "images/bad.svg" && strings.Contains(w.Message, "not copied into the export") && strings.Contains(w.Message, "onload")
		}
		if warned != export {
			t.Errorf("export=%v: warned %v: %v", export, warned, res.Warnings)
		}
	}
}

// Files common static servers send as HTML or SVG under other names get
// the export's treatment too.
func TestExportOtherActiveNames(t *testing.T) {
	t.Parallel()
	gz := func(s string) []byte {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write([]byte(s))
		zw.Close()
		return b.Bytes()
	}
	src := fstest.MapFS{
		"docs.json": {Data: []byte(`{"name": "X", "navigation": {"pages": ["index"]}}`)},
		// The page links to the files: files of these types are published
		// only when a page does (publish.go).
		"index.mdx":       {Data: []byte("# Hi\n\n[a](evil.shtml) [b](images/ok.svgz) [c](/images/bad.svgz) [d](./images/odd.svgz)\n")},
		"evil.shtml":      {Data: []byte(`<script>document.title="pwned"</script>`)},
		"images/ok.svgz":  {Data: gz(`<svg xmlns="http://www.w3.org/2000/svg"><rect width="1" height="1"/></svg>`)},
		"images/bad.svgz": {Data: gz(`<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>`)},
		"images/odd.svgz": {Data: []byte(`<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>`)},
	}
	out := newMemOutput()
	if _, err := Build(context.Background(), src, out, Options{Export: true}); err != nil {
		t.Fatal(err)
	}
	if page := out.get(t, "evil.shtml"); !strings.HasPrefix(page, `<meta http-equiv="Content-Security-Policy"`) {
		t.Errorf("evil.shtml has no policy: %.120s", page)
	}
	if !out.has("images/ok.svgz") || out.has("images/bad.svgz") || out.has("images/odd.svgz") {
		t.Errorf("svgz copied: ok %v, bad %v, not gzip %v", out.has("images/ok.svgz"), out.has("images/bad.svgz"), out.has("images/odd.svgz"))
	}
}
