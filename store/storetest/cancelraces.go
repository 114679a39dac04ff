package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

// testCancelUpdateRacesFinish races CancelUpdate with the worker's
// FinishUpdate(success) of the same running update: exactly one wins.
// Either FinishUpdate succeeded (the update is a success, its deployment
// stored and live) and CancelUpdate is ECONFLICT, or CancelUpdate
// succeeded (the update is canceled, nothing published) and FinishUpdate
// is ECONFLICT; never both, never another error.
func testCancelUpdateRacesFinish(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	type work struct {
		p               *lectern.Project
		u               *lectern.Update
		l               store.Lease
		dep             *lectern.Deployment
		canceled        *lectern.Update
		cancelErr, fErr error
	}
	ws := make([]*work, raceProjects)
	t0 := now()
	for i := range ws {
		w := &work{p: newProject(t, s, org.ID)}
		w.u = newUpdate(t, s, w.p)
		_, w.l = mustClaimID(t, s, store.KindUpdate, "w", w.u.ID, t0, time.Hour)
		must(t, s.StartUpdate(t.Context(), w.l, t0), "StartUpdate")
		w.dep = &lectern.Deployment{ID: lectern.NewID(lectern.PrefixDeployment), ProjectID: w.p.ID, UpdateID: w.u.ID,
			Commit: lectern.Commit{SHA: "3333333333333333333333333333333333333333", Ref: "main"}, PageCount: 5, CreatedAt: t0}
		ws[i] = w
	}
	at := us(time.Now().UTC())
	ended := t0.Add(time.Minute)
	raceAll(t, ws, func(ctx context.Context, w *work) { w.canceled, w.cancelErr = s.CancelUpdate(ctx, w.u.ID, at) },
		func(ctx context.Context, w *work) {
			w.fErr = s.FinishUpdate(ctx, w.l, store.UpdateResult{Status: lectern.UpdateSuccess, Summary: "Published 5 pages",
				Commit: &w.dep.Commit, Logs: []string{"published"}, Deployment: w.dep, EndedAt: ended})
		})

	won := map[string]int{} // how often each side won, for -v
	defer func() { t.Logf("CancelUpdate vs FinishUpdate, wins: %v", won) }()
	for i, w := range ws {
		what := fmt.Sprintf("project %d", i)
		got := mustGet(t, s.GetUpdate, w.u.ID)
		_, derr := s.GetDeployment(t.Context(), w.dep.ID)
		live := mustGet(t, s.GetProject, w.p.ID).LiveDeploymentID
		switch c, f := lectern.ErrorCode(w.cancelErr), lectern.ErrorCode(w.fErr); {
		case w.cancelErr == nil && f == lectern.ECONFLICT:
			won["cancel"]++
			if got.Status != lectern.UpdateCanceled || got.Summary != store.CanceledByRequest || got.DeploymentID != "" || len(got.Logs) != 0 {
				t.Errorf("%s: CancelUpdate won but the update is %s", what, fmtUpdate(got))
			}
			wantTimePtr(t, what+": EndedAt of the canceled update", got.EndedAt, at)
			if w.canceled == nil || w.canceled.Status != lectern.UpdateCanceled {
				t.Errorf("%s: CancelUpdate won but returned %s", what, fmtUpdate(w.canceled))
			}
			wantCode(t, derr, lectern.ENOTFOUND, what+": GetDeployment of the refused FinishUpdate")
			if live != "" {
				t.Errorf("%s: CancelUpdate won but the live deployment is %q, want none", what, live)
			}
		case c == lectern.ECONFLICT && w.fErr == nil:
			won["finish"]++
			if got.Status != lectern.UpdateSuccess || got.Summary != "Published 5 pages" {
				t.Errorf("%s: FinishUpdate won but the update is %s", what, fmtUpdate(got))
			}
			wantTimePtr(t, what+": EndedAt of the finished update", got.EndedAt, ended)
			if derr != nil || live != w.dep.ID {
				t.Errorf("%s: FinishUpdate won but GetDeployment says %v and the live deployment is %q, want %s", what, derr, live, w.dep.ID)
			}
		default:
			t.Errorf("%s: CancelUpdate racing FinishUpdate: CancelUpdate %v, FinishUpdate %v; want exactly one nil and the other %s (update now %s)",
				what, w.cancelErr, w.fErr, lectern.ECONFLICT, fmtUpdate(got))
		}
	}
	claimNone(t, s, store.KindUpdate, "late", t0.Add(24*time.Hour), "every update is finished or canceled")
}

