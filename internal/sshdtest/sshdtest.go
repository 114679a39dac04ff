// Package sshdtest runs a real OpenSSH server on loopback for tests of
// fetches over SSH: git repositories served through git-shell to one
// client key. It needs Debian's openssh-server and root (sshd's privilege
// separation); without them a test is skipped locally and fails in CI.
package sshdtest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Server is a real sshd on loopback serving git repositories through
// git-shell to one authorized key.
type Server struct {
	Port    int
	User    string
	HostKey string // the public host key line ("ssh-ed25519 AAAA...")
	keys    string // the authorized_keys file
}

// Authorize lets the client key pub (an authorized_keys line) in too,
// from the next connection on.
func (s *Server) Authorize(t *testing.T, pub string) {
	t.Helper()
	f, err := os.OpenFile(s.keys, os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fmt.Fprintln(f, authorized(pub))
}

// authorized is the authorized_keys line of a client key: git-shell only.
func authorized(pub string) string {
	return `command="git-shell -c \"$SSH_ORIGINAL_COMMAND\"",no-port-forwarding,no-X11-forwarding,no-agent-forwarding,no-pty ` + pub
}

// Start starts sshd on loopback for the client key clientPub (an
// authorized_keys line; "" for none yet: Authorize), serving git repositories by their absolute path
// through git-shell. It needs root (sshd's privilege
// separation) and Debian's openssh-server; .ci/run installs it.
func Start(t *testing.T, clientPub string) *Server {
	t.Helper()
	sshd, err := exec.LookPath("sshd")
	if err != nil {
		sshd = "/usr/sbin/sshd"
	}
	if _, err := os.Stat(sshd); err != nil || os.Geteuid() != 0 {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the SSH fetch tests need sshd (apt-get install openssh-server) and root: %v, euid %d", err, os.Geteuid())
		}
		t.Skip("SSH fetch tests skipped: they need sshd (apt-get install openssh-server) and root; .ci/run has both")
	}
	dir := t.TempDir()
	Run(t, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", filepath.Join(dir, "host_key"))
	hostPub, _ := os.ReadFile(filepath.Join(dir, "host_key.pub"))
	keys := ""
	if clientPub != "" {
		keys = authorized(clientPub) + "\n"
	}
	os.WriteFile(filepath.Join(dir, "authorized_keys"), []byte(keys), 0o600)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	me, _ := user.Current()
	cfg := fmt.Sprintf(`Port %d
ListenAddress 127.0.0.1
HostKey %s
PidFile %s
AuthorizedKeysFile %s
StrictModes no
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
PermitRootLogin prohibit-password
AllowUsers %s
LogLevel ERROR
`, port, filepath.Join(dir, "host_key"), filepath.Join(dir, "sshd.pid"), filepath.Join(dir, "authorized_keys"), me.Username)
	os.WriteFile(filepath.Join(dir, "sshd_config"), []byte(cfg), 0o600)
	os.MkdirAll("/run/sshd", 0o755) // privilege separation
	cmd := exec.Command(sshd, "-D", "-e", "-f", filepath.Join(dir, "sshd_config"))
	var logs strings.Builder
	cmd.Stderr = &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("sshd did not start: %s", logs.String())
		}
	}
	return &Server{Port: port, User: me.Username, HostKey: strings.TrimSpace(string(hostPub)), keys: filepath.Join(dir, "authorized_keys")}
}

func Run(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// KeyPair makes a client key pair with ssh-keygen: the private key
// (OpenSSH format) and the public key line.
func KeyPair(t *testing.T) ([]byte, string) {
	dir := t.TempDir()
	Run(t, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", filepath.Join(dir, "k"))
	priv, _ := os.ReadFile(filepath.Join(dir, "k"))
	pub, _ := os.ReadFile(filepath.Join(dir, "k.pub"))
	return priv, strings.TrimSpace(string(pub))
}

// BareRepo makes a bare repository with one commit on main.
func BareRepo(t *testing.T) string {
	dir := t.TempDir()
	work, bare := filepath.Join(dir, "work"), filepath.Join(dir, "repo.git")
	Run(t, "git", "init", "-q", "-b", "main", work)
	os.WriteFile(filepath.Join(work, "index.mdx"), []byte("# Private docs\n"), 0o644)
	Run(t, "git", "-C", work, "add", ".")
	Run(t, "git", "-C", work, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "Private docs")
	Run(t, "git", "clone", "-q", "--bare", work, bare)
	return bare
}
