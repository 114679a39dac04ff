package postgres_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"lectern.dev/lectern"
	"lectern.dev/lectern/httpapi"
	"lectern.dev/lectern/jobs"
	"lectern.dev/lectern/store"
	"lectern.dev/lectern/store/postgres"
	"lectern.dev/lectern/store/postgres/pgtest"
	"lectern.dev/lectern/store/readcache"
)

// proxy is a TCP proxy on loopback in front of the test database. Cut
// drops every connection and refuses new ones, as a database that went
// down does; Restore listens again on the same address.
type proxy struct {
	t      *testing.T
	target string
	addr   string
	mu     sync.Mutex
	ln     net.Listener
	conns  map[net.Conn]bool
}

func newProxy(t *testing.T, target string) *proxy {
	p := &proxy{t: t, target: target, addr: "127.0.0.1:0", conns: map[net.Conn]bool{}}
	p.Restore()
	t.Cleanup(p.Cut)
	return p
}

// Restore starts listening (again) on the proxy's address.
func (p *proxy) Restore() {
	p.t.Helper()
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		p.t.Fatalf("proxy: %v", err)
	}
	p.mu.Lock()
	p.ln, p.addr = ln, ln.Addr().String()
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.pipe(c)
		}
	}()
}

func (p *proxy) pipe(c net.Conn) {
	up, err := net.Dial("tcp", p.target)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	if p.ln == nil { // cut meanwhile
		p.mu.Unlock()
		c.Close()
		up.Close()
		return
	}
	p.conns[c], p.conns[up] = true, true
	p.mu.Unlock()
	go func() { io.Copy(up, c); up.Close(); c.Close() }()
	io.Copy(c, up)
	c.Close()
	up.Close()
}

// Cut closes the listener and every proxied connection.
func (p *proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for c := range p.conns {
		c.Close()
		delete(p.conns, c)
	}
}

