package storetest

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

var pagingCases = []testCase{
	{"Projects", testPageProjects},
	{"Deployments", testPageDeployments},
	{"Updates", testPageUpdates},
	{"Exports", testPageExports},
	{"ExportFilters", testPageExportFilters},
}

// rec is a listed record's place in a newest-first list.
type rec struct {
	ID string
	At time.Time
}

func (r rec) cursor() *store.Cursor { return &store.Cursor{At: r.At, ID: r.ID} }

// lister lists one page of a list and returns the places of its records.
type lister func(pg store.Page) ([]rec, error)

// pagingOffsets are the creation times, in minutes after a base time, of
// the records of a paged list, oldest first: two groups of records share
// their times.
var pagingOffsets = []int{0, 1, 1, 1, 2, 3, 3, 3, 3}

// pagingOrder is the order in which the records of pagingOffsets are
// created: not by time, and within each group of equal times by ID
// neither up nor down, so that no insertion order passes for the list's.
var pagingOrder = []int{4, 2, 7, 0, 5, 1, 8, 3, 6}

// planRecs returns the places of records created at base plus offsets
// minutes, oldest first, with fresh IDs that increase with the index (so
// that records of equal times are ordered by the IDs given).
func planRecs(prefix string, base time.Time, offsets []int) []rec {
	ids := make([]string, len(offsets))
	for i := range ids {
		ids[i] = lectern.NewID(prefix)
	}
	slices.Sort(ids)
	rs := make([]rec, len(offsets))
	for i, off := range offsets {
		rs[i] = rec{ID: ids[i], At: us(base.Add(time.Duration(off) * time.Minute))}
	}
	return rs
}

