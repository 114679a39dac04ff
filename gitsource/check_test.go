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
		{"HTTP://git.example.com:8080/docs", ""},
		{"https://93.184.216.34/docs.git", ""},
		{"https://token@git.example.com/docs.git", "holds credentials"},
		{"https://user:secret@git.example.com/docs.git", "holds credentials"},
		{"/srv/git/other-tenant", "not an https"},
		{"/srv/git/other-tenant/x::/..", "not an https"},
		{"x::/srv/git/other-tenant", "not an https"},
		{"file:///srv/git/other-tenant", "not an https"},
		{"ssh://git@git.example.com/docs.git", "reached over SSH"},
		{"git@git.example.com:docs.git", "reached over SSH"},
		{"http://127.1/docs.git", "short form"},
		{"http://0x7f.1/docs.git", "short form"},
		{"http://2130706433/docs.git", "short form"},
		{"http://100.64.0.1/docs.git", "server's own network"},
		{"http://[64:ff9b::a00:1]/docs.git", "server's own network"},
		{"ext::sh -c touch% /tmp/x", "not an https"},
		{"https://127.0.0.1/docs.git", "server's own network"},
		{"http://169.254.169.254/latest/meta-data", "server's own network"},
		{"http://10.1.2.3/docs.git", "server's own network"},
		{"http://[::1]:8080/docs.git", "server's own network"},
		{"http://[::ffff:127.0.0.1]/docs.git", "server's own network"},
		{"http://0.0.0.0/docs.git", "server's own network"},
		{"http://localhost:3000/docs.git", "server's own network"},
		{"http://gitserver/docs.git", "server's own network"},
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
