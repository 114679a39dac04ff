// Package gitsource fetches one branch of a git repository into a working
// folder, so that Lectern can build a docs site from it.
//
// It runs the real git command-line tool. Every git invocation is isolated
// from the host: the system and global git configuration are ignored, HOME
// points at a throwaway folder, hooks and templates are disabled, git may
// never prompt for credentials, and only the transport of the repository's
// own URL is allowed (file for local repositories, http and https, or ssh
// for FetchSSH). Credentials embedded in an http(s) URL are handed to git
// through a credential helper that reads them from the environment of the
// git process, so they never appear on a command line, in a log line or in
// an error. A deploy key is written to a private file of the fetch's
// throwaway home, and ssh checks the host's key against the pinned ones
// (ssh.go).
//
// Fetch clones into an empty folder. FetchInto (keep.go) keeps the clone
// between updates of one branch: a later call fetches only the branch's
// new commit into it and rewrites only the files that changed, leaving
// the others (and their modification times) alone. The kept clone has no
// remote in its configuration, so no URL or credential is stored in it.
//
// Errors are *lectern.Error values whose messages can be shown to docs teams:
//
//   - lectern.EINVALID: the repository URL, branch name or destination folder
//     is not acceptable (for example an ssh:// URL, a branch name with "..",
//     or a destination folder that is not empty);
//   - lectern.ENOTFOUND: the repository does not exist or cannot be read with
//     the given credentials, or the branch does not exist;
//   - lectern.EUNAVAILABLE: the repository could not be reached, or the fetch
//     timed out or was canceled;
//   - lectern.EINTERNAL: git is missing, or failed in an unexpected way.
//
// The underlying cause is kept in the Err field of the *lectern.Error.
package gitsource

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"lectern.dev/lectern"
)

// DefaultTimeout bounds a whole Fetch when Fetcher.Timeout is zero.
const DefaultTimeout = 5 * time.Minute

// retryAfterSeconds is suggested on EUNAVAILABLE errors.
const retryAfterSeconds = 30

// Fetcher fetches branches of git repositories with the git command-line
// tool. The zero value is ready to use, and a Fetcher is safe for concurrent
// use by several goroutines as long as its fields are not changed.
type Fetcher struct {
	// GitPath is the git executable: a name looked up on PATH or a path.
	// Empty means "git".
	GitPath string
	// Timeout bounds one whole Fetch, all git invocations included. Zero or
	// negative means DefaultTimeout.
	Timeout time.Duration
	// Logf, if set, receives short progress lines. The lines never contain a
	// secret: repository URLs are passed through Redact.
	Logf func(format string, args ...any)
}

// Fetch clones branch branch of the repository at repoURL into dir and returns
// the commit that was checked out: its full SHA, Ref "refs/heads/<branch>",
// and its full commit message with surrounding white space trimmed.
//
// repoURL is a local path (absolute or relative to the working directory), a
// file:// URL, or an http:// or https:// URL, which may carry credentials
// as in https://user:token@host/repo.git. Other addresses (ssh://, git://,
// host:path, ext::...) are refused. The clone is shallow: depth 1, the one
// branch, no tags, no submodules. dir must not exist or be an empty folder;
// its parent folders are created if needed.
//
// Errors are *lectern.Error values:
//
//   - EINVALID if repoURL, branch or dir is not acceptable (the branch name
//     must be valid for `git check-ref-format --branch`);
//   - ENOTFOUND with the message "repository <url> not found or not readable"
//     if the repository does not exist, is not a git repository or refuses the
//     credentials, or `branch "<branch>" does not exist in <url>` if the branch
//     is missing; the URL is redacted with Redact;
//   - EUNAVAILABLE if the repository cannot be reached (connection refused,
//     DNS failure, server error), or if the fetch ran longer than Timeout or
//     ctx was canceled or expired;
//   - EINTERNAL if git cannot be run, or fails in an unexpected way.
//
// When it helps, the message ends with git's own error lines, trimmed and
// redacted. On error, anything Fetch wrote into dir is removed again (and dir
// too, if Fetch created it).
func (f *Fetcher) Fetch(ctx context.Context, repoURL, branch, dir string) (lectern.Commit, error) {
	src, err := parseSource(repoURL)
	if err != nil {
		return lectern.Commit{}, err
	}
	return f.fetch(ctx, src, branch, dir)
}

