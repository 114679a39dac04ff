package gitsource

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"lectern.dev/lectern"
)

const secret = "s3cr3t"

// gitEnv is an environment for the test's own git commands, isolated from
// the user's configuration.
func gitEnv(home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") && !strings.HasPrefix(kv, "HOME=") {
			env = append(env, kv)
		}
	}
	return append(env,
		"HOME="+home,
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_AUTHOR_NAME=Ada Author", "GIT_AUTHOR_EMAIL=ada@example.com",
		"GIT_COMMITTER_NAME=Ada Author", "GIT_COMMITTER_EMAIL=ada@example.com",
		"GIT_AUTHOR_DATE=2024-01-02T03:04:05Z", "GIT_COMMITTER_DATE=2024-01-02T03:04:05Z",
	)
}

func requireGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
}

func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = gitEnv(dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

const (
	mainMessage    = "Add getting started guide\n\nExplains installation.\nSecond body line."
	releaseMessage = "Release notes for 1.0"
)

// newRepo creates a repository with two commits on main, a branch release
// with its own content, and a tag.
func newRepo(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "docs repo")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "init", "-q", "-b", "main")
	writeFile(t, filepath.Join(dir, "index.md"), "# Welcome\n")
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-q", "-m", "Initial commit")
	git(t, dir, "tag", "v0.1")
	git(t, dir, "branch", "release")
	writeFile(t, filepath.Join(dir, "guide", "start.md"), "# Getting started\n")
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-q", "-m", mainMessage+"\n\n")
	git(t, dir, "checkout", "-q", "release")
	writeFile(t, filepath.Join(dir, "release.md"), "# Release 1.0\n")
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-q", "-m", releaseMessage)
	git(t, dir, "checkout", "-q", "main")
	return dir
}

func wantError(t *testing.T, err error, code string, contains ...string) *lectern.Error {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want %s", code)
	}
	e := lectern.AsError(err)
	if e == nil {
		t.Fatalf("got %T %v, want *lectern.Error", err, err)
	}
	t.Logf("error: %s", e.Message)
	if e.Code != code {
		t.Fatalf("code = %q, want %q (message %q, err %v)", e.Code, code, e.Message, e.Err)
	}
	for _, s := range contains {
		if !strings.Contains(e.Message, s) {
			t.Errorf("message %q does not contain %q", e.Message, s)
		}
	}
	return e
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func TestFetchLocal(t *testing.T) {
	t.Parallel()
	requireGit(t)
	repo := newRepo(t)
	fileURL := "file://" + strings.ReplaceAll(repo, " ", "%20")

	for _, tc := range []struct{ name, url, branch, file, message string }{
		{"path main", repo, "main", "guide/start.md", mainMessage},
		{"path release", repo, "release", "release.md", releaseMessage},
		{"file URL main", fileURL, "main", "guide/start.md", mainMessage},
		{"file URL release", fileURL, "release", "release.md", releaseMessage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "a", "work")
			var logs []string
			f := &Fetcher{Logf: func(format string, args ...any) { logs = append(logs, fmt.Sprintf(format, args...)) }}
			c, err := f.Fetch(context.Background(), tc.url, tc.branch, dir)
			if err != nil {
				t.Fatalf("Fetch: %v", err)
			}
			want := lectern.Commit{SHA: git(t, repo, "rev-parse", "refs/heads/"+tc.branch),
				Ref: "refs/heads/" + tc.branch, Message: tc.message}
			if c != want {
				t.Errorf("commit = %+v, want %+v", c, want)
			}
			if !exists(filepath.Join(dir, tc.file)) || !exists(filepath.Join(dir, "index.md")) {
				t.Errorf("fetched files missing in %s", dir)
			}
			other := map[string]string{"main": "release.md", "release": "guide/start.md"}[tc.branch]
			if exists(filepath.Join(dir, other)) {
				t.Errorf("%s of the other branch is present", other)
			}
			if got := git(t, dir, "rev-parse", "HEAD"); got != c.SHA {
				t.Errorf("HEAD = %s, want %s", got, c.SHA)
			}
			if !exists(filepath.Join(dir, ".git", "shallow")) {
				t.Error("clone is not shallow")
			}
			if n := git(t, dir, "rev-list", "--count", "HEAD"); n != "1" {
				t.Errorf("clone has %s commits, want 1", n)
			}
			if tags := git(t, dir, "tag"); tags != "" {
				t.Errorf("tags were fetched: %q", tags)
			}
			var refs []string
			for _, ref := range strings.Fields(git(t, dir, "for-each-ref", "--format=%(refname)")) {
				if ref != "refs/remotes/origin/HEAD" {
					refs = append(refs, ref)
				}
			}
			if want := "refs/heads/" + tc.branch + " refs/remotes/origin/" + tc.branch; strings.Join(refs, " ") != want {
				t.Errorf("remote refs = %q, want only the branch", refs)
			}
			if len(logs) == 0 {
				t.Error("no progress lines were logged")
			}
		})
	}
}

