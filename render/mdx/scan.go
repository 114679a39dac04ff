package mdx

import (
	"regexp"
	"strings"
)

// Lexical helpers of the MDX scanner: tags, code spans, fences and
// expressions, each working on the source string and an offset.

func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }

func IsLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func isNameByte(c byte) bool {
	return IsLetter(c) || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '.' || c == '$'
}

// IsComponentName reports whether a tag names a component rather than an
// HTML element: capitalised or dotted, as in JSX.
func IsComponentName(name string) bool {
	return name != "" && (isUpper(name[0]) || strings.Contains(name, "."))
}

var voidElements = map[string]bool{
	"area": true, "base": true, "br": true, "col": true, "embed": true, "hr": true, "img": true,
	"input": true, "link": true, "meta": true, "param": true, "source": true, "track": true, "wbr": true,
}

func IsVoid(name string) bool { return voidElements[name] }

// KeepsRawContent reports whether an element's content is kept literal.
func KeepsRawContent(name string) bool {
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

func RunLen(s string, i int, c byte) int {
	n := 0
	for i+n < len(s) && s[i+n] == c {
		n++
	}
	return n
}

// CodeSpanEnd finds the end of a code span whose opening run of n backticks
// ends at i: after the next run of exactly n backticks before a blank line.
// It returns -1 when there is none.
func CodeSpanEnd(s string, i, n int) int {
	for i < len(s) {
		switch s[i] {
		case '`':
			m := RunLen(s, i, '`')
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
	var f FenceState
	if !f.Line(s[i:lineEnd]) {
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
		f.Line(s[off:end])
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
	if name != "" && !IsLetter(name[0]) {
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
	attrs       []Attr
	selfClosing bool
}

// openTag parses an opening tag at s[i] == '<': <name attrs>, <name attrs/>
// or the fragment <>. It returns the offset just past it.
// Expression attributes are scanned through l (which may be nil).
func openTag(s string, i int, l *exprLimiter) (t tagInfo, end int, ok bool) {
	j := i + 1
	if j < len(s) && s[j] == '>' {
		return tagInfo{}, j + 1, true
	}
	if j >= len(s) || !IsLetter(s[j]) {
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
			e := l.end(s, j)
			if e < 0 {
				return t, 0, false
			}
			if inner := strings.TrimSpace(s[j+1 : e-1]); strings.HasPrefix(inner, "...") {
				t.attrs = append(t.attrs, Attr{Name: "...", Kind: AttrSpread, Val: inner[3:]})
			}
			j = e
		case IsLetter(c) || c == '_' || c == ':' || c == '@':
			k := j
			for k < len(s) && (isNameByte(s[k]) || s[k] == ':' || s[k] == '@') {
				k++
			}
			a := Attr{Name: s[j:k], Kind: AttrBool}
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
					a.Kind, a.Val = AttrString, s[k+1:k+1+e]
					k += e + 2
				case '{':
					e := l.end(s, k)
					if e < 0 {
						return t, 0, false
					}
					a.Kind, a.Val = AttrExpr, s[k+1:e-1]
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

// maxExprLength bounds the length of one {expression}, so that unbalanced
// braces cannot make scanning quadratic.
const maxExprLength = 16 << 10

// shortExprLength is the bound on an expression's length once a source
// has used up its scanning budget (see exprLimiter).
const shortExprLength = 1 << 10

// exprLimiter keeps the total work of finding the ends of the expressions
// of one source linear in its size. Each '{' that does not start a complete
// expression (a brace in prose, an unclosed attribute) costs a scan of up
// to maxExprLength bytes, so many of them would cost time quadratic in the
// size of the source. Scans are charged to a budget proportional to the
// source; once it is spent, expressions are limited to shortExprLength.
// And a scan is skipped at once when no '}' follows within reach.
type exprLimiter struct {
	budget int
	// nextClose is the offset of the first '}' at or after nextFrom, or
	// -1 when there is none.
	nextFrom, nextClose int
}

func newExprLimiter(n int) *exprLimiter {
	return &exprLimiter{budget: 4*n + 1<<20, nextFrom: -1}
}

// end returns the offset just past the '}' matching s[i] == '{', or -1.
// A nil limiter scans up to maxExprLength bytes.
func (l *exprLimiter) end(s string, i int) int {
	if l == nil {
		return exprEnd(s, i, maxExprLength)
	}
	if l.nextFrom < 0 || i < l.nextFrom || (l.nextClose >= 0 && i > l.nextClose) {
		l.nextFrom, l.nextClose = i, -1
		if k := strings.IndexByte(s[i:], '}'); k >= 0 {
			l.nextClose = i + k
		}
	}
	limit := maxExprLength
	if l.budget <= 0 {
		limit = shortExprLength
	}
	if l.nextClose < 0 || l.nextClose-i >= limit {
		return -1
	}
	e := exprEnd(s, i, limit)
	if e < 0 {
		l.budget -= min(len(s)-i, limit)
	} else {
		l.budget -= e - i
	}
	return e
}

// exprEnd returns the offset just past the '}' matching s[i] == '{', or -1
// when there is none within limit bytes. It skips strings, template
// literals and comments; a quote with no closing quote on its line is taken
// as an apostrophe in JSX text.
func exprEnd(s string, i, limit int) int {
	depth := 0
	var qs quotes
	if len(s)-i > limit {
		s = s[:i+limit]
	}
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
			if e := qs.end(s, i); e > 0 {
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
	e, _ := quoteScan(s, i)
	return e
}

// quoteScan is quoteEnd, also returning where a string that does not end
// stopped being looked for: its line's end, or len(s).
func quoteScan(s string, i int) (end, stop int) {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '\n':
			return -1, j
		case q:
			return j + 1, j + 1
		}
	}
	return -1, len(s)
}

// quotes finds the ends of the strings of one text (quoteEnd) in time
// linear in its length, however many of its quotes are not closed. A
// quote whose string does not end on its line was scanned over every
// later quote of its kind up to where it stopped, each of them escaped
// (else the string would have ended there); a string opened by one of
// those would be scanned in step with it and not end either, so it is not
// looked for again.
type quotes struct {
	open [2]int // for " and ': no string of that quote ends before this offset
}

// end returns the offset past the string starting at s[i], or -1.
func (q *quotes) end(s string, i int) int {
	k := 0
	if s[i] == '\'' {
		k = 1
	}
	if i < q.open[k] {
		return -1
	}
	e, stop := quoteScan(s, i)
	if e < 0 {
		q.open[k] = stop
	}
	return e
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

// FenceState tracks fenced code blocks line by line.
type FenceState struct {
	char byte
	n    int
}

var fenceOpenRE = regexp.MustCompile("^[ \t]*(?:(?:[-*+]|[0-9]{1,9}[.)])[ \t]+)?(```+|~~~+)")

// Line reports whether line is part of a code fence (including its
// opening and closing lines) and updates the state.
func (f *FenceState) Line(line string) bool {
	if f.n > 0 {
		t := strings.TrimSpace(line)
		if len(t) >= f.n && strings.Trim(t, string(f.char)) == "" {
			f.n = 0
		}
		return true
	}
	m := fenceOpenRE.FindStringSubmatch(line)
	if m == nil {
		return false
	}
	if m[1][0] == '`' && strings.Contains(line[len(m[0]):], "`") {
		return false // inline code such as ```x``` is not a fence
	}
	f.char, f.n = m[1][0], len(m[1])
	return true
}
