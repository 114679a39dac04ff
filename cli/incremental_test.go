package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"lectern.dev/lectern/internal/precompress"
)

// deploymentManifest reads the manifest of a deployment of the project
// from the blob folder of data.
func deploymentManifest(t *testing.T, data, project, deployment string) *precompress.Manifest {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(data, "blobs", "sites", project, deployment, "files.json"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := precompress.ParseManifest(raw)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

var newFiles = regexp.MustCompile(`\((\d+) files, (\d+) new: `)

// updateOf triggers an update and waits for its success; it returns the
// deployment and how many of its files were new.
func updateOf(t *testing.T, base, key, project string) (string, string) {
	t.Helper()
	st := waitUpdate(t, base, key, trigger(t, base, key, project))
	if st["status"] != "success" {
		t.Fatalf("update: %v", st)
	}
	stored := ""
	for _, l := range st["logs"].([]any) {
		if m := newFiles.FindStringSubmatch(l.(string)); m != nil {
			stored = m[2]
		}
	}
	return liveOf(t, base, key, project), stored
}

// liveOf returns the project's live deployment, as the API says.
func liveOf(t *testing.T, base, key, project string) string {
	t.Helper()
	code, p, _ := call(t, "GET", base+"/v1/projects/"+project, key, nil)
	live, _ := p["liveDeploymentId"].(string)
	if code != 200 || live == "" {
		t.Fatalf("GET the project: %d %v", code, p)
	}
	return live
}

// sameFiles fails unless two manifests list the same files with the same
// content.
func sameFiles(t *testing.T, what string, a, b *precompress.Manifest) {
	t.Helper()
	if len(a.Files) != len(b.Files) {
		t.Errorf("%s: %d files against %d", what, len(a.Files), len(b.Files))
	}
	for name, f := range a.Files {
		if g, ok := b.Files[name]; !ok || g.Hash != f.Hash {
			t.Errorf("%s: %s is %+v against %+v", what, name, f, g)
		}
	}
}

// TestIncrementalDeploy: an update that changes one page renders and
// stores that change only, from the worker's build cache, and publishes a
// deployment byte for byte that of a build from nothing (its cache
// removed). A worker killed with SIGKILL in the middle of an update leaves
// a cache that is not trusted: the update taken over after the restart
// builds from nothing and publishes the same deployment again.
func TestIncrementalDeploy(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	t.Parallel()
	bin := lecternBinary(t)
	corpus, _ := filepath.Abs("../../shared/corpus/mintlify-starter")
	repo := corpusRepo(t, corpus)
	data := t.TempDir()
	addr := freeAddr(t)
	base := "http://" + addr
	p := startProc(t, bin, addr, data)
	org := lastLine(lectern(t, "admin", "--data-dir", data, "org", "create", "--name", "Acme", "--plan", "enterprise"))
	prj := lastLine(lectern(t, "admin", "--data-dir", data, "project", "create", "--org", org, "--name", "Docs", "--repo", repo, "--domain", "docs.acme.test"))
	key := lastLine(lectern(t, "admin", "--data-dir", data, "key", "create", "--org", org, "--name", "ci"))
	cache := filepath.Join(data, "build-cache")

	first, stored := updateOf(t, base, key, prj)
	all := deploymentManifest(t, data, prj, first)
	if stored != "" && stored == "0" {
		t.Fatalf("the first update stored no file")
	}
	if _, err := os.Stat(filepath.Join(cache, prj, "site", "index.html")); err != nil {
		t.Fatalf("the worker kept no build of the project: %v", err)
	}

	edit := func(text string) {
		page := filepath.Join(repo, "quickstart.mdx")
		body, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(page, append(body, []byte("\n\n"+text+"\n")...), 0o644); err != nil {
			t.Fatal(err)
		}
		git(t, repo, "commit", "-q", "-am", text)
	}
	edit("One line changed.")
	second, stored := updateOf(t, base, key, prj)
	inc := deploymentManifest(t, data, prj, second)
	if n := len(inc.Files); stored == "" || stored == "0" || len(stored) > 2 || n < 50 {
		t.Errorf("a one-page change stored %s of %d files, want a few", stored, n)
	}
	if code, body := page(t, base, "docs.acme.test", "/quickstart"); code != 200 || !strings.Contains(body, "One line changed.") {
		t.Errorf("the live page does not show the change: %d", code)
	}
	if m := regexp.MustCompile(`(?m)^lectern_site_cache_bytes (\d\S*)$`).FindStringSubmatch(metrics(t, base)); m == nil || m[1] == "0" {
		t.Errorf("/metrics says the live sites' memory cache holds %v after a page was served, want some bytes", m)
	}
	changed := 0
	for name, f := range inc.Files {
		if all.Files[name].Hash != f.Hash {
			changed++
		}
	}
	if changed == 0 || changed > 12 {
		t.Errorf("%d files differ from the first deployment, want the page and the files that list it", changed)
	}

	// The same commit built from nothing: the same deployment, nothing new stored.
	if err := os.RemoveAll(cache); err != nil {
		t.Fatal(err)
	}
	third, stored := updateOf(t, base, key, prj)
	sameFiles(t, "incremental against from nothing", inc, deploymentManifest(t, data, prj, third))
	if stored != "0" {
		t.Errorf("a rebuild of the same commit stored %s files, want 0", stored)
	}

	// Killed in the middle of a (slowed) update; restarted, the update
	// is taken over and built from nothing.
	p.cmd.Process.Signal(syscall.SIGTERM)
	<-p.exited
	p = startProc(t, bin, addr, data, "--render-page-delay", "300ms")
	os.RemoveAll(cache) // all pages rendered again, slowly
	edit("Another line.")
	id := trigger(t, base, key, prj)
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(cache, prj, "building")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the update never started building")
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(600 * time.Millisecond)
	p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.exited
	p = startProc(t, bin, addr, data)
	st := waitUpdate(t, base, key, id)
	if st["status"] != "success" {
		t.Fatalf("the update after SIGKILL: %v\n%s", st, p.logs.String())
	}
	killed := deploymentManifest(t, data, prj, liveOf(t, base, key, prj))
	if _, err := os.Stat(filepath.Join(cache, prj, "building")); err == nil {
		t.Error("the build cache is still marked unfinished after the update succeeded")
	}
	os.RemoveAll(cache)
	again, stored := updateOf(t, base, key, prj)
	sameFiles(t, "after SIGKILL against from nothing", killed, deploymentManifest(t, data, prj, again))
	if stored != "0" {
		t.Errorf("a rebuild of the same commit after the crash stored %s files, want 0", stored)
	}
	raw, _ := json.Marshal(killed.Files["quickstart.md"])
	if code, body := page(t, base, "docs.acme.test", "/quickstart"); code != 200 || !strings.Contains(body, "Another line.") {
		t.Errorf("the live page after the crash does not show the change: %d %s", code, raw)
	}
}
