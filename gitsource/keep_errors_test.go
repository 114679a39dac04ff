package gitsource

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/internal/sshdtest"
)

func TestFetchIntoErrors(t *testing.T) {
	t.Parallel()
	requireGit(t)
	repo := newRepo(t)
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "kept")
	f := new(Fetcher)
	c, err := f.FetchInto(ctx, repo, "main", dir)
	if err != nil {
		t.Fatal(err)
	}
	link, mtime := watch(t, filepath.Join(dir, "index.md"))
	moved := filepath.Join(t.TempDir(), "moved")
	sameAsFetch := func(t *testing.T, url, branch, code string) {
		t.Helper()
		_, err := f.FetchInto(ctx, url, branch, dir)
		e := wantError(t, err, code)
		_, want := f.Fetch(ctx, url, branch, filepath.Join(t.TempDir(), "w"))
		if w := lectern.AsError(want); w == nil || w.Message != e.Message || w.Code != e.Code {
			t.Errorf("FetchInto's error %q is not Fetch's %v", e.Message, want)
		}
		// The kept clone is as it was.
		clean(t, dir, c.SHA)
		if !sameFile(t, filepath.Join(dir, "index.md"), link, mtime) {
			t.Error("a failed FetchInto rewrote the kept clone")
		}
	}
	t.Run("missing branch", func(t *testing.T) { sameAsFetch(t, repo, "nope", lectern.ENOTFOUND) })
	t.Run("not a repository", func(t *testing.T) { sameAsFetch(t, t.TempDir(), "main", lectern.ENOTFOUND) })
	t.Run("missing repository", func(t *testing.T) {
		if err := os.Rename(repo, moved); err != nil {
			t.Fatal(err)
		}
		defer os.Rename(moved, repo)
		sameAsFetch(t, repo, "main", lectern.ENOTFOUND)
	})
	t.Run("invalid", func(t *testing.T) {
		sameAsFetch(t, "ext::sh -c x", "main", lectern.EINVALID)
		sameAsFetch(t, repo, "a..b", lectern.EINVALID)
	})
	t.Run("bad folder", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "file")
		writeFile(t, file, "x")
		for _, d := range []string{"", file, "/"} {
			_, err := f.FetchInto(ctx, repo, "main", d)
			wantError(t, err, lectern.EINVALID)
		}
		if readString(t, file) != "x" {
			t.Error("the file was changed")
		}
	})
	t.Run("failed fresh clone", func(t *testing.T) {
		// A folder that is not a clone, and a repository that is not one
		// either: the folder is left as it was, since the repository's
		// failure is known before anything is removed.
		d := t.TempDir()
		writeFile(t, filepath.Join(d, "keep.txt"), "x")
		_, err := f.FetchInto(ctx, t.TempDir(), "main", d)
		wantError(t, err, lectern.ENOTFOUND)
		if !exists(filepath.Join(d, "keep.txt")) {
			t.Error("a FetchInto that failed on the repository's side emptied the folder")
		}
		missing := filepath.Join(t.TempDir(), "new")
		_, err = f.FetchInto(ctx, repo, "nope", missing)
		wantError(t, err, lectern.ENOTFOUND)
		if exists(missing) {
			t.Error("a failed FetchInto created its folder")
		}
	})
}

// fetchRequest reports whether a POST body to git-upload-pack asks for
// objects (a fetch, not a ref listing).
func fetchRequest(body []byte) bool {
	if len(body) > 2 && body[0] == 0x1f && body[1] == 0x8b {
		if zr, err := gzip.NewReader(bytes.NewReader(body)); err == nil {
			body, _ = io.ReadAll(zr)
		}
	}
	return bytes.Contains(body, []byte("want "))
}

func TestFetchIntoHTTPWithCredentials(t *testing.T) {
	t.Parallel()
	requireGit(t)
	repo := newRepo(t)
	var block atomic.Bool
	srv := gitHTTPServerBlocking(t, filepath.Dir(repo), func(body []byte) bool {
		return block.Load() && fetchRequest(body)
	})
	host := strings.TrimPrefix(srv.URL, "http://")
	path := "/" + strings.ReplaceAll(filepath.Base(repo), " ", "%20") + "/.git"
	repoURL := "http://user:" + secret + "@" + host + path

	ctx := context.Background()
	logf, logs := collectLogs()
	f := &Fetcher{Logf: logf}
	dir := filepath.Join(t.TempDir(), "kept")
	noSecretOnDisk := func(when string) {
		t.Helper()
		for _, s := range []string{secret, host} {
			if found := secretIn(t, filepath.Join(dir, ".git"), []byte(s)); len(found) > 0 {
				t.Errorf("%s: %q is stored in %v", when, s, found)
			}
		}
	}

	c, err := f.FetchInto(ctx, repoURL, "main", dir)
	if err != nil {
		t.Fatalf("first FetchInto: %v", err)
	}
	clean(t, dir, c.SHA)
	noSecretOnDisk("after the clone")
	link, mtime := watch(t, filepath.Join(dir, "index.md"))

	writeFile(t, filepath.Join(repo, "guide", "start.md"), "# Changed\n")
	second := commitAll(t, repo, "Change")
	c, err = f.FetchInto(ctx, repoURL, "main", dir)
	if err != nil {
		t.Fatalf("second FetchInto: %v", err)
	}
	if c.SHA != second {
		t.Errorf("commit %s, want %s", c.SHA, second)
	}
	clean(t, dir, second)
	noSecretOnDisk("after a fetch")
	if !sameFile(t, filepath.Join(dir, "index.md"), link, mtime) {
		t.Error("an unchanged file was rewritten")
	}
	noSecret(t, nil, logs())

	// Refused credentials: Fetch's error, and the clone stays.
	writeFile(t, filepath.Join(repo, "guide", "start.md"), "# Changed again\n")
	third := commitAll(t, repo, "Change again")
	_, err = f.FetchInto(ctx, "http://user:wrong-"+secret+"@"+host+path, "main", dir)
	wantError(t, err, lectern.ENOTFOUND, "repository http://user:***@"+host+path+" not found or not readable")
	noSecret(t, err, logs())
	clean(t, dir, second)

	// The server hangs once asked for the objects: the fetch times out, and
	// the clone is left as it was, then updated by the next call.
	block.Store(true)
	_, err = (&Fetcher{Timeout: 3 * time.Second, Logf: logf}).FetchInto(ctx, repoURL, "main", dir)
	wantError(t, err, lectern.EUNAVAILABLE, "timed out after 3s", "http://user:***@"+host)
	if l := logs(); !strings.Contains(l[len(l)-1], "into the kept clone") {
		t.Errorf("the time did not run out in the fetch into the kept clone: %q", l)
	}
	noSecret(t, err, logs())
	clean(t, dir, second)
	block.Store(false)
	c, err = f.FetchInto(ctx, repoURL, "main", dir)
	if err != nil || c.SHA != third {
		t.Fatalf("FetchInto after a timeout: %+v, %v", c, err)
	}
	clean(t, dir, third)
	if !sameFile(t, filepath.Join(dir, "index.md"), link, mtime) {
		t.Error("the clone was not kept after a timeout")
	}
	noSecretOnDisk("after a timeout")
	noSecret(t, nil, logs())
}

