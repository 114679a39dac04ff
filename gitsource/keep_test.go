package gitsource

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"lectern.dev/lectern"
)

func commitAll(t testing.TB, repo, message string) string {
	t.Helper()
	git(t, repo, "add", "-A")
	git(t, repo, "commit", "-q", "-m", message)
	return git(t, repo, "rev-parse", "HEAD")
}

func readString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// watch hard-links path to a file outside the clone, so that sameFile can
// tell later whether path is still the same file (not rewritten, whose
// inode the link keeps from being reused), and returns its modification
// time.
func watch(t *testing.T, path string) (link string, mtime time.Time) {
	t.Helper()
	link = filepath.Join(t.TempDir(), "link")
	if err := os.Link(path, link); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return link, fi.ModTime()
}

// sameFile reports whether path is still the file linked as link, with
// modification time mtime.
func sameFile(t *testing.T, path, link string, mtime time.Time) bool {
	t.Helper()
	a, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.Stat(link)
	if err != nil {
		t.Fatal(err)
	}
	return os.SameFile(a, b) && a.ModTime().Equal(mtime)
}

// clean fails unless the work tree of the clone in dir is exactly its HEAD
// commit's tree, which is want.
func clean(t *testing.T, dir, want string) {
	t.Helper()
	if got := git(t, dir, "rev-parse", "HEAD"); got != want {
		t.Errorf("HEAD = %s, want %s", got, want)
	}
	if st := git(t, dir, "status", "--porcelain", "--ignored", "--untracked-files=all"); st != "" {
		t.Errorf("the work tree is not the commit's tree:\n%s", st)
	}
}