// testCancelExportRacesFinish races CancelExport with the worker's
// FinishExport(completed) of the same running export: exactly one wins.
// Either FinishExport succeeded (completed with its bundle) and
// CancelExport is ECONFLICT, or CancelExport succeeded (canceled, no
// bundle) and FinishExport is ECONFLICT; never both, never another error.
func testCancelExportRacesFinish(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	type work struct {
		p               *lectern.Project
		e               *lectern.ExportJob
		l               store.Lease
		bundle          lectern.Bundle
		canceled        *lectern.ExportJob
		cancelErr, fErr error
	}
	ws := make([]*work, raceProjects)
	t0 := now()
	for i := range ws {
		w := &work{p: newProject(t, s, org.ID)}
		w.e = newExport(t, s, w.p, w.p.Domains[0], time.Time{})
		_, w.l = mustClaimID(t, s, store.KindExport, "w", w.e.ID, t0, time.Hour)
		must(t, s.SetExportProgress(t.Context(), w.l, 50, 5, t0), "SetExportProgress")
		w.bundle = lectern.Bundle{Key: "k/" + w.e.ID, FileName: "b.tar.gz", SizeBytes: 1, SHA256: "00", Version: "1"}
		ws[i] = w
	}
	at := us(time.Now().UTC())
	ended := t0.Add(time.Minute)
	raceAll(t, ws, func(ctx context.Context, w *work) { w.canceled, w.cancelErr = s.CancelExport(ctx, w.e.ID, at) },
		func(ctx context.Context, w *work) {
			w.fErr = s.FinishExport(ctx, w.l, store.ExportResult{Status: lectern.ExportCompleted, PageCount: 5, Bundle: &w.bundle, At: ended})
		})

	won := map[string]int{} // how often each side won, for -v
	defer func() { t.Logf("CancelExport vs FinishExport, wins: %v", won) }()
	for i, w := range ws {
		what := fmt.Sprintf("project %d", i)
		got := mustGet(t, s.GetExport, w.e.ID)
		switch c, f := lectern.ErrorCode(w.cancelErr), lectern.ErrorCode(w.fErr); {
		case w.cancelErr == nil && f == lectern.ECONFLICT:
			won["cancel"]++
			if got.Status != lectern.ExportCanceled || got.Bundle != nil || got.Error == nil ||
				*got.Error != (lectern.JobError{Code: "canceled", Message: store.CanceledByRequest}) {
				t.Errorf("%s: CancelExport won but the export is %s", what, fmtExport(got))
			}
			wantTime(t, what+": UpdatedAt of the canceled export", got.UpdatedAt, at)
			if w.canceled == nil || w.canceled.Status != lectern.ExportCanceled {
				t.Errorf("%s: CancelExport won but returned %s", what, fmtExport(w.canceled))
			}
		case c == lectern.ECONFLICT && w.fErr == nil:
			won["finish"]++
			if got.Status != lectern.ExportCompleted || got.Bundle == nil || *got.Bundle != w.bundle || got.Error != nil {
				t.Errorf("%s: FinishExport won but the export is %s", what, fmtExport(got))
			}
		default:
			t.Errorf("%s: CancelExport racing FinishExport: CancelExport %v, FinishExport %v; want exactly one nil and the other %s (export now %s)",
				what, w.cancelErr, w.fErr, lectern.ECONFLICT, fmtExport(got))
		}
	}
	claimNone(t, s, store.KindExport, "late", t0.Add(24*time.Hour), "every export is finished or canceled")
}
