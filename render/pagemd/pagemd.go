package pagemd

import (
	"html"
	"maps"
	"slices"
	"strconv"
	"strings"

	"lectern.dev/lectern/render/diag"
	"lectern.dev/lectern/render/links"
	"lectern.dev/lectern/render/mdx"
	"lectern.dev/lectern/render/openapi"
)

// Env is what the converter needs of the build.
type Env struct {
	// Links resolves the links and images of the page.
	Links *links.Resolver
	// LoadModule returns the parsed file of the source (the legacy
	// <Snippet file>), or nil.
	LoadModule func(file string) *mdx.Module
	// MaxExpansions bounds the snippets and components one page expands
	// (Limits.MaxExpansions); 0 for no bound.
	MaxExpansions int
	// Examples configures the generated request example of API pages.
	Examples openapi.Examples
}

// Page is a page to write as Markdown.
type Page struct {
	Title, Description string
	// File is the page's source file, Path its navigation path (links
	// resolve from it) and Out the output file of its HTML, beside which
	// the Markdown is written: links are written as in the HTML.
	File, Path, Out string
	// Module is the page's parsed source; nil for a page without one.
	Module *mdx.Module
	// Operation is the OpenAPI operation the page shows, or nil.
	Operation *openapi.Operation
	// API is the "METHOD /path" an API page names (front matter api, or
	// an openapi reference whose operation was not found), shown above
	// its content; "" for others.
	API string
	// URL is the front matter "url" of a page that is a link elsewhere.
	URL string
}

// Render returns page p as Markdown: "# Title", the description, then the
// content.
func Render(env *Env, p Page) string {
	c := &conv{env: env, file: p.File, page: p.Path, out: p.Out, w: &diag.Warner{Mute: 1}, budget: &mdx.Budget{}}
	var b strings.Builder
	if t := oneLine(p.Title); t != "" {
		b.WriteString("# " + escape(t) + "\n\n")
	}
	if d := oneLine(p.Description); d != "" {
		b.WriteString(escape(d) + "\n\n")
	}
	body := ""
	switch {
	case p.Operation != nil:
		main, req, resp := splitExamples(p.Module)
		content := c.module(main)
		if ex := c.module(req) + "\n\n" + c.module(resp); strings.TrimSpace(ex) != "" {
			content += "\n\n" + ex
		}
		body = openapi.Markdown(p.Operation, openapi.MarkdownOptions{Content: content, Examples: env.Examples,
			OwnRequestExample: req != nil && len(req.Nodes) > 0, OwnResponseExample: resp != nil && len(resp.Nodes) > 0})
	case p.API != "":
		body = "`" + strings.ReplaceAll(strings.TrimSpace(p.API), "`", "'") + "`\n\n" + c.module(p.Module)
	default:
		body = c.module(p.Module)
	}
	if strings.TrimSpace(body) == "" && p.URL != "" {
		if u := c.href(p.URL, false); u != "" {
			body = "This page is at <" + u + ">."
		}
	}
	b.WriteString(body)
	return normalize(b.String())
}

// splitExamples returns mod without its top-level <RequestExample> and
// <ResponseExample> elements, and modules of those elements (nil when
// there are none).
func splitExamples(mod *mdx.Module) (main, req, resp *mdx.Module) {
	if mod == nil {
		return nil, nil, nil
	}
	var rest, rq, rs []*mdx.Node
	for _, n := range mod.Nodes {
		switch {
		case n.Kind == mdx.ElementNode && n.Name == "RequestExample":
			rq = append(rq, n)
		case n.Kind == mdx.ElementNode && n.Name == "ResponseExample":
			rs = append(rs, n)
		default:
			rest = append(rest, n)
		}
	}
	with := func(nodes []*mdx.Node) *mdx.Module {
		if nodes == nil {
			return nil
		}
		m := *mod
		m.Nodes = nodes
		return &m
	}
	if rq == nil && rs == nil {
		return mod, nil, nil
	}
	return with(rest), with(rq), with(rs)
}

// maxDepth bounds element and snippet nesting, which also ends snippets
// that include themselves.
const maxDepth = 64

// conv converts the MDX of one page (and the snippets it uses).
type conv struct {
	env             *Env
	file, page, out string
	// w receives the evaluator's warnings, muted: render/components gives
	// them.
	w      *diag.Warner
	budget *mdx.Budget
	depth  int
	// active holds the snippets and components being expanded.
	active     map[*mdx.Binding]bool
	expansions int
	// steps are the numbers of the last step of each <Steps> being written.
	steps []int
}

