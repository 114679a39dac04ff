package storetest

import (
	"maps"
	"reflect"
	"slices"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

var updateCases = []testCase{
	{"CreateQueues", testUpdateCreate},
	{"SupersedesQueuedOfSameProject", testUpdateSupersede},
	{"QueueOneJobPerProject", testUpdateQueue},
	{"FinishSuccessAndFailure", testUpdateFinish},
	{"DeleteDeployment", testDeleteDeployment},
	{"ListLeavesOutLogs", testListUpdatesWithoutLogs},
	{"SupersedeRacesStart", testSupersedeRacesStart},
}

// testListUpdatesWithoutLogs: ListUpdates returns each update as GetUpdate
// does but for its build log, an empty (not nil) list, so that a page
// stays small however long the logs; GetUpdate still returns the log.
func testListUpdatesWithoutLogs(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	p := newProject(t, s, org.ID)
	published := publish(t, s, p, "3333333333333333333333333333333333333333").UpdateID
	newUpdate(t, s, p) // queued: no log yet
	ups, err := s.ListUpdates(t.Context(), p.ID, store.Page{})
	must(t, err, "ListUpdates")
	if len(ups) != 2 {
		t.Fatalf("ListUpdates = %d updates, want 2", len(ups))
	}
	for _, u := range ups {
		if u.Logs == nil || len(u.Logs) != 0 {
			t.Errorf("ListUpdates' update %s has Logs %#v, want an empty list", u.ID, u.Logs)
		}
		want := mustGet(t, s.GetUpdate, u.ID)
		want.Logs = []string{}
		wantSameUpdate(t, "ListUpdates' update vs GetUpdate's without its log", u, want)
	}
	if got := mustGet(t, s.GetUpdate, published).Logs; len(got) != 1 || got[0] != "published" {
		t.Errorf("GetUpdate(%s).Logs = %q after ListUpdates, want [published]", published, got)
	}
}

func testUpdateCreate(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	p := newProject(t, s, org.ID)
	before := time.Now().Add(-time.Minute)
	u := &lectern.Update{ProjectID: p.ID, OrgID: org.ID, Status: lectern.UpdateQueued, Source: "webhook"}
	must(t, s.CreateUpdate(t.Context(), u), "CreateUpdate")
	if !lectern.ValidID(lectern.PrefixUpdate, u.ID) {
		t.Errorf("CreateUpdate set ID %q, want an %s ID", u.ID, lectern.PrefixUpdate)
	}
	if u.CreatedAt.Before(before) || u.CreatedAt.After(time.Now().Add(time.Minute)) {
		t.Errorf("CreateUpdate set CreatedAt %v, want about now", u.CreatedAt)
	}
	got := mustGet(t, s.GetUpdate, u.ID)
	if got.ID != u.ID || got.ProjectID != p.ID || got.Status != lectern.UpdateQueued || got.Source != "webhook" {
		t.Errorf("GetUpdate = %+v, want a queued update of %s from webhook", got, p.ID)
	}
	wantTime(t, "GetUpdate CreatedAt", got.CreatedAt, u.CreatedAt)
	if got.StartedAt != nil || got.EndedAt != nil || got.SupersededBy != "" || got.Commit != nil || len(got.Logs) != 0 {
		t.Errorf("queued update has StartedAt %v, EndedAt %v, SupersededBy %q, Commit %v, Logs %v; want none",
			got.StartedAt, got.EndedAt, got.SupersededBy, got.Commit, got.Logs)
	}
	_, err := s.GetUpdate(t.Context(), missingID(lectern.PrefixUpdate))
	wantCode(t, err, lectern.ENOTFOUND, "GetUpdate(missing)")

	// The update has a job: ID = update ID, kind update, grouped by project.
	j, l := mustClaim(t, s, store.KindUpdate, "w1", now(), time.Hour)
	if j.ID != u.ID || j.Kind != store.KindUpdate || j.GroupKey != p.ID || j.Attempt != 1 {
		t.Errorf("claimed job %+v, want ID %s, kind update, group %s, attempt 1", j, u.ID, p.ID)
	}
	if j.CreatedAt.IsZero() {
		t.Errorf("claimed job has a zero CreatedAt")
	}
	if l.JobID != u.ID || l.Owner != "w1" {
		t.Errorf("lease = %+v, want job %s owner w1", l, u.ID)
	}
}

func testUpdateSupersede(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	p1, p2 := newProject(t, s, org.ID), newProject(t, s, org.ID)
	other := newUpdate(t, s, p2)
	u1 := newUpdate(t, s, p1)
	u2 := newUpdate(t, s, p1)

	got1 := mustGet(t, s.GetUpdate, u1.ID)
	if got1.Status != lectern.UpdateSuperseded || got1.SupersededBy != u2.ID {
		t.Errorf("older update: status %q supersededBy %q, want superseded by %s", got1.Status, got1.SupersededBy, u2.ID)
	}
	if got1.EndedAt == nil {
		t.Errorf("superseded update has no EndedAt")
	}
	if got := mustGet(t, s.GetUpdate, u2.ID); got.Status != lectern.UpdateQueued || got.SupersededBy != "" || got.EndedAt != nil {
		t.Errorf("newer update = status %q supersededBy %q endedAt %v, want queued", got.Status, got.SupersededBy, got.EndedAt)
	}
	if got := mustGet(t, s.GetUpdate, other.ID); got.Status != lectern.UpdateQueued || got.SupersededBy != "" || got.EndedAt != nil {
		t.Errorf("another project's update = status %q supersededBy %q endedAt %v, want queued", got.Status, got.SupersededBy, got.EndedAt)
	}

	// A third update supersedes the second; the first stays superseded by the second.
	u3 := newUpdate(t, s, p1)
	if got := mustGet(t, s.GetUpdate, u2.ID); got.Status != lectern.UpdateSuperseded || got.SupersededBy != u3.ID {
		t.Errorf("second update: status %q supersededBy %q, want superseded by %s", got.Status, got.SupersededBy, u3.ID)
	}
	if got := mustGet(t, s.GetUpdate, u1.ID); got.SupersededBy != u2.ID {
		t.Errorf("first update: supersededBy changed to %q, want %s", got.SupersededBy, u2.ID)
	}

	// Superseded updates have no claimable job.
	if got, want := drain(t, s, store.KindUpdate, now()), []string{other.ID, u3.ID}; !sameSet(got, want) {
		t.Errorf("claimable update jobs = %v, want %v (superseded %s, %s excluded)", got, want, u1.ID, u2.ID)
	}
}

func testUpdateQueue(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	p1, p2, p3 := newProject(t, s, org.ID), newProject(t, s, org.ID), newProject(t, s, org.ID)
	other := newUpdate(t, s, p2)
	u1 := newUpdate(t, s, p1)
	at := now()

	// Both projects' updates are claimable, one job each.
	jobs := map[string]*store.Job{}
	leases := map[string]store.Lease{}
	for _, owner := range []string{"w1", "w2"} {
		j, l := mustClaim(t, s, store.KindUpdate, owner, at, time.Hour)
		jobs[j.ID], leases[j.ID] = j, l
	}
	if _, ok := jobs[u1.ID]; !ok {
		t.Fatalf("claimed %v, want %s and %s", slices.Collect(maps.Keys(jobs)), u1.ID, other.ID)
	}
	if _, ok := jobs[other.ID]; !ok {
		t.Fatalf("claimed %v, want %s and %s", slices.Collect(maps.Keys(jobs)), u1.ID, other.ID)
	}
	if j := jobs[other.ID]; j.GroupKey != p2.ID || j.Attempt != 1 || j.Kind != store.KindUpdate {
		t.Errorf("job of %s = %+v, want group %s attempt 1", other.ID, j, p2.ID)
	}
	claimNone(t, s, store.KindUpdate, "w3", at, "both queued updates are leased")

	l1 := leases[u1.ID]
	started := at.Add(time.Second)
	must(t, s.StartUpdate(t.Context(), l1, started), "StartUpdate")
	got := mustGet(t, s.GetUpdate, u1.ID)
	if got.Status != lectern.UpdateInProgress {
		t.Errorf("started update status %q, want in_progress", got.Status)
	}
	wantTimePtr(t, "StartedAt", got.StartedAt, started)

	// A new update of p1 does not supersede the in_progress one, and is not
	// claimable while p1's job is leased.
	u2 := newUpdate(t, s, p1)
	if got := mustGet(t, s.GetUpdate, u1.ID); got.Status != lectern.UpdateInProgress || got.SupersededBy != "" || got.EndedAt != nil {
		t.Errorf("in_progress update after a newer one: status %q supersededBy %q endedAt %v, want untouched", got.Status, got.SupersededBy, got.EndedAt)
	}
	if got := mustGet(t, s.GetUpdate, u2.ID); got.Status != lectern.UpdateQueued {
		t.Errorf("newer update status %q, want queued", got.Status)
	}
	claimNone(t, s, store.KindUpdate, "w3", now().Add(time.Minute), "project p1 already has a leased job")

	// Another project's job is still claimable.
	u3 := newUpdate(t, s, p3)
	j3, _ := mustClaimID(t, s, store.KindUpdate, "w3", u3.ID, now().Add(time.Minute), time.Hour)
	if j3.GroupKey != p3.ID {
		t.Errorf("job of %s has group %q, want %s", u3.ID, j3.GroupKey, p3.ID)
	}
	claimNone(t, s, store.KindUpdate, "w4", now().Add(time.Minute), "p1's new update waits for its running one")

	// Once p1's update finishes, its next one is claimable.
	must(t, s.FinishUpdate(t.Context(), l1, store.UpdateResult{Status: lectern.UpdateFailure, Summary: "boom", EndedAt: now()}), "FinishUpdate")
	j2, _ := mustClaimID(t, s, store.KindUpdate, "w4", u2.ID, now().Add(time.Minute), time.Hour)
	if j2.Attempt != 1 || j2.GroupKey != p1.ID {
		t.Errorf("job of %s = %+v, want attempt 1 group %s", u2.ID, j2, p1.ID)
	}

	// Long after every lease expired, only unfinished jobs come back.
	if got, want := drain(t, s, store.KindUpdate, now().Add(24*time.Hour)), []string{other.ID, u2.ID, u3.ID}; !sameSet(got, want) {
		t.Errorf("jobs claimable after their leases expired = %v, want %v (finished %s excluded)", got, want, u1.ID)
	}
}

func testUpdateFinish(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	p := newProject(t, s, org.ID)
	bystander := newProject(t, s, org.ID)
	base := now()

	// A successful update stores its deployment and makes it live.
	u1 := newUpdate(t, s, p)
	_, l := mustClaimID(t, s, store.KindUpdate, "w1", u1.ID, base, time.Hour)
	must(t, s.StartUpdate(t.Context(), l, base.Add(time.Second)), "StartUpdate")
	commit := lectern.Commit{SHA: "0123456789abcdef0123456789abcdef01234567", Ref: "refs/heads/main", Message: "Add guide\n\nwith ünïcode"}
	dep1 := &lectern.Deployment{ID: lectern.NewID(lectern.PrefixDeployment), ProjectID: p.ID, UpdateID: u1.ID, Commit: commit, PageCount: 12, CreatedAt: base.Add(time.Minute)}
	logs := []string{"fetching", "rendering 12 pages", "published"}
	ended := base.Add(time.Minute)
	must(t, s.FinishUpdate(t.Context(), l, store.UpdateResult{
		Status: lectern.UpdateSuccess, Summary: "Published 12 pages", Commit: &commit, Logs: logs, Deployment: dep1, EndedAt: ended,
	}), "FinishUpdate(success)")

	got := mustGet(t, s.GetUpdate, u1.ID)
	if got.Status != lectern.UpdateSuccess || got.Summary != "Published 12 pages" {
		t.Errorf("finished update: status %q summary %q, want success", got.Status, got.Summary)
	}
	if got.Commit == nil || *got.Commit != commit {
		t.Errorf("finished update Commit = %+v, want %+v", got.Commit, commit)
	}
	if !reflect.DeepEqual(got.Logs, logs) {
		t.Errorf("finished update Logs = %q, want %q", got.Logs, logs)
	}
	wantTimePtr(t, "StartedAt", got.StartedAt, base.Add(time.Second))
	wantTimePtr(t, "EndedAt", got.EndedAt, ended)

	gd, err := s.GetDeployment(t.Context(), dep1.ID)
	must(t, err, "GetDeployment")
	if gd.ID != dep1.ID || gd.ProjectID != p.ID || gd.UpdateID != u1.ID || gd.Commit != commit || gd.PageCount != 12 {
		t.Errorf("GetDeployment = %+v, want %+v", gd, dep1)
	}
	wantTime(t, "Deployment CreatedAt", gd.CreatedAt, dep1.CreatedAt)
	if live := mustGet(t, s.GetProject, p.ID).LiveDeploymentID; live != dep1.ID {
		t.Errorf("LiveDeploymentID = %q, want %s", live, dep1.ID)
	}
	if live := mustGet(t, s.GetProject, bystander.ID).LiveDeploymentID; live != "" {
		t.Errorf("another project's LiveDeploymentID = %q, want empty", live)
	}
	if pp, err := s.GetProjectByDomain(t.Context(), p.Domains[0]); err != nil || pp.LiveDeploymentID != dep1.ID {
		t.Errorf("GetProjectByDomain LiveDeploymentID = %v (err %v), want %s", pp, err, dep1.ID)
	}
	if pid, live, err := s.ResolveDomain(t.Context(), p.Domains[0]); err != nil || pid != p.ID || live != dep1.ID {
		t.Errorf("ResolveDomain = %q, %q, %v; want %s, %s", pid, live, err, p.ID, dep1.ID)
	}
	if _, live, _ := s.ResolveDomain(t.Context(), bystander.Domains[0]); live != "" {
		t.Errorf("ResolveDomain of another project's domain gives live %q, want empty", live)
	}
	claimNone(t, s, store.KindUpdate, "w2", base.Add(24*time.Hour), "the finished job must not run again")

	// A failed update keeps the previous deployment live.
	u2 := newUpdate(t, s, p)
	_, l = mustClaimID(t, s, store.KindUpdate, "w1", u2.ID, base.Add(2*time.Minute), time.Hour)
	must(t, s.StartUpdate(t.Context(), l, base.Add(2*time.Minute)), "StartUpdate")
	failLogs := []string{"fetching", "error: no such branch"}
	must(t, s.FinishUpdate(t.Context(), l, store.UpdateResult{
		Status: lectern.UpdateFailure, Summary: "Branch not found", Logs: failLogs, EndedAt: base.Add(3 * time.Minute),
	}), "FinishUpdate(failure)")
	got = mustGet(t, s.GetUpdate, u2.ID)
	if got.Status != lectern.UpdateFailure || got.Summary != "Branch not found" || !reflect.DeepEqual(got.Logs, failLogs) {
		t.Errorf("failed update = status %q summary %q logs %q", got.Status, got.Summary, got.Logs)
	}
	wantTimePtr(t, "failed update EndedAt", got.EndedAt, base.Add(3*time.Minute))
	if live := mustGet(t, s.GetProject, p.ID).LiveDeploymentID; live != dep1.ID {
		t.Errorf("LiveDeploymentID after a failed update = %q, want still %s", live, dep1.ID)
	}

	// A second success: the newest deployment is live and listed first.
	u3 := newUpdate(t, s, p)
	_, l = mustClaimID(t, s, store.KindUpdate, "w1", u3.ID, base.Add(4*time.Minute), time.Hour)
	must(t, s.StartUpdate(t.Context(), l, base.Add(4*time.Minute)), "StartUpdate")
	dep2 := &lectern.Deployment{ID: lectern.NewID(lectern.PrefixDeployment), ProjectID: p.ID, UpdateID: u3.ID, Commit: lectern.Commit{SHA: "fedcba", Ref: "main"}, PageCount: 13, CreatedAt: base.Add(5 * time.Minute)}
	must(t, s.FinishUpdate(t.Context(), l, store.UpdateResult{Status: lectern.UpdateSuccess, Deployment: dep2, Commit: &dep2.Commit, EndedAt: base.Add(5 * time.Minute)}), "FinishUpdate(success)")
	if live := mustGet(t, s.GetProject, p.ID).LiveDeploymentID; live != dep2.ID {
		t.Errorf("LiveDeploymentID = %q, want %s", live, dep2.ID)
	}
	deps, err := s.ListDeployments(t.Context(), p.ID, store.Page{})
	must(t, err, "ListDeployments")
	var ids []string
	for _, d := range deps {
		ids = append(ids, d.ID)
	}
	if want := []string{dep2.ID, dep1.ID}; !slices.Equal(ids, want) {
		t.Errorf("ListDeployments = %v, want newest first %v", ids, want)
	}
	if deps, err := s.ListDeployments(t.Context(), bystander.ID, store.Page{}); err != nil || len(deps) != 0 {
		t.Errorf("ListDeployments(project without deployments) = %d (err %v), want none", len(deps), err)
	}
	_, err = s.GetDeployment(t.Context(), missingID(lectern.PrefixDeployment))
	wantCode(t, err, lectern.ENOTFOUND, "GetDeployment(missing)")
}

func testDeleteDeployment(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	p := newProject(t, s, org.ID)
	var deps []string
	for i := range 2 {
		u := newUpdate(t, s, p)
		at := now().Add(time.Duration(i) * time.Hour)
		_, l := mustClaimID(t, s, store.KindUpdate, "w", u.ID, at, time.Minute)
		d := &lectern.Deployment{ID: lectern.NewID(lectern.PrefixDeployment), ProjectID: p.ID, UpdateID: u.ID, PageCount: i, CreatedAt: at}
		must(t, s.StartUpdate(t.Context(), l, at), "StartUpdate")
		must(t, s.FinishUpdate(t.Context(), l, store.UpdateResult{Status: lectern.UpdateSuccess, Deployment: d, EndedAt: at}), "FinishUpdate")
		deps = append(deps, d.ID)
	}
	old, live := deps[0], deps[1]

	err := s.DeleteDeployment(t.Context(), live)
	wantCode(t, err, lectern.ECONFLICT, "DeleteDeployment(live deployment)")
	if _, err := s.GetDeployment(t.Context(), live); err != nil {
		t.Errorf("live deployment gone after a refused delete: %v", err)
	}
	must(t, s.DeleteDeployment(t.Context(), old), "DeleteDeployment(old)")
	_, err = s.GetDeployment(t.Context(), old)
	wantCode(t, err, lectern.ENOTFOUND, "GetDeployment(deleted)")
	ds, err := s.ListDeployments(t.Context(), p.ID, store.Page{})
	must(t, err, "ListDeployments")
	if len(ds) != 1 || ds[0].ID != live {
		t.Errorf("ListDeployments after delete = %d deployments, want only %s", len(ds), live)
	}
	if got := mustGet(t, s.GetProject, p.ID).LiveDeploymentID; got != live {
		t.Errorf("LiveDeploymentID = %q after deleting an old deployment, want %s", got, live)
	}
}
