package password

import (
	"regexp"
	"strings"
	"testing"

	"lectern.dev/lectern"
)

func TestHashFormatAndVerify(t *testing.T) {
	t.Parallel()
	const pw = "correct horse battery staple"
	h, err := Hash(pw)
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`^\$argon2id\$v=19\$m=47104,t=1,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$`)
	if !re.MatchString(h) {
		t.Fatalf("Hash = %q, want PHC argon2id form %s", h, re)
	}
	if strings.Contains(h, pw) {
		t.Fatal("the hash holds the password")
	}
	h2, _ := Hash(pw)
	if h2 == h {
		t.Error("two hashes of one password are equal: the salt is not random")
	}
	for _, c := range []struct {
		pw   string
		want bool
	}{{pw, true}, {pw + " ", false}, {"Correct horse battery staple", false}, {"", false}} {
		ok, err := Verify(c.pw, h)
		if err != nil || ok != c.want {
			t.Errorf("Verify(%q) = %v, %v; want %v", c.pw, ok, err, c.want)
		}
	}
	if NeedsRehash(h) {
		t.Error("NeedsRehash of a fresh hash = true")
	}
}

// A hash of other (valid) parameters verifies with its own, and asks to be
// replaced.
func TestVerifyOtherParams(t *testing.T) {
	t.Parallel()
	salt := []byte("0123456789abcdef")
	p := params{memory: 19 * 1024, time: 2, threads: 1}
	h := encode(p, salt, argonKey("hunter2hunter2", salt, p))
	if ok, err := Verify("hunter2hunter2", h); !ok || err != nil {
		t.Errorf("Verify with m=19456,t=2,p=1 = %v, %v; want true", ok, err)
	}
	if !NeedsRehash(h) {
		t.Error("NeedsRehash of an older-parameter hash = false")
	}
}

func TestVerifyRejectsTampered(t *testing.T) {
	t.Parallel()
	const pw = "a perfectly fine password"
	h, err := Hash(pw)
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Split(h, "$")
	flip := func(s string) string { // change one base64 digit of s
		c := byte('A')
		if s[3] == 'A' {
			c = 'B'
		}
		return s[:3] + string(c) + s[4:]
	}
	join := func(parts ...string) string { return strings.Join(parts, "$") }
	// Still well-formed, but not the password's hash: no match, no error.
	for name, tampered := range map[string]string{
		"salt": join("", f[1], f[2], f[3], flip(f[4]), f[5]),
		"key":  join("", f[1], f[2], f[3], f[4], flip(f[5])),
		"time": join("", f[1], f[2], "m=47104,t=2,p=1", f[4], f[5]),
	} {
		if ok, err := Verify(pw, tampered); ok || err != nil {
			t.Errorf("Verify with a changed %s = %v, %v; want false, nil", name, ok, err)
		}
	}
	// Malformed or out of bounds: an error, never a match.
	for name, bad := range map[string]string{
		"empty":        "",
		"argon2i":      join("", "argon2i", f[2], f[3], f[4], f[5]),
		"version":      join("", f[1], "v=16", f[3], f[4], f[5]),
		"huge memory":  join("", f[1], f[2], "m=4194304,t=1,p=1", f[4], f[5]),
		"zero time":    join("", f[1], f[2], "m=47104,t=0,p=1", f[4], f[5]),
		"extra params": join("", f[1], f[2], f[3]+",x=1", f[4], f[5]),
		"short key":    join("", f[1], f[2], f[3], f[4], f[5][:8]),
		"padded salt":  join("", f[1], f[2], f[3], f[4]+"==", f[5]),
		"extra field":  h + "$",
	} {
		if ok, err := Verify(pw, bad); ok || err == nil {
			t.Errorf("Verify with %s hash = %v, %v; want an error", name, ok, err)
		} else if strings.Contains(err.Error(), pw) {
			t.Errorf("Verify error shows the password: %v", err)
		}
	}
}

func TestCheck(t *testing.T) {
	t.Parallel()
	for _, pw := range []string{"twelve chars", "ééééééééééé1", strings.Repeat("ab", 128)} {
		if err := Check(pw); err != nil {
			t.Errorf("Check(%q) = %v, want nil", pw, err)
		}
	}
	for pw, want := range map[string]string{
		"short pw 11":             "has 11 characters: give 12 to 256",
		strings.Repeat("ab", 129): "has 258 characters: give 12 to 256",
		strings.Repeat("é", 12):   "repeats one character",
		strings.Repeat("a", 40):   "repeats one character",
		"bad utf8 \xff\xfe\xfd!!": "not valid UTF-8",
	} {
		err := Check(pw)
		if lectern.ErrorCode(err) != lectern.EINVALID || !strings.Contains(err.Error(), want) {
			t.Errorf("Check(%.20q) = %v, want EINVALID saying %q", pw, err, want)
		} else if strings.Contains(err.Error(), pw) {
			t.Errorf("Check error shows the password: %v", err)
		}
	}
}

// BenchmarkHash prints how long one hash (and so one sign-in) takes here.
func BenchmarkHash(b *testing.B) {
	for b.Loop() {
		if _, err := Hash("correct horse battery staple"); err != nil {
			b.Fatal(err)
		}
	}
}
