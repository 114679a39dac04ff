package storetest

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

var promoteCases = []testCase{
	{"MakesLiveAndRecords", testPromote},
	{"LiveAgain", testPromoteLive},
	{"NotFound", testPromoteNotFound},
	{"DeleteDeploymentAfter", testPromoteThenDelete},
	{"RacesDeleteDeployment", testPromoteRacesDelete},
}

// promoteAt returns a time later than every record a case has created so
// far, with nanoseconds below the microsecond that the stores drop.
func promoteAt() time.Time { return us(time.Now().UTC().Add(time.Second)).Add(789 * time.Nanosecond) }

// twoDeployments returns a project of org with two deployments published
// in turn: the first, and the second that is live.
func twoDeployments(t *testing.T, s store.Store, orgID string) (p *lectern.Project, first, live *lectern.Deployment) {
	t.Helper()
	p = newProject(t, s, orgID)
	first = publish(t, s, p, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")
	live = publish(t, s, p, "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb")
	wantLive(t, s, p, live.ID, "after two successful updates")
	return p, first, live
}

// wantPromoted checks the update PromoteDeployment recorded in u when it
// made dep live at at: u filled in as the doc says, and GetUpdate
// returning the same record.
func wantPromoted(t *testing.T, s store.Store, u *lectern.Update, p *lectern.Project, dep *lectern.Deployment, source, summary string, createdAt, at time.Time) {
	t.Helper()
	if !lectern.ValidID(lectern.PrefixUpdate, u.ID) {
		t.Errorf("PromoteDeployment set ID %q, want an %s ID", u.ID, lectern.PrefixUpdate)
	}
	if u.ProjectID != p.ID || u.OrgID != p.OrgID {
		t.Errorf("promotion update of project %q org %q, want %s of %s", u.ProjectID, u.OrgID, p.ID, p.OrgID)
	}
	if u.Status != lectern.UpdateSuccess || u.Source != source || u.Summary != summary || u.SupersededBy != "" {
		t.Errorf("promotion update: status %q source %q summary %q supersededBy %q; want %q, the caller's %q and %q, none",
			u.Status, u.Source, u.Summary, u.SupersededBy, lectern.UpdateSuccess, source, summary)
	}
	if !u.CreatedAt.Equal(us(createdAt)) {
		t.Errorf("promotion update CreatedAt = %v, want %v", u.CreatedAt, us(createdAt))
	}
	for name, got := range map[string]*time.Time{"StartedAt": u.StartedAt, "EndedAt": u.EndedAt} {
		if got == nil || !got.Equal(us(at)) {
			t.Errorf("promotion update %s = %s, want %v (at, to the microsecond)", name, fmtTime(got), us(at))
		}
	}
	if u.Commit == nil || *u.Commit != dep.Commit {
		t.Errorf("promotion update Commit = %+v, want the deployment's %+v", u.Commit, dep.Commit)
	}
	if u.DeploymentID != dep.ID {
		t.Errorf("promotion update DeploymentID = %q, want %s", u.DeploymentID, dep.ID)
	}
	wantSameUpdate(t, "GetUpdate of the promotion update vs the update PromoteDeployment filled in", mustGet(t, s.GetUpdate, u.ID), u)
}

// testPromote: PromoteDeployment of a project's former deployment makes it
// live (GetProject, GetProjectByDomain, ResolveDomain) and records the
// switch as a successful update of the project, filled into u (ID and
// CreatedAt at when empty, StartedAt and EndedAt at, the deployment's
// commit and ID, the caller's source and summary) and stored as such:
// GetUpdate returns it, ListUpdates lists it first. The deployments
// themselves, another project, and the job queue are untouched.
func testPromote(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	p, first, live := twoDeployments(t, s, org.ID)
	o := newProject(t, s, org.ID)
	odep := publish(t, s, o, "cccccccccccccccccccccccccccccccccccccccc")
	deps := map[string]*lectern.Deployment{}
	for _, id := range []string{first.ID, live.ID} {
		d, err := s.GetDeployment(t.Context(), id)
		must(t, err, "GetDeployment")
		deps[id] = d
	}
	updatesBefore := updateIDs(t, s, p.ID)
	jobs := countJobs(t, s)

	at := promoteAt()
	u := &lectern.Update{Source: "rollback", Summary: "Rolled back to aaaaaaa"}
	must(t, s.PromoteDeployment(t.Context(), p.ID, first.ID, u, at), "PromoteDeployment")
	wantPromoted(t, s, u, p, first, "rollback", "Rolled back to aaaaaaa", at, at)

	wantLive(t, s, p, first.ID, "after PromoteDeployment")
	if got, err := s.GetProjectByDomain(t.Context(), p.Domains[0]); err != nil || got.LiveDeploymentID != first.ID {
		t.Errorf("GetProjectByDomain after PromoteDeployment = %+v, %v; want live %s", got, err, first.ID)
	}
	if got, want := updateIDs(t, s, p.ID), append([]string{u.ID}, updatesBefore...); !slices.Equal(got, want) {
		t.Errorf("ListUpdates after PromoteDeployment = %v, want the promotion first: %v", got, want)
	}
	ups, err := s.ListUpdates(t.Context(), p.ID, store.Page{Limit: 1})
	must(t, err, "ListUpdates(limit 1)")
	if len(ups) != 1 {
		t.Fatalf("ListUpdates(limit 1) = %d updates, want 1", len(ups))
	}
	wantSameUpdate(t, "ListUpdates' newest update vs the promotion update", ups[0], u)

	for id, want := range deps {
		got, err := s.GetDeployment(t.Context(), id)
		must(t, err, "GetDeployment")
		if got.ID != want.ID || got.ProjectID != want.ProjectID || got.UpdateID != want.UpdateID || got.Commit != want.Commit ||
			got.PageCount != want.PageCount || !sameTime(got.CreatedAt, want.CreatedAt) {
			t.Errorf("deployment after PromoteDeployment = %+v, want untouched %+v", got, want)
		}
	}
	if got, want := deploymentIDs(t, s, p.ID), []string{live.ID, first.ID}; !slices.Equal(got, want) {
		t.Errorf("ListDeployments after PromoteDeployment = %v, want %v as they were", got, want)
	}
	wantLive(t, s, o, odep.ID, "of another project after PromoteDeployment")
	wantCounts(t, s, "after PromoteDeployment", jobs)
	claimNone(t, s, store.KindUpdate, "w", now().Add(24*time.Hour), "a promotion queues no work")
}

// testPromoteLive: promoting the live deployment again, or promoting
// back and forth, works each time: the live deployment is the one last
// promoted and every promotion is one more update, listed newest first;
// an ID and CreatedAt the caller set are kept.
func testPromoteLive(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	p, first, live := twoDeployments(t, s, org.ID)
	updatesBefore := updateIDs(t, s, p.ID)

	at1 := promoteAt()
	u1 := &lectern.Update{Source: "api", Summary: "Promoted"}
	must(t, s.PromoteDeployment(t.Context(), p.ID, live.ID, u1, at1), "PromoteDeployment(the live deployment)")
	wantPromoted(t, s, u1, p, live, "api", "Promoted", at1, at1)
	wantLive(t, s, p, live.ID, "after promoting the live deployment")

	// The caller's ID and CreatedAt are kept; StartedAt and EndedAt are at.
	created := us(at1.Add(time.Second))
	at2 := at1.Add(2 * time.Second)
	u2 := &lectern.Update{ID: lectern.NewID(lectern.PrefixUpdate), CreatedAt: created, Source: "api", Summary: "Promoted again"}
	id2 := u2.ID
	must(t, s.PromoteDeployment(t.Context(), p.ID, live.ID, u2, at2), "PromoteDeployment(the live deployment, again)")
	if u2.ID != id2 {
		t.Errorf("PromoteDeployment changed the caller's ID %s to %s", id2, u2.ID)
	}
	wantPromoted(t, s, u2, p, live, "api", "Promoted again", created, at2)
	wantLive(t, s, p, live.ID, "after promoting the live deployment twice")

	at3 := at1.Add(3 * time.Second)
	u3 := &lectern.Update{Source: "api", Summary: "Back"}
	must(t, s.PromoteDeployment(t.Context(), p.ID, first.ID, u3, at3), "PromoteDeployment(the first)")
	wantPromoted(t, s, u3, p, first, "api", "Back", at3, at3)
	wantLive(t, s, p, first.ID, "after promoting the first deployment")
	at4 := at1.Add(4 * time.Second)
	u4 := &lectern.Update{Source: "api", Summary: "Forth"}
	must(t, s.PromoteDeployment(t.Context(), p.ID, live.ID, u4, at4), "PromoteDeployment(the second)")
	wantPromoted(t, s, u4, p, live, "api", "Forth", at4, at4)
	wantLive(t, s, p, live.ID, "after promoting the second deployment back")

	want := append([]string{u4.ID, u3.ID, u2.ID, u1.ID}, updatesBefore...)
	if got := updateIDs(t, s, p.ID); !slices.Equal(got, want) {
		t.Errorf("ListUpdates after four promotions = %v, want %v", got, want)
	}
}

// testPromoteNotFound: PromoteDeployment of another project's deployment,
// of a missing or deleted deployment, of a missing project, or of a
// deleted project's deployment is ENOTFOUND and changes nothing: the live
// deployments and the updates (none recorded under the caller's ID) are as
// they were.
func testPromoteNotFound(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	p, first, live := twoDeployments(t, s, org.ID)
	gone := publish(t, s, p, "dddddddddddddddddddddddddddddddddddddddd")
	promote := func(projectID, deploymentID string) error {
		t.Helper()
		u := &lectern.Update{ID: lectern.NewID(lectern.PrefixUpdate), Source: "api"}
		err := s.PromoteDeployment(t.Context(), projectID, deploymentID, u, promoteAt())
		if err != nil {
			_, gerr := s.GetUpdate(t.Context(), u.ID)
			wantCode(t, gerr, lectern.ENOTFOUND, "GetUpdate of a refused promotion")
		}
		return err
	}
	must(t, promote(p.ID, live.ID), "PromoteDeployment") // gone is live no more
	must(t, s.DeleteDeployment(t.Context(), gone.ID), "DeleteDeployment")
	o := newProject(t, s, org.ID)
	odep := publish(t, s, o, "eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee")
	d := newProject(t, s, org.ID)
	ddep := publish(t, s, d, "ffffffffffffffffffffffffffffffffffffffff")
	must(t, s.DeleteProject(t.Context(), d.ID, time.Now().UTC()), "DeleteProject")

	pUpdates, oUpdates, dUpdates := updateIDs(t, s, p.ID), updateIDs(t, s, o.ID), updateIDs(t, s, d.ID)
	for _, c := range []struct {
		what                    string
		projectID, deploymentID string
	}{
		{"another project's deployment", p.ID, odep.ID},
		{"a deployment of the other project", o.ID, first.ID},
		{"a missing deployment", p.ID, missingID(lectern.PrefixDeployment)},
		{"a deleted deployment", p.ID, gone.ID},
		{"a missing project", missingID(lectern.PrefixProject), first.ID},
		{"a deleted project's deployment", d.ID, ddep.ID},
		{"a deleted project's deployment, to another project", p.ID, ddep.ID},
	} {
		wantCode(t, promote(c.projectID, c.deploymentID), lectern.ENOTFOUND, "PromoteDeployment("+c.what+")")
	}
	wantLive(t, s, p, live.ID, "after refused promotions")
	wantLive(t, s, o, odep.ID, "of the other project after refused promotions")
	for _, c := range []struct {
		what      string
		id        string
		want, got []string
	}{
		{"the project", p.ID, pUpdates, updateIDs(t, s, p.ID)},
		{"the other project", o.ID, oUpdates, updateIDs(t, s, o.ID)},
		{"the deleted project", d.ID, dUpdates, updateIDs(t, s, d.ID)},
	} {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("ListUpdates(%s) after refused promotions = %v, want %v as before", c.what, c.got, c.want)
		}
	}
	if _, err := s.GetDeployment(t.Context(), ddep.ID); err != nil {
		t.Errorf("GetDeployment of the deleted project's deployment after a refused promotion: %v", err)
	}
	_, _, err := s.ResolveDomain(t.Context(), d.Domains[0])
	wantCode(t, err, lectern.ENOTFOUND, "ResolveDomain(domain of a deleted project) after a refused promotion")
}

