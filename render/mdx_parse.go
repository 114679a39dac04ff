package render

import (
	"strings"

	"lectern.dev/lectern/render/diag"
)

// nodeKind is the kind of an MDX tree node.
type nodeKind uint8

const (
	nText nodeKind = iota // Markdown text
	nElem                 // a JSX element: component, HTML tag or <> fragment
	nExpr                 // a {expression}
	nRaw                  // HTML written as it is: a comment or a stray closing tag
)

// node is a node of the tree the MDX scanner produces.
type node struct {
	kind nodeKind
	// text is the Markdown of an nText node, the source of an nExpr node
	// (without braces) or the HTML of an nRaw node.
	text string
	line int // line of the node's first byte in its file
	// name is the tag name of an element; "" for a fragment.
	name     string
	attrs    []attr
	children []*node
	// raw is the source between the tags, for elements whose content is
	// kept literal (pre, code, Latex).
	raw string
	// block is set for an element or expression that stands on its own
	// lines.
	block bool
	// inlineKids is set when the children start on the open tag's line.
	inlineKids bool
}

// attrKind says how an attribute's value was written.
type attrKind uint8

const (
	aString attrKind = iota // name="value" or name='value'
	aExpr                   // name={expression}
	aBool                   // name alone
)

// attr is an attribute of an element.
type attr struct {
	name string
	kind attrKind
	val  string // the string, or the expression source without braces
}

const (
	maxNesting   = 200   // deeper elements are kept as text
	maxTagLength = 20000 // longer open tags are not tags
)

// mdxParser scans MDX (or Markdown, with mdx false) into nodes.
type mdxParser struct {
	src      string
	pos      int
	file     string
	lineBase int // line of src[0]
	// lineOff and lineNum cache the last line lookup: lookups mostly move
	// forward, so counting from there keeps them cheap.
	lineOff, lineNum int
	mdx              bool
	w                *diag.Warner
	// esm receives import and export statements at the top level; nil
	// where they are not allowed.
	esm *esmSink
	// stopParen ends the top-level flow at a ')' (arrow function bodies).
	stopParen bool
	// closeStart is the offset of the last matched closing tag.
	closeStart int
	// noClose maps a raw-content tag name to an offset after which it has
	// no closing tag.
	noClose map[string]int
	// exprs bounds the work of finding the ends of expressions.
	exprs *exprLimiter
	// fixedLine, when set, is the line of every node and warning: the
	// text's own lines are not lines of the file (scope.line).
	fixedLine int
}

func newParser(src, file string, lineBase int, mdx bool, w *diag.Warner) *mdxParser {
	return &mdxParser{src: src, file: file, lineBase: lineBase, lineNum: lineBase, mdx: mdx, w: w,
		exprs: newExprLimiter(len(src))}
}

