package jobs_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/jobs"
	"lectern.dev/lectern/store"
)

func TestRunnerRunsQueuedJobOnce(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	p := newProject(t, st)
	e := newExport(t, st, p, time.Time{})
	h := newFake(st, nil)
	r := exportRunner(t, st, h, jobs.Config{Workers: 2, Poll: 10 * time.Millisecond}, nil)

	rec := recv(t, h.started, 5*time.Second, "the export to run")
	waitFor(t, 5*time.Second, "the export to complete", func() bool {
		return getExport(t, st, e.ID).Status == lectern.ExportCompleted
	})
	// Both workers keep polling; none runs the finished job again.
	polls := st.claims.Load()
	waitFor(t, 5*time.Second, "more polls", func() bool { return st.claims.Load() >= polls+6 })

	if n := h.runCount(); n != 1 {
		t.Errorf("Run called %d times, want 1", n)
	}
	if rec.Job.ID != e.ID || rec.Job.Kind != store.KindExport || rec.Job.Attempt != 1 || rec.Job.MaxAttempts != 3 {
		t.Errorf("Run got job %+v, want export %s at attempt 1 of 3", rec.Job, e.ID)
	}
	if rec.Lease.JobID != e.ID || rec.Lease.Owner != r.Owner() || rec.Lease.Token <= 0 {
		t.Errorf("Run got lease %+v, want one on %s owned by %s", rec.Lease, e.ID, r.Owner())
	}
	if runs := h.waitRuns(t, 1); runs[0].Err != nil || runs[0].CtxErr != nil {
		t.Errorf("Run returned %v with job context error %v, want nil and a live context", runs[0].Err, runs[0].CtxErr)
	}
	got := getExport(t, st, e.ID)
	if got.Progress != 100 || got.CompletedAt == nil || got.Bundle == nil || *got.Bundle != *testBundle(e.ID) {
		t.Errorf("export after the run: %+v (bundle %+v), want completed at 100%% with the handler's bundle", got, got.Bundle)
	}
	wantCounts(t, st, store.KindExport, map[string]int{"done": 1})
	if n := h.failCount(); n != 0 {
		t.Errorf("Fail called %d times, want 0", n)
	}
	if n, m := st.retries.Load(), st.releases.Load(); n != 0 || m != 0 {
		t.Errorf("RetryJob called %d times and ReleaseJob %d, want neither", n, m)
	}
}

func TestRunnerNotifyWakesIdleWorker(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	p := newProject(t, st)
	h := newFake(st, nil)
	const poll = 10 * time.Second
	r := exportRunner(t, st, h, jobs.Config{Workers: 1, Poll: poll}, nil)

	// The worker looks once at start, finds nothing and then idles for Poll.
	waitFor(t, 5*time.Second, "the first poll", func() bool { return st.claims.Load() >= 1 })
	e := newExport(t, st, p, time.Time{})
	t0 := time.Now()
	for range 3 { // Notify never blocks, however often it is called.
		r.Notify()
	}
	rec := recv(t, h.started, 5*time.Second, "the notified worker to run the job (Poll is 10s)")
	if d := rec.Start.Sub(t0); d > 3*time.Second {
		t.Errorf("the job started %v after Notify, want well under the %v poll interval", d, poll)
	}
	if rec.Job.ID != e.ID {
		t.Errorf("ran job %s, want %s", rec.Job.ID, e.ID)
	}
	waitFor(t, 5*time.Second, "the export to complete", func() bool {
		return getExport(t, st, e.ID).Status == lectern.ExportCompleted
	})
	wantCounts(t, st, store.KindExport, map[string]int{"done": 1})
}

