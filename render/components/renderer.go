package components

import (
	"fmt"
	"html"
	"maps"
	"slices"
	"strings"

	"lectern.dev/lectern/render/diag"
	"lectern.dev/lectern/render/highlight"
	"lectern.dev/lectern/render/icons"
	"lectern.dev/lectern/render/limits"
	"lectern.dev/lectern/render/links"
	"lectern.dev/lectern/render/markdown"
	"lectern.dev/lectern/render/mdx"
	"lectern.dev/lectern/render/safe"
)

// maxRenderDepth bounds element and snippet nesting at render time, which
// also ends snippets that include themselves.
const maxRenderDepth = 64

// Env is what the Renderer needs of the build.
type Env struct {
	// W receives the warnings.
	W *diag.Warner
	// Links resolves links and writes their URLs.
	Links *links.Resolver
	// MaxExpansions bounds the snippets and components one page renders
	// (Limits.MaxExpansions); Limit records the first limit passed.
	MaxExpansions int
	Limit         *limits.State
	// Code is the rebuild cache's store of highlighted code, or nil.
	Code *highlight.Store
	// LoadModule returns the parsed file of the source, or nil (with a
	// warning) when it cannot be read.
	LoadModule func(file string) *mdx.Module
	// Icons is the site's icon library (docs.json icons.library); the
	// zero value is Font Awesome.
	Icons icons.Library
	// EmbedHosts are the hosts whose <iframe>s are kept (media.go),
	// lower case; nil, as in exports, for none.
	EmbedHosts []string
}

// Renderer renders the MDX of one page (and the snippets it uses).
type Renderer struct {
	env   *Env
	file  string // the page's source file
	page  string // the page's navigation path, which links resolve from
	out   string // the page's output file, which relative links start from
	ids   *markdown.HeadingIDs
	depth int
	// active holds the snippets and components being rendered, so that
	// one that includes itself is stopped at once.
	active map[*mdx.Binding]bool
	// expansions counts the snippets and components rendered for the
	// page, against Limits.MaxExpansions; over is set once it is passed.
	expansions int
	over       bool
	// stepTitleSize is the titleSize of the <Steps> being rendered.
	stepTitleSize string
	// budget bounds the work of evaluating the page's expressions.
	budget *mdx.Budget
}

func (r *Renderer) warn(sc *mdx.Scope, line int, format string, args ...any) {
	if l := sc.PinnedLine(); l > 0 {
		line = l
	}
	r.env.W.Add(r.fileOf(sc), line, format, args...)
}

// fileOf returns the file whose text sc renders.
func (r *Renderer) fileOf(sc *mdx.Scope) string {
	for s := sc; s != nil; s = s.Parent {
		if s.Mod != nil {
			return s.Mod.File
		}
	}
	return r.file
}

// flowOpts say how a list of nodes is rendered.
type flowOpts struct {
	dedent    bool // remove the common indentation (children of elements)
	skipFirst bool // the first line follows an open tag: not indented
	unwrap    bool // drop the <p> around a lone paragraph (inline content)
}

// flow renders nodes: text as Markdown, in which each element, JSX value
// and raw HTML stands as an inset that the MDX extension of goldmark
// renders in its place (render/markdown).
func (r *Renderer) flow(nodes []*mdx.Node, sc *mdx.Scope, o flowOpts) string {
	if sc.JSX {
		return r.jsxFlow(nodes, sc)
	}
	var b strings.Builder
	lines := 0
	lm := &markdown.LineMap{}
	var insets []markdown.Inset
	put := func(s string) {
		b.WriteString(s)
		lines += strings.Count(s, "\n")
	}
	add := func(block bool, f func() string) {
		put(markdown.InsetToken(len(insets)))
		insets = append(insets, markdown.Inset{Render: f})
		if block {
			put("\n")
		}
	}
	for _, n := range nodes {
		switch n.Kind {
		case mdx.TextNode:
			lm.Mark(lines, n.Line)
			put(n.Text)
		case mdx.RawNode:
			add(n.Block, func() string { return safe.RawHTML(n.Text) })
		case mdx.ElementNode:
			add(n.Block, func() string { return r.element(n, sc) })
		case mdx.ExprNode:
			v := sc.Eval(n.Text, n.Line, r.fileOf(sc), r.env.W)
			switch v.Kind {
			case mdx.VString, mdx.VNumber:
				put(escapeMarkdown(v.S))
			case mdx.VNodes, mdx.VArray:
				add(n.Block, func() string { return r.valueHTML(v) })
			case mdx.VUnknown, mdx.VObject, mdx.VFunc:
				r.warn(sc, n.Line, "cannot evaluate the expression {%s}; shown as text", diag.FirstLine(strings.TrimSpace(n.Text), 60))
				put(escapeMarkdown("{" + n.Text + "}"))
			}
		}
	}
	src := b.String()
	if o.dedent {
		src = mdx.Dedent(src, o.skipFirst)
	}
	out := r.markdown(src, insets, lm, sc)
	if o.unwrap {
		out = unwrapParagraph(out)
	}
	return out
}

