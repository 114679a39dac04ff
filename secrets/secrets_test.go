package secrets

import (
	"bytes"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func mustParse(t *testing.T, text string) *Key {
	t.Helper()
	k, err := Parse(text)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return k
}

func TestSealOpen(t *testing.T) {
	k := mustParse(t, Generate())
	secret := []byte("user:ghp_0123456789abcdef")
	s1, s2 := k.Seal(secret, "project-repo:prj_1"), k.Seal(secret, "project-repo:prj_1")
	if s1 == s2 {
		t.Error("two seals of one value are equal; want a fresh nonce each time")
	}
	for _, s := range []string{s1, s2} {
		if id, ok := KeyID(s); !ok || id != k.ID() || !strings.HasPrefix(s, "v1."+k.ID()+".") || strings.Contains(s, "ghp_") {
			t.Errorf("sealed value %q: want v1.%s.<ciphertext>", s, k.ID())
		}
		if _, ok := KeyID("prj_" + s); ok {
			t.Errorf("KeyID of a value that is not sealed: ok")
		}
		got, err := k.Open(s, "project-repo:prj_1")
		if err != nil || !bytes.Equal(got, secret) {
			t.Errorf("Open = %q, %v; want %q", got, err, secret)
		}
	}
	// Another record, another key, a damaged value: refused, never echoed.
	other := mustParse(t, Generate())
	for what, fn := range map[string]func() ([]byte, error){
		"other context": func() ([]byte, error) { return k.Open(s1, "project-repo:prj_2") },
		"other key":     func() ([]byte, error) { return other.Open(s1, "project-repo:prj_1") },
		"damaged":       func() ([]byte, error) { return k.Open(s1[:len(s1)-2]+"AA", "project-repo:prj_1") },
		"not sealed":    func() ([]byte, error) { return k.Open("user:ghp_0123456789abcdef", "project-repo:prj_1") },
		"bad base64":    func() ([]byte, error) { return k.Open("v1."+k.ID()+".!!!", "project-repo:prj_1") },
	} {
		got, err := fn()
		if err == nil || got != nil {
			t.Errorf("%s: Open = %q, %v; want an error", what, got, err)
		} else if strings.Contains(err.Error(), "ghp_") || strings.Contains(err.Error(), s1) {
			t.Errorf("%s: error %q repeats the secret", what, err)
		}
	}
	if _, err := other.Open(s1, "project-repo:prj_1"); err == nil || !strings.Contains(err.Error(), k.ID()) {
		t.Errorf("other key: error %v does not name the sealing key's id", err)
	}
}

func TestParse(t *testing.T) {
	raw := bytes.Repeat([]byte{0xfb}, KeySize)
	want := mustParse(t, base64.StdEncoding.EncodeToString(raw))
	for _, text := range []string{
		base64.StdEncoding.EncodeToString(raw) + "\n",
		base64.RawStdEncoding.EncodeToString(raw),
		base64.URLEncoding.EncodeToString(raw),
		"  " + base64.RawURLEncoding.EncodeToString(raw) + "\r\n",
	} {
		if k := mustParse(t, text); k.ID() != want.ID() {
			t.Errorf("Parse(%q) id %s, want %s", text, k.ID(), want.ID())
		}
	}
	for _, text := range []string{"", "not base64!", base64.StdEncoding.EncodeToString(raw[:16]), base64.StdEncoding.EncodeToString(append(raw, 1))} {
		_, err := Parse(text)
		if err == nil || !strings.Contains(err.Error(), "head -c 32 /dev/urandom | base64") {
			t.Errorf("Parse(%q) error %v, want one that says how to create a key", text, err)
		}
		if text != "" && err != nil && strings.Contains(err.Error(), text) {
			t.Errorf("Parse error %q repeats the text", err)
		}
	}
}

func TestDerive(t *testing.T) {
	k := mustParse(t, Generate())
	a, b := k.Derive("link-signing"), k.Derive("link-signing")
	if len(a) != KeySize || !bytes.Equal(a, b) {
		t.Errorf("Derive gave %x then %x; want the same 32 bytes", a, b)
	}
	if bytes.Equal(a, k.Derive("other")) || bytes.Equal(a, mustParse(t, Generate()).Derive("link-signing")) || bytes.Equal(a, k.raw) {
		t.Error("Derive does not depend on the purpose and the key alone")
	}
}

func TestLoadOrCreateFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data", "secret.key")
	var wg sync.WaitGroup
	ids := make([]string, 8)
	created := make([]bool, 8)
	for i := range ids {
		wg.Go(func() {
			k, c, err := LoadOrCreateFile(path)
			if err != nil {
				t.Error(err)
				return
			}
			ids[i], created[i] = k.ID(), c
		})
	}
	wg.Wait()
	n := 0
	for i := range ids {
		if ids[i] != ids[0] {
			t.Errorf("caller %d got key %s, caller 0 %s", i, ids[i], ids[0])
		}
		if created[i] {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d callers created the key file, want 1", n)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("key file mode %v (%v), want 0600", fi.Mode().Perm(), err)
	}
	if fi, err := os.Stat(filepath.Dir(path)); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("key file folder mode %v (%v), want 0700", fi.Mode().Perm(), err)
	}
	k, c, err := LoadOrCreateFile(path)
	if err != nil || c || k.ID() != ids[0] {
		t.Errorf("second start: key %v created %v err %v; want the stored key", k, c, err)
	}
	os.WriteFile(path, []byte("garbage"), 0o600)
	if _, _, err := LoadOrCreateFile(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("damaged key file: error %v, want one naming the file", err)
	}
}
