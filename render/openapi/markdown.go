package openapi

import (
	"fmt"
	"strings"
)

// MarkdownOptions control how an operation is written as Markdown.
type MarkdownOptions struct {
	// Content is the Markdown of the page's own content, placed after the
	// operation's description.
	Content string
	// OwnRequestExample and OwnResponseExample say that Content holds the
	// page's own examples: the generated ones are left out.
	OwnRequestExample, OwnResponseExample bool
	// Examples configures the generated request example.
	Examples Examples
}

// Markdown writes op as Markdown, for the page's .md version and the
// site's llms-full.txt: the method and path, the description, the page's
// content, then the authorizations, parameters, request body fields and
// responses as nested lists of fields ("- `name` (type, required):
// description"), a request example (the document's first code sample, else
// the first generated snippet) and a response example per status code.
// Descriptions are CommonMark already and are written as they are.
func Markdown(op *Operation, o MarkdownOptions) string {
	r := newResolver(op.doc)
	hw := &writer{r: r, o: Options{Examples: o.Examples}, ops: op}
	w := &mdWriter{r: r, op: op}
	method := op.Method
	if op.Webhook {
		method = "WEBHOOK"
	}
	w.para("`" + strings.ToUpper(method) + " " + mdCode(op.Path) + "`")
	if op.Deprecated {
		w.para("**Deprecated.**")
	}
	if op.Webhook {
		w.para("Sent by the API as an HTTP `" + op.Method + "` request to the URL you register.")
	}
	w.para(strings.TrimSpace(op.Description))
	w.para(strings.TrimSpace(o.Content))

	params, secs := hw.params(), hw.security()
	w.authorizations(secs)
	w.parameters(params)
	_, bodyType, bodyObj := hw.body()
	w.requestBody(bodyType, bodyObj)
	responses := op.doc.derefObj(op.op.get("responses"), r.miss)
	w.responses(responses)

	// The examples, captured from the HTML writer's code blocks.
	var blocks []mdBlock
	hw.o.Code = func(title, lang, code string) string {
		blocks = append(blocks, mdBlock{title, lang, code})
		return ""
	}
	if !o.OwnRequestExample {
		if op.Webhook {
			hw.webhookPayload()
		} else {
			hw.requestExamples(hw.request(params, secs))
		}
		if len(blocks) > 0 {
			w.heading(2, map[bool]string{true: "Example payload", false: "Example request"}[op.Webhook])
			w.fence(blocks[0])
		}
	}
	if !o.OwnResponseExample {
		blocks = nil
		hw.responseExamples(responses)
		if len(blocks) > 0 {
			w.heading(2, "Example responses")
			for _, b := range blocks {
				w.para("**" + b.title + "**")
				w.fence(b)
			}
		}
	}
	return strings.TrimSpace(w.String()) + "\n"
}

// mdBlock is a code block of the examples.
type mdBlock struct{ title, lang, code string }

// mdWriter writes an operation as Markdown.
type mdWriter struct {
	strings.Builder
	r  *resolver
	op *Operation
}

// para writes a block followed by a blank line; nothing for "".
func (w *mdWriter) para(s string) {
	if s == "" {
		return
	}
	w.WriteString(s + "\n\n")
}

func (w *mdWriter) heading(level int, title string) {
	w.para(strings.Repeat("#", level) + " " + title)
}

// fence writes a code block as a fence longer than any run of backticks
// in it.
func (w *mdWriter) fence(b mdBlock) {
	w.para(Fence(b.lang, b.code))
}

