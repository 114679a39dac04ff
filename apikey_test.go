package lectern_test

import (
	"fmt"
	"strings"
	"testing"

	"lectern.dev/lectern"
)

func TestAPIKeyRoundTrip(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for range 200 {
		k := lectern.NewAPIKey()
		if len(k) != lectern.APIKeyLen || !strings.HasPrefix(k, "lct_") {
			t.Fatalf("bad shape %q", k)
		}
		if err := lectern.CheckAPIKey(k); err != nil {
			t.Fatalf("fresh key refused: %v", err)
		}
		if seen[k] {
			t.Fatal("duplicate key")
		}
		seen[k] = true
	}
}

func TestCheckAPIKeyRefuses(t *testing.T) {
	t.Parallel()
	k := lectern.NewAPIKey()
	flip := func(i int) string {
		b := []byte(k)
		if b[i] == 'a' {
			b[i] = 'b'
		} else {
			b[i] = 'a'
		}
		return string(b)
	}
	cases := map[string]string{
		"empty":            "",
		"no prefix":        "xyz_" + k[4:],
		"short":            k[:len(k)-1],
		"long":             k + "a",
		"random mistyped":  flip(10),
		"checksum changed": flip(len(k) - 1),
		"non base62":       k[:10] + "-" + k[11:],
	}
	for name, in := range cases {
		err := lectern.CheckAPIKey(in)
		if lectern.ErrorCode(err) != lectern.EINVALIDKEY {
			t.Errorf("%s: got %v, want invalid_api_key", name, err)
		}
		if in != "" && err != nil && strings.Contains(err.Error(), in) {
			t.Errorf("%s: error repeats the key", name)
		}
	}
}

func TestHashAndHint(t *testing.T) {
	t.Parallel()
	k := lectern.NewAPIKey()
	if h := lectern.HashAPIKey(k); len(h) != 32 || string(h) == string(lectern.HashAPIKey(k+"x")) {
		t.Fatal("hash not a distinct SHA-256")
	}
	hint := lectern.APIKeyHint(k)
	if !strings.HasPrefix(k, strings.TrimSuffix(hint, "…")) || len(hint) > 12 {
		t.Fatalf("hint %q reveals too much or does not match", hint)
	}
}

func FuzzCheckAPIKey(f *testing.F) {
	f.Add(lectern.NewAPIKey())
	f.Add("lct_")
	f.Add("lct_00000000000000000000000000000000000000")
	f.Fuzz(func(t *testing.T, s string) {
		err := lectern.CheckAPIKey(s)
		if err == nil && (len(s) != lectern.APIKeyLen || !strings.HasPrefix(s, "lct_")) {
			t.Fatalf("accepted malformed %q", s)
		}
		if err != nil && lectern.ErrorCode(err) != lectern.EINVALIDKEY {
			t.Fatalf("wrong code %v", err)
		}
	})
}

func ExampleCheckAPIKey() {
	err := lectern.CheckAPIKey("lct_not-a-key")
	fmt.Println(lectern.ErrorCode(err))
	// Output: invalid_api_key
}

func TestNewIDSortsAndValidates(t *testing.T) {
	t.Parallel()
	prev := ""
	for range 50 {
		id := lectern.NewID(lectern.PrefixExport)
		if !lectern.ValidID(lectern.PrefixExport, id) {
			t.Fatalf("invalid id %q", id)
		}
		if lectern.ValidID(lectern.PrefixUpdate, id) {
			t.Fatalf("%q valid with the wrong prefix", id)
		}
		if prev != "" && id[:14] < prev[:14] {
			t.Fatalf("ids not time-sorted: %q after %q", id, prev)
		}
		prev = id
	}
	if lectern.ValidID("exp_", "exp_UPPERCASE0000000000000000") {
		t.Fatal("accepted upper case")
	}
}
