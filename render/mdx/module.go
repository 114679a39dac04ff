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
	BComponent                     // export const Name = (props) => (<JSX>)
	BUnresolved                    // an import that failed (already reported)
)

type Binding struct {
	Kind BindingKind
	Mod  *Module // BSnippet: the snippet; BComponent: the defining file
	// Params of a component: destructured names with default
	// expressions, or the one name of a props object.
	Params    []Param
	PropsName string
	Body      []*Node
}

type Param struct{ Name, Def string }

// ESMSink collects the top-level import and export statements of a file.
type ESMSink struct {
	Imports []ImportDecl
	Exports map[string]*Binding
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
	arrowRE       = regexp.MustCompile(`^(?:\(([^)]*)\)|([A-Za-z_$][\w$]*))[ \t]*=>[ \t\n]*`)
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

// export consumes an export statement. Components written as arrow
// functions returning JSX are kept; anything else is ignored with a warning.
func (p *Parser) export() {
	start := p.pos
	m := exportConstRE.FindStringSubmatch(p.src[start:])
	if m == nil {
		p.warn(start, "export statement ignored: only export const components are supported")
		p.pos = statementEnd(p.src, start)
		return
	}
	name := m[1]
	k := start + len(m[0])
	am := arrowRE.FindStringSubmatch(p.src[k:])
	if am == nil {
		p.warn(start, "export const %s ignored: only components (arrow functions returning JSX) are supported", name)
		p.pos = statementEnd(p.src, start)
		return
	}
	b := &Binding{Kind: BComponent}
	if am[2] != "" {
		b.PropsName = am[2]
	} else {
		b.Params, b.PropsName = parseParams(am[1])
	}
	k += len(am[0])
	switch {
	case k < len(p.src) && p.src[k] == '(':
		p.pos = k + 1
		p.stopParen = true
		b.Body, _ = p.ParseFlow(nil)
		p.stopParen = false
		if off := nextStatement(p.src[k+1 : p.pos]); off >= 0 {
			p.warn(start, "export const %s: its body runs into the statement on line %d; is a ) missing?",
				name, p.lineOf(k+1+off))
		}
		if p.pos < len(p.src) && p.src[p.pos] == ')' {
			p.pos++
			if e := p.pos; !onlySpaceAfter(p.src, e) && !(p.src[e] == ';' && onlySpaceAfter(p.src, e+1)) {
				p.warn(start, "export const %s: unexpected text after the component's closing )", name)
			}
		} else {
			p.warn(start, "export const %s: missing ) at the end of the component", name)
		}
	case k < len(p.src) && p.src[k] == '<':
		p.pos = k
		els, ok := p.element(nil)
		if !ok {
			p.warn(start, "export const %s ignored: its JSX could not be read", name)
			p.pos = statementEnd(p.src, start)
			return
		}
		b.Body = els
	default:
		p.warn(start, "export const %s ignored: only components that return JSX directly are supported", name)
		p.pos = statementEnd(p.src, start)
		return
	}
	for p.pos < len(p.src) && (p.src[p.pos] == ';' || p.src[p.pos] == ' ' || p.src[p.pos] == '\t') {
		p.pos++
	}
	if p.ESM.Exports == nil {
		p.ESM.Exports = map[string]*Binding{}
	}
	if p.ESM.Exports[name] != nil {
		p.warn(start, "export const %s is defined more than once; the last definition is used", name)
	}
	p.ESM.Exports[name] = b
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
		if part == "" || strings.HasPrefix(part, "...") {
			continue
		}
		name, def, _ := strings.Cut(part, "=")
		name = strings.TrimSpace(name)
		if _, alias, ok := strings.Cut(name, ":"); ok { // { title: heading }
			name = strings.TrimSpace(alias)
		}
		params = append(params, Param{Name: name, Def: strings.TrimSpace(def)})
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
// the first newline outside brackets and strings.
func statementEnd(s string, i int) int {
	depth := 0
	for i < len(s) {
		switch c := s[i]; c {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case '"', '\'':
			if e := quoteEnd(s, i); e > 0 {
				i = e
				continue
			}
		case '`':
			if e := strings.IndexByte(s[i+1:], '`'); e >= 0 {
				i += e + 2
				continue
			}
		case '\n':
			if depth <= 0 {
				return i
			}
		}
		i++
	}
	return len(s)
}