func TestRunnerDispatchesByKind(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	p := newProject(t, st)
	e := newExport(t, st, p, time.Time{})
	u := &lectern.Update{ProjectID: p.ID, Source: "api"}
	must(t, st.CreateUpdate(t.Context(), u), "CreateUpdate")

	eh := newFake(st, nil)
	uh := newFake(st, func(ctx context.Context, _ int, job *store.Job, lease store.Lease) error {
		if err := st.StartUpdate(ctx, lease, time.Now()); err != nil {
			return err
		}
		return st.FinishUpdate(ctx, lease, store.UpdateResult{Status: lectern.UpdateSuccess, Summary: "built",
			Commit:     &lectern.Commit{SHA: "abc123", Ref: "main"},
			Deployment: &lectern.Deployment{ProjectID: p.ID, Commit: lectern.Commit{SHA: "abc123", Ref: "main"}, PageCount: 2},
			EndedAt:    time.Now()})
	})
	startRunner(t, st, map[string]jobs.Handler{store.KindExport: eh, store.KindUpdate: uh},
		jobs.Config{Workers: 2, Poll: 10 * time.Millisecond}, nil)

	waitFor(t, 5*time.Second, "both jobs to finish", func() bool {
		c := countJobs(t, st)
		return c[store.KindExport]["done"] == 1 && c[store.KindUpdate]["done"] == 1
	})
	if runs := eh.runLog(); len(runs) != 1 || runs[0].Job.ID != e.ID || runs[0].Job.Kind != store.KindExport {
		t.Errorf("export handler runs %+v, want one of export %s", runs, e.ID)
	}
	runs := uh.runLog()
	if len(runs) != 1 || runs[0].Job.ID != u.ID || runs[0].Job.Kind != store.KindUpdate || runs[0].Job.GroupKey != p.ID {
		t.Fatalf("update handler runs %+v, want one of update %s grouped by project %s", runs, u.ID, p.ID)
	}
	got, err := st.GetUpdate(t.Context(), u.ID)
	must(t, err, "GetUpdate")
	proj, err := st.GetProject(t.Context(), p.ID)
	must(t, err, "GetProject")
	if got.Status != lectern.UpdateSuccess || got.DeploymentID == "" || proj.LiveDeploymentID != got.DeploymentID {
		t.Errorf("update %s status %q deployment %q, project live %q: want success and live", u.ID, got.Status, got.DeploymentID, proj.LiveDeploymentID)
	}
	if got := getExport(t, st, e.ID).Status; got != lectern.ExportCompleted {
		t.Errorf("export status %q, want completed", got)
	}
}

func TestRunnerRetriesRetryableErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		err        error // returned by Run, unless panicValue is set
		panicValue any
		wantReason string
	}{
		{name: "plain error", err: errors.New("disk hiccup"), wantReason: "disk hiccup"},
		{name: "unavailable", err: lectern.Errorf(lectern.EUNAVAILABLE, "The database is busy."), wantReason: "The database is busy."},
		{name: "wrapped internal", err: fmt.Errorf("render: %w", &lectern.Error{Code: lectern.EINTERNAL, Message: "oops"}), wantReason: "render: oops"},
		{name: "panic", panicValue: "kaboom", wantReason: "job panicked: kaboom"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st := openStore(t)
			p := newProject(t, st)
			e := newExport(t, st, p, time.Time{})
			h := newFake(st, func(ctx context.Context, n int, job *store.Job, lease store.Lease) error {
				if n > 1 {
					t.Errorf("Run called again (call %d, attempt %d) before its backoff", n, job.Attempt)
					return completeExport(ctx, st, job, lease)
				}
				if tc.panicValue != nil {
					panic(tc.panicValue)
				}
				return tc.err
			})
			m, reg := newMetrics(st)
			r := exportRunner(t, st, h, jobs.Config{Workers: 1, Poll: 10 * time.Millisecond}, m)

			waitFor(t, 5*time.Second, "the retry to be scheduled", func() bool { return st.retries.Load() == 1 })
			r.Stop()

			runs := h.runLog()
			if len(runs) != 1 {
				t.Fatalf("Run called %d times, want 1", len(runs))
			}
			if n := h.failCount(); n != 0 {
				t.Errorf("Fail called %d times for a retryable error on attempt 1 of 3, want 0", n)
			}
			rc := st.retryLog()
			if len(rc) != 1 || rc[0].Err != nil {
				t.Fatalf("RetryJob calls %+v, want one that succeeded", rc)
			}
			if rc[0].Lease != runs[0].Lease || rc[0].Reason != tc.wantReason {
				t.Errorf("RetryJob(lease %+v, reason %q), want lease %+v and reason %q", rc[0].Lease, rc[0].Reason, runs[0].Lease, tc.wantReason)
			}
			// Attempt 1 backs off 2s.
			if d := rc[0].RunAt.Sub(runs[0].End); d < 2*time.Second || d > 3500*time.Millisecond {
				t.Errorf("retry due %v after the attempt ended, want the 2s backoff of attempt 1", d)
			}
			if got := getExport(t, st, e.ID).Status; got != lectern.ExportQueued {
				t.Errorf("export status %q after a retry was scheduled, want queued", got)
			}
			wantCounts(t, st, store.KindExport, map[string]int{"queued": 1})
			if got := runsTotal(t, reg, store.KindExport, "retried"); got != 1 {
				t.Errorf(`lectern_job_runs_total{kind="export",outcome="retried"} = %v, want 1`, got)
			}
			claimNone(t, st, store.KindExport, runs[0].End.Add(2*time.Second-50*time.Millisecond), "the retry is not due before its backoff")
			j, _ := claimID(t, st, store.KindExport, e.ID, "next-worker", time.Now().Add(3*time.Second), time.Minute)
			if j.Attempt != 2 || j.LastError != tc.wantReason {
				t.Errorf("job after the retry: attempt %d last error %q, want attempt 2 and %q", j.Attempt, j.LastError, tc.wantReason)
			}
		})
	}
}