// testPromoteThenDelete: once promoted, a deployment is live and cannot be
// deleted (ECONFLICT, still readable), while the formerly live one can now
// be deleted without changing the live one.
func testPromoteThenDelete(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	p, first, live := twoDeployments(t, s, org.ID)
	u := &lectern.Update{Source: "api"}
	must(t, s.PromoteDeployment(t.Context(), p.ID, first.ID, u, promoteAt()), "PromoteDeployment")
	err := s.DeleteDeployment(t.Context(), first.ID)
	wantCode(t, err, lectern.ECONFLICT, "DeleteDeployment(the promoted, now live, deployment)")
	if _, err := s.GetDeployment(t.Context(), first.ID); err != nil {
		t.Errorf("GetDeployment of the live deployment after a refused delete: %v", err)
	}
	must(t, s.DeleteDeployment(t.Context(), live.ID), "DeleteDeployment(the formerly live deployment)")
	_, err = s.GetDeployment(t.Context(), live.ID)
	wantCode(t, err, lectern.ENOTFOUND, "GetDeployment(deleted)")
	wantLive(t, s, p, first.ID, "after deleting the formerly live deployment")
	if got, want := deploymentIDs(t, s, p.ID), []string{first.ID}; !slices.Equal(got, want) {
		t.Errorf("ListDeployments = %v, want %v", got, want)
	}
	// The promotion record still names its deployment.
	if got := mustGet(t, s.GetUpdate, u.ID); got.DeploymentID != first.ID || got.Status != lectern.UpdateSuccess {
		t.Errorf("promotion update after the deletes = %s, want a success naming %s", fmtUpdate(got), first.ID)
	}
}