// secretIn returns the files under dir that hold s.
func secretIn(t *testing.T, dir string, s []byte) []string {
	t.Helper()
	var found []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(path)
		if err == nil && bytes.Contains(b, s) {
			found = append(found, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

func TestFetchIntoUpdatesOnlyWhatChanged(t *testing.T) {
	t.Parallel()
	requireGit(t)
	for _, form := range []string{"path", "file URL"} {
		t.Run(form, func(t *testing.T) {
			t.Parallel()
			repo := newRepo(t)
			url := repo
			if form == "file URL" {
				url = "file://" + strings.ReplaceAll(repo, " ", "%20")
			}
			writeFile(t, filepath.Join(repo, "extra.md"), "# Extra\n")
			writeFile(t, filepath.Join(repo, "same", "page.md"), "# Same\n")
			writeFile(t, filepath.Join(repo, ".gitignore"), "*.log\n")
			first := commitAll(t, repo, "Add pages")

			ctx := context.Background()
			logf, logs := collectLogs()
			f := &Fetcher{Logf: logf}
			dir := filepath.Join(t.TempDir(), "kept")
			c, err := f.FetchInto(ctx, url, "main", dir)
			if err != nil {
				t.Fatalf("first FetchInto: %v", err)
			}
			if want := (lectern.Commit{SHA: first, Ref: "refs/heads/main", Message: "Add pages"}); c != want {
				t.Fatalf("first commit = %+v, want %+v", c, want)
			}
			clean(t, dir, first)
			if !exists(filepath.Join(dir, ".git", keptMarker)) {
				t.Error("no marker in the kept clone")
			}
			if remotes := git(t, dir, "remote"); remotes != "" {
				t.Errorf("the kept clone has remotes %q", remotes)
			}
			if found := secretIn(t, filepath.Join(dir, ".git"), []byte(repo)); len(found) > 0 {
				t.Errorf("the repository's address is stored in %v", found)
			}

			// What a build or a hand leaves behind, and a file that will not
			// change, watched.
			link, mtime := watch(t, filepath.Join(dir, "same", "page.md"))
			if os.Geteuid() == 0 {
				// A new owner makes the file's status differ from the one
				// git's index recorded (as a change time in a later second
				// would), though its content is the same.
				if err := os.Lchown(filepath.Join(dir, "same", "page.md"), 4242, 4242); err != nil {
					t.Fatal(err)
				}
			}
			writeFile(t, filepath.Join(dir, "stray.txt"), "stray")
			writeFile(t, filepath.Join(dir, "build", "out.html"), "<p>")
			writeFile(t, filepath.Join(dir, "debug.log"), "ignored")
			writeFile(t, filepath.Join(dir, "index.md"), "edited by hand")

			writeFile(t, filepath.Join(repo, "guide", "start.md"), "# Getting started, again\n")
			writeFile(t, filepath.Join(repo, "new", "page.md"), "# New\n")
			git(t, repo, "rm", "-q", "extra.md")
			// A submodule, which is never fetched: its folder stays empty.
			writeFile(t, filepath.Join(repo, ".gitmodules"), "[submodule \"sub\"]\n\tpath = vendor/sub\n\turl = "+repo+"\n")
			git(t, repo, "update-index", "--add", "--cacheinfo", "160000,"+first+",vendor/sub")
			if err := os.MkdirAll(filepath.Join(repo, "vendor", "sub"), 0o755); err != nil {
				t.Fatal(err)
			}
			second := commitAll(t, repo, "Second")

			c, err = f.FetchInto(ctx, url, "main", dir)
			if err != nil {
				t.Fatalf("second FetchInto: %v", err)
			}
			if want := (lectern.Commit{SHA: second, Ref: "refs/heads/main", Message: "Second"}); c != want {
				t.Fatalf("second commit = %+v, want %+v", c, want)
			}
			clean(t, dir, second)
			if got := readString(t, filepath.Join(dir, "guide", "start.md")); got != "# Getting started, again\n" {
				t.Errorf("changed file holds %q", got)
			}
			if got := readString(t, filepath.Join(dir, "new", "page.md")); got != "# New\n" {
				t.Errorf("new file holds %q", got)
			}
			if got := readString(t, filepath.Join(dir, "index.md")); got != "# Welcome\n" {
				t.Errorf("file edited by hand holds %q", got)
			}
			for _, gone := range []string{"extra.md", "stray.txt", "build", "debug.log"} {
				if exists(filepath.Join(dir, gone)) {
					t.Errorf("%s is still there", gone)
				}
			}
			if !sameFile(t, filepath.Join(dir, "same", "page.md"), link, mtime) {
				t.Error("an unchanged file was rewritten")
			}
			if ls := git(t, dir, "ls-files", "--stage", "vendor/sub"); !strings.HasPrefix(ls, "160000 ") {
				t.Errorf("the commit holds no submodule: %q", ls)
			}
			if entries, err := os.ReadDir(filepath.Join(dir, "vendor", "sub")); err != nil || len(entries) > 0 {
				t.Errorf("the submodule's folder holds %v (%v), want nothing", entries, err)
			}
			if n := git(t, dir, "rev-list", "--count", "HEAD"); n != "1" {
				t.Errorf("the kept clone has %s commits of history, want 1", n)
			}
			if !strings.Contains(strings.Join(logs(), "\n"), "into the kept clone") {
				t.Errorf("no fetch into the kept clone was logged: %q", logs())
			}

			// Nothing new: the same commit, nothing rewritten.
			c, err = f.FetchInto(ctx, url, "main", dir)
			if err != nil || c.SHA != second {
				t.Fatalf("third FetchInto: %+v, %v", c, err)
			}
			clean(t, dir, second)
			if !sameFile(t, filepath.Join(dir, "same", "page.md"), link, mtime) {
				t.Error("an unchanged file was rewritten by an update to the same commit")
			}
		})
	}
}

func TestFetchIntoForcePushed(t *testing.T) {
	t.Parallel()
	requireGit(t)
	repo := newRepo(t)
	dir := filepath.Join(t.TempDir(), "kept")
	f := new(Fetcher)
	if _, err := f.FetchInto(context.Background(), repo, "main", dir); err != nil {
		t.Fatal(err)
	}
	link, mtime := watch(t, filepath.Join(dir, "index.md"))
	// History rewritten: main no longer holds the commit the clone has.
	git(t, repo, "reset", "-q", "--hard", "HEAD~1")
	writeFile(t, filepath.Join(repo, "rewritten.md"), "# Rewritten\n")
	sha := commitAll(t, repo, "Rewritten")
	c, err := f.FetchInto(context.Background(), repo, "main", dir)
	if err != nil {
		t.Fatal(err)
	}
	if c.SHA != sha || c.Message != "Rewritten" {
		t.Errorf("commit = %+v, want %s", c, sha)
	}
	clean(t, dir, sha)
	if exists(filepath.Join(dir, "guide")) || !exists(filepath.Join(dir, "rewritten.md")) {
		t.Error("the work tree is not the rewritten commit's")
	}
	if !sameFile(t, filepath.Join(dir, "index.md"), link, mtime) {
		t.Error("an unchanged file was rewritten")
	}
}

func TestFetchIntoClonesAfresh(t *testing.T) {
	t.Parallel()
	requireGit(t)
	repo := newRepo(t)
	other := newRepo(t) // the same commits, in another repository
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		prepare func(t *testing.T, dir string) // dir exists
		url     string
		branch  string
		fresh   bool
	}{
		{name: "same repository and branch", url: repo, branch: "main"},
		{name: "same repository as a file URL", url: "file://" + strings.ReplaceAll(repo, " ", "%20"), branch: "main"},
		{name: "same repository with a trailing slash", url: repo + "/", branch: "main"},
		{name: "other branch", url: repo, branch: "release", fresh: true},
		{name: "other repository", url: other, branch: "main", fresh: true},
		{name: "a plain clone", url: repo, branch: "main", fresh: true, prepare: func(t *testing.T, dir string) {
			os.RemoveAll(dir)
			git(t, filepath.Dir(dir), "clone", "-q", repo, dir)
		}},
		{name: "a folder of files", url: repo, branch: "main", fresh: true, prepare: func(t *testing.T, dir string) {
			os.RemoveAll(dir)
			writeFile(t, filepath.Join(dir, "index.md"), "# Not a clone\n")
			writeFile(t, filepath.Join(dir, ".git"), "gitdir: /elsewhere\n")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "kept")
			f := new(Fetcher)
			if _, err := f.FetchInto(ctx, repo, "main", dir); err != nil {
				t.Fatal(err)
			}
			if tc.prepare != nil {
				tc.prepare(t, dir)
			}
			link, mtime := watch(t, filepath.Join(dir, "index.md"))
			writeFile(t, filepath.Join(dir, "stray.txt"), "stray")
			c, err := f.FetchInto(ctx, tc.url, tc.branch, dir)
			if err != nil {
				t.Fatal(err)
			}
			want := git(t, repo, "rev-parse", tc.branch)
			if c.SHA != want {
				t.Errorf("commit %s, want %s", c.SHA, want)
			}
			clean(t, dir, want)
			if fresh := !sameFile(t, filepath.Join(dir, "index.md"), link, mtime); fresh != tc.fresh {
				t.Errorf("cloned afresh: %v, want %v", fresh, tc.fresh)
			}
			if exists(filepath.Join(dir, "release.md")) != (tc.branch == "release") {
				t.Error("the work tree is not the branch's")
			}
			// The clone is kept from now on.
			link, mtime = watch(t, filepath.Join(dir, "index.md"))
			if _, err := f.FetchInto(ctx, tc.url, tc.branch, dir); err != nil {
				t.Fatal(err)
			}
			if !sameFile(t, filepath.Join(dir, "index.md"), link, mtime) {
				t.Error("the new clone was not kept")
			}
		})
	}
}

func TestFetchIntoRepairsDamage(t *testing.T) {
	t.Parallel()
	requireGit(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, gitDir string)
		fresh  bool
	}{
		{"objects removed", func(t *testing.T, gitDir string) { os.RemoveAll(filepath.Join(gitDir, "objects")) }, true},
		{"HEAD garbage", func(t *testing.T, gitDir string) { writeFile(t, filepath.Join(gitDir, "HEAD"), "garbage\n") }, true},
		{"packs garbage", func(t *testing.T, gitDir string) {
			packs, _ := filepath.Glob(filepath.Join(gitDir, "objects", "pack", "*.pack"))
			if len(packs) == 0 {
				t.Fatal("no pack in the clone")
			}
			for _, p := range packs {
				os.Chmod(p, 0o644)
				writeFile(t, p, "garbage")
			}
		}, true},
		{"marker garbage", func(t *testing.T, gitDir string) { writeFile(t, filepath.Join(gitDir, keptMarker), "garbage\n") }, true},
		{"marker removed", func(t *testing.T, gitDir string) { os.Remove(filepath.Join(gitDir, keptMarker)) }, true},
		{"configuration changed", func(t *testing.T, gitDir string) {
			f, err := os.OpenFile(filepath.Join(gitDir, "config"), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(f, "[filter \"x\"]\n\tsmudge = touch %s\n", filepath.Join(t.TempDir(), "ran"))
			f.Close()
		}, true},
		{"index removed", func(t *testing.T, gitDir string) { os.Remove(filepath.Join(gitDir, "index")) }, false},
		{"stale lock files", func(t *testing.T, gitDir string) {
			writeFile(t, filepath.Join(gitDir, "index.lock"), "")
			writeFile(t, filepath.Join(gitDir, "shallow.lock"), "")
			writeFile(t, filepath.Join(gitDir, "refs", "heads", "main.lock"), "")
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			repo := newRepo(t)
			dir := filepath.Join(t.TempDir(), "kept")
			logf, logs := collectLogs()
			f := &Fetcher{Logf: logf}
			if _, err := f.FetchInto(ctx, repo, "main", dir); err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(repo, "guide", "start.md"), "# Changed\n")
			sha := commitAll(t, repo, "Change")
			tc.damage(t, filepath.Join(dir, ".git"))
			c, err := f.FetchInto(ctx, repo, "main", dir)
			if err != nil {
				t.Fatalf("FetchInto: %v\n%s", err, strings.Join(logs(), "\n"))
			}
			if c.SHA != sha {
				t.Errorf("commit %s, want %s", c.SHA, sha)
			}
			clean(t, dir, sha)
			if got := readString(t, filepath.Join(dir, "guide", "start.md")); got != "# Changed\n" {
				t.Errorf("changed file holds %q", got)
			}
			if fresh := strings.Contains(strings.Join(logs(), "\n"), "cloning afresh"); fresh != tc.fresh {
				t.Errorf("cloned afresh: %v, want %v:\n%s", fresh, tc.fresh, strings.Join(logs(), "\n"))
			}
			if tc.fresh && !isKept(dir, keptIdentity(&source{arg: repo}, "main")) {
				t.Error("the fresh clone is not marked as kept")
			}
		})
	}
}

