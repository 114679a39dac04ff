package lectern_test

import (
	"strings"
	"testing"

	"lectern.dev/lectern"
)

func TestServerHosts(t *testing.T) {
	t.Parallel()
	s, err := lectern.NewServerHosts("https://Lectern.Example.com:8443/base", "api.internal:8080", ":8080", "",
		"admin.acme.test", "*.corp.acme.test", "*.localhost")
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{
		"", "localhost", "LOCALHOST:8080", "localhost.", "127.0.0.1", "127.0.0.1:8080", "[::1]", "[::1]:8080", "10.0.0.7", "0x7f.1",
		"lectern.example.com", "lectern.example.com:443", "Lectern.Example.Com.", "api.internal", "admin.acme.test",
		"a.corp.acme.test", "b.a.corp.acme.test:80", "docs.localhost", "ip6-localhost",
	} {
		if !s.Contains(h) {
			t.Errorf("%q is not a server host", h)
		}
	}
	for _, h := range []string{"docs.acme.test", "corp.acme.test", "xcorp.acme.test", "example.com", "sub.lectern.example.com", "docs.acme.test:8080"} {
		if s.Contains(h) {
			t.Errorf("%q is a server host", h)
		}
	}

	// The demo and the README use subdomains of localhost: allowed unless reserved.
	var none *lectern.ServerHosts
	for in, want := range map[string]string{"docs.localhost": "docs.localhost", "Docs.Acme.Test": "docs.acme.test"} {
		if got, err := none.CheckDomain(in); err != nil || got != want {
			t.Errorf("CheckDomain(%q) with no names: %q, %v", in, got, err)
		}
	}
	for in, frag := range map[string]string{
		"localhost": "loopback", "127.0.0.1": "IP address", "[::1]": "IP address", "lectern.example.com": "server's own host",
		"LECTERN.example.com": "server's own host", "admin.acme.test": "server's own host", "x.corp.acme.test": "server's own host",
		"docs.localhost": "server's own host", "localhost.localdomain": "server's own host", "https://docs.acme.test": "scheme",
	} {
		_, err := s.CheckDomain(in)
		if lectern.ErrorCode(err) != lectern.EINVALID || !strings.Contains(err.Error(), frag) {
			t.Errorf("CheckDomain(%q): %v, want invalid mentioning %q", in, err, frag)
		}
	}
	if _, err := s.CheckDomain("docs.acme.test"); err != nil {
		t.Errorf("docs.acme.test: %v", err)
	}

	for _, bad := range []string{"*", "*.", "exa mple.com", "*.-x.com", "a/b"} {
		if _, err := lectern.NewServerHosts(bad); lectern.ErrorCode(err) != lectern.EINVALID || !strings.Contains(err.Error(), "reserved host") {
			t.Errorf("NewServerHosts(%q): %v, want an invalid reserved host", bad, err)
		}
	}
}

func FuzzServerHosts(f *testing.F) {
	for _, s := range [][2]string{{"*.acme.test", "docs.acme.test"}, {"https://lectern.acme.test:8443/x", "LECTERN.acme.test."}, {"[::1]:80", "[::1]"}, {"*.localhost", "docs.localhost:8080"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, name, host string) {
		s, err := lectern.NewServerHosts(name)
		if err != nil {
			if lectern.ErrorCode(err) != lectern.EINVALID {
				t.Fatalf("NewServerHosts(%q): %v, want EINVALID", name, err)
			}
			return
		}
		d, err := s.CheckDomain(host)
		if err != nil {
			return
		}
		// A domain a project may hold is never answered by the server itself,
		// however a client spells it in Host.
		for _, h := range []string{d, strings.ToUpper(d), d + ".", d + ":8080"} {
			if s.Contains(h) {
				t.Fatalf("%q is accepted as a domain (%q) and is a server host as %q (names %q)", host, d, h, name)
			}
		}
	})
}
