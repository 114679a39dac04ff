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
	gitPath, err := f.lookGit()
	if err != nil {
		return lectern.Commit{}, err
	}

	timeout := f.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, &timeoutError{timeout})
	defer cancel()

	home, err := os.MkdirTemp("", "lectern-git-home-")
	if err != nil {
		return lectern.Commit{}, &lectern.Error{Code: lectern.EINTERNAL,
			Message: "cannot prepare a temporary folder for git", Err: err}
	}
	defer os.RemoveAll(home)

	r := &runner{git: gitPath, home: home, src: src}
	if src.ssh {
		if r.extra, err = r.sshEnv(); err != nil {
			return lectern.Commit{}, &lectern.Error{Code: lectern.EINTERNAL, Message: "cannot prepare the SSH key for git", Err: err}
		}
	}
	ref := "refs/heads/" + branch

	// 1. Check that the repository is readable and the branch exists, so that
	// both cases get a precise error without parsing clone's messages.
	f.logf("gitsource: looking up branch %q in %s", branch, src.display)
	out, stderr, err := r.run(ctx, home, nil, "ls-remote", "--exit-code", "--", src.arg, ref)
	if err != nil {
		if e := startError(err); e != nil {
			return lectern.Commit{}, e
		}
		if ctx.Err() != nil {
			return lectern.Commit{}, canceledError(ctx, src, err)
		}
		if exitCode(err) == 2 { // --exit-code: no matching ref
			return lectern.Commit{}, branchNotFound(branch, src, err)
		}
		if src.ssh && isHostKeyFailure(stderr) {
			return lectern.Commit{}, hostKeyError(src, err)
		}
		return lectern.Commit{}, remoteError(src, stderr, err)
	}
	remoteSHA := ""
	for _, line := range strings.Split(string(out), "\n") {
		sha, name, ok := strings.Cut(strings.TrimSpace(line), "\t")
		if ok && name == ref {
			remoteSHA = sha
			break
		}
	}
	if remoteSHA == "" {
		return lectern.Commit{}, branchNotFound(branch, src, errors.New("ls-remote listed no "+ref))
	}

	// 2. Clone. From here on, a failure must not leave a partial clone behind.
	ok := false
	defer func() {
		if !ok {
			cleanDir(dir, existed)
		}
	}()
	f.logf("gitsource: fetching branch %q of %s (depth 1)", branch, src.display)
	args := []string{"clone", "--quiet", "--template=", "--depth=1", "--single-branch",
		"--no-tags", "--no-recurse-submodules", "--branch=" + branch}
	if src.local {
		args = append(args, "--no-local") // honour --depth for local paths
	}
	args = append(args, "--", src.arg, dir)
	if _, stderr, err := r.run(ctx, home, nil, args...); err != nil {
		if e := startError(err); e != nil {
			return lectern.Commit{}, e
		}
		if ctx.Err() != nil {
			return lectern.Commit{}, canceledError(ctx, src, err)
		}
		return lectern.Commit{}, cloneError(branch, src, stderr, err)
	}

	// 3. Read the commit that was checked out.
	out, stderr, err = r.run(ctx, dir, []string{"GIT_DIR=" + filepath.Join(dir, ".git")},
		"log", "-1", "--no-show-signature", "--format=%H%x00%B", "HEAD", "--")
	if err != nil {
		if e := startError(err); e != nil {
			return lectern.Commit{}, e
		}
		if ctx.Err() != nil {
			return lectern.Commit{}, canceledError(ctx, src, err)
		}
		return lectern.Commit{}, &lectern.Error{Code: lectern.EINTERNAL,
			Message: fmt.Sprintf("cannot read the fetched commit of branch %q from %s%s",
				branch, src.display, detail(stderr, src)), Err: err}
	}
	sha, msg, found := strings.Cut(string(out), "\x00")
	sha = strings.TrimSpace(sha)
	if !found || !isHex(sha) {
		return lectern.Commit{}, &lectern.Error{Code: lectern.EINTERNAL,
			Message: fmt.Sprintf("cannot read the fetched commit of branch %q from %s", branch, src.display),
			Err:     fmt.Errorf("unexpected git log output %q", lectern.Truncate(string(out), 200))}
	}
	if sha != remoteSHA {
		f.logf("gitsource: branch %q moved during the fetch, now at %s", branch, sha)
	}
	ok = true
	if src.ssh {
		src.learned = r.learn()
	}
	f.logf("gitsource: fetched %s at %s", ref, sha)
	return lectern.Commit{SHA: sha, Ref: ref, Message: strings.TrimSpace(msg)}, nil
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
