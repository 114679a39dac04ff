package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"lectern.dev/lectern/internal/sshdtest"
)

// TestDeployKeyEndToEnd: a private repository on a real git server over
// SSH: lectern admin project deploy-key prints the public key to add on
// the host; the first update trusts the host's key and pins it, the next
// require it; a wrong pinned key fails the update with what to do.
func TestDeployKeyEndToEnd(t *testing.T) {
	t.Parallel()
	git := sshdtest.Start(t, "")
	repo, _ := newRepo(t, smallSite("Private."))
	bare := filepath.Join(t.TempDir(), "docs.git")
	sshdtest.Run(t, "git", "clone", "-q", "--bare", repo, bare)

	data := t.TempDir()
	srv := startServe(t, data)
	admin := func(args ...string) string {
		return lectern(t, append([]string{"admin", "--data-dir", data}, args...)...)
	}
	org := lastLine(admin("org", "create", "--name", "Private", "--plan", "pro"))
	url := fmt.Sprintf("ssh://%s@127.0.0.1:%d%s", git.User, git.Port, bare)
	prj := lastLine(admin("project", "create", "--org", org, "--name", "Private", "--repo", url, "--domain", "private.acme.test"))
	key := lastLine(admin("key", "create", "--org", org, "--name", "ci"))

	out := admin("project", "deploy-key", prj)
	pub := lastLine(out)
	if !strings.HasPrefix(pub, "ssh-ed25519 ") || !strings.Contains(out, "read-only deploy key (SHA256:") {
		t.Fatalf("deploy-key printed %q", out)
	}
	if again := lastLine(admin("project", "deploy-key", prj)); again != pub {
		t.Errorf("deploy-key again printed %q, want the same key %q", again, pub)
	}
	if st := waitUpdate(t, srv.url, key, trigger(t, srv.url, key, prj)); st["status"] != "failure" {
		t.Fatalf("an update before the key is on the host: %v", st)
	}
	git.Authorize(t, pub)
	st := waitUpdate(t, srv.url, key, trigger(t, srv.url, key, prj))
	if st["status"] != "success" || !strings.Contains(fmt.Sprint(st["logs"]), "Pinned the SSH host key") {
		t.Fatalf("the first update over SSH: %v", st)
	}
	_, p, _ := call(t, "GET", srv.url+"/v1/projects/"+prj, key, nil)
	if p["deployKey"] != true || !strings.Contains(fmt.Sprint(p["knownHosts"]), strings.Fields(git.HostKey)[1]) {
		t.Fatalf("the project after the first fetch: %v", p)
	}
	if st := waitUpdate(t, srv.url, key, trigger(t, srv.url, key, prj)); st["status"] != "success" {
		t.Fatalf("the second update over SSH: %v", st)
	}
	if strings.Contains(srv.logs.String(), "PRIVATE KEY") {
		t.Errorf("the server's log holds the deploy key")
	}

	_, other := sshdtest.KeyPair(t)
	wrong := filepath.Join(t.TempDir(), "known_hosts")
	os.WriteFile(wrong, []byte(fmt.Sprintf("[127.0.0.1]:%d %s\n", git.Port, other)), 0o600)
	admin("project", "update", prj, "--known-hosts", wrong)
	st = waitUpdate(t, srv.url, key, trigger(t, srv.url, key, prj))
	if st["status"] != "failure" || !strings.Contains(fmt.Sprint(st["summary"]), "not the one pinned") {
		t.Fatalf("an update with another pinned host key: %v", st)
	}
}
