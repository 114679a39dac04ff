package render

import (
	"bytes"
	"strings"
	"testing"
)

const copyButton = `<button class="lc-copy" type="button" aria-label="Copy code">Copy</button>`

func TestCodeBlockHighlighting(t *testing.T) {
	t.Parallel()
	fence := "```"
	cases := []struct {
		name, src string
		want      []string
		not       []string
	}{
		{name: "go with title",
			src: fence + "go main.go\npackage main\n\nfunc main() {}\n" + fence,
			want: []string{
				`<div class="lc-code" data-lang="go"><div class="lc-code-header"><span class="lc-code-title">main.go</span>` + copyButton + `</div><pre class="chroma"><code>`,
				`<span class="kn">package</span> <span class="nx">main</span>`,
				`<span class="kd">func</span> <span class="nf">main</span><span class="p">()</span>`,
				"</code></pre></div>",
			}},
		{name: "python highlight braces",
			src: fence + "python title.py {1,3-4}\nimport os\nx = 1\ny = 'a'\n# done\nz = 2\n" + fence,
			want: []string{
				`data-lang="python"`, `<span class="lc-code-title">title.py</span>`,
				`<span class="hl"><span class="kn">import</span> <span class="nn">os</span>` + "\n</span>",
				"<span class=\"hl\">y <span class=\"o\">=</span>",
				"<span class=\"hl\"><span class=\"c1\"># done</span>\n</span>",
				`<span class="s1">'a'</span>`,
			},
			not: []string{`<span class="hl">x`, `<span class="hl">z`}},
		{name: "js title words and highlight attribute",
			src: fence + "js Title Here highlight={2} lines wrap\nconst a = 1;\nconst b = \"<b>\";\n" + fence,
			want: []string{
				`data-lang="js"`, `<span class="lc-code-title">Title Here</span>`,
				`<span class="hl"><span class="kr">const</span> <span class="nx">b</span>`,
				`<span class="s2">&#34;&lt;b&gt;&#34;</span>`,
			},
			not: []string{`<span class="hl"><span class="kr">const</span> <span class="nx">a</span>`}},
		{name: "title attribute",
			src:  fence + "bash title=\"Install it\"\nnpm i acme\n" + fence,
			want: []string{`data-lang="bash"`, `<span class="lc-code-title">Install it</span>`}},
		{name: "unknown language is plain text",
			src:  fence + "klingon\nqapla' <x> & y\n" + fence,
			want: []string{`<div class="lc-code" data-lang="klingon"><div class="lc-code-header"><span class="lc-code-title"></span>` + copyButton + `</div><pre class="chroma"><code>qapla' &lt;x&gt; &amp; y` + "\n</code></pre></div>"}},
		{name: "no language",
			src:  fence + "\nplain <text>\n" + fence,
			want: []string{`<div class="lc-code" data-lang="text"><div class="lc-code-header"><span class="lc-code-title"></span>` + copyButton + `</div><pre class="chroma"><code>plain &lt;text&gt;` + "\n</code></pre></div>"}},
		{name: "code group",
			src: "<CodeGroup>\n\n" + fence + "bash npm\nnpm i acme\n" + fence + "\n\n" + fence + "bash yarn\nyarn add acme\n" + fence + "\n\n</CodeGroup>",
			want: []string{`<div class="lc-code-group"><div class="lc-code" data-lang="bash"><div class="lc-code-header"><span class="lc-code-title">npm</span>`,
				`<span class="lc-code-title">yarn</span>`}},
		{name: "request example",
			src:  "<RequestExample>\n\n" + fence + "json Body\n{\"a\": 1}\n" + fence + "\n\n</RequestExample>",
			want: []string{`<div class="lc-request-example">`, `data-lang="json"`, `<span class="nt">&#34;a&#34;</span>`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, ws := renderIndex(t, c.src, "")
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("missing %q in\n%s", w, got)
				}
			}
			for _, w := range c.not {
				if strings.Contains(got, w) {
					t.Errorf("unexpected %q in\n%s", w, got)
				}
			}
			if len(ws) > 0 {
				t.Errorf("warnings: %s", warningsText(ws))
			}
		})
	}
}

func TestParseCodeInfo(t *testing.T) {
	t.Parallel()
	cases := []struct {
		info, lang, title string
		hl                []lineRange
	}{
		{"", "", "", nil},
		{"python title.py {1,3-5}", "python", "title.py", []lineRange{{1, 1}, {3, 5}}},
		{"js Title Here highlight={2}", "js", "Title Here", []lineRange{{2, 2}}},
		{`ts title="a b.ts" highlight="{4-5,1}" expandable`, "ts", "a b.ts", []lineRange{{1, 1}, {4, 5}}},
		{"{2}", "", "", []lineRange{{2, 2}}},
		{"go {x,0,3-1,7}", "go", "", []lineRange{{7, 7}}},
		{`c++ "my file"`, "c++", "my file", nil},
		{`html"onmouseover=x`, "", "", nil},
	}
	for _, c := range cases {
		got := parseCodeInfo(c.info)
		if got.lang != c.lang || got.title != c.title || len(got.highlight) != len(c.hl) {
			t.Errorf("parseCodeInfo(%q) = %+v, want lang %q title %q hl %v", c.info, got, c.lang, c.title, c.hl)
			continue
		}
		for i := range c.hl {
			if got.highlight[i] != c.hl[i] {
				t.Errorf("parseCodeInfo(%q).highlight = %v, want %v", c.info, got.highlight, c.hl)
			}
		}
	}
}

