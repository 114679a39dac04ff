package mdx

import (
	"strings"

	"lectern.dev/lectern/render/diag"
)

// The JavaScript that components are written in is read here without
// running it: a walker that knows strings, template literals, comments,
// brackets and JSX elements, and a reader of the few statements a
// component's body may hold (const, if, return). Everything else makes
// the component one Lectern cannot draw without running it.

// jsWalk walks s from i, calling f for each byte of code (outside strings,
// template literals, comments and JSX elements) with the bracket depth
// before the byte; f returns false to stop there. It returns where the
// walk stopped, or len(s).
func jsWalk(s string, i int, f func(i, depth int) bool) int {
	depth := 0
	var prev byte // the last byte of code that is not a space
	var qs quotes
	var jsx jsxElements
	for i < len(s) {
		c := s[i]
		switch {
		case c == '"' || c == '\'':
			if e := qs.end(s, i); e > 0 {
				i, prev = e, 'a'
				continue
			}
		case c == '`':
			if e := templateEnd(s, i); e > 0 {
				i, prev = e, 'a'
				continue
			}
			return len(s)
		case c == '/' && i+1 < len(s) && s[i+1] == '/':
			i = LineEnd(s, i)
			continue
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			e := strings.Index(s[i+2:], "*/")
			if e < 0 {
				return len(s)
			}
			i += e + 4
			continue
		case c == '<' && jsxCanStart(prev) && i+1 < len(s) && (IsLetter(s[i+1]) || s[i+1] == '>'):
			if e := jsx.end(s, i); e > i {
				if !f(i, depth) {
					return i
				}
				i, prev = e, '>'
				continue
			}
		}
		if !f(i, depth) {
			return i
		}
		switch c {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		}
		if !isSpace(c) && c != '\r' {
			prev = c
		}
		i++
	}
	return len(s)
}

// jsxElements finds the ends of the JSX elements of one text with one
// parser, whose line is fixed (lines are not counted) and whose budget of
// expression scans (exprLimiter) the elements share, so that many
// elements, or many tags that do not close, cost time linear in the text.
type jsxElements struct{ p *Parser }

// end returns the offset past the JSX element starting at s[i], or -1.
func (x *jsxElements) end(s string, i int) int {
	if x.p == nil {
		x.p = NewParser(s, "", 1, true, &diag.Warner{Mute: 1})
		x.p.FixedLine = 1
	}
	x.p.pos = i
	if _, ok := x.p.element(nil); !ok {
		return -1
	}
	return x.p.pos
}

// jsxCanStart reports whether a '<' after prev (the last byte of code, 0
// at the start) opens a JSX element rather than comparing.
func jsxCanStart(prev byte) bool {
	return prev == 0 || strings.IndexByte("(,?:&|=!{[;>}", prev) >= 0
}

// templateEnd returns the offset past the template literal starting at
// s[i] == '`', or -1.
func templateEnd(s string, i int) int {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '`':
			return j + 1
		}
	}
	return -1
}

// matchEnd returns the offset past the bracket closing the one at s[i],
// or -1.
func matchEnd(s string, i int) int {
	end := -1
	jsWalk(s, i, func(k, depth int) bool {
		if k > i && depth == 1 && strings.IndexByte(")]}", s[k]) >= 0 {
			end = k + 1
			return false
		}
		return k == i || depth > 0
	})
	return end
}

// stmtEnd returns where the statement or expression starting at s[i]
// ends: at a ';' outside brackets, or at a line break after which the
// expression cannot go on (automatic semicolon insertion, roughly).
func stmtEnd(s string, i int) (end, next int) {
	end, next = len(s), len(s)
	afterAt := -1         // where the text after the current run of spaces starts
	last, prev := -1, i-1 // the last byte of code seen, the last byte visited
	jsWalk(s, i, func(k, depth int) bool {
		if k != prev+1 { // a string, comment or element was skipped
			last = k - 1
		}
		prev = k
		switch c := s[k]; {
		case depth < 0 || (depth == 0 && strings.IndexByte(")]}", c) >= 0):
			end, next = k, k
			return false
		case !isSpace(c) && c != '\r':
			last = k
			if depth == 0 && c == ';' {
				end, next = k, k+1
				return false
			}
		case depth > 0 || c != '\n' || last < i:
		case continuesAfter(s[max(i, last-1) : last+1]):
		default:
			if afterAt < k { // once per run of spaces, so that long runs cost no more
				afterAt = k
				for afterAt < len(s) && strings.IndexByte(" \t\r\n", s[afterAt]) >= 0 {
					afterAt++
				}
			}
			if afterAt < len(s) && strings.IndexByte(".?:&|+-*/,=)]", s[afterAt]) >= 0 {
				return true
			}
			end, next = k, k
			return false
		}
		return true
	})
	return end, next
}

// continuesAfter reports whether an expression that ends with before at
// a line break goes on after it.
func continuesAfter(before string) bool {
	return strings.HasSuffix(before, "=>") || strings.IndexByte("=(,?:&|+-*/.[{<", before[len(before)-1]) >= 0
}

// StmtKind is the kind of a statement of a component's body.
type StmtKind uint8

const (
	SConst  StmtKind = iota // const|let|var Name = Expr (Name may be a {…} or […] pattern)
	SIf                     // if (Expr) Then else Else
	SReturn                 // return Expr
)

// Stmt is a statement of a component's body that can be evaluated
// without running code.
type Stmt struct {
	Kind       StmtKind
	Name       string
	Expr       string
	Then, Else []Stmt
	Line       int
}

// maxStmtDepth bounds the nesting of if blocks.
const maxStmtDepth = 32

