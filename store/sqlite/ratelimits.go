package sqlite

import (
	"context"
	"time"
)

// takeTokens refills and takes in one statement: ?1 key, ?2 want, ?3 burst,
// ?4 rate per second, ?5 now in microseconds. Every SET expression reads the
// row as it was, so the refill is computed once per column from the same
// values.
const takeTokens = `INSERT INTO rate_buckets (key, tokens, taken, updated_at) VALUES (?1, ?3 - min(?2, ?3), min(?2, ?3), ?5)
ON CONFLICT (key) DO UPDATE SET
  taken = min(?2, CAST(min(?3, tokens + max(0, ?5 - updated_at) * ?4 / 1e6) + 1e-9 AS INTEGER)),
  tokens = max(0, min(?3, tokens + max(0, ?5 - updated_at) * ?4 / 1e6) - min(?2, CAST(min(?3, tokens + max(0, ?5 - updated_at) * ?4 / 1e6) + 1e-9 AS INTEGER))),
  updated_at = max(updated_at, ?5)
RETURNING taken, tokens`

// TakeRateTokens refills the named bucket and takes up to want tokens.
func (s *Store) TakeRateTokens(ctx context.Context, key string, want int, rate float64, burst int, now time.Time) (int, float64, error) {
	want, burst = max(want, 0), max(burst, 0)
	var taken int
	var left float64
	err := s.w.QueryRowContext(ctx, takeTokens, key, want, burst, rate, ts(now)).Scan(&taken, &left)
	if err != nil {
		return 0, 0, wrap(err)
	}
	return taken, left, nil
}
