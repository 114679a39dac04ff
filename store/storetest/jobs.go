package storetest

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

var jobCases = []testCase{
	{"ClaimFiltersByKind", testClaimKinds},
	{"ClaimOldestFirst", testClaimOldestFirst},
	{"CountJobs", testCountJobs},
	{"ConcurrentClaimers", testConcurrentClaimers},
	{"ConcurrentClaimersOneJobPerGroup", testConcurrentGroupClaims},
}

func testClaimKinds(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	p1, p2, p3 := newProject(t, s, org.ID), newProject(t, s, org.ID), newProject(t, s, org.ID)
	u1, u2 := newUpdate(t, s, p1), newUpdate(t, s, p2)
	claimNone(t, s, store.KindExport, "w", now(), "only update jobs are queued")
	claimNone(t, s, "no-such-kind", "w", now(), "no job has that kind")

	e := newExport(t, s, p3, p3.Domains[0], time.Time{})
	if j, _ := mustClaim(t, s, store.KindExport, "w", now(), time.Hour); j.ID != e.ID {
		t.Errorf("ClaimJob(export) = %s, want %s", j.ID, e.ID)
	}
	claimNone(t, s, store.KindExport, "w", now(), "the only export is leased")

	// Several kinds at once.
	var got []string
	for i := range 3 {
		j, _, err := s.ClaimJob(t.Context(), store.ClaimParams{Kinds: []string{store.KindExport, store.KindUpdate}, Owner: fmt.Sprint("m", i), Now: now(), LeaseFor: time.Hour})
		must(t, err, "ClaimJob(export, update)")
		if j != nil {
			got = append(got, j.ID)
		}
	}
	if want := []string{u1.ID, u2.ID}; !sameSet(got, want) {
		t.Errorf("ClaimJob(Kinds export+update) returned %v, want %v", got, want)
	}
}

func testClaimOldestFirst(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	base := time.Now().UTC().Add(-time.Hour)
	var want []string
	for i := range 3 {
		p := newProject(t, s, org.ID)
		e := newExport(t, s, p, p.Domains[0], base.Add(time.Duration(i)*time.Minute))
		want = append(want, e.ID)
		time.Sleep(2 * time.Millisecond) // so that any store clock agrees on the order
	}
	for i, id := range want {
		j, l := mustClaim(t, s, store.KindExport, fmt.Sprint("w", i), now(), time.Hour)
		if j.ID != id {
			t.Errorf("claim %d returned %s, want the oldest available %s", i, j.ID, id)
		}
		// Finish it so that grouping cannot hold the next one back.
		must(t, s.FinishExport(t.Context(), l, store.ExportResult{Status: lectern.ExportFailed, Error: &lectern.JobError{Code: "x", Message: "x"}, At: now()}), "FinishExport")
	}
}

func wantCounts(t *testing.T, s store.Store, when string, want map[string]map[string]int) {
	t.Helper()
	got, err := s.CountJobs(t.Context())
	must(t, err, "CountJobs")
	for _, kind := range []string{store.KindUpdate, store.KindExport} {
		for _, state := range []string{"queued", "running", "done"} {
			if g, w := got[kind][state], want[kind][state]; g != w {
				t.Errorf("CountJobs %s: %s/%s = %d, want %d (all: %v)", when, kind, state, g, w, got)
			}
		}
	}
}

func testCountJobs(t *testing.T, s store.Store) {
	wantCounts(t, s, "on an empty store", nil)
	org := newOrg(t, s)
	pe1, pe2, pe3 := newProject(t, s, org.ID), newProject(t, s, org.ID), newProject(t, s, org.ID)
	pu1, pu2, pu3, pu4 := newProject(t, s, org.ID), newProject(t, s, org.ID), newProject(t, s, org.ID), newProject(t, s, org.ID)

	// Exports: one done, one running, one queued (each claimed alone).
	eDone := newExport(t, s, pe1, pe1.Domains[0], time.Time{})
	finishExport(t, s, eDone, lectern.ExportCompleted)
	eRun := newExport(t, s, pe2, pe2.Domains[0], time.Time{})
	mustClaimID(t, s, store.KindExport, "w", eRun.ID, now(), time.Hour)
	newExport(t, s, pe3, pe3.Domains[0], time.Time{})
	wantCounts(t, s, "with exports only", map[string]map[string]int{
		store.KindExport: {"queued": 1, "running": 1, "done": 1},
	})

	// Updates: one done, one running, two queued.
	uDone := newUpdate(t, s, pu1)
	_, l := mustClaimID(t, s, store.KindUpdate, "w", uDone.ID, now(), time.Hour)
	must(t, s.StartUpdate(t.Context(), l, now()), "StartUpdate")
	must(t, s.FinishUpdate(t.Context(), l, store.UpdateResult{Status: lectern.UpdateFailure, EndedAt: now()}), "FinishUpdate")
	uRun := newUpdate(t, s, pu2)
	_, lRun := mustClaimID(t, s, store.KindUpdate, "w", uRun.ID, now(), time.Hour)
	newUpdate(t, s, pu3)
	newUpdate(t, s, pu4)
	wantCounts(t, s, "with updates and exports", map[string]map[string]int{
		store.KindUpdate: {"queued": 2, "running": 1, "done": 1},
		store.KindExport: {"queued": 1, "running": 1, "done": 1},
	})

	// A retried job is queued again; a deleted export's job is gone.
	must(t, s.RetryJob(t.Context(), lRun, now().Add(time.Hour), "later"), "RetryJob")
	must(t, s.DeleteExport(t.Context(), eDone.ID), "DeleteExport")
	wantCounts(t, s, "after RetryJob and DeleteExport", map[string]map[string]int{
		store.KindUpdate: {"queued": 3, "running": 0, "done": 1},
		store.KindExport: {"queued": 1, "running": 1, "done": 0},
	})
}