// Fence returns code as a fenced code block of language lang, its fence
// longer than any run of backticks in the code.
func Fence(lang, code string) string {
	n, run := 3, 0
	for i := 0; i < len(code); i++ {
		if code[i] == '`' {
			run++
			n = max(n, run+1)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", n)
	return f + lang + "\n" + strings.TrimRight(code, "\n") + "\n" + f
}

// mdCode makes s safe inside a one-backtick code span.
func mdCode(s string) string { return strings.ReplaceAll(s, "`", "'") }

func (w *mdWriter) authorizations(secs []security) {
	if len(secs) == 0 {
		return
	}
	w.heading(2, "Authorizations")
	for _, s := range secs {
		switch s.kind {
		case "bearer":
			w.item(0, "Authorization", "string", "header", true, false, nil, false,
				firstNonEmpty(s.desc, "Bearer authentication header of the form `Bearer <token>`, where `<token>` is your auth token."))
		case "basic":
			w.item(0, "Authorization", "string", "header", true, false, nil, false,
				firstNonEmpty(s.desc, "Basic authentication header of the form `Basic <encoded-value>`, where `<encoded-value>` is the base64-encoded string `username:password`."))
		default:
			w.item(0, s.header, "string", s.in, true, false, nil, false, s.desc)
		}
	}
	w.WriteString("\n")
}

func (w *mdWriter) parameters(params []param) {
	for _, loc := range []struct{ in, title string }{
		{"path", "Path parameters"}, {"query", "Query parameters"}, {"header", "Headers"}, {"cookie", "Cookies"},
	} {
		first := true
		for _, p := range params {
			if p.in != loc.in {
				continue
			}
			if first {
				w.heading(2, loc.title)
				first = false
			}
			w.field(0, p.name, p.in, p.schema, p.required, p.deprecated, p.desc, nil, true)
		}
		if !first {
			w.WriteString("\n")
		}
	}
}

func (w *mdWriter) requestBody(bodyType string, bodyObj *obj) {
	if bodyObj == nil {
		return
	}
	w.heading(2, "Body")
	head := "`" + mdCode(bodyType) + "`"
	if bodyObj.get("required") == true {
		head += " (required)"
	}
	w.para(head)
	w.para(strings.TrimSpace(bodyObj.str("description")))
	if mt := bodyObj.obj("content").obj(bodyType); mt != nil && mt.has("schema") {
		w.schemaFields(mt.get("schema"), true)
	}
}

func (w *mdWriter) responses(responses *obj) {
	if responses == nil || len(responses.keys) == 0 {
		return
	}
	w.heading(2, "Responses")
	for _, code := range responses.keys {
		resp := w.op.doc.derefObj(responses.m[code], w.r.miss)
		if resp == nil {
			continue
		}
		mtName, mt := pickMedia(resp.obj("content"))
		head := code
		if mtName != "" {
			head += " `" + mdCode(mtName) + "`"
		}
		w.heading(3, head)
		w.para(strings.TrimSpace(resp.str("description")))
		if mt != nil && mt.has("schema") {
			w.schemaFields(mt.get("schema"), false)
		}
		if hs := resp.obj("headers"); hs != nil {
			for _, h := range hs.keys {
				if ho := w.op.doc.derefObj(hs.m[h], w.r.miss); ho != nil {
					w.field(0, h, "header", ho.get("schema"), ho.get("required") == true, false, ho.str("description"), nil, false)
				}
			}
			w.WriteString("\n")
		}
	}
}

// schemaFields writes the fields of a body or response schema as a list.
func (w *mdWriter) schemaFields(raw any, forRequest bool) {
	s := w.r.flatten(raw, nil)
	sub := w.r.stackFor(nil, raw)
	switch {
	case s.isObject():
		w.props(0, s, sub, forRequest)
	case len(s.variants) > 0:
		w.variants(0, s, sub, forRequest)
	default:
		name := "body"
		if !forRequest {
			name = "response"
		}
		w.field(0, name, "", raw, false, false, "", nil, forRequest)
	}
	w.WriteString("\n")
}

func (w *mdWriter) props(depth int, s *schema, stack []string, forRequest bool) {
	for _, p := range s.props {
		ps := w.r.flatten(p.raw, stack)
		if forRequest && ps.readOnly || !forRequest && ps.writeOnly {
			continue
		}
		w.field(depth, p.name, "", p.raw, s.required[p.name], false, "", stack, forRequest)
	}
}

func (w *mdWriter) variants(depth int, s *schema, stack []string, forRequest bool) {
	label := "One of"
	if s.variantKw == "anyOf" {
		label = "Any of"
	}
	w.line(depth, "- "+label+":")
	for i, v := range s.variants {
		vs := w.r.flatten(v, stack)
		title := firstNonEmpty(vs.title, vs.ref)
		if title == "" {
			title = fmt.Sprintf("Option %d", i+1)
		}
		w.item(depth+1, title, w.r.typeName(vs, stack), "", false, false, nil, false, vs.desc)
		vstack := w.r.stackFor(stack, v)
		if vs.isObject() && !vs.circular {
			w.props(depth+2, vs, vstack, forRequest)
		} else if vs.items != nil {
			w.children(depth+2, vs, vstack, forRequest)
		}
	}
}

// field writes one parameter or property with its nested fields.
func (w *mdWriter) field(depth int, name, loc string, raw any, required, deprecated bool, desc string, stack []string, forRequest bool) {
	if w.r.budget <= 0 {
		if w.r.budget == 0 {
			w.line(depth, "- More fields are left out.")
			w.r.budget--
		}
		return
	}
	w.r.budget--
	s := w.r.flatten(raw, stack)
	w.item(depth, name, w.r.typeName(s, stack), loc, required, deprecated || s.deprecated, s.def, s.hasDef, firstNonEmpty(desc, s.desc))
	if len(s.enum) > 0 {
		vals := make([]string, len(s.enum))
		for i, e := range s.enum {
			vals[i] = "`" + mdCode(scalarText(e)) + "`"
		}
		w.line(depth+1, "Available options: "+strings.Join(vals, ", "))
	}
	if s.format != "" {
		w.line(depth+1, "Format: `"+mdCode(s.format)+"`")
	}
	if s.circular {
		w.line(depth+1, "Same structure as `"+mdCode(s.ref)+"` above (circular reference).")
	} else if depth < 24 {
		w.children(depth+1, s, w.r.stackFor(stack, raw), forRequest)
	}
}

// children writes the nested fields of s, if any.
func (w *mdWriter) children(depth int, s *schema, stack []string, forRequest bool) {
	inner, istack := s, stack
	if !s.isObject() && s.items != nil && len(s.variants) == 0 {
		inner = w.r.flatten(s.items, stack)
		istack = w.r.stackFor(stack, s.items)
		if inner.circular {
			w.line(depth, "Items have the same structure as `"+mdCode(inner.ref)+"` above (circular reference).")
			return
		}
	}
	if !inner.isObject() && len(inner.variants) == 0 {
		if inner.additional == nil {
			return
		}
		as := w.r.flatten(inner.additional, istack)
		if !as.isObject() || as.circular {
			return
		}
		inner, istack = as, w.r.stackFor(istack, inner.additional)
	}
	if inner.isObject() {
		w.props(depth, inner, istack, forRequest)
	} else {
		w.variants(depth, inner, istack, forRequest)
	}
}

// item writes a field as a list item: "- `name` (type, location,
// required, deprecated, default: `x`): description", the description's
// further lines indented under it.
func (w *mdWriter) item(depth int, name, typ, loc string, required, deprecated bool, def any, hasDef bool, desc string) {
	var labels []string
	for _, l := range []string{typ, loc} {
		if l != "" {
			labels = append(labels, l)
		}
	}
	if required {
		labels = append(labels, "required")
	}
	if deprecated {
		labels = append(labels, "deprecated")
	}
	if hasDef {
		labels = append(labels, "default: `"+mdCode(scalarText(def))+"`")
	}
	head := "- `" + mdCode(name) + "`"
	if len(labels) > 0 {
		head += " (" + strings.Join(labels, ", ") + ")"
	}
	desc = strings.TrimSpace(desc)
	if desc == "" {
		w.line(depth, head)
		return
	}
	first, rest, _ := strings.Cut(desc, "\n")
	w.line(depth, head+": "+first)
	if rest != "" {
		for _, l := range strings.Split(rest, "\n") {
			if strings.TrimSpace(l) == "" {
				w.WriteString("\n")
				continue
			}
			w.line(depth+1, l)
		}
	}
}

// line writes s indented for list depth depth (two spaces a level).
func (w *mdWriter) line(depth int, s string) {
	w.WriteString(strings.Repeat("  ", depth) + s + "\n")
}