func TestFetchIntoEmptyExistingDir(t *testing.T) {
	t.Parallel()
	requireGit(t)
	repo := newRepo(t)
	dir := t.TempDir()
	// A relative repository path works too.
	wd, _ := os.Getwd()
	rel, err := filepath.Rel(wd, repo)
	if err != nil {
		t.Fatal(err)
	}
	c, err := new(Fetcher).Fetch(context.Background(), rel, "main", dir)
	if err != nil {
		t.Fatalf("Fetch: %v", err)
	}
	if c.SHA != git(t, repo, "rev-parse", "main") || !exists(filepath.Join(dir, "guide", "start.md")) {
		t.Errorf("unexpected fetch result %+v", c)
	}
}

func TestFetchErrors(t *testing.T) {
	t.Parallel()
	requireGit(t)
	repo := newRepo(t)
	tmp := t.TempDir()
	missing := filepath.Join(tmp, "nope")
	notRepo := filepath.Join(tmp, "plain")
	writeFile(t, filepath.Join(notRepo, "file.txt"), "x")
	full := filepath.Join(tmp, "full")
	writeFile(t, filepath.Join(full, "keep.txt"), "x")
	aFile := filepath.Join(tmp, "a-file")
	writeFile(t, aFile, "x")

	for _, tc := range []struct {
		name, url, branch, dir string
		code                   string
		contains               []string
	}{
		{"missing repo path", missing, "main", "", lectern.ENOTFOUND,
			[]string{"repository " + missing + " not found or not readable"}},
		{"missing repo file URL", "file://" + missing, "main", "", lectern.ENOTFOUND,
			[]string{"repository file://" + missing + " not found or not readable"}},
		{"not a repository", notRepo, "main", "", lectern.ENOTFOUND,
			[]string{"repository " + notRepo + " not found or not readable", "git: fatal:"}},
		{"missing branch", repo, "nope", "", lectern.ENOTFOUND,
			[]string{`branch "nope" does not exist in ` + repo}},
		{"missing nested branch", repo, "main/x", "", lectern.ENOTFOUND, []string{`branch "main/x"`}},
		{"empty URL", "", "main", "", lectern.EINVALID, []string{"repository URL is empty"}},
		{"ssh URL", "ssh://git@example.com/org/docs.git", "main", "", lectern.EINVALID,
			[]string{`unsupported scheme "ssh"`, "ssh://git@example.com/org/docs.git"}},
		{"git URL", "git://example.com/docs.git", "main", "", lectern.EINVALID, []string{`"git"`}},
		{"ext transport", "ext::sh -c touch% /tmp/pwned", "main", "", lectern.EINVALID, []string{`transport "ext"`}},
		{"fd transport", "fd::17", "main", "", lectern.EINVALID, []string{`transport "fd"`}},
		{"scp-like", "git@example.com:org/docs.git", "main", "", lectern.EINVALID, []string{"SSH address"}},
		{"option URL", "--upload-pack=touch /tmp/pwned", "main", "", lectern.EINVALID, []string{`must not start with "-"`}},
		{"URL with newline", "https://example.com/x\n.git", "main", "", lectern.EINVALID, []string{"control characters"}},
		{"URL with space", "https://example.com/my docs.git", "main", "", lectern.EINVALID, []string{"spaces"}},
		{"remote file URL", "file://example.com/srv/docs.git", "main", "", lectern.EINVALID, []string{"only local files"}},
		{"bad URL", "https://", "main", "", lectern.EINVALID, []string{"not a valid URL"}},
		{"empty branch", repo, "", "", lectern.EINVALID, []string{"branch name is empty"}},
		{"option branch", repo, "--upload-pack=x", "", lectern.EINVALID, []string{`must not start with "-"`}},
		{"dotdot branch", repo, "a..b", "", lectern.EINVALID, []string{`".."`}},
		{"space branch", repo, "my branch", "", lectern.EINVALID, []string{"spaces"}},
		{"control branch", repo, "a\x01b", "", lectern.EINVALID, []string{"control characters"}},
		{"dir not empty", repo, "main", full, lectern.EINVALID, []string{"is not empty"}},
		{"dir is a file", repo, "main", aFile, lectern.EINVALID, []string{"is not a folder"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := tc.dir
			if dir == "" {
				dir = filepath.Join(t.TempDir(), "work")
			}
			_, err := new(Fetcher).Fetch(context.Background(), tc.url, tc.branch, dir)
			wantError(t, err, tc.code, tc.contains...)
			if tc.dir == "" && exists(dir) {
				t.Errorf("failed fetch left %s behind", dir)
			}
		})
	}
	if !exists(filepath.Join(full, "keep.txt")) {
		t.Error("a refused fetch touched the non-empty folder")
	}
}

