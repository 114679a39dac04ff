package storetest

import (
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

var leaseCases = []testCase{
	{"ExpiredLeaseIsTakenOver", testLeaseTakeover},
	{"StaleUpdateLeaseIsFenced", testLeaseFenceUpdate},
	{"StaleExportLeaseIsFenced", testLeaseFenceExport},
	{"ExtendLease", testLeaseExtend},
	{"RetryJob", testRetryJob},
	{"ReleaseJob", testReleaseJob},
}

func testLeaseTakeover(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	p := newProject(t, s, org.ID)
	u := newUpdate(t, s, p)
	t0 := now()
	ja, la := mustClaimID(t, s, store.KindUpdate, "worker-a", u.ID, t0, time.Minute)
	if ja.Attempt != 1 {
		t.Errorf("first claim attempt %d, want 1", ja.Attempt)
	}
	claimNone(t, s, store.KindUpdate, "worker-b", t0.Add(30*time.Second), "the lease is still live")
	jb, lb := mustClaimID(t, s, store.KindUpdate, "worker-b", u.ID, t0.Add(2*time.Minute), time.Minute)
	if jb.Attempt != 2 {
		t.Errorf("attempt after takeover = %d, want 2", jb.Attempt)
	}
	if lb.Token <= la.Token {
		t.Errorf("token after takeover = %d, want greater than the old %d", lb.Token, la.Token)
	}
	if lb.Owner != "worker-b" {
		t.Errorf("new lease owner %q, want worker-b", lb.Owner)
	}
	// The new owner's lease is live: nobody else gets the job.
	claimNone(t, s, store.KindUpdate, "worker-c", t0.Add(150*time.Second), "the new lease is live")
	// The same owner name claiming again is still a new claim with a new token.
	jc, lc := mustClaimID(t, s, store.KindUpdate, "worker-b", u.ID, t0.Add(10*time.Minute), time.Minute)
	if jc.Attempt != 3 || lc.Token <= lb.Token {
		t.Errorf("third claim attempt %d token %d, want attempt 3 and token > %d", jc.Attempt, lc.Token, lb.Token)
	}
	// The newest lease works.
	must(t, s.StartUpdate(t.Context(), lc, t0.Add(10*time.Minute)), "StartUpdate(current lease)")
	// A stale lease with the same owner name is still refused.
	err := s.StartUpdate(t.Context(), lb, t0.Add(10*time.Minute))
	wantCode(t, err, lectern.ECONFLICT, "StartUpdate(stale lease of the same owner)")
}

func testLeaseFenceUpdate(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	p := newProject(t, s, org.ID)
	u := newUpdate(t, s, p)
	t0 := now()
	_, stale := mustClaimID(t, s, store.KindUpdate, "worker-a", u.ID, t0, time.Minute)
	_, cur := mustClaimID(t, s, store.KindUpdate, "worker-b", u.ID, t0.Add(2*time.Minute), time.Minute)
	// cur expires at t0+3m.

	err := s.ExtendLease(t.Context(), stale, t0.Add(time.Hour))
	wantCode(t, err, lectern.ECONFLICT, "ExtendLease(stale)")
	err = s.StartUpdate(t.Context(), stale, t0.Add(2*time.Minute))
	wantCode(t, err, lectern.ECONFLICT, "StartUpdate(stale)")
	if got := mustGet(t, s.GetUpdate, u.ID); got.Status != lectern.UpdateQueued || got.StartedAt != nil {
		t.Errorf("after a refused StartUpdate: status %q startedAt %v, want queued and unstarted", got.Status, got.StartedAt)
	}

	dep := &lectern.Deployment{ID: lectern.NewID(lectern.PrefixDeployment), ProjectID: p.ID, UpdateID: u.ID, PageCount: 1, CreatedAt: t0}
	err = s.FinishUpdate(t.Context(), stale, store.UpdateResult{Status: lectern.UpdateSuccess, Summary: "stale", Logs: []string{"x"}, Deployment: dep, EndedAt: t0})
	wantCode(t, err, lectern.ECONFLICT, "FinishUpdate(stale)")
	got := mustGet(t, s.GetUpdate, u.ID)
	if got.Status != lectern.UpdateQueued || got.EndedAt != nil || got.Summary != "" || len(got.Logs) != 0 {
		t.Errorf("after a refused FinishUpdate: update %+v, want unchanged", got)
	}
	_, err = s.GetDeployment(t.Context(), dep.ID)
	wantCode(t, err, lectern.ENOTFOUND, "GetDeployment after a refused FinishUpdate")
	if live := mustGet(t, s.GetProject, p.ID).LiveDeploymentID; live != "" {
		t.Errorf("LiveDeploymentID after a refused FinishUpdate = %q, want empty", live)
	}

	err = s.RetryJob(t.Context(), stale, t0.Add(2*time.Minute), "stale retry")
	wantCode(t, err, lectern.ECONFLICT, "RetryJob(stale)")
	// ReleaseJob names no error code, but a stale lease must not release
	// another worker's job: checked below.
	_ = s.ReleaseJob(t.Context(), stale)
	// None of the refused calls freed or changed the current claim.
	claimNone(t, s, store.KindUpdate, "worker-c", t0.Add(150*time.Second), "the current lease is live; stale Retry/Release must not free it")

	// The stale ExtendLease did not extend anything: the current lease
	// expires at t0+3m as claimed.
	jc, _ := mustClaimID(t, s, store.KindUpdate, "worker-c", u.ID, t0.Add(4*time.Minute), time.Minute)
	if jc.Attempt != 3 {
		t.Errorf("attempt after the second takeover = %d, want 3", jc.Attempt)
	}
	if jc.LastError != "" {
		t.Errorf("LastError = %q after a refused RetryJob, want empty", jc.LastError)
	}
	// cur is stale now too.
	err = s.FinishUpdate(t.Context(), cur, store.UpdateResult{Status: lectern.UpdateFailure, EndedAt: t0})
	wantCode(t, err, lectern.ECONFLICT, "FinishUpdate(lease taken over)")
	if got := mustGet(t, s.GetUpdate, u.ID); got.Status.Terminal() {
		t.Errorf("update status %q after a refused FinishUpdate, want not terminal", got.Status)
	}
}

func testLeaseFenceExport(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	p := newProject(t, s, org.ID)
	e := newExport(t, s, p, p.Domains[0], time.Time{})
	t0 := now()
	_, stale := mustClaimID(t, s, store.KindExport, "worker-a", e.ID, t0, time.Minute)
	must(t, s.SetExportProgress(t.Context(), stale, 10, 3, t0), "SetExportProgress")
	_, cur := mustClaimID(t, s, store.KindExport, "worker-b", e.ID, t0.Add(2*time.Minute), time.Minute)

	err := s.SetExportProgress(t.Context(), stale, 90, 40, t0.Add(2*time.Minute))
	wantCode(t, err, lectern.ECONFLICT, "SetExportProgress(stale)")
	if got := mustGet(t, s.GetExport, e.ID); got.Progress != 10 || got.PageCount != 3 {
		t.Errorf("after a refused SetExportProgress: progress %d pageCount %d, want 10 and 3", got.Progress, got.PageCount)
	}

	bundle := &lectern.Bundle{Key: "exports/x.tar.gz", FileName: "x.tar.gz", SizeBytes: 10, SHA256: "ab", Version: "1"}
	err = s.FinishExport(t.Context(), stale, store.ExportResult{Status: lectern.ExportCompleted, PageCount: 40, Bundle: bundle, At: t0.Add(2 * time.Minute)})
	wantCode(t, err, lectern.ECONFLICT, "FinishExport(stale, completed)")
	err = s.FinishExport(t.Context(), stale, store.ExportResult{Status: lectern.ExportFailed, Error: &lectern.JobError{Code: "x", Message: "y"}, At: t0.Add(2 * time.Minute)})
	wantCode(t, err, lectern.ECONFLICT, "FinishExport(stale, failed)")
	got := mustGet(t, s.GetExport, e.ID)
	if got.Status.Terminal() || got.Bundle != nil || got.Error != nil || got.CompletedAt != nil || got.Progress != 10 {
		t.Errorf("after a refused FinishExport: export %+v, want unfinished at progress 10", got)
	}
	// The export is still in progress: a new one of its domain is refused.
	err = s.CreateExport(t.Context(), &lectern.ExportJob{OrgID: org.ID, ProjectID: p.ID, Domain: e.Domain, Status: lectern.ExportQueued}, store.ExportQuota{})
	wantCode(t, err, lectern.EEXPORTINPROGRESS, "CreateExport while the export is running")

	err = s.RetryJob(t.Context(), stale, t0, "stale")
	wantCode(t, err, lectern.ECONFLICT, "RetryJob(stale)")
	claimNone(t, s, store.KindExport, "worker-c", t0.Add(150*time.Second), "the current lease is live")

	// The current lease still works.
	must(t, s.SetExportProgress(t.Context(), cur, 60, 20, t0.Add(2*time.Minute)), "SetExportProgress(current)")
	must(t, s.FinishExport(t.Context(), cur, store.ExportResult{Status: lectern.ExportCompleted, PageCount: 20, Bundle: bundle, At: t0.Add(150 * time.Second)}), "FinishExport(current)")
	if got := mustGet(t, s.GetExport, e.ID); got.Status != lectern.ExportCompleted {
		t.Errorf("export status %q after FinishExport, want completed", got.Status)
	}
	// Once finished, even the lease that finished it is refused.
	err = s.SetExportProgress(t.Context(), cur, 70, 30, t0.Add(150*time.Second))
	if got := mustGet(t, s.GetExport, e.ID); got.Status != lectern.ExportCompleted || got.Progress != 100 {
		t.Errorf("SetExportProgress after finishing (err %v) changed the export to status %q progress %d", err, got.Status, got.Progress)
	}
}

func testLeaseExtend(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	p := newProject(t, s, org.ID)
	u := newUpdate(t, s, p)
	t0 := now()
	_, l := mustClaimID(t, s, store.KindUpdate, "worker-a", u.ID, t0, time.Minute)
	must(t, s.ExtendLease(t.Context(), l, t0.Add(10*time.Minute)), "ExtendLease")
	claimNone(t, s, store.KindUpdate, "worker-b", t0.Add(5*time.Minute), "the lease was extended past its first expiry")
	// The extended lease is still the current one.
	must(t, s.StartUpdate(t.Context(), l, t0.Add(5*time.Minute)), "StartUpdate after ExtendLease")
	must(t, s.ExtendLease(t.Context(), l, t0.Add(20*time.Minute)), "ExtendLease again")
	claimNone(t, s, store.KindUpdate, "worker-b", t0.Add(15*time.Minute), "the lease was extended twice")
	j, _ := mustClaimID(t, s, store.KindUpdate, "worker-b", u.ID, t0.Add(21*time.Minute), time.Minute)
	if j.Attempt != 2 {
		t.Errorf("attempt after the extended lease expired = %d, want 2", j.Attempt)
	}
	err := s.ExtendLease(t.Context(), l, t0.Add(time.Hour))
	wantCode(t, err, lectern.ECONFLICT, "ExtendLease after takeover")
}

func testRetryJob(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	p := newProject(t, s, org.ID)
	e := newExport(t, s, p, p.Domains[0], time.Time{})
	t0 := now()
	j1, l1 := mustClaimID(t, s, store.KindExport, "worker-a", e.ID, t0, time.Minute)
	runAt := t0.Add(time.Hour)
	must(t, s.RetryJob(t.Context(), l1, runAt, "storage unavailable"), "RetryJob")
	claimNone(t, s, store.KindExport, "worker-b", t0.Add(30*time.Minute), "the retry is due at runAt only")
	claimNone(t, s, store.KindExport, "worker-b", runAt.Add(-time.Second), "the retry is due at runAt only")
	j2, l2 := mustClaimID(t, s, store.KindExport, "worker-b", e.ID, runAt.Add(time.Second), time.Minute)
	if j2.Attempt != j1.Attempt+1 {
		t.Errorf("attempt after RetryJob = %d, want %d", j2.Attempt, j1.Attempt+1)
	}
	if j2.LastError != "storage unavailable" {
		t.Errorf("LastError after RetryJob = %q, want %q", j2.LastError, "storage unavailable")
	}
	if l2.Token <= l1.Token {
		t.Errorf("token after RetryJob = %d, want greater than %d", l2.Token, l1.Token)
	}
	// The retried lease is gone.
	err := s.ExtendLease(t.Context(), l1, runAt.Add(time.Hour))
	wantCode(t, err, lectern.ECONFLICT, "ExtendLease(lease given back by RetryJob)")
	// The export is still unfinished and its domain busy.
	err = s.CreateExport(t.Context(), &lectern.ExportJob{OrgID: org.ID, ProjectID: p.ID, Domain: e.Domain, Status: lectern.ExportQueued}, store.ExportQuota{})
	wantCode(t, err, lectern.EEXPORTINPROGRESS, "CreateExport while an export waits for its retry")
	if ae := lectern.AsError(err); ae != nil && ae.JobID != e.ID {
		t.Errorf("EEXPORTINPROGRESS JobID = %q, want %s", ae.JobID, e.ID)
	}
}

func testReleaseJob(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	p := newProject(t, s, org.ID)
	u := newUpdate(t, s, p)
	t0 := now()
	j1, l1 := mustClaimID(t, s, store.KindUpdate, "worker-a", u.ID, t0, time.Hour)
	must(t, s.ReleaseJob(t.Context(), l1), "ReleaseJob")
	j2, l2 := mustClaimID(t, s, store.KindUpdate, "worker-b", u.ID, t0, time.Hour)
	if j2.Attempt != j1.Attempt {
		t.Errorf("attempt after ReleaseJob = %d, want %d (a release does not count)", j2.Attempt, j1.Attempt)
	}
	if l2.Token <= l1.Token {
		t.Errorf("token after ReleaseJob = %d, want greater than %d", l2.Token, l1.Token)
	}
	err := s.StartUpdate(t.Context(), l1, t0)
	wantCode(t, err, lectern.ECONFLICT, "StartUpdate(released lease)")
	// The new lease is live: the job is not claimable.
	claimNone(t, s, store.KindUpdate, "worker-c", t0.Add(time.Minute), "the job was claimed again after its release")
	// The new owner can run it to the end.
	must(t, s.StartUpdate(t.Context(), l2, t0), "StartUpdate")
	must(t, s.FinishUpdate(t.Context(), l2, store.UpdateResult{Status: lectern.UpdateFailure, Summary: "x", EndedAt: t0}), "FinishUpdate")
	if got := mustGet(t, s.GetUpdate, u.ID); got.Status != lectern.UpdateFailure {
		t.Errorf("update status %q, want failure", got.Status)
	}
}
