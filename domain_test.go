package lectern_test

import (
	"net"
	"slices"
	"strings"
	"testing"

	"lectern.dev/lectern"
)

func TestNormalizeDomain(t *testing.T) {
	t.Parallel()
	ok := map[string]string{"docs.acme.test": "docs.acme.test", "Docs.ACME.test": "docs.acme.test", "docs.localhost": "docs.localhost", "a-b.c1.io": "a-b.c1.io",
		"1password.com": "1password.com", "x.0xfg": "x.0xfg", "localhost.acme.test": "localhost.acme.test"}
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
		"localhost": "loopback", "LocalHost": "loopback", "127.0.0.1": "IP address", "[::1]": "IP address", "::1": "IP address",
		"10.1.2.3": "IP address", "127.1": "IP address", "0x7f.0.0.1": "IP address", "2130706433": "IP address", "docs.acme.0x1f": "IP address",
		"fe80::1%eth0": "", "::ffff:127.0.0.1": "IP address",
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
	for _, s := range []string{"docs.acme.test", "HTTPS://x", "a..b", "x:1", "localhost", "docs.localhost", "127.0.0.1", "[::1]", "0x7f.1", "1.2.3.4.5", "a.b.c.09"} {
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
		// A domain is a DNS name: never an address or the loopback host,
		// which every server answers on itself.
		if d == "localhost" || net.ParseIP(d) != nil {
			t.Fatalf("accepted %q as %q, which is not a DNS name", s, d)
		}
		if last := d[strings.LastIndexByte(d, '.')+1:]; strings.Trim(last, "0123456789") == "" {
			t.Fatalf("accepted %q as %q, whose last label is a number", s, d)
		}
		var none *lectern.ServerHosts
		if none.Contains(d) {
			t.Fatalf("%q is a valid domain and a server host", d)
		}
	})
}

func TestSiteFiles(t *testing.T) {
	for in, want := range map[string][]string{
		"/":          {"index.html"},
		"":           {"index.html"},
		"/a":         {"a.html", "a/index.html", "a"},
		"/a/":        {"a.html", "a/index.html"},
		"/a/b.html":  {"a/b.html", "a/b.html.html"},
		"/a/b.png":   {"a/b.png", "a/b.png.html"},
		"//a//b":     {"a/b.html", "a/b/index.html", "a/b"},
		"/a/../b":    {"b.html", "b/index.html", "b"},
		"/../../etc": {"etc.html", "etc/index.html", "etc"},
		"/a.b/c":     {"a.b/c.html", "a.b/c/index.html", "a.b/c"},
	} {
		if got := lectern.SiteFiles(in); !slices.Equal(got, want) {
			t.Errorf("SiteFiles(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTruncate(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"abcdefghijk", 5, "abcde…"},
		{"ééé", 3, "é…"}, // never half a character
	} {
		if got := lectern.Truncate(c.in, c.n); got != c.want {
			t.Errorf("Truncate(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}
