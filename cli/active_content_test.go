package cli_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"lectern.dev/lectern/internal/browsertest"
)

// TestActiveContentBrowser deploys a repository full of ways to run script
// (browsertest.ActiveContentRepo) and opens it in Chromium, clicking what
// could run, on (a) a live site of lectern serve, (b) lectern selfhost
// serving its export, and (c) a lectern build --export opened from
// file://: no vector may run. A second project of the same repository,
// created with --custom-scripts, does run the repository's custom.js.
func TestActiveContentBrowser(t *testing.T) {
	browserCtx, cancel := browsertest.Start(t, context.Background())
	defer cancel()
	data := t.TempDir()
	srv := startServe(t, data, "--bundle-url-ttl", "10m")
	org := lastLine(lectern(t, "admin", "--data-dir", data, "org", "create", "--name", "Acme", "--plan", "enterprise"))
	files := browsertest.ActiveContentRepo()
	repo, _ := newRepo(t, files)
	prj := lastLine(lectern(t, "admin", "--data-dir", data, "project", "create", "--org", org, "--name", "Vectors",
		"--repo", repo, "--domain", "vectors.localhost"))
	custom := lastLine(lectern(t, "admin", "--data-dir", data, "project", "create", "--org", org, "--name", "Custom",
		"--repo", repo, "--domain", "custom.localhost", "--custom-scripts"))
	key := lastLine(lectern(t, "admin", "--data-dir", data, "key", "create", "--org", org, "--name", "ci"))
	for _, p := range []string{prj, custom} {
		if st := waitUpdate(t, srv.url, key, trigger(t, srv.url, key, p)); st["status"] != "success" {
			t.Fatalf("update: %v", st)
		}
	}
	port := srv.url[strings.LastIndex(srv.url, ":"):]

	t.Run("live", func(t *testing.T) {
		origin := "http://vectors.localhost" + port
		browsertest.ProbeInert(t, browserCtx, []string{origin}, origin+"/", origin+"/evil.svg", origin+"/raw.html", origin+"/evil.js")
	})

	t.Run("live with custom scripts", func(t *testing.T) {
		origin := "http://custom.localhost" + port
		tab := browsertest.NewTab(t, browserCtx, browsertest.Options{Origins: []string{origin}})
		tab.Visit(origin + "/")
		got, _ := tab.Eval("custom script", `String(document.documentElement.dataset.customScript)`)
		if got != "ran" {
			t.Errorf("with --custom-scripts, the repository's custom.js did not run (data-custom-script = %q)", got)
		}
		tab.Take() // the vectors the page still blocks
	})

	t.Run("selfhost", func(t *testing.T) {
		link := exportLink(t, srv.url, key, prj, "vectors.localhost")
		dir := t.TempDir()
		cfg := filepath.Join(dir, "lectern.yaml")
		writeSelfhostConfig(t, cfg, "client-hosted", link["bundleUrl"].(string), "", "search: true")
		sh := startSelfhost(t, cfg, filepath.Join(dir, "cache"), "--watch-interval", "0")
		origin := sh.url
		browsertest.ProbeInert(t, browserCtx, []string{origin}, origin+"/", origin+"/evil.svg", origin+"/raw.html", origin+"/evil.js")
	})

	t.Run("export from file", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "site")
		lectern(t, "build", "--export", "--out", out, repo)
		// The export leaves out evil.svg, which could run script opened
		// directly, where no header sandboxes it.
		if _, err := os.Stat(filepath.Join(out, "evil.svg")); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("the export has evil.svg (%v)", err)
		}
		browsertest.ProbeInert(t, browserCtx, []string{"file://"}, "file://"+out+"/index.html", "file://"+out+"/raw.html")
	})

	t.Run("export with custom scripts", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "site")
		lectern(t, "build", "--export", "--custom-scripts", "--out", out, repo)
		tab := browsertest.NewTab(t, browserCtx, browsertest.Options{Origins: []string{"file://"}})
		tab.Visit("file://" + out + "/index.html")
		got, _ := tab.Eval("custom script", `String(document.documentElement.dataset.customScript)`)
		if got != "ran" {
			t.Errorf("with --custom-scripts, the export's custom.js did not run (data-custom-script = %q)", got)
		}
		tab.Take() // the vectors the page still blocks
	})
}
