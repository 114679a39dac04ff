package storetest

import (
	"slices"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

var cancelCases = []testCase{
	{"QueuedUpdate", testCancelQueuedUpdate},
	{"RunningUpdate", testCancelRunningUpdate},
	{"EndedUpdate", testCancelEndedUpdate},
	{"QueuedExport", testCancelQueuedExport},
	{"RunningExport", testCancelRunningExport},
	{"EndedExport", testCancelEndedExport},
	{"Missing", testCancelMissing},
	{"UpdateRacesFinish", testCancelUpdateRacesFinish},
	{"ExportRacesFinish", testCancelExportRacesFinish},
}

// wantCanceledByRequest checks an update that CancelUpdate canceled at
// at, and that the update it returned is the stored one.
func wantCanceledByRequest(t *testing.T, s store.Store, id string, returned *lectern.Update, at time.Time) *lectern.Update {
	t.Helper()
	got := mustGet(t, s.GetUpdate, id)
	if got.Status != lectern.UpdateCanceled || got.Summary != store.CanceledByRequest {
		t.Errorf("update %s after CancelUpdate: status %q summary %q, want %q with summary %q",
			id, got.Status, got.Summary, lectern.UpdateCanceled, store.CanceledByRequest)
	}
	wantTimePtr(t, "EndedAt of the canceled update", got.EndedAt, at)
	if returned == nil {
		t.Errorf("CancelUpdate(%s) returned a nil update", id)
	} else {
		wantSameUpdate(t, "CancelUpdate's update vs GetUpdate's", returned, got)
	}
	return got
}

// testCancelQueuedUpdate: CancelUpdate of a queued update ends it at once
// as canceled at the given time with the summary CanceledByRequest,
// keeping what it was (project, source, creation, never started), and
// returns it as GetUpdate does; its job is done and never claimable, so
// the project's next update runs; another project's queued update is
// untouched.
func testCancelQueuedUpdate(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	p, o := newProject(t, s, org.ID), newProject(t, s, org.ID)
	u := &lectern.Update{ProjectID: p.ID, OrgID: org.ID, Status: lectern.UpdateQueued, Source: "webhook"}
	must(t, s.CreateUpdate(t.Context(), u), "CreateUpdate")
	queued := mustGet(t, s.GetUpdate, u.ID)
	bystander := newUpdate(t, s, o)
	wantBystander := mustGet(t, s.GetUpdate, bystander.ID)

	at := time.Now().UTC().Add(-time.Minute)
	returned, err := s.CancelUpdate(t.Context(), u.ID, at)
	must(t, err, "CancelUpdate(queued)")
	got := wantCanceledByRequest(t, s, u.ID, returned, at)
	want := *queued
	want.Status, want.Summary, want.EndedAt = lectern.UpdateCanceled, store.CanceledByRequest, &at
	wantSameUpdate(t, "canceled queued update", got, &want)
	wantSameUpdate(t, "another project's queued update after CancelUpdate", mustGet(t, s.GetUpdate, bystander.ID), wantBystander)

	wantCounts(t, s, "after canceling a queued update", map[string]map[string]int{
		store.KindUpdate: {"queued": 1, "done": 1},
	})
	if got, want := drain(t, s, store.KindUpdate, now().Add(24*time.Hour)), []string{bystander.ID}; !slices.Equal(got, want) {
		t.Errorf("claimable update jobs after CancelUpdate = %v, want only the other project's %v", got, want)
	}
	// The project is free to run its next update.
	next := newUpdate(t, s, p)
	mustClaimID(t, s, store.KindUpdate, "w", next.ID, now(), time.Hour)
	wantCanceledByRequest(t, s, u.ID, returned, at)
}

// testCancelRunningUpdate: CancelUpdate of an update whose job a worker
// holds (claimed only, or started) ends it as canceled, keeping its
// start; the worker's lease is lost: ExtendLease, StartUpdate, FinishUpdate
// (success or failure) and RetryJob are ECONFLICT, no deployment is stored
// and the live deployment is unchanged; the job never comes back and the
// project's next update can run at once.
func testCancelRunningUpdate(t *testing.T, s store.Store) {
	for _, started := range []bool{false, true} {
		t.Run(map[bool]string{false: "Claimed", true: "Started"}[started], func(t *testing.T) {
			org := newOrg(t, s)
			p := newProject(t, s, org.ID)
			dep0 := publish(t, s, p, "0000000000000000000000000000000000000000")
			u := newUpdate(t, s, p)
			t0 := now()
			_, l := mustClaimID(t, s, store.KindUpdate, "w", u.ID, t0, time.Hour)
			if started {
				must(t, s.StartUpdate(t.Context(), l, t0), "StartUpdate")
			}
			before := mustGet(t, s.GetUpdate, u.ID)

			at := time.Now().UTC()
			returned, err := s.CancelUpdate(t.Context(), u.ID, at)
			must(t, err, "CancelUpdate(running)")
			got := wantCanceledByRequest(t, s, u.ID, returned, at)
			want := *before
			want.Status, want.Summary, want.EndedAt = lectern.UpdateCanceled, store.CanceledByRequest, &at
			wantSameUpdate(t, "canceled running update", got, &want)

			err = s.ExtendLease(t.Context(), l, t0.Add(2*time.Hour))
			wantCode(t, err, lectern.ECONFLICT, "ExtendLease of a canceled update's job")
			err = s.StartUpdate(t.Context(), l, t0.Add(time.Second))
			wantCode(t, err, lectern.ECONFLICT, "StartUpdate of a canceled update's job")
			dep := &lectern.Deployment{ID: lectern.NewID(lectern.PrefixDeployment), ProjectID: p.ID, UpdateID: u.ID,
				Commit: lectern.Commit{SHA: "1111111111111111111111111111111111111111", Ref: "main"}, PageCount: 3, CreatedAt: t0}
			err = s.FinishUpdate(t.Context(), l, store.UpdateResult{Status: lectern.UpdateSuccess, Summary: "Published 3 pages",
				Commit: &dep.Commit, Logs: []string{"published"}, Deployment: dep, EndedAt: t0.Add(time.Minute)})
			wantCode(t, err, lectern.ECONFLICT, "FinishUpdate(success) of a canceled update's job")
			err = s.FinishUpdate(t.Context(), l, store.UpdateResult{Status: lectern.UpdateFailure, Summary: "boom",
				Logs: []string{"failed"}, EndedAt: t0.Add(time.Minute)})
			wantCode(t, err, lectern.ECONFLICT, "FinishUpdate(failure) of a canceled update's job")
			err = s.RetryJob(t.Context(), l, t0, "retry")
			wantCode(t, err, lectern.ECONFLICT, "RetryJob of a canceled update's job")
			_ = s.ReleaseJob(t.Context(), l)

			wantSameUpdate(t, "canceled update after its worker's refused calls", mustGet(t, s.GetUpdate, u.ID), got)
			_, err = s.GetDeployment(t.Context(), dep.ID)
			wantCode(t, err, lectern.ENOTFOUND, "GetDeployment of a deployment published after CancelUpdate")
			if got, want := deploymentIDs(t, s, p.ID), []string{dep0.ID}; !slices.Equal(got, want) {
				t.Errorf("ListDeployments after a refused FinishUpdate = %v, want %v", got, want)
			}
			wantLive(t, s, p, dep0.ID, "after a canceled update's refused FinishUpdate")
			claimNone(t, s, store.KindUpdate, "w2", t0.Add(24*time.Hour), "the canceled update's job is done")

			// The canceled job holds its project's group no more. (The
			// next update is finished so that the other subtest, sharing
			// the store, finds no job of this one.)
			next := newUpdate(t, s, p)
			_, nl := mustClaimID(t, s, store.KindUpdate, "w3", next.ID, t0, time.Hour)
			must(t, s.FinishUpdate(t.Context(), nl, store.UpdateResult{Status: lectern.UpdateFailure, Summary: "x", EndedAt: t0}), "FinishUpdate(next)")
		})
	}
}

// testCancelEndedUpdate: CancelUpdate of an update that has ended
// (success, failure, superseded, canceled on request or by DeleteProject)
// is ECONFLICT and changes nothing: the update, the live deployment and
// the jobs are as they were.
func testCancelEndedUpdate(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	p, d := newProject(t, s, org.ID), newProject(t, s, org.ID)
	dep := publish(t, s, p, "2222222222222222222222222222222222222222")
	failed := newUpdate(t, s, p)
	_, l := mustClaimID(t, s, store.KindUpdate, "w", failed.ID, now(), time.Hour)
	must(t, s.StartUpdate(t.Context(), l, now()), "StartUpdate")
	must(t, s.FinishUpdate(t.Context(), l, store.UpdateResult{Status: lectern.UpdateFailure, Summary: "Branch not found",
		Logs: []string{"error"}, EndedAt: now()}), "FinishUpdate(failure)")
	superseded := newUpdate(t, s, p)
	canceled := newUpdate(t, s, p) // supersedes the one before
	_, err := s.CancelUpdate(t.Context(), canceled.ID, time.Now().UTC().Add(-time.Hour))
	must(t, err, "CancelUpdate")
	deleted := newUpdate(t, s, d)
	must(t, s.DeleteProject(t.Context(), d.ID, time.Now().UTC().Add(-time.Hour)), "DeleteProject")

	ended := []struct {
		what string
		id   string
		want lectern.UpdateStatus
	}{
		{"successful", dep.UpdateID, lectern.UpdateSuccess},
		{"failed", failed.ID, lectern.UpdateFailure},
		{"superseded", superseded.ID, lectern.UpdateSuperseded},
		{"canceled", canceled.ID, lectern.UpdateCanceled},
		{"canceled by DeleteProject", deleted.ID, lectern.UpdateCanceled},
	}
	jobs := countJobs(t, s)
	for _, e := range ended {
		before := mustGet(t, s.GetUpdate, e.id)
		if before.Status != e.want {
			t.Fatalf("%s update is %q, want %q", e.what, before.Status, e.want)
		}
		_, err := s.CancelUpdate(t.Context(), e.id, time.Now().UTC())
		wantCode(t, err, lectern.ECONFLICT, "CancelUpdate("+e.what+" update)")
		wantSameUpdate(t, e.what+" update after a refused CancelUpdate", mustGet(t, s.GetUpdate, e.id), before)
	}
	wantCounts(t, s, "after refused CancelUpdates", jobs)
	wantLive(t, s, p, dep.ID, "after refused CancelUpdates")
	claimNone(t, s, store.KindUpdate, "w", now().Add(24*time.Hour), "every update has ended")
}

// wantCanceledExport checks an export that CancelExport canceled at at,
// and that the export it returned is the stored one.
func wantCanceledExport(t *testing.T, s store.Store, id string, returned *lectern.ExportJob, at time.Time) *lectern.ExportJob {
	t.Helper()
	got := mustGet(t, s.GetExport, id)
	if got.Status != lectern.ExportCanceled || got.Error == nil || *got.Error != (lectern.JobError{Code: "canceled", Message: store.CanceledByRequest}) {
		t.Errorf("export %s after CancelExport: status %q error %+v, want %q with error {canceled %q}",
			id, got.Status, got.Error, lectern.ExportCanceled, store.CanceledByRequest)
	}
	if got.Bundle != nil {
		t.Errorf("canceled export %s has Bundle %+v, want none", id, got.Bundle)
	}
	wantTime(t, "UpdatedAt of the canceled export", got.UpdatedAt, at)
	if returned == nil {
		t.Errorf("CancelExport(%s) returned a nil export", id)
	} else {
		wantSameExport(t, "CancelExport's export vs GetExport's", returned, got)
	}
	return got
}

// testCancelQueuedExport: CancelExport of a queued export ends it at once
// as canceled at the given time with the error "canceled" and the message
// CanceledByRequest, and returns it as GetExport does; its job is done and
// never claimable; its domain is free for a new export at once, while
// another domain's export is untouched; ListExports finds it by its state
// and ListExportsBefore with the terminal ones.
func testCancelQueuedExport(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	d1, d2 := domain(), domain()
	p := newProject(t, s, org.ID, d1, d2)
	e := newExport(t, s, p, d1, time.Time{})
	queued := mustGet(t, s.GetExport, e.ID)
	bystander := newExport(t, s, p, d2, time.Time{})
	wantBystander := mustGet(t, s.GetExport, bystander.ID)

	at := time.Now().UTC().Add(time.Minute)
	returned, err := s.CancelExport(t.Context(), e.ID, at)
	must(t, err, "CancelExport(queued)")
	got := wantCanceledExport(t, s, e.ID, returned, at)
	if got.ID != e.ID || got.OrgID != org.ID || got.ProjectID != p.ID || got.Domain != d1 || got.BasePath != queued.BasePath ||
		got.Progress != 0 || got.PageCount != 0 || !sameTime(got.CreatedAt, queued.CreatedAt) {
		t.Errorf("canceled queued export = %s, want what it was: %s", fmtExport(got), fmtExport(queued))
	}
	wantSameExport(t, "another domain's export after CancelExport", mustGet(t, s.GetExport, bystander.ID), wantBystander)
	wantInProgress(t, s, p, d2, bystander.ID, "of the other domain after CancelExport")

	wantCounts(t, s, "after canceling a queued export", map[string]map[string]int{
		store.KindExport: {"queued": 1, "done": 1},
	})
	es, err := s.ListExports(t.Context(), store.ExportFilter{OrgID: org.ID, Status: lectern.ExportCanceled}, store.Page{})
	must(t, err, "ListExports(canceled)")
	if len(es) != 1 || es[0].ID != e.ID {
		t.Errorf("ListExports(canceled) = %d exports, want only %s", len(es), e.ID)
	}
	es, err = s.ListExportsBefore(t.Context(), now().Add(time.Hour), 100)
	must(t, err, "ListExportsBefore")
	if len(es) != 1 || es[0].ID != e.ID {
		t.Errorf("ListExportsBefore = %d exports, want only the canceled %s", len(es), e.ID)
	}
	if got, want := drain(t, s, store.KindExport, now().Add(24*time.Hour)), []string{bystander.ID}; !slices.Equal(got, want) {
		t.Errorf("claimable export jobs after CancelExport = %v, want only %v", got, want)
	}

	// The canceled export no longer blocks its domain.
	next := newExport(t, s, p, d1, time.Time{})
	wantInProgress(t, s, p, d1, next.ID, "while the new export is queued")
	wantCanceledExport(t, s, e.ID, returned, at)
}

// testCancelRunningExport: CancelExport of an export whose job a worker
// holds (claimed only, or running with progress) ends it as canceled,
// keeping its last progress; the worker's lease is lost:
// SetExportProgress, FinishExport (completed or failed), ExtendLease and
// RetryJob are ECONFLICT and no bundle is stored; the job never comes
// back and a new export of the domain is accepted and runs.
func testCancelRunningExport(t *testing.T, s store.Store) {
	for _, running := range []bool{false, true} {
		t.Run(map[bool]string{false: "Claimed", true: "Running"}[running], func(t *testing.T) {
			org := newOrg(t, s)
			p := newProject(t, s, org.ID)
			e := newExport(t, s, p, p.Domains[0], time.Time{})
			t0 := now()
			_, l := mustClaimID(t, s, store.KindExport, "w", e.ID, t0, time.Hour)
			if running {
				must(t, s.SetExportProgress(t.Context(), l, 40, 9, t0), "SetExportProgress")
			}
			before := mustGet(t, s.GetExport, e.ID)

			at := time.Now().UTC()
			returned, err := s.CancelExport(t.Context(), e.ID, at)
			must(t, err, "CancelExport(running)")
			got := wantCanceledExport(t, s, e.ID, returned, at)
			if got.Progress != before.Progress || got.PageCount != before.PageCount || !sameTime(got.CreatedAt, before.CreatedAt) {
				t.Errorf("canceled export = %s, want the progress it had: %s", fmtExport(got), fmtExport(before))
			}

			err = s.SetExportProgress(t.Context(), l, 90, 20, t0.Add(time.Second))
			wantCode(t, err, lectern.ECONFLICT, "SetExportProgress of a canceled export")
			err = s.FinishExport(t.Context(), l, store.ExportResult{Status: lectern.ExportCompleted, PageCount: 20,
				Bundle: &lectern.Bundle{Key: "k/" + e.ID, FileName: "f.tar.gz", SizeBytes: 1, SHA256: "00", Version: "1"}, At: t0.Add(time.Minute)})
			wantCode(t, err, lectern.ECONFLICT, "FinishExport(completed) of a canceled export")
			err = s.FinishExport(t.Context(), l, store.ExportResult{Status: lectern.ExportFailed,
				Error: &lectern.JobError{Code: "render_failed", Message: "x"}, At: t0.Add(time.Minute)})
			wantCode(t, err, lectern.ECONFLICT, "FinishExport(failed) of a canceled export")
			err = s.ExtendLease(t.Context(), l, t0.Add(2*time.Hour))
			wantCode(t, err, lectern.ECONFLICT, "ExtendLease of a canceled export's job")
			err = s.RetryJob(t.Context(), l, t0, "retry")
			wantCode(t, err, lectern.ECONFLICT, "RetryJob of a canceled export's job")
			_ = s.ReleaseJob(t.Context(), l)

			wantSameExport(t, "canceled export after its worker's refused calls", mustGet(t, s.GetExport, e.ID), got)
			claimNone(t, s, store.KindExport, "w2", t0.Add(24*time.Hour), "the canceled export's job is done")

			// A new export of the domain is accepted and runs. (It is
			// finished so that the other subtest, sharing the store, finds
			// no job of this one.)
			next := newExport(t, s, p, p.Domains[0], time.Time{})
			finishExport(t, s, next, lectern.ExportFailed)
		})
	}
}

// testCancelEndedExport: CancelExport of an export that has ended
// (completed, failed, canceled on request or by DeleteProject) is
// ECONFLICT and changes nothing: the export and the jobs are as they were.
func testCancelEndedExport(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	p, d := newProject(t, s, org.ID), newProject(t, s, org.ID)
	completed := newExport(t, s, p, p.Domains[0], time.Time{})
	finishExport(t, s, completed, lectern.ExportCompleted)
	failed := newExport(t, s, p, p.Domains[0], time.Time{})
	finishExport(t, s, failed, lectern.ExportFailed)
	canceled := newExport(t, s, p, p.Domains[0], time.Time{})
	_, err := s.CancelExport(t.Context(), canceled.ID, time.Now().UTC().Add(-time.Hour))
	must(t, err, "CancelExport")
	deleted := newExport(t, s, d, d.Domains[0], time.Time{})
	must(t, s.DeleteProject(t.Context(), d.ID, time.Now().UTC().Add(-time.Hour)), "DeleteProject")

	ended := []struct {
		what string
		id   string
		want lectern.ExportStatus
	}{
		{"completed", completed.ID, lectern.ExportCompleted},
		{"failed", failed.ID, lectern.ExportFailed},
		{"canceled", canceled.ID, lectern.ExportCanceled},
		{"canceled by DeleteProject", deleted.ID, lectern.ExportCanceled},
	}
	jobs := countJobs(t, s)
	for _, e := range ended {
		before := mustGet(t, s.GetExport, e.id)
		if before.Status != e.want {
			t.Fatalf("%s export is %q, want %q", e.what, before.Status, e.want)
		}
		_, err := s.CancelExport(t.Context(), e.id, time.Now().UTC())
		wantCode(t, err, lectern.ECONFLICT, "CancelExport("+e.what+" export)")
		wantSameExport(t, e.what+" export after a refused CancelExport", mustGet(t, s.GetExport, e.id), before)
	}
	wantCounts(t, s, "after refused CancelExports", jobs)
	claimNone(t, s, store.KindExport, "w", now().Add(24*time.Hour), "every export has ended")
}

// testCancelMissing: CancelUpdate and CancelExport of an ID that names
// nothing are ENOTFOUND; so are they of an update's ID as an export and
// the other way round.
func testCancelMissing(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	p := newProject(t, s, org.ID)
	u := newUpdate(t, s, p)
	e := newExport(t, s, p, p.Domains[0], time.Time{})
	at := time.Now().UTC()
	_, err := s.CancelUpdate(t.Context(), missingID(lectern.PrefixUpdate), at)
	wantCode(t, err, lectern.ENOTFOUND, "CancelUpdate(missing)")
	_, err = s.CancelExport(t.Context(), missingID(lectern.PrefixExport), at)
	wantCode(t, err, lectern.ENOTFOUND, "CancelExport(missing)")
	_, err = s.CancelUpdate(t.Context(), e.ID, at)
	wantCode(t, err, lectern.ENOTFOUND, "CancelUpdate(an export's ID)")
	_, err = s.CancelExport(t.Context(), u.ID, at)
	wantCode(t, err, lectern.ENOTFOUND, "CancelExport(an update's ID)")
	if got := mustGet(t, s.GetUpdate, u.ID); got.Status != lectern.UpdateQueued {
		t.Errorf("update after CancelExport of its ID is %q, want queued", got.Status)
	}
	if got := mustGet(t, s.GetExport, e.ID); got.Status != lectern.ExportQueued {
		t.Errorf("export after CancelUpdate of its ID is %q, want queued", got.Status)
	}
	mustClaimID(t, s, store.KindUpdate, "w", u.ID, now(), time.Hour)
	mustClaimID(t, s, store.KindExport, "w", e.ID, now(), time.Hour)
}
