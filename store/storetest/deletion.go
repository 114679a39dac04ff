package storetest

import (
	"slices"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

var projectDeletionCases = []testCase{
	{"GoneForEveryMethod", testDeleteProjectGone},
	{"DomainsFreeAtOnce", testDeleteProjectFreesDomains},
	{"CancelsQueuedUpdate", testDeleteProjectQueuedUpdate},
	{"CancelsRunningUpdate", testDeleteProjectRunningUpdate},
	{"CancelsExports", testDeleteProjectExports},
	{"ListDeleted", testListDeletedProjects},
	{"Purge", testPurgeProject},
	{"CreateExportOfDeletedProject", testCreateExportOfDeletedProject},
	{"RacesFinishingWorkers", testDeleteRacesWorkers},
	{"RacesNewWork", testDeleteRacesNewWork},
}

// testDeleteProjectGone: once deleted, a project is ENOTFOUND for
// GetProject, GetProjectByDomain, ResolveDomain, UpdateProject,
// SetProjectRepo and CreateUpdate, absent from ListProjects (of its
// organization and of all), and deleting it again is ENOTFOUND; another
// project is untouched.
func testDeleteProjectGone(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	d1, d2 := domain(), domain()
	p := newProject(t, s, org.ID, d1, d2)
	other := newProject(t, s, org.ID)
	wantOther := mustGet(t, s.GetProject, other.ID)
	must(t, s.DeleteProject(t.Context(), p.ID, time.Now().UTC()), "DeleteProject")

	_, err := s.GetProject(t.Context(), p.ID)
	wantCode(t, err, lectern.ENOTFOUND, "GetProject(deleted)")
	for _, d := range []string{d1, d2} {
		_, err = s.GetProjectByDomain(t.Context(), d)
		wantCode(t, err, lectern.ENOTFOUND, "GetProjectByDomain(domain of a deleted project)")
		_, _, err = s.ResolveDomain(t.Context(), d)
		wantCode(t, err, lectern.ENOTFOUND, "ResolveDomain(domain of a deleted project)")
	}
	_, err = s.UpdateProject(t.Context(), p.ID, store.ProjectChange{Name: ptr("x")})
	wantCode(t, err, lectern.ENOTFOUND, "UpdateProject(deleted)")
	err = s.SetProjectRepo(t.Context(), p.ID, "https://git.example.com/x.git", "")
	wantCode(t, err, lectern.ENOTFOUND, "SetProjectRepo(deleted)")
	u := &lectern.Update{ProjectID: p.ID, OrgID: org.ID, Status: lectern.UpdateQueued, Source: "api"}
	err = s.CreateUpdate(t.Context(), u)
	wantCode(t, err, lectern.ENOTFOUND, "CreateUpdate(deleted project)")
	if u.ID != "" {
		_, err = s.GetUpdate(t.Context(), u.ID)
		wantCode(t, err, lectern.ENOTFOUND, "GetUpdate of the refused update")
	}
	claimNone(t, s, store.KindUpdate, "w", now(), "the refused update must have no job")

	for _, orgID := range []string{org.ID, ""} {
		ps, err := s.ListProjects(t.Context(), orgID, store.Page{})
		must(t, err, "ListProjects")
		if len(ps) != 1 || ps[0].ID != other.ID {
			var ids []string
			for _, q := range ps {
				ids = append(ids, q.ID)
			}
			t.Errorf("ListProjects(%q) after DeleteProject = %v, want only %s", orgID, ids, other.ID)
		}
	}
	wantProject(t, "another project after DeleteProject", mustGet(t, s.GetProject, other.ID), wantOther)

	err = s.DeleteProject(t.Context(), p.ID, time.Now().UTC())
	wantCode(t, err, lectern.ENOTFOUND, "DeleteProject(already deleted)")
	err = s.DeleteProject(t.Context(), missingID(lectern.PrefixProject), time.Now().UTC())
	wantCode(t, err, lectern.ENOTFOUND, "DeleteProject(missing)")
}

// testDeleteProjectFreesDomains: a deleted project's domains are free at
// once: a new project (of any organization) can be created with them, and
// another project can take one with UpdateProject.
func testDeleteProjectFreesDomains(t *testing.T, s store.Store) {
	org, org2 := newOrg(t, s), newOrg(t, s)
	d1, d2 := domain(), domain()
	p := newProject(t, s, org.ID, d1, d2)
	q := newProject(t, s, org.ID)
	must(t, s.DeleteProject(t.Context(), p.ID, time.Now().UTC()), "DeleteProject")

	n := newProject(t, s, org2.ID, d1)
	if got, err := s.GetProjectByDomain(t.Context(), d1); err != nil || got.ID != n.ID {
		t.Errorf("GetProjectByDomain(%s) = %+v, %v; want the new project %s", d1, got, err, n.ID)
	}
	if pid, live, err := s.ResolveDomain(t.Context(), d1); err != nil || pid != n.ID || live != "" {
		t.Errorf("ResolveDomain(%s) = %q, %q, %v; want %s with no live deployment", d1, pid, live, err, n.ID)
	}
	_, err := s.UpdateProject(t.Context(), q.ID, store.ProjectChange{Domains: []string{q.Domains[0], d2}})
	must(t, err, "UpdateProject(taking a deleted project's domain)")
	if pid, _, err := s.ResolveDomain(t.Context(), d2); err != nil || pid != q.ID {
		t.Errorf("ResolveDomain(%s) = %q, %v; want %s", d2, pid, err, q.ID)
	}
}

// wantCanceledUpdate checks an update that DeleteProject canceled at at.
func wantCanceledUpdate(t *testing.T, s store.Store, id string, at time.Time) *lectern.Update {
	t.Helper()
	got := mustGet(t, s.GetUpdate, id)
	if got.Status != lectern.UpdateCanceled || got.Summary != store.CanceledByDelete {
		t.Errorf("update %s after DeleteProject: status %q summary %q, want %q with summary %q",
			id, got.Status, got.Summary, lectern.UpdateCanceled, store.CanceledByDelete)
	}
	wantTimePtr(t, "EndedAt of the canceled update", got.EndedAt, at)
	return got
}

// testDeleteProjectQueuedUpdate: DeleteProject ends the project's queued
// update as canceled at the given time with the summary CanceledByDelete,
// and its job is never claimable; its superseded and finished updates and
// its deployment are untouched and stay readable by ID; another project's
// queued update is untouched and still claimable.
func testDeleteProjectQueuedUpdate(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	p, o := newProject(t, s, org.ID), newProject(t, s, org.ID)
	dep := newDeployment(t, s, p, rec{lectern.NewID(lectern.PrefixDeployment), us(time.Now().UTC())})
	done := mustGet(t, s.GetUpdate, dep.UpdateID)
	old := newUpdate(t, s, p)
	queued := newUpdate(t, s, p) // supersedes old
	superseded := mustGet(t, s.GetUpdate, old.ID)
	if superseded.Status != lectern.UpdateSuperseded {
		t.Fatalf("older queued update is %q, want superseded", superseded.Status)
	}
	bystander := newUpdate(t, s, o)

	at := us(time.Now().UTC().Add(-time.Minute))
	must(t, s.DeleteProject(t.Context(), p.ID, at), "DeleteProject")
	got := wantCanceledUpdate(t, s, queued.ID, at)
	if got.ProjectID != p.ID || got.StartedAt != nil || got.SupersededBy != "" {
		t.Errorf("canceled update = %+v, want of project %s, never started, not superseded", got, p.ID)
	}
	for _, want := range []*lectern.Update{superseded, done} {
		got := mustGet(t, s.GetUpdate, want.ID)
		if got.Status != want.Status || got.Summary != want.Summary || got.SupersededBy != want.SupersededBy || got.EndedAt == nil || !sameTime(*got.EndedAt, *want.EndedAt) {
			t.Errorf("%s update after DeleteProject = %+v, want untouched %+v", want.Status, got, want)
		}
	}
	if gd, err := s.GetDeployment(t.Context(), dep.ID); err != nil || gd.ProjectID != p.ID {
		t.Errorf("GetDeployment of the deleted project's deployment = %+v, %v; want it readable", gd, err)
	}
	if got := mustGet(t, s.GetUpdate, bystander.ID); got.Status != lectern.UpdateQueued || got.EndedAt != nil {
		t.Errorf("another project's update after DeleteProject: status %q endedAt %v, want queued", got.Status, got.EndedAt)
	}
	if got, want := drain(t, s, store.KindUpdate, now().Add(24*time.Hour)), []string{bystander.ID}; !slices.Equal(got, want) {
		t.Errorf("claimable update jobs after DeleteProject = %v, want only the other project's %v", got, want)
	}
}

// testDeleteProjectRunningUpdate: DeleteProject ends the project's running
// update as canceled at the given time, keeping its start; the worker's
// lease is lost: StartUpdate, ExtendLease, RetryJob and FinishUpdate are
// ECONFLICT, no deployment is stored or made live, and the job never comes
// back.
func testDeleteProjectRunningUpdate(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	p := newProject(t, s, org.ID)
	u := newUpdate(t, s, p)
	t0 := now()
	_, l := mustClaimID(t, s, store.KindUpdate, "w", u.ID, t0, time.Hour)
	must(t, s.StartUpdate(t.Context(), l, t0), "StartUpdate")

	at := us(time.Now().UTC())
	must(t, s.DeleteProject(t.Context(), p.ID, at), "DeleteProject")
	got := wantCanceledUpdate(t, s, u.ID, at)
	wantTimePtr(t, "StartedAt of the canceled update", got.StartedAt, t0)

	err := s.ExtendLease(t.Context(), l, t0.Add(2*time.Hour))
	wantCode(t, err, lectern.ECONFLICT, "ExtendLease of a canceled update's job")
	err = s.StartUpdate(t.Context(), l, t0)
	wantCode(t, err, lectern.ECONFLICT, "StartUpdate of a canceled update's job")
	dep := &lectern.Deployment{ID: lectern.NewID(lectern.PrefixDeployment), ProjectID: p.ID, UpdateID: u.ID, PageCount: 3, CreatedAt: t0}
	err = s.FinishUpdate(t.Context(), l, store.UpdateResult{Status: lectern.UpdateSuccess, Summary: "Published 3 pages",
		Logs: []string{"published"}, Deployment: dep, EndedAt: t0.Add(time.Minute)})
	wantCode(t, err, lectern.ECONFLICT, "FinishUpdate of a canceled update's job")
	_, err = s.GetDeployment(t.Context(), dep.ID)
	wantCode(t, err, lectern.ENOTFOUND, "GetDeployment of a deployment published after DeleteProject")
	if ds, err := s.ListDeployments(t.Context(), p.ID, store.Page{}); err == nil && len(ds) != 0 {
		t.Errorf("ListDeployments of the deleted project = %d deployments, want none published", len(ds))
	}
	err = s.RetryJob(t.Context(), l, t0, "retry")
	wantCode(t, err, lectern.ECONFLICT, "RetryJob of a canceled update's job")
	_ = s.ReleaseJob(t.Context(), l)
	got = wantCanceledUpdate(t, s, u.ID, at)
	if len(got.Logs) != 0 || got.DeploymentID != "" {
		t.Errorf("canceled update after a refused FinishUpdate: logs %q deployment %q, want none", got.Logs, got.DeploymentID)
	}
	claimNone(t, s, store.KindUpdate, "w2", t0.Add(24*time.Hour), "the canceled update's job is done")
}

// testDeleteProjectExports: DeleteProject ends the project's queued and
// running exports as canceled at the given time with the error "canceled"
// and the message CanceledByDelete; the running one's worker loses its
// lease and finishes nothing; their jobs never come back; a new export of
// the domain (for its new owner) is no longer blocked; completed and failed
// exports, and another project's export, are untouched; every export stays
// readable by ID, ListExports finds the canceled ones by their state and
// ListExportsBefore returns them with the other terminal ones.
func testDeleteProjectExports(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	d1, d2, d3 := domain(), domain(), domain()
	p := newProject(t, s, org.ID, d1, d2, d3)
	o := newProject(t, s, org.ID)
	completed := newExport(t, s, p, d3, time.Time{})
	finishExport(t, s, completed, lectern.ExportCompleted)
	failed := newExport(t, s, p, d3, time.Time{})
	finishExport(t, s, failed, lectern.ExportFailed)
	running := newExport(t, s, p, d2, time.Time{})
	_, l := mustClaimID(t, s, store.KindExport, "w", running.ID, now(), time.Hour)
	must(t, s.SetExportProgress(t.Context(), l, 40, 9, now()), "SetExportProgress")
	queued := newExport(t, s, p, d1, time.Time{})
	bystander := newExport(t, s, o, o.Domains[0], time.Time{})
	before := map[string]*lectern.ExportJob{}
	for _, e := range []*lectern.ExportJob{completed, failed, bystander} {
		before[e.ID] = mustGet(t, s.GetExport, e.ID)
	}

	at := us(time.Now().UTC().Add(time.Minute))
	must(t, s.DeleteProject(t.Context(), p.ID, at), "DeleteProject")
	wantCanceled := func(id string) {
		t.Helper()
		got := mustGet(t, s.GetExport, id)
		if got.Status != lectern.ExportCanceled || got.Error == nil || *got.Error != (lectern.JobError{Code: "canceled", Message: store.CanceledByDelete}) {
			t.Errorf("export %s after DeleteProject: status %q error %+v, want %q with error {canceled %q}", id, got.Status, got.Error, lectern.ExportCanceled, store.CanceledByDelete)
		}
		if got.Bundle != nil {
			t.Errorf("canceled export %s has Bundle %+v, want none", id, got.Bundle)
		}
		wantTime(t, "UpdatedAt of the canceled export", got.UpdatedAt, at)
	}
	wantCanceled(queued.ID)
	wantCanceled(running.ID)
	for id, want := range before {
		got := mustGet(t, s.GetExport, id)
		if got.Status != want.Status || !sameTime(got.UpdatedAt, want.UpdatedAt) || (got.Error == nil) != (want.Error == nil) ||
			(got.Error != nil && *got.Error != *want.Error) || (got.Bundle == nil) != (want.Bundle == nil) {
			t.Errorf("%s export after DeleteProject = %+v, want untouched %+v", want.Status, got, want)
		}
	}

	// The running export's worker has lost its lease.
	err := s.SetExportProgress(t.Context(), l, 90, 20, now())
	wantCode(t, err, lectern.ECONFLICT, "SetExportProgress of a canceled export")
	err = s.FinishExport(t.Context(), l, store.ExportResult{Status: lectern.ExportCompleted, PageCount: 20,
		Bundle: &lectern.Bundle{Key: "k", FileName: "f.tar.gz", SizeBytes: 1, SHA256: "00", Version: "1"}, At: now()})
	wantCode(t, err, lectern.ECONFLICT, "FinishExport of a canceled export")
	err = s.ExtendLease(t.Context(), l, now().Add(time.Hour))
	wantCode(t, err, lectern.ECONFLICT, "ExtendLease of a canceled export's job")
	wantCanceled(running.ID)
	if got := mustGet(t, s.GetExport, running.ID); got.Progress != 40 || got.PageCount != 9 {
		t.Errorf("canceled export: progress %d pageCount %d, want 40 and 9 as last recorded", got.Progress, got.PageCount)
	}

	// Only the other project's export is claimable, now and later.
	if got, want := drain(t, s, store.KindExport, now().Add(24*time.Hour)), []string{bystander.ID}; !slices.Equal(got, want) {
		t.Errorf("claimable export jobs after DeleteProject = %v, want only the other project's %v", got, want)
	}

	// The domains' new owner can export them at once.
	n := newProject(t, s, org.ID, d1, d2)
	newExport(t, s, n, d1, time.Time{})
	newExport(t, s, n, d2, time.Time{})

	es, err := s.ListExports(t.Context(), store.ExportFilter{OrgID: org.ID, Status: lectern.ExportCanceled}, store.Page{})
	must(t, err, "ListExports(canceled)")
	var ids []string
	for _, e := range es {
		ids = append(ids, e.ID)
	}
	if want := []string{queued.ID, running.ID}; !sameSet(ids, want) {
		t.Errorf("ListExports(canceled) = %v, want %v", ids, want)
	}
	es, err = s.ListExportsBefore(t.Context(), now().Add(time.Hour), 100)
	must(t, err, "ListExportsBefore")
	ids = nil
	for _, e := range es {
		ids = append(ids, e.ID)
	}
	if want := []string{completed.ID, failed.ID, queued.ID, running.ID}; !sameSet(ids, want) {
		t.Errorf("ListExportsBefore = %v, want the terminal exports %v (canceled ones included)", ids, want)
	}
}

// testListDeletedProjects: ListDeletedProjects returns the projects deleted
// before the given time (never a live one), with their organization, up to
// the limit.
func testListDeletedProjects(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	p1, p2 := newProject(t, s, org.ID), newProject(t, s, org.ID)
	live := newProject(t, s, org.ID)
	t0 := us(time.Now().UTC().Add(-2 * time.Hour))
	must(t, s.DeleteProject(t.Context(), p1.ID, t0), "DeleteProject(p1)")
	must(t, s.DeleteProject(t.Context(), p2.ID, t0.Add(time.Hour)), "DeleteProject(p2)")

	ids := func(before time.Time, limit int) []string {
		t.Helper()
		ps, err := s.ListDeletedProjects(t.Context(), before, limit)
		must(t, err, "ListDeletedProjects")
		var out []string
		for _, p := range ps {
			out = append(out, p.ID)
			if p.OrgID != org.ID {
				t.Errorf("ListDeletedProjects: project %s has OrgID %q, want %s", p.ID, p.OrgID, org.ID)
			}
		}
		return out
	}
	if got := ids(t0.Add(-time.Second), 10); len(got) != 0 {
		t.Errorf("ListDeletedProjects(before the first delete) = %v, want none", got)
	}
	if got, want := ids(t0.Add(time.Second), 10), []string{p1.ID}; !sameSet(got, want) {
		t.Errorf("ListDeletedProjects(after the first delete) = %v, want %v", got, want)
	}
	if got, want := ids(time.Now().UTC().Add(time.Hour), 10), []string{p1.ID, p2.ID}; !sameSet(got, want) {
		t.Errorf("ListDeletedProjects(now) = %v, want %v (not the live %s)", got, want, live.ID)
	}
	if got := ids(time.Now().UTC().Add(time.Hour), 1); len(got) != 1 || (got[0] != p1.ID && got[0] != p2.ID) {
		t.Errorf("ListDeletedProjects(now, limit 1) = %v, want one of %s, %s", got, p1.ID, p2.ID)
	}
}

// testPurgeProject: PurgeProject refuses (ENOTFOUND) a live or missing
// project, changing nothing; of a deleted project it drops the project,
// its deployments, its updates and their jobs, and leaves another
// project's alone; purging again is ENOTFOUND.
func testPurgeProject(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	p, o := newProject(t, s, org.ID), newProject(t, s, org.ID)
	dep1 := newDeployment(t, s, p, rec{lectern.NewID(lectern.PrefixDeployment), us(time.Now().UTC().Add(-time.Hour))})
	dep2 := newDeployment(t, s, p, rec{lectern.NewID(lectern.PrefixDeployment), us(time.Now().UTC())})
	failed := newUpdate(t, s, p)
	_, l := mustClaimID(t, s, store.KindUpdate, "w", failed.ID, now(), time.Hour)
	must(t, s.StartUpdate(t.Context(), l, now()), "StartUpdate")
	must(t, s.FinishUpdate(t.Context(), l, store.UpdateResult{Status: lectern.UpdateFailure, Summary: "x", EndedAt: now()}), "FinishUpdate")
	odep := newDeployment(t, s, o, rec{lectern.NewID(lectern.PrefixDeployment), us(time.Now().UTC())})
	superseded := newUpdate(t, s, p)
	queued := newUpdate(t, s, p)
	updates := []string{dep1.UpdateID, dep2.UpdateID, failed.ID, superseded.ID, queued.ID}
	oqueued := newUpdate(t, s, o)

	err := s.PurgeProject(t.Context(), p.ID)
	wantCode(t, err, lectern.ENOTFOUND, "PurgeProject(live project)")
	mustGet(t, s.GetProject, p.ID)
	for _, id := range []string{dep1.ID, dep2.ID} {
		if _, err := s.GetDeployment(t.Context(), id); err != nil {
			t.Errorf("GetDeployment(%s) after a refused PurgeProject: %v", id, err)
		}
	}
	mustGet(t, s.GetUpdate, queued.ID)
	err = s.PurgeProject(t.Context(), missingID(lectern.PrefixProject))
	wantCode(t, err, lectern.ENOTFOUND, "PurgeProject(missing)")

	must(t, s.DeleteProject(t.Context(), p.ID, time.Now().UTC().Add(-time.Minute)), "DeleteProject")
	must(t, s.PurgeProject(t.Context(), p.ID), "PurgeProject")
	for _, id := range []string{dep1.ID, dep2.ID} {
		_, err := s.GetDeployment(t.Context(), id)
		wantCode(t, err, lectern.ENOTFOUND, "GetDeployment after PurgeProject")
	}
	for _, id := range updates {
		_, err := s.GetUpdate(t.Context(), id)
		wantCode(t, err, lectern.ENOTFOUND, "GetUpdate after PurgeProject")
	}
	_, err = s.GetProject(t.Context(), p.ID)
	wantCode(t, err, lectern.ENOTFOUND, "GetProject after PurgeProject")
	ps, err := s.ListDeletedProjects(t.Context(), time.Now().UTC().Add(time.Hour), 10)
	must(t, err, "ListDeletedProjects")
	if len(ps) != 0 {
		t.Errorf("ListDeletedProjects after PurgeProject = %d projects, want none", len(ps))
	}
	err = s.PurgeProject(t.Context(), p.ID)
	wantCode(t, err, lectern.ENOTFOUND, "PurgeProject(already purged)")
	err = s.DeleteProject(t.Context(), p.ID, time.Now().UTC())
	wantCode(t, err, lectern.ENOTFOUND, "DeleteProject(purged)")

	// The other project keeps its deployment, its updates and their jobs.
	if _, err := s.GetDeployment(t.Context(), odep.ID); err != nil {
		t.Errorf("GetDeployment of another project's deployment after PurgeProject: %v", err)
	}
	mustGet(t, s.GetUpdate, odep.UpdateID)
	if got := mustGet(t, s.GetUpdate, oqueued.ID); got.Status != lectern.UpdateQueued {
		t.Errorf("another project's queued update is %q after PurgeProject, want queued", got.Status)
	}
	counts, err := s.CountJobs(t.Context())
	must(t, err, "CountJobs")
	if c := counts[store.KindUpdate]; c["queued"] != 1 || c["running"] != 0 || c["done"] != 1 {
		t.Errorf("update jobs after PurgeProject = %v, want only the other project's: 1 queued, 1 done", c)
	}
	mustClaimID(t, s, store.KindUpdate, "w", oqueued.ID, now(), time.Hour)
}
