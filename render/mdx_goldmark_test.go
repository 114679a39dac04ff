package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"lectern.dev/lectern/render/markdown"
)

// parseInsets parses Markdown in which insets stand as tokens and returns
// goldmark's tree, as flow does.
func parseInsets(src string, n int) ast.Node {
	insets := make([]markdown.Inset, n)
	pc := parser.NewContext()
	pc.Set(markdown.InsetsKey, insets)
	return markdown.Engine.Parser().Parse(text.NewReader([]byte(src)), parser.WithContext(pc))
}

// kindsOf lists the kinds of the tree's nodes, parents before children.
func kindsOf(doc ast.Node) []string {
	var kinds []string
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			kinds = append(kinds, n.Kind().String())
		}
		return ast.WalkContinue, nil
	})
	return kinds
}

// The extension puts every inset in goldmark's tree: a token alone on a
// line is an MDXBlock (interrupting a paragraph, inside list items and
// quotes), any other is an MDXInline within its block.
func TestMDXInsetsInTheTree(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, src string
		insets    int
		want      string // the kinds, in order, joined by " "
	}{
		{"block alone", "<mdx-0>\n", 1, "Document MDXBlock"},
		{"block interrupts a paragraph", "Text\n<mdx-0>\nmore", 1, "Document Paragraph Text MDXBlock Paragraph Text"},
		{"indented block", "        <mdx-0>\n", 1, "Document MDXBlock"},
		{"inline in a paragraph", "a <mdx-0> b", 1, "Document Paragraph Text MDXInline Text"},
		{"token first then text is inline", "<mdx-0> then", 1, "Document Paragraph MDXInline Text"},
		{"in a list item", "- item\n  <mdx-0>\n", 1, "Document List ListItem TextBlock Text MDXBlock"},
		{"in a block quote", "> <mdx-0>\n", 1, "Document Blockquote MDXBlock"},
		{"in a heading", "## Title <mdx-0>\n", 1, "Document Heading Text MDXInline"},
		{"in link text", "[<mdx-0> go](/x)", 1, "Document Paragraph Link MDXInline Text"},
		{"in a table cell", "| a | b |\n|---|---|\n| <mdx-0> | <mdx-1> |\n", 2,
			"Document Table TableHeader TableCell Text TableCell Text TableRow TableCell MDXInline TableCell MDXInline"},
		{"in a code span it is code", "`<mdx-0>`", 1, "Document Paragraph CodeSpan Text"},
		{"in a fence it is code", "```\n<mdx-0>\n```\n", 1, "Document FencedCodeBlock"},
		{"unknown number is text", "<mdx-7>\n", 1, "Document Paragraph Text"},
		{"not a token", "<mdx-x> and <mdx-1\n", 2, "Document Paragraph Text Text"},
	}
	for _, tc := range tests {
		got := strings.Join(kindsOf(parseInsets(tc.src, tc.insets)), " ")
		if got != tc.want {
			t.Errorf("%s: %q\n got: %s\nwant: %s", tc.name, tc.src, got, tc.want)
		}
	}
}

// Raw HTML is no longer goldmark's: a "<" that the scanner did not read
// as a tag is text, comments and stray closing tags are kept as they are,
// and a link to javascript: is not written.
func TestMDXRawHTML(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, src string
		want      []string
		notWant   []string
	}{
		{name: "comment kept", src: "Before\n\n<!-- a note -->\n\nAfter <!-- inline --> end",
			want: []string{"<!-- a note -->", "After <!-- inline --> end"}},
		{name: "comment before an element on the next line",
			src:  "<!-- hidden -->\n<Note>shown</Note>",
			want: []string{"<!-- hidden -->", `<aside class="lc-callout lc-note"`}},
		{name: "stray closing tag does not swallow the next element",
			src:  "</div>\n<Tip>still a tip</Tip>",
			want: []string{"</div>", `<aside class="lc-callout lc-tip"`}},
		{name: "less-than is text", src: "a < b and 3<4 and <3",
			want: []string{"a &lt; b and 3&lt;4 and &lt;3"}},
		{name: "autolink still a link", src: "see <https://example.com/x>",
			want: []string{`<a href="https://example.com/x">https://example.com/x</a>`}},
		{name: "javascript link dropped", src: "[click](javascript:alert(1))",
			want: []string{`<a href="">click</a>`}, notWant: []string{"javascript:"}},
	}
	for _, tc := range tests {
		got, _ := renderIndex(t, tc.src, "")
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: missing %q in\n%s", tc.name, w, got)
			}
		}
		for _, w := range tc.notWant {
			if strings.Contains(got, w) {
				t.Errorf("%s: unexpected %q in\n%s", tc.name, w, got)
			}
		}
	}
}