func testConcurrentClaimers(t *testing.T, s store.Store) {
	const jobs, workers = 20, 8
	org := newOrg(t, s)
	want := map[string]bool{}
	for range jobs {
		p := newProject(t, s, org.ID)
		want[newExport(t, s, p, p.Domains[0], time.Time{}).ID] = true
	}

	var (
		mu     sync.Mutex
		claims = map[string]int{}
		errs   []error
		wg     sync.WaitGroup
		start  = make(chan struct{})
	)
	ctx := t.Context()
	for w := range workers {
		wg.Go(func() {
			<-start
			owner := fmt.Sprint("worker-", w)
			for range 2 * jobs {
				j, l, err := s.ClaimJob(ctx, store.ClaimParams{Kinds: []string{store.KindExport}, Owner: owner, Now: now(), LeaseFor: time.Hour})
				if err != nil {
					mu.Lock()
					errs = append(errs, fmt.Errorf("%s: ClaimJob: %w", owner, err))
					mu.Unlock()
					return
				}
				if j == nil {
					return
				}
				mu.Lock()
				claims[j.ID]++
				mu.Unlock()
				// Finishing releases the job's group, whatever the
				// implementation groups exports by.
				err = s.FinishExport(ctx, l, store.ExportResult{Status: lectern.ExportCompleted, PageCount: 1,
					Bundle: &lectern.Bundle{Key: "k/" + j.ID, FileName: "b.tar.gz", SizeBytes: 1, SHA256: "00", Version: "1"}, At: now()})
				if err != nil {
					mu.Lock()
					errs = append(errs, fmt.Errorf("%s: FinishExport(%s): %w", owner, j.ID, err))
					mu.Unlock()
				}
			}
		})
	}
	close(start)
	wg.Wait()

	for _, err := range errs {
		t.Error(err)
	}
	for id, n := range claims {
		if !want[id] {
			t.Errorf("claimed unknown job %s", id)
		} else if n != 1 {
			t.Errorf("job %s claimed %d times, want once", id, n)
		}
	}
	for id := range want {
		if claims[id] == 0 {
			t.Errorf("job %s never claimed", id)
		}
	}
	claimNone(t, s, store.KindExport, "late", now(), "every export is finished")
	for id := range want {
		if e, err := s.GetExport(t.Context(), id); err != nil || e.Status != lectern.ExportCompleted {
			t.Errorf("export %s after the run: %v (err %v), want completed", id, e, err)
		}
	}
	wantCounts(t, s, "after the concurrent run", map[string]map[string]int{store.KindExport: {"done": jobs}})
}

// testConcurrentGroupClaims races workers over projects that each have two
// claimable update jobs (one whose worker died, one queued after it): each
// project must hand out exactly one of them.
func testConcurrentGroupClaims(t *testing.T, s store.Store) {
	const projects, workers = 6, 8
	org := newOrg(t, s)
	t0 := now()
	groups := map[string]string{} // job ID -> project ID
	for range projects {
		p := newProject(t, s, org.ID)
		u1 := newUpdate(t, s, p)
		_, l := mustClaimID(t, s, store.KindUpdate, "dead-worker", u1.ID, t0, time.Minute)
		must(t, s.StartUpdate(t.Context(), l, t0), "StartUpdate")
		u2 := newUpdate(t, s, p) // queued behind u1, not superseding it
		groups[u1.ID], groups[u2.ID] = p.ID, p.ID
	}
	later := t0.Add(2 * time.Minute) // u1's lease has expired
	var (
		mu      sync.Mutex
		claimed = map[string][]string{} // project -> job IDs
		errs    []error
		wg      sync.WaitGroup
		start   = make(chan struct{})
	)
	ctx := t.Context()
	for w := range workers {
		wg.Go(func() {
			<-start
			for range projects {
				j, _, err := s.ClaimJob(ctx, store.ClaimParams{Kinds: []string{store.KindUpdate}, Owner: fmt.Sprint("worker-", w), Now: later, LeaseFor: time.Hour})
				mu.Lock()
				switch {
				case err != nil:
					errs = append(errs, fmt.Errorf("worker-%d: ClaimJob: %w", w, err))
				case j != nil:
					claimed[groups[j.ID]] = append(claimed[groups[j.ID]], j.ID)
				}
				mu.Unlock()
				if err != nil || j == nil {
					return
				}
			}
		})
	}
	close(start)
	wg.Wait()
	for _, err := range errs {
		t.Error(err)
	}
	if len(claimed) != projects {
		t.Errorf("jobs of %d projects claimed, want all %d: %v", len(claimed), projects, claimed)
	}
	for p, ids := range claimed {
		if len(ids) != 1 {
			t.Errorf("project %s: jobs %v claimed at once, want one (a project's updates run one at a time)", p, ids)
		}
	}
}
