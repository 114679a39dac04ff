package storetest

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

var exportCases = []testCase{
	{"CreateQueues", testExportCreate},
	{"OneInProgressPerDomain", testExportInProgress},
	{"ProgressNeverDecreases", testExportProgress},
	{"FinishCompleted", testExportCompleted},
	{"FinishFailed", testExportFailed},
	{"Quota", testExportQuota},
	{"ListBefore", testExportListBefore},
	{"Delete", testExportDelete},
}

func testExportCreate(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	p := newProject(t, s, org.ID)
	before := time.Now().Add(-time.Minute)
	e := &lectern.ExportJob{OrgID: org.ID, ProjectID: p.ID, Domain: p.Domains[0], BasePath: "/handbook", Status: lectern.ExportQueued}
	must(t, s.CreateExport(t.Context(), e, store.ExportQuota{}), "CreateExport")
	if !lectern.ValidID(lectern.PrefixExport, e.ID) {
		t.Errorf("CreateExport set ID %q, want an %s ID", e.ID, lectern.PrefixExport)
	}
	if e.CreatedAt.Before(before) || e.CreatedAt.After(time.Now().Add(time.Minute)) {
		t.Errorf("CreateExport set CreatedAt %v, want about now", e.CreatedAt)
	}
	if e.UpdatedAt.IsZero() {
		t.Errorf("CreateExport left UpdatedAt zero")
	}
	got := mustGet(t, s.GetExport, e.ID)
	if got.ID != e.ID || got.OrgID != org.ID || got.ProjectID != p.ID || got.Domain != p.Domains[0] || got.BasePath != "/handbook" {
		t.Errorf("GetExport = %+v, want %+v", got, e)
	}
	if got.Status != lectern.ExportQueued || got.Progress != 0 || got.PageCount != 0 {
		t.Errorf("new export: status %q progress %d pageCount %d, want queued 0 0", got.Status, got.Progress, got.PageCount)
	}
	if got.CompletedAt != nil || got.Error != nil || got.Bundle != nil {
		t.Errorf("new export has CompletedAt %v, Error %v, Bundle %v; want none", got.CompletedAt, got.Error, got.Bundle)
	}
	wantTime(t, "GetExport CreatedAt", got.CreatedAt, e.CreatedAt)
	wantTime(t, "GetExport UpdatedAt", got.UpdatedAt, e.UpdatedAt)

	_, err := s.GetExport(t.Context(), missingID(lectern.PrefixExport))
	wantCode(t, err, lectern.ENOTFOUND, "GetExport(missing)")

	// The export has a job with its ID.
	j, _ := mustClaimID(t, s, store.KindExport, "w", e.ID, now(), time.Hour)
	if j.Kind != store.KindExport || j.Attempt != 1 {
		t.Errorf("export job = %+v, want kind export attempt 1", j)
	}
}

// wantInProgress checks that a new export of dom is refused, naming jobID.
func wantInProgress(t *testing.T, s store.Store, p *lectern.Project, dom, jobID, when string) {
	t.Helper()
	e := &lectern.ExportJob{OrgID: p.OrgID, ProjectID: p.ID, Domain: dom, Status: lectern.ExportQueued}
	err := s.CreateExport(t.Context(), e, store.ExportQuota{})
	wantCode(t, err, lectern.EEXPORTINPROGRESS, "CreateExport "+when)
	if ae := lectern.AsError(err); ae != nil && ae.JobID != jobID {
		t.Errorf("CreateExport %s: EEXPORTINPROGRESS names job %q, want %s", when, ae.JobID, jobID)
	}
	if err != nil && e.ID != "" {
		if _, gerr := s.GetExport(t.Context(), e.ID); lectern.ErrorCode(gerr) != lectern.ENOTFOUND {
			t.Errorf("CreateExport %s: the refused export %s was stored (GetExport err %v)", when, e.ID, gerr)
		}
	}
}