// module converts a parsed file as the page's content.
func (c *conv) module(mod *mdx.Module) string {
	if mod == nil {
		return ""
	}
	return c.flow(mod.Nodes, &mdx.Scope{Mod: mod, Budget: c.budget}, false, false)
}

// fileOf returns the file whose text sc renders.
func (c *conv) fileOf(sc *mdx.Scope) string {
	for s := sc; s != nil; s = s.Parent {
		if s.Mod != nil {
			return s.Mod.File
		}
	}
	return c.file
}

// inset is the Markdown of an element or value standing in a flow; block
// says it stands on lines of its own, apart from the text around it.
type inset struct {
	md    string
	block bool
}

// token stands for inset i in the Markdown of a flow: NUL bytes, which
// text never holds (flow replaces them).
func token(i int) string { return "\x00" + strconv.Itoa(i) + "\x00" }

// flow converts nodes: Markdown text as written (links resolved), each
// element and value converted in its place (fill). Children of elements
// are dedented first (dedentKids; skipFirst when they start on the open
// tag's line), as render/components does.
func (c *conv) flow(nodes []*mdx.Node, sc *mdx.Scope, dedentKids, skipFirst bool) string {
	if sc.JSX {
		return c.jsxFlow(nodes, sc)
	}
	var src strings.Builder
	var insets []inset
	// add puts a token for md; one that stands on its own lines in the
	// source (own) ends its line there, as render/components does.
	add := func(md string, block, own bool) {
		src.WriteString(token(len(insets)))
		insets = append(insets, inset{md, block})
		if own {
			src.WriteString("\n")
		}
	}
	for _, n := range nodes {
		switch n.Kind {
		case mdx.TextNode:
			src.WriteString(strings.ReplaceAll(n.Text, "\x00", "\uFFFD"))
		case mdx.ElementNode:
			md := c.element(n, sc)
			if strings.TrimSpace(md) == "" {
				continue
			}
			add(md, n.Block || blockElement(n) || strings.Contains(strings.TrimSpace(md), "\n"), n.Block)
		case mdx.ExprNode:
			v := sc.Eval(n.Text, n.Line, c.fileOf(sc), c.w)
			switch v.Kind {
			case mdx.VString, mdx.VNumber:
				src.WriteString(escape(v.S))
			case mdx.VNodes, mdx.VArray:
				md := c.value(v)
				if strings.TrimSpace(md) == "" {
					continue
				}
				add(md, n.Block || strings.Contains(strings.TrimSpace(md), "\n"), n.Block)
			}
			// Anything else renders nothing here: no braces of the source.
		}
		// Raw HTML (comments, stray closing tags) is left out.
	}
	s := src.String()
	if dedentKids {
		s = mdx.Dedent(s, skipFirst)
	}
	return fill(c.rewrite(s), insets)
}

// jsxFlow converts nodes written in JavaScript (a component's body): text
// follows JSX's whitespace rules, and elements that are blocks stand apart.
func (c *conv) jsxFlow(nodes []*mdx.Node, sc *mdx.Scope) string {
	var blocks []string
	var run strings.Builder
	flush := func() {
		if t := strings.TrimSpace(run.String()); t != "" {
			blocks = append(blocks, t)
		}
		run.Reset()
	}
	put := func(md string, block bool) {
		if block || strings.Contains(strings.TrimSpace(md), "\n") {
			flush()
			if t := strings.Trim(md, "\n"); strings.TrimSpace(t) != "" {
				blocks = append(blocks, t)
			}
			return
		}
		run.WriteString(md)
	}
	for _, n := range nodes {
		switch n.Kind {
		case mdx.TextNode:
			run.WriteString(escape(mdx.JSXText(n.Text)))
		case mdx.ElementNode:
			put(c.element(n, sc), blockElement(n))
		case mdx.ExprNode:
			v := sc.Eval(n.Text, n.Line, c.fileOf(sc), c.w)
			switch v.Kind {
			case mdx.VString, mdx.VNumber:
				run.WriteString(escape(v.S))
			case mdx.VNodes, mdx.VArray:
				put(c.value(v), false)
			}
		}
	}
	flush()
	return strings.Join(blocks, "\n\n")
}

