package mdx

import (
	"strings"

	"lectern.dev/lectern/render/diag"
)

// NodeKind is the kind of an MDX tree Node.
type NodeKind uint8

const (
	TextNode    NodeKind = iota // Markdown text
	ElementNode                 // a JSX element: component, HTML tag or <> fragment
	ExprNode                    // a {expression}
	RawNode                     // HTML written as it is: a comment or a stray closing tag
)

// Node is a Node of the tree the MDX scanner produces.
type Node struct {
	Kind NodeKind
	// Text is the Markdown of a TextNode, the source of an ExprNode
	// (without braces) or the HTML of a RawNode.
	Text string
	Line int // line of the Node's first byte in its file
	// Name is the tag name of an element; "" for a fragment.
	Name     string
	Attrs    []Attr
	Children []*Node
	// Raw is the source between the tags, for elements whose content is
	// kept literal (pre, code, Latex).
	Raw string
	// Block is set for an element or expression that stands on its own
	// lines.
	Block bool
	// InlineKids is set when the children start on the open tag's line.
	InlineKids bool
}

// AttrKind says how an attribute's Value was written.
type AttrKind uint8

const (
	AttrString AttrKind = iota // name="Value" or name='Value'
	AttrExpr                   // name={expression}
	AttrBool                   // name alone
	AttrSpread                 // {...expression}: the keys of an object as attributes
)

// Attr is an attribute of an element.
type Attr struct {
	Name string
	Kind AttrKind
	Val  string // the string, or the expression source without braces
}

const (
	MaxNesting   = 200   // deeper elements are kept as text
	maxTagLength = 20000 // longer open tags are not tags
)

// Parser scans MDX (or Markdown, with mdx false) into nodes.
type Parser struct {
	src  string
	pos  int
	file string
	// lineOff and lineNum cache the last line lookup: lookups mostly move
	// forward, so counting from there keeps them cheap.
	lineOff, lineNum int
	mdx              bool
	w                *diag.Warner
	// ESM receives import and export statements at the top level; nil
	// where they are not allowed.
	ESM *ESMSink
	// stopParen ends the top-level flow at a ')' (arrow function bodies).
	stopParen bool
	// closeStart is the offset of the last matched closing tag.
	closeStart int
	// noClose maps a raw-content tag name to an offset after which it has
	// no closing tag.
	noClose map[string]int
	// exprs bounds the work of finding the ends of expressions.
	exprs *exprLimiter
	// FixedLine, when set, is the line of every Node and warning: the
	// text's own lines are not lines of the file (Scope.line).
	FixedLine int
}

func NewParser(src, file string, lineBase int, mdx bool, w *diag.Warner) *Parser {
	return &Parser{src: src, file: file, lineNum: lineBase, mdx: mdx, w: w,
		exprs: newExprLimiter(len(src))}
}

// lineOf returns the file line of offset off.
func (p *Parser) lineOf(off int) int {
	if p.FixedLine > 0 {
		return p.FixedLine
	}
	off = min(max(off, 0), len(p.src))
	if off < p.lineOff {
		// Count back from the last lookup rather than from the start,
		// which on a long line of elements would make lookups quadratic.
		p.lineNum -= strings.Count(p.src[off:p.lineOff], "\n")
	} else {
		p.lineNum += strings.Count(p.src[p.lineOff:off], "\n")
	}
	p.lineOff = off
	return p.lineNum
}

func (p *Parser) warn(off int, format string, args ...any) {
	p.w.Add(p.file, p.lineOf(off), format, args...)
}

func (p *Parser) atLineStart() bool {
	return p.pos == 0 || p.src[p.pos-1] == '\n'
}

