package highlight

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestParseCodeInfo(t *testing.T) {
	t.Parallel()
	cases := []struct {
		info, lang, title string
		hl                []LineRange
	}{
		{"", "", "", nil},
		{"python title.py {1,3-5}", "python", "title.py", []LineRange{{1, 1}, {3, 5}}},
		{"js Title Here highlight={2}", "js", "Title Here", []LineRange{{2, 2}}},
		{`ts title="a b.ts" highlight="{4-5,1}" expandable`, "ts", "a b.ts", []LineRange{{1, 1}, {4, 5}}},
		{"{2}", "", "", []LineRange{{2, 2}}},
		{"go {x,0,3-1,7}", "go", "", []LineRange{{7, 7}}},
		{`c++ "my file"`, "c++", "my file", nil},
		{`html"onmouseover=x`, "", "", nil},
	}
	for _, c := range cases {
		got := ParseInfo(c.info)
		if got.Lang != c.lang || got.Title != c.title || len(got.Lines) != len(c.hl) {
			t.Errorf("parseCodeInfo(%q) = %+v, want lang %q title %q hl %v", c.info, got, c.lang, c.title, c.hl)
			continue
		}
		for i := range c.hl {
			if got.Lines[i] != c.hl[i] {
				t.Errorf("parseCodeInfo(%q).highlight = %v, want %v", c.info, got.Lines, c.hl)
			}
		}
	}
}

func TestParseCodeInfoFlags(t *testing.T) {
	t.Parallel()
	got := ParseInfo(`java Hello.java example icon="java" lines wrap`)
	if got.Title != "Hello.java example" || got.IconName != "java" || !got.Numbers || !got.Wrap {
		t.Errorf("ParseInfo = %+v, want title, icon java, line numbers and wrap", got)
	}
	if got := ParseInfo("js lines={2}"); got.Numbers || len(got.Lines) != 1 {
		t.Errorf("lines={2} highlights a line and shows no numbers; got %+v", got)
	}
	if got := ParseLines("[1,3, 4-5]"); len(got) != 3 || got[2] != (LineRange{4, 5}) {
		t.Errorf("ParseLines = %v", got)
	}
}

func TestWriteUntitledHasNoHeader(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	Write(&b, Block{Lang: "go", Code: "x\n"}, nil)
	if s := b.String(); strings.Contains(s, "lc-code-header") || strings.Contains(s, "lc-code-title") ||
		!strings.HasPrefix(s, `<div class="lc-code" data-lang="go">`+copyButton+`<pre`) {
		t.Errorf("an untitled block has a header or no copy button first: %s", s)
	}
	b.Reset()
	Write(&b, Block{Lang: "go", Code: "x\n", NoCopy: true}, nil)
	if strings.Contains(b.String(), "lc-copy") {
		t.Errorf("NoCopy block has a copy button: %s", b.String())
	}
}

func TestHighlightMultilineTokenAndOverlappingRanges(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	code := "/* one\ntwo */\nx := 1\n"
	highlightTo(&b, lexerFor("go"), code, normalizeRanges([]LineRange{{2, 3}, {1, 2}}))
	want := "<span class=\"hl\"><span class=\"cm\">/* one</span>\n</span>" +
		"<span class=\"hl\"><span class=\"cm\">two */</span>\n</span>" +
		"<span class=\"hl\"><span class=\"nx\">x</span> <span class=\"o\">:=</span> <span class=\"mi\">1</span>\n</span>"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
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
	cb := Block{Lang: "go", Title: "main.go", Lines: []LineRange{{2, 4}}, Code: benchCode}
	var buf bytes.Buffer
	Write(&buf, cb, nil)
	b.SetBytes(int64(len(benchCode)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		buf.Reset()
		Write(&buf, cb, nil)
	}
}

// BenchmarkHighlightUncached measures chroma's lexing plus Lectern's
// markup, without the cache of highlighted blocks.
func BenchmarkHighlightUncached(b *testing.B) {
	lexer := lexerFor("go")
	hl := []LineRange{{2, 4}}
	var buf bytes.Buffer
	b.SetBytes(int64(len(benchCode)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		buf.Reset()
		highlightTo(&buf, lexer, benchCode, hl)
	}
}

func BenchmarkHighlightLanguages(b *testing.B) {
	blocks := []Block{
		{Lang: "bash", Code: "curl -X POST https://api.acme.test/v1/items \\\n  -H \"Authorization: Bearer $TOKEN\" \\\n  -d '{\"name\": \"x\"}'\n"},
		{Lang: "json", Code: "{\n  \"id\": 42,\n  \"name\": \"acme\",\n  \"tags\": [\"a\", \"b\"],\n  \"ok\": true\n}\n"},
		{Lang: "python", Code: "import acme\n\nclient = acme.Client(api_key=\"k\")\nfor item in client.items.list():\n    print(item.id)\n"},
		{Lang: "javascript", Code: "import { Acme } from 'acme';\nconst client = new Acme({ apiKey: process.env.KEY });\nconst items = await client.items.list();\nconsole.log(items);\n"},
	}
	var buf bytes.Buffer
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		for _, cb := range blocks {
			buf.Reset()
			highlightTo(&buf, lexerFor(cb.Lang), cb.Code, nil)
		}
	}
}

func TestHighlightCSS(t *testing.T) {
	t.Parallel()
	css := string(CSS())
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
}

// A language name longer than any lexer's is plain text without a lookup
// (chroma's takes time that grows with it); known ones still highlight.
func TestLexerForLongNames(t *testing.T) {
	if lexerFor("go") == nil || lexerFor("Python") == nil {
		t.Fatal("known languages are not found")
	}
	long := strings.Repeat("z", maxLangLen+1)
	start := time.Now()
	for i := range 1000 {
		if lexerFor(long+strconv.Itoa(i)) != nil {
			t.Fatal("a lexer for an overlong name")
		}
	}
	if _, ok := lexerCache.Load(long + "0"); ok {
		t.Error("an overlong name is kept in the cache")
	}
	t.Logf("1,000 overlong names in %v", time.Since(start))
}
