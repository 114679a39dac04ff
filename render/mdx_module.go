package render

import (
	"path"
	"regexp"
	"strings"

	"lectern.dev/lectern/render/limits"
)

// module is a parsed .mdx or .md file: a page or a snippet.
type module struct {
	file  string
	nodes []*node
	// names are the components and values the file can use: its imports
	// and its own exports.
	names map[string]*binding
	// exports are the file's exported components.
	exports map[string]*binding
	// self is the binding of the whole file as a snippet.
	self *binding
}

// whole returns the binding that renders all of m, the same each time.
func (m *module) whole() *binding {
	if m.self == nil {
		m.self = &binding{kind: bSnippet, mod: m}
	}
	return m.self
}

// bindingKind says what a name in a module refers to.
type bindingKind uint8

const (
	bSnippet    bindingKind = iota // a default import: the whole snippet file
	bComponent                     // export const Name = (props) => (<JSX>)
	bUnresolved                    // an import that failed (already reported)
)

type binding struct {
	kind bindingKind
	mod  *module // bSnippet: the snippet; bComponent: the defining file
	// params of a component: destructured names with default
	// expressions, or the one name of a props object.
	params    []param
	propsName string
	body      []*node
}

type param struct{ name, def string }

// esmSink collects the top-level import and export statements of a file.
type esmSink struct {
	imports []importDecl
	exports map[string]*binding
}

type importDecl struct {
	line    int
	from    string
	def     string      // default import name
	named   [][2]string // {imported, local}
	starAll string      // import * as name
}

var (
	importRE      = regexp.MustCompile(`^import[ \t\n]+(?:([A-Za-z_$][\w$]*)[ \t\n]*,?[ \t\n]*)?(?:\{([^}]*)\}[ \t\n]*)?(?:\*[ \t\n]*as[ \t\n]+([A-Za-z_$][\w$]*)[ \t\n]*)?from[ \t\n]*["']([^"'\n]+)["'][ \t]*;?`)
	importBareRE  = regexp.MustCompile(`^import[ \t]*["']([^"'\n]+)["'][ \t]*;?`)
	exportConstRE = regexp.MustCompile(`^export[ \t]+(?:const|let|var)[ \t]+([A-Za-z_$][\w$]*)[ \t]*=[ \t\n]*`)
	arrowRE       = regexp.MustCompile(`^(?:\(([^)]*)\)|([A-Za-z_$][\w$]*))[ \t]*=>[ \t\n]*`)
)

// statement consumes an import or export statement at p.pos (a line start
// at the top level) and reports whether there was one.
func (p *mdxParser) statement() bool {
	rest := p.src[p.pos:]
	switch {
	case strings.HasPrefix(rest, "import") && len(rest) > 6 && strings.IndexByte(" \t\n{\"'*", rest[6]) >= 0:
		head := rest[:min(len(rest), 4000)]
		d := importDecl{line: p.lineOf(p.pos)}
		var n int
		if m := importRE.FindStringSubmatchIndex(head); m != nil {
			n = m[1]
			sub := func(i int) string {
				if m[2*i] < 0 {
					return ""
				}
				return head[m[2*i]:m[2*i+1]]
			}
			d.def, d.starAll, d.from = sub(1), sub(3), sub(4)
			for _, part := range strings.Split(sub(2), ",") {
				imported, local, found := strings.Cut(strings.TrimSpace(part), " as ")
				imported, local = strings.TrimSpace(imported), strings.TrimSpace(local)
				if !found {
					local = imported
				}
				if imported != "" {
					d.named = append(d.named, [2]string{imported, local})
				}
			}
		} else if m := importBareRE.FindStringSubmatchIndex(head); m != nil {
			n = m[1]
			d.from = head[m[2]:m[3]]
		} else {
			return false // prose that starts with "import"
		}
		if !onlySpaceAfter(p.src, p.pos+n) {
			return false
		}
		p.esm.imports = append(p.esm.imports, d)
		p.pos = lineEnd(p.src, p.pos+n)
		return true
	case strings.HasPrefix(rest, "export") && len(rest) > 6 && isSpace(rest[6]):
		p.export()
		return true
	}
	return false
}