// TestFetchIntoSSH keeps a clone fetched over SSH with a deploy key, and
// never writes the key into it.
func TestFetchIntoSSH(t *testing.T) {
	priv, pub := sshdtest.KeyPair(t)
	srv := sshdtest.Start(t, pub)
	bare := sshdtest.BareRepo(t)
	url := fmt.Sprintf("ssh://%s@127.0.0.1:%d%s", srv.User, srv.Port, bare)
	f := &Fetcher{Timeout: time.Minute}
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "kept")

	c, known, err := f.FetchIntoSSH(ctx, url, "main", dir, SSHAuth{Key: priv})
	if err != nil {
		t.Fatalf("first FetchIntoSSH: %v", err)
	}
	if !strings.Contains(known, strings.Fields(srv.HostKey)[1]) {
		t.Fatalf("learned %q, want the host key %q", known, srv.HostKey)
	}
	clean(t, dir, c.SHA)
	link, mtime := watch(t, filepath.Join(dir, "index.mdx"))

	work := filepath.Join(filepath.Dir(bare), "work")
	writeFile(t, filepath.Join(work, "new.mdx"), "# New\n")
	commitAll(t, work, "New page")
	git(t, work, "push", "-q", bare, "main")
	c, again, err := f.FetchIntoSSH(ctx, url, "main", dir, SSHAuth{Key: priv, KnownHosts: known})
	if err != nil {
		t.Fatalf("second FetchIntoSSH: %v", err)
	}
	if want := git(t, bare, "rev-parse", "main"); c.SHA != want || again != known {
		t.Errorf("commit %s (known %q), want %s", c.SHA, again, want)
	}
	clean(t, dir, c.SHA)
	if !sameFile(t, filepath.Join(dir, "index.mdx"), link, mtime) {
		t.Error("an unchanged file was rewritten")
	}
	lines := bytes.Fields(priv) // -----BEGIN OPENSSH PRIVATE KEY----- base64... -----END ...
	for _, s := range append([][]byte{[]byte("PRIVATE KEY")}, lines[4:len(lines)-4]...) {
		if found := secretIn(t, dir, s); len(found) > 0 {
			t.Errorf("the deploy key is stored in %v", found)
		}
	}
	if _, _, err := f.FetchIntoSSH(ctx, url, "main", dir, SSHAuth{}); lectern.ErrorCode(err) != lectern.EINVALID {
		t.Fatalf("no key: %v", err)
	}
}

func TestFetchErrorClassifies(t *testing.T) {
	src := &source{display: "https://user:***@git.example.com/docs.git", hasCreds: true, password: secret}
	for stderr, want := range map[string]string{
		"fatal: couldn't find remote ref refs/heads/main":                                                   lectern.ENOTFOUND,
		"fatal: unable to access 'https://git.example.com/docs.git/': Failed to connect to git.example.com": lectern.EUNAVAILABLE,
		"error: RPC failed; curl 18 transfer closed\nfatal: early EOF":                                      lectern.EUNAVAILABLE,
		"remote: Repository not found.\nfatal: repository 'https://git.example.com/docs.git/' not found":    lectern.ENOTFOUND,
		"fatal: Authentication failed for 'https://git.example.com/docs.git/'":                              lectern.ENOTFOUND,
		// The clone's own failures: no error, the clone is made afresh.
		"error: object file .git/objects/ab/cdef is empty\nfatal: loose object abcdef is corrupt": "",
		"fatal: not a git repository: '/srv/kept/.git'":                                           "",
		"fatal: bad object HEAD": "",
	} {
		err := fetchError("main", src, stderr, fmt.Errorf("exit status 128"))
		if got := lectern.ErrorCode(err); err == nil && want != "" || err != nil && got != want {
			t.Errorf("fetchError(%q) = %v, want code %q", stderr, err, want)
		}
	}
}
