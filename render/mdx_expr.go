package render

import (
	"strconv"
	"strings"

	"lectern.dev/lectern/render/diag"
)

// valueKind is the type of an evaluated expression.
type valueKind uint8

const (
	vUndefined valueKind = iota
	vString
	vNumber
	vBool
	vArray
	vObject
	vNodes   // JSX, or the children of a component
	vUnknown // an expression Lectern cannot evaluate
)

// value is the result of evaluating a JSX attribute or text expression.
// Lectern evaluates literals, JSX, and names bound to component props; it
// never runs code.
type value struct {
	kind  valueKind
	s     string // vString, vNumber; the source of a vUnknown
	b     bool
	items []value // vArray; the values of a vObject
	keys  []string
	nodes []*node // vNodes
	scope *scope  // where vNodes are rendered
	// inline is set for vNodes whose content is phrasing (a JSX attribute,
	// or children that start on their open tag's line).
	inline bool
}

// str returns v as attribute text: "" for booleans, undefined, JSX and
// values that cannot be evaluated.
func (v value) str() string {
	switch v.kind {
	case vString, vNumber:
		return v.s
	case vArray:
		parts := make([]string, 0, len(v.items))
		for _, it := range v.items {
			parts = append(parts, it.str())
		}
		return strings.Join(parts, ",")
	}
	return ""
}

// truthy reports whether v counts as true, as in JavaScript.
func (v value) truthy() bool {
	switch v.kind {
	case vString:
		return v.s != ""
	case vNumber:
		f, _ := strconv.ParseFloat(v.s, 64)
		return f != 0
	case vBool:
		return v.b
	case vUndefined:
		return false
	}
	return true
}

// field returns the value of an object's key, or undefined.
func (v value) field(key string) value {
	for i, k := range v.keys {
		if k == key {
			return v.items[i]
		}
	}
	return value{}
}

// scope resolves names for expressions and components.
type scope struct {
	vars   map[string]value
	parent *scope
	mod    *module // the file whose text is being rendered
	// jsx is set inside JavaScript (a component body or a JSX attribute):
	// text there is JSX text, not Markdown.
	jsx bool
	// line, when set, is where every warning about this text is reported:
	// the text comes from elsewhere (an OpenAPI description) and its own
	// lines are not lines of the file.
	line int
}

// pinnedLine returns the line warnings of sc are reported at, or 0 when
// they keep their own.
func (sc *scope) pinnedLine() int {
	for s := sc; s != nil; s = s.parent {
		if s.line > 0 {
			return s.line
		}
	}
	return 0
}

func (sc *scope) lookupVar(name string) (value, bool) {
	for s := sc; s != nil; s = s.parent {
		if v, ok := s.vars[name]; ok {
			return v, true
		}
	}
	return value{}, false
}

// binding returns the component bound to name in the rendered file.
func (sc *scope) binding(name string) *binding {
	for s := sc; s != nil; s = s.parent {
		if s.mod != nil {
			return s.mod.names[name]
		}
	}
	return nil
}

// eval evaluates the expression source src. It never fails: what it cannot
// evaluate is a vUnknown holding the source.
func (sc *scope) eval(src string, line int, file string, w *diag.Warner) value {
	return sc.evalDepth(src, line, file, w, 0)
}

// maxExprDepth bounds the nesting of arrays, objects and parentheses that
// eval follows.
const maxExprDepth = 32

func (sc *scope) evalDepth(src string, line int, file string, w *diag.Warner, depth int) value {
	e := strings.TrimSpace(stripComments(src))
	if e == "" {
		return value{}
	}
	if depth > maxExprDepth {
		return value{kind: vUnknown, s: e}
	}
	depth++
	switch c := e[0]; {
	case c == '"' || c == '\'':
		if end := quoteEnd(e, 0); end == len(e) {
			return value{kind: vString, s: unquoteJS(e[1 : len(e)-1])}
		}
	case c == '`':
		if strings.HasSuffix(e, "`") && len(e) > 1 {
			return sc.template(e[1:len(e)-1], line, file, w)
		}
	case c == '<':
		p := newParser(e, file, line, true, w)
		nodes, _ := p.parseFlow(nil)
		return value{kind: vNodes, nodes: nodes, scope: &scope{parent: sc, jsx: true}, inline: true}
	case c == '[' && strings.HasSuffix(e, "]"):
		v := value{kind: vArray}
		for _, part := range splitTopLevel(e[1:len(e)-1], ',') {
			if strings.TrimSpace(part) != "" {
				v.items = append(v.items, sc.evalDepth(part, line, file, w, depth))
			}
		}
		return v
	case c == '{' && strings.HasSuffix(e, "}"):
		return sc.object(e[1:len(e)-1], line, file, w, depth)
	case c == '(' && strings.HasSuffix(e, ")") && exprParenOK(e):
		return sc.evalDepth(e[1:len(e)-1], line, file, w, depth)
	case c == '-' || c == '.' || '0' <= c && c <= '9':
		if _, err := strconv.ParseFloat(e, 64); err == nil {
			return value{kind: vNumber, s: e}
		}
	}
	switch e {
	case "true", "false":
		return value{kind: vBool, b: e == "true"}
	case "null", "undefined":
		return value{}
	}
	if isPath(e) {
		parts := strings.Split(e, ".")
		if v, ok := sc.lookupVar(parts[0]); ok {
			for _, k := range parts[1:] {
				v = v.field(k)
			}
			return v
		}
	}
	return value{kind: vUnknown, s: e}
}

