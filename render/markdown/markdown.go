package markdown

import (
	"bytes"
	"html"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	gmrenderer "github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"
	"lectern.dev/lectern/render/highlight"
	"lectern.dev/lectern/render/icons"
)

// Engine is the Markdown engine: CommonMark plus GitHub extensions (tables,
// strikethrough, task lists, autolinks), heading ids, the MDX extension
// (insets.go), and, as in MDX, neither indented code blocks (indented
// content inside components stays Markdown) nor goldmark's raw HTML parsers
// (every tag is JSX, read by the MDX scanner).
var Engine = newMarkdown()

func newMarkdown() goldmark.Markdown {
	var blocks []util.PrioritizedValue
	for _, b := range parser.DefaultBlockParsers() {
		if b.Value == parser.NewCodeBlockParser() || b.Value == parser.NewHTMLBlockParser() {
			continue
		}
		blocks = append(blocks, b)
	}
	var inlines []util.PrioritizedValue
	for _, in := range parser.DefaultInlineParsers() {
		if in.Value == parser.NewRawHTMLParser() {
			continue
		}
		inlines = append(inlines, in)
	}
	p := parser.NewParser(
		parser.WithBlockParsers(blocks...),
		parser.WithInlineParsers(inlines...),
		parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
		parser.WithAutoHeadingID(),
	)
	return goldmark.New(
		goldmark.WithParser(p),
		goldmark.WithExtensions(extension.GFM, mdxExtension{}),
		goldmark.WithRendererOptions(
			gmrenderer.WithNodeRenderers(util.Prioritized(codeRenderer{}, 100)),
		),
	)
}

// ExternalImageLink turns an image on another host into a link to it, so
// that pages load nothing from other hosts.
func ExternalImageLink(img *ast.Image) ast.Node {
	link := ast.NewLink()
	link.Destination = img.Destination
	link.Title = img.Title
	link.SetAttributeString("class", []byte("lc-external-media"))
	for c := img.FirstChild(); c != nil; {
		next := c.NextSibling()
		link.AppendChild(link, c)
		c = next
	}
	if link.ChildCount() == 0 {
		link.AppendChild(link, ast.NewString([]byte("External image")))
	}
	return link
}

// NodeLine returns the file line of an inline node: the line of needle in
// the enclosing block, or of the block itself.
func NodeLine(n ast.Node, source []byte, lm *LineMap, needle string) int {
	for p := n; p != nil; p = p.Parent() {
		if p.Type() != ast.TypeBlock || p.Lines().Len() == 0 {
			continue
		}
		off := p.Lines().At(0).Start
		if needle != "" {
			if k := bytes.Index(source[off:], []byte(needle)); k >= 0 {
				off += k
			}
		}
		return lm.At(bytes.Count(source[:off], []byte{'\n'}))
	}
	return lm.At(0)
}

// LineMap maps lines of a flow's Markdown to lines of its file.
type LineMap struct{ comp, orig []int }

func (m *LineMap) Mark(compLine, origLine int) {
	m.comp = append(m.comp, compLine)
	m.orig = append(m.orig, origLine)
}

func (m *LineMap) At(compLine int) int {
	for i := len(m.comp) - 1; i >= 0; i-- {
		if m.comp[i] <= compLine {
			return m.orig[i] + compLine - m.comp[i]
		}
	}
	if len(m.orig) > 0 {
		return m.orig[0]
	}
	return 0
}

// HeadingIDs gives headings unique, GitHub-style ids across all the flows
// of a page.
type HeadingIDs struct{ used map[string]bool }

// NewHeadingIDs returns the ids of a page, with LayoutIDs taken.
func NewHeadingIDs() *HeadingIDs {
	h := &HeadingIDs{used: make(map[string]bool, len(LayoutIDs)+16)}
	for _, id := range LayoutIDs {
		h.used[id] = true
	}
	return h
}

// LayoutIDs are the ids of the page around the content (render/layout:
// Lectern's own, and those Mintlify documents for custom CSS), which a
// heading does not take: a heading "Content" gets the id content-1.
var LayoutIDs = []string{
	"navbar", "body-content", "sidebar", "content-area", "header", "content", "pagination", "table-of-contents",
	"footer", "search-bar-entry", "assistant-entry", "topbar-cta-button",
	"lc-content", "lc-search", "lc-search-input", "lc-search-results", "lc-assistant", "page-context-menu", "lc-page-menu",
	"lc-feedback-title", "lc-feedback-comment",
}

func (h *HeadingIDs) Generate(value []byte, _ ast.NodeKind) []byte {
	base := slugify(string(value))
	if base == "" {
		base = "section"
	}
	id := base
	for i := 1; h.used[id]; i++ {
		id = base + "-" + strconv.Itoa(i)
	}
	h.used[id] = true
	return []byte(id)
}

func (h *HeadingIDs) Put(value []byte) { h.used[string(value)] = true }

var (
	TagRE    = regexp.MustCompile(`<[^>]*>`)
	mdLinkRE = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
)

// slugify makes a heading id: lower case letters and digits, spaces and
// dashes as "-", everything else dropped.
func slugify(s string) string {
	s = TagRE.ReplaceAllString(s, "")
	s = mdLinkRE.ReplaceAllString(s, "$1")
	s = html.UnescapeString(s)
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(s)) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_':
			b.WriteRune(r)
		case r == ' ' || r == '-' || r == '\t':
			b.WriteByte('-')
		}
	}
	return strings.Trim(b.String(), "-")
}

// codeRenderer renders fenced code blocks with their title, as Mintlify
// writes them: ```lang title {1,3}.
type codeRenderer struct{}

// CodeStoreAttr is the attribute of a fenced code block that holds the
// build's store of highlighted code (components.Renderer.markdown sets it when the
// build has a cache).
var CodeStoreAttr = []byte("lectern-code-store")

func (codeRenderer) RegisterFuncs(reg gmrenderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindFencedCodeBlock, renderFence)
}

func renderFence(w util.BufWriter, source []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	fc := n.(*ast.FencedCodeBlock)
	var info string
	if fc.Info != nil {
		info = string(fc.Info.Segment.Value(source))
	}
	cb := highlight.ParseInfo(info)
	cb.Icon = icons.HTML(cb.IconName) // a name only: an image path is not drawn
	var code strings.Builder
	for i := 0; i < fc.Lines().Len(); i++ {
		line := fc.Lines().At(i)
		code.Write(line.Value(source))
	}
	cb.Code = code.String()
	buf := codeBufs.Get().(*bytes.Buffer)
	buf.Reset()
	if strings.EqualFold(cb.Lang, "mermaid") {
		WriteMermaid(buf, cb.Code)
	} else {
		var cs *highlight.Store
		if v, ok := fc.Attribute(CodeStoreAttr); ok {
			cs, _ = v.(*highlight.Store)
		}
		highlight.Write(buf, cb, cs)
	}
	_, _ = w.Write(buf.Bytes())
	codeBufs.Put(buf)
	return ast.WalkSkipChildren, nil
}

var codeBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// WriteMermaid writes a diagram's source for mermaid to draw.
func WriteMermaid(w *bytes.Buffer, src string) {
	w.WriteString(MermaidMarker)
	highlight.EscapeTo(w, src)
	w.WriteString("</pre>\n")
}

// MermaidMarker starts the markup of a mermaid diagram: a page that has
// it needs mermaid's script.
const MermaidMarker = `<pre class="mermaid">`
