package httpapi_test

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"lectern.dev/lectern/httpapi"
	"lectern.dev/lectern/store"
	"lectern.dev/lectern/store/postgres"
	"lectern.dev/lectern/store/postgres/pgtest"
	"lectern.dev/lectern/store/sqlite"
)

// sharedStores returns the stores a shared limiter runs on in these tests:
// SQLite always, PostgreSQL when TEST_DATABASE_URL is set or a local server answers (always in CI).
func sharedStores(t *testing.T) map[string]func(t *testing.T) store.Store {
	return map[string]func(t *testing.T) store.Store{
		"sqlite": func(t *testing.T) store.Store {
			s, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		},
		"postgres": func(t *testing.T) store.Store {
			s, err := postgres.Open(t.Context(), pgtest.URL(t))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		},
	}
}

// TestSharedLimiterSharesTheBudget runs two limiters (two API processes) on
// one database: together they allow a key its budget once, not twice.
func TestSharedLimiterSharesTheBudget(t *testing.T) {
	t.Parallel()
	for name, open := range sharedStores(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			st := open(t)
			cfg := httpapi.RateLimit{Rate: 100, Burst: 40} // batches of 10
			a, b := httpapi.NewSharedLimiter(st, cfg, nil), httpapi.NewSharedLimiter(st, cfg, nil)
			ctx := t.Context()
			t0 := time.Now()

			// Alternating at one instant: the burst, once, in all.
			allowed := 0
			for i := range 200 {
				l := a
				if i%2 == 1 {
					l = b
				}
				if ok, _, _ := l.Allow(ctx, "key_1", t0); ok {
					allowed++
				}
			}
			if allowed != cfg.Burst {
				t.Errorf("two processes allowed %d requests at one instant, want the burst %d", allowed, cfg.Burst)
			}
			ok, remaining, reset := a.Allow(ctx, "key_1", t0)
			if ok || remaining != 0 || reset < 1 {
				t.Errorf("refused request: ok %v remaining %d reset %d, want refused, 0 and a reset of at least 1 s", ok, remaining, reset)
			}
			// Another key has its own budget.
			if ok, _, _ := b.Allow(ctx, "key_2", t0); !ok {
				t.Errorf("another key was refused")
			}

			// Over the next 0.5 s the bucket refills by 50 tokens: hammering
			// from both at 10 ms steps allows about that many, not twice.
			allowed = 0
			for step := 1; step <= 50; step++ {
				at := t0.Add(time.Duration(step) * 10 * time.Millisecond)
				for _, l := range []httpapi.Limiter{a, b, a, b} {
					if ok, _, _ := l.Allow(ctx, "key_1", at); ok {
						allowed++
					}
				}
			}
			// rate×T = 50; a process may hold at most one batch unspent.
			if allowed > 50 || allowed < 50-2*10 {
				t.Errorf("two processes allowed %d requests in 0.5 s at 100/s, want 30 to 50", allowed)
			}
		})
	}
}

// TestSharedLimiterConcurrent races many requests in two processes.
func TestSharedLimiterConcurrent(t *testing.T) {
	t.Parallel()
	for name, open := range sharedStores(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			st := open(t)
			cfg := httpapi.RateLimit{Rate: 1000, Burst: 300} // batches of 75
			limiters := []httpapi.Limiter{httpapi.NewSharedLimiter(st, cfg, nil), httpapi.NewSharedLimiter(st, cfg, nil)}
			t0 := time.Now()
			var allowed atomic.Int64
			var wg sync.WaitGroup
			for g := range 8 {
				wg.Go(func() {
					for range 100 {
						if ok, _, _ := limiters[g%2].Allow(context.Background(), "key", t0); ok {
							allowed.Add(1)
						}
					}
				})
			}
			wg.Wait()
			// 800 requests at one instant: each process spends all it took,
			// and together they took the burst.
			if got := allowed.Load(); got != int64(cfg.Burst) {
				t.Errorf("allowed %d of 800 concurrent requests, want the burst %d", got, cfg.Burst)
			}
		})
	}
}

// failingSource is a shared bucket whose database is down.
type failingSource struct{ calls atomic.Int64 }

func (f *failingSource) TakeRateTokens(context.Context, string, int, float64, int, time.Time) (int, float64, error) {
	f.calls.Add(1)
	return 0, 0, errors.New("connection refused")
}

// TestSharedLimiterFallsBackToMemory checks that a limiter whose database
// is down limits per process instead of failing requests.
func TestSharedLimiterFallsBackToMemory(t *testing.T) {
	t.Parallel()
	src := &failingSource{}
	l := httpapi.NewSharedLimiter(src, httpapi.RateLimit{Rate: 1, Burst: 3}, nil)
	t0 := time.Now()
	allowed := 0
	for range 10 {
		if ok, _, _ := l.Allow(t.Context(), "k", t0); ok {
			allowed++
		}
	}
	if allowed != 3 {
		t.Errorf("allowed %d with the shared bucket down, want the per-process burst 3", allowed)
	}
	if src.calls.Load() == 0 {
		t.Errorf("the shared bucket was never asked")
	}
}
