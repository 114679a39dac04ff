package storetest

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

// fairnessCases check ClaimJob's sharing of workers between
// organizations (issue 22).
var fairnessCases = []testCase{
	{"OthersNotBehindBacklog", testClaimFairBetweenOrgs},
	{"OrgLimit", testClaimOrgLimit},
	{"PlanLimits", testClaimPlanLimits},
	{"UpdatesBeforeExports", testClaimUpdatesBeforeExports},
	{"QueuePlace", testQueuePlace},
	{"OrgRunning", testClaimOrgRunning},
}

// claimUntilNone claims with p until no job is given, at most most+1
// times, and returns how many were.
func claimUntilNone(t *testing.T, s store.Store, p store.ClaimParams, most int) int {
	t.Helper()
	n := 0
	for n <= most && claimWith(t, s, p) != nil {
		n++
	}
	return n
}

// claimWith claims a job of the kinds with p's limits.
func claimWith(t *testing.T, s store.Store, p store.ClaimParams) *store.Job {
	t.Helper()
	if p.Now.IsZero() {
		p.Now = now()
	}
	if p.LeaseFor == 0 {
		p.LeaseFor = time.Hour
	}
	if p.Owner == "" {
		p.Owner = "w"
	}
	j, _, err := s.ClaimJob(t.Context(), p)
	must(t, err, "ClaimJob")
	return j
}

// testClaimFairBetweenOrgs: one organization holds 50 queued updates, made
// first; two others then queue one each. The two others' updates are
// among the first three claimed, not behind the backlog, and the claims
// then go round the organizations with work in turn.
func testClaimFairBetweenOrgs(t *testing.T, s store.Store) {
	busy := newOrg(t, s)
	var backlog []string
	for range 50 {
		backlog = append(backlog, newUpdate(t, s, newProject(t, s, busy.ID)).ID)
	}
	time.Sleep(2 * time.Millisecond)
	b, c := newOrg(t, s), newOrg(t, s)
	ub := newUpdate(t, s, newProject(t, s, b.ID))
	time.Sleep(2 * time.Millisecond)
	uc := newUpdate(t, s, newProject(t, s, c.ID))
	org := map[string]string{ub.ID: b.ID, uc.ID: c.ID}
	for _, id := range backlog {
		org[id] = busy.ID
	}
	var got []string
	for i := range 6 {
		j := claimWith(t, s, store.ClaimParams{Kinds: []string{store.KindUpdate}, Owner: fmt.Sprint("w", i)})
		if j == nil {
			t.Fatalf("claim %d: no job, with %d queued", i, 52-i)
		}
		got = append(got, j.ID)
	}
	if i := slices.Index(got, ub.ID); i < 0 || i > 2 {
		t.Errorf("the second organization's update was claimed %dth (claims %v), want among the first three", i+1, got)
	}
	if i := slices.Index(got, uc.ID); i < 0 || i > 2 {
		t.Errorf("the third organization's update was claimed %dth (claims %v), want among the first three", i+1, got)
	}
	// The backlog's jobs are claimed oldest first.
	var fromBacklog []string
	for _, id := range got {
		if org[id] == busy.ID {
			fromBacklog = append(fromBacklog, id)
		}
	}
	if want := backlog[:len(fromBacklog)]; !slices.Equal(fromBacklog, want) {
		t.Errorf("the busy organization's jobs were claimed as %v, want its oldest first %v", fromBacklog, want)
	}
}