// TestFetchIntoTidies drops the objects of older commits once enough have
// gathered (here at once). Not parallel: it lowers the thresholds.
func TestFetchIntoTidies(t *testing.T) {
	requireGit(t)
	defer func(loose, packs int) { tidyLooseObjects, tidyPacks = loose, packs }(tidyLooseObjects, tidyPacks)
	tidyLooseObjects, tidyPacks = 1, 1
	repo := newRepo(t)
	dir := filepath.Join(t.TempDir(), "kept")
	logf, logs := collectLogs()
	f := &Fetcher{Logf: logf}
	first, err := f.FetchInto(context.Background(), repo, "main", dir)
	if err != nil {
		t.Fatal(err)
	}
	oldBlob := git(t, dir, "rev-parse", "HEAD:guide/start.md")
	writeFile(t, filepath.Join(repo, "guide", "start.md"), "# Changed\n")
	sha := commitAll(t, repo, "Change")
	if _, err := f.FetchInto(context.Background(), repo, "main", dir); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(logs(), "\n"), "tidying the kept clone") {
		t.Fatalf("the clone was not tidied: %q", logs())
	}
	clean(t, dir, sha)
	for _, old := range []string{first.SHA, oldBlob} {
		cmd := exec.Command("git", "cat-file", "-e", old)
		cmd.Dir, cmd.Env = dir, gitEnv(dir)
		if cmd.Run() == nil {
			t.Errorf("object %s of the previous commit is still in the clone", old)
		}
	}
	if shallow := readString(t, filepath.Join(dir, ".git", "shallow")); strings.TrimSpace(shallow) != sha {
		t.Errorf("shallow = %q, want only %s", shallow, sha)
	}
	// And it is still kept.
	if !isKept(dir, keptIdentity(&source{arg: repo}, "main")) {
		t.Error("the tidied clone is no longer marked as kept")
	}
}