// lineOf returns the file line of offset off.
func (p *mdxParser) lineOf(off int) int {
	if p.fixedLine > 0 {
		return p.fixedLine
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

func (p *mdxParser) warn(off int, format string, args ...any) {
	p.w.Add(p.file, p.lineOf(off), format, args...)
}

func (p *mdxParser) atLineStart() bool {
	return p.pos == 0 || p.src[p.pos-1] == '\n'
}

// parseFlow reads nodes until the closing tag of stack's last element
// (returning closed true), the closing tag of an outer element or the end
// (returning closed false, except at the top level).
func (p *mdxParser) parseFlow(stack []string) (nodes []*node, closed bool) {
	var text strings.Builder
	textStart, textLine := -1, 0
	flush := func() {
		if text.Len() > 0 {
			nodes = append(nodes, &node{kind: nText, text: text.String(), line: textLine})
			text.Reset()
		}
		textStart = -1
	}
	emit := func(from, to int) {
		if textStart < 0 {
			// The line is looked up now, while the scan moves forward.
			textStart, textLine = from, p.lineOf(from)
		}
		text.WriteString(p.src[from:to])
	}
	for p.pos < len(p.src) {
		start := p.pos
		if p.atLineStart() {
			if end := fenceEnd(p.src, start); end > start {
				emit(start, end)
				p.pos = end
				continue
			}
			if len(stack) == 0 && p.esm != nil && p.mdx && !p.stopParen && p.statement() {
				continue
			}
		}
		switch c := p.src[start]; c {
		case '`':
			n := runLen(p.src, start, '`')
			end := codeSpanEnd(p.src, start+n, n)
			if end < 0 {
				end = start + n
			}
			emit(start, end)
			p.pos = end
		case '\\':
			end := min(start+2, len(p.src))
			emit(start, end)
			p.pos = end
		case '<':
			if strings.HasPrefix(p.src[start:], "<!--") {
				end := strings.Index(p.src[start:], "-->")
				if end < 0 {
					end = len(p.src)
				} else {
					end += start + 3
				}
				flush()
				nodes = append(nodes, p.raw(start, end))
				p.pos = end
				continue
			}
			if name, end, ok := closingTag(p.src, start); ok {
				if len(stack) > 0 && name == stack[len(stack)-1] {
					flush()
					p.closeStart = start
					p.pos = end
					return nodes, true
				}
				if contains(stack, name) {
					flush()
					return nodes, false
				}
				if name == "" || isComponentName(name) {
					p.warn(start, "closing tag </%s> has no matching opening tag; ignored", name)
					p.pos = end
					continue
				}
				flush() // a stray HTML closing tag: left to the browser
				nodes = append(nodes, p.raw(start, end))
				p.pos = end
				continue
			}
			if els, ok := p.element(stack); ok {
				flush()
				nodes = append(nodes, els...)
				continue
			}
			emit(start, start+1)
			p.pos = start + 1
		case '{':
			if !p.mdx {
				emit(start, start+1)
				p.pos++
				continue
			}
			end := p.exprs.end(p.src, start)
			if end < 0 {
				// Keep the rest of the line as text, so that a line of
				// unbalanced braces is scanned once.
				p.warn(start, "unbalanced { in text; shown as is")
				le := lineEnd(p.src, start)
				emit(start, le)
				p.pos = le
				continue
			}
			flush()
			inner := p.src[start+1 : end-1]
			if !isComment(inner) {
				nodes = append(nodes, &node{kind: nExpr, text: inner, line: p.lineOf(start),
					block: onlySpaceBefore(p.src, start) && onlySpaceAfter(p.src, end)})
			}
			p.pos = end
		case ')':
			if p.stopParen && len(stack) == 0 {
				flush()
				return nodes, true
			}
			emit(start, start+1)
			p.pos++
		case '\n':
			emit(start, start+1)
			p.pos++
		default:
			end := start + 1
			for end < len(p.src) && !isSpecial(p.src[end]) {
				end++
			}
			emit(start, end)
			p.pos = end
		}
	}
	flush()
	return nodes, len(stack) == 0
}

// raw returns an nRaw node for src[start:end].
func (p *mdxParser) raw(start, end int) *node {
	return &node{kind: nRaw, text: p.src[start:end], line: p.lineOf(start),
		block: onlySpaceBefore(p.src, start) && onlySpaceAfter(p.src, end)}
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
func (p *mdxParser) element(stack []string) ([]*node, bool) {
	start := p.pos
	tag, end, ok := openTag(p.src, start, p.exprs)
	if !ok {
		if start+1 < len(p.src) && isUpper(p.src[start+1]) {
			p.warn(start, "malformed tag %q; shown as text", firstLine(p.src[start:], 40))
		}
		return nil, false
	}
	el := &node{kind: nElem, name: tag.name, attrs: tag.attrs, line: p.lineOf(start)}
	atStart := onlySpaceBefore(p.src, start)
	p.pos = end
	if tag.selfClosing || isVoid(tag.name) {
		el.block = atStart && onlySpaceAfter(p.src, end)
		return []*node{el}, true
	}
	if keepsRawContent(tag.name) {
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
			el.block = atStart && onlySpaceAfter(p.src, end)
			return []*node{el}, true
		}
		el.raw = p.src[end:closeAt]
		_, after, _ := closingTag(p.src, closeAt)
		p.pos = after
		el.block = atStart && onlySpaceAfter(p.src, after)
		return []*node{el}, true
	}
	if len(stack) >= maxNesting {
		p.warn(start, "elements nested too deeply; <%s> is shown as text", tag.name)
		p.pos = start
		return nil, false
	}
	el.inlineKids = !onlySpaceAfter(p.src, end)
	inner := make([]string, len(stack)+1)
	copy(inner, stack)
	inner[len(stack)] = tag.name
	kids, closed := p.parseFlow(inner)
	if !closed {
		if tag.name == "" {
			p.warn(start, "fragment <> is never closed")
		} else {
			p.warn(start, "<%s> is never closed", tag.name)
		}
		el.block = atStart && !el.inlineKids
		return append([]*node{el}, kids...), true
	}
	el.children = kids
	el.raw = p.src[end:p.closeStart]
	el.block = atStart && onlySpaceAfter(p.src, p.pos)
	return []*node{el}, true
}