// ParseBody reads the statements of a function body (the text between
// its braces), which starts on line. It returns the problem ("" when
// none) that makes the body one Lectern cannot evaluate.
func ParseBody(src string, line int) ([]Stmt, string) {
	r := bodyReader{src: src, line: line}
	stmts := r.block(0, len(src), 0)
	return stmts, r.problem
}

type bodyReader struct {
	src     string
	line    int
	problem string
	// lineOff and lineNum are the last line looked up (lineOf), from
	// which the next is counted.
	lineOff, lineNum int
}

// lineOf returns the line of offset i of the body.
func (r *bodyReader) lineOf(i int) int {
	if i >= r.lineOff {
		r.lineNum += strings.Count(r.src[r.lineOff:i], "\n")
	} else {
		r.lineNum -= strings.Count(r.src[i:r.lineOff], "\n")
	}
	r.lineOff = i
	return r.line + r.lineNum
}

func (r *bodyReader) fail(format string) {
	if r.problem == "" {
		r.problem = format
	}
}

// skip returns the offset of the next statement at or after i: past
// spaces, semicolons and comments.
func (r *bodyReader) skip(i, end int) int {
	for i < end {
		switch {
		case isSpace(r.src[i]) || r.src[i] == ';' || r.src[i] == '\r':
			i++
		case strings.HasPrefix(r.src[i:], "//"):
			i = LineEnd(r.src, i)
		case strings.HasPrefix(r.src[i:], "/*"):
			e := strings.Index(r.src[i+2:end], "*/")
			if e < 0 {
				return end
			}
			i += e + 4
		default:
			return i
		}
	}
	return end
}

func (r *bodyReader) block(i, end, depth int) []Stmt {
	var out []Stmt
	for {
		i = r.skip(i, end)
		if i >= end || r.problem != "" {
			return out
		}
		st, next := r.stmt(i, end, depth)
		if r.problem != "" {
			return out
		}
		out = append(out, st)
		i = next
	}
}

// keyword reports whether s[i:] starts with the word kw.
func keyword(s string, i int, kw string) bool {
	return strings.HasPrefix(s[i:], kw) && (i+len(kw) == len(s) || !isNameByte(s[i+len(kw)]))
}

// stmt reads the statement at i and returns it and where the next one
// starts.
func (r *bodyReader) stmt(i, end, depth int) (Stmt, int) {
	s := r.src[:end]
	line := r.lineOf(i)
	switch {
	case keyword(s, i, "return"):
		e, next := stmtEnd(s, i+6)
		return Stmt{Kind: SReturn, Expr: strings.TrimSpace(s[i+6 : e]), Line: line}, next
	case keyword(s, i, "const") || keyword(s, i, "let") || keyword(s, i, "var"):
		k := i + 3
		if s[i] == 'c' {
			k = i + 5
		}
		k = r.skip(k, end)
		var name string
		if k < end && (s[k] == '{' || s[k] == '[') {
			e := matchEnd(s, k)
			if e < 0 {
				r.fail("a destructuring pattern is not closed")
				return Stmt{}, end
			}
			name, k = s[k:e], e
		} else {
			j := k
			for j < end && isNameByte(s[j]) && s[j] != '-' && s[j] != '.' {
				j++
			}
			name, k = s[k:j], j
		}
		k = r.skip(k, end)
		if name == "" || k >= end || s[k] != '=' || (k+1 < end && s[k+1] == '=') {
			r.fail("a declaration without a value")
			return Stmt{}, end
		}
		e, next := stmtEnd(s, k+1)
		return Stmt{Kind: SConst, Name: name, Expr: strings.TrimSpace(s[k+1 : e]), Line: line}, next
	case keyword(s, i, "if"):
		return r.ifStmt(i, end, depth, line)
	}
	e, _ := stmtEnd(s, i)
	r.fail("the statement " + strings.TrimSpace(firstLine(s[i:e], 40)))
	return Stmt{}, end
}

func (r *bodyReader) ifStmt(i, end, depth, line int) (Stmt, int) {
	s := r.src[:end]
	if depth >= maxStmtDepth {
		r.fail("if statements nested too deeply")
		return Stmt{}, end
	}
	k := r.skip(i+2, end)
	if k >= end || s[k] != '(' {
		r.fail("an if without a condition")
		return Stmt{}, end
	}
	ce := matchEnd(s, k)
	if ce < 0 || ce > end {
		r.fail("an if whose condition is not closed")
		return Stmt{}, end
	}
	st := Stmt{Kind: SIf, Expr: strings.TrimSpace(s[k+1 : ce-1]), Line: line}
	var next int
	st.Then, next = r.branch(ce, end, depth)
	if j := r.skip(next, end); j < end && keyword(s, j, "else") {
		st.Else, next = r.branch(j+4, end, depth)
	}
	return st, next
}

// branch reads the statement or { block } of an if or else at i.
func (r *bodyReader) branch(i, end, depth int) ([]Stmt, int) {
	i = r.skip(i, end)
	if i < end && r.src[i] == '{' {
		e := matchEnd(r.src[:end], i)
		if e < 0 {
			r.fail("a block that is not closed")
			return nil, end
		}
		return r.block(i+1, e-1, depth+1), e
	}
	if i >= end {
		r.fail("an if without a statement")
		return nil, end
	}
	st, next := r.stmt(i, end, depth+1)
	return []Stmt{st}, next
}

// firstLine returns s up to its first line break, at most n bytes.
func firstLine(s string, n int) string {
	if k := strings.IndexByte(s, '\n'); k >= 0 {
		s = s[:k]
	}
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}
