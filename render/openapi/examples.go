package openapi

import (
	"strings"
)

// codeBlock writes a code block: through Options.Code when set (the
// site's highlighted blocks), else plain.
func (w *writer) codeBlock(title, lang, code string) {
	if w.o.Code != nil {
		w.WriteString(w.o.Code(title, lang, code))
		return
	}
	w.WriteString(`<div class="lc-code" data-lang="` + esc(lang) + `"><div class="lc-code-title">` + esc(title) +
		`</div><pre><code class="language-` + esc(lang) + `">` + esc(code) + "</code></pre></div>\n")
}

// ExamplesStart is the start of the examples column (Columns).
const ExamplesStart = `<aside class="lc-api-examples" aria-label="Examples">`

// Columns wraps the HTML of an API page's content and of its examples in
// the page's two columns: the examples beside the content on wide
// screens, under it on narrow ones. With no examples, main is returned as
// it is.
func Columns(main, examples string) string {
	if strings.TrimSpace(examples) == "" {
		return main
	}
	return `<div class="lc-api-page">` + "\n" + `<div class="lc-api-main">` + "\n" + main + "</div>\n" +
		ExamplesStart + "\n" + examples + "</aside>\n</div>\n"
}

// examples returns the HTML of the examples column: the request examples
// (Options.RequestExample, else the document's code samples and the
// generated snippets) and the response examples (Options.ResponseExample,
// else one per status code with content).
func (w *writer) examples(params []param, secs []security, responses *obj) string {
	w = &writer{r: w.r, o: w.o, ops: w.ops}
	switch {
	case w.o.RequestExample != "":
		w.WriteString(w.o.RequestExample)
	case w.ops.Webhook:
		w.webhookPayload()
	default:
		w.requestExamples(w.request(params, secs))
	}
	if w.o.ResponseExample != "" {
		w.WriteString(w.o.ResponseExample)
	} else {
		w.responseExamples(responses)
	}
	return w.String()
}

// maxSnippetRequest bounds the size of a request (URL, headers, body)
// written in every language of Options.Examples: a larger one is written
// in the first language only, since each language repeats all of it.
const maxSnippetRequest = 64 << 10

// requestExamples writes the request examples of req as a code group:
// the document's x-codeSamples first, then the generated snippet of each
// language of Options.Examples that no code sample gives (only the first
// for a request over maxSnippetRequest).
func (w *writer) requestExamples(req *httpRequest) {
	type tab struct{ title, lang, code string }
	var tabs []tab
	covered := map[string]bool{}
	for _, cs := range w.codeSamples() {
		lang, known := languageOf(cs.lang)
		title, hl := cs.label, strings.ToLower(cs.lang)
		if known {
			covered[lang.key] = true
			hl = lang.highlight
			if title == "" {
				title = lang.name
			}
		}
		tabs = append(tabs, tab{firstNonEmpty(title, cs.lang), hl, strings.TrimRight(cs.source, "\n")})
	}
	if !w.o.Examples.NoAutogenerate {
		keys := w.o.Examples.Languages
		if keys == nil {
			keys = DefaultLanguages
		}
		big := req.size() > maxSnippetRequest
		for _, k := range keys {
			lang, ok := languageOf(k)
			if !ok || lang.gen == nil || covered[lang.key] {
				continue
			}
			covered[lang.key] = true
			tabs = append(tabs, tab{lang.name, lang.highlight, lang.gen(req)})
			if big {
				break
			}
		}
	}
	if len(tabs) == 0 {
		return
	}
	// Tabs of the same title (code samples of one label in several
	// languages) say their language.
	count := map[string]int{}
	for _, t := range tabs {
		count[t.title]++
	}
	w.WriteString(`<div class="lc-request-example"><div class="lc-code-group">` + "\n")
	for _, t := range tabs {
		title := t.title
		if count[title] > 1 {
			if l, ok := languageOf(t.lang); ok {
				title += " (" + l.name + ")"
			}
		}
		w.codeBlock(title, t.lang, t.code)
	}
	w.WriteString("</div></div>\n")
}

// webhookPayload writes the example body a webhook sends.
func (w *writer) webhookPayload() {
	body, bodyType, _ := w.body()
	if body == "" {
		return
	}
	lang := "json"
	if !strings.Contains(bodyType, "json") {
		lang = "text"
	}
	w.WriteString(`<div class="lc-request-example"><div class="lc-code-group">` + "\n")
	w.codeBlock("Payload", lang, body)
	w.WriteString("</div></div>\n")
}

// responseExamples writes an example per status code whose response has
// content, as a code group.
func (w *writer) responseExamples(responses *obj) {
	if responses == nil {
		return
	}
	first := true
	for _, code := range responses.keys {
		resp := w.ops.doc.derefObj(responses.m[code], nil)
		if resp == nil {
			continue
		}
		name, mt := pickMedia(resp.obj("content"))
		if mt == nil {
			continue
		}
		ex, ok := w.mediaExample(mt, false)
		if !ok {
			continue
		}
		if first {
			w.WriteString(`<div class="lc-response-example"><div class="lc-code-group">` + "\n")
			first = false
		}
		text, isStr := ex.(string)
		lang := "text"
		if !isStr {
			text, lang = toJSON(ex), "json"
		} else if strings.Contains(name, "json") {
			lang = "json"
		}
		w.codeBlock(code, lang, text)
	}
	if !first {
		w.WriteString("</div></div>\n")
	}
}