// ParseFlow reads nodes until the closing tag of stack's last element
// (returning closed true), the closing tag of an outer element or the end
// (returning closed false, except at the top level).
func (p *Parser) ParseFlow(stack []string) (nodes []*Node, closed bool) {
	f := flowState{textStart: -1}
	for p.pos < len(p.src) {
		start := p.pos
		if p.atLineStart() {
			if end := fenceEnd(p.src, start); end > start {
				f.emit(p, start, end)
				p.pos = end
				continue
			}
			if len(stack) == 0 && p.ESM != nil && p.mdx && !p.stopParen && p.statement() {
				continue
			}
		}
		switch c := p.src[start]; c {
		case '`':
			n := RunLen(p.src, start, '`')
			end := CodeSpanEnd(p.src, start+n, n)
			if end < 0 {
				end = start + n
			}
			f.emit(p, start, end)
			p.pos = end
		case '\\':
			end := min(start+2, len(p.src))
			f.emit(p, start, end)
			p.pos = end
		case '<':
			if done, closed := p.flowTag(&f, stack, start); done {
				return f.nodes, closed
			}
		case '{':
			p.flowExpr(&f, start)
		case ')':
			if p.stopParen && len(stack) == 0 {
				f.flush()
				return f.nodes, true
			}
			f.emit(p, start, start+1)
			p.pos++
		case '\n':
			f.emit(p, start, start+1)
			p.pos++
		default:
			end := start + 1
			for end < len(p.src) && !isSpecial(p.src[end]) {
				end++
			}
			f.emit(p, start, end)
			p.pos = end
		}
	}
	f.flush()
	return f.nodes, len(stack) == 0
}

// flowState is what a ParseFlow call has read so far: its nodes, and the
// text not yet made into a TextNode.
type flowState struct {
	nodes     []*Node
	text      strings.Builder
	textStart int // offset of the text's first byte, or -1 when there is none
	textLine  int
}

// flush appends the text read so far, if any, to the nodes as a TextNode.
func (f *flowState) flush() {
	if f.text.Len() > 0 {
		f.nodes = append(f.nodes, &Node{Kind: TextNode, Text: f.text.String(), Line: f.textLine})
		f.text.Reset()
	}
	f.textStart = -1
}

// emit adds p.src[from:to] to the text read so far.
func (f *flowState) emit(p *Parser, from, to int) {
	if f.textStart < 0 {
		// The line is looked up now, while the scan moves forward.
		f.textStart, f.textLine = from, p.lineOf(from)
	}
	f.text.WriteString(p.src[from:to])
}

// flowTag reads what starts with the '<' at start for ParseFlow: a
// comment, a closing tag or an element, else the '<' as text. It returns
// done true when ParseFlow is to return, with closed as its result.
func (p *Parser) flowTag(f *flowState, stack []string, start int) (done, closed bool) {
	if strings.HasPrefix(p.src[start:], "<!--") {
		end := strings.Index(p.src[start:], "-->")
		if end < 0 {
			end = len(p.src)
		} else {
			end += start + 3
		}
		f.flush()
		f.nodes = append(f.nodes, p.raw(start, end))
		p.pos = end
		return false, false
	}
	if name, end, ok := closingTag(p.src, start); ok {
		if len(stack) > 0 && name == stack[len(stack)-1] {
			f.flush()
			p.closeStart = start
			p.pos = end
			return true, true
		}
		if contains(stack, name) {
			f.flush()
			return true, false
		}
		if name == "" || IsComponentName(name) {
			p.warn(start, "closing tag </%s> has no matching opening tag; ignored", name)
			p.pos = end
			return false, false
		}
		f.flush() // a stray HTML closing tag: left to the browser
		f.nodes = append(f.nodes, p.raw(start, end))
		p.pos = end
		return false, false
	}
	if els, ok := p.element(stack); ok {
		f.flush()
		f.nodes = append(f.nodes, els...)
		return false, false
	}
	f.emit(p, start, start+1)
	p.pos = start + 1
	return false, false
}