// testPromoteRacesDelete races PromoteDeployment with DeleteDeployment of
// the same former (not live) deployment: either the promotion won (the
// deployment is live and still stored, its update recorded, the delete
// ECONFLICT) or the delete did (the deployment is gone, the promotion
// ENOTFOUND recording nothing, the live deployment unchanged); never both,
// never another error, and never a live deployment whose record is gone.
func testPromoteRacesDelete(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	type work struct {
		p               *lectern.Project
		first, live     *lectern.Deployment
		u               *lectern.Update
		promErr, delErr error
	}
	ws := make([]*work, raceProjects)
	for i := range ws {
		w := &work{}
		w.p, w.first, w.live = twoDeployments(t, s, org.ID)
		w.u = &lectern.Update{ID: lectern.NewID(lectern.PrefixUpdate), Source: "api", Summary: "Rollback"}
		ws[i] = w
	}
	at := promoteAt()
	raceAll(t, ws, func(ctx context.Context, w *work) { w.promErr = s.PromoteDeployment(ctx, w.p.ID, w.first.ID, w.u, at) },
		func(ctx context.Context, w *work) { w.delErr = s.DeleteDeployment(ctx, w.first.ID) })

	won := map[string]int{} // how often each side won, for -v
	defer func() { t.Logf("PromoteDeployment vs DeleteDeployment, wins: %v", won) }()
	for i, w := range ws {
		what := fmt.Sprintf("project %d", i)
		live := mustGet(t, s.GetProject, w.p.ID).LiveDeploymentID
		if _, err := s.GetDeployment(t.Context(), live); err != nil {
			t.Errorf("%s: the live deployment %q cannot be read: %v", what, live, err)
		}
		_, derr := s.GetDeployment(t.Context(), w.first.ID)
		rec, uerr := s.GetUpdate(t.Context(), w.u.ID)
		switch p, d := lectern.ErrorCode(w.promErr), lectern.ErrorCode(w.delErr); {
		case w.promErr == nil && d == lectern.ECONFLICT:
			won["promote"]++
			if live != w.first.ID || derr != nil {
				t.Errorf("%s: PromoteDeployment won but the live deployment is %q and GetDeployment(%s) says %v", what, live, w.first.ID, derr)
			}
			if uerr != nil || rec.Status != lectern.UpdateSuccess || rec.DeploymentID != w.first.ID {
				t.Errorf("%s: PromoteDeployment won but its update is %s (err %v)", what, fmtUpdate(rec), uerr)
			}
		case p == lectern.ENOTFOUND && w.delErr == nil:
			won["delete"]++
			if live != w.live.ID {
				t.Errorf("%s: DeleteDeployment won but the live deployment is %q, want still %s", what, live, w.live.ID)
			}
			wantCode(t, derr, lectern.ENOTFOUND, what+": GetDeployment of the deleted deployment")
			wantCode(t, uerr, lectern.ENOTFOUND, what+": GetUpdate of the refused promotion")
		default:
			t.Errorf("%s: PromoteDeployment racing DeleteDeployment: promote %v, delete %v; want exactly one nil and the other %s or %s (live now %q)",
				what, w.promErr, w.delErr, lectern.ENOTFOUND, lectern.ECONFLICT, live)
		}
	}
}
