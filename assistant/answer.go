package assistant

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Citation is a source an answer quotes.
type Citation struct {
	N     int    `json:"n"`
	Title string `json:"title"`
	URL   string `json:"url"`
}

// Answer is an answer to a question: Markdown text whose quotes carry
// [n] markers of their citations, and whether the docs held one.
type Answer struct {
	Text      string
	Citations []Citation
	Found     bool
}

// Answers' bounds: passages quoted, sentences per passage; and how much
// of the question a passage must hold to answer it.
const (
	maxQuoted    = 3
	maxSentences = 2
	minMatched   = 0.5
)

// NotFound starts the answer to a question the docs do not answer.
const NotFound = "No answer was found in these docs"

// Extract answers question from the passages Retrieve returned: the
// sentences of the best ones that hold most of the question's words,
// quoted and cited; or NotFound when none holds at least half of them.
func Extract(question string, ps []Passage) Answer {
	return extract(question, ps, false)
}

// extract is Extract; byPassage numbers the citations by the passage's
// place in ps (as the model's prompt does) rather than from 1.
func extract(question string, ps []Passage, byPassage bool) Answer {
	if len(ps) == 0 || ps[0].Matched < minMatched {
		a := Answer{Text: NotFound + " for “" + strings.TrimSpace(question) + "”."}
		if len(ps) > 0 {
			a.Text += " The closest page may help:"
			a.Citations = []Citation{{N: 1, Title: ps[0].Title, URL: ps[0].URL}}
		}
		return a
	}
	terms := contentTerms(question)
	var b strings.Builder
	a := Answer{Found: true}
	for i, p := range ps {
		if len(a.Citations) == maxQuoted || p.Matched < minMatched || p.Score < ps[0].Score/3 {
			break
		}
		quote := bestSentences(clip(p.Text), terms)
		if quote == "" {
			continue
		}
		n := len(a.Citations) + 1
		if byPassage {
			n = i + 1
		}
		a.Citations = append(a.Citations, Citation{N: n, Title: citeTitle(p), URL: p.URL})
		fmt.Fprintf(&b, "> %s [%d]\n\n", quote, n)
	}
	if len(a.Citations) == 0 {
		return extract("", nil, false)
	}
	a.Text = strings.TrimSpace(b.String())
	return a
}

// citeTitle names a passage: its page and section.
func citeTitle(p Passage) string {
	if p.Heading == "" || p.Heading == p.Title {
		return p.Title
	}
	return p.Title + " › " + p.Heading
}

// bestSentences returns, in their order, the sentences of text that hold
// most of the terms (at most maxSentences, at least one term each).
func bestSentences(text string, terms []term) string {
	sents := sentences(text)
	type scored struct {
		i, n int
	}
	var best []scored
	for i, s := range sents {
		c, _ := stemCounts(s, terms)
		n := 0
		for _, t := range terms {
			if c[t.stem] > 0 {
				n++
			}
		}
		if n > 0 {
			best = append(best, scored{i, n})
		}
	}
	if len(best) == 0 {
		return ""
	}
	// The sentences with most terms, kept in the text's order.
	for i := 1; i < len(best); i++ {
		for j := i; j > 0 && best[j].n > best[j-1].n; j-- {
			best[j], best[j-1] = best[j-1], best[j]
		}
	}
	if len(best) > maxSentences {
		best = best[:maxSentences]
	}
	if len(best) == 2 && best[0].i > best[1].i {
		best[0], best[1] = best[1], best[0]
	}
	parts := make([]string, len(best))
	for k, s := range best {
		parts[k] = sents[s.i]
	}
	return strings.Join(parts, " … ")
}

// sentences splits text at sentence ends (". ", "? ", "! ", line ends),
// each at most 400 characters.
func sentences(text string) []string {
	var out []string
	start := 0
	add := func(end int) {
		s := strings.TrimSpace(text[start:end])
		if r := []rune(s); len(r) > 400 {
			s = string(r[:400]) + "…"
		}
		if s != "" {
			out = append(out, s)
		}
		start = end
	}
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\n':
			add(i + 1)
		case '.', '?', '!':
			if i+1 < len(text) && text[i+1] == ' ' {
				add(i + 1)
			}
		}
	}
	add(len(text))
	return out
}

// WriteEvents writes a as server-sent events: "text" events carrying the
// answer's text in pieces ({"text": ...}), one "citation" event per
// source ({"n", "title", "url"}), then "done" ({"found": bool}). flush,
// when not nil, is called after each event.
func WriteEvents(w io.Writer, flush func(), a Answer) error {
	ev := &Events{w: w, flush: flush}
	if err := ev.Text(a.Text); err != nil {
		return err
	}
	return ev.End(a, "")
}

// Events writes an answer as server-sent events.
type Events struct {
	w     io.Writer
	flush func()
}

// NewEvents returns the events of an HTTP response, flushed as they go.
func NewEvents(w io.Writer) *Events {
	ev := &Events{w: w}
	if f, ok := w.(http.Flusher); ok {
		ev.flush = f.Flush
	}
	return ev
}

// Send writes one event whose data is v as JSON.
func (e *Events) Send(event string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(e.w, "event: %s\ndata: %s\n\n", event, data); err != nil {
		return err
	}
	if e.flush != nil {
		e.flush()
	}
	return nil
}

// Text writes text as "text" events, a paragraph each.
func (e *Events) Text(text string) error {
	for _, piece := range strings.SplitAfter(text, "\n\n") {
		if piece == "" {
			continue
		}
		if err := e.Send("text", map[string]string{"text": piece}); err != nil {
			return err
		}
	}
	return nil
}

// End writes a's citations and the "done" event, with the answer's id
// when it was recorded.
func (e *Events) End(a Answer, id string) error {
	for _, c := range a.Citations {
		if err := e.Send("citation", c); err != nil {
			return err
		}
	}
	done := struct {
		Found bool   `json:"found"`
		ID    string `json:"id,omitempty"`
	}{a.Found, id}
	return e.Send("done", done)
}
