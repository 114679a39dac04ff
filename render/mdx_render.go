package render

import (
	"fmt"
	"html"
	"strings"

	"lectern.dev/lectern/render/limits"
)

// maxRenderDepth bounds element and snippet nesting at render time, which
// also ends snippets that include themselves.
const maxRenderDepth = 64

// renderer renders the MDX of one page (and the snippets it uses).
type renderer struct {
	s     *site
	pg    *page
	out   string // the page's output file, which relative links start from
	ids   *headingIDs
	depth int
	// active holds the snippets and components being rendered, so that
	// one that includes itself is stopped at once.
	active map[*binding]bool
	// expansions counts the snippets and components rendered for the
	// page, against Limits.MaxExpansions; over is set once it is passed.
	expansions int
	over       bool
}

func (r *renderer) warn(sc *scope, line int, format string, args ...any) {
	if l := sc.pinnedLine(); l > 0 {
		line = l
	}
	r.s.w.Add(sc.file(r), line, format, args...)
}

// file returns the file whose text sc renders.
func (sc *scope) file(r *renderer) string {
	for s := sc; s != nil; s = s.parent {
		if s.mod != nil {
			return s.mod.file
		}
	}
	return r.pg.file
}

// flowOpts say how a list of nodes is rendered.
type flowOpts struct {
	dedent    bool // remove the common indentation (children of elements)
	skipFirst bool // the first line follows an open tag: not indented
	unwrap    bool // drop the <p> around a lone paragraph (inline content)
}

// flow renders nodes: text as Markdown, in which each element, JSX value
// and raw HTML stands as an inset that the MDX extension of goldmark
// renders in its place (mdx_goldmark.go).
func (r *renderer) flow(nodes []*node, sc *scope, o flowOpts) string {
	if sc.jsx {
		return r.jsxFlow(nodes, sc)
	}
	var b strings.Builder
	lines := 0
	lm := &lineMap{}
	var insets []inset
	put := func(s string) {
		b.WriteString(s)
		lines += strings.Count(s, "\n")
	}
	add := func(block bool, f func() string) {
		put(insetToken(len(insets)))
		insets = append(insets, inset{render: f})
		if block {
			put("\n")
		}
	}
	for _, n := range nodes {
		switch n.kind {
		case nText:
			lm.mark(lines, n.line)
			put(n.text)
		case nRaw:
			add(n.block, func() string { return rawHTML(n.text) })
		case nElem:
			add(n.block, func() string { return r.element(n, sc) })
		case nExpr:
			v := sc.eval(n.text, n.line, sc.file(r), r.s.w)
			switch v.kind {
			case vString, vNumber:
				put(escapeMarkdown(v.s))
			case vNodes, vArray:
				add(n.block, func() string { return r.valueHTML(v, !n.block) })
			case vUnknown, vObject:
				r.warn(sc, n.line, "cannot evaluate the expression {%s}; shown as text", firstLine(strings.TrimSpace(n.text), 60))
				put(escapeMarkdown("{" + n.text + "}"))
			}
		}
	}
	src := b.String()
	if o.dedent {
		src = dedent(src, o.skipFirst)
	}
	out := r.markdown(src, insets, lm, sc)
	if o.unwrap {
		out = unwrapParagraph(out)
	}
	return out
}

// markdownText renders Markdown that is not MDX, such as an OpenAPI
// description: braces are text, and HTML tags are read as elements, so
// that they are checked as they are in pages.
func (r *renderer) markdownText(src string, sc *scope) string {
	p := newParser(src, sc.file(r), 0, false, r.s.w)
	p.fixedLine = sc.pinnedLine()
	nodes, _ := p.parseFlow(nil)
	return r.flow(nodes, sc, flowOpts{})
}

// jsxFlow renders nodes as JSX: text is literal with JSX whitespace rules,
// elements and expressions are rendered in place.
func (r *renderer) jsxFlow(nodes []*node, sc *scope) string {
	var b strings.Builder
	for _, n := range nodes {
		switch n.kind {
		case nText:
			b.WriteString(html.EscapeString(jsxText(n.text)))
		case nElem:
			b.WriteString(r.element(n, sc))
		case nRaw:
			b.WriteString(rawHTML(n.text))
		case nExpr:
			v := sc.eval(n.text, n.line, sc.file(r), r.s.w)
			switch v.kind {
			case vString, vNumber, vNodes, vArray:
				b.WriteString(r.valueHTML(v, true))
			case vUnknown, vObject:
				r.warn(sc, n.line, "cannot evaluate the expression {%s}; shown as text", firstLine(strings.TrimSpace(n.text), 60))
				b.WriteString(html.EscapeString("{" + n.text + "}"))
			}
		}
	}
	return b.String()
}

