package render

import (
	"errors"
	"io/fs"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"lectern.dev/lectern/render/cache"
	"lectern.dev/lectern/render/diag"
	"lectern.dev/lectern/render/links"
)

// smallSite exercises config, navigation, Markdown, components, snippets,
// links and assets. Line numbers matter: see the warning assertions.
const smallSite = `
-- docs.json --
{
  "name": "Acme Docs",
  "colors": {"primary": "#ff5500"},
  "logo": {"light": "/logo/light.svg", "dark": "/logo/dark.svg"},
  "favicon": "/favicon.svg",
  "navigation": {
    "tabs": [
      {"tab": "Guides", "groups": [
        {"group": "Start", "pages": ["index", "quickstart", {"group": "Deep", "pages": ["guides/intro"]}]}
      ]},
      {"tab": "Reference", "groups": [{"group": "Components", "pages": ["guides/components", "quickstart"]}]}
    ],
    "global": {"anchors": [{"anchor": "Blog", "href": "https://acme.test/blog"}]}
  },
  "somethingNew": {"ignored": true}
}
-- index.mdx --
---
title: Welcome
description: The Acme docs
---

Read the [quickstart](/quickstart) first.

<Note>
  A **note** with a [link](/guides/intro#setup).
</Note>

<Card title="Intro" href="/guides/intro" icon="rocket">
  Start here.
</Card>

![Logo](/images/logo.png)
-- quickstart.md --
# Quickstart

Install it:

` + "```bash" + `
npm i acme
` + "```" + `

## Next

See [the intro](guides/intro).
-- guides/intro.mdx --
---
title: Introduction
sidebarTitle: Intro
---
import Hello from '/snippets/hello.mdx'

<Hello name="Ada" />

## Setup

Back to [home](/) and [quickstart](../quickstart).

<Tabs>
  <Tab title="macOS">
    ` + "```bash" + `
    brew install acme
    ` + "```" + `
  </Tab>
  <Tab title="Linux">
    <Steps>
      <Step title="Download">
        Get the <Tooltip tip="tarball">archive</Tooltip>.
      </Step>
    </Steps>
  </Tab>
</Tabs>

<AccordionGroup>
  <Accordion title="Why?">
    Because <Card title="Nested" href="/quickstart">inside</Card> works.
  </Accordion>
</AccordionGroup>
-- guides/components.mdx --
---
title: Components
---
{/* a comment that must not show */}
Text before.

<Sparkle color="gold">
  Children of **sparkle** still render.
</Sparkle>

` + "```jsx" + `
<Card title="Literal" href="/nowhere" />
` + "```" + `

<ParamField path="id" type="string" required>
  The id.
</ParamField>
-- snippets/hello.mdx --
Hello, {name}!
-- images/logo.png --
PNG
-- logo/light.svg --
<svg/>
-- logo/dark.svg --
<svg/>
-- favicon.svg --
<svg/>
-- .hidden/secret.txt --
never copied
`

var smallPages = []string{"index", "quickstart", "guides/intro", "guides/components"}

