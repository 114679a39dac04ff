package postgres

import (
	"context"
	"time"
)

// takeTokens refills and takes in one statement: $1 key, $2 want, $3 burst,
// $4 rate per second, $5 now in microseconds. The upsert locks the bucket's
// row, so concurrent takers in any process queue on it; every SET
// expression reads the row as it was before the statement.
const takeTokens = `INSERT INTO rate_buckets AS b (key, tokens, taken, updated_at)
VALUES ($1, ($3::integer - least($2::integer, $3::integer))::double precision, least($2::integer, $3::integer), $5::bigint)
ON CONFLICT (key) DO UPDATE SET
  taken = least($2, floor(least($3, b.tokens + greatest(0, $5 - b.updated_at) * $4::double precision / 1e6) + 1e-9)::integer),
  tokens = greatest(0, least($3, b.tokens + greatest(0, $5 - b.updated_at) * $4::double precision / 1e6)
    - least($2, floor(least($3, b.tokens + greatest(0, $5 - b.updated_at) * $4::double precision / 1e6) + 1e-9)::integer)),
  updated_at = greatest(b.updated_at, $5)
RETURNING taken, tokens`

// TakeRateTokens refills the named bucket and takes up to want tokens.
func (s *Store) TakeRateTokens(ctx context.Context, key string, want int, rate float64, burst int, now time.Time) (int, float64, error) {
	want, burst = max(want, 0), max(burst, 0)
	var taken int
	var left float64
	if err := s.pool.QueryRow(ctx, takeTokens, key, want, burst, rate, now.UnixMicro()).Scan(&taken, &left); err != nil {
		return 0, 0, wrap(err)
	}
	return taken, left, nil
}