func TestHighlightMultilineTokenAndOverlappingRanges(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	code := "/* one\ntwo */\nx := 1\n"
	highlightTo(&b, lexerFor("go"), code, normalizeRanges([]lineRange{{2, 3}, {1, 2}}))
	want := "<span class=\"hl\"><span class=\"cm\">/* one</span>\n</span>" +
		"<span class=\"hl\"><span class=\"cm\">two */</span>\n</span>" +
		"<span class=\"hl\"><span class=\"nx\">x</span> <span class=\"o\">:=</span> <span class=\"mi\">1</span>\n</span>"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func TestHighlightCSS(t *testing.T) {
	t.Parallel()
	css := string(highlightCSS())
	for _, w := range []string{
		".chroma .k { color: #cf222e; }", // github
		"@media (prefers-color-scheme: dark) {\n",
		`html:not([data-theme="light"]) .chroma .k { color: inherit; background-color: transparent; font-weight: inherit; font-style: inherit; color: #ff7b72; }`,
		`html[data-theme="dark"] .chroma .k {`,
		`html[data-theme="dark"] .chroma { color: #e6edf3; background-color: #0d1117;`,
		".chroma .hl {",
	} {
		if !strings.Contains(css, w) {
			t.Errorf("highlight CSS lacks %q:\n%s", w, css)
		}
	}
	for _, bad := range []string{".chroma .lnt", ".chroma .line ", ".bg "} {
		if strings.Contains(css, bad) {
			t.Errorf("highlight CSS has unused rule %q", bad)
		}
	}
	_, out := build(t, "-- docs.json --\n{\"navigation\": {\"pages\": [\"index\"]}}\n-- index.mdx --\nhi\n", Options{})
	if !strings.Contains(out.get(t, "_lectern/style.css"), `html[data-theme="dark"] .chroma .k {`) {
		t.Errorf("style.css does not include the highlight CSS")
	}
}

func TestLexerLookup(t *testing.T) {
	t.Parallel()
	for _, lang := range []string{"go", "js", "ts", "tsx", "jsx", "python", "py", "bash", "sh", "shell", "json", "yaml", "yml", "curl", "rust", "java", "ruby", "php", "swift", "kotlin", "csharp", "c++", "html", "css", "sql", "graphql", "toml", "dockerfile", "diff"} {
		if lexerFor(lang) == nil {
			t.Errorf("no lexer for %q", lang)
		}
	}
	for _, lang := range []string{"text", "txt", "plaintext", "klingon", "mermaid", ""} {
		if lexerFor(lang) != nil {
			t.Errorf("lexer for %q, want plain text", lang)
		}
	}
}

var benchCode = strings.Repeat(`package main

import "fmt"

// Greet says hello to name.
func Greet(name string) string {
	return fmt.Sprintf("Hello, %s!", name) // a comment
}
`, 4)

func BenchmarkHighlightGo(b *testing.B) {
	cb := codeBlock{lang: "go", title: "main.go", highlight: []lineRange{{2, 4}}, code: benchCode}
	var buf bytes.Buffer
	writeCodeBlock(&buf, cb, nil)
	b.SetBytes(int64(len(benchCode)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		buf.Reset()
		writeCodeBlock(&buf, cb, nil)
	}
}

// BenchmarkHighlightUncached measures chroma's lexing plus Lectern's
// markup, without the cache of highlighted blocks.
func BenchmarkHighlightUncached(b *testing.B) {
	lexer := lexerFor("go")
	hl := []lineRange{{2, 4}}
	var buf bytes.Buffer
	b.SetBytes(int64(len(benchCode)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		buf.Reset()
		highlightTo(&buf, lexer, benchCode, hl)
	}
}

func BenchmarkHighlightLanguages(b *testing.B) {
	blocks := []codeBlock{
		{lang: "bash", code: "curl -X POST https://api.acme.test/v1/items \\\n  -H \"Authorization: Bearer $TOKEN\" \\\n  -d '{\"name\": \"x\"}'\n"},
		{lang: "json", code: "{\n  \"id\": 42,\n  \"name\": \"acme\",\n  \"tags\": [\"a\", \"b\"],\n  \"ok\": true\n}\n"},
		{lang: "python", code: "import acme\n\nclient = acme.Client(api_key=\"k\")\nfor item in client.items.list():\n    print(item.id)\n"},
		{lang: "javascript", code: "import { Acme } from 'acme';\nconst client = new Acme({ apiKey: process.env.KEY });\nconst items = await client.items.list();\nconsole.log(items);\n"},
	}
	var buf bytes.Buffer
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		for _, cb := range blocks {
			buf.Reset()
			highlightTo(&buf, lexerFor(cb.lang), cb.code, nil)
		}
	}
}