func TestRunnerRetriesUntilMaxAttemptsThenFails(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	p := newProject(t, st)
	e := newExport(t, st, p, time.Time{})
	errs := []error{
		errors.New("first failure"),
		lectern.Errorf(lectern.EUNAVAILABLE, "second failure"),
		errors.New("third failure"),
	}
	h := newFake(st, func(ctx context.Context, n int, job *store.Job, lease store.Lease) error {
		if n > len(errs) {
			t.Errorf("Run called %d times, want at most %d", n, len(errs))
			return completeExport(ctx, st, job, lease)
		}
		return errs[n-1]
	})
	m, reg := newMetrics(st)
	r := exportRunner(t, st, h, jobs.Config{Workers: 2, Poll: 10 * time.Millisecond}, m)

	// Backoffs are 2s after attempt 1 and 4s after attempt 2.
	waitFor(t, 20*time.Second, "Fail after the third attempt", func() bool { return h.failCount() == 1 })
	waitFor(t, 5*time.Second, "the export to be failed", func() bool {
		return getExport(t, st, e.ID).Status == lectern.ExportFailed
	})

	runs := h.runLog()
	if len(runs) != 3 {
		t.Fatalf("Run called %d times, want 3", len(runs))
	}
	wantLast := []string{"", "first failure", "second failure"}
	for i, rec := range runs {
		if rec.Job.Attempt != i+1 || rec.Job.LastError != wantLast[i] {
			t.Errorf("run %d: attempt %d last error %q, want attempt %d and %q", i+1, rec.Job.Attempt, rec.Job.LastError, i+1, wantLast[i])
		}
	}
	if d := runs[1].Start.Sub(runs[0].End); d < 2*time.Second {
		t.Errorf("attempt 2 started %v after attempt 1 ended, want at least the 2s backoff", d)
	}
	if d := runs[2].Start.Sub(runs[1].End); d < 4*time.Second {
		t.Errorf("attempt 3 started %v after attempt 2 ended, want at least the 4s backoff", d)
	}
	f := h.failLog()[0]
	if !errors.Is(f.Err, errs[2]) || f.Job.ID != e.ID || f.Job.Attempt != 3 || f.Lease != runs[2].Lease {
		t.Errorf("Fail(job %s attempt %d, lease %+v, err %v), want the last error on attempt 3 under lease %+v",
			f.Job.ID, f.Job.Attempt, f.Lease, f.Err, runs[2].Lease)
	}
	if got := getExport(t, st, e.ID); got.Error == nil || got.Error.Message != "third failure" {
		t.Errorf("export error %+v, want the last failure", got.Error)
	}
	r.Stop()
	wantCounts(t, st, store.KindExport, map[string]int{"done": 1})
	if n := st.retries.Load(); n != 2 {
		t.Errorf("RetryJob called %d times, want 2", n)
	}
	if a, b := runsTotal(t, reg, store.KindExport, "retried"), runsTotal(t, reg, store.KindExport, "failed"); a != 2 || b != 1 {
		t.Errorf("runs retried %v failed %v, want 2 and 1", a, b)
	}
}

func TestRunnerFailsNonRetryableErrorAtOnce(t *testing.T) {
	t.Parallel()
	for _, code := range []string{lectern.EINVALID, lectern.ENOTFOUND} {
		t.Run(code, func(t *testing.T) {
			t.Parallel()
			st := openStore(t)
			p := newProject(t, st)
			e := newExport(t, st, p, time.Time{})
			want := lectern.Errorf(code, "the docs root is missing")
			h := newFake(st, func(ctx context.Context, n int, job *store.Job, lease store.Lease) error {
				if n > 1 {
					t.Errorf("Run called again (attempt %d) after a non-retryable error", job.Attempt)
				}
				return fmt.Errorf("build: %w", want)
			})
			r := exportRunner(t, st, h, jobs.Config{Workers: 1, Poll: 10 * time.Millisecond}, nil)

			waitFor(t, 5*time.Second, "the export to be failed", func() bool {
				return getExport(t, st, e.ID).Status == lectern.ExportFailed
			})
			r.Stop()
			runs, fails := h.runLog(), h.failLog()
			if len(runs) != 1 || len(fails) != 1 {
				t.Fatalf("Run called %d times and Fail %d, want once each", len(runs), len(fails))
			}
			if !errors.Is(fails[0].Err, want) || fails[0].Job.Attempt != 1 || fails[0].Lease != runs[0].Lease {
				t.Errorf("Fail(attempt %d, lease %+v, err %v), want attempt 1 under the run's lease with %v",
					fails[0].Job.Attempt, fails[0].Lease, fails[0].Err, want)
			}
			if n := len(st.retryLog()); n != 0 {
				t.Errorf("RetryJob called %d times, want 0", n)
			}
			if got := getExport(t, st, e.ID); got.Error == nil || got.Error.Code != code {
				t.Errorf("export error %+v, want code %s", got.Error, code)
			}
			wantCounts(t, st, store.KindExport, map[string]int{"done": 1})
		})
	}
}

