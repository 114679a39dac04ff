package storetest

import (
	"bytes"
	"fmt"
	"maps"
	"sync"
	"testing"
	"time"

	"lectern.dev/lectern/store"
)

var idempotencyCases = []testCase{
	{"ReservePendingComplete", testIdemReserve},
	{"OlderThanNotBeforeIsReplaced", testIdemExpired},
	{"ScopesAreIndependent", testIdemScopes},
	{"Delete", testIdemDelete},
	{"Prune", testIdemPrune},
	{"ConcurrentReserveHasOneWinner", testIdemConcurrent},
}

func reserve(t *testing.T, s store.Store, scope, key, hash string, created, notBefore time.Time) *store.IdempotencyRecord {
	t.Helper()
	rec := &store.IdempotencyRecord{Scope: scope, Key: key, RequestHash: hash, CreatedAt: created}
	got, err := s.ReserveIdempotency(t.Context(), rec, notBefore)
	must(t, err, "ReserveIdempotency")
	return got
}

func testIdemReserve(t *testing.T, s store.Store) {
	t0 := time.Now().UTC()
	day := t0.Add(-24 * time.Hour)
	if got := reserve(t, s, "key_a", "k1", "hash-1", t0, day); got != nil {
		t.Fatalf("first ReserveIdempotency returned %+v, want nil", got)
	}
	got := reserve(t, s, "key_a", "k1", "hash-2", t0.Add(time.Second), day)
	if got == nil {
		t.Fatal("second ReserveIdempotency returned nil, want the pending record")
	}
	if got.Status != 0 || got.RequestHash != "hash-1" || got.Scope != "key_a" || got.Key != "k1" {
		t.Errorf("pending record = %+v, want status 0 and hash-1", got)
	}
	wantTime(t, "pending record CreatedAt", got.CreatedAt, t0)

	headers := map[string]string{"Content-Type": "application/json", "Location": "/v1/exports/exp_1"}
	body := []byte(`{"jobId":"exp_1","status":"queued"}` + "\x00\xff")
	must(t, s.CompleteIdempotency(t.Context(), "key_a", "k1", 202, headers, body), "CompleteIdempotency")
	got = reserve(t, s, "key_a", "k1", "hash-3", t0.Add(2*time.Second), day)
	if got == nil {
		t.Fatal("ReserveIdempotency after completion returned nil, want the completed record")
	}
	if got.Status != 202 || got.RequestHash != "hash-1" {
		t.Errorf("completed record: status %d hash %q, want 202 hash-1", got.Status, got.RequestHash)
	}
	if !maps.Equal(got.Headers, headers) {
		t.Errorf("completed record Headers = %v, want %v", got.Headers, headers)
	}
	if !bytes.Equal(got.Body, body) {
		t.Errorf("completed record Body = %q, want %q", got.Body, body)
	}
	// Another key of the same scope is independent.
	if got := reserve(t, s, "key_a", "k2", "hash-4", t0, day); got != nil {
		t.Errorf("ReserveIdempotency of another key returned %+v, want nil", got)
	}
}

func testIdemExpired(t *testing.T, s store.Store) {
	t0 := time.Now().UTC()
	old := t0.Add(-48 * time.Hour)
	if got := reserve(t, s, "key_a", "k", "old-hash", old, old.Add(-time.Hour)); got != nil {
		t.Fatalf("first ReserveIdempotency returned %+v, want nil", got)
	}
	must(t, s.CompleteIdempotency(t.Context(), "key_a", "k", 201, map[string]string{"X": "y"}, []byte("old")), "CompleteIdempotency")

	// The record is older than notBefore: it is treated as absent.
	if got := reserve(t, s, "key_a", "k", "new-hash", t0, t0.Add(-24*time.Hour)); got != nil {
		t.Fatalf("ReserveIdempotency over an expired record returned %+v, want nil", got)
	}
	// ...and replaced by the new reservation.
	got := reserve(t, s, "key_a", "k", "third-hash", t0.Add(time.Second), t0.Add(-24*time.Hour))
	if got == nil {
		t.Fatal("ReserveIdempotency after a replacement returned nil, want the new pending record")
	}
	if got.RequestHash != "new-hash" || got.Status != 0 || len(got.Body) != 0 {
		t.Errorf("record after replacement = %+v, want pending with new-hash", got)
	}
	wantTime(t, "replaced record CreatedAt", got.CreatedAt, t0)
}

