package mdx

import (
	"strconv"
	"strings"

	"lectern.dev/lectern/render/diag"
)

// ValueKind is the type of an evaluated expression.
type ValueKind uint8

const (
	VUndefined ValueKind = iota
	VString
	VNumber
	VBool
	VArray
	VObject
	VNodes   // JSX, or the children of a component
	VUnknown // an expression Lectern cannot evaluate
	VFunc    // a function (Fn)
)

// Value is the result of evaluating a JSX attribute or text expression.
// Lectern evaluates literals, JSX, and names bound to component props; it
// never runs code.
type Value struct {
	Kind  ValueKind
	S     string // VString, VNumber; the source of a VUnknown
	B     bool
	Items []Value // VArray; the values of a VObject
	Keys  []string
	Nodes []*Node // VNodes
	Scope *Scope  // where VNodes are rendered
	Fn    *Func   // VFunc
	// Inline is set for VNodes whose content is phrasing (a JSX attribute,
	// or children that start on their open tag's line).
	Inline bool
	// n is the size of a VArray or VObject the evaluator built (sized).
	n int
}

// Str returns v as attribute text: "" for booleans, undefined, JSX and
// values that cannot be evaluated.
func (v Value) Str() string {
	switch v.Kind {
	case VString, VNumber:
		return v.S
	case VArray:
		parts := make([]string, 0, len(v.Items))
		for _, it := range v.Items {
			parts = append(parts, it.Str())
		}
		return strings.Join(parts, ",")
	}
	return ""
}

// Truthy reports whether v counts as true, as in JavaScript.
func (v Value) Truthy() bool {
	switch v.Kind {
	case VString:
		return v.S != ""
	case VNumber:
		f, _ := strconv.ParseFloat(v.S, 64)
		return f != 0
	case VBool:
		return v.B
	case VUndefined:
		return false
	}
	return true
}

// Field returns the Value of an object's key, or undefined.
func (v Value) Field(key string) Value {
	for i, k := range v.Keys {
		if k == key {
			return v.Items[i]
		}
	}
	return Value{}
}

// Scope resolves names for expressions and components.
type Scope struct {
	Vars   map[string]Value
	Parent *Scope
	Mod    *Module // the file whose text is being rendered
	// JSX is set inside JavaScript (a component body or a JSX attribute):
	// text there is JSX text, not Markdown.
	JSX bool
	// Line, when set, is where every warning about this text is reported:
	// the text comes from elsewhere (an OpenAPI description) and its own
	// lines are not lines of the file.
	Line int
	// Budget bounds the function calls of the evaluation, for the page
	// (set on the page's outermost scopes).
	Budget *Budget
}

// PinnedLine returns the line warnings of sc are reported at, or 0 when
// they keep their own.
func (sc *Scope) PinnedLine() int {
	for s := sc; s != nil; s = s.Parent {
		if s.Line > 0 {
			return s.Line
		}
	}
	return 0
}

func (sc *Scope) lookupVar(name string) (Value, bool) {
	for s := sc; s != nil; s = s.Parent {
		if v, ok := s.Vars[name]; ok {
			return v, true
		}
	}
	return Value{}, false
}

// Binding returns the component bound to name in the rendered file.
func (sc *Scope) Binding(name string) *Binding {
	for s := sc; s != nil; s = s.Parent {
		if s.Mod != nil {
			return s.Mod.Names[name]
		}
	}
	return nil
}

// Eval evaluates the expression source src. It never fails: what it cannot
// evaluate is a VUnknown holding the source. The work, the value's size
// included, is charged to the Budget of sc (or one of its own when none is
// set).
func (sc *Scope) Eval(src string, line int, file string, w *diag.Warner) Value {
	if sc.budget() == nil {
		sc = &Scope{Parent: sc, Budget: &Budget{}, JSX: sc.JSX}
	}
	v := sc.evalDepth(src, line, file, w, 0)
	if v.Kind != VUnknown && !sc.spend(v.size(), line, file, w) {
		return unknown(strings.TrimSpace(src))
	}
	return v
}

// maxExprDepth bounds the nesting of arrays, objects and parentheses that
// eval follows.
const maxExprDepth = 32

func (sc *Scope) evalDepth(src string, line int, file string, w *diag.Warner, depth int) Value {
	if !sc.spend(len(src)+exprCost, line, file, w) {
		return unknown(strings.TrimSpace(src))
	}
	e := strings.TrimSpace(stripComments(src))
	if e == "" {
		return Value{}
	}
	if depth > maxExprDepth {
		return Value{Kind: VUnknown, S: e}
	}
	depth++
	if e[0] == '(' && matchEnd(e, 0) == len(e) { // (expr): read once, not by each reader of operators
		return sc.evalDepth(e[1:len(e)-1], line, file, w, depth)
	}
	if v, ok := sc.evalOps(e, line, file, w, depth); ok {
		return v
	}
	switch c := e[0]; {
	case c == '"' || c == '\'':
		if end := quoteEnd(e, 0); end == len(e) {
			return Value{Kind: VString, S: unquoteJS(e[1 : len(e)-1])}
		}
	case c == '`':
		if strings.HasSuffix(e, "`") && len(e) > 1 {
			return sc.template(e[1:len(e)-1], line, file, w)
		}
	case c == '<':
		return Value{Kind: VNodes, Nodes: sc.parseJSX(e, line, file, w), Scope: &Scope{Parent: sc, JSX: true}, Inline: true}
	case c == '[' && strings.HasSuffix(e, "]"):
		v := Value{Kind: VArray}
		for _, part := range splitTopLevel(e[1:len(e)-1], ',') {
			if strings.TrimSpace(part) != "" {
				v.Items = append(v.Items, sc.evalDepth(part, line, file, w, depth))
			}
		}
		return sized(v)
	case c == '{' && strings.HasSuffix(e, "}"):
		return sc.object(e[1:len(e)-1], line, file, w, depth)
	case c == '-' || c == '.' || '0' <= c && c <= '9':
		if _, err := strconv.ParseFloat(e, 64); err == nil {
			return Value{Kind: VNumber, S: e}
		}
	}
	switch e {
	case "true", "false":
		return Value{Kind: VBool, B: e == "true"}
	case "null", "undefined":
		return Value{}
	}
	if p := strings.ReplaceAll(e, "?.", "."); isPath(p) {
		parts := strings.Split(p, ".")
		v, ok := sc.lookupVar(parts[0])
		if !ok {
			v, ok = sc.bindingValue(parts[0], line, w)
		}
		if ok {
			for _, k := range parts[1:] {
				v = member(v, k)
			}
			return v
		}
	}
	return Value{Kind: VUnknown, S: e}
}