func TestRunnerSurvivesPanics(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	p := newProject(t, st)
	e := newExport(t, st, p, time.Now().Add(-time.Minute))
	// Two earlier attempts failed and were retried: the runner's is the last.
	for i := 1; i <= 2; i++ {
		j, l := claimID(t, st, store.KindExport, e.ID, fmt.Sprintf("earlier-%d", i), time.Now(), time.Minute)
		if j.Attempt != i {
			t.Fatalf("test claim %d: attempt %d", i, j.Attempt)
		}
		must(t, st.Store.RetryJob(t.Context(), l, time.Now(), fmt.Sprintf("failure %d", i)), "RetryJob")
	}
	h := newFake(st, func(ctx context.Context, _ int, job *store.Job, lease store.Lease) error {
		if job.ID == e.ID {
			panic(fmt.Sprintf("nil map in %s", job.ID))
		}
		return completeExport(ctx, st, job, lease)
	})
	m, reg := newMetrics(st)
	exportRunner(t, st, h, jobs.Config{Workers: 1, Poll: 10 * time.Millisecond}, m)

	waitFor(t, 5*time.Second, "the panicking export to be failed", func() bool {
		return getExport(t, st, e.ID).Status == lectern.ExportFailed
	})
	fails := h.failLog()
	if len(fails) != 1 {
		t.Fatalf("Fail called %d times, want 1", len(fails))
	}
	if f := fails[0]; f.Job.Attempt != 3 || lectern.ErrorCode(f.Err) != lectern.EINTERNAL ||
		!strings.Contains(f.Err.Error(), "panicked") || !strings.Contains(f.Err.Error(), "nil map in "+e.ID) {
		t.Errorf("Fail(attempt %d, err %v), want the panic as an internal error on attempt 3", f.Job.Attempt, f.Err)
	}
	if n := len(st.retryLog()); n != 0 {
		t.Errorf("RetryJob called %d times on the last attempt, want 0", n)
	}

	// The runner is still alive: it runs the next job.
	next := newExport(t, st, p, time.Time{})
	waitFor(t, 5*time.Second, "the next export to complete", func() bool {
		return getExport(t, st, next.ID).Status == lectern.ExportCompleted
	})
	waitFor(t, 5*time.Second, "a failed and a done run to be counted", func() bool {
		return runsTotal(t, reg, store.KindExport, "failed") == 1 && runsTotal(t, reg, store.KindExport, "done") == 1
	})
}

func TestRunnerLeaseLostCancelsJob(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	p := newProject(t, st)
	e := newExport(t, st, p, time.Time{})
	h := newFake(st, func(ctx context.Context, _ int, _ *store.Job, _ store.Lease) error {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Second):
			return errors.New("job context not canceled")
		}
	})
	m, reg := newMetrics(st)
	exportRunner(t, st, h, jobs.Config{Workers: 1, Poll: 10 * time.Millisecond, LeaseFor: 600 * time.Millisecond}, m)

	rec := recv(t, h.started, 5*time.Second, "the export to run")
	// Another worker takes the job over, as if the runner's lease had expired.
	thiefJob, thiefLease := claimID(t, st, store.KindExport, e.ID, "thief", time.Now().Add(time.Hour), time.Hour)
	stolen := time.Now()
	if thiefJob.Attempt != 2 || thiefLease.Token <= rec.Lease.Token {
		t.Errorf("takeover: attempt %d token %d, want attempt 2 and a token above %d", thiefJob.Attempt, thiefLease.Token, rec.Lease.Token)
	}

	waitFor(t, 5*time.Second, "the run to end as lease_lost", func() bool {
		return runsTotal(t, reg, store.KindExport, "lease_lost") == 1
	})
	runs := h.runLog()
	if len(runs) != 1 {
		t.Fatalf("Run called %d times, want 1", len(runs))
	}
	if !errors.Is(runs[0].CtxErr, context.Canceled) {
		t.Errorf("job context error %v when Run returned, want context.Canceled", runs[0].CtxErr)
	}
	// The heartbeat runs every LeaseFor/3 = 200ms.
	if d := runs[0].End.Sub(stolen); d > 2*time.Second {
		t.Errorf("job canceled %v after the takeover, want within a heartbeat or two", d)
	}
	if n := h.failCount(); n != 0 {
		t.Errorf("Fail called %d times after a lost lease, want 0", n)
	}
	if n, m := len(st.retryLog()), st.releases.Load(); n != 0 || m != 0 {
		t.Errorf("RetryJob called %d times and ReleaseJob %d after a lost lease, want neither", n, m)
	}
	for _, outcome := range []string{"done", "failed", "retried", "released"} {
		if v := runsTotal(t, reg, store.KindExport, outcome); v != 0 {
			t.Errorf("runs %s = %v, want 0", outcome, v)
		}
	}
	// The thief still holds the job and can finish it.
	wantCounts(t, st, store.KindExport, map[string]int{"running": 1})
	must(t, st.ExtendLease(t.Context(), thiefLease, time.Now().Add(2*time.Hour)), "thief's ExtendLease")
	must(t, completeExport(t.Context(), st, thiefJob, thiefLease), "thief's FinishExport")
	if got := getExport(t, st, e.ID).Status; got != lectern.ExportCompleted {
		t.Errorf("export status %q after the thief finished it, want completed", got)
	}
	if n := h.runCount(); n != 1 {
		t.Errorf("Run called %d times, want 1", n)
	}
}