// MarkdownText renders Markdown that is not MDX, such as an OpenAPI
// description: braces are text, and HTML tags are read as elements, so
// that they are checked as they are in pages. The expressions of their
// attributes are charged to the page's budget, as the page's own are.
func (r *Renderer) MarkdownText(src string, sc *mdx.Scope) string {
	p := mdx.NewParser(src, r.fileOf(sc), 0, false, r.env.W)
	p.FixedLine = sc.PinnedLine()
	nodes, _ := p.ParseFlow(nil)
	return r.flow(nodes, &mdx.Scope{Parent: sc, JSX: sc.JSX, Budget: r.budget}, flowOpts{})
}

// jsxFlow renders nodes as JSX: text is literal with JSX whitespace rules,
// elements and expressions are rendered in place.
func (r *Renderer) jsxFlow(nodes []*mdx.Node, sc *mdx.Scope) string {
	var b strings.Builder
	for _, n := range nodes {
		switch n.Kind {
		case mdx.TextNode:
			b.WriteString(html.EscapeString(mdx.JSXText(n.Text)))
		case mdx.ElementNode:
			b.WriteString(r.element(n, sc))
		case mdx.RawNode:
			b.WriteString(safe.RawHTML(n.Text))
		case mdx.ExprNode:
			v := sc.Eval(n.Text, n.Line, r.fileOf(sc), r.env.W)
			switch v.Kind {
			case mdx.VString, mdx.VNumber, mdx.VNodes, mdx.VArray:
				b.WriteString(r.valueHTML(v))
			case mdx.VUnknown, mdx.VObject, mdx.VFunc:
				r.warn(sc, n.Line, "cannot evaluate the expression {%s}; shown as text", diag.FirstLine(strings.TrimSpace(n.Text), 60))
				b.WriteString(html.EscapeString("{" + n.Text + "}"))
			}
		}
	}
	return b.String()
}

// valueHTML renders a JSX value or an array of values.
func (r *Renderer) valueHTML(v mdx.Value) string {
	switch v.Kind {
	case mdx.VNodes:
		return r.flow(v.Nodes, v.Scope, flowOpts{dedent: true, skipFirst: v.Inline, unwrap: v.Inline})
	case mdx.VArray:
		var b strings.Builder
		for _, it := range v.Items {
			b.WriteString(r.valueHTML(it))
		}
		return b.String()
	case mdx.VString, mdx.VNumber:
		return html.EscapeString(v.S)
	}
	return ""
}

// kids renders an element's children.
func (r *Renderer) kids(n *mdx.Node, sc *mdx.Scope) string {
	if len(n.Children) == 0 {
		return ""
	}
	return r.flow(n.Children, sc, flowOpts{dedent: true, skipFirst: n.InlineKids, unwrap: n.InlineKids})
}

