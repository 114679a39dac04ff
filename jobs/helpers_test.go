package jobs_test

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"lectern.dev/lectern"
	"lectern.dev/lectern/blobstore"
	"lectern.dev/lectern/jobs"
	"lectern.dev/lectern/store"
	"lectern.dev/lectern/store/sqlite"
)

// discard is the logger of every runner and janitor under test.
var discard = slog.New(slog.DiscardHandler)

// spyStore is a real SQLite store that counts the job-queue calls the
// runner makes, and can make ExtendLease fail.
type spyStore struct {
	*sqlite.Store

	claims   atomic.Int64 // ClaimJob calls that returned
	extends  atomic.Int64 // ExtendLease calls that returned
	retries  atomic.Int64 // RetryJob calls that succeeded
	releases atomic.Int64 // ReleaseJob calls that succeeded

	// extendErr, when set, is returned by ExtendLease instead of calling
	// the store.
	extendErr atomic.Pointer[error]

	mu          sync.Mutex
	retryCalls  []retryCall
	releaseErrs []error
	extendCalls []extendCall
}

type extendCall struct {
	Start, End, Until time.Time
	Err               error
}

type retryCall struct {
	Lease  store.Lease
	RunAt  time.Time
	Reason string
	Err    error
}

func (s *spyStore) ClaimJob(ctx context.Context, p store.ClaimParams) (*store.Job, store.Lease, error) {
	defer s.claims.Add(1)
	return s.Store.ClaimJob(ctx, p)
}

func (s *spyStore) ExtendLease(ctx context.Context, l store.Lease, until time.Time) (err error) {
	start := time.Now()
	defer func() {
		s.mu.Lock()
		s.extendCalls = append(s.extendCalls, extendCall{Start: start, End: time.Now(), Until: until, Err: err})
		s.mu.Unlock()
		s.extends.Add(1)
	}()
	if p := s.extendErr.Load(); p != nil {
		return *p
	}
	return s.Store.ExtendLease(ctx, l, until)
}

// extendLog describes the ExtendLease calls so far, relative to t0.
func (s *spyStore) extendLog(t0 time.Time) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	for _, c := range s.extendCalls {
		fmt.Fprintf(&b, "\n\tExtendLease at +%v (took %v) until +%v: %v", c.Start.Sub(t0).Round(time.Millisecond),
			c.End.Sub(c.Start).Round(time.Millisecond), c.Until.Sub(t0).Round(time.Millisecond), c.Err)
	}
	return b.String()
}

func (s *spyStore) RetryJob(ctx context.Context, l store.Lease, runAt time.Time, reason string) error {
	err := s.Store.RetryJob(ctx, l, runAt, reason)
	s.mu.Lock()
	s.retryCalls = append(s.retryCalls, retryCall{l, runAt, reason, err})
	s.mu.Unlock()
	if err == nil {
		s.retries.Add(1)
	}
	return err
}

func (s *spyStore) ReleaseJob(ctx context.Context, l store.Lease) error {
	err := s.Store.ReleaseJob(ctx, l)
	s.mu.Lock()
	s.releaseErrs = append(s.releaseErrs, err)
	s.mu.Unlock()
	if err == nil {
		s.releases.Add(1)
	}
	return err
}

func (s *spyStore) retryLog() []retryCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]retryCall(nil), s.retryCalls...)
}