func TestRunnerHeartbeatKeepsLease(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	p := newProject(t, st)
	e := newExport(t, st, p, time.Time{})
	finish := make(chan struct{})
	h := newFake(st, func(ctx context.Context, _ int, job *store.Job, lease store.Lease) error {
		select {
		case <-finish:
		case <-ctx.Done():
			return ctx.Err()
		}
		return completeExport(ctx, st, job, lease)
	})
	// The heartbeat extends the lease every LeaseFor/3; a lease this long
	// leaves it slack for a slow disk.
	const leaseFor = 1200 * time.Millisecond
	exportRunner(t, st, h, jobs.Config{Workers: 1, Poll: 10 * time.Millisecond, LeaseFor: leaseFor}, nil)

	rec := recv(t, h.started, 5*time.Second, "the export to run")
	// Well past the first lease, nobody else may claim the job.
	for end := rec.Start.Add(2 * leaseFor); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		claimNone(t, st, store.KindExport, time.Now(), "the heartbeat keeps the lease alive")
		if t.Failed() {
			t.Fatalf("heartbeats since the run started:%s", st.extendLog(rec.Start))
		}
	}
	if n := st.extends.Load(); n < 4 {
		t.Errorf("ExtendLease called %d times in %v with LeaseFor %v, want at least 4:%s", n, 2*leaseFor, leaseFor, st.extendLog(rec.Start))
	}
	close(finish)
	waitFor(t, 5*time.Second, "the export to complete", func() bool {
		return getExport(t, st, e.ID).Status == lectern.ExportCompleted
	})
	if runs := h.waitRuns(t, 1); runs[0].Err != nil || runs[0].CtxErr != nil {
		t.Errorf("runs %+v, want one that succeeded with a live context", runs)
	}
}

func TestRunnerHeartbeatTransientErrorKeepsRunning(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	p := newProject(t, st)
	e := newExport(t, st, p, time.Time{})
	busy := error(lectern.Errorf(lectern.EUNAVAILABLE, "The database is busy; try again."))
	st.extendErr.Store(&busy)
	h := newFake(st, func(ctx context.Context, _ int, job *store.Job, lease store.Lease) error {
		for st.extends.Load() < 3 {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(5 * time.Millisecond):
			}
		}
		return completeExport(ctx, st, job, lease)
	})
	m, reg := newMetrics(st)
	exportRunner(t, st, h, jobs.Config{Workers: 1, Poll: 10 * time.Millisecond, LeaseFor: 300 * time.Millisecond}, m)

	waitFor(t, 5*time.Second, "the run to end", func() bool { return runsTotal(t, reg, store.KindExport, "done") == 1 })
	if runs := h.runLog(); len(runs) != 1 || runs[0].Err != nil || runs[0].CtxErr != nil {
		t.Errorf("runs %+v, want one that succeeded: a failing heartbeat that is not a lost lease must not cancel the job", runs)
	}
	if got := getExport(t, st, e.ID).Status; got != lectern.ExportCompleted {
		t.Errorf("export status %q, want completed", got)
	}
}

