package sites

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"path"
	"sync"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"
	"golang.org/x/time/rate"

	"lectern.dev/lectern"
	"lectern.dev/lectern/assistant"
	"lectern.dev/lectern/render/features"
	"lectern.dev/lectern/render/search"
)

// AssistantPath is where a cloud site's assistant answers.
const AssistantPath = features.OwnAssistant

// The assistant's rate, per project (not per domain: a project may have
// up to lectern.MaxDomains): questions a second and burst.
const (
	assistantRate  = 2
	assistantBurst = 10
	maxIndexes     = 4
)

// assistants is the state of the live sites' assistant: the search index
// of the deployments recently asked (read from the object store on first
// use, at most maxIndexes), and a rate limiter per project.
type assistants struct {
	mu       sync.Mutex
	indexes  recent[*search.Index] // by deployment
	limiters map[string]*rate.Limiter
	// unlimited turns the rate off (benchmarks).
	unlimited bool
}

// serveAssistant answers POST /_lectern/assistant on a cloud project's
// domain from its live deployment's search index (package assistant).
// Other deployment types do not have it (the feature table): 404.
func (s *Server) serveAssistant(w http.ResponseWriter, r *http.Request, e hostEntry) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		http.Error(w, "the assistant takes POST", http.StatusMethodNotAllowed)
		return
	}
	// The rate limit first: a refused request costs no store lookup.
	if !s.assistants.allow(e.projectID) {
		tooManyQuestions(w)
		return
	}
	p, err := s.store.GetProject(r.Context(), e.projectID)
	if err != nil || p.DeploymentType != lectern.DeploymentCloud || e.deploymentID == "" {
		http.NotFound(w, r)
		return
	}
	msgs := assistant.ReadRequest(w, r)
	if msgs == nil {
		return
	}
	if err := s.answer(r.Context(), w, p, e.deploymentID, lectern.HostName(r.Host), lectern.AssistantFromSite, msgs); err != nil {
		unavailable(w)
	}
}

// tooManyQuestions answers a question over the project's rate.
func tooManyQuestions(w http.ResponseWriter) {
	w.Header().Set("Retry-After", "1")
	assistant.WriteError(w, http.StatusTooManyRequests, "too many questions to this site at once; ask again in a moment")
}

// AskLive answers the conversation msgs (assistant.ParseRequest's) from
// the live deployment deploymentID of project p, as the site's assistant
// does, streamed as server-sent events on w: for the API's
// POST /v1/assistant/{domain}/message. Before writing anything, it
// returns an ERATELIMITED error when the project's questions are over
// their rate, and an EUNAVAILABLE one when its index cannot be read.
func (s *Server) AskLive(ctx context.Context, w http.ResponseWriter, p *lectern.Project, deploymentID, domain string, msgs []assistant.Message) error {
	if !s.assistants.allow(p.ID) {
		return lectern.Errorf(lectern.ERATELIMITED, "Too many questions to the assistant of project %s at once; ask again in a moment.", p.ID)
	}
	if err := s.answer(ctx, w, p, deploymentID, domain, lectern.AssistantFromAPI, msgs); err != nil {
		return lectern.Errorf(lectern.EUNAVAILABLE, "The docs' search index cannot be read now; try again shortly.")
	}
	return nil
}

// Recorder keeps the assistant's questions and answers, and the readers'
// ratings (store.Store implements it).
type Recorder interface {
	RecordAssistantMessage(ctx context.Context, m *lectern.AssistantMessage) error
	SetAssistantFeedback(ctx context.Context, projectID, messageID string, helpful bool) error
}

// answer answers msgs from the deployment's index, and records the
// question and its answer when the store keeps them; it fails, having
// written nothing, when the index cannot be read.
func (s *Server) answer(ctx context.Context, w http.ResponseWriter, p *lectern.Project, deploymentID, domain string,
	source lectern.AssistantSource, msgs []assistant.Message) error {
	ix, err := s.deploymentIndex(p.ID, deploymentID)
	if err != nil {
		s.log.Error("assistant: the search index cannot be read", "deployment", deploymentID, "err", err)
		return err
	}
	svc := s.Assistant
	if svc == nil {
		svc = &assistant.Service{}
	}
	ask := assistant.Ask{Index: ix, Site: p.Name, Key: p.ID}
	if rec, ok := s.store.(Recorder); ok {
		ask.Record = func(res assistant.Result) string {
			m := &lectern.AssistantMessage{OrgID: p.OrgID, ProjectID: p.ID, Domain: domain, Source: source, Question: res.Question,
				Answer: res.Answer.Text, Found: res.Answer.Found, Model: res.Model}
			for _, c := range res.Answer.Citations {
				m.Citations = append(m.Citations, lectern.AssistantCitation{Title: c.Title, URL: c.URL})
			}
			// The record outlives a reader who leaves as the answer ends.
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			if err := rec.RecordAssistantMessage(rctx, m); err != nil {
				s.log.Warn("assistant: the question could not be recorded", "project", p.ID, "err", err)
				return ""
			}
			return m.ID
		}
	}
	svc.Answer(ctx, w, ask, msgs)
	return nil
}

