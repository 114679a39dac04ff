package lectern

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestNormalizeEmail(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		" Ada.Lovelace@Example.COM ": "ada.lovelace@example.com",
		"a+tag@docs.acme.test":       "a+tag@docs.acme.test",
		"ÉLODIE@exemple.fr":          "élodie@exemple.fr",
	} {
		if got, err := NormalizeEmail(in); err != nil || got != want {
			t.Errorf("NormalizeEmail(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	long := strings.Repeat("a", 64) + "@" + strings.Repeat("b", 60) + "." + strings.Repeat("c", 60) + "." + strings.Repeat("d", 63) + ".com"
	for in, why := range map[string]string{
		"":                                       "name@example.com",
		"ada":                                    "name@example.com",
		"@example.com":                           "name@example.com",
		"ada@":                                   "name@example.com",
		"ada@b@example.com":                      "more than one @",
		"ada lovelace@example.com":               "spaces",
		"Ada <ada@example.com>":                  "spaces",
		"ada@example":                            "no dot",
		"ada@-example.com":                       "not a host name",
		"ada@example..com":                       "not a host name",
		".ada@example.com":                       "starts or ends with a dot",
		"a..da@example.com":                      "two in a row",
		"ada\n@example.com":                      "control characters",
		strings.Repeat("a", 65) + "@example.com": "longer than 64",
		long + "x":                               "longer than 254",
	} {
		_, err := NormalizeEmail(in)
		if ErrorCode(err) != EINVALID || !strings.Contains(err.Error(), why) {
			t.Errorf("NormalizeEmail(%q) = %v, want EINVALID saying %q", in, err, why)
		}
	}
	if len(long) != 254 {
		t.Fatalf("test address has %d characters, want 254", len(long))
	}
	if _, err := NormalizeEmail(long); err != nil {
		t.Errorf("NormalizeEmail of 254 characters: %v", err)
	}
}

func TestParseRole(t *testing.T) {
	t.Parallel()
	if r, err := ParseRole(" Owner"); r != RoleOwner || err != nil {
		t.Errorf("ParseRole(Owner) = %q, %v", r, err)
	}
	if r, err := ParseRole("member"); r != RoleMember || err != nil {
		t.Errorf("ParseRole(member) = %q, %v", r, err)
	}
	if _, err := ParseRole("admin"); ErrorCode(err) != EINVALID || !strings.Contains(err.Error(), "owner or member") {
		t.Errorf("ParseRole(admin) = %v, want EINVALID naming the roles", err)
	}
}

func TestTokens(t *testing.T) {
	t.Parallel()
	a, b := NewSessionToken(), NewSessionToken()
	if !regexp.MustCompile(`^lss_[a-z2-7]{52}$`).MatchString(a) || a == b {
		t.Errorf("NewSessionToken = %q, %q; want two different lss_ + 52 base32", a, b)
	}
	if s := NewSignInToken(); !regexp.MustCompile(`^lsi_[a-z2-7]{52}$`).MatchString(s) {
		t.Errorf("NewSignInToken = %q", s)
	}
	if h := HashToken(a); len(h) != 32 || string(h) == string(HashToken(b)) {
		t.Errorf("HashToken = %x, want 32 bytes differing per token", h)
	}
}

// Secrets never reach JSON: the password hash, the session's hash and CSRF
// secret, a sign-in token's hash.
func TestAccountJSONHidesSecrets(t *testing.T) {
	t.Parallel()
	u := User{ID: "usr_1", Email: "a@b.test", PasswordHash: "$argon2id$secret", LockedUntil: time.Unix(1, 0)}
	s := Session{ID: "ses_1", Hash: []byte("hash-secret"), CSRF: "csrf-secret"}
	tok := SignInToken{Hash: []byte("token-secret")}
	for _, v := range []any{u, s, tok} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "secret") || strings.Contains(string(b), "aGFzaC1zZWNyZXQ") {
			t.Errorf("JSON shows a secret: %s", b)
		}
	}
	b, _ := json.Marshal(User{ID: "usr_2"})
	if strings.Contains(string(b), "lockedUntil") || strings.Contains(string(b), "passwordSetAt") {
		t.Errorf("zero times are in the JSON: %s", b)
	}
	if now := time.Now(); !(&User{LockedUntil: now.Add(time.Second)}).Locked(now) || (&User{LockedUntil: now}).Locked(now) {
		t.Error("Locked: want true before LockedUntil, false at it")
	}
}
