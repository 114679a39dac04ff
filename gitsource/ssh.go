package gitsource

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"lectern.dev/lectern"
)

// SSHAuth is what a fetch over SSH authenticates with.
type SSHAuth struct {
	// Key is the private key, in OpenSSH's format (a deploy key).
	Key []byte
	// KnownHosts are the host keys to accept, as known_hosts lines. Empty
	// accepts the key the host shows on this fetch (trust on first use),
	// which FetchSSH returns to be pinned for the next.
	KnownHosts string
}

// FetchSSH is Fetch for a repository reached over SSH (ssh://[user@]host
// [:port]/path or user@host:path) with a deploy key: the key is written to
// a private file of the fetch's throwaway home, ssh is run with no
// configuration, agent or other identity, never prompts, and checks the
// host's key strictly against auth.KnownHosts. It returns the known_hosts
// lines of the host the fetch trusted: auth.KnownHosts, or, when it was
// empty, the key the host showed. A host whose key is not the one pinned
// is an EINVALID error that says how to pin the new one.
func (f *Fetcher) FetchSSH(ctx context.Context, repoURL, branch, dir string, auth SSHAuth) (lectern.Commit, string, error) {
	src, err := sshSource(repoURL, auth)
	if err != nil {
		return lectern.Commit{}, "", err
	}
	c, err := f.fetch(ctx, src, branch, dir)
	if err != nil {
		return c, "", err
	}
	return c, src.learned, nil
}

// sshSource validates an SSH repository address and its deploy key.
func sshSource(repoURL string, auth SSHAuth) (*source, error) {
	if len(auth.Key) == 0 {
		return nil, lectern.Errorf(lectern.EINVALID,
			"repository %s is reached over SSH and needs a deploy key: create one with lectern admin project deploy-key PROJECT_ID", Redact(repoURL))
	}
	src, err := parseSSH(repoURL)
	if err != nil {
		return nil, err
	}
	src.auth = &auth
	return src, nil
}

// parseSSH validates an SSH repository address.
func parseSSH(repoURL string) (*source, error) {
	display := Redact(repoURL)
	invalid := func(format string, args ...any) error {
		return lectern.Errorf(lectern.EINVALID, format, args...)
	}
	if strings.TrimSpace(repoURL) == "" || hasControl(repoURL) || strings.ContainsAny(repoURL, " \t'\"\\") {
		return nil, invalid("repository URL %q is not a valid SSH address", display)
	}
	var host, user string
	if scheme, _, ok := strings.Cut(repoURL, "://"); ok {
		if !strings.EqualFold(scheme, "ssh") {
			return nil, invalid("repository URL %s is not an SSH address (ssh://host/path or user@host:path)", display)
		}
		u, err := url.Parse(repoURL)
		if err != nil || u.Host == "" || u.Path == "" || u.RawQuery != "" || u.Fragment != "" {
			return nil, invalid("repository URL %s is not a valid ssh:// URL (ssh://user@host[:port]/path)", display)
		}
		if _, set := u.User.Password(); set {
			return nil, invalid("repository URL %s holds a password: SSH fetches authenticate with the project's deploy key", display)
		}
		host, user = u.Hostname(), u.User.Username()
	} else {
		// scp-like user@host:path: a colon before any slash.
		c := strings.IndexByte(repoURL, ':')
		s := strings.IndexByte(repoURL, '/')
		if c < 0 || (s >= 0 && s < c) || c == len(repoURL)-1 {
			return nil, invalid("repository URL %s is not an SSH address (ssh://host/path or user@host:path)", display)
		}
		host = repoURL[:c]
		if at := strings.LastIndexByte(host, '@'); at >= 0 {
			user, host = host[:at], host[at+1:]
		}
	}
	if host == "" || strings.HasPrefix(host, "-") || strings.HasPrefix(user, "-") {
		return nil, invalid("repository URL %s has an invalid host or user", display)
	}
	return &source{display: display, arg: repoURL, ssh: true}, nil
}

// sshEnv prepares the fetch's SSH: the key and known_hosts files in a
// private folder of home, and the environment that makes git use them.
func (r *runner) sshEnv() ([]string, error) {
	dir := filepath.Join(r.home, ".lectern-ssh")
	if err := os.Mkdir(dir, 0o700); err != nil && !os.IsExist(err) {
		return nil, err
	}
	key, known := filepath.Join(dir, "key"), filepath.Join(dir, "known_hosts")
	if err := os.WriteFile(key, r.src.auth.Key, 0o600); err != nil {
		return nil, err
	}
	pinned := strings.TrimSpace(r.src.auth.KnownHosts)
	if err := os.WriteFile(known, []byte(pinned+"\n"), 0o600); err != nil {
		return nil, err
	}
	strict := "yes"
	if pinned == "" {
		strict = "accept-new"
	}
	q := func(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
	cmd := strings.Join([]string{"ssh", "-F", os.DevNull, "-i", q(key),
		"-o", "IdentitiesOnly=yes", "-o", "IdentityAgent=none", "-o", "BatchMode=yes",
		"-o", "UserKnownHostsFile=" + q(known), "-o", "GlobalKnownHostsFile=" + os.DevNull,
		"-o", "StrictHostKeyChecking=" + strict, "-o", "HashKnownHosts=no", "-o", "UpdateHostKeys=no",
		"-o", "ConnectTimeout=20", "-o", "ServerAliveInterval=15", "-o", "LogLevel=ERROR"}, " ")
	return []string{"GIT_SSH_COMMAND=" + cmd, "GIT_SSH_VARIANT=ssh"}, nil
}

// learn reads back the known_hosts lines ssh wrote on a first fetch.
func (r *runner) learn() string {
	if strings.TrimSpace(r.src.auth.KnownHosts) != "" {
		return r.src.auth.KnownHosts
	}
	b, err := os.ReadFile(filepath.Join(r.home, ".lectern-ssh", "known_hosts"))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// hostKeyError is the error of a host whose key is not the pinned one.
func hostKeyError(src *source, err error) error {
	return &lectern.Error{Code: lectern.EINVALID, Err: err, Message: fmt.Sprintf(
		"the SSH host key of %s is not the one pinned for this project: if the host's key changed, give its new key with lectern admin project update PROJECT_ID --known-hosts FILE (or --known-hosts '' to pin the one it shows next)", src.display)}
}

// isHostKeyFailure reports whether ssh refused the host's key.
func isHostKeyFailure(stderr string) bool {
	low := strings.ToLower(stderr)
	return strings.Contains(low, "host key verification failed") || strings.Contains(low, "remote host identification has changed")
}
