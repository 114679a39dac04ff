package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"lectern.dev/lectern/store"
)

// ReserveIdempotency stores rec unless a live record for its key exists.
//
// One statement decides, however many API processes race: the insert
// either creates the record, replaces one older than notBefore, or leaves
// the live record alone, in which case that record is read and returned.
// A record deleted between the two (its request failed) is raced for again.
func (s *Store) ReserveIdempotency(ctx context.Context, rec *store.IdempotencyRecord, notBefore time.Time) (*store.IdempotencyRecord, error) {
	if rec.CreatedAt.IsZero() {
		rec.CreatedAt = now()
	}
	for {
		tag, err := s.pool.Exec(ctx, `INSERT INTO idempotency AS i (scope, key, request_hash, status, headers_json, body, created_at)
			VALUES ($1, $2, $3, 0, '{}', NULL, $4)
			ON CONFLICT (scope, key) DO UPDATE SET request_hash = excluded.request_hash, status = 0, headers_json = '{}',
				body = NULL, created_at = excluded.created_at
			WHERE i.created_at < $5`, rec.Scope, rec.Key, rec.RequestHash, utc(rec.CreatedAt), utc(notBefore))
		if err != nil {
			return nil, wrap(err)
		}
		if tag.RowsAffected() == 1 {
			return nil, nil
		}
		var e store.IdempotencyRecord
		var headers string
		err = s.pool.QueryRow(ctx, `SELECT scope, key, request_hash, status, headers_json, body, created_at FROM idempotency
			WHERE scope = $1 AND key = $2`, rec.Scope, rec.Key).Scan(&e.Scope, &e.Key, &e.RequestHash, &e.Status, &headers, &e.Body, &e.CreatedAt)
		if errors.Is(err, pgx.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, wrap(err)
		}
		e.CreatedAt = utc(e.CreatedAt)
		if err := json.Unmarshal([]byte(headers), &e.Headers); err != nil {
			return nil, err
		}
		return &e, nil
	}
}

// CompleteIdempotency stores the response of a reserved record.
func (s *Store) CompleteIdempotency(ctx context.Context, scope, key string, status int, headers map[string]string, body []byte) error {
	h, err := json.Marshal(headers)
	if err != nil {
		return err
	}
	_, err = s.pool.Exec(ctx, `UPDATE idempotency SET status = $1, headers_json = $2, body = $3 WHERE scope = $4 AND key = $5`,
		status, string(h), body, scope, key)
	return wrap(err)
}

// DeleteIdempotency removes a record.
func (s *Store) DeleteIdempotency(ctx context.Context, scope, key string) error {
	_, err := s.pool.Exec(ctx, `DELETE FROM idempotency WHERE scope = $1 AND key = $2`, scope, key)
	return wrap(err)
}

// PruneIdempotency deletes records created before t.
func (s *Store) PruneIdempotency(ctx context.Context, t time.Time) (int, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM idempotency WHERE created_at < $1`, utc(t))
	if err != nil {
		return 0, wrap(err)
	}
	return int(tag.RowsAffected()), nil
}