func testExportInProgress(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	d1, d2 := domain(), domain()
	p := newProject(t, s, org.ID, d1, d2)
	first := newExport(t, s, p, d1, time.Time{})
	wantInProgress(t, s, p, d1, first.ID, "while the first is queued")

	// Another domain is independent, even of the same project.
	second := newExport(t, s, p, d2, time.Time{})
	wantInProgress(t, s, p, d2, second.ID, "of the other domain while its export is queued")
	must(t, s.DeleteExport(t.Context(), second.ID), "DeleteExport")

	_, l := mustClaimID(t, s, store.KindExport, "w", first.ID, now(), time.Hour)
	wantInProgress(t, s, p, d1, first.ID, "while the first is claimed")
	must(t, s.SetExportProgress(t.Context(), l, 5, 1, now()), "SetExportProgress")
	wantInProgress(t, s, p, d1, first.ID, "while the first is running")

	must(t, s.FinishExport(t.Context(), l, store.ExportResult{Status: lectern.ExportCompleted, PageCount: 1,
		Bundle: &lectern.Bundle{Key: "k", FileName: "f.tar.gz", SizeBytes: 1, SHA256: "00", Version: "1"}, At: now()}), "FinishExport")
	third := newExport(t, s, p, d1, time.Time{}) // allowed once the first completed
	wantInProgress(t, s, p, d1, third.ID, "while the third is queued")

	_, l = mustClaimID(t, s, store.KindExport, "w", third.ID, now(), time.Hour)
	must(t, s.FinishExport(t.Context(), l, store.ExportResult{Status: lectern.ExportFailed,
		Error: &lectern.JobError{Code: "render_failed", Message: "x"}, At: now()}), "FinishExport(failed)")
	newExport(t, s, p, d1, time.Time{}) // allowed once the third failed
}

func testExportProgress(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	p := newProject(t, s, org.ID)
	e := newExport(t, s, p, p.Domains[0], time.Time{})
	t0 := now()
	_, l := mustClaimID(t, s, store.KindExport, "w", e.ID, t0, time.Hour)

	must(t, s.SetExportProgress(t.Context(), l, 50, 20, t0.Add(time.Second)), "SetExportProgress(50, 20)")
	got := mustGet(t, s.GetExport, e.ID)
	if got.Status != lectern.ExportRunning || got.Progress != 50 || got.PageCount != 20 {
		t.Errorf("after SetExportProgress(50, 20): status %q progress %d pageCount %d, want running 50 20", got.Status, got.Progress, got.PageCount)
	}
	wantTime(t, "UpdatedAt after SetExportProgress", got.UpdatedAt, t0.Add(time.Second))

	must(t, s.SetExportProgress(t.Context(), l, 30, 10, t0.Add(2*time.Second)), "SetExportProgress(30, 10)")
	got = mustGet(t, s.GetExport, e.ID)
	if got.Status != lectern.ExportRunning || got.Progress != 50 || got.PageCount != 20 {
		t.Errorf("after SetExportProgress(30, 10): status %q progress %d pageCount %d, want running 50 20 (never decreasing)", got.Status, got.Progress, got.PageCount)
	}

	must(t, s.SetExportProgress(t.Context(), l, 40, 25, t0.Add(3*time.Second)), "SetExportProgress(40, 25)")
	got = mustGet(t, s.GetExport, e.ID)
	if got.Progress != 50 || got.PageCount != 25 {
		t.Errorf("after SetExportProgress(40, 25): progress %d pageCount %d, want 50 25 (each kept at its maximum)", got.Progress, got.PageCount)
	}

	must(t, s.SetExportProgress(t.Context(), l, 70, 30, t0.Add(4*time.Second)), "SetExportProgress(70, 30)")
	got = mustGet(t, s.GetExport, e.ID)
	if got.Progress != 70 || got.PageCount != 30 {
		t.Errorf("after SetExportProgress(70, 30): progress %d pageCount %d, want 70 30", got.Progress, got.PageCount)
	}
}

func testExportCompleted(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	p := newProject(t, s, org.ID)
	e := newExport(t, s, p, p.Domains[0], time.Time{})
	t0 := now()
	_, l := mustClaimID(t, s, store.KindExport, "w", e.ID, t0, time.Hour)
	must(t, s.SetExportProgress(t.Context(), l, 80, 41, t0), "SetExportProgress")
	bundle := lectern.Bundle{
		Key:       "exports/" + e.ID + "/site.tar.gz",
		FileName:  "docs-example-com.tar.gz",
		SizeBytes: 5 << 30, // more than 32 bits
		SHA256:    "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
		Version:   "2025-01-31T10:00:00Z",
	}
	done := t0.Add(time.Minute)
	must(t, s.FinishExport(t.Context(), l, store.ExportResult{Status: lectern.ExportCompleted, PageCount: 42, Bundle: &bundle, At: done}), "FinishExport")

	got := mustGet(t, s.GetExport, e.ID)
	if got.Status != lectern.ExportCompleted || got.Progress != 100 || got.PageCount != 42 {
		t.Errorf("completed export: status %q progress %d pageCount %d, want completed 100 42", got.Status, got.Progress, got.PageCount)
	}
	if got.Bundle == nil || *got.Bundle != bundle {
		t.Errorf("completed export Bundle = %+v, want %+v", got.Bundle, bundle)
	}
	if got.Error != nil {
		t.Errorf("completed export Error = %+v, want nil", got.Error)
	}
	wantTimePtr(t, "CompletedAt", got.CompletedAt, done)
	claimNone(t, s, store.KindExport, "w2", t0.Add(24*time.Hour), "the completed export must not run again")
}

