package storetest

import (
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"lectern.dev/lectern/store"
)

var rateLimitCases = []testCase{
	{"NewBucketStartsFull", testRateNewBucket},
	{"RefillsAtRateUpToBurst", testRateRefill},
	{"FractionalTokens", testRateFractional},
	{"ClockGoingBackAddsNothing", testRateClockBack},
	{"KeysAreIndependent", testRateKeys},
	{"ConcurrentTakersShareTheBucket", testRateConcurrent},
}

// take calls TakeRateTokens and checks what it took and left.
func take(t *testing.T, s store.Store, key string, want int, rate float64, burst int, at time.Time, wantTaken int, wantLeft float64) {
	t.Helper()
	got, left, err := s.TakeRateTokens(t.Context(), key, want, rate, burst, at)
	must(t, err, "TakeRateTokens")
	if got != wantTaken || math.Abs(left-wantLeft) > 1e-3 {
		t.Errorf("TakeRateTokens(%s, want %d, rate %g, burst %d) = %d taken, %.4f left; want %d taken, %.4f left",
			key, want, rate, burst, got, left, wantTaken, wantLeft)
	}
}

func testRateNewBucket(t *testing.T, s store.Store) {
	t0 := time.Now().UTC()
	take(t, s, "k", 3, 1, 5, t0, 3, 2)
	take(t, s, "k", 3, 1, 5, t0, 2, 0) // only what is left
	take(t, s, "k", 1, 1, 5, t0, 0, 0)
	// A bucket asked for more than its burst at once gives the burst.
	take(t, s, "big", 100, 1, 7, t0, 7, 0)
}

func testRateRefill(t *testing.T, s store.Store) {
	t0 := time.Now().UTC()
	take(t, s, "k", 10, 2, 10, t0, 10, 0)
	take(t, s, "k", 10, 2, 10, t0.Add(time.Second), 2, 0)
	take(t, s, "k", 10, 2, 10, t0.Add(1500*time.Millisecond), 1, 0)
	// Long idle: refilled to the burst, never beyond.
	take(t, s, "k", 1, 2, 10, t0.Add(time.Hour), 1, 9)
	take(t, s, "k", 20, 2, 10, t0.Add(time.Hour), 9, 0)
}

func testRateFractional(t *testing.T, s store.Store) {
	t0 := time.Now().UTC()
	take(t, s, "k", 4, 0.5, 4, t0, 4, 0)
	take(t, s, "k", 1, 0.5, 4, t0.Add(time.Second), 0, 0.5)
	take(t, s, "k", 1, 0.5, 4, t0.Add(2*time.Second), 1, 0)
	take(t, s, "k", 1, 0.5, 4, t0.Add(2500*time.Millisecond), 0, 0.25)
}

func testRateClockBack(t *testing.T, s store.Store) {
	t0 := time.Now().UTC()
	take(t, s, "k", 5, 2, 5, t0.Add(10*time.Second), 5, 0)
	// Another process's clock is behind: no tokens appear, none are lost.
	take(t, s, "k", 1, 2, 5, t0, 0, 0)
	// Refill counts from the latest time seen.
	take(t, s, "k", 5, 2, 5, t0.Add(10500*time.Millisecond), 1, 0)
}

func testRateKeys(t *testing.T, s store.Store) {
	t0 := time.Now().UTC()
	take(t, s, "key:a", 3, 1, 3, t0, 3, 0)
	take(t, s, "key:b", 2, 1, 3, t0, 2, 1)
	take(t, s, "key:a", 1, 1, 3, t0, 0, 0)
	take(t, s, "key:b", 1, 1, 3, t0, 1, 0)
}

func testRateConcurrent(t *testing.T, s store.Store) {
	const burst, takers, each = 25, 8, 10
	t0 := time.Now().UTC()
	var (
		total atomic.Int64
		wg    sync.WaitGroup
		mu    sync.Mutex
		errs  []error
		start = make(chan struct{})
	)
	ctx := t.Context()
	for i := range takers {
		wg.Go(func() {
			<-start
			for range each {
				// A rate so low that no token comes back during the test.
				n, _, err := s.TakeRateTokens(ctx, "shared", 1, 1e-6, burst, t0)
				if err != nil {
					mu.Lock()
					errs = append(errs, fmt.Errorf("taker %d: %w", i, err))
					mu.Unlock()
					return
				}
				total.Add(int64(n))
			}
		})
	}
	close(start)
	wg.Wait()
	for _, err := range errs {
		t.Error(err)
	}
	if got := total.Load(); got != burst {
		t.Errorf("%d concurrent takers took %d tokens in all, want exactly the burst %d", takers, got, burst)
	}
}
