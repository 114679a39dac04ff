package mdx

import (
	"regexp"
	"strings"
)

// Module is a parsed .mdx or .md file: a page or a snippet.
type Module struct {
	File  string
	Nodes []*Node
	// Names are the components and values the file can use: its imports
	// and its own exports.
	Names map[string]*Binding
	// Exports are the file's exported components.
	Exports map[string]*Binding
	// self is the Binding of the whole file as a snippet.
	self *Binding
}

// Whole returns the Binding that renders all of m, the same each time.
func (m *Module) Whole() *Binding {
	if m.self == nil {
		m.self = &Binding{Kind: BSnippet, Mod: m}
	}
	return m.self
}

// BindingKind says what a name in a Module refers to.
type BindingKind uint8

const (
	BSnippet    BindingKind = iota // a default import: the whole snippet file
	BComponent                     // export const Name = (props) => ..., export function Name(props) {...}
	BUnresolved                    // an import that failed (already reported)
	BValue                         // export const Name = value
	BDynamic                       // a component whose markup needs JavaScript to run (Problem says why)
)

// Binding is what a name of a file refers to: a snippet, a component or
// function, a value.
type Binding struct {
	Kind BindingKind
	Mod  *Module // BSnippet: the snippet; the others: the defining file
	// Params of a component: destructured names with default
	// expressions, or the one name of a props object.
	Params    []Param
	PropsName string
	// The body: JSX (Body), statements (Stmts, with Block set) or an
	// expression (Expr, also the value of a BValue).
	Body  []*Node
	Stmts []Stmt
	Block bool
	Expr  string
	// Name, Line and Problem describe a BDynamic binding: its name, where
	// it is defined and what Lectern cannot evaluate in it.
	Name    string
	Line    int
	Problem string
}

// Param is a parameter of a component: the prop Key (Name when empty)
// bound to Name, with a default expression.
type Param struct{ Name, Key, Def string }

func (p Param) key() string {
	if p.Key != "" {
		return p.Key
	}
	return p.Name
}

// ESMSink collects the top-level import and export statements of a file.
type ESMSink struct {
	Imports []ImportDecl
	Exports map[string]*Binding
	// Locals are the names a JavaScript module defines without exporting
	// them (ParseJS).
	Locals map[string]*Binding
	// Aliases are the {local, exported} names of export default Name and
	// export { a, b as c }.
	Aliases [][2]string
}

// Resolve adds the exports that Aliases name to Exports.
func (e *ESMSink) Resolve() {
	for _, a := range e.Aliases {
		b := e.Locals[a[0]]
		if b == nil {
			b = e.Exports[a[0]]
		}
		if b == nil {
			continue
		}
		if e.Exports == nil {
			e.Exports = map[string]*Binding{}
		}
		e.Exports[a[1]] = b
	}
}

type ImportDecl struct {
	Line    int
	From    string
	Def     string      // default import name
	Named   [][2]string // {imported, local}
	StarAll string      // import * as name
}

var (
	importRE      = regexp.MustCompile(`^import[ \t\n]+(?:([A-Za-z_$][\w$]*)[ \t\n]*,?[ \t\n]*)?(?:\{([^}]*)\}[ \t\n]*)?(?:\*[ \t\n]*as[ \t\n]+([A-Za-z_$][\w$]*)[ \t\n]*)?from[ \t\n]*["']([^"'\n]+)["'][ \t]*;?`)
	importBareRE  = regexp.MustCompile(`^import[ \t]*["']([^"'\n]+)["'][ \t]*;?`)
	exportConstRE = regexp.MustCompile(`^export[ \t]+(?:const|let|var)[ \t]+([A-Za-z_$][\w$]*)[ \t]*=[ \t\n]*`)
	arrowNameRE   = regexp.MustCompile(`^([A-Za-z_$][\w$]*)[ \t]*=>[ \t\n]*`)
)