func testExportFailed(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	p := newProject(t, s, org.ID)
	e := newExport(t, s, p, p.Domains[0], time.Time{})
	t0 := now()
	_, l := mustClaimID(t, s, store.KindExport, "w", e.ID, t0, time.Hour)
	must(t, s.SetExportProgress(t.Context(), l, 30, 7, t0), "SetExportProgress")
	jerr := lectern.JobError{Code: "bundle_too_large", Message: "The bundle exceeds 2 GiB."}
	must(t, s.FinishExport(t.Context(), l, store.ExportResult{Status: lectern.ExportFailed, Error: &jerr, At: t0.Add(time.Minute)}), "FinishExport(failed)")

	got := mustGet(t, s.GetExport, e.ID)
	if got.Status != lectern.ExportFailed {
		t.Errorf("failed export status %q, want failed", got.Status)
	}
	if got.Error == nil || *got.Error != jerr {
		t.Errorf("failed export Error = %+v, want %+v", got.Error, jerr)
	}
	if got.Bundle != nil {
		t.Errorf("failed export Bundle = %+v, want nil", got.Bundle)
	}
	claimNone(t, s, store.KindExport, "w2", t0.Add(24*time.Hour), "the failed export must not run again")
}

func testExportQuota(t *testing.T, s store.Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	pa, pb := newProject(t, s, a.ID, domain(), domain(), domain(), domain(), domain()), newProject(t, s, b.ID, domain())
	since := time.Now().UTC().Add(-time.Hour)
	start := func(p *lectern.Project, dom string, created time.Time, max int) error {
		e := &lectern.ExportJob{OrgID: p.OrgID, ProjectID: p.ID, Domain: dom, CreatedAt: created}
		return s.CreateExport(t.Context(), e, store.ExportQuota{Max: max, Since: since})
	}
	// One export before the window does not count; two inside it do.
	must(t, start(pa, pa.Domains[0], since.Add(-time.Minute), 2), "export before the window")
	must(t, start(pa, pa.Domains[1], since.Add(10*time.Minute), 2), "first export in the window")
	must(t, start(pa, pa.Domains[2], since.Add(20*time.Minute), 2), "second export in the window")
	err := start(pa, pa.Domains[3], now(), 2)
	var le *lectern.Error
	if !errors.As(err, &le) || le.Code != lectern.ERATELIMITED {
		t.Fatalf("third export in the window: %v, want ERATELIMITED", err)
	}
	// The oldest counted export (since+10m) leaves the window in 10 minutes.
	if le.RetryAfterSeconds < 590 || le.RetryAfterSeconds > 610 {
		t.Errorf("RetryAfterSeconds = %d, want about 600", le.RetryAfterSeconds)
	}
	// Another organization is unaffected; and the refused start stored
	// nothing, or its domain would now be "in progress".
	must(t, start(pb, pb.Domains[0], now(), 2), "another organization")
	must(t, start(pa, pa.Domains[3], now(), 3), "a larger quota, on the refused domain")

	// Concurrent starters never exceed the quota.
	c := newOrg(t, s)
	var doms []string
	for range 8 {
		doms = append(doms, domain())
	}
	pc := newProject(t, s, c.ID, doms...)
	var wg sync.WaitGroup
	var ok, limited atomic.Int32
	for _, d := range doms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			switch err := start(pc, d, now(), 3); lectern.ErrorCode(err) {
			case "":
				ok.Add(1)
			case lectern.ERATELIMITED:
				limited.Add(1)
			default:
				if lectern.ErrorCode(err) != lectern.EUNAVAILABLE { // a busy embedded database may ask to retry
					t.Errorf("concurrent start: %v", err)
				}
			}
		}()
	}
	wg.Wait()
	if ok.Load() > 3 || ok.Load()+limited.Load() < 6 {
		t.Errorf("%d concurrent starts succeeded and %d were limited, want at most 3 successes", ok.Load(), limited.Load())
	}
}

// finishExport claims e and finishes it with the given status.
func finishExport(t *testing.T, s store.Store, e *lectern.ExportJob, status lectern.ExportStatus) {
	t.Helper()
	_, l := mustClaimID(t, s, store.KindExport, "w", e.ID, now(), time.Hour)
	r := store.ExportResult{Status: status, At: now()}
	if status == lectern.ExportCompleted {
		r.Bundle = &lectern.Bundle{Key: "k/" + e.ID, FileName: "b.tar.gz", SizeBytes: 1, SHA256: "00", Version: "1"}
	} else {
		r.Error = &lectern.JobError{Code: "failed", Message: "failed"}
	}
	must(t, s.FinishExport(t.Context(), l, r), "FinishExport")
}

