package assistant

import (
	"context"
	"log/slog"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"lectern.dev/lectern/render/search"
)

// Service answers readers' questions: extractive answers, or, with a
// Model, answers the model writes from the passages retrieved.
type Service struct {
	// Model writes the answers; nil: extractive answers.
	Model *Model
	// Log records the model's failures (never its key); nil: none.
	Log *slog.Logger
	// MaxStreams bounds the answers the model writes at once, all sites
	// together (0: 16), and MaxStreamsPerKey those of one Ask.Key (0: 4),
	// so that one project cannot take a shared model for itself. A
	// question beyond them gets the extractive answer.
	MaxStreams, MaxStreamsPerKey int

	mu      sync.Mutex
	streams int
	byKey   map[string]int
}

// acquire takes a model stream for key, reporting whether one was free.
func (s *Service) acquire(key string) bool {
	max, perKey := s.MaxStreams, s.MaxStreamsPerKey
	if max <= 0 {
		max = 16
	}
	if perKey <= 0 {
		perKey = 4
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.streams >= max || s.byKey[key] >= perKey {
		return false
	}
	if s.byKey == nil {
		s.byKey = map[string]int{}
	}
	s.streams++
	s.byKey[key]++
	return true
}

// release gives back a stream of key.
func (s *Service) release(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.streams--
	if s.byKey[key]--; s.byKey[key] <= 0 {
		delete(s.byKey, key)
	}
}

// Ask is what one request is answered from.
type Ask struct {
	// Index is the deployment's search index.
	Index *search.Index
	// Site names the docs in the model's instructions ("" for none).
	Site string
	// Key groups the questions whose model answers count together
	// against Service.MaxStreamsPerKey: the project.
	Key string
	// Record, when not nil, keeps the answer and returns its id, sent in
	// the "done" event so that the reader can rate it ("" for none).
	Record func(Result) string
}

// Result is a question answered, for the record.
type Result struct {
	Question string
	Answer   Answer
	// Model names the model that wrote the answer; "" when extractive.
	Model string
	// ModelError says why the model's answer was replaced by the
	// extractive one; "" when it was not.
	ModelError string
}

// Serve answers the question of a POST request, streamed as server-sent
// events; a bad request is a 400 with a JSON error saying why.
func (s *Service) Serve(w http.ResponseWriter, r *http.Request, ask Ask) {
	if msgs := ReadRequest(w, r); msgs != nil {
		s.Answer(r.Context(), w, ask, msgs)
	}
}

// Answer answers the conversation msgs (the question last, as
// ParseRequest returns it) as server-sent events on w: "text" events as
// the answer comes, a "citation" per source, and "done". The model's
// answer cites the passages it used by their number ([n]); when the model
// fails before writing, the answer is the extractive one, and when it
// fails while writing, the extractive quotes follow what it wrote.
func (s *Service) Answer(ctx context.Context, w http.ResponseWriter, ask Ask, msgs []Message) Result {
	q := msgs[len(msgs)-1].Content
	query := retrievalQuery(msgs)
	ps, err := Retrieve(ask.Index, query, maxPassages)
	if err != nil {
		WriteError(w, http.StatusServiceUnavailable, "the docs' index cannot be read; try again shortly")
		return Result{Question: q}
	}
	h := w.Header()
	h.Set("Content-Type", eventsHeader)
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	ev := NewEvents(w)
	res := Result{Question: q}
	useModel := s.Model != nil && len(ps) > 0
	if useModel && !s.acquire(ask.Key) {
		useModel = false
		res.ModelError = "the model is writing as many answers as it may at once"
	}
	switch {
	case !useModel:
		res.Answer = Extract(query, ps)
		ev.Text(res.Answer.Text)
	default:
		gone := false
		text, err := s.Model.Stream(ctx, Prompt(ask.Site, msgs, ps), func(piece string) error {
			err := ev.Send("text", map[string]string{"text": piece})
			gone = err != nil
			return err
		})
		s.release(ask.Key)
		switch {
		case err == nil:
			res.Answer, res.Model = modelAnswer(text, ps), s.Model.Name
		case ctx.Err() != nil || gone:
			return res // the reader left
		default:
			res.ModelError = err.Error()
			if s.Log != nil {
				s.Log.Warn("assistant: the model failed; the answer is extractive", "model", s.Model.Name, "err", err)
			}
			ex := extract(query, ps, true)
			if text == "" {
				res.Answer = ex
				ev.Text(ex.Text)
				break
			}
			more := "\n\n*The answer was cut off. What the docs say:*\n\n" + ex.Text
			ev.Text(more)
			res.Answer = modelAnswer(text, ps)
			res.Answer.Text += more
			res.Answer.Citations = mergeCitations(res.Answer.Citations, ex.Citations)
			res.Answer.Found = res.Answer.Found || ex.Found
		}
	}
	id := ""
	if ask.Record != nil {
		id = ask.Record(res)
	}
	ev.End(res.Answer, id)
	return res
}

// retrievalQuery is what passages are retrieved for: the question, and
// the reader's previous one too when the question is a short follow-up
// ("and its timeout?") of few words of its own.
func retrievalQuery(msgs []Message) string {
	q := msgs[len(msgs)-1].Content
	if len(contentTerms(q)) > 2 {
		return q
	}
	for i := len(msgs) - 2; i >= 0; i-- {
		if msgs[i].Role == "user" {
			return clipRunes(msgs[i].Content, 300) + " " + q
		}
	}
	return q
}

// citeMarker is a citation in a model's answer: [n], or [n, m].
var citeMarker = regexp.MustCompile(`\[(\d{1,2}(?:\s*,\s*\d{1,2})*)\]`)

// modelAnswer is the model's text with its citations: the passages it
// cites by number, in the order cited. An answer that cites none but
// answers lists the passages it was given as its sources.
func modelAnswer(text string, ps []Passage) Answer {
	a := Answer{Text: text, Found: !strings.HasPrefix(strings.TrimSpace(text), NotFound)}
	seen := map[int]bool{}
	for _, m := range citeMarker.FindAllStringSubmatch(text, -1) {
		for _, f := range strings.Split(m[1], ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 1 || n > len(ps) || seen[n] {
				continue
			}
			seen[n] = true
			a.Citations = append(a.Citations, Citation{N: n, Title: citeTitle(ps[n-1]), URL: ps[n-1].URL})
		}
	}
	if len(a.Citations) == 0 && a.Found {
		for i, p := range ps {
			if i == maxQuoted {
				break
			}
			a.Citations = append(a.Citations, Citation{N: i + 1, Title: citeTitle(p), URL: p.URL})
		}
	}
	return a
}

// mergeCitations adds to a those of b it does not hold.
func mergeCitations(a, b []Citation) []Citation {
	have := map[int]bool{}
	for _, c := range a {
		have[c.N] = true
	}
	for _, c := range b {
		if !have[c.N] {
			a = append(a, c)
			have[c.N] = true
		}
	}
	return a
}