func TestRunnerStopGivesBackRunningJob(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	p := newProject(t, st)
	e := newExport(t, st, p, time.Time{})
	progressed := make(chan struct{})
	h := newFake(st, func(ctx context.Context, _ int, _ *store.Job, lease store.Lease) error {
		if err := st.SetExportProgress(ctx, lease, 10, 1, time.Now()); err != nil {
			return err
		}
		close(progressed)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(15 * time.Second):
			return errors.New("job context not canceled")
		}
	})
	m, reg := newMetrics(st)
	const drain = 200 * time.Millisecond
	r := exportRunner(t, st, h, jobs.Config{Workers: 1, Poll: 10 * time.Millisecond, DrainTimeout: drain}, m)

	rec := recv(t, h.started, 5*time.Second, "the export to run")
	recv(t, progressed, 5*time.Second, "the export to report progress")
	if got := getExport(t, st, e.ID).Status; got != lectern.ExportRunning {
		t.Fatalf("export status %q while running, want running", got)
	}
	t0 := time.Now()
	stopped := make(chan struct{})
	go func() { r.Stop(); close(stopped) }()
	recv(t, stopped, 10*time.Second, "Stop to cancel the job after the drain timeout")
	took := time.Since(t0)
	if took < drain || took > 5*time.Second {
		t.Errorf("Stop took %v, want the %v drain timeout and then a prompt cancel", took, drain)
	}
	runs := h.runLog()
	if len(runs) != 1 || !errors.Is(runs[0].CtxErr, context.Canceled) || runs[0].End.Before(t0.Add(drain)) {
		t.Fatalf("runs %+v, want one canceled after the drain timeout", runs)
	}
	if n := st.releases.Load(); n != 1 {
		t.Errorf("ReleaseJob succeeded %d times, want 1", n)
	}
	if n, m := len(st.retryLog()), h.failCount(); n != 0 || m != 0 {
		t.Errorf("RetryJob called %d times and Fail %d on Stop, want neither", n, m)
	}
	if got := getExport(t, st, e.ID).Status; got != lectern.ExportQueued {
		t.Errorf("export status %q after Stop, want queued", got)
	}
	wantCounts(t, st, store.KindExport, map[string]int{"queued": 1})
	if got := runsTotal(t, reg, store.KindExport, "released"); got != 1 {
		t.Errorf(`runs released = %v, want 1`, got)
	}

	// Stop is idempotent: a second call returns at once.
	again := make(chan struct{})
	go func() { r.Stop(); close(again) }()
	recv(t, again, 2*time.Second, "the second Stop to return")

	// The stopped attempt was not counted: the next claim is attempt 1 again.
	j, _ := claimID(t, st, store.KindExport, e.ID, "next-worker", time.Now(), time.Minute)
	if j.Attempt != rec.Job.Attempt {
		t.Errorf("attempt after the job was given back: %d, want %d as before", j.Attempt, rec.Job.Attempt)
	}
	if n := h.runCount(); n != 1 {
		t.Errorf("Run called %d times, want 1", n)
	}
}

func TestRunnerStopWaitsForRunningJob(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	p := newProject(t, st)
	first := newExport(t, st, p, time.Now().Add(-2*time.Second))
	second := newExport(t, st, p, time.Now().Add(-time.Second))
	proceed := make(chan struct{})
	h := newFake(st, func(ctx context.Context, n int, job *store.Job, lease store.Lease) error {
		if n > 1 {
			t.Errorf("Run called for %s after Stop", job.ID)
		}
		select {
		case <-proceed:
		case <-ctx.Done():
			return ctx.Err()
		}
		return completeExport(ctx, st, job, lease)
	})
	r := exportRunner(t, st, h, jobs.Config{Workers: 1, Poll: 10 * time.Millisecond, DrainTimeout: 10 * time.Second}, nil)

	rec := recv(t, h.started, 5*time.Second, "the first export to run")
	if rec.Job.ID != first.ID {
		t.Fatalf("ran %s first, want the older %s", rec.Job.ID, first.ID)
	}
	stopped := make(chan struct{})
	go func() { r.Stop(); close(stopped) }()
	select {
	case <-stopped:
		t.Fatal("Stop returned while a job was still running within the drain timeout")
	case <-time.After(100 * time.Millisecond):
	}
	close(proceed)
	recv(t, stopped, 5*time.Second, "Stop to return once the job finished")

	if got := getExport(t, st, first.ID).Status; got != lectern.ExportCompleted {
		t.Errorf("drained export status %q, want completed", got)
	}
	if runs := h.runLog(); len(runs) != 1 || runs[0].Err != nil || runs[0].CtxErr != nil {
		t.Errorf("runs %+v, want one that finished with a live context", runs)
	}
	if got := getExport(t, st, second.ID).Status; got != lectern.ExportQueued {
		t.Errorf("export queued behind it: status %q, want still queued (a stopping runner claims no more)", got)
	}
	wantCounts(t, st, store.KindExport, map[string]int{"done": 1, "queued": 1})
	if n := st.releases.Load(); n != 0 {
		t.Errorf("ReleaseJob called %d times, want 0", n)
	}
}

func TestRunnerCanceledStartContextStopsJobs(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	p := newProject(t, st)
	e := newExport(t, st, p, time.Time{})
	h := newFake(st, func(ctx context.Context, _ int, _ *store.Job, _ store.Lease) error {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(15 * time.Second):
			return errors.New("job context not canceled")
		}
	})
	const leaseFor = time.Second
	r := jobs.NewRunner(discard, st, map[string]jobs.Handler{store.KindExport: h},
		jobs.Config{Workers: 2, Poll: 10 * time.Millisecond, LeaseFor: leaseFor, DrainTimeout: time.Minute}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	must(t, r.Start(ctx), "Start")
	t.Cleanup(r.Stop)
	recv(t, h.started, 5*time.Second, "the export to run")
	cancel()
	waitFor(t, 5*time.Second, "the job context to end", func() bool {
		runs := h.runLog()
		return len(runs) == 1 && !runs[0].End.IsZero()
	})
	if runs := h.runLog(); !errors.Is(runs[0].CtxErr, context.Canceled) {
		t.Errorf("job context error %v, want context.Canceled", runs[0].CtxErr)
	}
	// The workers are gone: Stop does not wait for the minute-long drain.
	stopped := make(chan struct{})
	go func() { r.Stop(); close(stopped) }()
	recv(t, stopped, 5*time.Second, "Stop after the start context ended")
	if n, m := len(st.retryLog()), h.failCount(); n != 0 || m != 0 {
		t.Errorf("RetryJob called %d times and Fail %d, want neither", n, m)
	}
	// The job is not lost: another worker gets it once its lease expires at
	// the latest.
	claimID(t, st, store.KindExport, e.ID, "next-worker", time.Now().Add(leaseFor+time.Second), time.Minute)
}