// testClaimOrgLimit: with OrgLimit 2, an organization never has more than
// two jobs under a live lease, whatever it has queued: a third claim finds
// nothing while another organization's job is claimed; once one of its
// jobs ends, or its lease expires, the next is claimed.
func testClaimOrgLimit(t *testing.T, s store.Store) {
	a := newOrg(t, s)
	var ps []*lectern.Project
	for range 4 {
		p := newProject(t, s, a.ID)
		ps = append(ps, p)
		newUpdate(t, s, p)
	}
	params := store.ClaimParams{Kinds: []string{store.KindUpdate, store.KindExport}, OrgLimit: 2}
	first := claimWith(t, s, params)
	second := claimWith(t, s, params)
	if first == nil || second == nil {
		t.Fatal("the first two claims found no job")
	}
	if j := claimWith(t, s, params); j != nil {
		t.Fatalf("a third job %s of the organization was claimed with OrgLimit 2", j.ID)
	}
	other := newOrg(t, s)
	uo := newUpdate(t, s, newProject(t, s, other.ID))
	if j := claimWith(t, s, params); j == nil || j.ID != uo.ID {
		t.Fatalf("claim with the first organization at its limit = %v, want the other organization's %s", j, uo.ID)
	}
	// Without a limit, the first organization's next job is claimed.
	if j := claimWith(t, s, store.ClaimParams{Kinds: []string{store.KindUpdate}}); j == nil {
		t.Fatal("no job claimed without a limit")
	}
	// A lease that expired no longer counts: an hour on, every lease has.
	later := now().Add(2 * time.Hour)
	if j := claimWith(t, s, store.ClaimParams{Kinds: []string{store.KindUpdate}, OrgLimit: 2, Now: later}); j == nil {
		t.Error("with every lease expired, no job of the organization was claimed")
	}
}

// testClaimPlanLimits: PlanLimits bound an organization by its plan, and
// a plan they do not name has OrgLimit.
func testClaimPlanLimits(t *testing.T, s store.Store) {
	ent := newOrg(t, s) // enterprise
	for range 4 {
		newUpdate(t, s, newProject(t, s, ent.ID))
	}
	params := store.ClaimParams{Kinds: []string{store.KindUpdate}, OrgLimit: 1, PlanLimits: map[lectern.Plan]int{lectern.PlanEnterprise: 3}}
	if n := claimUntilNone(t, s, params, 4); n != 3 {
		t.Errorf("an enterprise organization with a plan limit of 3 had %d jobs claimed, want 3", n)
	}
	pro := &lectern.Organization{Name: "Pro " + unique(), Plan: lectern.PlanPro}
	must(t, s.CreateOrg(t.Context(), pro), "CreateOrg")
	for range 3 {
		newUpdate(t, s, newProject(t, s, pro.ID))
	}
	if n := claimUntilNone(t, s, params, 3); n != 1 {
		t.Errorf("a pro organization, its plan not named, had %d jobs claimed, want OrgLimit's 1", n)
	}
}

// testClaimUpdatesBeforeExports: an organization's queued update is
// claimed before its older queued export.
func testClaimUpdatesBeforeExports(t *testing.T, s store.Store) {
	a := newOrg(t, s)
	p, q := newProject(t, s, a.ID), newProject(t, s, a.ID)
	e := newExport(t, s, p, p.Domains[0], time.Time{})
	time.Sleep(2 * time.Millisecond)
	u := newUpdate(t, s, q)
	params := store.ClaimParams{Kinds: []string{store.KindUpdate, store.KindExport}}
	if j := claimWith(t, s, params); j == nil || j.ID != u.ID {
		t.Fatalf("first claim = %v, want the update %s before the older export %s", j, u.ID, e.ID)
	}
	if j := claimWith(t, s, params); j == nil || j.ID != e.ID {
		t.Fatalf("second claim = %v, want the export %s", j, e.ID)
	}
}

