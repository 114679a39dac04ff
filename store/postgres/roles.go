package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

// lastOwner is the ECONFLICT of a change that would leave an
// organization without an owner.
func lastOwner() error {
	return lectern.Errorf(lectern.ECONFLICT, "This user is the organization's last owner: make another user an owner first.")
}

// ownerChange runs change in a transaction that holds the lock of the
// user's organization row, once it checked that the change (from owner,
// when the user is one) leaves the organization another owner. Changes
// of one organization's owners are so decided one at a time. FOR NO KEY
// UPDATE leaves the organization's projects and keys free to be made
// meanwhile (their foreign keys take key-share locks).
func (s *Store) ownerChange(ctx context.Context, userID string, demotes bool, change func(tx pgx.Tx) error) error {
	return s.tx(ctx, func(tx pgx.Tx) error {
		var org string
		if err := tx.QueryRow(ctx, `SELECT org_id FROM users WHERE id = $1`, userID).Scan(&org); err != nil {
			if errors.Is(err, pgx.ErrNoRows) {
				return store.NotFound("user", userID)
			}
			return err
		}
		if _, err := tx.Exec(ctx, `SELECT 1 FROM orgs WHERE id = $1 FOR NO KEY UPDATE`, org); err != nil {
			return err
		}
		if demotes {
			// Read under the lock: a change committed meanwhile is seen.
			var role string
			var others int
			err := tx.QueryRow(ctx, `SELECT role, (SELECT count(*) FROM users o WHERE o.org_id = u.org_id AND o.role = 'owner' AND o.id <> u.id)
				FROM users u WHERE id = $1`, userID).Scan(&role, &others)
			if errors.Is(err, pgx.ErrNoRows) {
				return store.NotFound("user", userID)
			}
			if err != nil {
				return err
			}
			if role == string(lectern.RoleOwner) && others == 0 {
				return lastOwner()
			}
		}
		return change(tx)
	})
}

// SetUserRole changes a user's role, refusing to demote the last owner.
func (s *Store) SetUserRole(ctx context.Context, userID string, role lectern.Role) (*lectern.User, error) {
	role, err := lectern.ParseRole(string(role))
	if err != nil {
		return nil, err
	}
	var u *lectern.User
	err = s.ownerChange(ctx, userID, role != lectern.RoleOwner, func(tx pgx.Tx) error {
		var err error
		u, err = scanUser(tx.QueryRow(ctx, `UPDATE users SET role = $2 WHERE id = $1 RETURNING `+userCols, userID, string(role)))
		if errors.Is(err, pgx.ErrNoRows) {
			return store.NotFound("user", userID)
		}
		return err
	})
	return u, wrap(err)
}

// DeleteMember drops a user unless they are their organization's last
// owner.
func (s *Store) DeleteMember(ctx context.Context, id string) error {
	return wrap(s.ownerChange(ctx, id, true, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM users WHERE id = $1`, id)
		if err == nil && tag.RowsAffected() == 0 {
			return store.NotFound("user", id)
		}
		return err
	}))
}

// DeleteSignInTokens drops a user's unused sign-in tokens.
func (s *Store) DeleteSignInTokens(ctx context.Context, userID string) (int, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM signin_tokens WHERE user_id = $1 AND used_at IS NULL`, userID)
	if err != nil {
		return 0, wrap(err)
	}
	return int(tag.RowsAffected()), nil
}
