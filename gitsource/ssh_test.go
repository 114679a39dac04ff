package gitsource

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/internal/sshdtest"
)

// TestFetchSSH fetches from a real git server over SSH: the host's key is
// trusted on first use and returned, then required; another pinned key,
// or a key the server does not know, is refused with a clear error.
func TestFetchSSH(t *testing.T) {
	priv, pub := sshdtest.KeyPair(t)
	srv := sshdtest.Start(t, pub)
	repo := sshdtest.BareRepo(t)
	url := fmt.Sprintf("ssh://%s@127.0.0.1:%d%s", srv.User, srv.Port, repo)
	f := &Fetcher{Timeout: time.Minute}
	ctx := context.Background()

	c, known, err := f.FetchSSH(ctx, url, "main", filepath.Join(t.TempDir(), "a"), SSHAuth{Key: priv})
	if err != nil {
		t.Fatalf("first fetch: %v", err)
	}
	if len(c.SHA) != 40 || !strings.Contains(known, strings.Fields(srv.HostKey)[1]) {
		t.Fatalf("first fetch: commit %+v, learned %q, want the host key %q", c, known, srv.HostKey)
	}
	if _, again, err := f.FetchSSH(ctx, url, "main", filepath.Join(t.TempDir(), "b"), SSHAuth{Key: priv, KnownHosts: known}); err != nil || again != known {
		t.Fatalf("a fetch with the pinned key: %v (known %q)", err, again)
	}
	_, otherHost := sshdtest.KeyPair(t)
	wrongPin := fmt.Sprintf("[127.0.0.1]:%d %s", srv.Port, otherHost)
	_, _, err = f.FetchSSH(ctx, url, "main", filepath.Join(t.TempDir(), "c"), SSHAuth{Key: priv, KnownHosts: wrongPin})
	if lectern.ErrorCode(err) != lectern.EINVALID || !strings.Contains(err.Error(), "not the one pinned") {
		t.Fatalf("another pinned host key: %v", err)
	}
	stranger, _ := sshdtest.KeyPair(t)
	_, _, err = f.FetchSSH(ctx, url, "main", filepath.Join(t.TempDir(), "d"), SSHAuth{Key: stranger, KnownHosts: known})
	if lectern.ErrorCode(err) != lectern.ENOTFOUND {
		t.Fatalf("an unknown client key: %v", err)
	}
	if strings.Contains(err.Error(), "PRIVATE KEY") {
		t.Fatalf("the error shows the key: %v", err)
	}
	if _, _, err := f.FetchSSH(ctx, url, "main", filepath.Join(t.TempDir(), "e"), SSHAuth{}); lectern.ErrorCode(err) != lectern.EINVALID {
		t.Fatalf("no key: %v", err)
	}
}

func TestParseSSH(t *testing.T) {
	for _, c := range []struct {
		url string
		ok  bool
	}{
		{"ssh://git@github.com/acme/docs.git", true},
		{"ssh://git@git.example.com:2222/acme/docs.git", true},
		{"git@github.com:acme/docs.git", true},
		{"github.com:acme/docs.git", true},
		{"ssh://-oProxyCommand=touch%20x/y", false},
		{"-oProxyCommand=x:y", false},
		{"git@-oProxyCommand=x:y", false},
		{"ssh://git:pw@github.com/acme/docs.git", false},
		{"https://github.com/acme/docs.git", false},
		{"/srv/git/docs", false},
		{"git@github.com:", false},
		{"ssh://git@github.com/acme/docs.git?x=1", false},
		{"git@github.com:acme/'docs.git", false},
	} {
		_, err := parseSSH(c.url)
		if (err == nil) != c.ok {
			t.Errorf("parseSSH(%q) = %v, want ok %v", c.url, err, c.ok)
		}
	}
}
