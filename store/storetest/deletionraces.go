package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

// testCreateExportOfDeletedProject: a deleted project is gone for
// CreateExport too: ENOTFOUND, no export stored, no job queued, and its
// old domain not blocked for its new owner; a missing project is
// ENOTFOUND as well.
func testCreateExportOfDeletedProject(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	p := newProject(t, s, org.ID)
	dom := p.Domains[0]
	must(t, s.DeleteProject(t.Context(), p.ID, time.Now().UTC()), "DeleteProject")
	e := &lectern.ExportJob{OrgID: org.ID, ProjectID: p.ID, Domain: dom, Status: lectern.ExportQueued}
	err := s.CreateExport(t.Context(), e, store.ExportQuota{})
	wantCode(t, err, lectern.ENOTFOUND, "CreateExport(deleted project)")
	if err != nil && e.ID != "" {
		_, gerr := s.GetExport(t.Context(), e.ID)
		wantCode(t, gerr, lectern.ENOTFOUND, "GetExport of the refused export")
	}
	claimNone(t, s, store.KindExport, "w", now(), "no export of a deleted project may run")
	n := newProject(t, s, org.ID, dom)
	newExport(t, s, n, dom, time.Time{})
	err = s.CreateExport(t.Context(), &lectern.ExportJob{OrgID: org.ID, ProjectID: missingID(lectern.PrefixProject), Domain: domain()}, store.ExportQuota{})
	wantCode(t, err, lectern.ENOTFOUND, "CreateExport(missing project)")
}

// raceProjects is how many projects the race cases delete at once.
const raceProjects = 6

// testDeleteRacesWorkers races DeleteProject with the workers finishing
// the project's running update and export: DeleteProject succeeds, and
// each worker either finished first (nil: success with its deployment,
// completed with its bundle) or lost its lease (ECONFLICT: canceled,
// nothing published); no job is left to run.
func testDeleteRacesWorkers(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	type work struct {
		p   *lectern.Project
		u   *lectern.Update
		ul  store.Lease
		e   *lectern.ExportJob
		el  store.Lease
		dep *lectern.Deployment
		// outcomes
		delErr, updErr, expErr error
	}
	ws := make([]*work, raceProjects)
	t0 := now()
	for i := range ws {
		w := &work{p: newProject(t, s, org.ID)}
		w.u = newUpdate(t, s, w.p)
		_, w.ul = mustClaimID(t, s, store.KindUpdate, "w", w.u.ID, t0, time.Hour)
		must(t, s.StartUpdate(t.Context(), w.ul, t0), "StartUpdate")
		w.e = newExport(t, s, w.p, w.p.Domains[0], time.Time{})
		_, w.el = mustClaimID(t, s, store.KindExport, "w", w.e.ID, t0, time.Hour)
		must(t, s.SetExportProgress(t.Context(), w.el, 50, 5, t0), "SetExportProgress")
		w.dep = &lectern.Deployment{ID: lectern.NewID(lectern.PrefixDeployment), ProjectID: w.p.ID, UpdateID: w.u.ID, PageCount: 5, CreatedAt: t0}
		ws[i] = w
	}
	at := us(time.Now().UTC())
	ended := t0.Add(time.Minute)
	raceAll(t, ws, func(ctx context.Context, w *work) { w.delErr = s.DeleteProject(ctx, w.p.ID, at) },
		func(ctx context.Context, w *work) {
			w.updErr = s.FinishUpdate(ctx, w.ul, store.UpdateResult{Status: lectern.UpdateSuccess, Summary: "Published 5 pages",
				Deployment: w.dep, EndedAt: ended})
		},
		func(ctx context.Context, w *work) {
			w.expErr = s.FinishExport(ctx, w.el, store.ExportResult{Status: lectern.ExportCompleted, PageCount: 5,
				Bundle: &lectern.Bundle{Key: "k/" + w.e.ID, FileName: "b.tar.gz", SizeBytes: 1, SHA256: "00", Version: "1"}, At: ended})
		})

	for i, w := range ws {
		what := fmt.Sprintf("project %d", i)
		if w.delErr != nil {
			t.Errorf("%s: DeleteProject racing the workers: %v", what, w.delErr)
		}
		_, err := s.GetProject(t.Context(), w.p.ID)
		wantCode(t, err, lectern.ENOTFOUND, what+": GetProject after DeleteProject")

		u := mustGet(t, s.GetUpdate, w.u.ID)
		_, derr := s.GetDeployment(t.Context(), w.dep.ID)
		switch lectern.ErrorCode(w.updErr) {
		case "":
			if u.Status != lectern.UpdateSuccess || derr != nil {
				t.Errorf("%s: FinishUpdate succeeded but the update is %q and GetDeployment says %v", what, u.Status, derr)
			}
		case lectern.ECONFLICT:
			if u.Status != lectern.UpdateCanceled || u.Summary != store.CanceledByDelete {
				t.Errorf("%s: FinishUpdate lost its lease but the update is %q (%q), want canceled", what, u.Status, u.Summary)
			}
			wantCode(t, derr, lectern.ENOTFOUND, what+": GetDeployment of a refused FinishUpdate")
		default:
			t.Errorf("%s: FinishUpdate racing DeleteProject: %v, want nil or %s", what, w.updErr, lectern.ECONFLICT)
		}

		e := mustGet(t, s.GetExport, w.e.ID)
		switch lectern.ErrorCode(w.expErr) {
		case "":
			if e.Status != lectern.ExportCompleted || e.Bundle == nil {
				t.Errorf("%s: FinishExport succeeded but the export is %q with bundle %v", what, e.Status, e.Bundle)
			}
		case lectern.ECONFLICT:
			if e.Status != lectern.ExportCanceled || e.Bundle != nil || e.Error == nil || e.Error.Code != "canceled" {
				t.Errorf("%s: FinishExport lost its lease but the export is %q (error %+v, bundle %v), want canceled", what, e.Status, e.Error, e.Bundle)
			}
		default:
			t.Errorf("%s: FinishExport racing DeleteProject: %v, want nil or %s", what, w.expErr, lectern.ECONFLICT)
		}
	}
	claimNone(t, s, store.KindUpdate, "late", t0.Add(24*time.Hour), "every update is finished or canceled")
	claimNone(t, s, store.KindExport, "late", t0.Add(24*time.Hour), "every export is finished or canceled")
}

