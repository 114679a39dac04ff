package sites

import (
	"context"
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
	"lectern.dev/lectern/blobstore"
	"lectern.dev/lectern/render/search"
)

// AssistantPath is where a cloud site's assistant answers.
const AssistantPath = "/_lectern/assistant"

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
	indexes  map[string]*search.Index // by deployment
	order    []string
	limiters map[string]*rate.Limiter
}

// serveAssistant answers POST /_lectern/assistant on a cloud project's
// domain from its live deployment's search index (extractive answers;
// package assistant). Other deployment types do not have it (the feature
// table): 404.
func (s *Server) serveAssistant(w http.ResponseWriter, r *http.Request, e hostEntry) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		http.Error(w, "the assistant takes POST", http.StatusMethodNotAllowed)
		return
	}
	// The rate limit first: a refused request costs no store lookup.
	if !s.assistants.allow(e.projectID) {
		w.Header().Set("Retry-After", "1")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		w.Write([]byte(`{"error":"too many questions to this site at once; ask again in a moment"}` + "\n"))
		return
	}
	p, err := s.store.GetProject(r.Context(), e.projectID)
	if err != nil || p.DeploymentType != lectern.DeploymentCloud || e.deploymentID == "" {
		http.NotFound(w, r)
		return
	}
	ix, err := s.assistants.index(e, func() (*search.Index, error) {
		// The index outlives the request: its later reads are the server's.
		return search.Open(&blobFS{ctx: context.Background(), bucket: s.bucket,
			key: func(name string) string { return blobstore.SiteKey(e.projectID, e.deploymentID, name) }})
	})
	if err != nil {
		s.log.Error("assistant: the search index cannot be read", "deployment", e.deploymentID, "err", err)
		unavailable(w)
		return
	}
	assistant.Serve(w, r, ix)
}

// allow takes a token of the project's limiter.
func (a *assistants) allow(projectID string) bool {
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

// index returns the deployment's index, opening it with open on first use.
func (a *assistants) index(e hostEntry, open func() (*search.Index, error)) (*search.Index, error) {
	a.mu.Lock()
	ix := a.indexes[e.deploymentID]
	a.mu.Unlock()
	if ix != nil {
		return ix, nil
	}
	ix, err := open()
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.indexes == nil {
		a.indexes = map[string]*search.Index{}
	}
	if _, ok := a.indexes[e.deploymentID]; !ok {
		a.order = append(a.order, e.deploymentID)
		if len(a.order) > maxIndexes {
			delete(a.indexes, a.order[0])
			a.order = a.order[1:]
		}
	}
	a.indexes[e.deploymentID] = ix
	return ix, nil
}

// blobFS is the files of a deployment in the object store, for
// search.Open: each file read whole, at most search.MaxFile bytes.
type blobFS struct {
	ctx    context.Context
	bucket *blob.Bucket
	key    func(name string) string // a site file's blob key
}

func (f *blobFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	ctx, cancel := context.WithTimeout(f.ctx, 30*time.Second)
	defer cancel()
	rd, err := f.bucket.NewReader(ctx, f.key(name), nil)
	if err != nil {
		if gcerrors.Code(err) == gcerrors.NotFound {
			return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
		}
		return nil, err
	}
	defer rd.Close()
	data, err := io.ReadAll(io.LimitReader(rd, search.MaxFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > search.MaxFile {
		return nil, errors.New("sites: an index file is too large")
	}
	return &memFile{name: path.Base(name), data: data}, nil
}

// memFile is a file read whole.
type memFile struct {
	name string
	data []byte
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
func (i memInfo) Size() int64        { return int64(len(i.f.data)) }
func (i memInfo) Mode() fs.FileMode  { return 0o444 }
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return false }
func (i memInfo) Sys() any           { return nil }
