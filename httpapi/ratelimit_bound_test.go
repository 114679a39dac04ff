package httpapi

import (
	"fmt"
	"testing"
	"time"
)

// TestLimiterBounded: addresses a flood invents cannot grow a limiter
// without bound; past maxBuckets, new ones share one bucket.
func TestLimiterBounded(t *testing.T) {
	l := NewMemoryLimiter(RateLimit{Rate: 1, Burst: 2}).(*limiter)
	now := time.Now()
	for i := range maxBuckets {
		if ok, _, _ := l.Allow(t.Context(), fmt.Sprintf("10.%d.%d.%d", i>>16, i>>8&255, i&255), now); !ok {
			t.Fatalf("address %d refused", i)
		}
	}
	allowed := 0
	for i := range 5 {
		if ok, _, _ := l.Allow(t.Context(), fmt.Sprintf("2001:db8:%d::/64", i), now); ok {
			allowed++
		}
	}
	if allowed != 2 {
		t.Errorf("%d of 5 new addresses allowed past the bound, want the shared burst of 2", allowed)
	}
	if n := len(l.buckets); n > maxBuckets+1 {
		t.Errorf("%d buckets, over the bound %d", n, maxBuckets)
	}
	// Once the others are idle and full again, new addresses get their own.
	later := now.Add(time.Hour)
	if ok, _, _ := l.Allow(t.Context(), "192.0.2.1", later); !ok {
		t.Error("a new address refused after the flood")
	}
	if n := len(l.buckets); n > 2 {
		t.Errorf("%d buckets after the sweep, want the idle ones gone", n)
	}
}
