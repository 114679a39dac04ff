package openapi

import (
	"html"
	"strings"
)

// Options control how an operation is rendered.
type Options struct {
	// Markdown renders a description (CommonMark) to HTML. When nil,
	// descriptions are shown as escaped paragraphs.
	Markdown func(md string) string
	// Playground adds the "Try it" form (never for webhooks).
	Playground bool
	// ScriptURL is the URL of playground.js, loaded by the form.
	ScriptURL string
	// Content is the HTML of the page's own content, placed after the
	// operation's description.
	Content string
	// RequestExample and ResponseExample are the HTML of the page's own
	// <RequestExample> and <ResponseExample>, each shown instead of the
	// generated examples; "" for none.
	RequestExample, ResponseExample string
	// Examples configures the generated request examples.
	Examples Examples
	// Code writes a code block of the examples (the site's highlighted
	// code blocks); nil for plain ones.
	Code func(title, lang, code string) string
}

// Page is a rendered operation.
type Page struct {
	HTML string
	// Playground reports whether HTML holds the playground form.
	Playground bool
	// Problems are the document's problems met while rendering, such as
	// `missing $ref "#/components/schemas/X"`.
	Problems []string
}

func esc(s string) string { return html.EscapeString(s) }

type writer struct {
	strings.Builder
	r   *resolver
	o   Options
	ops *Operation
}

func (w *writer) md(s string) string {
	if strings.TrimSpace(s) == "" {
		return ""
	}
	if w.o.Markdown != nil {
		return w.o.Markdown(s)
	}
	return "<p>" + esc(s) + "</p>\n"
}

// Header returns the method and path line of an operation reference, as
// shown at the top of its page.
func Header(method, path string) string {
	m := strings.ToUpper(method)
	return `<div class="lc-openapi"><span class="lc-method lc-method-` + strings.ToLower(m) + `">` + esc(m) +
		`</span><code class="lc-openapi-path">` + esc(path) + "</code></div>\n"
}

// param is a parameter of an operation.
type param struct {
	name, in, desc string
	required       bool
	deprecated     bool
	schema         any
	example        any
	hasExample     bool
}

// security is one way to authenticate.
type security struct {
	name   string // scheme name in components
	kind   string // "bearer", "basic", "apiKey"
	in     string // header, query, cookie (apiKey)
	header string // header or parameter name
	desc   string
}

// Render renders op as HTML.
func Render(op *Operation, o Options) Page {
	r := newResolver(op.doc)
	w := &writer{r: r, o: o, ops: op}
	d := op.doc
	if op.Webhook {
		w.WriteString(Header("WEBHOOK", op.Path))
	} else {
		w.WriteString(Header(op.Method, op.Path))
	}
	params := w.params()
	secs := w.security()
	body, bodyType, bodyObj := w.body()
	pg := o.Playground && !op.Webhook
	if pg {
		w.playground(params, secs, body, bodyType)
	}
	if op.Deprecated {
		w.WriteString(`<p><span class="lc-badge lc-deprecated">deprecated</span></p>` + "\n")
	}
	if op.Webhook {
		w.WriteString(`<p class="lc-openapi-webhook">Sent by the API as an HTTP <code>` + esc(op.Method) + "</code> request to the URL you register.</p>\n")
	}
	w.WriteString(w.md(op.Description))
	w.WriteString(o.Content)

	w.authorizations(secs)
	w.parameters(params)
	w.requestBody(bodyType, bodyObj)
	responses := d.derefObj(op.op.get("responses"), r.miss)
	w.responses(responses)
	ex := w.examples(params, secs, responses)
	if pg && o.ScriptURL != "" {
		w.WriteString(`<script src="` + esc(o.ScriptURL) + `" defer></script>` + "\n")
	}
	return Page{HTML: Columns(w.String(), ex), Playground: pg, Problems: r.problems}
}