// element renders one element: an HTML tag, a fragment, a component bound
// in the file (snippet or exported component), a known component, or an
// unknown component (a warning; its children are still shown).
func (r *Renderer) element(n *mdx.Node, sc *mdx.Scope) string {
	if r.depth >= maxRenderDepth {
		r.warn(sc, n.Line, "components nested too deeply (a snippet that includes itself?); <%s> is not rendered", n.Name)
		return ""
	}
	r.depth++
	defer func() { r.depth-- }()
	switch {
	case n.Name == "":
		return r.kids(n, sc)
	case !mdx.IsComponentName(n.Name):
		return r.htmlElement(n, sc)
	}
	if b := sc.Binding(n.Name); b != nil {
		return r.custom(n, sc, b)
	}
	if c, ok := components[n.Name]; ok {
		return c(&call{r: r, n: n, sc: sc})
	}
	r.warn(sc, n.Line, "unknown component <%s>; its content is shown without it", n.Name)
	tag := "div"
	if !n.Block {
		tag = "span"
	}
	return `<` + tag + ` class="lc-unknown" data-component="` + html.EscapeString(n.Name) + `">` + r.kids(n, sc) + `</` + tag + `>`
}

// custom renders a snippet or an exported component with the element's
// attributes as props.
func (r *Renderer) custom(n *mdx.Node, sc *mdx.Scope, b *mdx.Binding) string {
	if r.over {
		return ""
	}
	if r.expansions++; limits.Over(r.expansions, r.env.MaxExpansions) {
		r.over = true
		max := r.env.MaxExpansions
		r.env.Limit.Set(limits.Errorf(limits.MaxExpansions, r.file, fmt.Sprint(max),
			"the page uses snippets and components more than %d times, counting those inside others (<%s> in %s, line %d)", max, n.Name, r.fileOf(sc), n.Line))
		return ""
	}
	if b.Kind != mdx.BUnresolved {
		if r.active[b] {
			r.warn(sc, n.Line, "<%s> includes itself; not rendered again", n.Name)
			return ""
		}
		if r.active == nil {
			r.active = map[*mdx.Binding]bool{}
		}
		r.active[b] = true
		defer delete(r.active, b)
	}
	props := r.props(n, sc)
	switch b.Kind {
	case mdx.BSnippet:
		inner := &mdx.Scope{Vars: props, Mod: b.Mod, Budget: r.budget}
		return r.flow(b.Mod.Nodes, inner, flowOpts{unwrap: !n.Block})
	case mdx.BComponent:
		inner := &mdx.Scope{Vars: map[string]mdx.Value{}, Mod: b.Mod, JSX: true, Budget: r.budget}
		b.BindProps(inner, propsObject(props), n.Line, r.env.W)
		v := inner.RunBinding(b, n.Line, r.env.W)
		if v.Kind == mdx.VUnknown {
			return r.placeholder(n, sc, b, diag.FirstLine(v.S, 60))
		}
		return r.valueHTML(v)
	case mdx.BDynamic:
		return r.placeholder(n, sc, b, b.Problem)
	case mdx.BValue:
		return r.valueHTML((&mdx.Scope{Mod: b.Mod, Budget: r.budget}).Eval(b.Expr, b.Line, b.Mod.File, r.env.W))
	}
	// An import that failed (already reported): its children, if any,
	// are shown; a component without any is a visible placeholder rather
	// than nothing at all.
	if len(n.Children) == 0 {
		r.warn(sc, n.Line, "<%s> is not rendered: the import that defines it failed; a placeholder is shown", n.Name)
		return r.placeholderHTML(n)
	}
	return r.kids(n, sc)
}

// placeholder stands for a component whose markup needs JavaScript to
// run: a visible note in the page and a warning that names the component,
// where it is defined and what could not be evaluated.
func (r *Renderer) placeholder(n *mdx.Node, sc *mdx.Scope, b *mdx.Binding, why string) string {
	where := r.fileOf(sc)
	if b.Mod != nil {
		where = b.Mod.File
		if b.Line > 0 {
			where += fmt.Sprintf(":%d", b.Line)
		}
	}
	r.warn(sc, n.Line, "<%s> (defined in %s) needs JavaScript to run, which Lectern does not do (%s); a placeholder is shown", n.Name, where, why)
	return r.placeholderHTML(n)
}

