package actions

import (
	"context"
	"strings"
	"time"

	"lectern.dev/lectern"
)

// WelcomePath is the dashboard page where a one-time sign-in link is
// spent: the user sets a password there.
const WelcomePath = "/dashboard/welcome"

// SignInLink is a one-time sign-in link. The store keeps only its token's
// hash, so the link can be shown once only: when it is made.
type SignInLink struct {
	URL       string
	ExpiresAt time.Time
}

// WelcomeURL is the link that spends the sign-in token tok on the server
// whose public URL is baseURL.
func WelcomeURL(baseURL, tok string) string {
	return strings.TrimRight(baseURL, "/") + WelcomePath + "?token=" + tok
}

// Users returns the organization's users, oldest first.
func (s *Service) Users(ctx context.Context, org string) ([]*lectern.User, error) {
	if org == "" {
		// The store lists every organization's users for "".
		return nil, notFound("organization", org)
	}
	return s.Store.ListUsers(ctx, org)
}

// User returns the organization's user id. A missing user and another
// organization's are the same ENOTFOUND.
func (s *Service) User(ctx context.Context, org, id string) (*lectern.User, error) {
	u, err := s.Store.GetUser(ctx, id)
	if lectern.ErrorCode(err) == lectern.ENOTFOUND || (err == nil && (org == "" || u.OrgID != org)) {
		return nil, notFound("user", id)
	}
	return u, err
}

// AddUser creates u in the organization org (the admin command `user
// create` and the dashboard's invitations). A user without a password
// hash also gets a one-time sign-in link on baseURL, the server's public
// URL, valid lectern.SignInLinkTTL, with which they set a password; it is
// returned (nil for a user with a password). ECONFLICT when the email is
// taken: emails are unique across the server, not per organization.
func (s *Service) AddUser(ctx context.Context, org string, u *lectern.User, baseURL string) (*SignInLink, error) {
	u.OrgID = org
	if u.CreatedAt.IsZero() {
		u.CreatedAt = s.now()
	}
	if err := s.Store.CreateUser(ctx, u); err != nil {
		if lectern.ErrorCode(err) == lectern.ECONFLICT {
			return nil, lectern.Errorf(lectern.ECONFLICT,
				"A user with the email %s already exists on this server: an email belongs to one account, in one organization.", u.Email)
		}
		return nil, err
	}
	if u.PasswordHash != "" {
		return nil, nil
	}
	link, err := s.newSignInLink(ctx, u, baseURL)
	if err != nil {
		// Leave no user without a way in, so that adding them again works.
		s.Store.DeleteUser(context.WithoutCancel(ctx), u.ID)
		return nil, err
	}
	return link, nil
}

// ResendInvitation makes a new one-time sign-in link for the
// organization's user id, who has not set a password yet (the first link
// was lost or expired). Their earlier unused links stop working first,
// so that only the newest link, the one the owner now passes on, lets
// anyone in. ECONFLICT once they have set a password.
func (s *Service) ResendInvitation(ctx context.Context, org, id, baseURL string) (*lectern.User, *SignInLink, error) {
	u, err := s.User(ctx, org, id)
	if err != nil {
		return nil, nil, err
	}
	// A user with a password gets one too: it is how an owner lets a
	// member who forgot theirs back in (the link sets a new password and
	// ends their sessions); the old password works until then.
	if _, err := s.Store.DeleteSignInTokens(ctx, u.ID); err != nil {
		return nil, nil, err
	}
	link, err := s.newSignInLink(ctx, u, baseURL)
	return u, link, err
}

func (s *Service) newSignInLink(ctx context.Context, u *lectern.User, baseURL string) (*SignInLink, error) {
	tok := lectern.NewSignInToken()
	t := &lectern.SignInToken{Hash: lectern.HashToken(tok), UserID: u.ID, ExpiresAt: s.now().Add(lectern.SignInLinkTTL)}
	if err := s.Store.CreateSignInToken(ctx, t); err != nil {
		return nil, err
	}
	return &SignInLink{URL: WelcomeURL(baseURL, tok), ExpiresAt: t.ExpiresAt}, nil
}

// LastOwner reports whether u is the only owner among users (the
// organization's): the page offers neither removing nor demoting them.
// The store decides in the end (SetRole, RemoveUser): this list may be
// out of date by the time an owner acts on it.
func LastOwner(users []*lectern.User, u *lectern.User) bool {
	if u.Role != lectern.RoleOwner {
		return false
	}
	for _, o := range users {
		if o.Role == lectern.RoleOwner && o.ID != u.ID {
			return false
		}
	}
	return true
}

// SetRole makes the organization's user id an owner or a member and
// returns them as they now are. EINVALID for another role; ECONFLICT,
// changing nothing, when it would leave the organization without an
// owner, so that someone can always manage it. Their sessions stay: each
// request reads the user's role again, so a demoted owner loses the
// owner's pages at their next request.
func (s *Service) SetRole(ctx context.Context, org, id string, role lectern.Role) (*lectern.User, error) {
	u, err := s.User(ctx, org, id)
	if err != nil {
		return nil, err
	}
	if role, err = lectern.ParseRole(string(role)); err != nil {
		return nil, err
	}
	changed, err := s.Store.SetUserRole(ctx, u.ID, role)
	switch lectern.ErrorCode(err) {
	case lectern.ENOTFOUND:
		return nil, notFound("user", id)
	case lectern.ECONFLICT:
		return nil, lastOwnerError(u)
	}
	return changed, err
}

// RemoveUser deletes the organization's user id, which ends their
// sessions and voids their sign-in links, and returns who it was. The
// organization's last owner cannot be removed (ECONFLICT): the store
// decides it with the deletion, so two owners removing each other at
// once leave one of them.
func (s *Service) RemoveUser(ctx context.Context, org, id string) (*lectern.User, error) {
	u, err := s.User(ctx, org, id)
	if err != nil {
		return nil, err
	}
	switch err := s.Store.DeleteMember(ctx, u.ID); lectern.ErrorCode(err) {
	case "":
		return u, nil
	case lectern.ENOTFOUND:
		return nil, notFound("user", id)
	case lectern.ECONFLICT:
		return nil, lastOwnerError(u)
	default:
		return nil, err
	}
}

func lastOwnerError(u *lectern.User) error {
	return lectern.Errorf(lectern.ECONFLICT,
		"%s is the organization's only owner: make someone else an owner first, so that someone can still manage it.", u.Email)
}