// FeedbackPath is where a reader rates an answer of a site's assistant.
const FeedbackPath = AssistantPath + "/feedback"

// maxFeedbackBody bounds a rating's body.
const maxFeedbackBody = 1 << 10

// serveFeedback answers POST /_lectern/assistant/feedback,
// {"id": "ask_...", "helpful": true}: the rating of an answer of this
// project's assistant (204); an answer of another project, or none, is
// 404.
func (s *Server) serveFeedback(w http.ResponseWriter, r *http.Request, e hostEntry) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		http.Error(w, "the feedback takes POST", http.StatusMethodNotAllowed)
		return
	}
	if !s.assistants.allow(e.projectID) {
		tooManyQuestions(w)
		return
	}
	rec, ok := s.store.(Recorder)
	if !ok {
		http.NotFound(w, r)
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
	switch err = rec.SetAssistantFeedback(r.Context(), e.projectID, body.ID, *body.Helpful); {
	case err == nil:
		w.WriteHeader(http.StatusNoContent)
	case lectern.ErrorCode(err) == lectern.ENOTFOUND:
		assistant.WriteError(w, http.StatusNotFound, "this site has no such answer")
	default:
		s.log.Warn("assistant: the feedback could not be recorded", "project", e.projectID, "err", err)
		unavailable(w)
	}
}

// deploymentIndex returns the search index of a deployment, read from the
// object store on first use.
func (s *Server) deploymentIndex(projectID, deploymentID string) (*search.Index, error) {
	return s.assistants.indexes.get(deploymentID, func() (*search.Index, error) {
		// The index outlives the request: its later reads are the server's.
		keys, err := s.deploymentKeys(context.Background(), hostEntry{projectID: projectID, deploymentID: deploymentID, found: true})
		if err != nil {
			return nil, err
		}
		return search.Open(&blobFS{ctx: context.Background(), bucket: s.bucket, key: keys})
	})
}

// allow takes a token of the project's limiter.
func (a *assistants) allow(projectID string) bool {
	if a.unlimited {
		return true
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.limiters == nil || len(a.limiters) > 10_000 {
		a.limiters = map[string]*rate.Limiter{}
	}
	l := a.limiters[projectID]
	if l == nil {
		l = rate.NewLimiter(assistantRate, assistantBurst)
		a.limiters[projectID] = l
	}
	return l.Allow()
}

// blobFS is the files of a deployment in the object store, for
// search.Open and the MCP tools: each file read whole, at most max bytes
// (0: search.MaxFile); a larger file is an error, or, with cut, its first
// max bytes (its Stat giving its whole size).
type blobFS struct {
	ctx    context.Context
	bucket *blob.Bucket
	key    func(name string) string // a site file's blob key
	max    int
	cut    bool
}

func (f *blobFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	ctx, cancel := context.WithTimeout(f.ctx, 30*time.Second)
	defer cancel()
	key := f.key(name)
	if key == "" { // not in the deployment's manifest
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	rd, err := f.bucket.NewReader(ctx, key, nil)
	if err != nil {
		if gcerrors.Code(err) == gcerrors.NotFound {
			return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
		}
		return nil, err
	}
	defer rd.Close()
	max := f.max
	if max == 0 {
		max = search.MaxFile
	}
	data, err := io.ReadAll(io.LimitReader(rd, int64(max)+1))
	if err != nil {
		return nil, err
	}
	size := int64(len(data))
	if len(data) > max {
		if !f.cut {
			return nil, errors.New("sites: a file of the deployment is too large to read")
		}
		data, size = data[:max], rd.Size()
	}
	return &memFile{name: path.Base(name), data: data, size: size}, nil
}

// memFile is a file read whole.
type memFile struct {
	name string
	data []byte
	size int64 // the whole file's
	off  int
}

func (m *memFile) Read(p []byte) (int, error) {
	if m.off >= len(m.data) {
		return 0, io.EOF
	}
	n := copy(p, m.data[m.off:])
	m.off += n
	return n, nil
}
func (m *memFile) Close() error               { return nil }
func (m *memFile) Stat() (fs.FileInfo, error) { return memInfo{m}, nil }

type memInfo struct{ f *memFile }

func (i memInfo) Name() string       { return i.f.name }
func (i memInfo) Size() int64        { return i.f.size }
func (i memInfo) Mode() fs.FileMode  { return 0o444 }
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return false }
func (i memInfo) Sys() any           { return nil }