func TestBranchNamesAgreeWithGit(t *testing.T) {
	t.Parallel()
	requireGit(t)
	valid := []string{"main", "release/1.x", "feature-x", "v1.0", "a@b", "ünïcode", "x.lockx", "a/b.c", "@x", "under_score"}
	invalid := []string{"-x", "a..b", "a b", "a\tb", "a~b", "a^b", "a:b", "a?b", "a*b", "a[b", `a\b`,
		"/a", "a/", "a//b", "a.", ".a", "a/.b", "a.lock", "a/b.lock/c", "a@{b", "a\x7fb"}
	dir := t.TempDir()
	gitAccepts := func(name string) bool {
		cmd := exec.Command("git", "check-ref-format", "--branch", name)
		cmd.Dir, cmd.Env = dir, gitEnv(dir)
		return cmd.Run() == nil
	}
	for _, name := range valid {
		if err := checkBranch(name); err != nil {
			t.Errorf("checkBranch(%q) = %v, want nil", name, err)
		}
		if !gitAccepts(name) {
			t.Errorf("git rejects %q, which checkBranch accepts", name)
		}
	}
	// Names git accepts as branch names but that mean something else in
	// revision syntax; refused as well.
	for _, name := range []string{"@", "HEAD"} {
		if err := checkBranch(name); lectern.ErrorCode(err) != lectern.EINVALID {
			t.Errorf("checkBranch(%q) = %v, want EINVALID", name, err)
		}
	}
	for _, name := range invalid {
		if err := checkBranch(name); lectern.ErrorCode(err) != lectern.EINVALID {
			t.Errorf("checkBranch(%q) = %v, want EINVALID", name, err)
		}
		if gitAccepts(name) {
			t.Errorf("git accepts %q, which checkBranch rejects", name)
		}
	}
}

func TestRedact(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"https://user:s3cr3t@example.com/x.git":        "https://user:***@example.com/x.git",
		"https://s3cr3t@example.com/x.git":             "https://***@example.com/x.git",
		"http://user:s3cr3t@127.0.0.1:8080/x.git?y=@z": "http://user:***@127.0.0.1:8080/x.git?y=@z",
		"https://user:s3%40cr3t@example.com/x":         "https://user:***@example.com/x",
		"https://user:s3cr@3t@example.com/x":           "https://user:***@example.com/x",
		"https://user:s3/cr3t@example.com/x":           "https://***@example.com/x",
		"https://user:s3cr3t#x@example.com/x":          "https://***@example.com/x",
		"https://example.com/org/x.git":                "https://example.com/org/x.git",
		"https://example.com:8443/@scope/x.git":        "https://example.com:8443/@scope/x.git",
		"https://[::1]:8443/x.git":                     "https://[::1]:8443/x.git",
		"user:s3cr3t@example.com:org/x.git":            "user:***@example.com:org/x.git",
		"/srv/git/docs@v2/x.git":                       "/srv/git/docs@v2/x.git",
		"file:///srv/git/x.git":                        "file:///srv/git/x.git",
		"":                                             "",
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}

// noSecret fails if the secret shows anywhere in err or in logs.
func noSecret(t *testing.T, err error, logs []string) {
	t.Helper()
	texts := append([]string{fmt.Sprint(err), fmt.Sprintf("%+v", err)}, logs...)
	if e := lectern.AsError(err); e != nil {
		texts = append(texts, e.Message, fmt.Sprint(e.Err))
	}
	for _, s := range texts {
		if strings.Contains(s, secret) {
			t.Errorf("secret leaked: %q", s)
		}
	}
}

