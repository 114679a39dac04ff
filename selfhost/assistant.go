package selfhost

import (
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"

	"golang.org/x/time/rate"

	"lectern.dev/lectern"
	"lectern.dev/lectern/assistant"
	"lectern.dev/lectern/render/features"
	"lectern.dev/lectern/render/search"
)

// The own assistant's rate: questions a second, and burst. One site is
// served, so one limiter for the process.
const (
	assistantRate  = 5
	assistantBurst = 20
)

// assistantService returns the service of selfhost's own assistant for
// c: extractive, or with c's model.
func (c *Config) assistantService(log *slog.Logger) *assistant.Service {
	svc := &assistant.Service{Log: log}
	if c.LLMURL != "" {
		svc.Model = &assistant.Model{URL: c.LLMURL, Name: c.LLMModel, Key: c.LLMKey}
	}
	return svc
}

// openTools readies what the site answers besides its files: the own
// assistant when its pages use it (Features.AssistantURL is
// features.OwnAssistant), from the bundle's search index hard-linked into
// the site's folder (it is there even when the search feature is off, and
// stays while the site is served), with svc; and /mcp (mcp.go).
func (s *Site) openTools(e *Entry, svc *assistant.Service) error {
	s.limiter = rate.NewLimiter(assistantRate, assistantBurst)
	if s.Features.Assistant && s.Features.AssistantURL == features.OwnAssistant {
		ix, err := linkIndex(e, filepath.Join(s.dir, "assistant"))
		if err != nil {
			return err
		}
		s.searchIx = ix
		s.assistant.Store(svc)
	}
	return s.openMCP()
}

// linkIndex hard-links the search index of e into dir and opens it.
func linkIndex(e *Entry, dir string) (*search.Index, error) {
	n := 0
	for _, mf := range e.Manifest.Files {
		if !strings.HasPrefix(mf.Path, features.SearchDir) {
			continue
		}
		dst := filepath.Join(dir, filepath.FromSlash(mf.Path))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return nil, fmt.Errorf("the assistant's index: %w", err)
		}
		src := filepath.Join(e.Dir, filepath.FromSlash(mf.Path))
		if err := os.Link(src, dst); err != nil {
			// Another file system, say: a copy will do.
			data, rerr := os.ReadFile(src)
			if rerr != nil {
				return nil, fmt.Errorf("the assistant's index: %w", rerr)
			}
			if werr := os.WriteFile(dst, data, 0o644); werr != nil {
				return nil, fmt.Errorf("the assistant's index: %w", werr)
			}
		}
		n++
	}
	if n == 0 {
		return nil, fmt.Errorf("version %s has no search index, which the assistant answers from: export the docs again with this version of Lectern, or turn features.assistant off", e.Version)
	}
	ix, err := search.Open(os.DirFS(dir))
	if err != nil {
		return nil, fmt.Errorf("version %s: the search index cannot be read (%v): export the docs again", e.Version, err)
	}
	return ix, nil
}

// serveAssistant answers POST /_lectern/assistant from the site's index,
// as a cloud site's assistant does.
func (s *Site) serveAssistant(w http.ResponseWriter, r *http.Request) {
	hdr := w.Header()
	if r.Method != http.MethodPost {
		hdr.Set("Allow", "POST")
		http.Error(w, "The assistant takes POST.", http.StatusMethodNotAllowed)
		return
	}
	if !s.limiter.Allow() {
		hdr.Set("Retry-After", "1")
		assistant.WriteError(w, http.StatusTooManyRequests, "too many questions at once; ask again in a moment")
		return
	}
	ask := assistant.Ask{Index: s.searchIx}
	if s.analytics != nil {
		ask.Record = s.analytics.recorder(r.Context(), lectern.HostName(r.Host))
	}
	s.assistant.Load().Serve(w, r, ask)
}

// serveFeedback answers POST /_lectern/assistant/feedback, a reader's
// rating of an answer recorded by selfhost's own analytics, within the
// rate of questions.
func (s *Site) serveFeedback(w http.ResponseWriter, r *http.Request) {
	if !s.limiter.Allow() {
		w.Header().Set("Retry-After", "1")
		assistant.WriteError(w, http.StatusTooManyRequests, "too many requests at once; try again in a moment")
		return
	}
	s.analytics.serveFeedback(w, r)
}

// ownAssistant reports whether urlPath is the own assistant's, for a site
// that has it.
func (s *Site) ownAssistant(urlPath string) bool {
	return s.assistant.Load() != nil && path.Clean(urlPath) == features.OwnAssistant
}