// fetch is Fetch of a parsed source.
func (f *Fetcher) fetch(ctx context.Context, src *source, branch, dir string) (lectern.Commit, error) {
	if err := checkBranch(branch); err != nil {
		return lectern.Commit{}, err
	}
	dir, existed, err := checkDir(dir)
	if err != nil {
		return lectern.Commit{}, err
	}
	ctx, s, done, err := f.begin(ctx, src, branch)
	if err != nil {
		return lectern.Commit{}, err
	}
	defer done()
	remoteSHA, err := s.lsRemote(ctx)
	if err != nil {
		return lectern.Commit{}, err
	}
	// From here on, a failure must not leave a partial clone behind.
	ok := false
	defer func() {
		if !ok {
			cleanDir(dir, existed)
		}
	}()
	c, err := s.clone(ctx, dir, remoteSHA)
	if err != nil {
		return lectern.Commit{}, err
	}
	ok = true
	s.finish(c)
	return c, nil
}

// session is one fetch under way: its runner, in a throwaway home, and
// what it fetches.
type session struct {
	f      *Fetcher
	r      *runner
	src    *source
	branch string
	ref    string // refs/heads/<branch>
}

// begin prepares a fetch of branch from src: git, the deadline of
// Timeout, the throwaway home and the SSH key. done removes the home and
// releases the deadline.
func (f *Fetcher) begin(ctx context.Context, src *source, branch string) (context.Context, *session, func(), error) {
	gitPath, err := f.lookGit()
	if err != nil {
		return nil, nil, nil, err
	}
	timeout := f.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	home, err := os.MkdirTemp("", "lectern-git-home-")
	if err != nil {
		return nil, nil, nil, &lectern.Error{Code: lectern.EINTERNAL,
			Message: "cannot prepare a temporary folder for git", Err: err}
	}
	r := &runner{git: gitPath, home: home, src: src}
	if src.ssh {
		if r.extra, err = r.sshEnv(); err != nil {
			os.RemoveAll(home)
			return nil, nil, nil, &lectern.Error{Code: lectern.EINTERNAL, Message: "cannot prepare the SSH key for git", Err: err}
		}
	}
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, &timeoutError{timeout})
	done := func() {
		cancel()
		os.RemoveAll(home)
	}
	return ctx, &session{f: f, r: r, src: src, branch: branch, ref: "refs/heads/" + branch}, done, nil
}

// lsRemote checks that the repository is readable and the branch exists,
// so that both cases get a precise error without parsing clone's messages,
// and returns the branch's commit. It writes nothing outside the home.
func (s *session) lsRemote(ctx context.Context) (string, error) {
	src, branch, ref := s.src, s.branch, s.ref
	s.f.logf("gitsource: looking up branch %q in %s", branch, src.display)
	out, stderr, err := s.r.run(ctx, s.r.home, nil, "ls-remote", "--exit-code", "--", src.arg, ref)
	if err != nil {
		if e := runError(ctx, src, err); e != nil {
			return "", e
		}
		if exitCode(err) == 2 { // --exit-code: no matching ref
			return "", branchNotFound(branch, src, err)
		}
		if src.ssh && isHostKeyFailure(stderr) {
			return "", hostKeyError(src, err)
		}
		return "", remoteError(src, stderr, err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		sha, name, ok := strings.Cut(strings.TrimSpace(line), "\t")
		if ok && name == ref {
			return sha, nil
		}
	}
	return "", branchNotFound(branch, src, errors.New("ls-remote listed no "+ref))
}

// clone clones the branch into dir, which must be empty, and returns the
// commit checked out. On error, dir may hold a partial clone.
func (s *session) clone(ctx context.Context, dir, remoteSHA string) (lectern.Commit, error) {
	src, branch := s.src, s.branch
	s.f.logf("gitsource: fetching branch %q of %s (depth 1)", branch, src.display)
	args := []string{"clone", "--quiet", "--template=", "--depth=1", "--single-branch",
		"--no-tags", "--no-recurse-submodules", "--branch=" + branch}
	if src.local {
		args = append(args, "--no-local") // honour --depth for local paths
	}
	args = append(args, "--", src.arg, dir)
	if _, stderr, err := s.r.run(ctx, s.r.home, nil, args...); err != nil {
		if e := runError(ctx, src, err); e != nil {
			return lectern.Commit{}, e
		}
		return lectern.Commit{}, cloneError(branch, src, stderr, err)
	}
	c, stderr, err := s.readCommit(ctx, dir, []string{"GIT_DIR=" + filepath.Join(dir, ".git")}, "HEAD")
	if err != nil {
		if e := runError(ctx, src, err); e != nil {
			return lectern.Commit{}, e
		}
		return lectern.Commit{}, &lectern.Error{Code: lectern.EINTERNAL,
			Message: fmt.Sprintf("cannot read the fetched commit of branch %q from %s%s",
				branch, src.display, detail(stderr, src)), Err: err}
	}
	if c.SHA != remoteSHA {
		s.f.logf("gitsource: branch %q moved during the fetch, now at %s", branch, c.SHA)
	}
	return c, nil
}

// readCommit reads the commit rev of the clone in dir (env names it).
func (s *session) readCommit(ctx context.Context, dir string, env []string, rev string) (lectern.Commit, string, error) {
	out, stderr, err := s.r.run(ctx, dir, env,
		"log", "-1", "--no-show-signature", "--format=%H%x00%B", rev, "--")
	if err != nil {
		return lectern.Commit{}, stderr, err
	}
	sha, msg, found := strings.Cut(string(out), "\x00")
	sha = strings.TrimSpace(sha)
	if !found || !isHex(sha) {
		return lectern.Commit{}, "", fmt.Errorf("unexpected git log output %q", lectern.Truncate(string(out), 200))
	}
	return lectern.Commit{SHA: sha, Ref: s.ref, Message: strings.TrimSpace(msg)}, "", nil
}

// finish records a fetch that succeeded.
func (s *session) finish(c lectern.Commit) {
	if s.src.ssh {
		s.src.learned = s.r.learn()
	}
	s.f.logf("gitsource: fetched %s at %s", c.Ref, c.SHA)
}

func (f *Fetcher) logf(format string, args ...any) {
	if f.Logf != nil {
		f.Logf(format, args...)
	}
}

// lookGit resolves GitPath, or returns an EINTERNAL error.
func (f *Fetcher) lookGit() (string, error) {
	name := f.GitPath
	if name == "" {
		name = "git"
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return "", &lectern.Error{Code: lectern.EINTERNAL,
			Message: fmt.Sprintf("cannot run git: executable %q not found", name), Err: err}
	}
	return path, nil
}

// checkDir validates the destination folder and returns its absolute path
// and whether it already existed.
func checkDir(dir string) (string, bool, error) {
	if dir == "" {
		return "", false, lectern.Errorf(lectern.EINVALID, "destination folder is empty")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", false, &lectern.Error{Code: lectern.EINVALID,
			Message: fmt.Sprintf("destination folder %q is not a valid path", dir), Err: err}
	}
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return abs, false, nil
	case err != nil:
		return "", false, &lectern.Error{Code: lectern.EINTERNAL,
			Message: fmt.Sprintf("cannot inspect destination folder %s", abs), Err: err}
	case !fi.IsDir():
		return "", false, lectern.Errorf(lectern.EINVALID, "destination %s is not a folder", abs)
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		return "", false, &lectern.Error{Code: lectern.EINTERNAL,
			Message: fmt.Sprintf("cannot read destination folder %s", abs), Err: err}
	}
	if len(entries) > 0 {
		return "", false, lectern.Errorf(lectern.EINVALID, "destination folder %s is not empty", abs)
	}
	return abs, true, nil
}

