package mdx

import (
	"regexp"
	"strings"
)

// The declarations of a file: export statements of MDX and JSX files, and
// the const and function declarations of JSX modules (ParseJS).

// export consumes an export statement: export const Name = value,
// export function Name(props) {...}, export default function. Components
// (arrow functions and functions) and values are kept; what Lectern
// cannot evaluate is kept as a BDynamic binding, reported where it is
// used.
func (p *Parser) export() {
	start := p.pos
	if m := exportFuncRE.FindStringSubmatchIndex(p.src[start:]); m != nil {
		name := "default"
		if m[4] >= 0 {
			name = p.src[start+m[4] : start+m[5]]
		}
		b := p.function(start, start+m[1]-1)
		b.Name = name
		p.define(start, name, b, true)
		if m[2] >= 0 && name != "default" {
			p.ESM.Exports["default"] = b
		}
		return
	}
	if m := p.exportList(start); m != nil {
		if m[2] >= 0 { // export default Name
			p.ESM.Aliases = append(p.ESM.Aliases, [2]string{p.src[start+m[2] : start+m[3]], "default"})
		} else { // export { a, b as c }
			for _, part := range strings.Split(p.src[start+m[4]:start+m[5]], ",") {
				local, exported, found := strings.Cut(strings.TrimSpace(part), " as ")
				if local = strings.TrimSpace(local); !found {
					exported = local
				}
				if local != "" {
					p.ESM.Aliases = append(p.ESM.Aliases, [2]string{local, strings.TrimSpace(exported)})
				}
			}
		}
		p.pos = start + m[1]
		return
	}
	m := exportConstRE.FindStringSubmatch(p.src[start:])
	if m == nil {
		p.warn(start, "export statement ignored: only export const and export function are supported")
		p.pos = statementEnd(p.src, start)
		return
	}
	p.define(start, m[1], p.declaration(start, m[1], start+len(m[0])), true)
}

// exportList matches exportListRE against the export statement at start,
// read up to its end only: a list that does not close would otherwise
// have each statement read the rest of the file.
func (p *Parser) exportList(start int) []int {
	rest := strings.TrimLeft(p.src[start+len("export"):], " \t")
	if !strings.HasPrefix(rest, "{") && !strings.HasPrefix(rest, "default") {
		return nil
	}
	return exportListRE.FindStringSubmatchIndex(p.src[start:statementEnd(p.src, start)])
}

var (
	exportListRE = regexp.MustCompile(`^export[ \t]+(?:default[ \t]+([A-Za-z_$][\w$]*)[ \t]*;?[ \t]*(?:\n|$)|\{([^}]*)\}[ \t]*;?)`)
	exportFuncRE = regexp.MustCompile(`^export[ \t]+(default[ \t]+)?function[ \t]*([A-Za-z_$][\w$]*)?[ \t]*\(`)
	funcExprRE   = regexp.MustCompile(`^function[ \t]*([A-Za-z_$][\w$]*)?[ \t]*\(`)
	localDeclRE  = regexp.MustCompile(`^(?:const|let|var)[ \t]+([A-Za-z_$][\w$]*)[ \t]*=[ \t\n]*`)
	localFuncRE  = regexp.MustCompile(`^function[ \t]+([A-Za-z_$][\w$]*)[ \t]*\(`)
)

// define records the binding of a declaration: an export, or a name of
// the file only.
func (p *Parser) define(start int, name string, b *Binding, export bool) {
	for p.pos < len(p.src) && (p.src[p.pos] == ';' || p.src[p.pos] == ' ' || p.src[p.pos] == '\t') {
		p.pos++
	}
	b.Name, b.Line = name, p.lineOf(start)
	target := &p.ESM.Locals
	if export {
		target = &p.ESM.Exports
	}
	if *target == nil {
		*target = map[string]*Binding{}
	}
	if (*target)[name] != nil {
		p.warn(start, "%s is defined more than once; the last definition is used", name)
	}
	(*target)[name] = b
}

// declaration reads the value of const name = ... that starts at k: an
// arrow function, a function, or another value.
func (p *Parser) declaration(start int, name string, k int) *Binding {
	if m := funcExprRE.FindStringIndex(p.src[k:]); m != nil {
		return p.function(start, k+m[1]-1)
	}
	am := arrowHead(p.src[k:])
	if am == nil {
		e := p.valueEnd(start, name, k)
		return &Binding{Kind: BValue, Expr: strings.TrimSpace(p.src[k:e])}
	}
	b := &Binding{Kind: BComponent}
	if am[2] != "" {
		b.PropsName = am[2]
	} else {
		b.Params, b.PropsName = parseParams(am[1])
	}
	k += len(am[0])
	switch {
	case k < len(p.src) && p.src[k] == '(' && (matchEnd(p.src, k) < 0 || strings.HasPrefix(strings.TrimLeft(p.src[k+1:], " \t\n"), "<")):
		p.jsxBody(b, start, name, k) // JSX, or unclosed: reported there
	case k < len(p.src) && p.src[k] == '<':
		p.pos = k
		els, ok := p.element(nil)
		if !ok {
			p.pos = statementEnd(p.src, start)
			return &Binding{Kind: BDynamic, Problem: "its JSX could not be read"}
		}
		b.Body = els
	case k < len(p.src) && p.src[k] == '{':
		p.blockBody(b, k)
	default:
		e := p.valueEnd(start, name, k)
		b.Expr = strings.TrimSpace(p.src[k:e])
	}
	return b
}

// valueEnd returns the end of the expression of the declaration of name
// that starts at k, moving past it, with a warning when it runs to the
// end of the file with a bracket open.
func (p *Parser) valueEnd(start int, name string, k int) int {
	e, next := stmtEnd(p.src, k)
	p.pos = max(next, k+1)
	if e == len(p.src) && matchEnd("("+p.src[k:]+")", 0) < 0 {
		p.warn(start, "%s: a bracket of its value is not closed; the rest of the file is taken as its value", name)
	}
	return e
}

// jsxBody reads the body of name = (props) => ( <JSX> ) whose ( is at k.
func (p *Parser) jsxBody(b *Binding, start int, name string, k int) {
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
}

// blockBody reads a function body { statements } whose { is at k into b,
// which becomes BDynamic when Lectern cannot evaluate a statement.
func (p *Parser) blockBody(b *Binding, k int) {
	e := matchEnd(p.src, k)
	if e < 0 {
		b.Kind, b.Problem = BDynamic, "its body is not closed"
		p.pos = len(p.src)
		return
	}
	p.pos = e
	b.Block = true
	var problem string
	b.Stmts, problem = ParseBody(p.src[k+1:e-1], p.lineOf(k+1))
	if problem != "" {
		b.Kind, b.Problem, b.Stmts = BDynamic, problem, nil
	}
}

// function reads function name(params) { body } whose ( is at open.
func (p *Parser) function(start, open int) *Binding {
	pe := matchEnd(p.src, open)
	if pe < 0 {
		p.pos = statementEnd(p.src, start)
		return &Binding{Kind: BDynamic, Problem: "its parameters are not closed"}
	}
	b := &Binding{Kind: BComponent}
	b.Params, b.PropsName = parseParams(p.src[open+1 : pe-1])
	k := pe
	for k < len(p.src) && isSpace(p.src[k]) {
		k++
	}
	if k >= len(p.src) || p.src[k] != '{' {
		p.pos = statementEnd(p.src, start)
		return &Binding{Kind: BDynamic, Problem: "a function without a body"}
	}
	p.blockBody(b, k)
	return b
}

// ParseJS reads a JavaScript module (a .jsx snippet) for its imports,
// exports and the names its components use: const and function
// declarations. Other statements are skipped.
func (p *Parser) ParseJS() {
	for p.pos < len(p.src) {
		start := p.pos
		for start < len(p.src) && (isSpace(p.src[start]) || p.src[start] == ';' || p.src[start] == '\r') {
			start++
		}
		p.pos = start
		rest := p.src[start:]
		switch {
		case rest == "":
			return
		case strings.HasPrefix(rest, "//"):
			p.pos = LineEnd(p.src, start)
		case strings.HasPrefix(rest, "/*"):
			e := strings.Index(rest[2:], "*/")
			if e < 0 {
				return
			}
			p.pos = start + e + 4
		case strings.HasPrefix(rest, "import") || strings.HasPrefix(rest, "export"):
			if !p.statement() {
				p.skipStatement(start)
			}
		default:
			if m := localFuncRE.FindStringSubmatchIndex(rest); m != nil {
				name := rest[m[2]:m[3]]
				p.define(start, name, p.function(start, start+m[1]-1), false)
			} else if m := localDeclRE.FindStringSubmatch(rest); m != nil {
				p.define(start, m[1], p.declaration(start, m[1], start+len(m[0])), false)
			} else {
				p.skipStatement(start)
			}
		}
		if p.pos <= start {
			p.pos = start + 1
		}
	}
}

// skipStatement moves past the statement at start.
func (p *Parser) skipStatement(start int) {
	_, next := stmtEnd(p.src, start)
	p.pos = max(next, start+1)
}
