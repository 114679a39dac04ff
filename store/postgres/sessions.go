package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

// CreateSession stores a session of an existing user, in the user's
// organization, in one statement (a user deleted meanwhile fails its
// foreign key: ENOTFOUND).
func (s *Store) CreateSession(ctx context.Context, sess *lectern.Session) error {
	if err := store.PrepareSession(sess); err != nil {
		return err
	}
	var org string
	err := s.pool.QueryRow(ctx, `INSERT INTO sessions (id, hash, user_id, org_id, csrf, created_at, expires_at, last_seen_at)
		SELECT $1, $2, u.id, u.org_id, $4, $5, $6, $7 FROM users u WHERE u.id = $3 RETURNING org_id`,
		sess.ID, sess.Hash, sess.UserID, sess.CSRF, sess.CreatedAt, sess.ExpiresAt, sess.LastSeenAt).Scan(&org)
	switch {
	case errors.Is(err, pgx.ErrNoRows) || isCode(err, foreignKeyViolation):
		return store.NotFound("user", sess.UserID)
	case isCode(err, uniqueViolation):
		return lectern.Errorf(lectern.ECONFLICT, "a session with this id or token already exists")
	case err != nil:
		return wrap(err)
	}
	sess.OrgID = org
	return nil
}

// GetSessionByHash returns the session of a token that has not expired at
// at.
func (s *Store) GetSessionByHash(ctx context.Context, hash []byte, at time.Time) (*lectern.Session, error) {
	var sess lectern.Session
	err := s.pool.QueryRow(ctx, `SELECT id, hash, user_id, org_id, csrf, created_at, expires_at, last_seen_at FROM sessions
		WHERE hash = $1 AND expires_at > $2`, hash, utc(at)).Scan(&sess.ID, &sess.Hash, &sess.UserID, &sess.OrgID, &sess.CSRF,
		&sess.CreatedAt, &sess.ExpiresAt, &sess.LastSeenAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, lectern.Errorf(lectern.ENOTFOUND, "session not found or expired")
	}
	if err != nil {
		return nil, wrap(err)
	}
	sess.CreatedAt, sess.ExpiresAt, sess.LastSeenAt = utc(sess.CreatedAt), utc(sess.ExpiresAt), utc(sess.LastSeenAt)
	return &sess, nil
}

// TouchSession moves a live session's expiry and records its use.
func (s *Store) TouchSession(ctx context.Context, hash []byte, at, expiresAt time.Time) error {
	tag, err := s.pool.Exec(ctx, `UPDATE sessions SET last_seen_at = $1, expires_at = $2 WHERE hash = $3 AND expires_at > $1`,
		utc(at), utc(expiresAt), hash)
	if err != nil {
		return wrap(err)
	}
	if tag.RowsAffected() == 0 {
		return lectern.Errorf(lectern.ENOTFOUND, "session not found or expired")
	}
	return nil
}

// DeleteSession ends the session of a token, if there is one.
func (s *Store) DeleteSession(ctx context.Context, hash []byte) error {
	_, err := s.pool.Exec(ctx, `DELETE FROM sessions WHERE hash = $1`, hash)
	return wrap(err)
}

// DeleteUserSessions ends every session of a user.
func (s *Store) DeleteUserSessions(ctx context.Context, userID string) (int, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM sessions WHERE user_id = $1`, userID)
	if err != nil {
		return 0, wrap(err)
	}
	return int(tag.RowsAffected()), nil
}

// CreateSignInToken stores a one-time sign-in token of an existing user.
func (s *Store) CreateSignInToken(ctx context.Context, t *lectern.SignInToken) error {
	if err := store.PrepareSignInToken(t); err != nil {
		return err
	}
	tag, err := s.pool.Exec(ctx, `INSERT INTO signin_tokens (hash, user_id, created_at, expires_at)
		SELECT $1, u.id, $3, $4 FROM users u WHERE u.id = $2`, t.Hash, t.UserID, t.CreatedAt, t.ExpiresAt)
	switch {
	case isCode(err, foreignKeyViolation) || (err == nil && tag.RowsAffected() == 0):
		return store.NotFound("user", t.UserID)
	case isCode(err, uniqueViolation):
		return lectern.Errorf(lectern.ECONFLICT, "a sign-in token with this hash already exists")
	}
	return wrap(err)
}

// UseSignInToken spends a token and returns its user. The conditional
// UPDATE decides between concurrent uses: the row lock makes the others
// wait, then see used_at set and match nothing.
func (s *Store) UseSignInToken(ctx context.Context, hash []byte, at time.Time) (*lectern.User, error) {
	var u *lectern.User
	err := s.tx(ctx, func(tx pgx.Tx) error {
		var userID string
		err := tx.QueryRow(ctx, `UPDATE signin_tokens SET used_at = $1 WHERE hash = $2 AND used_at IS NULL AND expires_at > $1
			RETURNING user_id`, utc(at), hash).Scan(&userID)
		if errors.Is(err, pgx.ErrNoRows) {
			return lectern.Errorf(lectern.ENOTFOUND, "The sign-in link is unknown, already used or expired.")
		}
		if err != nil {
			return err
		}
		u, err = getUser(ctx, tx, `id = $1`, userID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return u, nil
}

// PruneSessions drops expired sessions and spent or expired tokens.
func (s *Store) PruneSessions(ctx context.Context, before time.Time) (int, error) {
	var total int64
	err := s.tx(ctx, func(tx pgx.Tx) error {
		for _, q := range []string{
			`DELETE FROM sessions WHERE expires_at < $1`,
			`DELETE FROM signin_tokens WHERE expires_at < $1 OR used_at < $1`,
		} {
			tag, err := tx.Exec(ctx, q, utc(before))
			if err != nil {
				return err
			}
			total += tag.RowsAffected()
		}
		return nil
	})
	return int(total), err
}
