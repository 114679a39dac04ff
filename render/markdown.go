package render

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
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
	"lectern.dev/lectern/render/config"
	"lectern.dev/lectern/render/highlight"
	"lectern.dev/lectern/render/mdx"
)

// md is the Markdown engine: CommonMark plus GitHub extensions (tables,
// strikethrough, task lists, autolinks), heading ids, the MDX extension
// (mdx_goldmark.go), and, as in MDX, neither indented code blocks (indented
// content inside components stays Markdown) nor goldmark's raw HTML parsers
// (every tag is JSX, read by the MDX scanner).
var md = newMarkdown()

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

// markdown renders src, the Markdown of one flow in which insets stand as
// tokens, rewriting links and images for the page. lm maps src lines to
// file lines for warnings.
func (r *renderer) markdown(src string, insets []inset, lm *lineMap, sc *mdx.Scope) string {
	if limited, at, changed := limitNesting(src); changed {
		r.warn(sc, lm.at(strings.Count(src[:at], "\n")),
			"Markdown nested more than %d levels deep (brackets, lists or quotes); the deeper markers are shown as text", maxMarkdownNesting)
		src = limited
	}
	source := []byte(src)
	pc := parser.NewContext(parser.WithIDs(r.ids))
	pc.Set(insetsKey, insets)
	doc := md.Parser().Parse(text.NewReader(source), parser.WithContext(pc))
	var swaps [][2]ast.Node
	var store *highlight.Store
	if r.s.cache != nil {
		store = r.s.cache.code
	}
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch x := n.(type) {
		case *ast.FencedCodeBlock:
			if store != nil {
				x.SetAttribute(codeStoreAttr, store)
			}
		case *ast.Link:
			dest := string(x.Destination)
			x.Destination = []byte(r.link(dest, nodeLine(x, source, lm, dest), sc))
		case *ast.AutoLink:
			if u := string(x.URL(source)); x.AutoLinkType == ast.AutoLinkURL && !urlAllowed(u, false) {
				r.warn(sc, nodeLine(x, source, lm, u), "link %q removed: only http, https, mailto and tel URLs, relative links and fragments are allowed", mdx.FirstLine(u, 60))
				swaps = append(swaps, [2]ast.Node{x, ast.NewString(x.Label(source))})
			}
		case *ast.Image:
			dest := string(x.Destination)
			if config.IsExternal(dest) && urlAllowed(dest, false) { // data:image/ URLs are kept as images
				swaps = append(swaps, [2]ast.Node{x, externalImageLink(x)})
				return ast.WalkSkipChildren, nil
			}
			u, _ := r.asset(dest, nodeLine(x, source, lm, dest), sc, "image")
			x.Destination = []byte(u)
		}
		return ast.WalkContinue, nil
	})
	for _, s := range swaps {
		if parent := s[0].Parent(); parent != nil {
			parent.ReplaceChild(parent, s[0], s[1])
		}
	}
	var buf bytes.Buffer
	if err := md.Renderer().Render(&buf, source, doc); err != nil {
		return "<pre>" + html.EscapeString(src) + "</pre>"
	}
	return buf.String()
}

// externalImageLink turns an image on another host into a link to it, so
// that pages load nothing from other hosts.
func externalImageLink(img *ast.Image) ast.Node {
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

// nodeLine returns the file line of an inline node: the line of needle in
// the enclosing block, or of the block itself.
func nodeLine(n ast.Node, source []byte, lm *lineMap, needle string) int {
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
		return lm.at(bytes.Count(source[:off], []byte{'\n'}))
	}
	return lm.at(0)
}

// lineMap maps lines of a flow's Markdown to lines of its file.
type lineMap struct{ comp, orig []int }

func (m *lineMap) mark(compLine, origLine int) {
	m.comp = append(m.comp, compLine)
	m.orig = append(m.orig, origLine)
}

func (m *lineMap) at(compLine int) int {
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

// headingIDs gives headings unique, GitHub-style ids across all the flows
// of a page.
type headingIDs struct{ used map[string]bool }

func newHeadingIDs() *headingIDs { return &headingIDs{used: map[string]bool{}} }

func (h *headingIDs) Generate(value []byte, _ ast.NodeKind) []byte {
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

func (h *headingIDs) Put(value []byte) { h.used[string(value)] = true }

var (
	tagRE    = regexp.MustCompile(`<[^>]*>`)
	mdLinkRE = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
)

// slugify makes a heading id: lower case letters and digits, spaces and
// dashes as "-", everything else dropped.
func slugify(s string) string {
	s = tagRE.ReplaceAllString(s, "")
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

// codeStoreAttr is the attribute of a fenced code block that holds the
// build's store of highlighted code (renderer.markdown sets it when the
// build has a cache).
var codeStoreAttr = []byte("lectern-code-store")

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
	var code strings.Builder
	for i := 0; i < fc.Lines().Len(); i++ {
		line := fc.Lines().At(i)
		code.Write(line.Value(source))
	}
	cb.Code = code.String()
	buf := codeBufs.Get().(*bytes.Buffer)
	buf.Reset()
	if strings.EqualFold(cb.Lang, "mermaid") {
		writeMermaid(buf, cb.Code)
	} else {
		var cs *highlight.Store
		if v, ok := fc.Attribute(codeStoreAttr); ok {
			cs, _ = v.(*highlight.Store)
		}
		highlight.Write(buf, cb, cs)
	}
	_, _ = w.Write(buf.Bytes())
	codeBufs.Put(buf)
	return ast.WalkSkipChildren, nil
}

var codeBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}
