package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"lectern.dev/lectern"
)

// lastOwner is the ECONFLICT of a change that would leave an
// organization without an owner.
func lastOwner() error {
	return lectern.Errorf(lectern.ECONFLICT, "This user is the organization's last owner: make another user an owner first.")
}

// keepsOwner is true of a row (users u) whose change from owner leaves
// another owner in its organization. SQLite has one writer, so the
// statement that checks it also decides it.
const keepsOwner = `(u.role <> 'owner' OR (SELECT count(*) FROM users o WHERE o.org_id = u.org_id AND o.role = 'owner') > 1)`

// SetUserRole changes a user's role, refusing to demote the last owner.
func (s *Store) SetUserRole(ctx context.Context, userID string, role lectern.Role) (*lectern.User, error) {
	role, err := lectern.ParseRole(string(role))
	if err != nil {
		return nil, err
	}
	u, err := scanUser(s.w.QueryRowContext(ctx, `UPDATE users AS u SET role = ?2 WHERE id = ?1 AND (?2 = 'owner' OR `+keepsOwner+`)
		RETURNING `+userCols, userID, string(role)))
	if errors.Is(err, sql.ErrNoRows) {
		if _, gerr := s.GetUser(ctx, userID); gerr != nil {
			return nil, gerr
		}
		return nil, lastOwner()
	}
	return u, wrap(err)
}

// DeleteMember drops a user unless they are their organization's last
// owner.
func (s *Store) DeleteMember(ctx context.Context, id string) error {
	res, err := s.w.ExecContext(ctx, `DELETE FROM users AS u WHERE id = ? AND `+keepsOwner, id)
	if err != nil {
		return wrap(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		if _, err := s.GetUser(ctx, id); err != nil {
			return err
		}
		return lastOwner()
	}
	return nil
}

// DeleteSignInTokens drops a user's unused sign-in tokens.
func (s *Store) DeleteSignInTokens(ctx context.Context, userID string) (int, error) {
	res, err := s.w.ExecContext(ctx, `DELETE FROM signin_tokens WHERE user_id = ? AND used_at IS NULL`, userID)
	if err != nil {
		return 0, wrap(err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}
