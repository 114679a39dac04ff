package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

// CreateSession stores a session of an existing user, in the user's
// organization.
func (s *Store) CreateSession(ctx context.Context, sess *lectern.Session) error {
	if err := store.PrepareSession(sess); err != nil {
		return err
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		var org string
		err := tx.QueryRowContext(ctx, `SELECT org_id FROM users WHERE id = ?`, sess.UserID).Scan(&org)
		if errors.Is(err, sql.ErrNoRows) {
			return store.NotFound("user", sess.UserID)
		}
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO sessions (id, hash, user_id, org_id, csrf, created_at, expires_at, last_seen_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, sess.ID, sess.Hash, sess.UserID, org, sess.CSRF, ts(sess.CreatedAt), ts(sess.ExpiresAt), ts(sess.LastSeenAt))
		if isUnique(err) {
			return lectern.Errorf(lectern.ECONFLICT, "a session with this id or token already exists")
		}
		if err == nil {
			sess.OrgID = org
		}
		return err
	})
}

// GetSessionByHash returns the session of a token that has not expired at
// at.
func (s *Store) GetSessionByHash(ctx context.Context, hash []byte, at time.Time) (*lectern.Session, error) {
	var sess lectern.Session
	var created, expires, seen int64
	err := s.r.QueryRowContext(ctx, `SELECT id, hash, user_id, org_id, csrf, created_at, expires_at, last_seen_at FROM sessions
		WHERE hash = ? AND expires_at > ?`, hash, ts(at)).Scan(&sess.ID, &sess.Hash, &sess.UserID, &sess.OrgID, &sess.CSRF, &created, &expires, &seen)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, lectern.Errorf(lectern.ENOTFOUND, "session not found or expired")
	}
	if err != nil {
		return nil, wrap(err)
	}
	sess.CreatedAt, sess.ExpiresAt, sess.LastSeenAt = fromTS(created), fromTS(expires), fromTS(seen)
	return &sess, nil
}

// TouchSession moves a live session's expiry and records its use.
func (s *Store) TouchSession(ctx context.Context, hash []byte, at, expiresAt time.Time) error {
	res, err := s.w.ExecContext(ctx, `UPDATE sessions SET last_seen_at = ?1, expires_at = ?2 WHERE hash = ?3 AND expires_at > ?1`,
		ts(at), ts(expiresAt), hash)
	if err != nil {
		return wrap(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return lectern.Errorf(lectern.ENOTFOUND, "session not found or expired")
	}
	return nil
}

// DeleteSession ends the session of a token, if there is one.
func (s *Store) DeleteSession(ctx context.Context, hash []byte) error {
	_, err := s.w.ExecContext(ctx, `DELETE FROM sessions WHERE hash = ?`, hash)
	return wrap(err)
}

// DeleteUserSessions ends every session of a user.
func (s *Store) DeleteUserSessions(ctx context.Context, userID string) (int, error) {
	res, err := s.w.ExecContext(ctx, `DELETE FROM sessions WHERE user_id = ?`, userID)
	if err != nil {
		return 0, wrap(err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// CreateSignInToken stores a one-time sign-in token of an existing user.
func (s *Store) CreateSignInToken(ctx context.Context, t *lectern.SignInToken) error {
	if err := store.PrepareSignInToken(t); err != nil {
		return err
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM users WHERE id = ?`, t.UserID).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return store.NotFound("user", t.UserID)
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO signin_tokens (hash, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)`,
			t.Hash, t.UserID, ts(t.CreatedAt), ts(t.ExpiresAt))
		if isUnique(err) {
			return lectern.Errorf(lectern.ECONFLICT, "a sign-in token with this hash already exists")
		}
		return err
	})
}

// UseSignInToken spends a token in one write transaction (SQLite has one
// writer, so concurrent uses are serialized) and returns its user.
func (s *Store) UseSignInToken(ctx context.Context, hash []byte, at time.Time) (*lectern.User, error) {
	var u *lectern.User
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var userID string
		err := tx.QueryRowContext(ctx, `UPDATE signin_tokens SET used_at = ?1 WHERE hash = ?2 AND used_at IS NULL AND expires_at > ?1
			RETURNING user_id`, ts(at), hash).Scan(&userID)
		if errors.Is(err, sql.ErrNoRows) {
			return lectern.Errorf(lectern.ENOTFOUND, "The sign-in link is unknown, already used or expired.")
		}
		if err != nil {
			return err
		}
		u, err = getUser(ctx, tx, `id = ?`, userID)
		return err
	})
	if err != nil {
		return nil, wrap(err)
	}
	return u, nil
}

// PruneSessions drops expired sessions and spent or expired tokens.
func (s *Store) PruneSessions(ctx context.Context, before time.Time) (int, error) {
	var total int64
	err := s.tx(ctx, func(tx *sql.Tx) error {
		for _, q := range []string{
			`DELETE FROM sessions WHERE expires_at < ?1`,
			`DELETE FROM signin_tokens WHERE expires_at < ?1 OR used_at < ?1`,
		} {
			res, err := tx.ExecContext(ctx, q, ts(before))
			if err != nil {
				return err
			}
			n, _ := res.RowsAffected()
			total += n
		}
		return nil
	})
	return int(total), wrap(err)
}
