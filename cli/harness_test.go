package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"lectern.dev/lectern/cli"
)

// syncBuffer is a bytes.Buffer safe for concurrent writes and reads.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func freeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func noEnv(string) string { return "" }

// server is a lectern serve started in-process by Run.
type server struct {
	url  string
	logs *syncBuffer
	stop func()
}

// testSecretKey is the secret key of the processes tests run on
// PostgreSQL or S3, which need one: every process of a test has the same.
const testSecretKey = "dGVzdC1zZWNyZXQta2V5LW9mLWxlY3Rlcm4tdGVzdHM="

// withSecretKey adds --secret-key-file with testSecretKey to the flags of
// a process on PostgreSQL or S3 that has none.
func withSecretKey(t testing.TB, args []string) []string {
	t.Helper()
	shared := false
	for i, a := range args {
		if a == "--secret-key-file" {
			return args
		}
		if i > 0 && (args[i-1] == "--database-url" && strings.HasPrefix(a, "postgres") || args[i-1] == "--blob-url" && strings.HasPrefix(a, "s3://")) {
			shared = true
		}
	}
	if !shared {
		return args
	}
	path := filepath.Join(t.TempDir(), "secret.key")
	if err := os.WriteFile(path, []byte(testSecretKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return append(args, "--secret-key-file", path)
}

// startServe runs "lectern serve" on a free port and waits for /healthz.
func startServe(t testing.TB, dataDir string, extra ...string) *server {
	t.Helper()
	extra = withSecretKey(t, extra)
	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	logs := &syncBuffer{}
	done := make(chan error, 1)
	args := append([]string{"serve", "--addr", addr, "--data-dir", dataDir, "--rate-limit", "1000"}, extra...)
	go func() { done <- cli.Run(ctx, args, noEnv, strings.NewReader(""), io.Discard, logs) }()
	s := &server{url: "http://" + addr, logs: logs}
	var once sync.Once
	s.stop = func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("serve returned %v", err)
				}
			case <-time.After(30 * time.Second):
				t.Error("serve did not stop within 30s")
			}
		})
	}
	t.Cleanup(s.stop)
	waitHealthy(t, s.url, done)
	return s
}

func waitHealthy(t testing.TB, base string, done <-chan error) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-done:
			t.Fatalf("serve exited early: %v", err)
		default:
		}
		resp, err := http.Get(base + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("server not healthy after 15s")
}

// lectern runs a CLI command in-process and returns its stdout.
func lectern(t testing.TB, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if err := cli.Run(context.Background(), args, noEnv, strings.NewReader(""), &out, &errb); err != nil {
		t.Fatalf("lectern %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return out.String()
}

// lastLine returns the last non-empty line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Docs Team", "GIT_AUTHOR_EMAIL=docs@acme.test",
		"GIT_COMMITTER_NAME=Docs Team", "GIT_COMMITTER_EMAIL=docs@acme.test", "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// commitFiles writes files (a nil content deletes) and commits them.
func commitFiles(t testing.TB, repo string, files map[string]string, msg string) string {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(repo, filepath.FromSlash(name))
		if content == "\x00delete" {
			os.Remove(p)
			continue
		}
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git(t, repo, "add", "-A")
	git(t, repo, "commit", "-q", "-m", msg)
	return git(t, repo, "rev-parse", "HEAD")
}

func newRepo(t testing.TB, files map[string]string) (string, string) {
	t.Helper()
	repo := t.TempDir()
	git(t, repo, "init", "-q", "-b", "main")
	return repo, commitFiles(t, repo, files, "Initial docs")
}

// copyTree copies a folder (a corpus, read in place) into a new git repo.
func corpusRepo(t testing.TB, corpus string) string {
	t.Helper()
	repo := t.TempDir()
	err := filepath.WalkDir(corpus, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(corpus, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(repo, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(repo, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	git(t, repo, "init", "-q", "-b", "main")
	git(t, repo, "add", "-A")
	git(t, repo, "commit", "-q", "-m", "Import corpus")
	return repo
}

// call sends an API request and decodes the JSON answer.
func call(t testing.TB, method, url, key string, body any) (int, map[string]any, http.Header) {
	t.Helper()
	return callWith(t, method, url, key, nil, body)
}

// callWith is call with the request headers hdr added.
func callWith(t testing.TB, method, url, key string, hdr map[string]string, body any) (int, map[string]any, http.Header) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, url, rd)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if strings.Contains(url, "/v1/") {
		if err := checker.CheckResponse(req, resp, raw); err != nil {
			t.Errorf("%s %s: response does not match the OpenAPI document: %v", method, url, err)
		}
	}
	var m map[string]any
	if len(raw) > 0 && strings.Contains(resp.Header.Get("Content-Type"), "json") {
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("%s %s: bad JSON %q", method, url, raw)
		}
	}
	return resp.StatusCode, m, resp.Header
}

// waitUpdate polls an update status until it is terminal.
func waitUpdate(t testing.TB, base, key, id string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		code, st, _ := call(t, "GET", base+"/v1/project/update-status/"+id, key, nil)
		if code != 200 {
			t.Fatalf("update status %s: %d %v", id, code, st)
		}
		switch st["status"] {
		case "success", "failure", "superseded", "canceled":
			return st
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Fatalf("update %s not finished after 60s", id)
	return nil
}

// trigger queues an update and returns its status id.
func trigger(t testing.TB, base, key, project string) string {
	t.Helper()
	code, body, hdr := call(t, "POST", base+"/v1/project/update/"+project, key, nil)
	if code != 202 {
		t.Fatalf("trigger: %d %v", code, body)
	}
	id, _ := body["statusId"].(string)
	if !strings.HasPrefix(id, "upd_") || hdr.Get("Location") != "/v1/project/update-status/"+id {
		t.Fatalf("trigger: bad answer %v %v", body, hdr)
	}
	return id
}

// page fetches a live site page by Host.
func page(t testing.TB, base, host, path string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", base+path, nil)
	req.Host = host
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