// statement consumes an import or export statement at p.pos (a line start
// at the top level) and reports whether there was one.
func (p *Parser) statement() bool {
	rest := p.src[p.pos:]
	switch {
	case strings.HasPrefix(rest, "import") && len(rest) > 6 && strings.IndexByte(" \t\n{\"'*", rest[6]) >= 0:
		head := rest[:min(len(rest), 4000)]
		d := ImportDecl{Line: p.lineOf(p.pos)}
		var n int
		if m := importRE.FindStringSubmatchIndex(head); m != nil {
			n = m[1]
			sub := func(i int) string {
				if m[2*i] < 0 {
					return ""
				}
				return head[m[2*i]:m[2*i+1]]
			}
			d.Def, d.StarAll, d.From = sub(1), sub(3), sub(4)
			for _, part := range strings.Split(sub(2), ",") {
				imported, local, found := strings.Cut(strings.TrimSpace(part), " as ")
				imported, local = strings.TrimSpace(imported), strings.TrimSpace(local)
				if !found {
					local = imported
				}
				if imported != "" {
					d.Named = append(d.Named, [2]string{imported, local})
				}
			}
		} else if m := importBareRE.FindStringSubmatchIndex(head); m != nil {
			n = m[1]
			d.From = head[m[2]:m[3]]
		} else {
			return false // prose that starts with "import"
		}
		if !onlySpaceAfter(p.src, p.pos+n) {
			return false
		}
		p.ESM.Imports = append(p.ESM.Imports, d)
		p.pos = LineEnd(p.src, p.pos+n)
		return true
	case strings.HasPrefix(rest, "export") && len(rest) > 6 && isSpace(rest[6]):
		p.export()
		return true
	}
	return false
}

// arrowHead matches the head of an arrow function at the start of s,
// "(params) =>" or "name =>" and the spaces after it: am[0] is the head,
// am[1] the parameters in parentheses, am[2] the one name. It is nil when
// s does not start with an arrow function.
func arrowHead(s string) []string {
	if m := arrowNameRE.FindStringSubmatch(s); m != nil {
		return []string{m[0], "", m[1]}
	}
	if !strings.HasPrefix(s, "(") {
		return nil
	}
	e := matchEnd(s, 0)
	if e < 0 {
		return nil
	}
	k := e
	for k < len(s) && (s[k] == ' ' || s[k] == '\t') {
		k++
	}
	if !strings.HasPrefix(s[k:], "=>") {
		return nil
	}
	k += 2
	for k < len(s) && isSpace(s[k]) {
		k++
	}
	return []string{s[:k], s[1 : e-1], ""}
}

// parseParams reads an arrow function's parameter list: "{ a, b = 1 }" or
// "props".
func parseParams(s string) (params []Param, whole string) {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "{") {
		return nil, strings.TrimSpace(strings.SplitN(s, ",", 2)[0])
	}
	s = strings.TrimSuffix(strings.TrimPrefix(s, "{"), "}")
	for _, part := range splitTopLevel(s, ',') {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if rest, ok := strings.CutPrefix(part, "..."); ok { // { a, ...rest }: all the props
			params = append(params, Param{Name: strings.TrimSpace(rest), Key: "..."})
			continue
		}
		name, def, _ := strings.Cut(part, "=")
		name = strings.TrimSpace(name)
		key := ""
		if k, alias, ok := strings.Cut(name, ":"); ok { // { title: heading }
			key, name = strings.TrimSpace(k), strings.TrimSpace(alias)
		}
		params = append(params, Param{Name: name, Key: key, Def: strings.TrimSpace(def)})
	}
	return params, ""
}

// nextStatement returns the offset in body of a line that starts with an
// import or export statement, or -1: a component body that holds one is
// most likely missing its closing parenthesis.
func nextStatement(body string) int {
	for _, kw := range []string{"\nexport ", "\nimport "} {
		if k := strings.Index(body, kw); k >= 0 {
			return k + 1
		}
	}
	return -1
}

// LineEnd returns the offset of the newline ending the line holding i, or
// len(s).
func LineEnd(s string, i int) int {
	if k := strings.IndexByte(s[i:], '\n'); k >= 0 {
		return i + k
	}
	return len(s)
}

// statementEnd returns where a JavaScript statement starting at i ends: at
// the first newline outside brackets, strings, comments and JSX.
func statementEnd(s string, i int) int {
	end := len(s)
	jsWalk(s, i, func(k, depth int) bool {
		if s[k] == '\n' && depth <= 0 {
			end = k
			return false
		}
		return true
	})
	return end
}
