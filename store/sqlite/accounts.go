package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

// CreateUser stores a user of an organization that is not deleted.
func (s *Store) CreateUser(ctx context.Context, u *lectern.User) error {
	if err := store.PrepareUser(u); err != nil {
		return err
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM orgs WHERE id = ? AND deleted_at IS NULL`, u.OrgID).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return store.NotFound("organization", u.OrgID)
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO users (id, org_id, email, role, password_hash, created_at, password_set_at)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, u.ID, u.OrgID, u.Email, string(u.Role), u.PasswordHash, ts(u.CreatedAt), nullTS(u.PasswordSetAt))
		if isUnique(err) {
			return lectern.Errorf(lectern.ECONFLICT, "A user with the email %s or the id %s already exists.", u.Email, u.ID)
		}
		return err
	})
}

const userCols = `id, org_id, email, role, password_hash, created_at, password_set_at, failed_sign_ins, locked_until`

func scanUser(row interface{ Scan(...any) error }) (*lectern.User, error) {
	var u lectern.User
	var role string
	var created int64
	var set, locked sql.NullInt64
	if err := row.Scan(&u.ID, &u.OrgID, &u.Email, &role, &u.PasswordHash, &created, &set, &u.FailedSignIns, &locked); err != nil {
		return nil, err
	}
	u.Role, u.CreatedAt, u.PasswordSetAt, u.LockedUntil = lectern.Role(role), fromTS(created), fromNullZero(set), fromNullZero(locked)
	return &u, nil
}

// getUser reads one user with q, or ENOTFOUND naming key.
func getUser(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, where string, key string) (*lectern.User, error) {
	u, err := scanUser(q.QueryRowContext(ctx, `SELECT `+userCols+` FROM users WHERE `+where, key))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, store.NotFound("user", key)
	}
	return u, wrap(err)
}

// GetUser returns a user by ID.
func (s *Store) GetUser(ctx context.Context, id string) (*lectern.User, error) {
	return getUser(ctx, s.r, `id = ?`, id)
}

// GetUserByEmail returns the user with the (normalized) email.
func (s *Store) GetUserByEmail(ctx context.Context, email string) (*lectern.User, error) {
	e, err := lectern.NormalizeEmail(email)
	if err != nil {
		return nil, lectern.Errorf(lectern.ENOTFOUND, "user not found")
	}
	return getUser(ctx, s.r, `email = ?`, e)
}

// ListUsers returns an organization's users ("" for all), oldest first.
func (s *Store) ListUsers(ctx context.Context, orgID string) ([]*lectern.User, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+userCols+` FROM users WHERE ?1 = '' OR org_id = ?1 ORDER BY created_at, id`, orgID)
	return collect(rows, err, scanUser)
}

// SetPassword replaces a user's password hash and clears their lock.
func (s *Store) SetPassword(ctx context.Context, userID, hash string, at time.Time) error {
	res, err := s.w.ExecContext(ctx, `UPDATE users SET password_hash = ?, password_set_at = ?, failed_sign_ins = 0, locked_until = NULL
		WHERE id = ?`, hash, ts(at), userID)
	if err != nil {
		return wrap(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return store.NotFound("user", userID)
	}
	return nil
}

// RecordSignIn counts a failed sign-in, locking at lockAfter, or clears
// the count after a success, in one statement.
func (s *Store) RecordSignIn(ctx context.Context, userID string, ok bool, at time.Time, lockAfter int, lockFor time.Duration) (*lectern.User, error) {
	q := `UPDATE users SET failed_sign_ins = 0, locked_until = NULL WHERE id = ?1 RETURNING ` + userCols
	if !ok {
		q = `UPDATE users SET
			failed_sign_ins = CASE WHEN ?2 > 0 AND failed_sign_ins + 1 >= ?2 THEN 0 ELSE failed_sign_ins + 1 END,
			locked_until = CASE WHEN ?2 > 0 AND failed_sign_ins + 1 >= ?2 THEN ?3 ELSE locked_until END
			WHERE id = ?1 RETURNING ` + userCols
	}
	u, err := scanUser(s.w.QueryRowContext(ctx, q, userID, lockAfter, ts(at.Add(lockFor))))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, store.NotFound("user", userID)
	}
	return u, wrap(err)
}

// DeleteUser drops a user; their sessions and tokens go by cascade.
func (s *Store) DeleteUser(ctx context.Context, id string) error {
	res, err := s.w.ExecContext(ctx, `DELETE FROM users WHERE id = ?`, id)
	if err != nil {
		return wrap(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return store.NotFound("user", id)
	}
	return nil
}

// nullTS stores a zero time as NULL.
func nullTS(t time.Time) sql.NullInt64 {
	if t.IsZero() {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: ts(t), Valid: true}
}

// fromNullZero reads a nullable time, NULL as the zero time.
func fromNullZero(v sql.NullInt64) time.Time {
	if !v.Valid {
		return time.Time{}
	}
	return fromTS(v.Int64)
}
