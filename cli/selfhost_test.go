package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	lecternpkg "lectern.dev/lectern"
	"lectern.dev/lectern/bundle"
	"lectern.dev/lectern/cli"
	"lectern.dev/lectern/render"
	"lectern.dev/lectern/render/features"
	"lectern.dev/lectern/render/output"
)

// runSelfhost runs "lectern selfhost args..." to its end with the given
// environment and returns stdout, stderr and the error.
func runSelfhost(t *testing.T, env map[string]string, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	err := cli.Run(context.Background(), append([]string{"selfhost"}, args...), func(k string) string { return env[k] },
		strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), err
}

func TestSelfhostCheck(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "lectern.yaml")
	os.WriteFile(cfg, []byte(`deployment: {type: client-hosted}
staticExport: {enabled: true, bundleUrl: "https://docs.acme.test/_lectern/download/b.tar.gz?expires=4102444800&nonce=n&signature=topsecret"}
features: {search: true}
`), 0o644)
	out, _, err := runSelfhost(t, map[string]string{"LECTERN_CACHE_DIR": "/var/cache/lectern"}, "--config", cfg, "--check", "--addr", "0.0.0.0:9000")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"is valid", "client-hosted", "?***", "expires 2100-01-01T00:00:00Z", "features.search          on",
		"features.analytics       off", "addr                     0.0.0.0:9000", "cache-dir                /var/cache/lectern"} {
		if !strings.Contains(out, want) {
			t.Errorf("--check output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "topsecret") {
		t.Errorf("--check shows the signature:\n%s", out)
	}

	t.Log("an unavailable feature is refused, naming feature and type")
	_, _, err = runSelfhost(t, map[string]string{"LECTERN_DEPLOYMENT_TYPE": "air-gapped"}, "--config", cfg, "--check")
	if err == nil || !strings.Contains(err.Error(), "features.search: feature search is unavailable for deployment type air-gapped") {
		t.Fatalf("air-gapped search: %v", err)
	}
	if cli.ExitCode(err) == 0 {
		t.Fatal("exit code 0")
	}

	t.Log("no configuration at all")
	_, _, err = runSelfhost(t, nil, "--check")
	if err == nil || !strings.Contains(err.Error(), "--config") || !strings.Contains(err.Error(), "deployment.type: missing") {
		t.Fatalf("no configuration: %v", err)
	}
}

// TestSelfhostOwnAnalytics: lectern selfhost keygen makes a key that the
// own analytics' read API takes; --check shows the analytics (never the
// key) and their project; events posted before a stop are recorded by it,
// and lectern analytics reads them from selfhost after a restart.
func TestSelfhostOwnAnalytics(t *testing.T) {
	t.Parallel()
	key := strings.TrimSpace(lectern(t, "selfhost", "keygen"))
	if err := lecternpkg.CheckAPIKey(key); err != nil || key == strings.TrimSpace(lectern(t, "selfhost", "keygen")) {
		t.Fatalf("keygen: %v", err)
	}
	dir := t.TempDir()
	keyFile, cfg, cache := filepath.Join(dir, "key"), filepath.Join(dir, "lectern.yaml"), filepath.Join(dir, "cache")
	os.WriteFile(keyFile, []byte(key+"\n"), 0o600)
	bundlePath := filepath.Join(dir, "docs.tar.gz")
	writeBundle(t, bundlePath)
	os.WriteFile(cfg, []byte(fmt.Sprintf("deployment: {type: client-hosted}\nstaticExport: {enabled: true, bundleUrl: %q}\n"+
		"features: {analytics: true}\nanalytics: {apiKeyFile: %q}\n", bundlePath, keyFile)), 0o644)
	check := func() string {
		out, _, err := runSelfhost(t, nil, "--config", cfg, "--cache-dir", cache, "--check")
		if err != nil || strings.Contains(out, key) || !strings.Contains(out, "analytics.endpoint       selfhost's own, /_lectern/analytics") ||
			!strings.Contains(out, "analytics.apiKey         set") {
			t.Fatalf("--check: %v\n%s", err, out)
		}
		return out
	}
	if out := check(); !strings.Contains(out, "analytics.project        none yet") {
		t.Fatalf("--check before the first start:\n%s", out)
	}

	p := startSelfhost(t, cfg, cache, "--watch-interval", "0")
	var ready struct{ AnalyticsProject string }
	_, body := p.get(t, "/readyz")
	json.Unmarshal([]byte(body), &ready)
	id := ready.AnalyticsProject
	if id == "" || !strings.Contains(p.logs.String(), "project="+id) {
		t.Fatalf("readyz %s; logs:\n%s", body, p.logs.String())
	}
	for _, path := range []string{"/quickstart", "/quickstart", "/"} {
		req, _ := http.NewRequest("POST", p.url+"/_lectern/analytics", strings.NewReader(`{"path":"`+path+`"}`))
		req.Header.Set("User-Agent", "Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0")
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != 204 {
			t.Fatalf("beacon %s: %v %v", path, resp, err)
		}
		resp.Body.Close()
	}
	if err := p.stop(); err != nil {
		t.Fatal(err)
	}
	if out := check(); !strings.Contains(out, "analytics.project        "+id) {
		t.Fatalf("--check after a start does not show project %s:\n%s", id, out)
	}

	p = startSelfhost(t, cfg, cache, "--watch-interval", "0")
	out := lectern(t, "analytics", id, "--api-url", p.url, "--api-key-file", keyFile, "--json")
	var r struct {
		Views struct {
			Totals struct{ Views, Visitors int64 }
			Pages  []struct {
				Path  string
				Views int64
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if v := r.Views; v.Totals.Views != 3 || v.Totals.Visitors != 1 || len(v.Pages) != 2 || v.Pages[0].Path != "/quickstart" || v.Pages[0].Views != 2 {
		t.Fatalf("views read from selfhost: %+v", v)
	}
}

// writeBundle exports a two-page site, every feature marked, as a bundle
// file.
func writeBundle(t *testing.T, name string) {
	t.Helper()
	src := fstest.MapFS{
		"docs.json":      {Data: []byte(`{"name":"Acme","navigation":{"groups":[{"group":"Start","pages":["index","quickstart"]}]}}`)},
		"index.mdx":      {Data: []byte("---\ntitle: Welcome\n---\n\nAcme docs.\n")},
		"quickstart.mdx": {Data: []byte("---\ntitle: Quickstart\n---\n\nInstall the acme CLI.\n")},
	}
	out := t.TempDir()
	all := features.All()
	if _, err := render.Build(context.Background(), src, output.Dir{Dir: out}, render.Options{Export: true, Features: &all}); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := bundle.Write(context.Background(), f, os.DirFS(out), bundle.Manifest{Version: "v1", Domain: "docs.acme.test", CreatedAt: time.Now().UTC()}); err != nil {
		t.Fatal(err)
	}
}