// jsxText applies JSX's whitespace rules: lines are trimmed where they
// meet a line break, blank lines dropped, and the rest joined by spaces.
func jsxText(s string) string {
	if !strings.Contains(s, "\n") {
		return s
	}
	lines := strings.Split(s, "\n")
	var out []string
	for i, l := range lines {
		if i > 0 {
			l = strings.TrimLeft(l, " \t")
		}
		if i < len(lines)-1 {
			l = strings.TrimRight(l, " \t")
		}
		if l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, " ")
}

// valueHTML renders a JSX value or an array of values.
func (r *renderer) valueHTML(v value, inline bool) string {
	switch v.kind {
	case vNodes:
		return r.flow(v.nodes, v.scope, flowOpts{dedent: true, skipFirst: v.inline, unwrap: v.inline})
	case vArray:
		var b strings.Builder
		for _, it := range v.items {
			b.WriteString(r.valueHTML(it, true))
		}
		return b.String()
	case vString, vNumber:
		return html.EscapeString(v.s)
	}
	return ""
}

// kids renders an element's children.
func (r *renderer) kids(n *node, sc *scope) string {
	if len(n.children) == 0 {
		return ""
	}
	return r.flow(n.children, sc, flowOpts{dedent: true, skipFirst: n.inlineKids, unwrap: n.inlineKids})
}

// element renders one element: an HTML tag, a fragment, a component bound
// in the file (snippet or exported component), a known component, or an
// unknown component (a warning; its children are still shown).
func (r *renderer) element(n *node, sc *scope) string {
	if r.depth >= maxRenderDepth {
		r.warn(sc, n.line, "components nested too deeply (a snippet that includes itself?); <%s> is not rendered", n.name)
		return ""
	}
	r.depth++
	defer func() { r.depth-- }()
	switch {
	case n.name == "":
		return r.kids(n, sc)
	case !isComponentName(n.name):
		return r.htmlElement(n, sc)
	}
	if b := sc.binding(n.name); b != nil {
		return r.custom(n, sc, b)
	}
	if c, ok := components[n.name]; ok {
		return c(&call{r: r, n: n, sc: sc})
	}
	r.warn(sc, n.line, "unknown component <%s>; its content is shown without it", n.name)
	tag := "div"
	if !n.block {
		tag = "span"
	}
	return `<` + tag + ` class="lc-unknown" data-component="` + html.EscapeString(n.name) + `">` + r.kids(n, sc) + `</` + tag + `>`
}

// custom renders a snippet or an exported component with the element's
// attributes as props.
func (r *renderer) custom(n *node, sc *scope, b *binding) string {
	if r.over {
		return ""
	}
	if r.expansions++; limits.Over(r.expansions, r.s.opts.Limits.MaxExpansions) {
		r.over = true
		max := r.s.opts.Limits.MaxExpansions
		r.s.limit.Set(limits.Errorf(limits.MaxExpansions, r.pg.file, fmt.Sprint(max),
			"the page uses snippets and components more than %d times, counting those inside others (<%s> in %s, line %d)", max, n.name, sc.file(r), n.line))
		return ""
	}
	if b.kind != bUnresolved {
		if r.active[b] {
			r.warn(sc, n.line, "<%s> includes itself; not rendered again", n.name)
			return ""
		}
		if r.active == nil {
			r.active = map[*binding]bool{}
		}
		r.active[b] = true
		defer delete(r.active, b)
	}
	props := r.props(n, sc)
	switch b.kind {
	case bSnippet:
		inner := &scope{vars: props, mod: b.mod}
		return r.flow(b.mod.nodes, inner, flowOpts{unwrap: !n.block})
	case bComponent:
		vars := map[string]value{}
		if b.propsName != "" {
			obj := value{kind: vObject}
			for k, v := range props {
				obj.keys = append(obj.keys, k)
				obj.items = append(obj.items, v)
			}
			vars[b.propsName] = obj
		}
		for _, p := range b.params {
			if v, ok := props[p.name]; ok {
				vars[p.name] = v
			} else if p.def != "" {
				vars[p.name] = (&scope{mod: b.mod}).eval(p.def, n.line, b.mod.file, r.s.w)
			} else {
				vars[p.name] = value{}
			}
		}
		inner := &scope{vars: vars, mod: b.mod, jsx: true}
		return r.flow(b.body, inner, flowOpts{})
	}
	return r.kids(n, sc) // an import that failed, already reported
}

