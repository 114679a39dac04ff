package httpapi_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"gocloud.dev/blob"

	"lectern.dev/lectern"
	"lectern.dev/lectern/blobstore"
	"lectern.dev/lectern/httpapi"
	"lectern.dev/lectern/internal/apicheck"
	"lectern.dev/lectern/store"
	"lectern.dev/lectern/store/sqlite"
)

// Domains of the two projects of every env.
const (
	entDomain  = "docs.ent.test"
	freeDomain = "docs.free.test"
	publicURL  = "http://lectern.test"
)

// checker is the OpenAPI checker of httpapi.OpenAPIDocument, built once.
var checker = sync.OnceValues(func() (*apicheck.Checker, error) {
	return apicheck.New(httpapi.OpenAPIDocument())
})

// syncBuffer is a bytes.Buffer safe for the logger's concurrent writes
// (key use is recorded off the request path).
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// notifier counts wake-ups.
type notifier struct{ n atomic.Int64 }

func (n *notifier) Notify() { n.n.Add(1) }

// env is one API over a fresh store: an enterprise and a free organization,
// a project with a domain and an API key each.
type env struct {
	t      testing.TB
	st     store.Store // what the handler uses (possibly wrapped)
	raw    *sqlite.Store
	dbPath string // the SQLite file, for counting rows in tests
	h      *httpapi.Handler
	links  *blobstore.LocalLinks
	bucket *blob.Bucket
	reg    *prometheus.Registry
	logs   *syncBuffer
	notes  *notifier
	check  *apicheck.Checker
	skew   atomic.Int64 // added to the links' clock, in nanoseconds
	frozen atomic.Int64 // when not 0, the links' clock stands still at this Unix time in nanoseconds

	ent, free         *lectern.Organization
	entProj, freeProj *lectern.Project
	entKey, freeKey   string
	entKeyID          string

	mu     sync.Mutex
	keys   []string               // every key created, for the log check
	leases map[string]store.Lease // export jobs claimed, by ID
}

