package mdx

import (
	"strings"
	"testing"
	"time"

	"lectern.dev/lectern/render/diag"
)

// FuzzJS feeds arbitrary text to the readers of JavaScript: a function
// body (ParseBody), a .jsx module (ParseJS) and an expression (Eval, with
// the module's names in scope). None may panic, and each must end quickly
// whatever the input.
func FuzzJS(f *testing.F) {
	for _, s := range []string{
		"const a = [1, 2];\nif (!a || a.length === 0) return null;\nreturn (<ul>{a.map((x, i) => <li key={i}>{x}</li>)}</ul>);",
		"export const T = ({ rows = [] }) => { const h = rows.filter((r) => r.ok); return h.length > 0 ? <p>{h.join(', ')}</p> : null }",
		"export function F(props) { return props.a ?? `x ${props.b}` + 1 }\nexport default F;\nexport { F as G }",
		"const [a, setA] = useState(0); return <button>{a}</button>",
		"if (x) { if (y) { return 1 } else return 2 } return Object.keys({a: 1}).map(k => k.toUpperCase())",
		"export const f = (n) => f(n)\nconst g = () => { return g() }",
		"((((((a))))))?b:c?d:e", "a ? b", "() => {", "export const X = (", "return <a href={`${x}`}>'t</a>",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		start := time.Now()
		ParseBody(s, 1)
		w := &diag.Warner{Mute: 1}
		p := NewParser(s, "f.jsx", 1, true, w)
		p.ESM = &ESMSink{}
		p.ParseJS()
		p.ESM.Resolve()
		m := &Module{File: "f.jsx", Names: map[string]*Binding{}, Exports: p.ESM.Exports}
		for name, b := range p.ESM.Locals {
			b.Mod, m.Names[name] = m, b
		}
		for name, b := range p.ESM.Exports {
			b.Mod, m.Names[name] = m, b
		}
		sc := &Scope{Mod: m, Budget: &Budget{}, Vars: map[string]Value{"props": {Kind: VObject}}}
		sc.Eval(s, 1, "f.jsx", w)
		for name := range m.Names {
			sc.Eval(name+"()", 1, "f.jsx", w)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%d bytes took %v", len(s), d)
		}
	})
}

// TestJSReadersLinear checks that long runs of what the readers look
// back or ahead over (blank lines, operators, nested ifs) cost time in
// proportion to their length.
func TestJSReadersLinear(t *testing.T) {
	t.Parallel()
	n, m := 200000, 1<<20
	for name, src := range map[string]string{
		"blank lines after return": "return" + strings.Repeat("\n", n) + "1",
		"blank lines in a value":   "const a = 1" + strings.Repeat("\n \t", n) + ".toString()\nreturn a",
		"a long sum":               "return 1" + strings.Repeat(" + 1", n/4),
		"nested ifs":               strings.Repeat("if (a) { ", 40) + "return 1" + strings.Repeat(" }", 40),
		// A snippet's size at most (page.MaxSource): time quadratic in it
		// would take minutes.
		"quotes that do not close": "const a = [" + strings.Repeat("\"\\", m/2) + "]\nreturn a",
		"comments that do not end": "return [1" + strings.Repeat(" /* ", m/4),
		"many statements":          strings.Repeat("const a = 1;\n", m/13) + "return a",
		"many elements":            "const a = [" + strings.Repeat("<a/>, ", m/6) + "];\nreturn a.length",
		"tags that do not close":   "const a = 1;\nreturn [" + strings.Repeat("(<a b={", m/7) + "]",
	} {
		start := time.Now()
		stmts, _ := ParseBody(src, 1)
		sc := &Scope{Budget: &Budget{}, Vars: map[string]Value{"a": {Kind: VBool, B: true}}}
		sc.run(stmts, "f.jsx", &diag.Warner{Mute: 1})
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%s: %v", name, d)
		}
	}
}

// TestJSModuleLinear checks that the statements of a module cost time in
// proportion to their length, and that an export list spanning lines is
// still read.
func TestJSModuleLinear(t *testing.T) {
	t.Parallel()
	for name, src := range map[string]string{
		"export lists that do not close": strings.Repeat("export {)\n", 1<<20/10),
		"imports that do not close":      strings.Repeat("import { a,\n", 1<<20/12),
	} {
		start := time.Now()
		p := NewParser(src, "f.jsx", 1, true, &diag.Warner{Mute: 1})
		p.ESM = &ESMSink{}
		p.ParseJS()
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%s: %v", name, d)
		}
	}
	p := NewParser("const a = 1;\nconst b = 2;\nexport {\n  a,\n  b as c,\n};\n", "f.jsx", 1, true, &diag.Warner{})
	p.ESM = &ESMSink{}
	p.ParseJS()
	p.ESM.Resolve()
	if p.ESM.Exports["a"] == nil || p.ESM.Exports["c"] == nil {
		t.Errorf("the exports of a list over several lines: %v", p.ESM.Exports)
	}
}
