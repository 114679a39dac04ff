package gitsource

import (
	"strings"
	"testing"

	"lectern.dev/lectern"
)

func TestCheckRemote(t *testing.T) {
	for _, c := range []struct {
		url, want string // want: "" for accepted, else a part of the message
	}{
		{"https://git.example.com/acme/docs.git", ""},
		{"http://git.example.com:8080/docs", ""},
		{"https://token@git.example.com/docs.git", "holds credentials"},
		{"https://user:secret@git.example.com/docs.git", "holds credentials"},
		{"/srv/git/other-tenant", "server's disk"},
		{"file:///srv/git/other-tenant", "server's disk"},
		{"ssh://git@git.example.com/docs.git", "unsupported scheme"},
		{"ext::sh -c touch% /tmp/x", "unsupported transport"},
		{"", "empty"},
	} {
		err := CheckRemote(c.url)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("CheckRemote(%q) = %v, want nil", c.url, err)
		case c.want != "" && (lectern.ErrorCode(err) != lectern.EINVALID || !strings.Contains(err.Error(), c.want)):
			t.Errorf("CheckRemote(%q) = %v, want an invalid_request error saying %q", c.url, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("CheckRemote(%q) shows the password: %v", c.url, err)
		}
	}
}