// testQueuePlace: a queued job's place among its organization's queued
// jobs (updates first, then the oldest), the organization's running jobs
// against its limit; 0 once claimed; ENOTFOUND for no such job.
func testQueuePlace(t *testing.T, s store.Store) {
	a, other := newOrg(t, s), newOrg(t, s)
	p1, p2, p3 := newProject(t, s, a.ID), newProject(t, s, a.ID), newProject(t, s, a.ID)
	e := newExport(t, s, p1, p1.Domains[0], time.Time{})
	time.Sleep(2 * time.Millisecond)
	u2 := newUpdate(t, s, p2)
	time.Sleep(2 * time.Millisecond)
	u3 := newUpdate(t, s, p3)
	params := store.ClaimParams{Kinds: []string{store.KindUpdate, store.KindExport}, OrgLimit: 1}
	place := func(id string) store.QueuePlace {
		t.Helper()
		q, err := s.QueuePlace(t.Context(), id, params)
		must(t, err, "QueuePlace "+id)
		return q
	}
	for id, want := range map[string]store.QueuePlace{
		u2.ID: {Position: 1, Limit: 1}, u3.ID: {Position: 2, Limit: 1}, e.ID: {Position: 3, Limit: 1},
	} {
		if got := place(id); got != want {
			t.Errorf("QueuePlace(%s) = %+v, want %+v", id, got, want)
		}
	}
	if j := claimWith(t, s, params); j == nil || j.ID != u2.ID {
		t.Fatalf("claimed %v, want %s", j, u2.ID)
	}
	newUpdate(t, s, newProject(t, s, other.ID)) // another organization's: not counted
	if got, want := place(u3.ID), (store.QueuePlace{Position: 1, Running: 1, Limit: 1}); got != want || !got.AtLimit() {
		t.Errorf("QueuePlace after a claim = %+v (at limit %v), want %+v at its limit", got, got.AtLimit(), want)
	}
	if got := place(u2.ID); got.Position != 0 {
		t.Errorf("QueuePlace of the running job = %+v, want Position 0", got)
	}
	_, err := s.QueuePlace(t.Context(), missingID(lectern.PrefixUpdate), params)
	wantCode(t, err, lectern.ENOTFOUND, "QueuePlace of no such job")
}

// testClaimOrgRunning: a claimed job says how many jobs of its
// organization, of the kinds claimed, ran under a live lease when it was
// claimed (its own not counted): 0, then 1 for the second of organization
// A's, 0 for B's; jobs of other kinds and expired leases do not count.
func testClaimOrgRunning(t *testing.T, s store.Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	pa1, pa2, pa3 := newProject(t, s, a.ID), newProject(t, s, a.ID), newProject(t, s, a.ID)
	newUpdate(t, s, pa1)
	newUpdate(t, s, pa2)
	at := now()
	updates := store.ClaimParams{Kinds: []string{store.KindUpdate}, Now: at}
	first := claimWith(t, s, updates)
	second := claimWith(t, s, updates)
	if first == nil || second == nil {
		t.Fatalf("claims of A's two updates = %v, %v", first, second)
	}
	if first.OrgRunning != 0 || !first.OrgQueued || second.OrgRunning != 1 || second.OrgQueued {
		t.Errorf("A's updates claimed with OrgRunning %d, OrgQueued %v then %d, %v; want 0, true (the other waits) then 1, false",
			first.OrgRunning, first.OrgQueued, second.OrgRunning, second.OrgQueued)
	}
	newUpdate(t, s, newProject(t, s, b.ID))
	if j := claimWith(t, s, updates); j == nil || j.OrgRunning != 0 || j.OrgQueued {
		t.Errorf("B's update claimed as %+v, want OrgRunning 0, OrgQueued false (A's jobs are not B's)", j)
	}
	// An export of A, claimed alone by its kind: A's updates are another
	// kind; its other export waits.
	newExport(t, s, pa3, domain(), time.Time{})
	newExport(t, s, pa3, domain(), time.Time{})
	exports := store.ClaimParams{Kinds: []string{store.KindExport}, Now: at}
	if j := claimWith(t, s, exports); j == nil || j.OrgRunning != 0 || !j.OrgQueued {
		t.Errorf("A's export claimed as %+v, want OrgRunning 0 (only exports counted), OrgQueued true", j)
	}
	// Past every lease: none of them is running any more.
	newUpdate(t, s, newProject(t, s, a.ID))
	late := store.ClaimParams{Kinds: []string{store.KindUpdate}, Now: at.Add(2 * time.Hour)}
	for range 3 {
		if j := claimWith(t, s, late); j == nil || j.OrgRunning > 1 {
			t.Errorf("claim after the leases expired = %+v, want a job with at most the one claimed just before running", j)
		}
	}
}