// cleanDir removes what a failed fetch left in dir: dir itself if it did not
// exist before, or its contents otherwise.
func cleanDir(dir string, existed bool) {
	if !existed {
		os.RemoveAll(dir)
		return
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		os.RemoveAll(filepath.Join(dir, e.Name()))
	}
}

// checkBranch applies the rules of `git check-ref-format --branch` to name
// (without the @{-N} shorthand, which needs a local repository).
func checkBranch(name string) error {
	bad := func(reason string) error {
		return lectern.Errorf(lectern.EINVALID, "invalid branch name %q: %s", name, reason)
	}
	switch {
	case name == "":
		return lectern.Errorf(lectern.EINVALID, "branch name is empty")
	case strings.HasPrefix(name, "-"):
		return bad(`it must not start with "-"`)
	case name == "@":
		return bad(`"@" is not a branch name`)
	case name == "HEAD":
		return bad(`"HEAD" is not a branch name`)
	case strings.Contains(name, ".."):
		return bad(`it must not contain ".."`)
	case strings.Contains(name, "@{"):
		return bad(`it must not contain "@{"`)
	case strings.HasPrefix(name, "/") || strings.HasSuffix(name, "/") || strings.Contains(name, "//"):
		return bad(`it must not start or end with "/" or contain "//"`)
	case strings.HasSuffix(name, "."):
		return bad(`it must not end with "."`)
	}
	for _, r := range name {
		switch {
		case r < 0x20 || r == 0x7f:
			return bad("it must not contain control characters")
		case r == ' ':
			return bad("it must not contain spaces")
		case strings.ContainsRune(`~^:?*[\`, r):
			return bad(`it must not contain any of ~ ^ : ? * [ \`)
		}
	}
	for _, part := range strings.Split(name, "/") {
		if strings.HasPrefix(part, ".") {
			return bad(`no part of it may start with "."`)
		}
		if strings.HasSuffix(part, ".lock") {
			return bad(`no part of it may end with ".lock"`)
		}
	}
	return nil
}

func isHex(s string) bool {
	if len(s) != 40 && len(s) != 64 { // SHA-1 or SHA-256 repositories
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
