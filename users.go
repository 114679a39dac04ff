package lectern

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"strings"
	"time"
)

// Dashboard accounts: the people who sign in to /dashboard/ on the
// server's own host. Each belongs to one organization; emails are unique
// across the whole server. The store keeps passwords only as argon2id
// hashes (package password) and session and sign-in tokens only as their
// SHA-256 (HashToken), as it keeps API keys.

// Role is what a user may do in their organization.
type Role string

// The roles.
const (
	RoleOwner  Role = "owner"
	RoleMember Role = "member"
)

// ParseRole returns the role named s, or EINVALID.
func ParseRole(s string) (Role, error) {
	switch r := Role(strings.ToLower(strings.TrimSpace(s))); r {
	case RoleOwner, RoleMember:
		return r, nil
	}
	return "", Errorf(EINVALID, "The role %q is unknown: give owner or member.", s)
}

// The dashboard's sign-in rules, which it gives the store
// (store.Accounts.RecordSignIn, TouchSession, CreateSignInToken).
const (
	// SignInLockAfter failed sign-ins in a row lock an account out for
	// SignInLockFor.
	SignInLockAfter = 10
	SignInLockFor   = 15 * time.Minute
	// SessionIdleTTL is how long a session lasts after its last use (a
	// sliding expiry).
	SessionIdleTTL = 12 * time.Hour
	// SignInLinkTTL is how long a one-time sign-in link stays valid.
	SignInLinkTTL = 24 * time.Hour
)

// MaxEmailLen is the longest email address accepted (RFC 5321's path
// limit, less the angle brackets).
const MaxEmailLen = 254

// User is a dashboard account.
type User struct {
	ID    string `json:"id"`
	OrgID string `json:"orgId"`
	// Email is normalized (NormalizeEmail): lower-case, unique on the
	// server.
	Email string `json:"email"`
	Role  Role   `json:"role"`
	// PasswordHash is the argon2id hash of the password in PHC form, ""
	// until the user sets one. It never leaves the server.
	PasswordHash string    `json:"-"`
	CreatedAt    time.Time `json:"createdAt"`
	// PasswordSetAt is when the password was last set; zero when never.
	PasswordSetAt time.Time `json:"passwordSetAt,omitzero"`
	// FailedSignIns counts failed sign-ins since the last success or
	// lock-out.
	FailedSignIns int `json:"failedSignIns"`
	// LockedUntil is when a lock-out ends; zero when never locked.
	LockedUntil time.Time `json:"lockedUntil,omitzero"`
}

// Locked reports whether the user is locked out at t.
func (u *User) Locked(t time.Time) bool { return t.Before(u.LockedUntil) }

// NormalizeEmail returns s trimmed and lower-cased, or EINVALID when it is
// not a plain address (local@domain.tld, no display name, no spaces) of at
// most MaxEmailLen characters. Emails compare equal after it, so it is the
// one form stored and looked up.
func NormalizeEmail(s string) (string, error) {
	e := strings.ToLower(strings.TrimSpace(s))
	bad := func(why string) (string, error) {
		return "", Errorf(EINVALID, "The email address is not valid: %s.", why)
	}
	if len(e) > MaxEmailLen {
		return bad("it is longer than 254 characters")
	}
	local, domain, ok := strings.Cut(e, "@")
	switch {
	case !ok || local == "" || domain == "":
		return bad("give it as name@example.com")
	case strings.Contains(domain, "@"):
		return bad("it has more than one @")
	case len(local) > 64:
		return bad("the part before @ is longer than 64 characters")
	case strings.ContainsFunc(e, func(r rune) bool { return r <= ' ' || r == 0x7f || strings.ContainsRune(`"(),:;<>[\]`, r) }):
		return bad("it has spaces, control characters or one of \"(),:;<>[\\]")
	case strings.HasPrefix(local, ".") || strings.HasSuffix(local, ".") || strings.Contains(local, ".."):
		return bad("the part before @ starts or ends with a dot, or has two in a row")
	}
	labels := strings.Split(domain, ".")
	if len(labels) < 2 {
		return bad("the domain after @ has no dot")
	}
	for _, l := range labels {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return bad("the domain after @ is not a host name")
		}
	}
	return e, nil
}

// Session is a signed-in browser of a user. The browser holds the token
// (NewSessionToken); the store holds its hash only.
type Session struct {
	ID     string `json:"id"`
	Hash   []byte `json:"-"`
	UserID string `json:"userId"`
	OrgID  string `json:"orgId"`
	// CSRF is the session's secret for forms: a page embeds it and every
	// state-changing request must send it back.
	CSRF       string    `json:"-"`
	CreatedAt  time.Time `json:"createdAt"`
	ExpiresAt  time.Time `json:"expiresAt"`
	LastSeenAt time.Time `json:"lastSeenAt"`
}

// SignInToken is a one-time sign-in link's token, by its hash: it signs
// the user in once, before ExpiresAt, so that they set a password.
type SignInToken struct {
	Hash      []byte     `json:"-"`
	UserID    string     `json:"userId"`
	CreatedAt time.Time  `json:"createdAt"`
	ExpiresAt time.Time  `json:"expiresAt"`
	UsedAt    *time.Time `json:"usedAt,omitempty"`
}

// Token prefixes: a session cookie's and a sign-in link's.
const (
	SessionTokenPrefix = "lss_"
	SignInTokenPrefix  = "lsi_"
)

var tokenEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// newToken returns prefix and 256 random bits in lower-case base32.
func newToken(prefix string) string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("lectern: no randomness: " + err.Error())
	}
	return prefix + strings.ToLower(tokenEncoding.EncodeToString(b[:]))
}

// NewSessionToken returns a fresh session token ("lss_" + 52 base32
// characters), for the session cookie.
func NewSessionToken() string { return newToken(SessionTokenPrefix) }

// NewSignInToken returns a fresh one-time sign-in token ("lsi_" + 52
// base32 characters), for a sign-in link.
func NewSignInToken() string { return newToken(SignInTokenPrefix) }

// NewCSRFToken returns a fresh random secret for Session.CSRF.
func NewCSRFToken() string { return newToken("") }

// HashToken returns the SHA-256 of a session or sign-in token, the only
// form that is stored.
func HashToken(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}
