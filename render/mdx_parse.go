package render

import (
	"sort"
	"strings"
)

// nodeKind is the kind of an MDX tree node.
type nodeKind uint8

const (
	nText nodeKind = iota // Markdown text
	nElem                 // a JSX element: component, HTML tag or <> fragment
	nExpr                 // a {expression}
)

// node is a node of the tree the MDX scanner produces.
type node struct {
	kind nodeKind
	// text is the Markdown of an nText node or the source of an nExpr node
	// (without braces).
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
	lineBase int   // line of src[0]
	nl       []int // offsets of '\n' in src
	mdx      bool
	w        *warner
	// esm receives import and export statements at the top level; nil
	// where they are not allowed.
	esm *esmSink
	// stopParen ends the top-level flow at a ')' (arrow function bodies).
	stopParen bool
	// closeStart is the offset of the last matched closing tag.
	closeStart int
}

func newParser(src, file string, lineBase int, mdx bool, w *warner) *mdxParser {
	p := &mdxParser{src: src, file: file, lineBase: lineBase, mdx: mdx, w: w}
	for i := 0; i < len(src); i++ {
		if src[i] == '\n' {
			p.nl = append(p.nl, i)
		}
	}
	return p
}

// lineOf returns the file line of offset off.
func (p *mdxParser) lineOf(off int) int {
	return p.lineBase + sort.SearchInts(p.nl, off)
}

func (p *mdxParser) warn(off int, format string, args ...any) {
	p.w.add(p.file, p.lineOf(off), format, args...)
}

func (p *mdxParser) atLineStart() bool {
	return p.pos == 0 || p.src[p.pos-1] == '\n'
}

