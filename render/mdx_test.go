package render

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"slices"
	"strings"
	"testing"

	"lectern.dev/lectern/internal/sitetest"
	"lectern.dev/lectern/render/diag"
)

// renderIndex builds a one-page site whose index.mdx is src (plus the
// extra archive files) and returns the rendered content and the warnings.
func renderIndex(t *testing.T, src, extra string) (string, []diag.Warning) {
	t.Helper()
	archive := "-- docs.json --\n{\"navigation\": {\"pages\": [\"index\"]}}\n-- index.mdx --\n" + src + "\n" + extra
	res, out := build(t, archive, Options{BasePath: "/docs"})
	return sitetest.Content(t, out.get(t, "index.html")), res.Warnings
}

func warningsText(ws []diag.Warning) string {
	var parts []string
	for _, w := range ws {
		parts = append(parts, w.String())
	}
	return strings.Join(parts, "\n")
}

func TestMDXRendering(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, src, extra string
		want             []string
		notWant          []string
		warnings         []string // substrings, one per warning, in order
	}{
		{name: "inline component in a paragraph",
			src:  "Click <Icon icon=\"star\" /> then <Badge>new</Badge>.",
			want: []string{`<p>Click <svg class="lc-icon" data-icon="star"`, `</svg> then <span class="lc-badge lc-badge-gray lc-badge-rounded">new</span>.</p>`}},
		{name: "one-line block component",
			src:  "<Warning>Careful **now**</Warning>",
			want: []string{`<aside class="lc-callout lc-warning" role="note" aria-label="Warning"><span class="lc-callout-icon">`, `</svg></span><div class="lc-callout-body">Careful <strong>now</strong></div></aside>`}},
		{name: "component in a list item",
			src:  "1. First\n   <Tip>\n     Deep tip\n   </Tip>\n2. Second",
			want: []string{`<li>`, `<aside class="lc-callout lc-tip" role="note" aria-label="Tip">`, `<div class="lc-callout-body"><p>Deep tip</p>`, `Second`}},
		{name: "deeply indented Markdown in components",
			src:  "<Tabs>\n  <Tab title=\"A\">\n    ## Inside\n\n    - one\n    - two\n  </Tab>\n</Tabs>",
			want: []string{`<h2 id="inside">Inside</h2>`, "<ul>\n<li>one</li>\n<li>two</li>\n</ul>"}},
		{name: "attributes of every kind",
			src:  "<CardGroup cols={3}>\n<Card title='Single' href=\"/index\" horizontal={true} />\n</CardGroup>",
			want: []string{`<div class="lc-card-group" style="--lc-cols: 3">`, `class="lc-card lc-card-link lc-card-horizontal"`, `<a class="lc-card-title" href="/docs/">Single</a>`}},
		{name: "array and object attributes",
			src:  "<Update label=\"v1\" tags={[\"A\", 'B']} description={\"Big\"}>\nText\n</Update>",
			want: []string{`<h2 class="lc-update-label" id="v1">v1</h2><span class="lc-badge">A</span><span class="lc-badge">B</span><div class="lc-update-description">Big</div>`}},
		{name: "expressions",
			src:  "a{\" \"}b {'quoted *text*'} {42} {/* gone */} {`tpl`}",
			want: []string{`<p>a b quoted *text* 42  tpl</p>`}},
		{name: "unknown expression",
			src:      "Value: {user.name}",
			want:     []string{`Value: {user.name}`},
			warnings: []string{"index.mdx:1: cannot evaluate the expression {user.name}; shown as text"}},
		{name: "JSX in code stays literal",
			src:     "Use `<Card />` or\n\n~~~\n<Note>x</Note>\n~~~\n\n```\n{broken\n```",
			want:    []string{`<code>&lt;Card /&gt;</code>`, `&lt;Note&gt;x&lt;/Note&gt;`, `{broken`},
			notWant: []string{`lc-callout`}},
		{name: "HTML with JSX attributes",
			src:   "<div className=\"grid\" style={{ marginTop: 8, borderRadius: '4px' }}>\n  <img src=\"/pic.png\" alt=\"Pic\" />\n</div>",
			extra: "-- pic.png --\nPNG\n",
			want:  []string{`<div class="grid" style="margin-top: 8px; border-radius: 4px">`, `<img src="/docs/pic.png" alt="Pic">`}},
		{name: "external media becomes a link",
			src:     "![Remote](https://img.test/a.png)\n\n<iframe src=\"https://video.test/embed\" title=\"Video\"></iframe>",
			want:    []string{`<a href="https://img.test/a.png" class="lc-external-media">Remote</a>`, `<a class="lc-media-card" href="https://video.test/embed" target="_blank" rel="noopener noreferrer">`, `<span class="lc-media-title">Video</span><span class="lc-media-provider">video.test<span class="lc-sr-only"> (opens in a new tab)</span></span>`},
			notWant: []string{`<img`, `<iframe`}},
		{name: "missing image",
			src:      "Text\n\n![Alt](/images/missing.png)\n\n<img src=\"/images/gone.png\" />",
			want:     []string{`src="/docs/images/missing.png"`},
			warnings: []string{`index.mdx:3: image "/images/missing.png" not found`, `index.mdx:5: image "/images/gone.png" not found`}},
		{name: "broken link",
			src:      "See [nothing](/nowhere) and [a file](/missing.pdf).",
			warnings: []string{`index.mdx:1: broken link "/nowhere": no page or file nowhere`, `index.mdx:1: broken link "/missing.pdf"`}},
		{name: "unclosed and stray tags",
			src:      "<Note>\nnever closed\n\nafter </Tip> text",
			want:     []string{`never closed`, `after  text`},
			warnings: []string{"index.mdx:1: <Note> is never closed", "index.mdx:4: closing tag </Tip> has no matching opening tag; ignored"}},
		{name: "malformed tag",
			src:      "<Card title=\"oops>\n\nrest",
			want:     []string{`rest`},
			warnings: []string{`index.mdx:1: malformed tag`}},
		{name: "snippet imports",
			src: "import Intro from '/snippets/intro.mdx'\nimport { Hi, Box as B } from \"../snippets/parts.mdx\";\nimport Missing from '/snippets/nope.mdx'\nimport { thing } from '/snippets/code.jsx'\n\n<Intro who=\"you\" />\n\n<Hi name=\"Ada\" />\n\n<B>\n  **inner**\n</B>\n\n<Missing />",
			extra: "-- snippets/intro.mdx --\n---\ntitle: ignored\n---\n## Hello {who}\n-- snippets/parts.mdx --\n" +
				"export const Hi = ({ name, greeting = \"Hello\" }) => (\n  <p>\n    {greeting}, {name}!\n  </p>\n);\n\n" +
				"export const Box = ({ children }) => <div className=\"box\">{children}</div>;\n",
			want: []string{`<h2 id="hello-you">Hello you</h2>`, `<p>Hello, Ada!</p>`, `<div class="box"><p><strong>inner</strong></p>`},
			warnings: []string{
				`index.mdx:3: cannot import "/snippets/nope.mdx": file not found`,
				`index.mdx:4: cannot import "/snippets/code.jsx": file not found`,
				`index.mdx:14: <Missing> is not rendered: the import that defines it failed; a placeholder is shown`,
			}},
		{name: "export statements",
			src:     "export const answer = 42\nexport const who = { name: \"Ada\" }\n\nThe answer is {answer}, {who.name}.",
			want:    []string{`<p>The answer is 42, Ada.</p>`},
			notWant: []string{"export"}},
		{name: "fragments and nested components",
			src: "<>\n<AccordionGroup>\n  <Accordion title=\"A\" defaultOpen>\n    <Expandable title=\"props\">\n      <ResponseField name=\"id\" type=\"string\" default=\"x\">\n        The id.\n      </ResponseField>\n    </Expandable>\n  </Accordion>\n</AccordionGroup>\n</>",
			want: []string{`<details class="lc-accordion" id="a" open>`, `<details class="lc-expandable"><summary><span class="lc-expandable-show">Show</span><span class="lc-expandable-hide">Hide</span> props</summary>`,
				`<code class="lc-field-name">id</code><span class="lc-field-type">string</span><span class="lc-field-default">default: <code>x</code></span>`}},
		{name: "frames, code groups and trees",
			src:   "<Frame caption=\"Cap\">\n  <img src=\"/a.png\" />\n</Frame>\n\n<CodeGroup>\n```bash npm\nnpm i\n```\n```bash title=\"yarn\" {1}\nyarn add\n```\n</CodeGroup>\n\n<Tree>\n  <Tree.Folder name=\"app\" defaultOpen>\n    <Tree.File name=\"main.go\" />\n  </Tree.Folder>\n</Tree>",
			extra: "-- a.png --\nPNG\n",
			want: []string{`<figure class="lc-frame">`, `<figcaption>Cap</figcaption>`, `<div class="lc-code-group">`,
				`<span class="lc-code-title">npm</span>`, `<span class="lc-code-title">yarn</span>`,
				`<li class="lc-tree-folder"><details open><summary class="lc-tree-item">`, `<span class="lc-tree-name">app</span></summary><ul><li class="lc-tree-file"><span class="lc-tree-item">`,
				`<span class="lc-tree-name">main.go</span></span></li>`}},
		{name: "GitHub Markdown",
			src:  "| a | b |\n|---|---|\n| 1 | ~~2~~ |\n\n- [x] done\n\nwww.example.com\n\n<details><summary>raw</summary>HTML</details>",
			want: []string{`<table>`, `<del>2</del>`, `<input checked="" disabled="" type="checkbox"`, `<a href="http://www.example.com">`, `<details><summary>raw</summary>HTML</details>`}},
		{name: "heading ids are unique",
			src:  "## Setup\n\n## Setup\n\n### Über `code` [link](/)",
			want: []string{`<h2 id="setup">`, `<h2 id="setup-1">`, `<h3 id="über-code-link">`}},
		{name: "snippets that include themselves",
			src:      "import Loop from '/snippets/loop.mdx'\n\n<Loop />",
			extra:    "-- snippets/loop.mdx --\nimport Again from '/snippets/loop.mdx'\n\nonce <Again /> <Again /> <Again />\n",
			want:     []string{"<p>once"},
			warnings: []string{"snippets/loop.mdx:3: <Again> includes itself; not rendered again"}},
		{name: "scripts are removed",
			src:      "<script>alert(1)</script>\n\nok",
			notWant:  []string{"alert"},
			warnings: []string{"index.mdx:1: <script> is not allowed in page content; removed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			body, ws := renderIndex(t, tt.src, tt.extra)
			for _, w := range tt.want {
				if !strings.Contains(body, w) {
					t.Errorf("body lacks %s\nbody:\n%s", w, body)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(body, w) {
					t.Errorf("body has %s\nbody:\n%s", w, body)
				}
			}
			if len(ws) != len(tt.warnings) {
				t.Errorf("warnings:\n%s\nwant %d: %q", warningsText(ws), len(tt.warnings), tt.warnings)
				return
			}
			for i, w := range tt.warnings {
				if !strings.Contains(ws[i].String(), w) {
					t.Errorf("warning %d = %q, want it to contain %q", i, ws[i], w)
				}
			}
		})
	}
}

