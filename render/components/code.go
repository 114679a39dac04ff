package components

import (
	"bytes"
	"strings"

	"lectern.dev/lectern/render/highlight"
	"lectern.dev/lectern/render/markdown"
	"lectern.dev/lectern/render/mdx"
)

// codeGroup renders <CodeGroup> (and <RequestExample>, <ResponseExample>,
// which are code groups too): its code blocks, which site.js turns into
// tabs named by their titles, or into a menu with dropdown.
func codeGroup(class string) componentFunc {
	return func(c *call) string {
		cls := "lc-code-group"
		if class != "" {
			cls = class + " " + cls
		}
		if c.flag("dropdown") {
			cls += " lc-code-dropdown"
		}
		return `<div class="` + cls + `">` + c.kids() + "</div>\n"
	}
}

// codeBlock renders <CodeBlock filename language icon lines wrap nocopy
// highlight>code</CodeBlock> as a fenced code block is rendered: the
// children are the code, as text or as a string expression
// ({`...`}, {children} of a component).
func codeBlock(c *call) string {
	code, ok := c.codeText(c.n.Children, c.sc, 0)
	if !ok {
		code = mdx.Dedent(c.n.Raw, false)
	}
	code = strings.Trim(code, "\n")
	if strings.TrimSpace(code) == "" {
		code = ""
	}
	if code != "" {
		code += "\n"
	}
	cb := highlight.Block{
		Lang:    highlight.CleanLang(c.str("language")),
		Title:   c.str("filename"),
		Code:    code,
		Lines:   highlight.ParseLines(c.val("highlight").Str()),
		Icon:    c.icon("icon"),
		NoCopy:  c.flag("nocopy"),
		Wrap:    c.flag("wrap"),
		Numbers: c.flag("lines"),
	}
	if cb.Title == "" {
		cb.Title = c.str("title")
	}
	var b bytes.Buffer
	if strings.EqualFold(cb.Lang, "mermaid") {
		markdown.WriteMermaid(&b, code)
	} else {
		highlight.Write(&b, cb, c.r.env.Code)
	}
	return b.String()
}

// maxCodeDepth bounds the nesting of values codeText follows.
const maxCodeDepth = 16

// codeText returns the text of a <CodeBlock>'s children: text as written,
// and expressions that are strings, or children passed down from a
// component. It reports false when a child is an element or an expression
// it cannot evaluate: the caller then takes the source between the tags.
func (c *call) codeText(nodes []*mdx.Node, sc *mdx.Scope, depth int) (string, bool) {
	if depth > maxCodeDepth {
		return "", false
	}
	var b strings.Builder
	text := false
	for _, n := range nodes {
		switch n.Kind {
		case mdx.TextNode:
			if sc.JSX {
				b.WriteString(mdx.JSXText(n.Text)) // whitespace around {children}
			} else {
				b.WriteString(n.Text)
				text = true
			}
		case mdx.ExprNode:
			v := sc.Eval(n.Text, n.Line, c.r.fileOf(sc), c.r.env.W)
			s, ok := c.valueText(v, depth)
			if !ok {
				return "", false
			}
			b.WriteString(s)
		default:
			return "", false
		}
	}
	s := b.String()
	if text {
		s = mdx.Dedent(s, false) // indented inside the tags, as Markdown would be
	}
	return s, true
}

func (c *call) valueText(v mdx.Value, depth int) (string, bool) {
	switch v.Kind {
	case mdx.VString, mdx.VNumber:
		return v.S, true
	case mdx.VUndefined:
		return "", true
	case mdx.VNodes:
		return c.codeText(v.Nodes, v.Scope, depth+1)
	case mdx.VArray:
		var b strings.Builder
		for _, it := range v.Items {
			s, ok := c.valueText(it, depth+1)
			if !ok {
				return "", false
			}
			b.WriteString(s)
		}
		return b.String(), true
	}
	return "", false
}
