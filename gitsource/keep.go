package gitsource

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"lectern.dev/lectern"
)

// keptMarker is the file, inside the .git folder of a clone that FetchInto
// made, that names the repository and branch the clone holds (by a hash)
// and the hash of the clone's configuration as FetchInto left it.
const keptMarker = "lectern-source"

// fetchedRef is the ref FetchInto fetches a branch's new commit into.
const fetchedRef = "refs/lectern/fetched"

// keptConfig are the -c options of the git commands FetchInto runs in a
// kept clone, on top of the runner's: nothing runs in the background or
// after the command (gc, maintenance), no reflog keeps old commits alive,
// and submodules are never touched.
var keptConfig = []string{
	"-c", "gc.auto=0",
	"-c", "maintenance.auto=false",
	"-c", "core.logAllRefUpdates=false",
	"-c", "submodule.recurse=false",
	"-c", "fetch.recurseSubmodules=false",
	"-c", "fetch.writeCommitGraph=false",
}

// A kept clone is tidied (gc) once it holds this many loose objects or
// packs: each update adds the objects of what changed, and the objects of
// older commits are only dropped then. Variables for tests.
var (
	tidyLooseObjects = 4096
	tidyPacks        = 32
)

// FetchInto is Fetch for a folder kept between updates of the same
// repository and branch: the first call clones into dir, and later calls
// fetch only the branch's new commit (depth 1) into that clone and bring
// its work tree to exactly the commit's tree. Files that changed are
// rewritten, files deleted from the branch are removed, as is every file
// the commit does not hold (untracked or ignored, added by hand or by a
// build), and files that did not change are left alone: their
// modification times stay, so that a cache keyed by size and modification
// time keeps them. It returns the commit checked out, as Fetch does.
//
// repoURL and branch are those of Fetch, and so are the checks, the
// isolation of git and the errors, with the same messages. dir may be
// missing, empty, or hold anything: unless it holds a clone that FetchInto
// made for the same repository (the URL without its credentials; a path
// and the file:// URL of that path are the same) and branch, and that git
// can still read, its whole content is removed and the branch is cloned
// afresh. A file inside its .git folder (lectern-source) records a hash
// of the URL without credentials and of the branch, and of the clone's
// configuration: a configuration changed by anyone else makes FetchInto
// clone afresh. The clone has no remote configured: the URL is passed on
// each command line, credentials as Fetch passes them, and neither the
// credentials nor a deploy key are ever written into dir.
//
// When the repository's side fails (the repository or the branch is
// missing or refuses the credentials, the host cannot be reached, the
// time ran out or ctx ended), FetchInto returns Fetch's error. If that is
// found before anything is fetched (the branch is looked up first), dir is
// left exactly as it was, whatever it holds. If it happens while fetching
// into a kept clone, the clone stays usable for the next call: its work
// tree is as it was, unless time ran out while it was being updated, in
// which case the next call finishes the update. If it happens during a
// fresh clone, dir is left empty (or removed, if FetchInto created it).
// When a step in a kept clone fails for another reason (a damaged object
// store, index or HEAD), FetchInto clones afresh, with the same outcomes.
// On error, dir does not hold a commit to build from.
//
// Calls for the same dir must not overlap, and nothing else may write
// into dir between them; the .git folder may be read and must be kept.
func (f *Fetcher) FetchInto(ctx context.Context, repoURL, branch, dir string) (lectern.Commit, error) {
	src, err := parseSource(repoURL)
	if err != nil {
		return lectern.Commit{}, err
	}
	return f.fetchInto(ctx, src, branch, dir)
}

// FetchIntoSSH is FetchInto for a repository reached over SSH with a
// deploy key, as FetchSSH is Fetch for one: it returns the known_hosts
// lines of the host the fetch trusted. The key stays in the fetch's
// throwaway home, never in dir.
func (f *Fetcher) FetchIntoSSH(ctx context.Context, repoURL, branch, dir string, auth SSHAuth) (lectern.Commit, string, error) {
	src, err := sshSource(repoURL, auth)
	if err != nil {
		return lectern.Commit{}, "", err
	}
	c, err := f.fetchInto(ctx, src, branch, dir)
	if err != nil {
		return c, "", err
	}
	return c, src.learned, nil
}