// openStore opens a fresh SQLite store in t.TempDir().
func openStore(t *testing.T) *spyStore {
	t.Helper()
	st, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "lectern.db"))
	if err != nil {
		t.Fatalf("sqlite.Open: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	return &spyStore{Store: st}
}

func must(t *testing.T, err error, what string) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

var seq atomic.Int64

// unique returns a short unique lower-case token.
func unique() string {
	return fmt.Sprintf("%d%s", seq.Add(1), strings.ToLower(lectern.NewID("x_")[2:8]))
}

// newProject stores an organization and a project of it with one domain.
func newProject(t *testing.T, st store.Store) *lectern.Project {
	t.Helper()
	o := &lectern.Organization{Name: "Org " + unique(), Plan: lectern.PlanEnterprise}
	must(t, st.CreateOrg(t.Context(), o), "CreateOrg")
	return newProjectOf(t, st, o.ID)
}

// newProjectOf stores a project of organization orgID with one domain.
func newProjectOf(t *testing.T, st store.Store, orgID string) *lectern.Project {
	t.Helper()
	p := &lectern.Project{
		OrgID:          orgID,
		Name:           "Project " + unique(),
		RepoURL:        "https://git.example.com/acme/docs.git",
		Branch:         "main",
		DocsRoot:       "docs",
		Domains:        []string{"docs-" + unique() + ".example.com"},
		DeploymentType: lectern.DeploymentCloud,
	}
	must(t, st.CreateProject(t.Context(), p), "CreateProject")
	return p
}

// newExport queues an export of a fresh domain of p; a zero createdAt lets
// the store stamp it (and makes the job due at once).
func newExport(t *testing.T, st store.Store, p *lectern.Project, createdAt time.Time) *lectern.ExportJob {
	t.Helper()
	e := &lectern.ExportJob{OrgID: p.OrgID, ProjectID: p.ID, Domain: "export-" + unique() + ".example.com",
		BasePath: "/docs", Status: lectern.ExportQueued, CreatedAt: createdAt, UpdatedAt: createdAt}
	must(t, st.CreateExport(t.Context(), e, store.ExportQuota{}), "CreateExport")
	return e
}

func getExport(t *testing.T, st store.Store, id string) *lectern.ExportJob {
	t.Helper()
	e, err := st.GetExport(t.Context(), id)
	must(t, err, "GetExport "+id)
	return e
}

// testBundle is the bundle a fake export handler records.
func testBundle(jobID string) *lectern.Bundle {
	return &lectern.Bundle{Key: blobstore.BundleKey(jobID, 1, "site.tar.gz"), FileName: "site.tar.gz", SizeBytes: 42,
		SHA256: strings.Repeat("ab", 32), Version: "v1-" + jobID}
}

// completeExport finishes the leased export as completed.
func completeExport(ctx context.Context, st store.Store, job *store.Job, lease store.Lease) error {
	return st.FinishExport(ctx, lease, store.ExportResult{Status: lectern.ExportCompleted, PageCount: 3,
		Bundle: testBundle(job.ID), At: time.Now()})
}

// claimID claims the next job of kind from the test and fails unless it is id.
func claimID(t *testing.T, st store.Store, kind, id, owner string, now time.Time, leaseFor time.Duration) (*store.Job, store.Lease) {
	t.Helper()
	j, l, err := st.ClaimJob(t.Context(), store.ClaimParams{Kinds: []string{kind}, Owner: owner, Now: now, LeaseFor: leaseFor})
	must(t, err, "ClaimJob")
	if j == nil {
		t.Fatalf("ClaimJob(%s, now %v) by %s: no job, want %s", kind, now, owner, id)
	}
	if j.ID != id || l.JobID != id || l.Owner != owner {
		t.Fatalf("ClaimJob by %s: job %s lease %+v, want job %s", owner, j.ID, l, id)
	}
	return j, l
}

// claimNone fails the test when the test's ClaimJob gets a job.
func claimNone(t *testing.T, st store.Store, kind string, now time.Time, why string) {
	t.Helper()
	j, _, err := st.ClaimJob(t.Context(), store.ClaimParams{Kinds: []string{kind}, Owner: "prober-" + unique(), Now: now, LeaseFor: time.Millisecond})
	must(t, err, "ClaimJob")
	if j != nil {
		t.Errorf("ClaimJob(%s, now %v) got job %s (attempt %d), want none: %s", kind, now, j.ID, j.Attempt, why)
	}
}

// countJobs returns CountJobs, failing the test on an error.
func countJobs(t *testing.T, st store.Store) map[string]map[string]int {
	t.Helper()
	c, err := st.CountJobs(t.Context())
	must(t, err, "CountJobs")
	return c
}

// wantCounts fails unless CountJobs of kind is exactly want (states not
// listed must be absent or zero).
func wantCounts(t *testing.T, st store.Store, kind string, want map[string]int) {
	t.Helper()
	got := countJobs(t, st)[kind]
	for _, state := range []string{"queued", "running", "done"} {
		if got[state] != want[state] {
			t.Errorf("CountJobs[%s] = %v, want %v", kind, got, want)
			return
		}
	}
}

// waitFor polls cond every few milliseconds until it holds, failing the
// test at once after timeout.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// recv waits for a value on ch, failing the test at once after timeout.
func recv[T any](t *testing.T, ch <-chan T, timeout time.Duration, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(timeout):
		t.Fatalf("timed out after %v waiting for %s", timeout, what)
		panic("unreachable")
	}
}

// runRec is one call of fakeHandler.Run.
type runRec struct {
	N          int // 1-based call number
	Job        store.Job
	Lease      store.Lease
	Start, End time.Time
	Err        error // what Run returned (nil when it panicked)
	CtxErr     error // the job context's error when Run returned
	CtxCause   error
}

// failRec is one call of fakeHandler.Fail.
type failRec struct {
	Job   store.Job
	Lease store.Lease
	Err   error
}

// fakeHandler is a jobs.Handler whose Run does what run says (by default:
// complete the export) and whose Fail records the job as failed in the
// store. It records every call.
type fakeHandler struct {
	st  store.Store
	run func(ctx context.Context, n int, job *store.Job, lease store.Lease) error

	started chan runRec // a record per Run call, sent as it starts
	mu      sync.Mutex
	runs    []runRec
	fails   []failRec
}