// A token written in the source by hand is not an inset: the scanner
// reads it as an HTML element, which has nothing to do with the flow's
// insets.
func TestMDXTokenInSourceIsAnElement(t *testing.T) {
	t.Parallel()
	got, _ := renderIndex(t, "Look: <mdx-0> here", "")
	if !strings.Contains(got, "<mdx-0>") || strings.Count(got, "Look:") != 1 {
		t.Errorf("token in the source rendered as\n%s", got)
	}
}

// OpenAPI descriptions are Markdown, not MDX: HTML in them goes through
// the same checks as in pages, and braces are text.
func TestOpenAPIDescriptionHTML(t *testing.T) {
	t.Parallel()
	spec := `{"openapi":"3.0.0","info":{"title":"T","version":"1"},"paths":{"/x":{"get":{` +
		`"description":"Line<br/>next <code>c</code> {braces} <script>alert(1)</script>",` +
		`"responses":{"200":{"description":"ok"}}}}}}`
	archive := "-- docs.json --\n{\"navigation\": {\"pages\": [\"api\"]}}\n-- api.mdx --\n---\nopenapi: \"openapi.json GET /x\"\n---\n-- openapi.json --\n" + spec + "\n"
	res, out := build(t, archive, Options{})
	page := out.get(t, "api.html")
	for _, w := range []string{"Line<br>next <code>c</code> {braces}"} {
		if !strings.Contains(page, w) {
			t.Errorf("missing %q in the description", w)
		}
	}
	if bytes.Contains([]byte(page), []byte("alert(1)")) {
		t.Error("a script from the OpenAPI description reached the page")
	}
	if !strings.Contains(warningsText(res.Warnings), "<script> is not allowed") {
		t.Errorf("no warning for the script; warnings:\n%s", warningsText(res.Warnings))
	}
}

// A warning about an OpenAPI description is reported at the page's
// openapi: line, not at the description's own line numbers.
func TestOpenAPIDescriptionWarningLine(t *testing.T) {
	t.Parallel()
	spec := `{"openapi":"3.0.0","info":{"title":"T","version":"1"},"paths":{"/x":{"get":{` +
		`"description":"One.\n\nTwo.\n\nFive <script>x()</script> [gone](/no/such/page).",` +
		`"responses":{"200":{"description":"ok"}}}}}}`
	archive := "-- docs.json --\n{\"navigation\": {\"pages\": [\"api\"]}}\n-- api.mdx --\n---\ntitle: API\nopenapi: \"openapi.json GET /x\"\n---\n-- openapi.json --\n" + spec + "\n"
	res, _ := build(t, archive, Options{})
	var seen int
	for _, w := range res.Warnings {
		if strings.Contains(w.Message, "<script>") || strings.Contains(w.Message, "no/such/page") {
			seen++
			if w.File != "api.mdx" || w.Line != 3 {
				t.Errorf("warning at %s:%d, want api.mdx:3 (the openapi: line): %s", w.File, w.Line, w.Message)
			}
		}
	}
	if seen != 2 {
		t.Errorf("%d warnings about the description, want 2:\n%s", seen, warningsText(res.Warnings))
	}
}