func testExportListBefore(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	p := newProject(t, s, org.ID, domain(), domain(), domain(), domain(), domain())
	cut := time.Now().UTC().Add(-time.Hour)
	oldDone := newExport(t, s, p, p.Domains[0], cut.Add(-3*time.Hour))
	finishExport(t, s, oldDone, lectern.ExportCompleted)
	oldFailed := newExport(t, s, p, p.Domains[1], cut.Add(-2*time.Hour))
	finishExport(t, s, oldFailed, lectern.ExportFailed)
	newDone := newExport(t, s, p, p.Domains[2], cut.Add(30*time.Minute))
	finishExport(t, s, newDone, lectern.ExportCompleted)
	oldRunning := newExport(t, s, p, p.Domains[3], cut.Add(-4*time.Hour))
	_, l := mustClaimID(t, s, store.KindExport, "w", oldRunning.ID, now(), time.Hour)
	must(t, s.SetExportProgress(t.Context(), l, 10, 1, now()), "SetExportProgress")
	newExport(t, s, p, p.Domains[4], cut.Add(-5*time.Hour)) // old but queued

	ids := func(limit int) []string {
		t.Helper()
		es, err := s.ListExportsBefore(t.Context(), cut, limit)
		must(t, err, "ListExportsBefore")
		var out []string
		for _, e := range es {
			out = append(out, e.ID)
			if !e.Status.Terminal() {
				t.Errorf("ListExportsBefore returned export %s in state %q", e.ID, e.Status)
			}
			if !e.CreatedAt.Before(cut) {
				t.Errorf("ListExportsBefore returned export %s created at %v, not before %v", e.ID, e.CreatedAt, cut)
			}
			if e.ID == oldDone.ID && (e.Bundle == nil || e.Bundle.Key != "k/"+oldDone.ID) {
				t.Errorf("ListExportsBefore: export %s has Bundle %+v, want its bundle (callers delete it)", e.ID, e.Bundle)
			}
		}
		return out
	}
	if got, want := ids(10), []string{oldDone.ID, oldFailed.ID}; !sameSet(got, want) {
		t.Errorf("ListExportsBefore(cut, 10) = %v, want %v", got, want)
	}
	got := ids(1)
	if len(got) != 1 || (got[0] != oldDone.ID && got[0] != oldFailed.ID) {
		t.Errorf("ListExportsBefore(cut, 1) = %v, want one of %s, %s", got, oldDone.ID, oldFailed.ID)
	}
	es, err := s.ListExportsBefore(t.Context(), cut.Add(-10*time.Hour), 10)
	must(t, err, "ListExportsBefore")
	if len(es) != 0 {
		t.Errorf("ListExportsBefore(before everything) = %d exports, want none", len(es))
	}
}

func testExportDelete(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	p := newProject(t, s, org.ID, domain(), domain())
	done := newExport(t, s, p, p.Domains[0], time.Time{})
	finishExport(t, s, done, lectern.ExportCompleted)
	queued := newExport(t, s, p, p.Domains[1], time.Time{})

	must(t, s.DeleteExport(t.Context(), done.ID), "DeleteExport(completed)")
	_, err := s.GetExport(t.Context(), done.ID)
	wantCode(t, err, lectern.ENOTFOUND, "GetExport(deleted)")
	if got := mustGet(t, s.GetExport, queued.ID); got.ID != queued.ID {
		t.Errorf("DeleteExport removed another export")
	}

	// Deleting a queued export removes its job too.
	must(t, s.DeleteExport(t.Context(), queued.ID), "DeleteExport(queued)")
	_, err = s.GetExport(t.Context(), queued.ID)
	wantCode(t, err, lectern.ENOTFOUND, "GetExport(deleted)")
	claimNone(t, s, store.KindExport, "w", now(), "the deleted export's job must be gone")
	counts, err := s.CountJobs(t.Context())
	must(t, err, "CountJobs")
	if n := counts[store.KindExport]["queued"] + counts[store.KindExport]["running"] + counts[store.KindExport]["done"]; n != 0 {
		t.Errorf("CountJobs after deleting every export = %v, want no export jobs", counts[store.KindExport])
	}
	// Its domain is free for a new export.
	newExport(t, s, p, p.Domains[1], time.Time{})
}
