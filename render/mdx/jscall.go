package mdx

import (
	"strconv"
	"strings"

	"lectern.dev/lectern/render/diag"
)

// Functions: arrow functions, the components and functions of a file
// called with arguments, the methods of arrays and strings, and the
// statements of function bodies, evaluated within a page's Budget.

// Func is a function value: an arrow function of an expression, or a
// component or function of a file called as a function.
type Func struct {
	Names []string // positional parameter names
	Bind  *Binding // the parameters and body
	Scope *Scope   // where it was defined
}

// arrow returns the function value of the arrow function e, whose head
// arrowHead matched as am.
func (sc *Scope) arrow(e string, am []string, line int) Value {
	b := &Binding{Kind: BComponent}
	params := am[1]
	if am[2] != "" {
		params = am[2]
		b.PropsName = params
	} else {
		b.Params, b.PropsName = parseParams(params)
	}
	body := e[len(am[0]):]
	if strings.HasPrefix(body, "{") && matchEnd(body, 0) == len(body) {
		var problem string
		b.Stmts, problem = ParseBody(body[1:len(body)-1], line)
		if problem != "" {
			return unknown(e)
		}
		b.Block = true
	} else {
		b.Expr = body
	}
	fn := &Func{Bind: b, Scope: sc}
	if !strings.HasPrefix(strings.TrimSpace(params), "{") {
		for _, p := range strings.Split(params, ",") {
			p, _, _ = strings.Cut(p, "=")
			fn.Names = append(fn.Names, strings.TrimSpace(p))
		}
	}
	return Value{Kind: VFunc, Fn: fn}
}

// call evaluates callee(args): an array method (map, filter, join,
// includes, find), a string method, Array.isArray, Object.keys, values
// and entries, String, or a function.
func (sc *Scope) call(callee, args string, line int, file string, w *diag.Warner, depth int) Value {
	ev := func(s string) Value { return sc.evalDepth(s, line, file, w, depth+1) }
	var argv []Value
	for _, a := range splitTopLevel(args, ',') {
		if strings.TrimSpace(a) != "" {
			argv = append(argv, ev(a))
		}
	}
	for _, a := range argv {
		if a.Kind == VUnknown {
			return unknown(callee + "(" + args + ")")
		}
	}
	arg := func(i int) Value {
		if i < len(argv) {
			return argv[i]
		}
		return Value{}
	}
	switch callee {
	case "Array.isArray":
		return Value{Kind: VBool, B: arg(0).Kind == VArray}
	case "String":
		if !sc.spend(arg(0).size(), line, file, w) {
			return unknown(callee + "(" + args + ")")
		}
		return Value{Kind: VString, S: text(arg(0))}
	case "Object.keys", "Object.values", "Object.entries":
		return objectList(callee[7:], arg(0))
	}
	if dot := strings.LastIndexByte(callee, '.'); dot > 0 && isPath(callee[dot+1:]) {
		recv := ev(callee[:dot])
		if v, ok := sc.method(recv, callee[dot+1:], argv, line, file, w); ok {
			return v
		}
	}
	f := ev(callee)
	if f.Kind == VFunc {
		return sc.apply(f.Fn, argv, line, file, w)
	}
	return unknown(callee + "(" + args + ")")
}

// method calls a method of an array or a string; ok is false for another
// method or value.
func (sc *Scope) method(recv Value, name string, argv []Value, line int, file string, w *diag.Warner) (Value, bool) {
	var arg Value // the first argument
	if len(argv) > 0 {
		arg = argv[0]
	}
	switch recv.Kind {
	case VUnknown:
		return recv, true
	case VString:
		if !sc.spend(recv.size()+arg.size(), line, file, w) { // the strings made or looked through
			return unknown(name), true
		}
		switch name {
		case "toUpperCase":
			return Value{Kind: VString, S: strings.ToUpper(recv.S)}, true
		case "toLowerCase":
			return Value{Kind: VString, S: strings.ToLower(recv.S)}, true
		case "trim":
			return Value{Kind: VString, S: strings.TrimSpace(recv.S)}, true
		case "includes":
			return Value{Kind: VBool, B: len(argv) > 0 && strings.Contains(recv.S, arg.Str())}, true
		}
	case VArray:
		switch name {
		case "join":
			sep := ","
			if len(argv) > 0 {
				sep = arg.Str()
			}
			if !sc.spend(recv.size()+len(recv.Items)*len(sep), line, file, w) {
				return unknown(name), true
			}
			parts := make([]string, len(recv.Items))
			for i, it := range recv.Items {
				parts[i] = it.Str()
			}
			return Value{Kind: VString, S: strings.Join(parts, sep)}, true
		case "includes":
			for _, it := range recv.Items {
				if len(argv) > 0 && equal(it, arg, false) {
					return Value{Kind: VBool, B: true}, true
				}
			}
			return Value{Kind: VBool}, true
		case "map", "filter", "find":
			if arg.Kind != VFunc {
				return unknown(name), true
			}
			f := arg.Fn
			out := Value{Kind: VArray}
			for i, it := range recv.Items {
				r := sc.apply(f, []Value{it, {Kind: VNumber, S: strconv.Itoa(i)}}, line, file, w)
				switch {
				case r.Kind == VUnknown:
					return r, true
				case name == "map":
					out.Items = append(out.Items, r)
				case r.Truthy() && name == "find":
					return it, true
				case r.Truthy():
					out.Items = append(out.Items, it)
				}
			}
			if name == "find" {
				return Value{}, true
			}
			return sized(out), true
		}
	}
	return Value{}, false
}