func collectLogs() (func(string, ...any), func() []string) {
	var mu sync.Mutex
	var logs []string
	return func(format string, args ...any) {
			mu.Lock()
			defer mu.Unlock()
			logs = append(logs, fmt.Sprintf(format, args...))
		}, func() []string {
			mu.Lock()
			defer mu.Unlock()
			return append([]string(nil), logs...)
		}
}

func TestClosedPortHidesSecret(t *testing.T) {
	t.Parallel()
	requireGit(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()

	for _, scheme := range []string{"https", "http"} {
		repoURL := scheme + "://user:" + secret + "@" + addr + "/org/docs.git"
		logf, logs := collectLogs()
		f := &Fetcher{Timeout: 30 * time.Second, Logf: logf}
		_, err := f.Fetch(context.Background(), repoURL, "main", filepath.Join(t.TempDir(), "w"))
		e := wantError(t, err, lectern.EUNAVAILABLE, "could not reach repository "+scheme+"://user:***@"+addr+"/org/docs.git")
		if e.RetryAfterSeconds <= 0 {
			t.Error("RetryAfterSeconds not set")
		}
		noSecret(t, err, logs())
		// A lone token in the user name is hidden too.
		_, err = f.Fetch(context.Background(), scheme+"://"+secret+"@"+addr+"/x.git", "main", filepath.Join(t.TempDir(), "w"))
		wantError(t, err, lectern.EUNAVAILABLE, "***@"+addr)
		noSecret(t, err, logs())
	}
}

// blockingServer accepts connections and never answers.
func blockingServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return ln.Addr().String()
}

func TestTimeoutOnBlockingRemote(t *testing.T) {
	t.Parallel()
	requireGit(t)
	addr := blockingServer(t)
	repoURL := "http://user:" + secret + "@" + addr + "/docs.git"
	logf, logs := collectLogs()
	f := &Fetcher{Timeout: 300 * time.Millisecond, Logf: logf}
	start := time.Now()
	_, err := f.Fetch(context.Background(), repoURL, "main", filepath.Join(t.TempDir(), "w"))
	elapsed := time.Since(start)
	e := wantError(t, err, lectern.EUNAVAILABLE, "timed out after 300ms", "http://user:***@"+addr)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error %v does not wrap context.DeadlineExceeded", e.Err)
	}
	if elapsed > waitDelay {
		t.Errorf("Fetch returned after %v; git's process group was not killed promptly", elapsed)
	}
	noSecret(t, err, logs())
}

func TestCancelOnBlockingRemote(t *testing.T) {
	t.Parallel()
	requireGit(t)
	addr := blockingServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	_, err := new(Fetcher).Fetch(ctx, "http://"+addr+"/docs.git", "main", filepath.Join(t.TempDir(), "w"))
	elapsed := time.Since(start)
	wantError(t, err, lectern.EUNAVAILABLE, "was canceled")
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error does not wrap context.Canceled: %v", err)
	}
	if elapsed > waitDelay {
		t.Errorf("Fetch returned after %v; git's process group was not killed promptly", elapsed)
	}

	// A context that is already done fails at once.
	_, err = new(Fetcher).Fetch(ctx, "http://"+addr+"/docs.git", "main", filepath.Join(t.TempDir(), "w"))
	wantError(t, err, lectern.EUNAVAILABLE, "was canceled")

	// The caller's own deadline is reported as a timeout.
	dctx, dcancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer dcancel()
	_, err = new(Fetcher).Fetch(dctx, "http://"+addr+"/docs.git", "main", filepath.Join(t.TempDir(), "w"))
	wantError(t, err, lectern.EUNAVAILABLE, "timed out")
}

func TestGitMissing(t *testing.T) {
	t.Parallel()
	requireGit(t)
	repo := newRepo(t)
	f := &Fetcher{GitPath: filepath.Join(t.TempDir(), "no-git-here")}
	_, err := f.Fetch(context.Background(), repo, "main", filepath.Join(t.TempDir(), "w"))
	e := wantError(t, err, lectern.EINTERNAL, "cannot run git")
	if e.Err == nil {
		t.Error("underlying error not kept")
	}
}