// TestMDXNeverPanics renders damaged versions of real pages and
// hand-written edge cases: every one must build.
func TestMDXNeverPanics(t *testing.T) {
	t.Parallel()
	inputs := []string{
		"", "<", "{", "}", "<>", "</>", "</Note>", "<Note", "<Note>", "{{{{", "`", "```", "~~~\n<Note>",
		"<A><B><C></A>", "<a href=", "<Card title={<><Icon icon=\"x\" /></>} />", "{<Note>x</Note>}",
		"export", "export const", "export const X = () => (", "export const X = () => <", "import", "import X from",
		"import {A from 'x.mdx'", "<X {...props} />", "<X a={b.c[0]} />", "{/* unclosed", "<!-- <Note> -->",
		strings.Repeat("<Note>", 500), strings.Repeat("{", 1000), strings.Repeat("[", 2000) + "x",
		strings.Repeat("<div>", 300), strings.Repeat("> ", 300) + "deep", "<Update label={[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]} />",
		strings.Repeat("{ x\n", 2000), strings.Repeat("<code>x\n", 2000), "<Card title={" + strings.Repeat("<a ", 2000) + "} />",
		strings.Repeat("- ", 2000) + "x", strings.Repeat("` a ", 2000),
		"\x00\xff\xfe<Note>\x00</Note>", "<Card title=\"\u202e\" href=\"javascript:alert(1)\" />",
	}
	for _, name := range []string{"mintlify-starter/essentials/reusable-snippets.mdx", "mintlify-starter/essentials/images.mdx",
		"pipecat-docs/pipecat/examples/recipes.mdx", "pipecat-docs/api-reference/server/services/tts/murf.mdx"} {
		data, err := os.ReadFile(corpusDir + name)
		if err != nil {
			t.Fatal(err)
		}
		rnd := rand.New(rand.NewSource(int64(len(data))))
		for i := 0; i < 8; i++ {
			cut := rnd.Intn(len(data))
			inputs = append(inputs, string(data[:cut]))                                // truncated
			inputs = append(inputs, string(data[:cut/2])+string(data[cut:]))           // a hole
			inputs = append(inputs, strings.ReplaceAll(string(data), ">", "")[cut/3:]) // no tag ends
		}
	}
	for i, src := range inputs {
		for _, page := range []string{"index.mdx", "index.md"} {
			archive := "-- docs.json --\n{\"navigation\": {\"pages\": [\"index\"]}}\n-- " + page + " --\n" + src + "\n" +
				"-- snippets/community-maintained.mdx --\n" + src + "\n"
			out := newMemOutput()
			if _, err := Build(context.Background(), sitetest.Archive(t, archive), out, Options{}); err != nil {
				t.Errorf("input %d (%s): %v", i, page, err)
			} else if !out.has("index.html") {
				t.Errorf("input %d (%s): no index.html", i, page)
			}
		}
	}
}

