// Package secrets holds Lectern's secret key: the key that encrypts
// secrets kept at rest (repository credentials) and from which the
// link-signing key is derived. The key itself is never stored in the
// database: it comes from LECTERN_SECRET_KEY, from a key file, or, for the
// embedded default, from a key file generated beside the database.
//
// Sealed values are text: "v1." + key id + "." + base64url(nonce ||
// AES-256-GCM ciphertext). The key id (8 hex digits of a hash of the key)
// says which key sealed a value, so that a later release can rotate keys;
// the version says how. Every value is sealed for a context (for example
// "project-repo:prj_...") that Open must name again, so a sealed value
// copied to another record does not open there.
package secrets

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// KeySize is the length of a secret key in bytes.
const KeySize = 32

// CreateHint tells an operator how to create a key.
const CreateHint = `create one with "(umask 077; head -c 32 /dev/urandom | base64 > secret.key)"`

// sealPrefix starts every sealed value.
const sealPrefix = "v1."

// Key is a secret key. Its methods are safe for concurrent use.
type Key struct {
	id   string
	raw  []byte
	aead cipher.AEAD
}

// Parse reads a key written as base64 (standard or URL alphabet, padded
// or not) of exactly KeySize bytes, surrounding white space ignored. The
// error never repeats the text.
func Parse(text string) (*Key, error) {
	text = strings.TrimSpace(text)
	var raw []byte
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(text); err == nil {
			raw = b
			break
		}
	}
	if raw == nil {
		return nil, fmt.Errorf("the secret key is not base64 (%s)", CreateHint)
	}
	if len(raw) != KeySize {
		return nil, fmt.Errorf("the secret key holds %d bytes, want %d (%s)", len(raw), KeySize, CreateHint)
	}
	return newKey(raw)
}

func newKey(raw []byte) (*Key, error) {
	block, err := aes.NewCipher(raw)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(append([]byte("lectern key id\x00"), raw...))
	return &Key{id: hex.EncodeToString(sum[:4]), raw: raw, aead: aead}, nil
}

// Generate returns a new random key in the text form Parse reads.
func Generate() string {
	b := make([]byte, KeySize)
	rand.Read(b) // never fails (crypto/rand panics when it cannot)
	return base64.StdEncoding.EncodeToString(b)
}

// ReadFile reads a key file. The error names the file, never its content.
func ReadFile(path string) (*Key, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("secret key file: %w", err)
	}
	k, err := Parse(string(b))
	if err != nil {
		return nil, fmt.Errorf("secret key file %s: %w", path, err)
	}
	return k, nil
}

// LoadOrCreateFile reads the key file at path, creating it (mode 0600, as
// os.CreateTemp makes files)
// with a new key when it does not exist. The new key is written whole to a
// file of its own, then linked to path, which fails when another process
// linked its key first: concurrent starters agree on one key, and none
// reads a file half written. created reports whether this call made it.
func LoadOrCreateFile(path string) (k *Key, created bool, err error) {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, false, fmt.Errorf("secret key file: %w", err)
		}
		f, err := os.CreateTemp(filepath.Dir(path), ".secret.key-*")
		if err != nil {
			return nil, false, fmt.Errorf("secret key file: %w", err)
		}
		defer os.Remove(f.Name())
		text := Generate() + "\n"
		_, werr := f.WriteString(text)
		if err := errors.Join(werr, f.Sync(), f.Close()); err != nil {
			return nil, false, fmt.Errorf("secret key file: %w", err)
		}
		switch err := os.Link(f.Name(), path); {
		case err == nil:
			k, err := Parse(text)
			return k, true, err
		case !errors.Is(err, os.ErrExist):
			return nil, false, fmt.Errorf("secret key file: %w", err)
		}
		// Another process made it just now: read theirs.
	}
	k, err = ReadFile(path)
	return k, false, err
}

// ID is the key's id: 8 hex digits, safe to show.
func (k *Key) ID() string { return k.id }

// Seal encrypts plaintext for context.
func (k *Key) Seal(plaintext []byte, context string) string {
	nonce := make([]byte, k.aead.NonceSize())
	rand.Read(nonce)
	ct := k.aead.Seal(nonce, nonce, plaintext, []byte(context))
	return sealPrefix + k.id + "." + base64.RawURLEncoding.EncodeToString(ct)
}

// KeyID returns the id of the key that sealed s, and false when s is not
// a sealed value.
func KeyID(sealed string) (string, bool) {
	rest, ok := strings.CutPrefix(sealed, sealPrefix)
	id, _, ok2 := strings.Cut(rest, ".")
	return id, ok && ok2 && id != ""
}

// Open decrypts a value sealed for context. The error says why it cannot
// (another key, a damaged value) and never repeats the value.
func (k *Key) Open(sealed, context string) ([]byte, error) {
	id, ok := KeyID(sealed)
	if !ok {
		return nil, errors.New("the stored secret is not in a form this release reads")
	}
	body := strings.TrimPrefix(sealed, sealPrefix+id+".")
	if id != k.id {
		return nil, fmt.Errorf("the stored secret was sealed with another secret key (id %s; this process has key id %s): give every process the key the secret was stored with", id, k.id)
	}
	ct, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil || len(ct) < k.aead.NonceSize() {
		return nil, errors.New("the stored secret is damaged")
	}
	n := k.aead.NonceSize()
	pt, err := k.aead.Open(nil, ct[:n], ct[n:], []byte(context))
	if err != nil {
		return nil, errors.New("the stored secret is damaged or belongs to another record")
	}
	return pt, nil
}

// Derive returns a KeySize-byte key for purpose, derived from k with
// HKDF-SHA256: the same key and purpose always give the same bytes.
func (k *Key) Derive(purpose string) []byte {
	b, err := hkdf.Key(sha256.New, k.raw, nil, "lectern "+purpose, KeySize)
	if err != nil {
		panic(err) // only for lengths beyond 255 hashes
	}
	return b
}

// repoContext is the context a project's repository credentials are
// sealed for.
func repoContext(projectID string) string { return "project-repo:" + projectID }

// SealRepoCredentials seals the user name and password git gives to the
// repository of project projectID.
func (k *Key) SealRepoCredentials(projectID, username, password string) string {
	return k.Seal([]byte(username+":"+password), repoContext(projectID))
}

// OpenRepoCredentials opens what SealRepoCredentials sealed.
func (k *Key) OpenRepoCredentials(projectID, sealed string) (username, password string, err error) {
	b, err := k.Open(sealed, repoContext(projectID))
	if err != nil {
		return "", "", err
	}
	username, password, _ = strings.Cut(string(b), ":")
	return username, password, nil
}

// deployKeyContext is the context a project's SSH deploy key is sealed
// for.
func deployKeyContext(projectID string) string { return "project-deploy-key:" + projectID }

// SealDeployKey seals the private SSH deploy key of project projectID.
func (k *Key) SealDeployKey(projectID string, privateKey []byte) string {
	return k.Seal(privateKey, deployKeyContext(projectID))
}

// OpenDeployKey opens what SealDeployKey sealed.
func (k *Key) OpenDeployKey(projectID, sealed string) ([]byte, error) {
	return k.Open(sealed, deployKeyContext(projectID))
}
