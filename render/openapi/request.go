package openapi

import (
	"net/url"
	"strings"
)

// httpRequest is the request an example sends, from which each language's
// snippet is written.
type httpRequest struct {
	Method  string
	URL     string // with the server, path parameters and query
	Headers []header
	// Body is the request body as text (JSON indented by two spaces), ""
	// for none; BodyValue is the value it encodes, for languages that
	// write it as a literal, nil when the body is not JSON.
	Body      string
	BodyValue any
	BodyType  string
	// Form holds the fields of a form body (multipart/form-data or
	// application/x-www-form-urlencoded) instead of Body.
	Form      []formField
	Multipart bool
}

type header struct{ Name, Value string }

// size is the length of req's text: URL, headers and body.
func (req *httpRequest) size() int {
	n := len(req.URL) + len(req.Body)
	for _, h := range req.Headers {
		n += len(h.Name) + len(h.Value)
	}
	for _, f := range req.Form {
		n += len(f.Name) + len(f.Value)
	}
	return n
}

type formField struct {
	Name, Value string
	File        bool // a binary field: a file to upload
}

// Examples configures the request examples of API pages (the
// configuration's api.examples).
type Examples struct {
	// Languages are the languages of the generated snippets, as keys of
	// LanguageKey, in order; nil for DefaultLanguages.
	Languages []string
	// RequiredOnly leaves optional parameters and body fields out of the
	// snippets (api.examples.defaults "required").
	RequiredOnly bool
	// NoAutogenerate shows only the document's own code samples
	// (x-codeSamples; api.examples.autogenerate false).
	NoAutogenerate bool
}

// DefaultLanguages are the languages of the request examples when the
// configuration names none, as on Mintlify.
var DefaultLanguages = []string{"bash", "python", "javascript", "php", "go", "java"}

// language is a language of the request examples.
type language struct {
	key, name, highlight string
	// gen writes the snippet; nil for a language only named (code
	// samples), not generated.
	gen func(*httpRequest) string
}

var languages = []language{
	{"bash", "cURL", "bash", curlSnippet},
	{"python", "Python", "python", pythonSnippet},
	{"javascript", "JavaScript", "javascript", jsSnippet},
	{"node", "Node.js", "javascript", nodeSnippet},
	{"php", "PHP", "php", phpSnippet},
	{"go", "Go", "go", goSnippet},
	{"java", "Java", "java", javaSnippet},
	{"ruby", "Ruby", "ruby", rubySnippet},
	{"powershell", "PowerShell", "powershell", powershellSnippet},
	{"swift", "Swift", "swift", swiftSnippet},
	{"csharp", "C#", "csharp", csharpSnippet},
	{"dotnet", ".NET", "csharp", csharpSnippet},
	{"typescript", "TypeScript", "typescript", tsSnippet},
	{"c", "C", "c", nil},
	{"c++", "C++", "cpp", nil},
	{"kotlin", "Kotlin", "kotlin", kotlinSnippet},
	{"rust", "Rust", "rust", rustSnippet},
	{"dart", "Dart", "dart", nil},
}

var languageAliases = map[string]string{
	"curl": "bash", "sh": "bash", "shell": "bash", "py": "python", "js": "javascript",
	"nodejs": "node", "node.js": "node", "golang": "go", "rb": "ruby", "c#": "csharp",
	".net": "dotnet", "dot-net": "dotnet", "ts": "typescript", "cpp": "c++", "kt": "kotlin",
	"rs": "rust", "flutter": "dart",
}

// LanguageKey returns the key of a language of Mintlify's table of
// example languages, by key or alias, any case ("curl" → "bash").
// generated reports whether Lectern writes snippets in it; ok is false for
// a name not in the table.
func LanguageKey(name string) (key string, generated, ok bool) {
	l, ok := languageOf(name)
	return l.key, l.gen != nil, ok
}

// languageOf returns the language name names, by key or alias, any case.
func languageOf(name string) (language, bool) {
	k := strings.ToLower(strings.TrimSpace(name))
	if a, isAlias := languageAliases[k]; isAlias {
		k = a
	}
	for _, l := range languages {
		if l.key == k {
			return l, true
		}
	}
	return language{}, false
}