// testDeleteRacesNewWork races DeleteProject with CreateUpdate,
// CreateExport and UpdateProject of the same project: DeleteProject
// succeeds; each of the others either came first (its update or export
// then ends canceled or superseded) or is ENOTFOUND; no work of the
// deleted project is left to run, and its domains are free for a new
// project and its exports.
func testDeleteRacesNewWork(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	type work struct {
		p       *lectern.Project
		ups     []*lectern.Update
		upErrs  []error
		exps    []*lectern.ExportJob
		expErrs []error
		delErr  error
		chErr   error
	}
	ws := make([]*work, raceProjects)
	for i := range ws {
		p := newProject(t, s, org.ID, domain(), domain())
		w := &work{p: p, upErrs: make([]error, 3), expErrs: make([]error, 2)}
		for range 3 {
			w.ups = append(w.ups, &lectern.Update{ID: lectern.NewID(lectern.PrefixUpdate), ProjectID: p.ID, OrgID: org.ID, Status: lectern.UpdateQueued, Source: "api"})
		}
		for _, d := range p.Domains {
			w.exps = append(w.exps, &lectern.ExportJob{ID: lectern.NewID(lectern.PrefixExport), OrgID: org.ID, ProjectID: p.ID, Domain: d, Status: lectern.ExportQueued})
		}
		ws[i] = w
	}
	var wg sync.WaitGroup
	start := make(chan struct{})
	ctx := t.Context()
	at := us(time.Now().UTC())
	for _, w := range ws {
		wg.Go(func() { <-start; w.delErr = s.DeleteProject(ctx, w.p.ID, at) })
		wg.Go(func() { <-start; _, w.chErr = s.UpdateProject(ctx, w.p.ID, store.ProjectChange{Name: ptr("Renamed")}) })
		for j, u := range w.ups {
			wg.Go(func() { <-start; w.upErrs[j] = s.CreateUpdate(ctx, u) })
		}
		for j, e := range w.exps {
			wg.Go(func() { <-start; w.expErrs[j] = s.CreateExport(ctx, e, store.ExportQuota{}) })
		}
	}
	close(start)
	wg.Wait()

	for i, w := range ws {
		what := fmt.Sprintf("project %d", i)
		if w.delErr != nil {
			t.Errorf("%s: DeleteProject racing new work: %v", what, w.delErr)
		}
		if c := lectern.ErrorCode(w.chErr); c != "" && c != lectern.ENOTFOUND {
			t.Errorf("%s: UpdateProject racing DeleteProject: %v, want nil or %s", what, w.chErr, lectern.ENOTFOUND)
		}
		for j, u := range w.ups {
			switch lectern.ErrorCode(w.upErrs[j]) {
			case "":
				if got := mustGet(t, s.GetUpdate, u.ID); got.Status != lectern.UpdateCanceled && got.Status != lectern.UpdateSuperseded {
					t.Errorf("%s: update %d created before the delete is %q, want canceled or superseded", what, j, got.Status)
				}
			case lectern.ENOTFOUND:
				_, err := s.GetUpdate(t.Context(), u.ID)
				wantCode(t, err, lectern.ENOTFOUND, what+": GetUpdate of a refused CreateUpdate")
			default:
				t.Errorf("%s: CreateUpdate racing DeleteProject: %v, want nil or %s", what, w.upErrs[j], lectern.ENOTFOUND)
			}
		}
		for j, e := range w.exps {
			switch lectern.ErrorCode(w.expErrs[j]) {
			case "":
				if got := mustGet(t, s.GetExport, e.ID); got.Status != lectern.ExportCanceled {
					t.Errorf("%s: export %d created before the delete is %q, want canceled", what, j, got.Status)
				}
			case lectern.ENOTFOUND:
				_, err := s.GetExport(t.Context(), e.ID)
				wantCode(t, err, lectern.ENOTFOUND, what+": GetExport of a refused CreateExport")
			default:
				t.Errorf("%s: CreateExport racing DeleteProject: %v, want nil or %s", what, w.expErrs[j], lectern.ENOTFOUND)
			}
		}
	}
	claimNone(t, s, store.KindUpdate, "late", now().Add(24*time.Hour), "no update of a deleted project may run")
	claimNone(t, s, store.KindExport, "late", now().Add(24*time.Hour), "no export of a deleted project may run")
	for _, w := range ws {
		n := newProject(t, s, org.ID, w.p.Domains...)
		for _, d := range w.p.Domains {
			newExport(t, s, n, d, time.Time{})
		}
	}
}
