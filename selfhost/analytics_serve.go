package selfhost

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"path"
	"regexp"
	"strings"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/assistant"
	"lectern.dev/lectern/beacon"
	"lectern.dev/lectern/httpapi"
	"lectern.dev/lectern/render/features"
)

// readAPIPath matches the paths of the analytics reports, the only part of
// the Lectern API that selfhost serves.
var readAPIPath = regexp.MustCompile(`^/v1/analytics/[^/]+/(views|searches|feedback|assistant)$`)

// feedbackPath is where a reader rates an answer of the own assistant.
const feedbackPath = features.OwnAssistant + "/feedback"

// serve answers, for site s, the requests of selfhost's own analytics:
// the pages' events and the read API. It reports whether r was one. Its
// responses carry the security headers (set by the Handler) with a CSP
// of their own, not the site's.
func (a *Analytics) serve(w http.ResponseWriter, r *http.Request, s *Site) bool {
	isBeacon := path.Clean(r.URL.Path) == features.OwnAnalytics
	if !isBeacon && !readAPIPath.MatchString(r.URL.Path) {
		return false
	}
	w.Header().Set("Content-Security-Policy", fallbackCSP)
	switch {
	case isBeacon:
		a.serveBeacon(w, r, s)
	case !a.keyed.Load():
		w.Header().Set("Content-Type", "application/problem+json")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusNotFound)
		json.NewEncoder(w).Encode(map[string]any{"type": "urn:lectern:problem:" + lectern.ENOTFOUND, "title": "Not Found", "status": 404,
			"code": lectern.ENOTFOUND, "detail": "The analytics read API is off: make a key with lectern selfhost keygen, put it in the file " +
				"named by analytics.apiKeyFile (or in " + analyticsKeyEnv + ") and re-apply the configuration."})
	default:
		a.api.ServeHTTP(w, r)
	}
	return true
}

// serveBeacon answers POST /_lectern/analytics as live sites do
// (beacon.Collector.Serve), the served tree telling its pages.
func (a *Analytics) serveBeacon(w http.ResponseWriter, r *http.Request, s *Site) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		http.Error(w, "the analytics beacon takes POST", http.StatusMethodNotAllowed)
		return
	}
	if a.closed.Load() {
		http.Error(w, "the server is stopping", http.StatusServiceUnavailable)
		return
	}
	// selfhost has no trusted proxies: the reader is the connection's
	// address (an IPv6 one as its /64, as live sites count it).
	a.c.Serve(w, r, beacon.Site{ProjectID: a.ProjectID, Addr: httpapi.ClientAddr(r, nil),
		IsPage: func(_ context.Context, p string) bool { return s.isPage(p) }})
}

// isPage reports whether p is a page of the site: its HTML file exists.
func (s *Site) isPage(p string) bool {
	for _, name := range lectern.SiteFiles(p) {
		if strings.HasSuffix(name, ".html") && s.index[name] != nil {
			return true
		}
	}
	return false
}

// recorder returns the Record of the own assistant: each question and its
// answer, asked on host, kept as a live site's ("site"); the answer's id
// lets the reader rate it.
func (a *Analytics) recorder(ctx context.Context, host string) func(assistant.Result) string {
	return func(res assistant.Result) string {
		m := &lectern.AssistantMessage{OrgID: a.orgID, ProjectID: a.ProjectID, Domain: host, Source: lectern.AssistantFromSite,
			Question: res.Question, Answer: res.Answer.Text, Found: res.Answer.Found, Model: res.Model}
		for _, c := range res.Answer.Citations {
			m.Citations = append(m.Citations, lectern.AssistantCitation{Title: c.Title, URL: c.URL})
		}
		// The record outlives a reader who leaves as the answer ends.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := a.st.RecordAssistantMessage(rctx, m); err != nil {
			a.log.Warn("assistant: the question could not be recorded", "err", err)
			return ""
		}
		return m.ID
	}
}

// maxFeedbackBody bounds a rating's body.
const maxFeedbackBody = 1 << 10

// serveFeedback answers POST /_lectern/assistant/feedback, {"id":
// "ask_...", "helpful": true}: the rating of an answer the own assistant
// recorded (204); an unknown answer is 404.
func (a *Analytics) serveFeedback(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		http.Error(w, "the feedback takes POST", http.StatusMethodNotAllowed)
		return
	}
	var body struct {
		ID      string `json:"id"`
		Helpful *bool  `json:"helpful"`
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxFeedbackBody))
	dec.DisallowUnknownFields()
	err := dec.Decode(&body)
	if err == nil {
		if _, e := dec.Token(); e != io.EOF {
			err = errors.New("data after the JSON object")
		}
	}
	if err != nil || body.ID == "" || body.Helpful == nil || len(body.ID) > 64 {
		assistant.WriteError(w, http.StatusBadRequest, `the body must be {"id": "<the answer's id>", "helpful": true or false}`)
		return
	}
	switch err = a.st.SetAssistantFeedback(r.Context(), a.ProjectID, body.ID, *body.Helpful); {
	case err == nil:
		w.WriteHeader(http.StatusNoContent)
	case lectern.ErrorCode(err) == lectern.ENOTFOUND:
		assistant.WriteError(w, http.StatusNotFound, "this site has no such answer")
	default:
		a.log.Warn("assistant: the feedback could not be recorded", "err", err)
		w.Header().Set("Retry-After", "5")
		assistant.WriteError(w, http.StatusServiceUnavailable, "the feedback could not be recorded; try again in a moment")
	}
}