func testIdemScopes(t *testing.T, s store.Store) {
	t0 := time.Now().UTC()
	day := t0.Add(-24 * time.Hour)
	reserve(t, s, "key_a", "same", "hash-a", t0, day)
	if got := reserve(t, s, "key_b", "same", "hash-b", t0, day); got != nil {
		t.Fatalf("ReserveIdempotency in another scope returned %+v, want nil", got)
	}
	must(t, s.CompleteIdempotency(t.Context(), "key_b", "same", 200, nil, []byte("b")), "CompleteIdempotency")
	if got := reserve(t, s, "key_a", "same", "x", t0, day); got == nil || got.RequestHash != "hash-a" || got.Status != 0 {
		t.Errorf("scope key_a record = %+v, want pending hash-a (untouched by key_b)", got)
	}
	if got := reserve(t, s, "key_b", "same", "x", t0, day); got == nil || got.RequestHash != "hash-b" || got.Status != 200 {
		t.Errorf("scope key_b record = %+v, want completed hash-b", got)
	}
	must(t, s.DeleteIdempotency(t.Context(), "key_b", "same"), "DeleteIdempotency")
	if got := reserve(t, s, "key_a", "same", "x", t0, day); got == nil || got.RequestHash != "hash-a" {
		t.Errorf("deleting key_b's record touched key_a's: %+v", got)
	}
}

func testIdemDelete(t *testing.T, s store.Store) {
	t0 := time.Now().UTC()
	day := t0.Add(-24 * time.Hour)
	reserve(t, s, "key_a", "k", "hash-1", t0, day)
	must(t, s.DeleteIdempotency(t.Context(), "key_a", "k"), "DeleteIdempotency")
	if got := reserve(t, s, "key_a", "k", "hash-2", t0, day); got != nil {
		t.Errorf("ReserveIdempotency after DeleteIdempotency returned %+v, want nil", got)
	}
	if got := reserve(t, s, "key_a", "k", "hash-3", t0, day); got == nil || got.RequestHash != "hash-2" {
		t.Errorf("record after re-reserving = %+v, want hash-2", got)
	}
}

func testIdemPrune(t *testing.T, s store.Store) {
	t0 := time.Now().UTC()
	long := t0.Add(-72 * time.Hour)
	reserve(t, s, "key_a", "old1", "h", t0.Add(-3*time.Hour), long)
	reserve(t, s, "key_b", "old2", "h", t0.Add(-2*time.Hour), long)
	must(t, s.CompleteIdempotency(t.Context(), "key_b", "old2", 201, nil, nil), "CompleteIdempotency")
	reserve(t, s, "key_a", "new", "h-new", t0, long)

	n, err := s.PruneIdempotency(t.Context(), t0.Add(-time.Hour))
	must(t, err, "PruneIdempotency")
	if n != 2 {
		t.Errorf("PruneIdempotency = %d, want 2", n)
	}
	for _, k := range []struct{ scope, key string }{{"key_a", "old1"}, {"key_b", "old2"}} {
		if got := reserve(t, s, k.scope, k.key, "h2", t0, long); got != nil {
			t.Errorf("record %s/%s survived PruneIdempotency: %+v", k.scope, k.key, got)
		}
	}
	if got := reserve(t, s, "key_a", "new", "h2", t0, long); got == nil || got.RequestHash != "h-new" {
		t.Errorf("newer record after PruneIdempotency = %+v, want kept with h-new", got)
	}
	n, err = s.PruneIdempotency(t.Context(), t0.Add(-time.Hour))
	must(t, err, "PruneIdempotency")
	if n != 0 {
		t.Errorf("second PruneIdempotency = %d, want 0", n)
	}
}

// testIdemConcurrent races reservers of one key (as API processes receiving
// the same retried request do): exactly one wins, and every other sees the
// winner's record. Then the same race over an expired record.
func testIdemConcurrent(t *testing.T, s store.Store) {
	const n = 8
	t0 := time.Now().UTC()
	race := func(round string, created, notBefore time.Time) {
		t.Helper()
		var (
			wg    sync.WaitGroup
			start = make(chan struct{})
			got   [n]*store.IdempotencyRecord
			errs  [n]error
		)
		ctx := t.Context()
		for i := range n {
			wg.Go(func() {
				<-start
				rec := &store.IdempotencyRecord{Scope: "org_a", Key: "same", RequestHash: fmt.Sprint(round, "-", i), CreatedAt: created}
				got[i], errs[i] = s.ReserveIdempotency(ctx, rec, notBefore)
			})
		}
		close(start)
		wg.Wait()
		winner := -1
		for i := range n {
			switch {
			case errs[i] != nil:
				t.Errorf("%s: reserver %d: %v", round, i, errs[i])
			case got[i] == nil && winner >= 0:
				t.Errorf("%s: reservers %d and %d both won the key", round, winner, i)
			case got[i] == nil:
				winner = i
			}
		}
		if winner < 0 {
			t.Fatalf("%s: no reserver won the key", round)
		}
		for i := range n {
			if got[i] != nil && got[i].RequestHash != fmt.Sprint(round, "-", winner) {
				t.Errorf("%s: reserver %d saw record with hash %q, want the winner's %s-%d", round, i, got[i].RequestHash, round, winner)
			}
		}
	}
	race("first", t0.Add(-48*time.Hour), t0.Add(-72*time.Hour))
	// The first round's record is now older than notBefore: replaced once.
	race("second", t0, t0.Add(-24*time.Hour))
}