func TestRunnerGivesUpJobThatCrashedEveryAttempt(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	p := newProject(t, st)
	e := newExport(t, st, p, time.Now().Add(-time.Minute))
	// Attempt 1 fails and is retried; attempts 2 and 3 crash their workers,
	// whose leases expire.
	_, l := claimID(t, st, store.KindExport, e.ID, "worker-1", time.Now().Add(-50*time.Second), time.Second)
	must(t, st.Store.RetryJob(t.Context(), l, time.Now().Add(-45*time.Second), "first crash"), "RetryJob")
	for i, at := range []time.Duration{-40 * time.Second, -30 * time.Second} {
		j, _ := claimID(t, st, store.KindExport, e.ID, fmt.Sprintf("worker-%d", i+2), time.Now().Add(at), time.Second)
		if j.Attempt != i+2 {
			t.Fatalf("test claim %d: attempt %d", i+2, j.Attempt)
		}
	}
	h := newFake(st, func(ctx context.Context, _ int, job *store.Job, _ store.Lease) error {
		t.Errorf("Run called for %s at attempt %d of %d", job.ID, job.Attempt, job.MaxAttempts)
		return nil
	})
	m, reg := newMetrics(st)
	r := exportRunner(t, st, h, jobs.Config{Workers: 1, Poll: 10 * time.Millisecond}, m)

	waitFor(t, 5*time.Second, "the export to be failed", func() bool {
		return getExport(t, st, e.ID).Status == lectern.ExportFailed
	})
	fails := h.failLog()
	if len(fails) != 1 {
		t.Fatalf("Fail called %d times, want 1", len(fails))
	}
	f := fails[0]
	if lectern.ErrorCode(f.Err) != lectern.EINTERNAL || !strings.Contains(f.Err.Error(), "3 attempts") || !strings.Contains(f.Err.Error(), "first crash") {
		t.Errorf("Fail error %v, want an internal error naming the 3 attempts and the last recorded error", f.Err)
	}
	if f.Job.ID != e.ID || f.Job.Attempt != 3 || f.Lease.Owner != r.Owner() {
		t.Errorf("Fail(job %s attempt %d lease %+v), want %s at its last attempt 3 under the runner's lease", f.Job.ID, f.Job.Attempt, f.Lease, e.ID)
	}
	if n := h.runCount(); n != 0 {
		t.Errorf("Run called %d times, want 0", n)
	}
	if n := len(st.retryLog()); n != 0 {
		t.Errorf("RetryJob called %d times, want 0", n)
	}
	wantCounts(t, st, store.KindExport, map[string]int{"done": 1})
	waitFor(t, 5*time.Second, "the failed run to be counted", func() bool {
		return runsTotal(t, reg, store.KindExport, "failed") == 1
	})
}

