// Package password hashes and checks the passwords of dashboard accounts
// with argon2id (RFC 9106), in the PHC string format that other tools
// read:
//
//	$argon2id$v=19$m=47104,t=1,p=1$<salt>$<hash>
//
// salt and hash in unpadded standard base64. The parameters travel with
// each hash, so raising them later leaves older hashes verifiable
// (NeedsRehash says which to replace at the next sign-in).
package password

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"strings"
	"unicode/utf8"

	"golang.org/x/crypto/argon2"

	"lectern.dev/lectern"
)

// The parameters of new hashes: OWASP's first recommended configuration
// of argon2id (46 MiB, 1 pass, 1 lane), a 16-byte salt and a 32-byte key.
// One hash takes about 60 ms on a current server core (BenchmarkHash);
// 64 MiB with 3 passes and 2 lanes took 250 ms there.
const (
	Memory  = 46 * 1024 // KiB
	Time    = 1
	Threads = 1
	saltLen = 16
	keyLen  = 32
)

// Limits of a stored hash's parameters: a hash outside them is refused
// rather than computed, so a tampered record cannot make a sign-in take
// gigabytes or minutes.
const (
	maxMemory  = 1024 * 1024 // 1 GiB
	maxTime    = 16
	maxThreads = 16
)

// MinLen and MaxLen bound a password's length, in characters.
const (
	MinLen = 12
	MaxLen = 256
)

// Check returns an EINVALID error, saying what to change, when pw is
// not an acceptable password: 12 to 256 characters, not all one
// character. It never repeats the password.
func Check(pw string) error {
	if !utf8.ValidString(pw) {
		return lectern.Errorf(lectern.EINVALID, "The password is not valid UTF-8 text.")
	}
	n := utf8.RuneCountInString(pw)
	if n < MinLen || n > MaxLen {
		return lectern.Errorf(lectern.EINVALID, "The password has %d characters: give %d to %d.", n, MinLen, MaxLen)
	}
	first, _ := utf8.DecodeRuneInString(pw)
	if strings.Trim(pw, string(first)) == "" {
		return lectern.Errorf(lectern.EINVALID, "The password repeats one character: choose one that does not.")
	}
	return nil
}

// Hash returns the argon2id hash of pw, with a fresh random salt, in PHC
// form. It does not Check pw.
func Hash(pw string) (string, error) {
	salt := make([]byte, saltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("password salt: %w", err)
	}
	p := params{Memory, Time, Threads}
	return encode(p, salt, argonKey(pw, salt, p)), nil
}

// Verify reports whether pw is the password of encoded, comparing in
// constant time. A malformed hash, or one whose parameters are out of
// bounds, is an error (and never a match).
func Verify(pw, encoded string) (bool, error) {
	p, salt, key, err := decode(encoded)
	if err != nil {
		return false, err
	}
	got := argon2.IDKey([]byte(pw), salt, p.time, p.memory, p.threads, uint32(len(key)))
	return subtle.ConstantTimeCompare(got, key) == 1, nil
}

// NeedsRehash reports whether encoded was made with other parameters than
// new hashes get (or cannot be read), so that it should be replaced once
// the password is next known.
func NeedsRehash(encoded string) bool {
	p, salt, key, err := decode(encoded)
	return err != nil || p != (params{Memory, Time, Threads}) || len(salt) != saltLen || len(key) != keyLen
}

type params struct {
	memory  uint32
	time    uint32
	threads uint8
}

var b64 = base64.RawStdEncoding

func encode(p params, salt, key []byte) string {
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, p.memory, p.time, p.threads,
		b64.EncodeToString(salt), b64.EncodeToString(key))
}

func decode(encoded string) (p params, salt, key []byte, err error) {
	bad := func(why string) (params, []byte, []byte, error) {
		return params{}, nil, nil, fmt.Errorf("password hash: %s", why)
	}
	f := strings.Split(encoded, "$")
	if len(f) != 6 || f[0] != "" || f[1] != "argon2id" {
		return bad("not an argon2id hash in PHC form")
	}
	if f[2] != fmt.Sprintf("v=%d", argon2.Version) {
		return bad("unsupported argon2 version " + f[2])
	}
	var m, t, th uint32
	if n, err := fmt.Sscanf(f[3], "m=%d,t=%d,p=%d", &m, &t, &th); err != nil || n != 3 || f[3] != fmt.Sprintf("m=%d,t=%d,p=%d", m, t, th) {
		return bad("malformed parameters")
	}
	if m < 8*th || m > maxMemory || t < 1 || t > maxTime || th < 1 || th > maxThreads {
		return bad("parameters out of bounds")
	}
	if salt, err = b64.Strict().DecodeString(f[4]); err != nil || len(salt) < 8 {
		return bad("malformed salt")
	}
	if key, err = b64.Strict().DecodeString(f[5]); err != nil || len(key) < 16 || len(key) > 64 {
		return bad("malformed key")
	}
	return params{m, t, uint8(th)}, salt, key, nil
}

// argonKey is argon2id with p's parameters and a 32-byte key.
func argonKey(pw string, salt []byte, p params) []byte {
	return argon2.IDKey([]byte(pw), salt, p.time, p.memory, p.threads, keyLen)
}