func TestBuildSmallSiteLive(t *testing.T) {
	t.Parallel()
	res, out := build(t, smallSite, Options{BasePath: "/docs"})
	if res.Pages != len(smallPages) {
		t.Errorf("Pages = %d, want %d", res.Pages, len(smallPages))
	}
	if res.Files != len(out.files) {
		t.Errorf("Files = %d, but %d files were written", res.Files, len(out.files))
	}
	for _, name := range []string{"index.html", "quickstart.html", "guides/intro.html", "guides/components.html",
		"404.html", "sitemap.xml", "robots.txt", "_lectern/style.css", "_lectern/site.js", "_lectern/search/meta.js",
		"images/logo.png", "logo/light.svg", "logo/dark.svg", "favicon.svg"} {
		if !out.has(name) {
			t.Errorf("missing output %s", name)
		}
	}
	for _, name := range []string{"docs.json", "index.mdx", "snippets/hello.mdx", "snippets/hello.html", "snippets/hello.md", ".hidden/secret.txt"} {
		if out.has(name) {
			t.Errorf("unexpected output %s", name)
		}
	}
	// quickstart.md is the page's Markdown (page_markdown.go), not its
	// source: its links are the site's.
	if md := out.get(t, "quickstart.md"); !strings.Contains(md, "See [the intro](/docs/guides/intro).") {
		t.Errorf("quickstart.md is not the page's Markdown:\n%s", md)
	}

	index := out.get(t, "index.html")
	for _, want := range []string{
		`<a href="/docs/quickstart">quickstart</a>`,
		`href="/docs/guides/intro#setup"`,
		`<a class="lc-card-title" href="/docs/guides/intro">Intro</a>`,
		`<img src="/docs/images/logo.png" alt="Logo">`,
		`<aside class="lc-callout lc-note" role="note" aria-label="Note"><span class="lc-callout-icon"><svg class="lc-icon" data-icon="circle-alert"`,
		`<strong>note</strong>`,
		`<link rel="stylesheet" href="/docs/_lectern/style.css">`,
		`<title>Welcome – Acme Docs</title>`,
		`<meta name="description" content="The Acme docs">`,
		`<link rel="icon" href="/docs/favicon.svg"`,
		`src="/docs/logo/light.svg"`,
		`<a href="https://acme.test/blog" rel="noopener">Blog</a>`,
		`<a href="/docs/" class="lc-active" aria-current="page">Welcome</a>`,
		`<a href="/docs/guides/intro">Intro</a>`, // sidebarTitle
		`<a href="/docs/guides/components">Reference</a>`,
	} {
		if want = out.named(want); !strings.Contains(index, want) {
			t.Errorf("index.html lacks %s", want)
		}
	}
	if strings.Contains(index, `.html"`) {
		t.Errorf("live index.html links to .html files")
	}

	intro := out.get(t, "guides/intro.html")
	for _, want := range []string{
		`<p>Hello, Ada!</p>`, // snippet with a prop
		`<h2 id="setup">Setup</h2>`,
		`<a href="/docs/">home</a>`,
		`<a href="/docs/quickstart">quickstart</a>`,
		`<div class="lc-tabs">`,
		`<section class="lc-tab"><div class="lc-tab-title">macOS</div>`,
		`<div class="lc-code" data-lang="bash">`, `<code>brew install acme`,
		`<div class="lc-steps">`,
		`<div class="lc-step-title" id="download">Download</div>`,
		`<span class="lc-tooltip" tabindex="0" aria-describedby="tooltip">archive<span class="lc-tooltip-bubble" role="tooltip" id="tooltip"><span class="lc-tooltip-tip">tarball</span></span></span>`,
		`<details class="lc-accordion" id="why"><summary><span class="lc-accordion-text"><span class="lc-accordion-title">Why?</span></span></summary>`,
		`<a class="lc-card-title" href="/docs/quickstart">Nested</a>`,
		`<li class="lc-toc-h2"><a href="#setup">Setup</a></li>`,
		`<p class="lc-eyebrow eyebrow">Deep</p>`,
		`rel="prev"`, `rel="next"`,
	} {
		if !strings.Contains(intro, want) {
			t.Errorf("guides/intro.html lacks %s", want)
		}
	}
	// Nesting: the step is inside the second tab, inside the tabs.
	tabs := intro[strings.Index(intro, `<div class="lc-tabs">`):]
	if i, j := strings.Index(tabs, `Linux`), strings.Index(tabs, `lc-step-title`); i < 0 || j < i {
		t.Errorf("steps are not nested in the Linux tab")
	}

	comp := out.get(t, "guides/components.html")
	if !strings.Contains(comp, `Children of <strong>sparkle</strong> still render.`) {
		t.Errorf("unknown component's children not rendered")
	}
	if !strings.Contains(comp, `<span class="nt">Card</span> <span class="na">title</span><span class="o">=</span><span class="s">&#34;Literal&#34;</span>`) {
		t.Errorf("JSX in a code fence is not literal code")
	}
	if strings.Contains(comp, "Literal</a>") || strings.Contains(comp, "a comment that must not show") {
		t.Errorf("code fence or comment rendered as content")
	}
	if !strings.Contains(comp, `<code class="lc-field-name">id</code><span class="lc-field-type">string</span><span class="lc-field-location">path</span><span class="lc-badge lc-required">required</span>`) {
		t.Errorf("ParamField not rendered as a field row")
	}
	wantWarning := diag.Warning{File: "guides/components.mdx", Line: 7, Message: "unknown component <Sparkle>; its content is shown without it"}
	found := false
	for _, w := range res.Warnings {
		if w == wantWarning {
			found = true
		}
	}
	if !found || len(res.Warnings) != 1 {
		t.Errorf("warnings = %v, want just %v", res.Warnings, wantWarning)
	}

	quick := out.get(t, "quickstart.html")
	if strings.Count(quick, "<h1") != 1 || !strings.Contains(quick, `<h1 class="lc-title">Quickstart</h1>`) {
		t.Errorf("a .md page's first heading is not its single title")
	}
	if !strings.Contains(quick, `<a href="/docs/guides/intro">the intro</a>`) {
		t.Errorf("relative link in quickstart.md not rewritten")
	}

	notFound := out.get(t, "404.html")
	for _, want := range []string{"Page not found", `<meta name="robots" content="noindex">`, `href="/docs/_lectern/style.css"`, `class="lc-sidebar"`} {
		if want = out.named(want); !strings.Contains(notFound, want) {
			t.Errorf("404.html lacks %s", want)
		}
	}

	sitemap := out.get(t, "sitemap.xml")
	for _, p := range []string{"/docs/", "/docs/quickstart", "/docs/guides/intro", "/docs/guides/components"} {
		if !strings.Contains(sitemap, "<loc>"+p+"</loc>") {
			t.Errorf("sitemap lacks %s", p)
		}
	}
	if strings.Contains(sitemap, ".html") {
		t.Errorf("sitemap lists .html URLs")
	}
	if css := out.get(t, "_lectern/style.css"); !strings.Contains(css, "--lc-primary: #ff5500") || !strings.Contains(css, "prefers-color-scheme: dark") {
		t.Errorf("style.css lacks the primary colour or dark mode")
	}

	docs := searchDocs(t, out)
	if len(docs) != len(smallPages) {
		t.Fatalf("search index has %d pages, want %d", len(docs), len(smallPages))
	}
	for i, d := range docs {
		if d.Path != smallPages[i] || d.Title == "" || len(d.Sections) == 0 || d.Sections[0].Text == "" {
			t.Errorf("search page %d = %+v", i, d)
		}
	}
	if d := docs[2]; d.URL != "/docs/guides/intro" || len(d.Sections) < 2 || d.Sections[1].Anchor != "setup" {
		t.Errorf("search page for guides/intro = %+v", d)
	}
	checkNoExternalRefs(t, out.files)
	for _, l := range internalLinks(t, out.files, Options{BasePath: "/docs"}) {
		if !out.has(l.target) {
			t.Errorf("%s: link %q → %s does not exist", l.from, l.href, l.target)
		}
	}
}

