package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"lectern.dev/lectern/store"
)

// ReserveIdempotency stores rec unless a live record for its key exists.
func (s *Store) ReserveIdempotency(ctx context.Context, rec *store.IdempotencyRecord, notBefore time.Time) (*store.IdempotencyRecord, error) {
	if rec.CreatedAt.IsZero() {
		rec.CreatedAt = now()
	}
	var existing *store.IdempotencyRecord
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var e store.IdempotencyRecord
		var headers string
		var created int64
		err := tx.QueryRowContext(ctx, `SELECT scope, key, request_hash, status, headers_json, body, created_at FROM idempotency
			WHERE scope = ? AND key = ?`, rec.Scope, rec.Key).Scan(&e.Scope, &e.Key, &e.RequestHash, &e.Status, &headers, &e.Body, &created)
		switch {
		case err == nil && created >= ts(notBefore):
			e.CreatedAt = fromTS(created)
			if err := json.Unmarshal([]byte(headers), &e.Headers); err != nil {
				return err
			}
			existing = &e
			return nil
		case err == nil:
			if _, err := tx.ExecContext(ctx, `DELETE FROM idempotency WHERE scope = ? AND key = ?`, rec.Scope, rec.Key); err != nil {
				return err
			}
		case !errors.Is(err, sql.ErrNoRows):
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO idempotency (scope, key, request_hash, status, headers_json, created_at)
			VALUES (?, ?, ?, 0, '{}', ?)`, rec.Scope, rec.Key, rec.RequestHash, ts(rec.CreatedAt))
		return err
	})
	return existing, err
}

// CompleteIdempotency stores the response of a reserved record.
func (s *Store) CompleteIdempotency(ctx context.Context, scope, key string, status int, headers map[string]string, body []byte) error {
	h, err := json.Marshal(headers)
	if err != nil {
		return err
	}
	_, err = s.w.ExecContext(ctx, `UPDATE idempotency SET status = ?, headers_json = ?, body = ? WHERE scope = ? AND key = ?`,
		status, string(h), body, scope, key)
	return wrap(err)
}

// DeleteIdempotency removes a record.
func (s *Store) DeleteIdempotency(ctx context.Context, scope, key string) error {
	_, err := s.w.ExecContext(ctx, `DELETE FROM idempotency WHERE scope = ? AND key = ?`, scope, key)
	return wrap(err)
}

// PruneIdempotency deletes records created before t.
func (s *Store) PruneIdempotency(ctx context.Context, t time.Time) (int, error) {
	res, err := s.w.ExecContext(ctx, `DELETE FROM idempotency WHERE created_at < ?`, ts(t))
	if err != nil {
		return 0, wrap(err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// truncateWAL copies the write-ahead log into the database and empties it,
// so that pages it held (old versions of overwritten rows) are gone. It is
// best effort: with a reader in the middle of a transaction the log stays.
func (s *Store) truncateWAL(ctx context.Context) {
	s.w.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`)
}