// flowExpr reads what starts with the '{' at start for ParseFlow: in MDX
// an expression (none for a comment), else the '{' as text.
func (p *Parser) flowExpr(f *flowState, start int) {
	if !p.mdx {
		f.emit(p, start, start+1)
		p.pos++
		return
	}
	end := p.exprs.end(p.src, start)
	if end < 0 {
		// Keep the rest of the line as text, so that a line of
		// unbalanced braces is scanned once.
		p.warn(start, "unbalanced { in text; shown as is")
		le := LineEnd(p.src, start)
		f.emit(p, start, le)
		p.pos = le
		return
	}
	f.flush()
	inner := p.src[start+1 : end-1]
	if !isComment(inner) {
		f.nodes = append(f.nodes, &Node{Kind: ExprNode, Text: inner, Line: p.lineOf(start),
			Block: onlySpaceBefore(p.src, start) && onlySpaceAfter(p.src, end)})
	}
	p.pos = end
}

// raw returns a RawNode for src[start:end].
func (p *Parser) raw(start, end int) *Node {
	return &Node{Kind: RawNode, Text: p.src[start:end], Line: p.lineOf(start),
		Block: onlySpaceBefore(p.src, start) && onlySpaceAfter(p.src, end)}
}

func isSpecial(c byte) bool {
	switch c {
	case '`', '\\', '<', '{', ')', '\n':
		return true
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// element parses the element starting at p.pos. It returns the element,
// followed by its would-be children when it is never closed.
func (p *Parser) element(stack []string) ([]*Node, bool) {
	start := p.pos
	tag, end, ok := openTag(p.src, start, p.exprs)
	if !ok {
		if start+1 < len(p.src) && isUpper(p.src[start+1]) {
			p.warn(start, "malformed tag %q; shown as text", diag.FirstLine(p.src[start:], 40))
		}
		return nil, false
	}
	el := &Node{Kind: ElementNode, Name: tag.name, Attrs: tag.attrs, Line: p.lineOf(start)}
	atStart := onlySpaceBefore(p.src, start)
	p.pos = end
	if tag.selfClosing || IsVoid(tag.name) {
		el.Block = atStart && onlySpaceAfter(p.src, end)
		return []*Node{el}, true
	}
	if KeepsRawContent(tag.name) {
		closeAt := -1
		if from, known := p.noClose[tag.name]; !known || end < from {
			closeAt = indexCloseTag(p.src, end, tag.name)
		}
		if closeAt < 0 {
			if p.noClose == nil {
				p.noClose = map[string]int{}
			}
			if from, known := p.noClose[tag.name]; !known || end < from {
				p.noClose[tag.name] = end // none after here either
			}
		}
		if closeAt < 0 {
			p.warn(start, "<%s> is never closed", tag.name)
			el.Block = atStart && onlySpaceAfter(p.src, end)
			return []*Node{el}, true
		}
		el.Raw = p.src[end:closeAt]
		_, after, _ := closingTag(p.src, closeAt)
		p.pos = after
		el.Block = atStart && onlySpaceAfter(p.src, after)
		return []*Node{el}, true
	}
	if len(stack) >= MaxNesting {
		p.warn(start, "elements nested too deeply; <%s> is shown as text", tag.name)
		p.pos = start
		return nil, false
	}
	el.InlineKids = !onlySpaceAfter(p.src, end)
	inner := make([]string, len(stack)+1)
	copy(inner, stack)
	inner[len(stack)] = tag.name
	kids, closed := p.ParseFlow(inner)
	if !closed {
		if tag.name == "" {
			p.warn(start, "fragment <> is never closed")
		} else {
			p.warn(start, "<%s> is never closed", tag.name)
		}
		el.Block = atStart && !el.InlineKids
		return append([]*Node{el}, kids...), true
	}
	el.Children = kids
	el.Raw = p.src[end:p.closeStart]
	el.Block = atStart && onlySpaceAfter(p.src, p.pos)
	return []*Node{el}, true
}