// template evaluates a template literal's text, substituting ${name}.
func (sc *scope) template(t string, line int, file string, w *diag.Warner) value {
	var b strings.Builder
	for {
		i := strings.Index(t, "${")
		if i < 0 {
			b.WriteString(t)
			return value{kind: vString, s: b.String()}
		}
		j := strings.IndexByte(t[i:], '}')
		if j < 0 {
			return value{kind: vUnknown, s: "`" + t + "`"}
		}
		v := sc.eval(t[i+2:i+j], line, file, w)
		if v.kind == vUnknown || v.kind == vNodes {
			return value{kind: vUnknown, s: "`" + t + "`"}
		}
		b.WriteString(t[:i])
		b.WriteString(v.str())
		t = t[i+j+1:]
	}
}

func (sc *scope) object(body string, line int, file string, w *diag.Warner, depth int) value {
	v := value{kind: vObject}
	for _, part := range splitTopLevel(body, ',') {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k, val, found := cutTopLevel(part, ':')
		k = strings.TrimSpace(k)
		if len(k) >= 2 && (k[0] == '"' || k[0] == '\'') {
			k = unquoteJS(k[1 : len(k)-1])
		}
		if !found {
			val = k // shorthand {name}
		}
		v.keys = append(v.keys, k)
		v.items = append(v.items, sc.evalDepth(val, line, file, w, depth))
	}
	return v
}

// exprParenOK reports whether the outer parentheses of e enclose all of it.
func exprParenOK(e string) bool {
	parts := splitTopLevel(e[1:len(e)-1], ')')
	return len(parts) == 1
}

func isPath(e string) bool {
	for i, part := range strings.Split(e, ".") {
		if part == "" || !(isLetter(part[0]) || part[0] == '_' || part[0] == '$') {
			return false
		}
		for j := 0; j < len(part); j++ {
			if !(isNameByte(part[j]) && part[j] != '-' && part[j] != '.') {
				return false
			}
		}
		_ = i
	}
	return true
}

// splitTopLevel splits s at sep outside brackets, strings and JSX.
func splitTopLevel(s string, sep byte) []string {
	var out []string
	depth, last := 0, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case '"', '\'':
			if e := quoteEnd(s, i); e > 0 {
				i = e - 1
				continue
			}
		case '`':
			if e := strings.IndexByte(s[i+1:], '`'); e >= 0 {
				i += e + 1
				continue
			}
		case '<':
			if i+1 < len(s) && (isLetter(s[i+1]) || s[i+1] == '>') {
				if end := jsxEnd(s, i); end > i {
					i = end - 1
					continue
				}
			}
		}
		if s[i] == sep && depth == 0 {
			out = append(out, s[last:i])
			last = i + 1
		}
	}
	return append(out, s[last:])
}

// cutTopLevel cuts s at the first sep outside brackets and strings.
func cutTopLevel(s string, sep byte) (before, after string, found bool) {
	parts := splitTopLevel(s, sep)
	if len(parts) < 2 {
		return s, "", false
	}
	return parts[0], s[len(parts[0])+1:], true
}

// jsxEnd returns the end of the JSX element starting at s[i], or -1.
func jsxEnd(s string, i int) int {
	p := newParser(s, "", 1, true, &diag.Warner{Mute: 1})
	p.pos = i
	if _, ok := p.element(nil); !ok {
		return -1
	}
	return p.pos
}

// stripComments removes /* */ comments outside strings.
func stripComments(s string) string {
	if !strings.Contains(s, "/*") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"', '\'':
			if e := quoteEnd(s, i); e > 0 {
				b.WriteString(s[i:e])
				i = e - 1
				continue
			}
		case '/':
			if i+1 < len(s) && s[i+1] == '*' {
				if k := strings.Index(s[i+2:], "*/"); k >= 0 {
					i += k + 3
					continue
				}
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// unquoteJS decodes the escapes of a JavaScript string literal's body.
func unquoteJS(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'u':
			if i+4 < len(s) {
				if r, err := strconv.ParseUint(s[i+1:i+5], 16, 32); err == nil {
					b.WriteRune(rune(r))
					i += 4
					continue
				}
			}
			b.WriteByte('u')
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}
