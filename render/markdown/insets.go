package markdown

import (
	"strconv"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	gmrenderer "github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// The MDX extension of goldmark.
//
// The MDX scanner (render/mdx) reads a file once into text, elements and
// expressions. To render a list of them (a flow), the text is given to
// goldmark as Markdown and every element or JSX value stands in it as an
// Inset token "<mdx-N>". The extension's block parser turns a token that
// stands on its own line into an MDXBlock node, its inline parser turns any
// other token into an MDXInline node, and its node renderer writes the
// element's HTML in their place. So goldmark decides the Markdown structure
// around and between elements (an element can interrupt a paragraph, sit in
// a list item, a table cell, a heading or a link text) and every element is
// a node of goldmark's tree, while JSX itself never reaches goldmark's
// parsers, which cannot mis-read it as Markdown.
//
// In MDX every tag is JSX, so goldmark's own raw-HTML parsers are left out
// (newEngine): HTML tags are elements the scanner read, HTML comments and
// stray closing tags are raw insets written as they are, and a "<" that is
// none of these is text.

// Inset is an element, JSX value or raw HTML of a flow, rendered on demand.
type Inset struct {
	Render func() string
}

// InsetsKey holds the []Inset of the flow being parsed.
var InsetsKey = parser.NewContextKey()

const insetOpen = "<mdx-"

// InsetToken returns the token that stands for Inset i in the Markdown.
func InsetToken(i int) string { return insetOpen + strconv.Itoa(i) + ">" }

// readInset reads a token at the start of line and returns its Inset and
// length.
func readInset(line []byte, pc parser.Context) (*Inset, int) {
	if len(line) < len(insetOpen)+2 || string(line[:len(insetOpen)]) != insetOpen {
		return nil, 0
	}
	n, end := 0, len(insetOpen)
	for ; end < len(line) && end-len(insetOpen) < 9 && '0' <= line[end] && line[end] <= '9'; end++ {
		n = n*10 + int(line[end]-'0')
	}
	if end == len(insetOpen) || end >= len(line) || line[end] != '>' {
		return nil, 0
	}
	insets, _ := pc.Get(InsetsKey).([]Inset)
	if n >= len(insets) {
		return nil, 0
	}
	return &insets[n], end + 1
}

// KindMDXBlock and KindMDXInline are the kinds of the extension's nodes.
var (
	KindMDXBlock  = ast.NewNodeKind("MDXBlock")
	KindMDXInline = ast.NewNodeKind("MDXInline")
)

// mdxBlock is an element or JSX value that stands on its own lines.
type mdxBlock struct {
	ast.BaseBlock
	in *Inset
}

func (n *mdxBlock) Kind() ast.NodeKind { return KindMDXBlock }
func (n *mdxBlock) IsRaw() bool        { return true }
func (n *mdxBlock) Dump(source []byte, level int) {
	ast.DumpHelper(n, source, level, nil, nil)
}

// mdxInline is an element or JSX value within a line of text.
type mdxInline struct {
	ast.BaseInline
	in *Inset
}

func (n *mdxInline) Kind() ast.NodeKind { return KindMDXInline }
func (n *mdxInline) Dump(source []byte, level int) {
	ast.DumpHelper(n, source, level, nil, nil)
}

// mdxBlockParser opens an MDXBlock for a line that holds one token and
// nothing else.
type mdxBlockParser struct{}

func (mdxBlockParser) Trigger() []byte { return []byte{'<'} }

func (mdxBlockParser) Open(parent ast.Node, reader text.Reader, pc parser.Context) (ast.Node, parser.State) {
	line, _ := reader.PeekLine()
	pos := pc.BlockOffset()
	if pos < 0 || pos >= len(line) {
		return nil, parser.NoChildren
	}
	in, n := readInset(line[pos:], pc)
	if in == nil || !util.IsBlank(line[pos+n:]) {
		return nil, parser.NoChildren
	}
	reader.AdvanceToEOL()
	return &mdxBlock{in: in}, parser.NoChildren
}

func (mdxBlockParser) Continue(ast.Node, text.Reader, parser.Context) parser.State {
	return parser.Close
}

func (mdxBlockParser) Close(ast.Node, text.Reader, parser.Context) {}
func (mdxBlockParser) CanInterruptParagraph() bool                 { return true }
func (mdxBlockParser) CanAcceptIndentedLine() bool                 { return true }

// mdxInlineParser turns a token within text into an MDXInline node.
type mdxInlineParser struct{}

func (mdxInlineParser) Trigger() []byte { return []byte{'<'} }

func (mdxInlineParser) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	line, _ := block.PeekLine()
	in, n := readInset(line, pc)
	if in == nil {
		return nil
	}
	block.Advance(n)
	return &mdxInline{in: in}
}

// mdxNodeRenderer writes the HTML of the extension's nodes.
type mdxNodeRenderer struct{}

func (mdxNodeRenderer) RegisterFuncs(reg gmrenderer.NodeRendererFuncRegisterer) {
	reg.Register(KindMDXBlock, func(w util.BufWriter, _ []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			_, _ = w.WriteString(n.(*mdxBlock).in.Render())
			_ = w.WriteByte('\n')
		}
		return ast.WalkSkipChildren, nil
	})
	reg.Register(KindMDXInline, func(w util.BufWriter, _ []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			_, _ = w.WriteString(n.(*mdxInline).in.Render())
		}
		return ast.WalkSkipChildren, nil
	})
}

// mdxExtension is the goldmark extension for MDX insets. Its parsers come
// before goldmark's autolinks, which also start at "<".
type mdxExtension struct{}

func (mdxExtension) Extend(m goldmark.Markdown) {
	m.Parser().AddOptions(
		parser.WithBlockParsers(util.Prioritized(mdxBlockParser{}, 850)),
		parser.WithInlineParsers(util.Prioritized(mdxInlineParser{}, 250)),
	)
	m.Renderer().AddOptions(gmrenderer.WithNodeRenderers(util.Prioritized(mdxNodeRenderer{}, 100)))
}