func TestMarkdownFilesAreNotMDX(t *testing.T) {
	t.Parallel()
	const site = `
-- docs.json --
{"navigation": {"pages": ["notes"]}}
-- notes.md --
Braces {stay} and <Note>components still work</Note>.
`
	res, out := build(t, site, Options{})
	body := sitetest.Content(t, out.get(t, "notes.html"))
	if !strings.Contains(body, "Braces {stay}") || !strings.Contains(body, "lc-callout") {
		t.Errorf("body:\n%s", body)
	}
	if len(res.Warnings) != 0 {
		t.Errorf("warnings: %v", res.Warnings)
	}
}

func TestFrontMatter(t *testing.T) {
	t.Parallel()
	const site = `
-- docs.json --
{"navigation": {"pages": ["a", "b", "c"]}}
-- a.mdx --
---
title: "A: the first"
description: Desc <b>
sidebarTitle: Short A
keywords: [one, two]
noindex: true
mode: wide
---
Body A
-- b.mdx --
---
title: [unclosed
---
Body B
-- c.mdx --
Body C without a title
`
	res, out := build(t, site, Options{SiteURL: "https://x.test"})
	a := out.get(t, "a.html")
	for _, want := range []string{`<title>A: the first – Documentation</title>`, `content="Desc &lt;b&gt;"`, `<meta name="keywords" content="one, two">`,
		`<meta name="robots" content="noindex">`, `lc-mode-wide`, `>Short A</a>`} {
		if !strings.Contains(a, want) {
			t.Errorf("a.html lacks %s", want)
		}
	}
	if strings.Contains(out.get(t, "sitemap.xml"), "/a<") || slices.Contains(searchPaths(t, out), "a") {
		t.Errorf("noindex page listed in the sitemap or search index")
	}
	if !strings.Contains(out.get(t, "c.html"), `<h1 class="lc-title">C</h1>`) {
		t.Errorf("c.html is not titled from its file name")
	}
	if len(res.Warnings) != 1 || res.Warnings[0].File != "b.mdx" || res.Warnings[0].Line != 2 ||
		!strings.HasPrefix(res.Warnings[0].Message, "invalid front matter") {
		t.Errorf("warnings = %v, want one for b.mdx:2", res.Warnings)
	}
}

func TestFuzzishParserTerminates(t *testing.T) {
	t.Parallel()
	alphabet := []string{"<", ">", "/", "{", "}", "`", "```", "\n", " ", "Note", "a", "=", "\"", "'", "import ", "export const X = ", "(", ")", "-", "*", "#", "\\"}
	rnd := rand.New(rand.NewSource(1))
	for i := 0; i < 300; i++ {
		var b strings.Builder
		for j := rnd.Intn(80); j > 0; j-- {
			b.WriteString(alphabet[rnd.Intn(len(alphabet))])
		}
		src := b.String()
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("panic on %q: %v", src, r)
				}
			}()
			out := newMemOutput()
			archive := fmt.Sprintf("-- docs.json --\n{\"navigation\": {\"pages\": [\"index\"]}}\n-- index.mdx --\n%s\n", src)
			if _, err := Build(context.Background(), sitetest.Archive(t, archive), out, Options{}); err != nil {
				t.Fatalf("%q: %v", src, err)
			}
		}()
	}
}