// props evaluates an element's attributes, plus its children as
// "children".
func (r *renderer) props(n *node, sc *scope) map[string]value {
	props := map[string]value{}
	for _, a := range n.attrs {
		props[a.name] = r.attrValue(a, n, sc)
	}
	if len(n.children) > 0 {
		props["children"] = value{kind: vNodes, nodes: n.children, scope: sc, inline: n.inlineKids}
	}
	return props
}

func (r *renderer) attrValue(a attr, n *node, sc *scope) value {
	switch a.kind {
	case aString:
		return value{kind: vString, s: html.UnescapeString(a.val)}
	case aBool:
		return value{kind: vBool, b: true}
	}
	return sc.eval(a.val, n.line, sc.file(r), r.s.w)
}

// link rewrites an href for the page and warns when its target is missing.
// A URL of a scheme that is not allowed (urlAllowed) gives "" and a
// warning.
func (r *renderer) link(href string, line int, sc *scope) string {
	return r.linkAttr(href, "link", line, sc)
}

// linkAttr is link for attribute attr (named in the warning).
func (r *renderer) linkAttr(href, attr string, line int, sc *scope) string {
	if _, ok := r.checkURL(href, attr, false, line, sc); !ok {
		return ""
	}
	t := r.s.resolve(r.pg.path, href)
	if t.kind == tMissing {
		r.warn(sc, line, "broken link %q: %s", href, t.reason)
	}
	return r.outputURL(r.s.urlFor(r.out, t), false)
}

// asset rewrites the URL of an image or other media; external reports
// whether it is on another host (and must not be loaded). A URL of a
// scheme that is not allowed gives "" and a warning; a data:image URL of
// an image is kept as it is (it makes no request).
func (r *renderer) asset(src string, line int, sc *scope, what string) (u string, external bool) {
	image := what == "image"
	if _, ok := r.checkURL(src, what, image, line, sc); !ok {
		return "", false
	}
	if scheme, _, ok := urlScheme(src); ok && scheme == "data" {
		return src, false // an image: checkURL allows no other data: URL
	}
	t := r.s.resolve(r.pg.path, src)
	switch t.kind {
	case tExternal:
		return src, true
	case tMissing:
		r.warn(sc, line, "%s %q not found", what, src)
	}
	return r.outputURL(r.s.urlFor(r.out, t), image), false
}

// outputURL makes a URL that the build wrote from a path safe to carry:
// a relative path whose first segment reads as a scheme ("javascript:x"
// from a link to a missing page of that name) gets a leading "./".
func (r *renderer) outputURL(u string, image bool) string {
	if urlAllowed(u, image) {
		return u
	}
	return "./" + u
}

// dedent removes the indentation common to all non-blank lines of s
// (except the first when skipFirst), so that nested content is not taken
// as indented code or misplaced lists.
func dedent(s string, skipFirst bool) string {
	lines := strings.Split(s, "\n")
	common := -1
	for i, l := range lines {
		if (i == 0 && skipFirst) || strings.TrimSpace(l) == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, " \t"))
		if common < 0 || n < common {
			common = n
		}
	}
	if common <= 0 && !skipFirst {
		return s
	}
	for i, l := range lines {
		switch {
		case i == 0 && skipFirst:
			lines[i] = strings.TrimLeft(l, " \t")
		case len(l) >= common && common > 0:
			lines[i] = l[common:]
		case common > 0:
			lines[i] = strings.TrimLeft(l, " \t")
		}
	}
	return strings.Join(lines, "\n")
}

// unwrapParagraph drops the <p> around s when s is exactly one paragraph.
func unwrapParagraph(s string) string {
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, "<p>") && strings.HasSuffix(t, "</p>") && strings.Count(t, "<p>") == 1 {
		return t[3 : len(t)-4]
	}
	return s
}

var mdEscaper = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", `*`, `\*`, `_`, `\_`, `[`, `\[`, `]`, `\]`, `<`, `&lt;`, `>`, `&gt;`,
	`&`, `&amp;`, `#`, `\#`, `|`, `\|`, `~`, `\~`, `!`, `\!`,
)

// escapeMarkdown makes text appear literally when rendered as Markdown.
func escapeMarkdown(s string) string { return mdEscaper.Replace(s) }
