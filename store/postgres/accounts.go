package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

// CreateUser stores a user of an organization that is not deleted. The
// organization's row is locked against DeleteOrg, which drops the users
// it finds: no user is made in an organization being deleted.
func (s *Store) CreateUser(ctx context.Context, u *lectern.User) error {
	if err := store.PrepareUser(u); err != nil {
		return err
	}
	return s.tx(ctx, func(tx pgx.Tx) error {
		if err := lockRow(ctx, tx, `SELECT 1 FROM orgs WHERE id = $1 AND deleted_at IS NULL FOR KEY SHARE`, store.NotFound("organization", u.OrgID), u.OrgID); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO users (id, org_id, email, role, password_hash, created_at, password_set_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7)`, u.ID, u.OrgID, u.Email, string(u.Role), u.PasswordHash, u.CreatedAt, nullTime(u.PasswordSetAt))
		if isCode(err, uniqueViolation) {
			return lectern.Errorf(lectern.ECONFLICT, "A user with the email %s or the id %s already exists.", u.Email, u.ID)
		}
		return err
	})
}

const userCols = `id, org_id, email, role, password_hash, created_at, password_set_at, failed_sign_ins, locked_until`

func scanUser(row pgx.Row) (*lectern.User, error) {
	var u lectern.User
	var role string
	var set, locked *time.Time
	if err := row.Scan(&u.ID, &u.OrgID, &u.Email, &role, &u.PasswordHash, &u.CreatedAt, &set, &u.FailedSignIns, &locked); err != nil {
		return nil, err
	}
	u.Role, u.CreatedAt, u.PasswordSetAt, u.LockedUntil = lectern.Role(role), utc(u.CreatedAt), zeroTime(set), zeroTime(locked)
	return &u, nil
}

// getUser reads one user matching where ($1 is key), or ENOTFOUND.
func getUser(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, where, key string) (*lectern.User, error) {
	u, err := scanUser(q.QueryRow(ctx, `SELECT `+userCols+` FROM users WHERE `+where, key))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, store.NotFound("user", key)
	}
	return u, wrap(err)
}

// GetUser returns a user by ID.
func (s *Store) GetUser(ctx context.Context, id string) (*lectern.User, error) {
	return getUser(ctx, s.pool, `id = $1`, id)
}

// GetUserByEmail returns the user with the (normalized) email.
func (s *Store) GetUserByEmail(ctx context.Context, email string) (*lectern.User, error) {
	e, err := lectern.NormalizeEmail(email)
	if err != nil {
		return nil, lectern.Errorf(lectern.ENOTFOUND, "user not found")
	}
	return getUser(ctx, s.pool, `email = $1`, e)
}

// ListUsers returns an organization's users ("" for all), oldest first.
func (s *Store) ListUsers(ctx context.Context, orgID string) ([]*lectern.User, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+userCols+` FROM users WHERE $1 = '' OR org_id = $1 ORDER BY created_at, id COLLATE "C"`, orgID)
	return collect(rows, err, scanUser)
}

// SetPassword replaces a user's password hash and clears their lock.
func (s *Store) SetPassword(ctx context.Context, userID, hash string, at time.Time) error {
	tag, err := s.pool.Exec(ctx, `UPDATE users SET password_hash = $1, password_set_at = $2, failed_sign_ins = 0, locked_until = NULL
		WHERE id = $3`, hash, utc(at), userID)
	if err != nil {
		return wrap(err)
	}
	if tag.RowsAffected() == 0 {
		return store.NotFound("user", userID)
	}
	return nil
}

// RecordSignIn counts a failed sign-in, locking at lockAfter, or clears
// the count after a success, in one statement (concurrent attempts wait
// on the row's lock and each counts).
func (s *Store) RecordSignIn(ctx context.Context, userID string, ok bool, at time.Time, lockAfter int, lockFor time.Duration) (*lectern.User, error) {
	var row pgx.Row
	if ok {
		row = s.pool.QueryRow(ctx, `UPDATE users SET failed_sign_ins = 0, locked_until = NULL WHERE id = $1 RETURNING `+userCols, userID)
	} else {
		row = s.pool.QueryRow(ctx, `UPDATE users SET
			failed_sign_ins = CASE WHEN $2::int > 0 AND failed_sign_ins + 1 >= $2::int THEN 0 ELSE failed_sign_ins + 1 END,
			locked_until = CASE WHEN $2::int > 0 AND failed_sign_ins + 1 >= $2::int THEN $3 ELSE locked_until END
			WHERE id = $1 RETURNING `+userCols, userID, lockAfter, utc(at.Add(lockFor)))
	}
	u, err := scanUser(row)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, store.NotFound("user", userID)
	}
	return u, wrap(err)
}

// DeleteUser drops a user; their sessions and tokens go by cascade.
func (s *Store) DeleteUser(ctx context.Context, id string) error {
	tag, err := s.pool.Exec(ctx, `DELETE FROM users WHERE id = $1`, id)
	if err != nil {
		return wrap(err)
	}
	if tag.RowsAffected() == 0 {
		return store.NotFound("user", id)
	}
	return nil
}

// nullTime stores a zero time as NULL.
func nullTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	u := utc(t)
	return &u
}

// zeroTime reads a nullable time, NULL as the zero time.
func zeroTime(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return utc(*t)
}