// gitHTTPServer serves the repositories under root with git http-backend,
// requiring HTTP basic authentication as user:s3cr3t. If blockPack is set,
// pack requests hang until the client goes away.
func gitHTTPServer(t *testing.T, root string, blockPack bool) *httptest.Server {
	t.Helper()
	return gitHTTPServerBlocking(t, root, func([]byte) bool { return blockPack })
}

// gitHTTPServerBlocking is gitHTTPServer where the POST requests whose body
// block reports hang until the client goes away.
func gitHTTPServerBlocking(t *testing.T, root string, block func(body []byte) bool) *httptest.Server {
	t.Helper()
	cmd := exec.Command("git", "--exec-path")
	cmd.Env = gitEnv(root)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	backend := filepath.Join(strings.TrimSpace(string(out)), "git-http-backend")
	if !exists(backend) {
		t.Skip("git-http-backend is not installed")
	}
	h := &cgi.Handler{Path: backend, Dir: root,
		Env: append(gitEnv(root), "GIT_PROJECT_ROOT="+root, "GIT_HTTP_EXPORT_ALL=1"), Stderr: io.Discard}
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != "user" || p != secret {
			w.Header().Set("WWW-Authenticate", `Basic realm="docs"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			if block(body) {
				select {
				case <-r.Context().Done():
				case <-stop:
				}
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(stop) }) // runs first: release hanging handlers
	return srv
}

func TestFetchHTTPWithCredentials(t *testing.T) {
	t.Parallel()
	requireGit(t)
	repo := newRepo(t)
	srv := gitHTTPServer(t, filepath.Dir(repo), false)
	host := strings.TrimPrefix(srv.URL, "http://")
	path := "/" + strings.ReplaceAll(filepath.Base(repo), " ", "%20") + "/.git"

	logf, logs := collectLogs()
	f := &Fetcher{Logf: logf}
	dir := filepath.Join(t.TempDir(), "w")
	c, err := f.Fetch(context.Background(), "http://user:"+secret+"@"+host+path, "release", dir)
	if err != nil {
		t.Fatalf("Fetch: %v", err)
	}
	if want := git(t, repo, "rev-parse", "release"); c.SHA != want || c.Message != releaseMessage {
		t.Errorf("commit = %+v, want SHA %s", c, want)
	}
	if !exists(filepath.Join(dir, "release.md")) {
		t.Error("release.md missing")
	}
	if cfg, _ := os.ReadFile(filepath.Join(dir, ".git", "config")); strings.Contains(string(cfg), secret) {
		t.Error("the secret was stored in the clone's config")
	}
	noSecret(t, nil, logs())

	// Wrong or missing credentials: not readable, and no secret shown.
	for _, u := range []string{"http://user:wrong-" + secret + "@" + host + path, "http://" + host + path} {
		_, err = f.Fetch(context.Background(), u, "main", filepath.Join(t.TempDir(), "w"))
		wantError(t, err, lectern.ENOTFOUND, "not found or not readable")
		noSecret(t, err, logs())
	}

	// A missing repository on the server.
	_, err = f.Fetch(context.Background(), "http://user:"+secret+"@"+host+"/nope.git", "main", filepath.Join(t.TempDir(), "w"))
	wantError(t, err, lectern.ENOTFOUND, "repository http://user:***@"+host+"/nope.git not found or not readable")
	noSecret(t, err, logs())
}

func TestFailedCloneIsCleanedUp(t *testing.T) {
	t.Parallel()
	requireGit(t)
	repo := newRepo(t)
	srv := gitHTTPServer(t, filepath.Dir(repo), true)
	repoURL := "http://user:" + secret + "@" + strings.TrimPrefix(srv.URL, "http://") +
		"/" + strings.ReplaceAll(filepath.Base(repo), " ", "%20") + "/.git"

	f := &Fetcher{Timeout: time.Second}
	fresh := filepath.Join(t.TempDir(), "w")
	_, err := f.Fetch(context.Background(), repoURL, "main", fresh)
	wantError(t, err, lectern.EUNAVAILABLE, "timed out after 1s")
	noSecret(t, err, nil)
	if exists(fresh) {
		t.Errorf("failed fetch left %s behind", fresh)
	}

	empty := t.TempDir()
	_, err = f.Fetch(context.Background(), repoURL, "main", empty)
	wantError(t, err, lectern.EUNAVAILABLE)
	if entries, _ := os.ReadDir(empty); !exists(empty) || len(entries) != 0 {
		t.Errorf("failed fetch did not leave %s empty: %v", empty, entries)
	}
}
