package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"lectern.dev/lectern/cli"
)

// selfhostProc is a "lectern selfhost" run in-process by Run.
type selfhostProc struct {
	url  string
	logs *syncBuffer
	done chan error
	stop func() error
}

// startSelfhost runs "lectern selfhost --config cfg --cache-dir cache" on a
// free port and waits until it serves a site (/readyz 200).
func startSelfhost(t *testing.T, cfg, cache string, extra ...string) *selfhostProc {
	t.Helper()
	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	p := &selfhostProc{url: "http://" + addr, logs: &syncBuffer{}, done: make(chan error, 1)}
	args := append([]string{"selfhost", "--config", cfg, "--cache-dir", cache, "--addr", addr}, extra...)
	go func() { p.done <- cli.Run(ctx, args, noEnv, strings.NewReader(""), io.Discard, p.logs) }()
	var once sync.Once
	var stopErr error
	p.stop = func() error {
		once.Do(func() {
			cancel()
			select {
			case stopErr = <-p.done:
			case <-time.After(30 * time.Second):
				t.Error("selfhost did not stop within 30s")
			}
		})
		return stopErr
	}
	t.Cleanup(func() { p.stop() })
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-p.done:
			t.Fatalf("selfhost exited early: %v\n%s", err, p.logs.String())
		default:
		}
		if resp, err := http.Get(p.url + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return p
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("selfhost not ready after 20s:\n%s", p.logs.String())
	return nil
}