func TestBuildSmallSiteExport(t *testing.T) {
	t.Parallel()
	opts := Options{Export: true, BasePath: "/docs", SiteURL: "https://docs.acme.test"}
	_, out := build(t, smallSite, opts)
	index := out.get(t, "index.html")
	for _, want := range []string{
		`<a href="quickstart.html">quickstart</a>`,
		`href="guides/intro.html#setup"`,
		`<img src="images/logo.png" alt="Logo">`,
		`<link rel="stylesheet" href="_lectern/style.css">`,
		`<link rel="canonical" href="https://docs.acme.test/docs/">`,
	} {
		if want = out.named(want); !strings.Contains(index, want) {
			t.Errorf("export index.html lacks %s", want)
		}
	}
	intro := out.get(t, "guides/intro.html")
	for _, want := range []string{
		`<a href="../index.html">home</a>`,
		`<a href="../quickstart.html">quickstart</a>`,
		`<a class="lc-card-title" href="../quickstart.html">Nested</a>`,
		`<link rel="stylesheet" href="../_lectern/style.css">`,
		`<script src="../_lectern/site.js" defer></script>`,
		`<a href="components.html">Reference</a>`,
	} {
		if want = out.named(want); !strings.Contains(intro, want) {
			t.Errorf("export guides/intro.html lacks %s", want)
		}
	}
	if strings.Contains(intro, `href="/`) || strings.Contains(intro, `src="/`) {
		t.Errorf("export page has absolute links")
	}
	sitemap := out.get(t, "sitemap.xml")
	if !strings.Contains(sitemap, "<loc>https://docs.acme.test/docs/guides/intro</loc>") || strings.Contains(sitemap, ".html") {
		t.Errorf("export sitemap:\n%s", sitemap)
	}
	if robots := out.get(t, "robots.txt"); !strings.Contains(robots, "Sitemap: https://docs.acme.test/docs/sitemap.xml") {
		t.Errorf("robots.txt:\n%s", robots)
	}
	checkNoExternalRefs(t, out.files)
	for _, l := range internalLinks(t, out.files, opts) {
		if !out.has(l.target) {
			t.Errorf("%s: link %q → %s does not exist", l.from, l.href, l.target)
		}
	}
}