// proxiedStore opens a store on a fresh schema through a proxy.
func proxiedStore(t *testing.T) (*postgres.Store, *proxy) {
	t.Helper()
	dsn := pgtest.URL(t)
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	port := u.Port()
	if port == "" {
		port = "5432"
	}
	host := u.Hostname()
	if host == "" || strings.HasPrefix(host, "/") {
		t.Skip("TEST_DATABASE_URL does not name a TCP host")
	}
	p := newProxy(t, net.JoinHostPort(host, port))
	u.Host = p.addr
	q := u.Query()
	q.Set("connect_timeout", "2")
	u.RawQuery = q.Encode()
	s, err := postgres.Open(t.Context(), u.String())
	if err != nil {
		t.Fatalf("Open through the proxy: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s, p
}

// waitUp waits until the store answers again after the proxy is restored.
func waitUp(t *testing.T, s store.Store) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		err := s.Ping(t.Context())
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("store still unavailable 15 s after the database came back: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestUnreachableDatabaseIsUnavailable(t *testing.T) {
	t.Parallel()
	s, p := proxiedStore(t)
	ctx := t.Context()
	org := &lectern.Organization{Name: "Acme", Plan: lectern.PlanEnterprise}
	if err := s.CreateOrg(ctx, org); err != nil {
		t.Fatal(err)
	}

	p.Cut()
	for name, call := range map[string]func() error{
		"Ping":   func() error { return s.Ping(ctx) },
		"GetOrg": func() error { _, err := s.GetOrg(ctx, org.ID); return err },
		"ClaimJob": func() error {
			_, _, err := s.ClaimJob(ctx, store.ClaimParams{Kinds: []string{store.KindExport}, Owner: "w", Now: time.Now(), LeaseFor: time.Second})
			return err
		},
		"CreateProject": func() error {
			return s.CreateProject(ctx, &lectern.Project{OrgID: org.ID, Name: "p", Domains: []string{"a.example.com"}, DeploymentType: lectern.DeploymentCloud})
		},
		"TakeRateTokens": func() error { _, _, err := s.TakeRateTokens(ctx, "k", 1, 1, 1, time.Now()); return err },
	} {
		err := call()
		e := lectern.AsError(err)
		if e == nil || e.Code != lectern.EUNAVAILABLE || e.RetryAfterSeconds <= 0 {
			t.Errorf("%s with the database down: %v (code %q), want unavailable with a Retry-After", name, err, lectern.ErrorCode(err))
		}
	}

	p.Restore()
	waitUp(t, s)
	if _, err := s.GetOrg(ctx, org.ID); err != nil {
		t.Errorf("GetOrg after the database came back: %v", err)
	}
}

// TestAPIAnswers503WhileTheDatabaseIsDown checks what clients see: a
// problem with code unavailable and Retry-After, never a 500, and normal
// answers once the database is back.
func TestAPIAnswers503WhileTheDatabaseIsDown(t *testing.T) {
	t.Parallel()
	s, p := proxiedStore(t)
	ctx := t.Context()
	org := &lectern.Organization{Name: "Acme", Plan: lectern.PlanEnterprise}
	if err := s.CreateOrg(ctx, org); err != nil {
		t.Fatal(err)
	}
	prj := &lectern.Project{OrgID: org.ID, Name: "Docs", RepoURL: "https://git.example.com/d.git", Branch: "main",
		Domains: []string{"docs.acme.test"}, DeploymentType: lectern.DeploymentCloud}
	if err := s.CreateProject(ctx, prj); err != nil {
		t.Fatal(err)
	}
	secret := lectern.NewAPIKey()
	if err := s.CreateAPIKey(ctx, &lectern.APIKey{OrgID: org.ID, Name: "ci", Hint: secret[:8], Hash: lectern.HashAPIKey(secret)}); err != nil {
		t.Fatal(err)
	}
	exp := &lectern.ExportJob{OrgID: org.ID, ProjectID: prj.ID, Domain: "docs.acme.test"}
	if err := s.CreateExport(ctx, exp, store.ExportQuota{}); err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	handler := httpapi.NewHandler(slog.New(slog.DiscardHandler), readcache.New(s, -1, -1), nil, nil, nil, nil, reg, reg,
		httpapi.Config{RateLimit: httpapi.RateLimit{Rate: 100, Burst: 100}, Limiter: httpapi.NewSharedLimiter(s, httpapi.RateLimit{Rate: 100, Burst: 100}, nil)})
	srv := httptest.NewServer(handler)
	defer srv.Close()
	do := func(method, path, body string) (*http.Response, map[string]any) {
		t.Helper()
		req, _ := http.NewRequestWithContext(ctx, method, srv.URL+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+secret)
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Idempotency-Key", "k-"+method+path)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		json.NewDecoder(resp.Body).Decode(&m)
		return resp, m
	}
	if resp, _ := do("GET", "/v1/static-export/jobs/"+exp.ID, ""); resp.StatusCode != 200 {
		t.Fatalf("GET job with the database up: %d", resp.StatusCode)
	}

	p.Cut()
	for _, c := range []struct{ method, path, body string }{
		{"GET", "/v1/static-export/jobs/" + exp.ID, ""},
		{"GET", "/v1/project/update-status/" + lectern.NewID(lectern.PrefixUpdate), ""},
		{"POST", "/v1/project/update/" + prj.ID, ""},
		{"POST", "/v1/static-export/jobs", `{"domain":"docs.acme.test"}`},
	} {
		resp, body := do(c.method, c.path, c.body)
		if resp.StatusCode != http.StatusServiceUnavailable || body["code"] != lectern.EUNAVAILABLE ||
			resp.Header.Get("Retry-After") == "" || resp.Header.Get("Content-Type") != "application/problem+json" {
			t.Errorf("%s %s with the database down: %d %s Retry-After %q body %v; want 503 problem unavailable with Retry-After",
				c.method, c.path, resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Retry-After"), body)
		}
	}
	if resp, err := http.Get(srv.URL + "/readyz"); err != nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("/readyz with the database down: %v %v, want 503", resp.StatusCode, err)
	}

	p.Restore()
	waitUp(t, s)
	if resp, body := do("GET", "/v1/static-export/jobs/"+exp.ID, ""); resp.StatusCode != 200 || body["jobId"] != exp.ID {
		t.Errorf("GET job after the database came back: %d %v", resp.StatusCode, body)
	}
}

// resumingExport is an export handler whose first attempt finishes while
// the database is down.
type resumingExport struct {
	st       store.Store
	mu       sync.Mutex
	attempts []int
	started  chan int
	proceed  chan struct{}
}

func (h *resumingExport) Run(ctx context.Context, job *store.Job, lease store.Lease) error {
	h.mu.Lock()
	h.attempts = append(h.attempts, job.Attempt)
	h.mu.Unlock()
	h.started <- job.Attempt
	if job.Attempt == 1 {
		if err := h.st.SetExportProgress(ctx, lease, 10, 1, time.Now()); err != nil {
			return err
		}
		select {
		case <-h.proceed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return h.st.FinishExport(ctx, lease, store.ExportResult{Status: lectern.ExportCompleted, PageCount: 1,
		Bundle: &lectern.Bundle{Key: "exports/" + job.ID + "/b.tar.gz", FileName: "b.tar.gz", SizeBytes: 1, SHA256: "00", Version: "v"}, At: time.Now()})
}

func (h *resumingExport) Fail(ctx context.Context, job *store.Job, lease store.Lease, err error) error {
	return h.st.FinishExport(ctx, lease, store.ExportResult{Status: lectern.ExportFailed,
		Error: &lectern.JobError{Code: lectern.ErrorCode(err), Message: lectern.ErrorMessage(err)}, At: time.Now()})
}

// TestJobsResumeAfterTheDatabaseComesBack runs an export whose worker loses
// the database mid-job: the attempt cannot finish or give the job back, and
// once the database is back the job is taken up again and completes.
func TestJobsResumeAfterTheDatabaseComesBack(t *testing.T) {
	t.Parallel()
	s, p := proxiedStore(t)
	ctx := t.Context()
	org := &lectern.Organization{Name: "Acme", Plan: lectern.PlanEnterprise}
	if err := s.CreateOrg(ctx, org); err != nil {
		t.Fatal(err)
	}
	prj := &lectern.Project{OrgID: org.ID, Name: "Docs", Domains: []string{"docs.acme.test"}, DeploymentType: lectern.DeploymentCloud}
	if err := s.CreateProject(ctx, prj); err != nil {
		t.Fatal(err)
	}
	exp := &lectern.ExportJob{OrgID: org.ID, ProjectID: prj.ID, Domain: "docs.acme.test"}
	if err := s.CreateExport(ctx, exp, store.ExportQuota{}); err != nil {
		t.Fatal(err)
	}
	h := &resumingExport{st: s, started: make(chan int, 4), proceed: make(chan struct{})}
	r := jobs.NewRunner(slog.New(slog.DiscardHandler), s, map[string]jobs.Handler{store.KindExport: h},
		jobs.Config{Workers: 1, LeaseFor: time.Second, Poll: 50 * time.Millisecond, DrainTimeout: time.Second}, nil)
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer r.Stop()
	wait := func(what string) int {
		t.Helper()
		select {
		case a := <-h.started:
			return a
		case <-time.After(20 * time.Second):
			t.Fatalf("timed out waiting for %s", what)
			return 0
		}
	}
	if a := wait("the first attempt"); a != 1 {
		t.Fatalf("first run is attempt %d", a)
	}

	p.Cut()
	close(h.proceed) // the attempt ends while the database is down
	time.Sleep(1500 * time.Millisecond)
	p.Restore()

	if a := wait("the job to resume"); a != 2 {
		t.Errorf("resumed run is attempt %d, want 2", a)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		e, err := s.GetExport(ctx, exp.ID)
		if err == nil && e.Status == lectern.ExportCompleted {
			if e.Progress != 100 {
				t.Errorf("completed export has progress %d", e.Progress)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("export not completed after the database came back: %+v, %v", e, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.attempts) != 2 {
		t.Errorf("attempts run: %v, want [1 2]", h.attempts)
	}
}