// export consumes an export statement. Components written as arrow
// functions returning JSX are kept; anything else is ignored with a warning.
func (p *mdxParser) export() {
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
	b := &binding{kind: bComponent}
	if am[2] != "" {
		b.propsName = am[2]
	} else {
		b.params, b.propsName = parseParams(am[1])
	}
	k += len(am[0])
	switch {
	case k < len(p.src) && p.src[k] == '(':
		p.pos = k + 1
		p.stopParen = true
		b.body, _ = p.parseFlow(nil)
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
		b.body = els
	default:
		p.warn(start, "export const %s ignored: only components that return JSX directly are supported", name)
		p.pos = statementEnd(p.src, start)
		return
	}
	for p.pos < len(p.src) && (p.src[p.pos] == ';' || p.src[p.pos] == ' ' || p.src[p.pos] == '\t') {
		p.pos++
	}
	if p.esm.exports == nil {
		p.esm.exports = map[string]*binding{}
	}
	if p.esm.exports[name] != nil {
		p.warn(start, "export const %s is defined more than once; the last definition is used", name)
	}
	p.esm.exports[name] = b
}

// parseParams reads an arrow function's parameter list: "{ a, b = 1 }" or
// "props".
func parseParams(s string) (params []param, whole string) {
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
		if k, alias, ok := strings.Cut(name, ":"); ok { // { title: heading }
			_ = k
			name = strings.TrimSpace(alias)
		}
		params = append(params, param{name: name, def: strings.TrimSpace(def)})
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

// lineEnd returns the offset of the newline ending the line holding i, or
// len(s).
func lineEnd(s string, i int) int {
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

// loadModule parses file (a clean path in the source) once per build and
// resolves its imports. It returns nil when the file cannot be read.
func (s *site) loadModule(file string) *module {
	if m, ok := s.mods[file]; ok {
		return m
	}
	data, err := s.readFile(file)
	if err != nil {
		if limits.AsError(err) != nil {
			s.limit.Set(err)
		}
		return nil
	}
	src := normalizeNewlines(textSource(file, string(data), s.w))
	_, body, bodyLine, _ := splitFrontMatter(src)
	if len(src) > maxPageSource {
		s.w.Add(file, 1, "snippet source larger than %d MiB (%s); its content is not shown", maxPageSource>>20, byteSize(len(src)))
		body = tooLargeNotice(len(src))
	}
	return s.parseModule(file, body, bodyLine)
}

// parseModule parses body, the source of file from line bodyLine on.
func (s *site) parseModule(file, body string, bodyLine int) *module {
	m := &module{file: file, names: map[string]*binding{}}
	s.mods[file] = m // before resolving imports, so cycles end
	p := newParser(body, file, bodyLine, strings.HasSuffix(file, ".mdx"), s.w)
	sink := &esmSink{}
	p.esm = sink
	m.nodes, _ = p.parseFlow(nil)
	m.exports = sink.exports
	for name, b := range sink.exports {
		b.mod = m
		m.names[name] = b
	}
	for _, d := range sink.imports {
		s.resolveImport(m, d)
	}
	return m
}

// resolveImport binds the names of one import statement of m.
func (s *site) resolveImport(m *module, d importDecl) {
	unresolved := func() {
		for _, n := range append([]string{d.def, d.starAll}, localNames(d.named)...) {
			if n != "" {
				m.names[n] = &binding{kind: bUnresolved}
			}
		}
	}
	ext := path.Ext(d.from)
	if ext != ".mdx" && ext != ".md" {
		if d.def == "" && d.starAll == "" && len(d.named) == 0 {
			s.w.Add(m.file, d.line, "import %q ignored: only .mdx and .md snippets can be imported", d.from)
		} else {
			s.w.Add(m.file, d.line, "cannot import %q: only .mdx and .md snippets can be imported; its components are not rendered", d.from)
		}
		unresolved()
		return
	}
	target := d.from
	if strings.HasPrefix(target, ".") {
		target = path.Join("/", path.Dir(m.file), target)[1:]
	} else {
		target = path.Clean("/" + target)[1:]
	}
	if !s.files[target] {
		s.w.Add(m.file, d.line, "cannot import %q: file not found", d.from)
		unresolved()
		return
	}
	snip := s.loadModule(target)
	if snip == nil {
		s.w.Add(m.file, d.line, "cannot import %q: file cannot be read", d.from)
		unresolved()
		return
	}
	if d.def != "" {
		m.names[d.def] = snip.whole()
	}
	if d.starAll != "" {
		s.w.Add(m.file, d.line, "import * as %s from %q is not supported", d.starAll, d.from)
		m.names[d.starAll] = &binding{kind: bUnresolved}
	}
	for _, n := range d.named {
		if b, ok := snip.exports[n[0]]; ok {
			m.names[n[1]] = b
			continue
		}
		s.w.Add(m.file, d.line, "%s has no exported component %s", target, n[0])
		m.names[n[1]] = &binding{kind: bUnresolved}
	}
}

func localNames(named [][2]string) []string {
	out := make([]string, 0, len(named))
	for _, n := range named {
		out = append(out, n[1])
	}
	return out
}
