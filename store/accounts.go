package store

import (
	"context"
	"time"

	"lectern.dev/lectern"
)

// Accounts keeps the dashboard's users, their sessions and their one-time
// sign-in tokens. Tokens are kept as their SHA-256 (lectern.HashToken)
// only, passwords as argon2id hashes only (package password).
//
// An organization's users go with it: DeleteOrg drops them at once, with
// their sessions and sign-in tokens. DeleteUser drops a user's sessions
// and sign-in tokens with it.
type Accounts interface {
	// CreateUser stores a user; it sets ID (usr_) and CreatedAt when
	// empty, and normalizes Email (lectern.NormalizeEmail; EINVALID when
	// it is not an address, or the role is unknown). ECONFLICT when
	// another user of any organization has the email; ENOTFOUND when the
	// organization is missing or deleted.
	CreateUser(ctx context.Context, u *lectern.User) error
	// GetUser returns ENOTFOUND when there is no such user.
	GetUser(ctx context.Context, id string) (*lectern.User, error)
	// GetUserByEmail looks a user up by email, compared after
	// normalization (so case-insensitively); ENOTFOUND when none has it.
	GetUserByEmail(ctx context.Context, email string) (*lectern.User, error)
	// ListUsers returns the users of an organization ("" for all),
	// oldest first.
	ListUsers(ctx context.Context, orgID string) ([]*lectern.User, error)
	// SetPassword replaces a user's password hash, sets PasswordSetAt to
	// at, and clears FailedSignIns and LockedUntil. ENOTFOUND when the
	// user is missing. It leaves sessions alone: callers end the others
	// with DeleteUserSessions.
	SetPassword(ctx context.Context, userID, hash string, at time.Time) error
	// RecordSignIn records a sign-in attempt at at, atomically, and
	// returns the user as it now is. A success clears FailedSignIns and
	// LockedUntil. A failure adds one to FailedSignIns; when that reaches
	// lockAfter (> 0), LockedUntil becomes at + lockFor and FailedSignIns
	// starts again from 0. ENOTFOUND when the user is missing.
	RecordSignIn(ctx context.Context, userID string, ok bool, at time.Time, lockAfter int, lockFor time.Duration) (*lectern.User, error)
	// DeleteUser drops a user with their sessions and sign-in tokens;
	// ENOTFOUND when missing.
	DeleteUser(ctx context.Context, id string) error
	// SetUserRole changes a user's role and returns the user as it now
	// is. ENOTFOUND when missing; EINVALID for an unknown role; ECONFLICT,
	// changing nothing, when it would leave the organization without an
	// owner (decided atomically: two owners demoting each other at once
	// leave one).
	SetUserRole(ctx context.Context, userID string, role lectern.Role) (*lectern.User, error)
	// DeleteMember drops a user as DeleteUser does, but ECONFLICT,
	// changing nothing, when they are their organization's last owner
	// (atomically, as SetUserRole).
	DeleteMember(ctx context.Context, id string) error

	// CreateSession stores a session of s.UserID; it sets ID (ses_),
	// CreatedAt and LastSeenAt when empty, and OrgID to the user's.
	// EINVALID without a 32-byte Hash, a CSRF secret or an ExpiresAt;
	// ENOTFOUND when the user is missing; ECONFLICT when the hash is taken.
	CreateSession(ctx context.Context, s *lectern.Session) error
	// GetSessionByHash returns the session with that token hash, or
	// ENOTFOUND when there is none or it has expired at at (ExpiresAt
	// not after at).
	GetSessionByHash(ctx context.Context, hash []byte, at time.Time) (*lectern.Session, error)
	// TouchSession records a use of the session at at and moves its
	// expiry to expiresAt (a sliding expiry); ENOTFOUND, changing
	// nothing, when it is missing or has expired at at.
	TouchSession(ctx context.Context, hash []byte, at, expiresAt time.Time) error
	// DeleteSession ends the session with that token hash (signing out);
	// no error when there is none.
	DeleteSession(ctx context.Context, hash []byte) error
	// DeleteUserSessions ends every session of a user (sign out
	// everywhere; after a password change) and returns how many it ended.
	DeleteUserSessions(ctx context.Context, userID string) (int, error)

	// CreateSignInToken stores a one-time sign-in token of t.UserID; it
	// sets CreatedAt when zero. EINVALID without a 32-byte Hash or an
	// ExpiresAt; ENOTFOUND when the user is missing; ECONFLICT when the
	// hash is taken.
	CreateSignInToken(ctx context.Context, t *lectern.SignInToken) error
	// UseSignInToken spends the token with that hash at at and returns
	// its user. ENOTFOUND when the token is unknown, already used, or
	// expired at at. Of concurrent uses of one token exactly one
	// succeeds.
	UseSignInToken(ctx context.Context, hash []byte, at time.Time) (*lectern.User, error)
	// DeleteSignInTokens drops a user's unused sign-in tokens (a new
	// invitation link replaces the earlier ones) and returns how many.
	DeleteSignInTokens(ctx context.Context, userID string) (int, error)
	// PruneSessions drops the sessions that expired before the time
	// given, and the sign-in tokens that expired or were used before it,
	// and returns how many records it dropped.
	PruneSessions(ctx context.Context, before time.Time) (int, error)
}

// PrepareUser checks and completes u as CreateUser does before storing
// it: the email normalized, the role known, ID and CreatedAt set when
// empty, CreatedAt at stored precision.
func PrepareUser(u *lectern.User) error {
	email, err := lectern.NormalizeEmail(u.Email)
	if err != nil {
		return err
	}
	if u.Role != lectern.RoleOwner && u.Role != lectern.RoleMember {
		return lectern.Errorf(lectern.EINVALID, "The role %q is unknown: give owner or member.", u.Role)
	}
	u.Email = email
	if u.ID == "" {
		u.ID = lectern.NewID(lectern.PrefixUser)
	}
	if u.CreatedAt.IsZero() {
		u.CreatedAt = time.Now()
	}
	u.CreatedAt = micro(u.CreatedAt)
	return nil
}

// PrepareSession checks and completes s as CreateSession does before
// storing it (all but OrgID, the user's).
func PrepareSession(s *lectern.Session) error {
	if len(s.Hash) != 32 || s.CSRF == "" || s.ExpiresAt.IsZero() {
		return lectern.Errorf(lectern.EINVALID, "a session needs a 32-byte token hash, a CSRF secret and an expiry")
	}
	if s.ID == "" {
		s.ID = lectern.NewID(lectern.PrefixSession)
	}
	if s.CreatedAt.IsZero() {
		s.CreatedAt = time.Now()
	}
	if s.LastSeenAt.IsZero() {
		s.LastSeenAt = s.CreatedAt
	}
	s.CreatedAt, s.LastSeenAt, s.ExpiresAt = micro(s.CreatedAt), micro(s.LastSeenAt), micro(s.ExpiresAt)
	return nil
}

// PrepareSignInToken checks and completes t as CreateSignInToken does
// before storing it.
func PrepareSignInToken(t *lectern.SignInToken) error {
	if len(t.Hash) != 32 || t.ExpiresAt.IsZero() {
		return lectern.Errorf(lectern.EINVALID, "a sign-in token needs a 32-byte hash and an expiry")
	}
	if t.CreatedAt.IsZero() {
		t.CreatedAt = time.Now()
	}
	t.CreatedAt, t.ExpiresAt, t.UsedAt = micro(t.CreatedAt), micro(t.ExpiresAt), nil
	return nil
}

// micro is t in UTC at stored precision.
func micro(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }
