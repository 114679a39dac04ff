package openapi

import (
	_ "embed"
	"strings"
)

// PlaygroundJS is the script of the "Try it" form (assets/playground.js):
// vanilla JavaScript, no dependencies. It sends the request with fetch()
// from the reader's browser, only when the Send button is clicked.
//
//go:embed assets/playground.js
var PlaygroundJS []byte

// PlaygroundBegin and PlaygroundEnd are written around the "Try it" form
// so that the form can be removed from a built page (features.Site.Transform).
const (
	PlaygroundBegin = "<!--lectern:playground-->"
	PlaygroundEnd   = "<!--/lectern:playground-->"
)

// playground writes the "Try it" form. Without JavaScript it does nothing:
// its button is not a submit button.
func (w *writer) playground(params []param, secs []security, body, bodyType string) {
	op := w.ops
	w.WriteString(PlaygroundBegin + `<details class="lc-playground" data-lc-playground><summary>Try it</summary>` + "\n")
	w.WriteString(`<div class="lc-pg-form" data-method="` + esc(op.Method) + `" data-path="` + esc(op.Path) + `"`)
	if bodyType != "" {
		w.WriteString(` data-content-type="` + esc(bodyType) + `"`)
	}
	w.WriteString(">\n")
	w.WriteString(`<div class="lc-pg-row"><label class="lc-pg-label">Server `)
	if servers := op.doc.Servers; len(servers) > 0 {
		w.WriteString(`<select class="lc-pg-input" data-pg-server>`)
		for _, s := range servers {
			label := s.URL
			if s.Description != "" {
				label += " — " + s.Description
			}
			w.WriteString(`<option value="` + esc(s.URL) + `">` + esc(label) + "</option>")
		}
		w.WriteString("</select>")
	} else {
		w.WriteString(`<input class="lc-pg-input" type="text" data-pg-server placeholder="https://api.example.com">`)
	}
	w.WriteString("</label></div>\n")
	if len(secs) > 0 {
		s := secs[0]
		ph := "token"
		label := "Authorization (Bearer token)"
		switch s.kind {
		case "basic":
			ph, label = "username:password", "Authorization (Basic)"
		case "apiKey":
			ph, label = "API key", s.header+" ("+s.in+")"
		}
		w.WriteString(`<div class="lc-pg-row"><label class="lc-pg-label">` + esc(label) +
			` <input class="lc-pg-input" type="password" autocomplete="off" data-pg-auth="` + esc(s.kind) + `" data-in="` + esc(s.in) +
			`" data-name="` + esc(s.header) + `" placeholder="` + esc(ph) + `"></label></div>` + "\n")
	}
	for _, p := range params {
		if p.in == "cookie" {
			continue // browsers do not let scripts set cookies for another host
		}
		s := w.r.flatten(p.schema, nil)
		ph := w.r.typeName(s, nil)
		val := ""
		if p.hasExample {
			val = scalarText(p.example)
		} else if s.hasDef {
			val = scalarText(s.def)
		}
		req := ""
		if p.required {
			req = " required"
		}
		w.WriteString(`<div class="lc-pg-row"><label class="lc-pg-label"><code>` + esc(p.name) + `</code> <span class="lc-field-location">` + esc(p.in) + "</span>")
		if p.required {
			w.WriteString(` <span class="lc-badge lc-required">required</span>`)
		}
		if len(s.enum) > 0 {
			w.WriteString(` <select class="lc-pg-input" data-in="` + esc(p.in) + `" data-name="` + esc(p.name) + `">`)
			if !p.required {
				w.WriteString(`<option value=""></option>`)
			}
			for _, e := range s.enum {
				t := scalarText(e)
				sel := ""
				if t == val {
					sel = " selected"
				}
				w.WriteString(`<option value="` + esc(t) + `"` + sel + ">" + esc(t) + "</option>")
			}
			w.WriteString("</select>")
		} else {
			w.WriteString(` <input class="lc-pg-input" type="text" data-in="` + esc(p.in) + `" data-name="` + esc(p.name) +
				`" placeholder="` + esc(ph) + `" value="` + esc(val) + `"` + req + ">")
		}
		w.WriteString("</label></div>\n")
	}
	if bodyType != "" {
		rows := min(24, max(4, strings.Count(body, "\n")+2))
		w.WriteString(`<div class="lc-pg-row"><label class="lc-pg-label">Body <code>` + esc(bodyType) + `</code>` +
			`<textarea class="lc-pg-input lc-pg-body" data-pg-body spellcheck="false" rows="` + itoa(rows) + `">` + esc(body) + "</textarea></label></div>\n")
	}
	w.WriteString(`<div class="lc-pg-row"><button class="lc-pg-send" type="button" data-pg-send>Send</button>` +
		` <span class="lc-pg-note">The request is sent from your browser to the API.</span></div>` + "\n")
	w.WriteString(`<div class="lc-pg-result" data-pg-result hidden><p class="lc-pg-status" data-pg-status></p>` +
		`<pre class="lc-pg-headers" data-pg-headers></pre><pre class="lc-pg-response" data-pg-response></pre></div>` + "\n")
	w.WriteString("</div></details>" + PlaygroundEnd + "\n")
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	return string(b)
}
