package openapi

import (
	"encoding/json"
	"fmt"
	"strings"
)

// schemaFields renders the fields of a body or response schema.
func (w *writer) schemaFields(class string, raw any, stack []string, loc string, forRequest bool) {
	s := w.r.flatten(raw, stack)
	sub := w.r.stackFor(stack, raw)
	switch {
	case s.isObject():
		w.props(class, s, sub, loc, forRequest, 0)
	case len(s.variants) > 0:
		w.variants(class, s, sub, loc, forRequest, 0)
	default:
		name := "body"
		if !forRequest {
			name = "response"
		}
		w.field(class, name, "", raw, false, false, "", stack, 0)
	}
}

func (w *writer) props(class string, s *schema, stack []string, loc string, forRequest bool, depth int) {
	for _, p := range s.props {
		ps := w.r.flatten(p.raw, stack)
		if forRequest && ps.readOnly || !forRequest && ps.writeOnly {
			continue
		}
		w.field(class, p.name, loc, p.raw, s.required[p.name], false, "", stack, depth)
	}
}

func (w *writer) variants(class string, s *schema, stack []string, loc string, forRequest bool, depth int) {
	label := "One of"
	if s.variantKw == "anyOf" {
		label = "Any of"
	}
	w.WriteString(`<div class="lc-openapi-variants"><p class="lc-openapi-variants-label">` + label + "</p>\n")
	for i, v := range s.variants {
		vs := w.r.flatten(v, stack)
		title := firstNonEmpty(vs.title, vs.ref)
		if title == "" {
			title = fmt.Sprintf("Option %d", i+1)
		}
		w.WriteString(`<details class="lc-expandable"><summary>` + esc(title) + ` <span class="lc-field-type">` +
			esc(w.r.typeName(vs, stack)) + `</span></summary><div class="lc-expandable-body">`)
		w.WriteString(w.md(vs.desc))
		vstack := w.r.stackFor(stack, v)
		if vs.isObject() && !vs.circular {
			w.props(class, vs, vstack, loc, forRequest, depth+1)
		} else if vs.items != nil {
			w.children(class, vs, vstack, forRequest, depth+1)
		}
		w.WriteString("</div></details>\n")
	}
	w.WriteString("</div>\n")
}

// fieldHead opens a field: <div class="lc-field"><div class="lc-field-head">
// ...</div><div class="lc-field-body">, left open for the body.
func (w *writer) fieldHead(name, typ, loc string, required, deprecated bool, def any, hasDef bool) {
	w.WriteString(`<div class="lc-field lc-param-field"><div class="lc-field-head"><code class="lc-field-name">` + esc(name) + "</code>")
	w.fieldBadges(typ, loc, required, deprecated, def, hasDef)
}

func (w *writer) fieldBadges(typ, loc string, required, deprecated bool, def any, hasDef bool) {
	if typ != "" {
		w.WriteString(`<span class="lc-field-type">` + esc(typ) + "</span>")
	}
	if loc != "" {
		w.WriteString(`<span class="lc-field-location">` + esc(loc) + "</span>")
	}
	if required {
		w.WriteString(`<span class="lc-badge lc-required">required</span>`)
	}
	if deprecated {
		w.WriteString(`<span class="lc-badge lc-deprecated">deprecated</span>`)
	}
	if hasDef {
		w.WriteString(`<span class="lc-field-default">default: <code>` + esc(scalarText(def)) + "</code></span>")
	}
	w.WriteString(`</div><div class="lc-field-body">`)
}

func scalarText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return "null"
	case json.Number:
		return x.String()
	case bool:
		if x {
			return "true"
		}
		return "false"
	}
	return strings.Join(strings.Fields(toJSON(v)), " ")
}

// field renders one parameter or property, with its nested fields as an
// expandable tree.
func (w *writer) field(class, name, loc string, raw any, required, deprecated bool, desc string, stack []string, depth int) {
	if w.r.budget <= 0 {
		if w.r.budget == 0 {
			w.WriteString(`<p class="lc-openapi-truncated">More fields are left out.</p>` + "\n")
			w.r.budget--
		}
		return
	}
	w.r.budget--
	s := w.r.flatten(raw, stack)
	typ := w.r.typeName(s, stack)
	w.WriteString(`<div class="lc-field ` + class + `"><div class="lc-field-head"><code class="lc-field-name">` + esc(name) + "</code>")
	w.fieldBadges(typ, loc, required, deprecated || s.deprecated, s.def, s.hasDef)
	w.WriteString(w.md(firstNonEmpty(desc, s.desc)))
	if len(s.enum) > 0 {
		w.WriteString(`<p class="lc-openapi-enum">Available options: `)
		for i, e := range s.enum {
			if i > 0 {
				w.WriteString(", ")
			}
			w.WriteString("<code>" + esc(scalarText(e)) + "</code>")
		}
		w.WriteString("</p>\n")
	}
	if s.format != "" {
		w.WriteString(`<p class="lc-openapi-format">Format: <code>` + esc(s.format) + "</code></p>\n")
	}
	if s.circular {
		w.WriteString(`<p class="lc-openapi-circular">Same structure as <code>` + esc(s.ref) + "</code> above (circular reference).</p>\n")
	} else if depth < 24 {
		w.children(class, s, w.r.stackFor(stack, raw), class == "lc-param-field", depth+1)
	}
	w.WriteString("</div></div>\n")
}

// children renders the nested fields of s, if any, in an expandable.
func (w *writer) children(class string, s *schema, stack []string, forRequest bool, depth int) {
	inner, label := s, "properties"
	istack := stack
	if !s.isObject() && s.items != nil && len(s.variants) == 0 {
		inner = w.r.flatten(s.items, stack)
		istack = w.r.stackFor(stack, s.items)
		if inner.circular {
			w.WriteString(`<p class="lc-openapi-circular">Items have the same structure as <code>` + esc(inner.ref) + "</code> above (circular reference).</p>\n")
			return
		}
	}
	if !inner.isObject() && len(inner.variants) == 0 {
		if inner.additional != nil {
			as := w.r.flatten(inner.additional, istack)
			if as.isObject() && !as.circular {
				inner, istack, label = as, w.r.stackFor(istack, inner.additional), "values"
			} else {
				return
			}
		} else {
			return
		}
	}
	w.WriteString(`<details class="lc-expandable"><summary>Show child ` + label + `</summary><div class="lc-expandable-body">`)
	if inner.isObject() {
		w.props(class, inner, istack, "", forRequest, depth)
	} else {
		w.variants(class, inner, istack, "", forRequest, depth)
	}
	w.WriteString("</div></details>\n")
}