// fetchInto is FetchInto of a parsed source.
func (f *Fetcher) fetchInto(ctx context.Context, src *source, branch, dir string) (lectern.Commit, error) {
	if err := checkBranch(branch); err != nil {
		return lectern.Commit{}, err
	}
	dir, existed, err := checkKeptDir(dir)
	if err != nil {
		return lectern.Commit{}, err
	}
	ctx, s, done, err := f.begin(ctx, src, branch)
	if err != nil {
		return lectern.Commit{}, err
	}
	defer done()
	id := keptIdentity(src, branch)
	kept := existed && isKept(dir, id)

	// The repository's own failures are found here, before dir is touched.
	remoteSHA, err := s.lsRemote(ctx)
	if err != nil {
		return lectern.Commit{}, err
	}
	if kept {
		c, err := s.update(ctx, dir, remoteSHA)
		var d *damaged
		if !errors.As(err, &d) {
			if err == nil {
				s.finish(c)
			}
			return c, err
		}
		f.logf("gitsource: the clone kept in %s cannot be updated (%s); cloning afresh", dir, d.reason)
	} else if entries, _ := os.ReadDir(dir); len(entries) > 0 {
		f.logf("gitsource: %s holds no clone of branch %q of %s; cloning afresh", dir, branch, src.display)
	}

	if err := emptyDir(dir); err != nil {
		return lectern.Commit{}, &lectern.Error{Code: lectern.EINTERNAL,
			Message: fmt.Sprintf("cannot empty destination folder %s", dir), Err: err}
	}
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
	if err := s.keep(ctx, dir, id); err != nil {
		return lectern.Commit{}, err
	}
	ok = true
	s.finish(c)
	return c, nil
}

// damaged is the error of a step in a kept clone that failed through no
// fault of the repository's: the clone is to be made afresh.
type damaged struct{ reason string }

func (d *damaged) Error() string { return "kept clone damaged: " + d.reason }

// keptGit runs git in the kept clone in dir, its .git folder named
// explicitly so that git never looks for a repository elsewhere.
func (s *session) keptGit(ctx context.Context, dir string, args ...string) ([]byte, string, error) {
	env := []string{"GIT_DIR=" + filepath.Join(dir, ".git"), "GIT_WORK_TREE=" + dir}
	return s.r.run(ctx, dir, env, append(append([]string(nil), keptConfig...), args...)...)
}

// keep prepares a fresh clone in dir for later updates: no remote (and so
// no URL) in its configuration, no reflogs, and the marker.
func (s *session) keep(ctx context.Context, dir, id string) error {
	fail := func(stderr string, err error) error {
		if e := runError(ctx, s.src, err); e != nil {
			return e
		}
		return &lectern.Error{Code: lectern.EINTERNAL,
			Message: fmt.Sprintf("cannot prepare the clone of branch %q from %s for later updates%s",
				s.branch, s.src.display, detail(stderr, s.src)), Err: err}
	}
	if _, stderr, err := s.keptGit(ctx, dir, "remote", "remove", "origin"); err != nil {
		return fail(stderr, err)
	}
	if _, stderr, err := s.keptGit(ctx, dir, "config", "core.logAllRefUpdates", "false"); err != nil {
		return fail(stderr, err)
	}
	gitDir := filepath.Join(dir, ".git")
	if err := os.RemoveAll(filepath.Join(gitDir, "logs")); err != nil {
		return fail("", err)
	}
	cfg, err := os.ReadFile(filepath.Join(gitDir, "config"))
	if err != nil {
		return fail("", err)
	}
	if err := os.WriteFile(filepath.Join(gitDir, keptMarker), []byte(markerText(id, cfg)), 0o600); err != nil {
		return fail("", err)
	}
	return nil
}