// objectList returns Object.keys, values or entries of v.
func objectList(which string, v Value) Value {
	out := Value{Kind: VArray}
	if v.Kind != VObject {
		return out
	}
	for i, k := range v.Keys {
		key := Value{Kind: VString, S: k}
		switch which {
		case "keys":
			out.Items = append(out.Items, key)
		case "values":
			out.Items = append(out.Items, v.Items[i])
		default:
			out.Items = append(out.Items, sized(Value{Kind: VArray, Items: []Value{key, v.Items[i]}}))
		}
	}
	return sized(out)
}

// apply calls fn with argv, within the page's Budget.
func (sc *Scope) apply(fn *Func, argv []Value, line int, file string, w *diag.Warner) Value {
	b := fn.Bind
	bud := fn.Scope.budget()
	switch {
	case bud == nil:
		return unknown("a function call outside a page")
	case bud.depth >= maxCallDepth:
		return unknown("function calls nested too deeply")
	case !fn.Scope.spend(callCost, line, file, w):
		return unknown("a function call over the page's budget")
	}
	bud.depth++
	defer func() { bud.depth-- }()
	vars := map[string]Value{}
	for i, n := range fn.Names {
		if i < len(argv) && n != "" {
			vars[n] = argv[i]
		}
	}
	var first Value
	if len(argv) > 0 {
		first = argv[0]
	}
	inner := &Scope{Vars: vars, Parent: fn.Scope, JSX: true}
	b.BindProps(inner, first, line, w)
	return inner.RunBinding(b, line, w)
}

// BindProps binds the parameters of b in sc from props, the first
// argument (the props object of a component): the name of the whole
// object, or the destructured names with their defaults.
func (b *Binding) BindProps(sc *Scope, props Value, line int, w *diag.Warner) {
	if b.PropsName != "" {
		sc.Vars[b.PropsName] = props
	}
	for _, p := range b.Params {
		if p.Key == "..." {
			sc.Vars[p.Name] = props
			continue
		}
		v := props.Field(p.key())
		if v.Kind == VUndefined && p.Def != "" {
			v = sc.Eval(p.Def, line, b.file(), w)
		}
		sc.Vars[p.Name] = v
	}
}

func (b *Binding) file() string {
	if b.Mod != nil {
		return b.Mod.File
	}
	return ""
}

// RunBinding evaluates the body of b (statements, an expression or JSX)
// in sc, where its parameters are bound: the value it returns, or a
// VUnknown naming what could not be evaluated.
func (sc *Scope) RunBinding(b *Binding, line int, w *diag.Warner) Value {
	switch {
	case b.Block:
		v, _, problem := sc.run(b.Stmts, b.file(), w)
		if problem != "" {
			return unknown(problem)
		}
		return v
	case b.Expr != "":
		return sc.Eval(b.Expr, line, b.file(), w)
	}
	return Value{Kind: VNodes, Nodes: b.Body, Scope: sc}
}

// run evaluates statements in sc; returned says a return statement
// ended them, problem (the source of a value) that one could not be
// evaluated.
func (sc *Scope) run(stmts []Stmt, file string, w *diag.Warner) (v Value, returned bool, problem string) {
	for _, s := range stmts {
		switch s.Kind {
		case SReturn:
			return sc.Eval(s.Expr, s.Line, file, w), true, ""
		case SConst:
			v := sc.Eval(s.Expr, s.Line, file, w)
			if v.Kind == VUnknown {
				return Value{}, false, s.Expr
			}
			sc.destructure(s.Name, v)
		case SIf:
			c := sc.Eval(s.Expr, s.Line, file, w)
			if c.Kind == VUnknown {
				return Value{}, false, s.Expr
			}
			branch := s.Else
			if c.Truthy() {
				branch = s.Then
			}
			if v, ret, p := sc.run(branch, file, w); ret || p != "" {
				return v, ret, p
			}
		}
	}
	return Value{}, false, ""
}

// destructure binds name, a name or a {a, b: c, d = 1} or [a, b]
// pattern, to v.
func (sc *Scope) destructure(name string, v Value) {
	if sc.Vars == nil {
		sc.Vars = map[string]Value{}
	}
	switch {
	case strings.HasPrefix(name, "{"):
		params, _ := parseParams(name)
		for _, p := range params {
			f := v
			if p.Key != "..." {
				f = v.Field(p.key())
			}
			if f.Kind == VUndefined && p.Def != "" {
				f = sc.Eval(p.Def, 0, "", &diag.Warner{Mute: 1})
			}
			sc.Vars[p.Name] = f
		}
	case strings.HasPrefix(name, "["):
		for i, n := range splitTopLevel(name[1:len(name)-1], ',') {
			if n = strings.TrimSpace(n); n != "" {
				sc.Vars[n] = member(v, strconv.Itoa(i))
			}
		}
	default:
		sc.Vars[name] = v
	}
}
