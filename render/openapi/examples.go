package openapi

import (
	"net/url"
	"strings"
)

// codeBlock writes a code block in the theme's markup.
func (w *writer) codeBlock(title, lang, code string) {
	w.WriteString(`<div class="lc-code"><div class="lc-code-title">` + esc(title) + `</div><pre><code class="language-` + lang + `">` +
		esc(code) + "</code></pre></div>\n")
}

func (w *writer) serverURL() string {
	if len(w.ops.doc.Servers) > 0 {
		return strings.TrimRight(w.ops.doc.Servers[0].URL, "/")
	}
	return ""
}

// examples writes the request (curl) and response examples.
func (w *writer) examples(params []param, secs []security, body, bodyType string, responses *obj) {
	d := w.ops.doc
	if !w.ops.Webhook {
		w.WriteString(`<div class="lc-request-example"><div class="lc-example-label">Request</div>` + "\n")
		w.codeBlock("cURL", "bash", w.curl(params, secs, body, bodyType))
		w.WriteString("</div>\n")
	} else if body != "" {
		w.WriteString(`<div class="lc-request-example"><div class="lc-example-label">Payload</div>` + "\n")
		w.codeBlock(bodyType, "json", body)
		w.WriteString("</div>\n")
	}
	if responses == nil {
		return
	}
	first := true
	for _, code := range responses.keys {
		resp := d.derefObj(responses.m[code], nil)
		if resp == nil {
			continue
		}
		_, mt := pickMedia(resp.obj("content"))
		if mt == nil {
			continue
		}
		ex, ok := w.mediaExample(mt, false)
		if !ok {
			continue
		}
		if first {
			w.WriteString(`<div class="lc-response-example"><div class="lc-example-label">Response</div>` + "\n")
			first = false
		}
		text, isStr := ex.(string)
		if !isStr {
			text = toJSON(ex)
		}
		w.codeBlock(code, "json", text)
	}
	if !first {
		w.WriteString("</div>\n")
	}
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func paramExample(p param, r *resolver) string {
	if p.hasExample {
		return scalarText(p.example)
	}
	v := r.example(p.schema, nil, 0, true)
	return scalarText(v)
}

// curl builds the request example.
func (w *writer) curl(params []param, secs []security, body, bodyType string) string {
	path := w.ops.Path
	q := url.Values{}
	var qkeys []string
	var headers []string
	for _, p := range params {
		switch p.in {
		case "path":
			path = strings.ReplaceAll(path, "{"+p.name+"}", paramExample(p, w.r))
		case "query":
			if p.required {
				q.Add(p.name, paramExample(p, w.r))
				qkeys = append(qkeys, p.name)
			}
		case "header":
			if p.required {
				headers = append(headers, p.name+": "+paramExample(p, w.r))
			}
		}
	}
	u := w.serverURL() + path
	if len(qkeys) > 0 {
		u += "?" + q.Encode()
	}
	if len(secs) > 0 {
		s := secs[0]
		switch s.kind {
		case "bearer":
			headers = append(headers, "Authorization: Bearer <token>")
		case "basic":
			headers = append(headers, "Authorization: Basic <encoded-value>")
		case "apiKey":
			switch s.in {
			case "header":
				headers = append(headers, s.header+": <api-key>")
			case "cookie":
				headers = append(headers, "Cookie: "+s.header+"=<api-key>")
			case "query":
				sep := "?"
				if strings.Contains(u, "?") {
					sep = "&"
				}
				u += sep + url.QueryEscape(s.header) + "=<api-key>"
			}
		}
	}
	if bodyType != "" && body != "" {
		headers = append(headers, "Content-Type: "+bodyType)
	}
	var b strings.Builder
	b.WriteString("curl --request " + w.ops.Method + " \\\n  --url " + shellQuote(u))
	for _, h := range headers {
		b.WriteString(" \\\n  --header " + shellQuote(h))
	}
	if body != "" {
		b.WriteString(" \\\n  --data " + shellQuote(body))
	}
	return b.String()
}