func TestBuildIndexCopyOfFirstPage(t *testing.T) {
	t.Parallel()
	const site = `
-- docs.json --
{"navigation": {"groups": [{"group": "G", "pages": ["guides/start", "guides/next"]}]}}
-- guides/start.mdx --
# Start
Go [next](next).
-- guides/next.mdx --
# Next
`
	for _, export := range []bool{false, true} {
		_, out := build(t, site, Options{Export: export})
		index := out.get(t, "index.html")
		want := `<a href="/guides/next">next</a>`
		if export {
			want = `<a href="guides/next.html">next</a>`
		}
		if !strings.Contains(index, "<h1 class=\"lc-title\">Start</h1>") || !strings.Contains(index, want) {
			t.Errorf("export=%v: index.html is not a working copy of the first page (want %s)", export, want)
		}
	}
}

// TestScanLikeWalkDir checks that site.scan, which reads folders in
// parallel, lists the source as fs.WalkDir does: same files in the same
// order, dot-files and dot-folders left out, symbolic links warned about
// in order and not followed.
func TestScanLikeWalkDir(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		"docs.json":        {Data: []byte("{}")},
		"a/x.mdx":          {Data: []byte("x")},
		"a-b/x.mdx":        {Data: []byte("x")},
		"a/b/c/deep.md":    {Data: []byte("x")},
		"a/b/img.png":      {Data: []byte("x")},
		"a/.hidden/x.mdx":  {Data: []byte("x")},
		".git/config":      {Data: []byte("x")},
		"z/.dot.mdx":       {Data: []byte("x")},
		"z/link.mdx":       {Data: []byte("a/x.mdx"), Mode: fs.ModeSymlink},
		"link-dir":         {Data: []byte("a"), Mode: fs.ModeSymlink},
		"z/y/index.mdx":    {Data: []byte("x")},
		"snippets/s.mdx":   {Data: []byte("x")},
		"Upper/Case.MDX":   {Data: []byte("x")},
		"empty/.gitkeep":   {Data: []byte("")},
		"m/n/o/p/q/r.json": {Data: []byte("{}")},
	}
	var want, wantPages, wantWarn []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != "." && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			wantWarn = append(wantWarn, p)
			return nil
		}
		if d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		want = append(want, p)
		if links.IsPageFile(p) {
			wantPages = append(wantPages, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, stamps := range []bool{false, true} {
		s := &site{src: fsys, w: &diag.Warner{}, files: map[string]bool{}}
		if stamps {
			s.stamps = map[string]cache.Stamp{}
		}
		pages, err := s.scan()
		if err != nil {
			t.Fatal(err)
		}
		var warned []string
		for _, w := range s.w.List() {
			warned = append(warned, w.File)
		}
		if !reflect.DeepEqual(s.fileList, want) || !reflect.DeepEqual(pages, wantPages) || !reflect.DeepEqual(warned, wantWarn) || len(s.files) != len(want) {
			t.Fatalf("scan: files %q pages %q warnings %q\nwant %q %q %q", s.fileList, pages, warned, want, wantPages, wantWarn)
		}
		if stamps && len(s.stamps) != len(want) {
			t.Fatalf("%d stamps for %d files", len(s.stamps), len(want))
		}
	}
	// A folder that cannot be read fails the scan.
	bad := &failingFS{FS: fsys, fail: "a/b"}
	s := &site{src: bad, w: &diag.Warner{}, files: map[string]bool{}}
	if _, err := s.scan(); err == nil {
		t.Fatal("no error for a folder that cannot be read")
	}
}

// failingFS is fsys whose folder fail cannot be read.
type failingFS struct {
	fs.FS
	fail string
}

func (f *failingFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if name == f.fail {
		return nil, errors.New("unreadable")
	}
	return fs.ReadDir(f.FS, name)
}