// authorizations writes the Authorizations section: the header or
// parameter each way to authenticate in secs needs.
func (w *writer) authorizations(secs []security) {
	if len(secs) == 0 {
		return
	}
	w.section("authorizations", "Authorizations")
	for _, s := range secs {
		switch s.kind {
		case "bearer":
			w.fieldHead("Authorization", "string", "header", true, false, nil, false)
			w.WriteString(w.md(firstNonEmpty(s.desc, "Bearer authentication header of the form `Bearer <token>`, where `<token>` is your auth token.")))
		case "basic":
			w.fieldHead("Authorization", "string", "header", true, false, nil, false)
			w.WriteString(w.md(firstNonEmpty(s.desc, "Basic authentication header of the form `Basic <encoded-value>`, where `<encoded-value>` is the base64-encoded string `username:password`.")))
		default:
			w.fieldHead(s.header, "string", s.in, true, false, nil, false)
			w.WriteString(w.md(s.desc))
		}
		w.WriteString("</div></div>\n")
	}
}

// parameters writes a section for each location (path, query, header,
// cookie) that has parameters in params, listing them.
func (w *writer) parameters(params []param) {
	for _, loc := range []struct{ in, id, title string }{
		{"path", "path-parameters", "Path Parameters"}, {"query", "query-parameters", "Query Parameters"},
		{"header", "headers", "Headers"}, {"cookie", "cookies", "Cookies"},
	} {
		first := true
		for _, p := range params {
			if p.in != loc.in {
				continue
			}
			if first {
				w.section(loc.id, loc.title)
				first = false
			}
			w.field("lc-param-field", p.name, p.in, p.schema, p.required, p.deprecated, p.desc, nil, 0)
		}
	}
}

// requestBody writes the Body section of the request body bodyObj (none
// when nil): its media type bodyType, description and schema's fields.
func (w *writer) requestBody(bodyType string, bodyObj *obj) {
	if bodyObj == nil {
		return
	}
	w.section("body", "Body")
	w.WriteString(`<p class="lc-openapi-media"><code>` + esc(bodyType) + "</code>")
	if bodyObj.get("required") == true {
		w.WriteString(` <span class="lc-badge lc-required">required</span>`)
	}
	w.WriteString("</p>\n")
	w.WriteString(w.md(bodyObj.str("description")))
	if mt := bodyObj.obj("content").obj(bodyType); mt != nil && mt.has("schema") {
		w.schemaFields("lc-param-field", mt.get("schema"), nil, "body", true)
	}
}

// responses writes the Response section of the operation's responses
// object (none when nil or empty), one block per status code.
func (w *writer) responses(responses *obj) {
	if responses == nil || len(responses.keys) == 0 {
		return
	}
	w.section("response", "Response")
	for _, code := range responses.keys {
		resp := w.ops.doc.derefObj(responses.m[code], w.r.miss)
		if resp == nil {
			continue
		}
		w.response(code, resp)
	}
}

// response writes the block of the response resp to status code code:
// its media type, description, schema's fields and headers.
func (w *writer) response(code string, resp *obj) {
	d := w.ops.doc
	mtName, mt := pickMedia(resp.obj("content"))
	w.WriteString(`<div class="lc-openapi-response"><h3 id="response-` + esc(Slugify(code)) + `">` + esc(code))
	if mtName != "" {
		w.WriteString(` <code>` + esc(mtName) + "</code>")
	}
	w.WriteString("</h3>\n")
	w.WriteString(w.md(resp.str("description")))
	if mt != nil && mt.has("schema") {
		w.schemaFields("lc-response-field", mt.get("schema"), nil, "", false)
	}
	if hs := resp.obj("headers"); hs != nil {
		for _, h := range hs.keys {
			ho := d.derefObj(hs.m[h], w.r.miss)
			if ho == nil {
				continue
			}
			w.field("lc-response-field", h, "header", ho.get("schema"), ho.get("required") == true, false, ho.str("description"), nil, 0)
		}
	}
	w.WriteString("</div>\n")
}

func firstNonEmpty(a, b string) string {
	if strings.TrimSpace(a) != "" {
		return a
	}
	return b
}

func (w *writer) section(id, title string) {
	w.WriteString(`<h2 class="lc-openapi-section" id="` + id + `">` + esc(title) + "</h2>\n")
}