// parseJSX parses the JSX expression e, once per source in a page
// (Budget) when it is evaluated again and again (the items of a map).
func (sc *Scope) parseJSX(e string, line int, file string, w *diag.Warner) []*Node {
	b := sc.budget()
	if b != nil {
		if nodes, ok := b.jsx[e]; ok {
			return nodes
		}
	}
	p := NewParser(e, file, line, true, w)
	nodes, _ := p.ParseFlow(nil)
	if b != nil && len(b.jsx) < maxJSXCache {
		if b.jsx == nil {
			b.jsx = map[string][]*Node{}
		}
		b.jsx[e] = nodes
	}
	return nodes
}

// bindingValue returns the value of a name the rendered file defines or
// imports: a constant, or a function or component as a function value.
func (sc *Scope) bindingValue(name string, line int, w *diag.Warner) (Value, bool) {
	b := sc.Binding(name)
	if b == nil {
		return Value{}, false
	}
	switch b.Kind {
	case BValue:
		bud := sc.budget()
		if bud == nil || bud.depth >= maxCallDepth || !sc.spend(callCost, line, b.file(), w) {
			return Value{Kind: VUnknown, S: name}, true
		}
		if v, ok := bud.values[b]; ok {
			return v, true
		}
		bud.depth++
		defer func() { bud.depth-- }()
		v := (&Scope{Mod: b.Mod, Budget: bud}).Eval(b.Expr, b.Line, b.file(), w)
		if v.Kind != VUnknown {
			if bud.values == nil {
				bud.values = map[*Binding]Value{}
			}
			bud.values[b] = v
		}
		return v, true
	case BComponent:
		fn := &Func{Bind: b, Scope: &Scope{Mod: b.Mod, Budget: sc.budget()}}
		if b.PropsName != "" && len(b.Params) == 0 {
			fn.Names = []string{b.PropsName}
		}
		return Value{Kind: VFunc, Fn: fn}, true
	}
	return Value{Kind: VUnknown, S: name}, true
}

// template evaluates a template literal's text, substituting ${name} and
// decoding escapes (\n, \`, \$) as JavaScript does.
func (sc *Scope) template(t string, line int, file string, w *diag.Warner) Value {
	var b strings.Builder
	for {
		i := templateSub(t)
		if i < 0 {
			b.WriteString(unquoteJS(t))
			return Value{Kind: VString, S: b.String()}
		}
		j := strings.IndexByte(t[i:], '}')
		if j < 0 {
			return Value{Kind: VUnknown, S: "`" + t + "`"}
		}
		v := sc.Eval(t[i+2:i+j], line, file, w)
		if v.Kind == VUnknown || v.Kind == VNodes {
			return Value{Kind: VUnknown, S: "`" + t + "`"}
		}
		b.WriteString(unquoteJS(t[:i]))
		b.WriteString(v.Str())
		t = t[i+j+1:]
	}
}

// templateSub returns the offset of the first "${" of a template
// literal's text that is not escaped, or -1.
func templateSub(t string) int {
	for i := 0; i+1 < len(t); i++ {
		switch {
		case t[i] == '\\':
			i++
		case t[i] == '$' && t[i+1] == '{':
			return i
		}
	}
	return -1
}

func (sc *Scope) object(body string, line int, file string, w *diag.Warner, depth int) Value {
	v := Value{Kind: VObject}
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
		v.Keys = append(v.Keys, k)
		v.Items = append(v.Items, sc.evalDepth(val, line, file, w, depth))
	}
	return sized(v)
}

func isPath(e string) bool {
	for _, part := range strings.Split(e, ".") {
		if part == "" || !(IsLetter(part[0]) || part[0] == '_' || part[0] == '$') {
			return false
		}
		for j := 0; j < len(part); j++ {
			if !(isNameByte(part[j]) && part[j] != '-' && part[j] != '.') {
				return false
			}
		}
	}
	return true
}

// splitTopLevel splits s at sep outside brackets, strings, comments and
// JSX.
func splitTopLevel(s string, sep byte) []string {
	var out []string
	last := 0
	jsWalk(s, 0, func(i, depth int) bool {
		if s[i] == sep && depth == 0 {
			out = append(out, s[last:i])
			last = i + 1
		}
		return true
	})
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

// stripComments removes /* */ comments outside strings.
func stripComments(s string) string {
	if !strings.Contains(s, "/*") {
		return s
	}
	var b strings.Builder
	var qs quotes
	unclosed := false // a comment has no end: none after it has one either
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"', '\'':
			if e := qs.end(s, i); e > 0 {
				b.WriteString(s[i:e])
				i = e - 1
				continue
			}
		case '/':
			if i+1 < len(s) && s[i+1] == '*' && !unclosed {
				if k := strings.Index(s[i+2:], "*/"); k >= 0 {
					i += k + 3
					continue
				}
				unclosed = true
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
