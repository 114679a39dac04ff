package lectern_test

import (
	"strings"
	"testing"

	"lectern.dev/lectern"
)

func TestNormalizeDomain(t *testing.T) {
	t.Parallel()
	ok := map[string]string{"docs.acme.test": "docs.acme.test", "Docs.ACME.test": "docs.acme.test", "localhost": "localhost", "a-b.c1.io": "a-b.c1.io"}
	for in, want := range ok {
		got, err := lectern.NormalizeDomain(in)
		if err != nil || got != want {
			t.Errorf("%q: got %q, %v; want %q", in, got, err, want)
		}
	}
	bad := map[string]string{
		"": "required", "https://docs.acme.test": "scheme", "docs.acme.test/x": "path", "docs.acme.test:8080": "port",
		"docs.acme.test.": "dot", "docs..acme": "empty label", "-docs.acme": "hyphen", "docs_acme.test": "invalid character",
		"dócs.acme": "invalid character", "user@docs.acme": "user info", strings.Repeat("a", 64) + ".test": "63",
	}
	for in, frag := range bad {
		_, err := lectern.NormalizeDomain(in)
		if lectern.ErrorCode(err) != lectern.EINVALID || !strings.Contains(err.Error(), frag) {
			t.Errorf("%q: got %v, want invalid mentioning %q", in, err, frag)
		}
	}
}

func TestNormalizeBasePath(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"": "", "/": "", "/docs": "/docs", "/docs/v2/": "/docs/v2"} {
		if got, err := lectern.NormalizeBasePath(in); err != nil || got != want {
			t.Errorf("%q: got %q, %v", in, got, err)
		}
	}
	for _, in := range []string{"docs", "/a/../b", "/a//b", "/a b", "/a?x"} {
		if _, err := lectern.NormalizeBasePath(in); lectern.ErrorCode(err) != lectern.EINVALID {
			t.Errorf("%q accepted", in)
		}
	}
}

func FuzzNormalizeDomain(f *testing.F) {
	for _, s := range []string{"docs.acme.test", "HTTPS://x", "a..b", "x:1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := lectern.NormalizeDomain(s)
		if err != nil {
			return
		}
		if d != strings.ToLower(d) || strings.ContainsAny(d, ":/@ ") || strings.HasSuffix(d, ".") || len(d) > 253 {
			t.Fatalf("accepted %q as %q", s, d)
		}
		if again, err := lectern.NormalizeDomain(d); err != nil || again != d {
			t.Fatalf("not idempotent: %q -> %q -> %q, %v", s, d, again, err)
		}
	})
}