// newestFirst returns rs in the order of every paged list: CreatedAt
// descending, then ID descending.
func newestFirst(rs []rec) []rec {
	rs = slices.Clone(rs)
	slices.SortFunc(rs, func(a, b rec) int {
		if c := us(b.At).Compare(us(a.At)); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
	return rs
}

func recIDs(rs []rec) []string {
	ids := make([]string, len(rs))
	for i, r := range rs {
		ids[i] = r.ID
	}
	return ids
}

// sameRecs reports whether got lists the records of want in the same
// order, with their creation times.
func sameRecs(got, want []rec) bool {
	return slices.EqualFunc(got, want, func(a, b rec) bool { return a.ID == b.ID && sameTime(a.At, b.At) })
}

// wantList checks one call of a list against want.
func wantList(t *testing.T, what string, list lister, pg store.Page, want []rec) bool {
	t.Helper()
	got, err := list(pg)
	if err != nil {
		t.Errorf("%s: %v", what, err)
		return false
	}
	if !sameRecs(got, want) {
		t.Errorf("%s = %v, want %v", what, recIDs(got), recIDs(want))
		return false
	}
	return true
}

// wantPages checks a list against want, its records newest first: all of
// them with the zero Page; the first page of every size; walks of every
// page size, each page after the previous page's last record, that return
// every record exactly once and in order, then an empty page; and, after
// each record, the rest of the list. It reports the first failure of each
// of these.
func wantPages(t *testing.T, what string, list lister, want []rec) {
	t.Helper()
	wantList(t, what+" (all)", list, store.Page{}, want)
pageSizes:
	for limit := 1; limit <= len(want)+1; limit++ {
		if !wantList(t, fmt.Sprintf("%s (first page, Limit %d)", what, limit), list, store.Page{Limit: limit}, want[:min(limit, len(want))]) {
			break
		}
		var after *store.Cursor
		for pos, n := 0, 0; ; n++ {
			if n > len(want)+1 {
				t.Errorf("%s: walking pages of %d never ends", what, limit)
				break pageSizes
			}
			got, err := list(store.Page{Limit: limit, After: after})
			if err != nil {
				t.Errorf("%s (page %d of size %d): %v", what, n+1, limit, err)
				break pageSizes
			}
			exp := want[pos:min(pos+limit, len(want))]
			if !sameRecs(got, exp) {
				t.Errorf("%s: page %d of size %d (after %v) = %v, want %v", what, n+1, limit, after, recIDs(got), recIDs(exp))
				break pageSizes
			}
			if len(got) == 0 {
				break
			}
			pos += len(got)
			after = got[len(got)-1].cursor()
		}
	}
	for i, r := range want {
		if !wantList(t, fmt.Sprintf("%s (after record %d, no limit)", what, i), list, store.Page{After: r.cursor()}, want[i+1:]) ||
			!wantList(t, fmt.Sprintf("%s (after record %d, Limit 2)", what, i), list, store.Page{Limit: 2, After: r.cursor()}, want[i+1:min(i+3, len(want))]) {
			break
		}
	}
	if len(want) > 0 {
		// A place newer than every record: the whole list.
		later := &store.Cursor{At: want[0].At.Add(time.Hour), ID: want[0].ID}
		wantList(t, what+" (after a place newer than every record)", list, store.Page{After: later}, want)
	}
}

// wantAfterGone checks that a cursor still works once its record is gone:
// the list continues after its place. rest is the list after that place.
func wantAfterGone(t *testing.T, what string, list lister, gone rec, rest []rec) {
	t.Helper()
	wantList(t, what+" (after a removed record)", list, store.Page{After: gone.cursor()}, rest)
	wantList(t, what+" (after a removed record, Limit 2)", list, store.Page{Limit: 2, After: gone.cursor()}, rest[:min(2, len(rest))])
}

// pagingBase is a base time for the records of a paged list, in the past.
func pagingBase() time.Time { return us(time.Now().UTC().Add(-24 * time.Hour)) }

// projectLister lists ListProjects(orgID), checking that each project is
// of orgID.
func projectLister(t *testing.T, s store.Store, orgID string) lister {
	return func(pg store.Page) ([]rec, error) {
		ps, err := s.ListProjects(t.Context(), orgID, pg)
		var rs []rec
		for _, p := range ps {
			if orgID != "" && p.OrgID != orgID {
				t.Errorf("ListProjects(%s) returned project %s of org %s", orgID, p.ID, p.OrgID)
			}
			rs = append(rs, rec{p.ID, p.CreatedAt})
		}
		return rs, err
	}
}

// createProjectAt stores a project of orgID with the given ID and CreatedAt.
func createProjectAt(t *testing.T, s store.Store, orgID string, r rec) *lectern.Project {
	t.Helper()
	p := &lectern.Project{ID: r.ID, OrgID: orgID, Name: "Project " + unique(), RepoURL: "https://git.example.com/acme/docs.git",
		Branch: "main", DocsRoot: "docs", Domains: []string{domain()}, DeploymentType: lectern.DeploymentCloud, CreatedAt: r.At}
	must(t, s.CreateProject(t.Context(), p), "CreateProject")
	return p
}

// testPageProjects: ListProjects lists an organization's projects (or
// everyone's), newest first and by ID among equal times, in pages that
// walk the list once; a cursor still works once its project is deleted.
func testPageProjects(t *testing.T, s store.Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	base := pagingBase()
	ra := planRecs(lectern.PrefixProject, base, pagingOffsets)
	rb := planRecs(lectern.PrefixProject, base, []int{1, 1, 3})
	for n, i := range pagingOrder {
		createProjectAt(t, s, a.ID, ra[i])
		if n < len(rb) {
			createProjectAt(t, s, b.ID, rb[n])
		}
	}
	empty := newOrg(t, s)

	wantA, wantB := newestFirst(ra), newestFirst(rb)
	wantPages(t, "ListProjects(org a)", projectLister(t, s, a.ID), wantA)
	wantPages(t, "ListProjects(org b)", projectLister(t, s, b.ID), wantB)
	wantPages(t, "ListProjects(all)", projectLister(t, s, ""), newestFirst(append(slices.Clone(ra), rb...)))
	wantPages(t, "ListProjects(org without projects)", projectLister(t, s, empty.ID), nil)

	// A deleted project leaves the list, and a cursor that names it still
	// works.
	gone := wantA[3] // in the middle of the group of four equal times
	must(t, s.DeleteProject(t.Context(), gone.ID, time.Now().UTC()), "DeleteProject")
	rest := slices.Delete(slices.Clone(wantA), 3, 4)
	wantPages(t, "ListProjects(org a) after a delete", projectLister(t, s, a.ID), rest)
	wantAfterGone(t, "ListProjects(org a)", projectLister(t, s, a.ID), gone, rest[3:])
}

// deploymentLister lists ListDeployments(projectID), checking that each
// deployment is of projectID.
func deploymentLister(t *testing.T, s store.Store, projectID string) lister {
	return func(pg store.Page) ([]rec, error) {
		ds, err := s.ListDeployments(t.Context(), projectID, pg)
		var rs []rec
		for _, d := range ds {
			if d.ProjectID != projectID {
				t.Errorf("ListDeployments(%s) returned deployment %s of project %s", projectID, d.ID, d.ProjectID)
			}
			rs = append(rs, rec{d.ID, d.CreatedAt})
		}
		return rs, err
	}
}

// newDeployment runs an update of p to success and returns the deployment
// it published, with the given ID and CreatedAt.
func newDeployment(t *testing.T, s store.Store, p *lectern.Project, r rec) *lectern.Deployment {
	t.Helper()
	u := newUpdate(t, s, p)
	_, l := mustClaimID(t, s, store.KindUpdate, "w", u.ID, now(), time.Hour)
	must(t, s.StartUpdate(t.Context(), l, now()), "StartUpdate")
	d := &lectern.Deployment{ID: r.ID, ProjectID: p.ID, UpdateID: u.ID, Commit: lectern.Commit{SHA: "abc123", Ref: "main"}, PageCount: 1, CreatedAt: r.At}
	must(t, s.FinishUpdate(t.Context(), l, store.UpdateResult{Status: lectern.UpdateSuccess, Summary: "ok", Commit: &d.Commit, Deployment: d, EndedAt: now()}), "FinishUpdate")
	return d
}

// testPageDeployments: ListDeployments lists one project's deployments,
// newest first and by ID among equal times, in pages that walk the list
// once; a cursor still works once its deployment is deleted.
func testPageDeployments(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	p, q := newProject(t, s, org.ID), newProject(t, s, org.ID)
	base := pagingBase()
	rp := planRecs(lectern.PrefixDeployment, base, pagingOffsets)
	rq := planRecs(lectern.PrefixDeployment, base, []int{1, 1, 3})
	for n, i := range pagingOrder {
		newDeployment(t, s, p, rp[i])
		if n < len(rq) {
			newDeployment(t, s, q, rq[n])
		}
	}
	bystander := newProject(t, s, org.ID)

	want := newestFirst(rp)
	wantPages(t, "ListDeployments(p)", deploymentLister(t, s, p.ID), want)
	wantPages(t, "ListDeployments(q)", deploymentLister(t, s, q.ID), newestFirst(rq))
	wantPages(t, "ListDeployments(project without deployments)", deploymentLister(t, s, bystander.ID), nil)

	// The live deployment is the last one published (rp[6], want[2]);
	// delete another in the middle of the group of four equal times.
	gone := want[3]
	must(t, s.DeleteDeployment(t.Context(), gone.ID), "DeleteDeployment")
	rest := slices.Delete(slices.Clone(want), 3, 4)
	wantPages(t, "ListDeployments(p) after a delete", deploymentLister(t, s, p.ID), rest)
	wantAfterGone(t, "ListDeployments(p)", deploymentLister(t, s, p.ID), gone, rest[3:])
}

// updateLister lists ListUpdates(projectID), checking that each update is
// of projectID.
func updateLister(t *testing.T, s store.Store, projectID string) lister {
	return func(pg store.Page) ([]rec, error) {
		ups, err := s.ListUpdates(t.Context(), projectID, pg)
		var rs []rec
		for _, u := range ups {
			if u.ProjectID != projectID {
				t.Errorf("ListUpdates(%s) returned update %s of project %s", projectID, u.ID, u.ProjectID)
			}
			rs = append(rs, rec{u.ID, u.CreatedAt})
		}
		return rs, err
	}
}

// createUpdateAt stores a queued update of p with the given ID and
// CreatedAt.
func createUpdateAt(t *testing.T, s store.Store, p *lectern.Project, r rec) *lectern.Update {
	t.Helper()
	u := &lectern.Update{ID: r.ID, ProjectID: p.ID, OrgID: p.OrgID, Status: lectern.UpdateQueued, Source: "api", CreatedAt: r.At}
	must(t, s.CreateUpdate(t.Context(), u), "CreateUpdate")
	return u
}

// testPageUpdates: ListUpdates lists one project's updates, whatever their
// state, newest first and by ID among equal times, in pages that walk the
// list once.
func testPageUpdates(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	p, q := newProject(t, s, org.ID), newProject(t, s, org.ID)
	base := pagingBase()
	rp := planRecs(lectern.PrefixUpdate, base, pagingOffsets)
	rq := planRecs(lectern.PrefixUpdate, base, []int{1, 1, 3})
	for n, i := range pagingOrder {
		createUpdateAt(t, s, p, rp[i])
		if n < len(rq) {
			createUpdateAt(t, s, q, rq[n])
		}
		if n == 4 {
			// The newest queued update of p runs to the end, q's stays
			// running: the lists hold every state.
			for _, owner := range []string{"w1", "w2"} {
				_, l := mustClaim(t, s, store.KindUpdate, owner, now(), time.Hour)
				must(t, s.StartUpdate(t.Context(), l, now()), "StartUpdate")
				if mustGet(t, s.GetUpdate, l.JobID).ProjectID == p.ID {
					must(t, s.FinishUpdate(t.Context(), l, store.UpdateResult{Status: lectern.UpdateFailure, Summary: "x", EndedAt: now()}), "FinishUpdate")
				}
			}
		}
	}
	bystander := newProject(t, s, org.ID)
	wantPages(t, "ListUpdates(p)", updateLister(t, s, p.ID), newestFirst(rp))
	wantPages(t, "ListUpdates(q)", updateLister(t, s, q.ID), newestFirst(rq))
	wantPages(t, "ListUpdates(project without updates)", updateLister(t, s, bystander.ID), nil)
}

// exportLister lists ListExports(f), checking that each export is one f
// selects.
func exportLister(t *testing.T, s store.Store, f store.ExportFilter) lister {
	return func(pg store.Page) ([]rec, error) {
		es, err := s.ListExports(t.Context(), f, pg)
		var rs []rec
		for _, e := range es {
			if e.OrgID != f.OrgID || (f.Domain != "" && e.Domain != f.Domain) || (f.Status != "" && e.Status != f.Status) {
				t.Errorf("ListExports(%+v) returned export %s of org %s, domain %s, status %s", f, e.ID, e.OrgID, e.Domain, e.Status)
			}
			rs = append(rs, rec{e.ID, e.CreatedAt})
		}
		return rs, err
	}
}

// pagedExport is an export of the paging cases: its place and how far it
// goes.
type pagedExport struct {
	rec
	project *lectern.Project
	domain  string
	status  lectern.ExportStatus
}

// createExports stores the exports in the given order. Each completed or
// failed export is claimed and finished at once, so they must come first;
// then at most one running export, then queued ones.
func createExports(t *testing.T, s store.Store, es []pagedExport, order []int) {
	t.Helper()
	for _, i := range order {
		x := es[i]
		e := &lectern.ExportJob{ID: x.ID, OrgID: x.project.OrgID, ProjectID: x.project.ID, Domain: x.domain, BasePath: "/docs",
			Status: lectern.ExportQueued, CreatedAt: x.At, UpdatedAt: x.At}
		must(t, s.CreateExport(t.Context(), e, store.ExportQuota{}), "CreateExport "+x.domain)
		switch x.status {
		case lectern.ExportCompleted, lectern.ExportFailed:
			finishExport(t, s, e, x.status)
		case lectern.ExportRunning:
			_, l := mustClaimID(t, s, store.KindExport, "w", e.ID, now(), time.Hour)
			must(t, s.SetExportProgress(t.Context(), l, 10, 2, now()), "SetExportProgress")
		}
	}
	for _, x := range es {
		if got := mustGet(t, s.GetExport, x.ID); got.Status != x.status {
			t.Fatalf("export %s is %q, want %q", x.ID, got.Status, x.status)
		}
	}
}

// pagingExports stores exports of two projects of one organization, and of
// another organization's project, in every state; it returns them, oldest
// first, with the domains of the first organization (d1, d2, d3) and the
// other's (d4).
func pagingExports(t *testing.T, s store.Store) (a, b *lectern.Organization, es []pagedExport, doms [4]string) {
	a, b = newOrg(t, s), newOrg(t, s)
	doms = [4]string{domain(), domain(), domain(), domain()}
	p := newProject(t, s, a.ID, doms[0], doms[1])
	q := newProject(t, s, a.ID, doms[2])
	r := newProject(t, s, b.ID, doms[3])
	rs := planRecs(lectern.PrefixExport, pagingBase(), append(slices.Clone(pagingOffsets), 1, 3))
	plan := []struct {
		p   *lectern.Project
		dom string
		st  lectern.ExportStatus
	}{
		{p, doms[0], lectern.ExportCompleted}, // 0: +0
		{p, doms[0], lectern.ExportFailed},    // 1: +1
		{p, doms[1], lectern.ExportCompleted}, // 2: +1
		{q, doms[2], lectern.ExportCompleted}, // 3: +1
		{p, doms[0], lectern.ExportCompleted}, // 4: +2
		{p, doms[1], lectern.ExportFailed},    // 5: +3
		{p, doms[0], lectern.ExportQueued},    // 6: +3
		{p, doms[1], lectern.ExportRunning},   // 7: +3
		{q, doms[2], lectern.ExportQueued},    // 8: +3
		{r, doms[3], lectern.ExportCompleted}, // 9: +1 (org b)
		{r, doms[3], lectern.ExportQueued},    // 10: +3 (org b)
	}
	for i, x := range plan {
		es = append(es, pagedExport{rs[i], x.p, x.dom, x.st})
	}
	// Finished first (the group of +1 created 2, 9, 1, 3), then the
	// running one, then the queued ones (the group of +3 created 5, 7, 8,
	// 10, 6).
	createExports(t, s, es, []int{4, 2, 9, 0, 5, 1, 3, 7, 8, 10, 6})
	return a, b, es, doms
}

// selectExports returns the places of the exports that keep selects,
// newest first.
func selectExports(es []pagedExport, keep func(pagedExport) bool) []rec {
	var rs []rec
	for _, e := range es {
		if keep(e) {
			rs = append(rs, e.rec)
		}
	}
	return newestFirst(rs)
}

// testPageExports: ListExports lists an organization's exports (never
// another's), whatever their state, newest first and by ID among equal
// times, in pages that walk the list once; a cursor still works once its
// export is deleted.
func testPageExports(t *testing.T, s store.Store) {
	a, b, es, _ := pagingExports(t, s)
	ofA := selectExports(es, func(e pagedExport) bool { return e.project.OrgID == a.ID })
	wantPages(t, "ListExports(org a)", exportLister(t, s, store.ExportFilter{OrgID: a.ID}), ofA)
	wantPages(t, "ListExports(org b)", exportLister(t, s, store.ExportFilter{OrgID: b.ID}),
		selectExports(es, func(e pagedExport) bool { return e.project.OrgID == b.ID }))
	empty := newOrg(t, s)
	wantPages(t, "ListExports(org without exports)", exportLister(t, s, store.ExportFilter{OrgID: empty.ID}), nil)

	// The listed exports are whole: their state and domain.
	got, err := s.ListExports(t.Context(), store.ExportFilter{OrgID: a.ID}, store.Page{})
	must(t, err, "ListExports")
	byID := map[string]pagedExport{}
	for _, e := range es {
		byID[e.ID] = e
	}
	for _, e := range got {
		if x := byID[e.ID]; e.Status != x.status || e.Domain != x.domain || e.ProjectID != x.project.ID || e.BasePath != "/docs" {
			t.Errorf("ListExports: export %s is %s of %s (project %s, base %q), want %s of %s (project %s, base /docs)",
				e.ID, e.Status, e.Domain, e.ProjectID, e.BasePath, x.status, x.domain, x.project.ID)
		}
	}

	// Delete a finished export in the middle of the group of four equal
	// times (ofA: 8, 7, 6, 5, ... — 5 is the failed one).
	gone := ofA[3]
	if gone.ID != es[5].ID {
		t.Fatalf("ofA[3] = %s, want export 5 (%s)", gone.ID, es[5].ID)
	}
	must(t, s.DeleteExport(t.Context(), gone.ID), "DeleteExport")
	rest := slices.Delete(slices.Clone(ofA), 3, 4)
	wantPages(t, "ListExports(org a) after a delete", exportLister(t, s, store.ExportFilter{OrgID: a.ID}), rest)
	wantAfterGone(t, "ListExports(org a)", exportLister(t, s, store.ExportFilter{OrgID: a.ID}), gone, rest[3:])
}

// testPageExportFilters: ListExports selects by domain, by state, and by
// both, within the organization only, and pages the selection.
func testPageExportFilters(t *testing.T, s store.Store) {
	a, b, es, doms := pagingExports(t, s)
	for _, f := range []store.ExportFilter{
		{OrgID: a.ID, Domain: doms[0]},
		{OrgID: a.ID, Domain: doms[1]},
		{OrgID: a.ID, Domain: doms[2]},
		{OrgID: a.ID, Status: lectern.ExportCompleted},
		{OrgID: a.ID, Status: lectern.ExportFailed},
		{OrgID: a.ID, Status: lectern.ExportQueued},
		{OrgID: a.ID, Status: lectern.ExportRunning},
		{OrgID: a.ID, Status: lectern.ExportCanceled},
		{OrgID: a.ID, Domain: doms[0], Status: lectern.ExportCompleted},
		{OrgID: a.ID, Domain: doms[1], Status: lectern.ExportFailed},
		{OrgID: a.ID, Domain: doms[2], Status: lectern.ExportFailed},
		{OrgID: a.ID, Domain: doms[3]},                // another organization's domain
		{OrgID: b.ID, Domain: doms[0]},                // the first organization's domain
		{OrgID: b.ID, Status: lectern.ExportQueued},   // only b's own
		{OrgID: b.ID, Status: lectern.ExportRunning},  // a's running one is not b's
		{OrgID: a.ID, Domain: "docs-unknown.example"}, // nobody's
	} {
		want := selectExports(es, func(e pagedExport) bool {
			return e.project.OrgID == f.OrgID && (f.Domain == "" || e.domain == f.Domain) && (f.Status == "" || e.status == f.Status)
		})
		wantPages(t, fmt.Sprintf("ListExports(%+v)", f), exportLister(t, s, f), want)
	}
}