// value converts a JSX value or an array of values.
func (c *conv) value(v mdx.Value) string {
	switch v.Kind {
	case mdx.VNodes:
		sc := v.Scope
		if sc == nil {
			sc = &mdx.Scope{Budget: c.budget}
		}
		return c.flow(v.Nodes, sc, true, v.Inline)
	case mdx.VArray:
		parts := make([]string, 0, len(v.Items))
		sep := ""
		for _, it := range v.Items {
			s := c.value(it)
			if strings.Contains(strings.TrimSpace(s), "\n") || blockStart(strings.TrimSpace(s)) {
				sep = "\n\n"
			}
			parts = append(parts, s)
		}
		if sep != "" {
			for i := range parts {
				parts[i] = strings.TrimSpace(parts[i])
			}
			parts = slices.DeleteFunc(parts, func(s string) bool { return s == "" })
		}
		return strings.Join(parts, sep)
	case mdx.VString, mdx.VNumber:
		return escape(v.S)
	}
	return ""
}

// kids converts an element's children.
func (c *conv) kids(n *mdx.Node, sc *mdx.Scope) string {
	if len(n.Children) == 0 {
		return ""
	}
	return strings.Trim(c.flow(n.Children, sc, true, n.InlineKids), "\n")
}

// element converts one element: a fragment, an HTML element, a component
// bound in the file (snippet or exported component), a known component,
// or an unknown one (its content).
func (c *conv) element(n *mdx.Node, sc *mdx.Scope) string {
	if c.depth >= maxDepth {
		return ""
	}
	c.depth++
	defer func() { c.depth-- }()
	switch {
	case n.Name == "":
		return c.kids(n, sc)
	case !mdx.IsComponentName(n.Name):
		return c.htmlElement(n, sc)
	}
	if b := sc.Binding(n.Name); b != nil {
		return c.custom(n, sc, b)
	}
	if f, ok := table[n.Name]; ok {
		return f(&call{c: c, n: n, sc: sc})
	}
	return c.kids(n, sc)
}

// custom expands a snippet or an exported component with the element's
// attributes as props. What cannot be expanded shows its children.
func (c *conv) custom(n *mdx.Node, sc *mdx.Scope, b *mdx.Binding) string {
	if c.expansions++; c.env.MaxExpansions > 0 && c.expansions > c.env.MaxExpansions {
		return ""
	}
	if b.Kind != mdx.BUnresolved {
		if c.active[b] {
			return ""
		}
		if c.active == nil {
			c.active = map[*mdx.Binding]bool{}
		}
		c.active[b] = true
		defer delete(c.active, b)
	}
	switch b.Kind {
	case mdx.BSnippet:
		inner := &mdx.Scope{Vars: c.props(n, sc), Mod: b.Mod, Budget: c.budget}
		return c.flow(b.Mod.Nodes, inner, false, false)
	case mdx.BComponent:
		inner := &mdx.Scope{Vars: map[string]mdx.Value{}, Mod: b.Mod, JSX: true, Budget: c.budget}
		b.BindProps(inner, propsObject(c.props(n, sc)), n.Line, c.w)
		if v := inner.RunBinding(b, n.Line, c.w); v.Kind != mdx.VUnknown {
			return c.value(v)
		}
	case mdx.BValue:
		return c.value((&mdx.Scope{Mod: b.Mod, Budget: c.budget}).Eval(b.Expr, b.Line, b.Mod.File, c.w))
	}
	return c.kids(n, sc)
}

// propsObject makes the props of an element an object value, its keys
// sorted (a spread {...props} writes them in that order).
func propsObject(props map[string]mdx.Value) mdx.Value {
	obj := mdx.Value{Kind: mdx.VObject}
	for _, k := range slices.Sorted(maps.Keys(props)) {
		obj.Keys = append(obj.Keys, k)
		obj.Items = append(obj.Items, props[k])
	}
	return obj
}

// props evaluates an element's attributes, plus its children as
// "children".
func (c *conv) props(n *mdx.Node, sc *mdx.Scope) map[string]mdx.Value {
	props := map[string]mdx.Value{}
	for _, a := range n.Attrs {
		v := c.attrValue(a, n, sc)
		if a.Kind != mdx.AttrSpread {
			props[a.Name] = v
			continue
		}
		for i, k := range v.Keys {
			props[k] = v.Items[i]
		}
	}
	if len(n.Children) > 0 {
		props["children"] = mdx.Value{Kind: mdx.VNodes, Nodes: n.Children, Scope: sc, Inline: n.InlineKids}
	}
	return props
}

func (c *conv) attrValue(a mdx.Attr, n *mdx.Node, sc *mdx.Scope) mdx.Value {
	switch a.Kind {
	case mdx.AttrString:
		return mdx.Value{Kind: mdx.VString, S: html.UnescapeString(a.Val)}
	case mdx.AttrBool:
		return mdx.Value{Kind: mdx.VBool, B: true}
	}
	return sc.Eval(a.Val, n.Line, c.fileOf(sc), c.w)
}
