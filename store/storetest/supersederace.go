package storetest

import (
	"sync"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

// testSupersedeRacesStart: a worker starting a project's queued update
// (StartUpdate, just after its claim) while a newer update of the project
// is queued (CreateUpdate, which supersedes the queued ones) ends one of
// two ways: the start wins, and the update runs under its lease; or the
// newer update wins, and the older is superseded with its lease lost.
// Never an update in_progress whose job is over (which no worker would
// ever end).
func testSupersedeRacesStart(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	for i := range 20 {
		drain(t, s, store.KindUpdate, now()) // the last round's newer update
		p := newProject(t, s, org.ID)
		u := newUpdate(t, s, p)
		_, l := mustClaimID(t, s, store.KindUpdate, "w", u.ID, now(), time.Hour)
		var wg sync.WaitGroup
		var startErr error
		wg.Add(2)
		go func() {
			defer wg.Done()
			startErr = s.StartUpdate(t.Context(), l, now())
		}()
		go func() {
			defer wg.Done()
			newer := &lectern.Update{ProjectID: p.ID, OrgID: org.ID, Source: "api"}
			if err := s.CreateUpdate(t.Context(), newer); err != nil && lectern.ErrorCode(err) != lectern.EUNAVAILABLE {
				t.Errorf("round %d: CreateUpdate: %v", i, err)
			}
		}()
		wg.Wait()
		got := mustGet(t, s.GetUpdate, u.ID)
		leaseErr := s.ExtendLease(t.Context(), l, now().Add(time.Hour))
		switch got.Status {
		case lectern.UpdateInProgress:
			if startErr != nil || leaseErr != nil {
				t.Errorf("round %d: the update is in_progress but its start (%v) or lease (%v) failed: no worker will end it", i, startErr, leaseErr)
			}
		case lectern.UpdateSuperseded:
			if leaseErr == nil {
				t.Errorf("round %d: the update was superseded but its worker keeps its lease", i)
			}
		default:
			t.Errorf("round %d: the update is %s, want in_progress or superseded", i, got.Status)
		}
	}
}