var _ jobs.Handler = (*fakeHandler)(nil)

func newFake(st store.Store, run func(ctx context.Context, n int, job *store.Job, lease store.Lease) error) *fakeHandler {
	if run == nil {
		run = func(ctx context.Context, _ int, job *store.Job, lease store.Lease) error {
			return completeExport(ctx, st, job, lease)
		}
	}
	return &fakeHandler{st: st, run: run, started: make(chan runRec, 64)}
}

func (h *fakeHandler) Run(ctx context.Context, job *store.Job, lease store.Lease) (err error) {
	h.mu.Lock()
	rec := runRec{N: len(h.runs) + 1, Job: *job, Lease: lease, Start: time.Now()}
	h.runs = append(h.runs, rec)
	h.mu.Unlock()
	h.started <- rec
	defer func() {
		h.mu.Lock()
		r := &h.runs[rec.N-1]
		r.End, r.Err, r.CtxErr, r.CtxCause = time.Now(), err, ctx.Err(), context.Cause(ctx)
		h.mu.Unlock()
	}()
	return h.run(ctx, rec.N, job, lease)
}

func (h *fakeHandler) Fail(ctx context.Context, job *store.Job, lease store.Lease, err error) error {
	h.mu.Lock()
	h.fails = append(h.fails, failRec{Job: *job, Lease: lease, Err: err})
	h.mu.Unlock()
	if job.Kind == store.KindUpdate {
		return h.st.FinishUpdate(ctx, lease, store.UpdateResult{Status: lectern.UpdateFailure, Summary: err.Error(), EndedAt: time.Now()})
	}
	return h.st.FinishExport(ctx, lease, store.ExportResult{Status: lectern.ExportFailed, At: time.Now(),
		Error: &lectern.JobError{Code: lectern.ErrorCode(err), Message: err.Error()}})
}

func (h *fakeHandler) runLog() []runRec {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]runRec(nil), h.runs...)
}

// waitRuns waits until Run has been called n times and every call has
// returned, and returns the calls.
func (h *fakeHandler) waitRuns(t *testing.T, n int) []runRec {
	t.Helper()
	waitFor(t, 5*time.Second, fmt.Sprintf("%d runs to return", n), func() bool {
		runs := h.runLog()
		return len(runs) == n && !runs[n-1].End.IsZero()
	})
	return h.runLog()
}

func (h *fakeHandler) failLog() []failRec {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]failRec(nil), h.fails...)
}

func (h *fakeHandler) runCount() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.runs)
}

func (h *fakeHandler) failCount() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.fails)
}

// startRunner starts a runner of the handlers (keyed by kind) on st with
// a discarded log; it is stopped when the test ends.
func startRunner(t *testing.T, st store.Store, handlers map[string]jobs.Handler, cfg jobs.Config, m *jobs.Metrics) *jobs.Runner {
	t.Helper()
	if cfg.Owner == "" {
		cfg.Owner = "runner-" + unique()
	}
	r := jobs.NewRunner(discard, st, handlers, cfg, m)
	must(t, r.Start(context.Background()), "Start")
	t.Cleanup(r.Stop)
	return r
}

// exportRunner starts a runner with h as its only (export) handler.
func exportRunner(t *testing.T, st store.Store, h jobs.Handler, cfg jobs.Config, m *jobs.Metrics) *jobs.Runner {
	t.Helper()
	return startRunner(t, st, map[string]jobs.Handler{store.KindExport: h}, cfg, m)
}

// newMetrics returns job metrics on a fresh registry.
func newMetrics(st store.Jobs) (*jobs.Metrics, *prometheus.Registry) {
	reg := prometheus.NewRegistry()
	return jobs.NewMetrics(reg, st), reg
}

func labelsOf(m *dto.Metric) map[string]string {
	out := map[string]string{}
	for _, lp := range m.GetLabel() {
		out[lp.GetName()] = lp.GetValue()
	}
	return out
}

// gather gathers reg and returns its families by name.
func gather(t *testing.T, reg *prometheus.Registry) map[string]*dto.MetricFamily {
	t.Helper()
	fams, err := reg.Gather()
	must(t, err, "Gather")
	out := map[string]*dto.MetricFamily{}
	for _, f := range fams {
		out[f.GetName()] = f
	}
	return out
}

// runsTotal returns lectern_job_runs_total{kind,outcome} (0 when absent).
func runsTotal(t *testing.T, reg *prometheus.Registry, kind, outcome string) float64 {
	t.Helper()
	f := gather(t, reg)["lectern_job_runs_total"]
	for _, m := range f.GetMetric() {
		if l := labelsOf(m); l["kind"] == kind && l["outcome"] == outcome {
			return m.GetCounter().GetValue()
		}
	}
	return 0
}