// params returns the operation's parameters, the path item's first,
// overridden by the operation's of the same name and location.
func (w *writer) params() []param {
	d := w.ops.doc
	var out []param
	idx := map[string]int{}
	for _, list := range [][]any{w.ops.item.list("parameters"), w.ops.op.list("parameters")} {
		for _, raw := range list {
			po := d.derefObj(raw, w.r.miss)
			if po == nil || po.str("name") == "" {
				continue
			}
			p := param{name: po.str("name"), in: po.str("in"), desc: po.str("description"),
				required: po.get("required") == true || po.str("in") == "path", deprecated: po.get("deprecated") == true,
				schema: po.get("schema")}
			if p.schema == nil {
				if _, mt := pickMedia(po.obj("content")); mt != nil {
					p.schema = mt.get("schema")
				}
			}
			if po.has("example") {
				p.example, p.hasExample = po.get("example"), true
			} else if ex := po.obj("examples"); ex != nil && len(ex.keys) > 0 {
				if eo := d.derefObj(ex.m[ex.keys[0]], w.r.miss); eo != nil && eo.has("value") {
					p.example, p.hasExample = eo.get("value"), true
				}
			}
			key := p.in + "\x00" + p.name
			if i, ok := idx[key]; ok {
				out[i] = p
				continue
			}
			idx[key] = len(out)
			out = append(out, p)
		}
	}
	return out
}

func (w *writer) security() []security {
	d := w.ops.doc
	reqs := d.root.list("security")
	if w.ops.op.has("security") {
		reqs = w.ops.op.list("security")
	}
	schemes := d.root.obj("components").obj("securitySchemes")
	var out []security
	seen := map[string]bool{}
	for _, req := range reqs {
		ro, ok := req.(*obj)
		if !ok {
			continue
		}
		for _, name := range ro.keys {
			if seen[name] {
				continue
			}
			seen[name] = true
			so := d.derefObj(schemes.get(name), w.r.miss)
			if so == nil {
				w.r.problem("security scheme " + quote(name) + " is not defined in components.securitySchemes")
				continue
			}
			s := security{name: name, desc: so.str("description")}
			switch so.str("type") {
			case "http":
				s.kind = strings.ToLower(so.str("scheme"))
				if s.kind != "basic" {
					s.kind = "bearer"
				}
			case "apiKey":
				s.kind, s.in, s.header = "apiKey", so.str("in"), so.str("name")
				if s.in == "" {
					s.in = "header"
				}
			default: // oauth2, openIdConnect: a bearer token
				s.kind = "bearer"
			}
			out = append(out, s)
		}
		if len(out) > 0 {
			break // the first requirement that can be met
		}
	}
	return out
}

// pickMedia chooses the media type to show: JSON first.
func pickMedia(content *obj) (string, *obj) {
	if content == nil || len(content.keys) == 0 {
		return "", nil
	}
	for _, k := range content.keys {
		if k == "application/json" || strings.HasSuffix(k, "+json") {
			return k, content.obj(k)
		}
	}
	return content.keys[0], content.obj(content.keys[0])
}

// body returns the request body's example (JSON text), its media type
// and the request body object.
func (w *writer) body() (string, string, *obj) {
	rb := w.ops.doc.derefObj(w.ops.op.get("requestBody"), w.r.miss)
	if rb == nil {
		return "", "", nil
	}
	name, mt := pickMedia(rb.obj("content"))
	if mt == nil {
		return "", name, rb
	}
	ex, ok := w.mediaExample(mt, true)
	if !ok {
		return "", name, rb
	}
	if s, isStr := ex.(string); isStr && !strings.Contains(name, "json") {
		return s, name, rb
	}
	return toJSON(ex), name, rb
}

// mediaExample returns the example of a media type object: example, the
// first of examples, else one built from the schema.
func (w *writer) mediaExample(mt *obj, forRequest bool) (any, bool) {
	d := w.ops.doc
	if mt.has("example") {
		return mt.get("example"), true
	}
	if ex := mt.obj("examples"); ex != nil && len(ex.keys) > 0 {
		if eo := d.derefObj(ex.m[ex.keys[0]], w.r.miss); eo != nil && eo.has("value") {
			return eo.get("value"), true
		}
	}
	if mt.has("schema") {
		return w.r.exampleOf(mt.get("schema"), forRequest), true
	}
	return nil, false
}