// parseFlow reads nodes until the closing tag of stack's last element
// (returning closed true), the closing tag of an outer element or the end
// (returning closed false, except at the top level).
func (p *mdxParser) parseFlow(stack []string) (nodes []*node, closed bool) {
	var text strings.Builder
	textStart := -1
	flush := func() {
		if text.Len() > 0 {
			nodes = append(nodes, &node{kind: nText, text: text.String(), line: p.lineOf(textStart)})
			text.Reset()
		}
		textStart = -1
	}
	emit := func(from, to int) {
		if textStart < 0 {
			textStart = from
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
				emit(start, end)
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
				emit(start, end) // stray HTML closing tag: left to the browser
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
			end := exprEnd(p.src, start)
			if end < 0 {
				p.warn(start, "unbalanced { in text; shown as is")
				emit(start, start+1)
				p.pos++
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
	tag, end, ok := openTag(p.src, start)
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
		closeAt := indexCloseTag(p.src, end, tag.name)
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

func firstLine(s string, n int) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}

func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func isNameByte(c byte) bool {
	return isLetter(c) || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '.' || c == '$'
}

// isComponentName reports whether a tag names a component rather than an
// HTML element: capitalised or dotted, as in JSX.
func isComponentName(name string) bool {
	return name != "" && (isUpper(name[0]) || strings.Contains(name, "."))
}

var voidElements = map[string]bool{
	"area": true, "base": true, "br": true, "col": true, "embed": true, "hr": true, "img": true,
	"input": true, "link": true, "meta": true, "param": true, "source": true, "track": true, "wbr": true,
}

func isVoid(name string) bool { return voidElements[name] }

// keepsRawContent reports whether an element's content is kept literal.
func keepsRawContent(name string) bool {
	switch name {
	case "pre", "code", "script", "style", "textarea", "Latex":
		return true
	}
	return false
}

func onlySpaceBefore(s string, i int) bool {
	for j := i - 1; j >= 0 && s[j] != '\n'; j-- {
		if s[j] != ' ' && s[j] != '\t' {
			return false
		}
	}
	return true
}

func onlySpaceAfter(s string, i int) bool {
	for ; i < len(s) && s[i] != '\n'; i++ {
		if s[i] != ' ' && s[i] != '\t' {
			return false
		}
	}
	return true
}

func runLen(s string, i int, c byte) int {
	n := 0
	for i+n < len(s) && s[i+n] == c {
		n++
	}
	return n
}

// codeSpanEnd finds the end of a code span whose opening run of n backticks
// ends at i: after the next run of exactly n backticks before a blank line.
// It returns -1 when there is none.
func codeSpanEnd(s string, i, n int) int {
	for i < len(s) {
		switch s[i] {
		case '`':
			m := runLen(s, i, '`')
			if m == n {
				return i + m
			}
			i += m
		case '\n':
			j := i + 1
			for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
				j++
			}
			if j >= len(s) || s[j] == '\n' {
				return -1
			}
			i = j
		default:
			i++
		}
	}
	return -1
}

// fenceEnd returns the offset just past the fenced code block starting at
// line start i (past the closing fence line's newline, or the end of s), or
// i when no fence starts there.
func fenceEnd(s string, i int) int {
	lineEnd := strings.IndexByte(s[i:], '\n')
	if lineEnd < 0 {
		lineEnd = len(s)
	} else {
		lineEnd += i
	}
	var f fenceState
	if !f.line(s[i:lineEnd]) {
		return i
	}
	off := lineEnd
	for off < len(s) {
		off++ // the newline
		end := strings.IndexByte(s[off:], '\n')
		if end < 0 {
			end = len(s)
		} else {
			end += off
		}
		f.line(s[off:end])
		if f.n == 0 {
			return end
		}
		off = end
	}
	return len(s)
}

// closingTag parses "</name>" or "</>" at i.
func closingTag(s string, i int) (name string, end int, ok bool) {
	if !strings.HasPrefix(s[i:], "</") {
		return "", 0, false
	}
	j := i + 2
	for j < len(s) && isNameByte(s[j]) {
		j++
	}
	name = s[i+2 : j]
	if name != "" && !isLetter(name[0]) {
		return "", 0, false
	}
	for j < len(s) && (s[j] == ' ' || s[j] == '\t' || s[j] == '\n') {
		j++
	}
	if j >= len(s) || s[j] != '>' {
		return "", 0, false
	}
	return name, j + 1, true
}

// indexCloseTag returns the offset of the first </name> at or after i, or -1.
func indexCloseTag(s string, i int, name string) int {
	for {
		k := strings.Index(s[i:], "</"+name)
		if k < 0 {
			return -1
		}
		if n, _, ok := closingTag(s, i+k); ok && n == name {
			return i + k
		}
		i += k + 2
	}
}

type tagInfo struct {
	name        string
	attrs       []attr
	selfClosing bool
}

// openTag parses an opening tag at s[i] == '<': <name attrs>, <name attrs/>
// or the fragment <>. It returns the offset just past it.
func openTag(s string, i int) (t tagInfo, end int, ok bool) {
	j := i + 1
	if j < len(s) && s[j] == '>' {
		return tagInfo{}, j + 1, true
	}
	if j >= len(s) || !isLetter(s[j]) {
		return t, 0, false
	}
	for j < len(s) && isNameByte(s[j]) {
		j++
	}
	t.name = s[i+1 : j]
	if j >= len(s) || !(isSpace(s[j]) || s[j] == '/' || s[j] == '>') {
		return t, 0, false
	}
	limit := min(len(s), i+maxTagLength)
	for j < limit {
		for j < limit && isSpace(s[j]) {
			j++
		}
		if j >= limit {
			break
		}
		switch c := s[j]; {
		case c == '>':
			return t, j + 1, true
		case c == '/':
			if j+1 < len(s) && s[j+1] == '>' {
				t.selfClosing = true
				return t, j + 2, true
			}
			return t, 0, false
		case c == '{': // {...spread} or {/* comment */}
			e := exprEnd(s, j)
			if e < 0 {
				return t, 0, false
			}
			j = e
		case isLetter(c) || c == '_' || c == ':' || c == '@':
			k := j
			for k < len(s) && (isNameByte(s[k]) || s[k] == ':' || s[k] == '@') {
				k++
			}
			a := attr{name: s[j:k], kind: aBool}
			nameEnd := k
			for k < len(s) && isSpace(s[k]) {
				k++
			}
			if k >= len(s) || s[k] != '=' {
				k = nameEnd
			} else {
				k++
				for k < len(s) && isSpace(s[k]) {
					k++
				}
				if k >= len(s) {
					return t, 0, false
				}
				switch q := s[k]; q {
				case '"', '\'':
					e := strings.IndexByte(s[k+1:], q)
					if e < 0 {
						return t, 0, false
					}
					a.kind, a.val = aString, s[k+1:k+1+e]
					k += e + 2
				case '{':
					e := exprEnd(s, k)
					if e < 0 {
						return t, 0, false
					}
					a.kind, a.val = aExpr, s[k+1:e-1]
					k = e
				default:
					return t, 0, false
				}
			}
			t.attrs = append(t.attrs, a)
			j = k
			if j < len(s) && !(isSpace(s[j]) || s[j] == '/' || s[j] == '>' || s[j] == '{') {
				return t, 0, false
			}
		default:
			return t, 0, false
		}
	}
	return t, 0, false
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' }

// exprEnd returns the offset just past the '}' matching s[i] == '{', or -1.
// It skips strings, template literals and comments; a quote with no closing
// quote on its line is taken as an apostrophe in JSX text.
func exprEnd(s string, i int) int {
	depth := 0
	for i < len(s) {
		switch c := s[i]; c {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return i + 1
			}
		case '"', '\'':
			if e := quoteEnd(s, i); e > 0 {
				i = e
				continue
			}
		case '`':
			e := strings.IndexByte(s[i+1:], '`')
			if e < 0 {
				return -1
			}
			i += e + 2
			continue
		case '/':
			if i+1 < len(s) && s[i+1] == '*' {
				e := strings.Index(s[i+2:], "*/")
				if e < 0 {
					return -1
				}
				i += e + 4
				continue
			}
		}
		i++
	}
	return -1
}

// quoteEnd returns the offset past the JS string starting at s[i], or -1
// when it does not end on its line.
func quoteEnd(s string, i int) int {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '\n':
			return -1
		case q:
			return j + 1
		}
	}
	return -1
}

// isComment reports whether an expression holds only comments.
func isComment(expr string) bool {
	e := strings.TrimSpace(expr)
	for e != "" {
		switch {
		case strings.HasPrefix(e, "/*"):
			k := strings.Index(e, "*/")
			if k < 0 {
				return false
			}
			e = strings.TrimSpace(e[k+2:])
		case strings.HasPrefix(e, "//"):
			k := strings.IndexByte(e, '\n')
			if k < 0 {
				return true
			}
			e = strings.TrimSpace(e[k:])
		default:
			return false
		}
	}
	return strings.TrimSpace(expr) != ""
}