func TestRunnerMetrics(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	p := newProject(t, st)
	good := newExport(t, st, p, time.Now().Add(-2*time.Second))
	bad := newExport(t, st, p, time.Now().Add(-time.Second))
	// An update no handler of this runner takes: it stays queued.
	u := &lectern.Update{ProjectID: p.ID, Source: "api"}
	must(t, st.CreateUpdate(t.Context(), u), "CreateUpdate")

	h := newFake(st, func(ctx context.Context, _ int, job *store.Job, lease store.Lease) error {
		if job.ID == bad.ID {
			return lectern.Errorf(lectern.EINVALID, "bad docs")
		}
		return completeExport(ctx, st, job, lease)
	})
	m, reg := newMetrics(st)
	exportRunner(t, st, h, jobs.Config{Workers: 1, Poll: 10 * time.Millisecond}, m)

	waitFor(t, 5*time.Second, "a done and a failed run", func() bool {
		return runsTotal(t, reg, store.KindExport, "done") == 1 && runsTotal(t, reg, store.KindExport, "failed") == 1
	})
	if got := getExport(t, st, good.ID).Status; got != lectern.ExportCompleted {
		t.Errorf("good export %q, want completed", got)
	}
	if got := getExport(t, st, bad.ID).Status; got != lectern.ExportFailed {
		t.Errorf("bad export %q, want failed", got)
	}

	fams := gather(t, reg)
	var total float64
	for _, mt := range fams["lectern_job_runs_total"].GetMetric() {
		total += mt.GetCounter().GetValue()
	}
	if total != 2 {
		t.Errorf("lectern_job_runs_total sums to %v over all labels, want 2", total)
	}
	hist := map[string]uint64{}
	for _, mt := range fams["lectern_job_duration_seconds"].GetMetric() {
		l := labelsOf(mt)
		hist[l["kind"]+"/"+l["outcome"]] = mt.GetHistogram().GetSampleCount()
	}
	if len(hist) != 2 || hist["export/done"] != 1 || hist["export/failed"] != 1 {
		t.Errorf("lectern_job_duration_seconds sample counts %v, want export/done 1 and export/failed 1", hist)
	}

	gauges := map[string]map[string]int{}
	for _, mt := range fams["lectern_jobs"].GetMetric() {
		l := labelsOf(mt)
		if gauges[l["kind"]] == nil {
			gauges[l["kind"]] = map[string]int{}
		}
		gauges[l["kind"]][l["state"]] = int(mt.GetGauge().GetValue())
	}
	// Every known kind and state is reported, 0 when empty; the others
	// equal CountJobs.
	counts := countJobs(t, st)
	for _, kind := range []string{store.KindUpdate, store.KindExport} {
		for _, state := range []string{"queued", "running", "done"} {
			if got, want := gauges[kind][state], counts[kind][state]; got != want {
				t.Errorf("lectern_jobs{kind=%q,state=%q} = %d, want %d (CountJobs %v)", kind, state, got, want, counts)
			}
			if _, ok := gauges[kind][state]; !ok {
				t.Errorf("lectern_jobs{kind=%q,state=%q} missing; empty states must read 0", kind, state)
			}
		}
	}
	if gauges[store.KindExport]["done"] != 2 || gauges[store.KindUpdate]["queued"] != 1 {
		t.Errorf("lectern_jobs gauges %v, want export done 2 and update queued 1", gauges)
	}
}

// A handler often learns first that its lease is gone: a fenced write (an
// export's progress or its FinishExport) returns ECONFLICT before the next
// heartbeat. The job is then another worker's, as when the heartbeat finds
// out, so the runner must not call Fail (with a lease it no longer holds)
// nor count and log the run as failed.
func TestRunnerLeaseLostSeenByHandlerIsNotFailed(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	p := newProject(t, st)
	e := newExport(t, st, p, time.Time{})
	stolen := make(chan struct{})
	h := newFake(st, func(ctx context.Context, _ int, job *store.Job, lease store.Lease) error {
		select {
		case <-stolen:
		case <-ctx.Done():
			return ctx.Err()
		}
		return completeExport(ctx, st, job, lease) // ECONFLICT: the lease is gone
	})
	m, reg := newMetrics(st)
	// A long lease: no heartbeat runs during the test.
	exportRunner(t, st, h, jobs.Config{Workers: 1, Poll: 10 * time.Millisecond, LeaseFor: 30 * time.Second}, m)

	recv(t, h.started, 5*time.Second, "the export to run")
	thiefJob, thiefLease := claimID(t, st, store.KindExport, e.ID, "thief", time.Now().Add(time.Hour), time.Hour)
	close(stolen)
	waitFor(t, 5*time.Second, "the run to end", func() bool {
		var n float64
		for _, mt := range gather(t, reg)["lectern_job_runs_total"].GetMetric() {
			n += mt.GetCounter().GetValue()
		}
		return n == 1
	})
	if runs := h.runLog(); len(runs) != 1 || lectern.ErrorCode(runs[0].Err) != lectern.ECONFLICT {
		t.Fatalf("runs %+v, want one that ended with the fenced write's conflict", runs)
	}
	if fails := h.failLog(); len(fails) != 0 {
		t.Errorf("Fail called %d times (err %v) for a job another worker holds, want 0", len(fails), fails[0].Err)
	}
	if a, b := runsTotal(t, reg, store.KindExport, "lease_lost"), runsTotal(t, reg, store.KindExport, "failed"); a != 1 || b != 0 {
		t.Errorf("runs lease_lost %v failed %v, want 1 and 0", a, b)
	}
	if n := len(st.retryLog()); n != 0 {
		t.Errorf("RetryJob called %d times, want 0", n)
	}
	// Fencing kept the store right either way: the thief finishes the job.
	wantCounts(t, st, store.KindExport, map[string]int{"running": 1})
	must(t, completeExport(t.Context(), st, thiefJob, thiefLease), "thief's FinishExport")
	if got := getExport(t, st, e.ID).Status; got != lectern.ExportCompleted {
		t.Errorf("export status %q, want completed by the thief", got)
	}
}