// request builds the request the examples send: every parameter with an
// example value (only the required ones with RequiredOnly; none past
// maxSnippetRequest bytes of them, since values the document shares
// through $refs could otherwise make a request of any size), the first
// way to authenticate with a placeholder, and the body.
func (w *writer) request(params []param, secs []security) *httpRequest {
	only := w.o.Examples.RequiredOnly
	req := &httpRequest{Method: w.ops.Method}
	path := w.ops.Path
	var query []string
	n := 0 // the bytes of the parameters so far
	for _, p := range params {
		if n > maxSnippetRequest {
			break
		}
		// A path parameter without a value in the document stays as in
		// the path ("{id}"), as Mintlify writes it.
		if !p.required && only || p.in == "path" && !given(p, w.r) {
			continue
		}
		v := paramExample(p, w.r)
		n += len(p.name) + len(v)
		switch p.in {
		case "path":
			path = strings.ReplaceAll(path, "{"+p.name+"}", url.PathEscape(v))
		case "query":
			query = append(query, url.QueryEscape(p.name)+"="+url.QueryEscape(v))
		case "header":
			req.Headers = append(req.Headers, header{p.name, v})
		case "cookie":
			req.Headers = append(req.Headers, header{"Cookie", p.name + "=" + v})
		}
	}
	if len(secs) > 0 {
		s := secs[0]
		switch s.kind {
		case "bearer":
			req.Headers = append(req.Headers, header{"Authorization", "Bearer <token>"})
		case "basic":
			req.Headers = append(req.Headers, header{"Authorization", "Basic <encoded-value>"})
		case "apiKey":
			switch s.in {
			case "query":
				query = append(query, url.QueryEscape(s.header)+"=<api-key>")
			case "cookie":
				req.Headers = append(req.Headers, header{"Cookie", s.header + "=<api-key>"})
			default:
				req.Headers = append(req.Headers, header{s.header, "<api-key>"})
			}
		}
	}
	req.URL = w.serverURL() + path
	if len(query) > 0 {
		req.URL += "?" + strings.Join(query, "&")
	}
	w.setBody(req)
	return req
}

// setBody sets the body of req from the operation's request body.
func (w *writer) setBody(req *httpRequest) {
	rb := w.ops.doc.derefObj(w.ops.op.get("requestBody"), nil)
	if rb == nil {
		return
	}
	name, mt := pickMedia(rb.obj("content"))
	if mt == nil {
		return
	}
	w.r.requiredOnly = w.o.Examples.RequiredOnly
	ex, ok := w.mediaExample(mt, true)
	w.r.requiredOnly = false
	if !ok {
		return
	}
	req.BodyType = name
	req.Headers = append(req.Headers, header{"Content-Type", name})
	form := strings.HasPrefix(name, "multipart/form-data") || strings.HasPrefix(name, "application/x-www-form-urlencoded")
	if o, isObj := ex.(*obj); isObj && form {
		req.Multipart = strings.HasPrefix(name, "multipart/")
		s := w.r.flatten(mt.get("schema"), nil)
		for _, k := range o.keys {
			f := formField{Name: k, Value: scalarText(o.m[k])}
			for _, p := range s.props {
				if p.name == k {
					ps := w.r.flatten(p.raw, nil)
					f.File = ps.format == "binary" || ps.format == "base64" || ps.contentMediaType != "" && !strings.Contains(ps.contentMediaType, "json")
				}
			}
			if f.File {
				f.Value = "example-file"
			}
			req.Form = append(req.Form, f)
		}
		return
	}
	if s, isStr := ex.(string); isStr && !strings.Contains(name, "json") {
		req.Body = s
		return
	}
	req.Body, req.BodyValue = toJSON(ex), ex
}

func (w *writer) serverURL() string {
	if len(w.ops.doc.Servers) > 0 {
		return strings.TrimRight(w.ops.doc.Servers[0].URL, "/")
	}
	return ""
}

// given reports whether the document gives a value for p: an example, a
// default or an enum, rather than one made up for its type.
func given(p param, r *resolver) bool {
	if p.hasExample {
		return true
	}
	s := r.flatten(p.schema, nil)
	return s.hasExample || s.hasDef || len(s.enum) > 0
}

func paramExample(p param, r *resolver) string {
	if p.hasExample {
		return scalarText(p.example)
	}
	return scalarText(r.exampleOf(p.schema, true))
}

// codeSample is a snippet of the document's x-codeSamples.
type codeSample struct{ lang, label, source string }

// maxCodeSamples bounds the sources of an operation's code samples
// together: samples past it are left out, since a list of $refs to one
// large sample could otherwise repeat it any number of times.
const maxCodeSamples = 256 << 10

// codeSamples returns the operation's x-codeSamples (or x-code-samples).
func (w *writer) codeSamples() []codeSample {
	list := w.ops.op.list("x-codeSamples")
	if list == nil {
		list = w.ops.op.list("x-code-samples")
	}
	var out []codeSample
	n := 0
	for _, raw := range list {
		o := w.ops.doc.derefObj(raw, nil)
		if o == nil || o.str("source") == "" {
			continue
		}
		if n += len(o.str("source")); n > maxCodeSamples && len(out) > 0 {
			break
		}
		out = append(out, codeSample{lang: o.str("lang"), label: o.str("label"), source: o.str("source")})
	}
	return out
}