// update brings the kept clone in dir to the branch's commit remoteSHA (or
// a newer one, if the branch moved since). A *damaged error asks for a
// fresh clone; other errors are the fetch's own.
func (s *session) update(ctx context.Context, dir, remoteSHA string) (lectern.Commit, error) {
	local := func(step, stderr string, err error) error {
		if e := runError(ctx, s.src, err); e != nil {
			return e
		}
		return &damaged{step + ": " + err.Error() + detail(stderr, s.src)}
	}
	removeStaleLocks(filepath.Join(dir, ".git"), s.ref)

	out, stderr, err := s.keptGit(ctx, dir, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	if err != nil {
		return lectern.Commit{}, local("reading HEAD", stderr, err)
	}
	rev := "HEAD"
	if strings.TrimSpace(string(out)) != remoteSHA {
		s.f.logf("gitsource: fetching branch %q of %s into the kept clone (depth 1)", s.branch, s.src.display)
		_, stderr, err := s.keptGit(ctx, dir, "fetch", "--quiet", "--depth=1", "--no-tags",
			"--no-recurse-submodules", "--no-write-fetch-head", "--", s.src.arg, "+"+s.ref+":"+fetchedRef)
		if err != nil {
			if e := runError(ctx, s.src, err); e != nil {
				return lectern.Commit{}, e
			}
			if e := fetchError(s.branch, s.src, stderr, err); e != nil {
				return lectern.Commit{}, e
			}
			return lectern.Commit{}, local("fetching", stderr, err)
		}
		rev = fetchedRef
	}
	c, stderr, err := s.readCommit(ctx, dir, []string{"GIT_DIR=" + filepath.Join(dir, ".git")}, rev)
	if err != nil {
		return lectern.Commit{}, local("reading the fetched commit", stderr, err)
	}
	if c.SHA != remoteSHA {
		s.f.logf("gitsource: branch %q moved during the fetch, now at %s", s.branch, c.SHA)
	}

	// The work tree. A refresh first, so that a file whose status changed
	// (its inode's change time, say) but not its content is not rewritten;
	// its failures are reset's to find.
	if _, _, err := s.keptGit(ctx, dir, "update-index", "-q", "--ignore-submodules", "--refresh"); err != nil {
		if e := runError(ctx, s.src, err); e != nil {
			return lectern.Commit{}, e
		}
	}
	if _, stderr, err := s.keptGit(ctx, dir, "reset", "--hard", "--quiet", "--no-recurse-submodules", c.SHA, "--"); err != nil {
		return lectern.Commit{}, local("checking out the commit", stderr, err)
	}
	if _, stderr, err := s.keptGit(ctx, dir, "clean", "-ffdxq"); err != nil {
		return lectern.Commit{}, local("removing files the commit does not hold", stderr, err)
	}
	s.tidy(ctx, dir)
	return c, nil
}

// tidy drops the objects of older commits from the kept clone once enough
// have gathered. Its failures only cost disk space, so they are logged.
func (s *session) tidy(ctx context.Context, dir string) {
	out, _, err := s.keptGit(ctx, dir, "count-objects", "-v")
	if err != nil {
		return
	}
	stats := map[string]int{}
	for _, line := range strings.Split(string(out), "\n") {
		k, v, _ := strings.Cut(line, ":")
		stats[k], _ = strconv.Atoi(strings.TrimSpace(v))
	}
	if stats["count"] < tidyLooseObjects && stats["packs"] < tidyPacks {
		return
	}
	s.f.logf("gitsource: tidying the kept clone (%d loose objects, %d packs)", stats["count"], stats["packs"])
	if _, stderr, err := s.keptGit(ctx, dir, "gc", "--quiet", "--prune=now"); err != nil {
		s.f.logf("gitsource: tidying the kept clone failed: %v%s", err, detail(stderr, s.src))
	}
}

// fetchError classifies a failed fetch into a kept clone (after ls-remote
// succeeded) as cloneError would, or returns nil when git's message does
// not say the repository's side failed.
func fetchError(branch string, src *source, stderr string, err error) error {
	low := strings.ToLower(stderr)
	switch {
	case strings.Contains(low, "couldn't find remote ref"),
		strings.Contains(low, "remote branch") && strings.Contains(low, "not found"):
		return branchNotFound(branch, src, err) // deleted since ls-remote
	case src.ssh && isHostKeyFailure(stderr):
		return hostKeyError(src, err)
	case hasAny(low, unreachableHints):
		return &lectern.Error{Code: lectern.EUNAVAILABLE,
			Message:           fmt.Sprintf("could not fetch branch %q from %s%s", branch, src.display, detail(stderr, src)),
			RetryAfterSeconds: retryAfterSeconds, Err: err}
	case hasAny(low, refusedHints):
		return &lectern.Error{Code: lectern.ENOTFOUND,
			Message: "repository " + src.display + " not found or not readable" + detail(stderr, src), Err: err}
	}
	return nil
}

// refusedHints are the fragments of notFoundHints that only the
// repository's side says (git says "not a git repository" of a damaged
// local clone too).
var refusedHints = []string{
	"repository not found", "does not appear to be a git repository", "authentication failed",
	"could not read username", "could not read password", "terminal prompts disabled",
	"repository not exported", "permission denied (publickey", "returned error: 401",
	"returned error: 403", "returned error: 404", "returned error: 410",
}

// checkKeptDir validates FetchInto's folder and returns its absolute path
// and whether it exists.
func checkKeptDir(dir string) (string, bool, error) {
	if dir == "" {
		return "", false, lectern.Errorf(lectern.EINVALID, "destination folder is empty")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", false, &lectern.Error{Code: lectern.EINVALID,
			Message: fmt.Sprintf("destination folder %q is not a valid path", dir), Err: err}
	}
	if filepath.Dir(abs) == abs {
		return "", false, lectern.Errorf(lectern.EINVALID, "destination folder %s is the root of the file system", abs)
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
	return abs, true, nil
}

// keptIdentity is the hash that names a repository (its address without
// credentials) and branch in the marker.
func keptIdentity(src *source, branch string) string {
	sum := sha256.Sum256([]byte("lectern-source\x00" + src.arg + "\x00" + branch))
	return hex.EncodeToString(sum[:])
}

// markerText is the marker of a kept clone of identity id whose
// configuration is cfg.
func markerText(id string, cfg []byte) string {
	sum := sha256.Sum256(cfg)
	return "lectern kept clone 1\nsource " + id + "\nconfig " + hex.EncodeToString(sum[:]) + "\n"
}

// isKept reports whether dir holds a clone FetchInto made for identity id,
// with the configuration FetchInto left.
func isKept(dir, id string) bool {
	gitDir := filepath.Join(dir, ".git")
	if fi, err := os.Lstat(gitDir); err != nil || !fi.IsDir() {
		return false
	}
	marker := filepath.Join(gitDir, keptMarker)
	if fi, err := os.Lstat(marker); err != nil || !fi.Mode().IsRegular() || fi.Size() > 1024 {
		return false
	}
	got, err := os.ReadFile(marker)
	if err != nil {
		return false
	}
	cfg, err := os.ReadFile(filepath.Join(gitDir, "config"))
	return err == nil && string(got) == markerText(id, cfg)
}

// removeStaleLocks removes the lock files a git killed by a deadline may
// have left in the kept clone (calls for one folder never overlap).
func removeStaleLocks(gitDir, ref string) {
	locks, _ := filepath.Glob(filepath.Join(gitDir, "*.lock"))
	locks = append(locks,
		filepath.Join(gitDir, filepath.FromSlash(ref)+".lock"),
		filepath.Join(gitDir, filepath.FromSlash(fetchedRef)+".lock"))
	for _, l := range locks {
		os.Remove(l)
	}
}

// emptyDir removes everything inside dir, if it exists.
func emptyDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}