// readyVersion returns the version /readyz reports.
func (p *selfhostProc) readyVersion(t *testing.T) string {
	t.Helper()
	resp, err := http.Get(p.url + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r struct{ Version string }
	json.NewDecoder(resp.Body).Decode(&r)
	return r.Version
}

// get returns the status and body of a page of the self-hosted site.
func (p *selfhostProc) get(t *testing.T, path string) (int, string) {
	t.Helper()
	resp, err := http.Get(p.url + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// writeSelfhostConfig writes a selfhost configuration file.
func writeSelfhostConfig(t *testing.T, path, typ, link, version, features string) {
	t.Helper()
	pin := ""
	if version != "" {
		pin = fmt.Sprintf(", version: %q", version)
	}
	y := fmt.Sprintf("deployment: {type: %s}\nstaticExport: {enabled: true, bundleUrl: %q%s}\nfeatures: {%s}\n", typ, link, pin, features)
	if err := os.WriteFile(path, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
}

// exportLink publishes the repository's head through the real API and
// returns a fresh bundle link of an export of it.
func exportLink(t *testing.T, base, key, prj, domain string) map[string]any {
	t.Helper()
	if st := waitUpdate(t, base, key, trigger(t, base, key, prj)); st["status"] != "success" {
		t.Fatalf("update: %v", st)
	}
	code, job, _ := call(t, "POST", base+"/v1/static-export/jobs", key, map[string]any{"domain": domain})
	if code != 202 {
		t.Fatalf("start export: %d %v", code, job)
	}
	if final := pollExport(t, base, key, job["jobId"].(string), false); final["status"] != "completed" {
		t.Fatalf("export: %v", final)
	}
	return bundleLink(t, base, key, job["jobId"].(string))
}

// TestSelfhostEndToEnd exports a site through the real API and serves it
// with lectern selfhost: pages and 404s, the features, a version pin, a
// re-apply by SIGHUP, and an expired link with and without a cache.
func TestSelfhostEndToEnd(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	srv := startServe(t, data, "--bundle-url-ttl", "3s")
	org := lastLine(lectern(t, "admin", "--data-dir", data, "org", "create", "--name", "Acme", "--plan", "enterprise"))
	repo, sha1 := newRepo(t, smallSite("Install the **acme** CLI."))
	prj := lastLine(lectern(t, "admin", "--data-dir", data, "project", "create", "--org", org, "--name", "Docs",
		"--repo", repo, "--domain", "docs.acme.test"))
	key := lastLine(lectern(t, "admin", "--data-dir", data, "key", "create", "--org", org, "--name", "ci"))
	link1 := exportLink(t, srv.url, key, prj, "docs.acme.test")
	url1 := link1["bundleUrl"].(string)
	signature := mustQuery(t, url1).Get("signature")

	dir := t.TempDir()
	cfg, cacheA := filepath.Join(dir, "lectern.yaml"), filepath.Join(dir, "cache-a")
	writeSelfhostConfig(t, cfg, "client-hosted", url1, "", "search: true")
	a := startSelfhost(t, cfg, cacheA, "--watch-interval", "0")

	t.Log("pages, clean URLs and 404s")
	v1 := a.readyVersion(t)
	if !strings.HasPrefix(v1, sha1[:12]) {
		t.Fatalf("served version %q, want the commit %s", v1, sha1[:12])
	}
	for _, p := range []string{"/quickstart", "/quickstart/"} {
		if code, body := a.get(t, p); code != 200 || !strings.Contains(body, "acme</strong> CLI") || !strings.Contains(body, `class="lc-search-button"`) {
			t.Fatalf("%s: %d %.300s", p, code, body)
		}
	}
	if code, body := a.get(t, "/"); code != 200 || !strings.Contains(body, "quickstart</strong> first") {
		t.Fatalf("home: %d %.300s", code, body)
	}
	if code, body := a.get(t, "/no/such/page"); code != 404 || !strings.Contains(body, "<html") {
		t.Fatalf("missing page: %d %.200s", code, body)
	}
	// search.js, named by its content, as the page links to it.
	_, page := a.get(t, "/quickstart")
	searchJS := regexp.MustCompile(`src="(_lectern/search\.[0-9a-f]{10}\.js)"`).FindStringSubmatch(page)
	if searchJS == nil {
		t.Fatalf("the page loads no search.js:\n%.2000s", page)
	}
	if code, _ := a.get(t, "/"+searchJS[1]); code != 200 {
		t.Fatalf("search.js with search on: %d", code)
	}

	t.Log("a version pin that does not match is refused")
	writeSelfhostConfig(t, filepath.Join(dir, "pinned.yaml"), "client-hosted", url1, "not-this-version", "")
	_, _, err := runSelfhost(t, nil, "--config", filepath.Join(dir, "pinned.yaml"), "--cache-dir", filepath.Join(dir, "cache-pin"), "--addr", freeAddr(t))
	if err == nil || cli.ExitCode(err) == 0 || !strings.Contains(err.Error(), `staticExport.version pins "not-this-version"`) {
		t.Fatalf("wrong pin: %v", err)
	}

	t.Log("re-apply by SIGHUP: new content, search off")
	sha2 := commitFiles(t, repo, map[string]string{"quickstart.mdx": "---\ntitle: Quickstart\n---\n\nVersion two of the docs.\n"}, "Second version")
	link2 := exportLink(t, srv.url, key, prj, "docs.acme.test")
	writeSelfhostConfig(t, cfg, "client-hosted", link2["bundleUrl"].(string), "", "search: false")
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for a.readyVersion(t) == v1 {
		if time.Now().After(deadline) {
			t.Fatalf("SIGHUP did not switch:\n%s", a.logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	v2 := a.readyVersion(t)
	if !strings.HasPrefix(v2, sha2[:12]) {
		t.Fatalf("after re-apply serving %q, want %s", v2, sha2[:12])
	}
	if code, body := a.get(t, "/quickstart"); code != 200 || !strings.Contains(body, "Version two") || strings.Contains(body, "search") {
		t.Fatalf("re-applied page: %d %.400s", code, body)
	}
	if code, _ := a.get(t, "/"+searchJS[1]); code != 404 {
		t.Fatalf("search.js with search off: %d", code)
	}
	if err := a.stop(); err != nil {
		t.Fatalf("selfhost stop: %v", err)
	}

	t.Log("the first link expires")
	exp1, _ := time.Parse(time.RFC3339, link1["expiresAt"].(string))
	time.Sleep(time.Until(exp1) + 1100*time.Millisecond)
	if code := getStatus(t, url1); code != 403 {
		t.Fatalf("expired link: %d", code)
	}

	t.Log("expired, unpinned: the version served last")
	writeSelfhostConfig(t, cfg, "client-hosted", url1, "", "")
	b := startSelfhost(t, cfg, cacheA)
	if got := b.readyVersion(t); got != v2 {
		t.Fatalf("unpinned with a cache: serving %q, want the last served %q", got, v2)
	}
	if logs := b.logs.String(); !strings.Contains(logs, "the bundle link expired at "+exp1.UTC().Format(time.RFC3339)) {
		t.Fatalf("no warning with the expiry:\n%s", logs)
	}
	b.stop()

	t.Log("expired, pinned to a cached version: served with a warning")
	writeSelfhostConfig(t, cfg, "client-hosted", url1, v1, "")
	c := startSelfhost(t, cfg, cacheA)
	if got := c.readyVersion(t); got != v1 {
		t.Fatalf("pinned cached: serving %q", got)
	}
	if logs := c.logs.String(); !strings.Contains(logs, "level=WARN") || !strings.Contains(logs, "link_expired_at="+exp1.UTC().Format(time.RFC3339)) {
		t.Fatalf("no warning with the expiry:\n%s", logs)
	}
	c.stop()

	t.Log("expired, no cache: one clear line, non-zero exit")
	writeSelfhostConfig(t, cfg, "client-hosted", url1, "", "")
	_, stderr, err := runSelfhost(t, nil, "--config", cfg, "--cache-dir", filepath.Join(dir, "cache-empty"), "--addr", freeAddr(t))
	if err == nil || cli.ExitCode(err) == 0 || strings.Contains(err.Error(), "\n") ||
		!strings.HasPrefix(err.Error(), "the bundle link expired at "+exp1.UTC().Format(time.RFC3339)) ||
		!strings.Contains(err.Error(), "generate a new bundle") || !strings.Contains(err.Error(), "re-apply the configuration") {
		t.Fatalf("no cache: %v", err)
	}

	t.Log("the link's signature never reaches a log")
	for _, logs := range []string{a.logs.String(), b.logs.String(), c.logs.String(), stderr, err.Error()} {
		if strings.Contains(logs, signature) {
			t.Fatalf("signature in the output:\n%s", logs)
		}
	}
}

func mustQuery(t *testing.T, link string) url.Values {
	t.Helper()
	u, err := url.Parse(link)
	if err != nil || u.Query().Get("signature") == "" {
		t.Fatalf("link %q has no signature: %v", link, err)
	}
	return u.Query()
}