// exports counts the exports stored for an organization, reading the
// database file directly.
func (e *env) exports(t testing.TB, orgID string) int {
	t.Helper()
	db, err := sql.Open("sqlite", e.dbPath+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM exports WHERE org_id = ?`, orgID).Scan(&n); err != nil {
		t.Fatalf("count exports: %v", err)
	}
	return n
}

// newEnv builds an env. wrap, when not nil, wraps the store the handler sees.
func newEnv(t testing.TB, cfg httpapi.Config, wrap func(store.Store) store.Store) *env {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "lectern.db")
	st, err := sqlite.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	bucket, err := blobstore.Open(ctx, "file://"+filepath.Join(dir, "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bucket.Close() })
	check, err := checker()
	if err != nil {
		t.Fatalf("apicheck.New: %v", err)
	}
	e := &env{t: t, raw: st, dbPath: dbPath, st: st, bucket: bucket, reg: prometheus.NewRegistry(), logs: &syncBuffer{}, notes: &notifier{}, check: check}
	if wrap != nil {
		e.st = wrap(st)
	}
	key := make([]byte, 32)
	rand.Read(key)
	e.links = &blobstore.LocalLinks{Bucket: bucket, PublicURL: publicURL, Key: key,
		Now: func() time.Time {
			if f := e.frozen.Load(); f != 0 {
				return time.Unix(0, f)
			}
			return time.Now().Add(time.Duration(e.skew.Load()))
		}}

	e.ent = &lectern.Organization{Name: "Enterprise Co", Plan: lectern.PlanEnterprise}
	e.free = &lectern.Organization{Name: "Free Co", Plan: lectern.PlanFree}
	for _, o := range []*lectern.Organization{e.ent, e.free} {
		if err := st.CreateOrg(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	e.entProj = e.project(e.ent.ID, entDomain)
	e.freeProj = e.project(e.free.ID, freeDomain)
	e.entKey, e.entKeyID = e.newKey(e.ent.ID)
	e.freeKey, _ = e.newKey(e.free.ID)

	log := slog.New(slog.NewJSONHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	e.h = httpapi.NewHandler(log, e.st, e.notes, e.links, e.links, nil, e.reg, e.reg, cfg)

	// Whatever a test did, no API key may reach the log.
	t.Cleanup(func() {
		out := e.logs.String()
		e.mu.Lock()
		defer e.mu.Unlock()
		for _, k := range e.keys {
			if strings.Contains(out, k) || strings.Contains(out, k[len(lectern.APIKeyPrefix):]) {
				t.Errorf("the log holds API key %s…", k[:8])
			}
		}
	})
	return e
}

func (e *env) project(orgID, domain string) *lectern.Project {
	e.t.Helper()
	p := &lectern.Project{OrgID: orgID, Name: domain, RepoURL: "https://git.example/" + domain + ".git", Branch: "main",
		DocsRoot: "/", Domains: []string{domain}, DeploymentType: lectern.DeploymentCloud}
	if err := e.raw.CreateProject(context.Background(), p); err != nil {
		e.t.Fatal(err)
	}
	return p
}

// newKey stores a fresh API key of orgID and returns it with its ID.
func (e *env) newKey(orgID string) (string, string) {
	e.t.Helper()
	k := lectern.NewAPIKey()
	rec := &lectern.APIKey{OrgID: orgID, Name: "test", Hint: lectern.APIKeyHint(k), Hash: lectern.HashAPIKey(k)}
	if err := e.raw.CreateAPIKey(context.Background(), rec); err != nil {
		e.t.Fatal(err)
	}
	e.remember(k)
	return k, rec.ID
}

// remember adds a key (stored or not) to those the log must not hold.
func (e *env) remember(k string) {
	e.mu.Lock()
	e.keys = append(e.keys, k)
	e.mu.Unlock()
}

// req builds a request; a non-empty key is sent as a bearer token, and a
// non-nil body as JSON.
func req(method, path, key string, body []byte) *http.Request {
	var r *http.Request
	if body != nil {
		r = httptest.NewRequest(method, path, bytes.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
	} else {
		r = httptest.NewRequest(method, path, nil)
	}
	if key != "" {
		r.Header.Set("Authorization", "Bearer "+key)
	}
	return r
}

// do runs r through the handler. Every response carries X-Request-Id, and
// every response of a documented /v1 operation must match the OpenAPI
// document.
func (e *env) do(t testing.TB, r *http.Request) (*http.Response, []byte) {
	t.Helper()
	resp, body := e.serve(r)
	if resp.Header.Get("X-Request-Id") == "" {
		t.Errorf("%s %s → %d: no X-Request-Id header", r.Method, r.URL.Path, resp.StatusCode)
	}
	if strings.HasPrefix(r.URL.Path, "/v1/") {
		if err := e.check.CheckResponse(r, resp, body); err != nil {
			t.Errorf("apicheck: %v\nbody: %s", err, body)
		}
	}
	return resp, body
}

// doUnchecked runs r through the handler without the OpenAPI check: for
// requests that no documented operation routes to (an unknown path, a
// method a path does not have) and for the download links.
func (e *env) doUnchecked(t testing.TB, r *http.Request) (*http.Response, []byte) {
	t.Helper()
	resp, body := e.serve(r)
	if resp.Header.Get("X-Request-Id") == "" {
		t.Errorf("%s %s → %d: no X-Request-Id header", r.Method, r.URL.Path, resp.StatusCode)
	}
	return resp, body
}

func (e *env) serve(r *http.Request) (*http.Response, []byte) {
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, r)
	resp := rec.Result()
	body, _ := io.ReadAll(resp.Body)
	return resp, body
}

// problemBody is a decoded RFC 9457 problem.
type problemBody struct {
	Type      string `json:"type"`
	Title     string `json:"title"`
	Status    int    `json:"status"`
	Detail    string `json:"detail"`
	Code      string `json:"code"`
	RequestID string `json:"requestId"`
	Errors    []struct {
		Field   string `json:"field"`
		Message string `json:"message"`
	} `json:"errors"`
	JobID string `json:"jobId"`
}

func (p *problemBody) fields() []string {
	var out []string
	for _, f := range p.Errors {
		out = append(out, f.Field)
	}
	return out
}

// wantProblem checks that resp is the problem status/code and returns it.
func wantProblem(t testing.TB, resp *http.Response, body []byte, status int, code string) *problemBody {
	t.Helper()
	if resp.StatusCode != status {
		t.Errorf("status %d, want %d; body %s", resp.StatusCode, status, body)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/problem+json" {
		t.Errorf("Content-Type %q, want application/problem+json", ct)
	}
	var p problemBody
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatalf("problem body: %v: %s", err, body)
	}
	if p.Code != code {
		t.Errorf("code %q, want %q (detail %q)", p.Code, code, p.Detail)
	}
	if p.Status != status {
		t.Errorf("status field %d, want %d", p.Status, status)
	}
	if want := "urn:lectern:problem:" + code; p.Type != want {
		t.Errorf("type %q, want %q", p.Type, want)
	}
	if want := http.StatusText(status); p.Title != want {
		t.Errorf("title %q, want %q", p.Title, want)
	}
	if strings.TrimSpace(p.Detail) == "" {
		t.Errorf("empty detail")
	}
	if resp.Header.Get("X-Request-Id") == "" {
		t.Errorf("no X-Request-Id")
	}
	return &p
}

// decode unmarshals a JSON body into a map.
func decode(t testing.TB, body []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("body is not a JSON object: %v: %s", err, body)
	}
	return m
}

// startExport starts an export of domain with key and returns the job ID.
func (e *env) startExport(t testing.TB, key, domain string) string {
	t.Helper()
	resp, body := e.do(t, req("POST", "/v1/static-export/jobs", key, []byte(`{"domain":"`+domain+`"}`)))
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("start export: %d %s", resp.StatusCode, body)
	}
	id, _ := decode(t, body)["jobId"].(string)
	if id == "" {
		t.Fatalf("start export: no jobId: %s", body)
	}
	return id
}

// claim leases the export job id, giving back any other job claimed on the
// way; a job claimed before keeps its lease.
func (e *env) claim(t testing.TB, id string) store.Lease {
	t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	if l, ok := e.leases[id]; ok {
		return l
	}
	if e.leases == nil {
		e.leases = map[string]store.Lease{}
	}
	ctx := context.Background()
	var others []store.Lease
	defer func() {
		for _, l := range others {
			if err := e.raw.ReleaseJob(ctx, l); err != nil {
				t.Errorf("release %s: %v", l.JobID, err)
			}
		}
	}()
	for {
		job, lease, err := e.raw.ClaimJob(ctx, store.ClaimParams{Kinds: []string{store.KindExport}, Owner: "t", Now: time.Now(), LeaseFor: time.Minute})
		if err != nil || job == nil {
			t.Fatalf("claim %s: job %v, err %v", id, job, err)
		}
		if job.ID == id {
			e.leases[id] = lease
			return lease
		}
		others = append(others, lease)
	}
}

// completeExport finishes export id with a bundle of random bytes and
// returns the bundle's bytes.
func (e *env) completeExport(t testing.TB, id string) []byte {
	t.Helper()
	ctx := context.Background()
	lease := e.claim(t, id)
	data := make([]byte, 4096+int(time.Now().UnixNano()%512))
	rand.Read(data)
	sum := sha256.Sum256(data)
	b := &lectern.Bundle{Key: blobstore.BundleKey(id, 1, entDomain+"-export-2025-01-02.tar.gz"),
		FileName: entDomain + "-export-2025-01-02.tar.gz", SizeBytes: int64(len(data)), SHA256: hex.EncodeToString(sum[:]), Version: "abc123-" + id}
	if err := e.bucket.WriteAll(ctx, b.Key, data, nil); err != nil {
		t.Fatal(err)
	}
	if err := e.raw.FinishExport(ctx, lease, store.ExportResult{Status: lectern.ExportCompleted, PageCount: 12, Bundle: b, At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	return data
}

// failExport finishes export id as failed.
func (e *env) failExport(t testing.TB, id string) {
	t.Helper()
	lease := e.claim(t, id)
	err := e.raw.FinishExport(context.Background(), lease, store.ExportResult{Status: lectern.ExportFailed,
		Error: &lectern.JobError{Code: "render_failed", Message: "page guides/x.mdx could not be rendered"}, At: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
}

// runExport marks export id running with some progress.
func (e *env) runExport(t testing.TB, id string) {
	t.Helper()
	lease := e.claim(t, id)
	if err := e.raw.SetExportProgress(context.Background(), lease, 40, 5, time.Now()); err != nil {
		t.Fatal(err)
	}
}