// placeholderHTML is the visible note that stands for component n.
func (r *Renderer) placeholderHTML(n *mdx.Node) string {
	tag := "div"
	if !n.Block {
		tag = "span"
	}
	return "<" + tag + ` class="lc-placeholder" role="note">Interactive component <code>` + html.EscapeString(n.Name) +
		"</code> is not available in this version of the docs.</" + tag + ">"
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
func (r *Renderer) props(n *mdx.Node, sc *mdx.Scope) map[string]mdx.Value {
	props := map[string]mdx.Value{}
	for _, a := range n.Attrs {
		v := r.attrValue(a, n, sc)
		if a.Kind != mdx.AttrSpread {
			props[a.Name] = v
			continue
		}
		for i, k := range v.Keys { // {...obj}: its keys, in order
			props[k] = v.Items[i]
		}
	}
	if len(n.Children) > 0 {
		props["children"] = mdx.Value{Kind: mdx.VNodes, Nodes: n.Children, Scope: sc, Inline: n.InlineKids}
	}
	return props
}

func (r *Renderer) attrValue(a mdx.Attr, n *mdx.Node, sc *mdx.Scope) mdx.Value {
	switch a.Kind {
	case mdx.AttrString:
		return mdx.Value{Kind: mdx.VString, S: html.UnescapeString(a.Val)}
	case mdx.AttrBool:
		return mdx.Value{Kind: mdx.VBool, B: true}
	}
	return sc.Eval(a.Val, n.Line, r.fileOf(sc), r.env.W)
}

// link rewrites an href for the page and warns when its target is missing.
// A URL of a scheme that is not allowed (safe.URLAllowed) gives "" and a
// warning.
func (r *Renderer) link(href string, line int, sc *mdx.Scope) string {
	return r.linkAttr(href, "link", line, sc)
}

// linkAttr is link for attribute attr (named in the warning).
func (r *Renderer) linkAttr(href, attr string, line int, sc *mdx.Scope) string {
	if !r.checkURL(href, attr, false, line, sc) {
		return ""
	}
	t := r.env.Links.Resolve(r.page, href)
	if t.Kind == links.Missing {
		r.warn(sc, line, "broken link %q: %s", href, t.Reason)
	}
	return r.outputURL(r.env.Links.URL(r.out, t), false)
}

// asset rewrites the URL of an image or other media; external reports
// whether it is on another host (and must not be loaded). A URL of a
// scheme that is not allowed gives "" and a warning; a data:image URL of
// an image is kept as it is (it makes no request).
func (r *Renderer) asset(src string, line int, sc *mdx.Scope, what string) (u string, external bool) {
	image := what == "image"
	if !r.checkURL(src, what, image, line, sc) {
		return "", false
	}
	if scheme, _, ok := safe.Scheme(src); ok && scheme == "data" {
		return src, false // an image: checkURL allows no other data: URL
	}
	t := r.env.Links.Resolve(r.page, src)
	switch t.Kind {
	case links.External:
		return src, true
	case links.Missing:
		r.warn(sc, line, "%s %q not found", what, src)
	}
	return r.outputURL(r.env.Links.URL(r.out, t), image), false
}

// outputURL makes a URL that the build wrote from a path safe to carry:
// a relative path whose first segment reads as a scheme ("javascript:x"
// from a link to a missing page of that name) gets a leading "./".
func (r *Renderer) outputURL(u string, image bool) string {
	if safe.URLAllowed(u, image) {
		return u
	}
	return "./" + u
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

// checkURL reports whether u is safe.URLAllowed, after a warning that
// names attribute attr and says what is allowed when it is not.
func (r *Renderer) checkURL(u, attr string, image bool, line int, sc *mdx.Scope) bool {
	if safe.URLAllowed(u, image) {
		return true
	}
	r.warn(sc, line, "%s %q removed: only http, https, mailto and tel URLs, relative links and fragments are allowed%s",
		attr, diag.FirstLine(u, 60), map[bool]string{true: " (and data:image/ URLs for images)", false: ""}[image])
	return false
}

// newRenderer returns the Renderer of the page whose source is file, at
// navigation path page, written to the output file out.
func New(env *Env, file, page, out string) *Renderer {
	return &Renderer{env: env, file: file, page: page, out: out, ids: markdown.NewHeadingIDs(), budget: &mdx.Budget{}}
}

// Module renders a parsed file as the page's content.
func (r *Renderer) Module(mod *mdx.Module) string {
	return r.flow(mod.Nodes, &mdx.Scope{Mod: mod, Budget: r.budget}, flowOpts{})
}

// outFile returns the page's output file.
func (r *Renderer) Out() string { return r.out }
