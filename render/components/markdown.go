package components

import (
	"bytes"
	"html"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"lectern.dev/lectern/render/config"
	"lectern.dev/lectern/render/diag"
	"lectern.dev/lectern/render/markdown"
	"lectern.dev/lectern/render/mdx"
	"lectern.dev/lectern/render/safe"
)

// markdown renders src, the Markdown of one flow in which insets stand as
// tokens, rewriting links and images for the page. lm maps src lines to
// file lines for warnings.
func (r *Renderer) markdown(src string, insets []markdown.Inset, lm *markdown.LineMap, sc *mdx.Scope) string {
	if limited, at, changed := markdown.LimitNesting(src); changed {
		r.warn(sc, lm.At(strings.Count(src[:at], "\n")),
			"Markdown nested more than %d levels deep (brackets, lists or quotes); the deeper markers are shown as text", markdown.MaxNesting)
		src = limited
	}
	source := []byte(src)
	pc := parser.NewContext(parser.WithIDs(r.ids))
	pc.Set(markdown.InsetsKey, insets)
	doc := markdown.Engine.Parser().Parse(text.NewReader(source), parser.WithContext(pc))
	var swaps [][2]ast.Node
	store := r.env.Code
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch x := n.(type) {
		case *ast.FencedCodeBlock:
			if store != nil {
				x.SetAttribute(markdown.CodeStoreAttr, store)
			}
		case *ast.Link:
			dest := string(x.Destination)
			x.Destination = []byte(r.link(dest, markdown.NodeLine(x, source, lm, dest), sc))
		case *ast.AutoLink:
			if u := string(x.URL(source)); x.AutoLinkType == ast.AutoLinkURL && !safe.URLAllowed(u, false) {
				r.warn(sc, markdown.NodeLine(x, source, lm, u), "link %q removed: only http, https, mailto and tel URLs, relative links and fragments are allowed", diag.FirstLine(u, 60))
				swaps = append(swaps, [2]ast.Node{x, ast.NewString(x.Label(source))})
			}
		case *ast.Image:
			dest := string(x.Destination)
			if config.IsExternal(dest) && safe.URLAllowed(dest, false) { // data:image/ URLs are kept as images
				swaps = append(swaps, [2]ast.Node{x, markdown.ExternalImageLink(x)})
				return ast.WalkSkipChildren, nil
			}
			u, _ := r.asset(dest, markdown.NodeLine(x, source, lm, dest), sc, "image")
			x.Destination = []byte(u)
		}
		return ast.WalkContinue, nil
	})
	for _, s := range swaps {
		if parent := s[0].Parent(); parent != nil {
			parent.ReplaceChild(parent, s[0], s[1])
		}
	}
	var buf bytes.Buffer
	if err := markdown.Engine.Renderer().Render(&buf, source, doc); err != nil {
		return "<pre>" + html.EscapeString(src) + "</pre>"
	}
	return buf.String()
}
