package cli_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"lectern.dev/lectern/bundle"
)

const smallDocs = `{"name": "Acme Docs", "navigation": {"groups": [{"group": "Start", "pages": ["index", "quickstart"]}]}}`

func smallSite(quickstart string) map[string]string {
	return map[string]string{
		"docs.json": smallDocs,
		// The page links to the download: a file of a type a docs site
		// does not serve by itself is published only then.
		"index.mdx":      "---\ntitle: Welcome\n---\n\n<Note>Read the **quickstart** first.</Note>\n\n[Settings](/downloads/settings.attrs)\n",
		"quickstart.mdx": "---\ntitle: Quickstart\n---\n\n" + quickstart + "\n",
		// A name the file blob store reserves for itself.
		"downloads/settings.attrs": "colour = green\n",
		// Left out of the live site and of exports, which build from the
		// source snapshot.
		".mintignore":    "drafts/\n",
		"drafts/wip.mdx": "# Work in progress\n",
	}
}

// TestServeEndToEnd drives the core service as a user does: admin commands
// against a running server, updates from a real git repository, the live
// site by Host, and an export from start to downloaded bundle.
func TestServeEndToEnd(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	srv := startServe(t, data, "--bundle-url-ttl", "3s")
	base := srv.url

	org := lastLine(lectern(t, "admin", "--data-dir", data, "org", "create", "--name", "Acme", "--plan", "enterprise"))
	repo, sha1 := newRepo(t, smallSite("Install the **acme** CLI."))
	prj := lastLine(lectern(t, "admin", "--data-dir", data, "project", "create", "--org", org, "--name", "Docs",
		"--repo", repo, "--domain", "docs.acme.test", "--domain", "Help.Acme.Test"))
	key := lastLine(lectern(t, "admin", "--data-dir", data, "key", "create", "--org", org, "--name", "ci"))
	if !strings.HasPrefix(org, "org_") || !strings.HasPrefix(prj, "prj_") || !strings.HasPrefix(key, "lct_") {
		t.Fatalf("admin output: %q %q %q", org, prj, key)
	}

	t.Log("first update goes live")
	st := waitUpdate(t, base, key, trigger(t, base, key, prj))
	if st["status"] != "success" {
		t.Fatalf("update: %v", st)
	}
	commit, _ := st["commit"].(map[string]any)
	if commit["sha"] != sha1 || commit["ref"] != "refs/heads/main" || commit["message"] != "Initial docs" {
		t.Fatalf("commit %v, want %s", commit, sha1)
	}
	if st["startedAt"] == nil || st["endedAt"] == nil || len(st["logs"].([]any)) == 0 || !strings.Contains(st["summary"].(string), "2 pages") {
		t.Fatalf("status lacks times, logs or summary: %v", st)
	}
	for _, host := range []string{"docs.acme.test", "help.acme.test:8080"} {
		code, body := page(t, base, host, "/quickstart")
		if code != 200 || !strings.Contains(body, "acme</strong> CLI") {
			t.Fatalf("live page on %s: %d %.300s", host, code, body)
		}
	}
	if code, body := page(t, base, "docs.acme.test", "/downloads/settings.attrs"); code != 200 || body != "colour = green\n" {
		t.Fatalf("reserved file name: %d %q", code, body)
	}
	if code, body := page(t, base, "docs.acme.test", "/no/such/page"); code != 404 || !strings.Contains(body, "<html") {
		t.Fatalf("missing page: %d %.200s", code, body)
	}

	t.Log("a broken docs.json fails and leaves the live site")
	commitFiles(t, repo, map[string]string{"docs.json": `{"name": "Acme", "navigation": [`, "quickstart.mdx": "broken version"}, "Break config")
	st = waitUpdate(t, base, key, trigger(t, base, key, prj))
	if st["status"] != "failure" || !strings.Contains(st["summary"].(string), "docs.json") {
		t.Fatalf("broken config: %v", st)
	}
	if _, body := page(t, base, "docs.acme.test", "/quickstart"); !strings.Contains(body, "acme</strong> CLI") {
		t.Fatal("failed update changed the live site")
	}

	t.Log("a navigation page that does not exist fails, naming it")
	commitFiles(t, repo, map[string]string{"docs.json": strings.Replace(smallDocs, `"quickstart"]`, `"quickstart", "guides/missing"]`, 1),
		"quickstart.mdx": "v2"}, "Add missing page")
	st = waitUpdate(t, base, key, trigger(t, base, key, prj))
	logs, _ := json.Marshal(st["logs"])
	if st["status"] != "failure" || !strings.Contains(st["summary"].(string), "guides/missing") || !strings.Contains(string(logs), "docs.json") {
		t.Fatalf("missing page: %v", st)
	}

	t.Log("a fixed site goes live")
	sha3 := commitFiles(t, repo, map[string]string{"docs.json": smallDocs, "quickstart.mdx": "---\ntitle: Quickstart\n---\nVersion three.\n"}, "Fix")
	st = waitUpdate(t, base, key, trigger(t, base, key, prj))
	if st["status"] != "success" || st["commit"].(map[string]any)["sha"] != sha3 {
		t.Fatalf("fix: %v", st)
	}
	if _, body := page(t, base, "docs.acme.test", "/quickstart"); !strings.Contains(body, "Version three.") {
		t.Fatal("new deployment not served")
	}

	t.Log("an export moves, completes and bundles")
	code, job, hdr := call(t, "POST", base+"/v1/static-export/jobs", key, map[string]any{"domain": "DOCS.acme.test"})
	jobID, _ := job["jobId"].(string)
	if code != 202 || job["status"] != "queued" || job["domain"] != "docs.acme.test" || hdr.Get("Location") != "/v1/static-export/jobs/"+jobID {
		t.Fatalf("start export: %d %v %v", code, job, hdr)
	}
	final := pollExport(t, base, key, jobID, false)
	if final["status"] != "completed" || final["progress"].(float64) != 100 || final["pageCount"].(float64) != 2 {
		t.Fatalf("export: %v", final)
	}
	link1 := bundleLink(t, base, key, jobID)
	time.Sleep(1100 * time.Millisecond)
	link2 := bundleLink(t, base, key, jobID)
	if link1["bundleUrl"] == link2["bundleUrl"] || link1["expiresAt"].(string) >= link2["expiresAt"].(string) {
		t.Fatalf("second bundle call did not sign a fresh link: %v then %v", link1, link2)
	}
	download(t, link1, "docs.acme.test-export-")
	if link1["sha256"] != link2["sha256"] || link1["sizeBytes"] != link2["sizeBytes"] {
		t.Fatal("the archive changed between bundle calls")
	}
	m := download(t, link2, "docs.acme.test-export-")
	if m.JobID != jobID || m.Domain != "docs.acme.test" || m.PageCount != 2 || !strings.Contains(m.Version, sha3[:12]) {
		t.Fatalf("manifest %+v", m)
	}
	have := map[string]bool{}
	for _, f := range m.Files {
		have[f.Path] = true
	}
	if have["drafts/wip.html"] {
		t.Errorf("the bundle holds a page .mintignore leaves out")
	}
	for _, want := range []string{"index.html", "quickstart.html", "404.html", "sitemap.xml"} {
		if !have[want] {
			t.Errorf("bundle lacks %s: %v", want, have)
		}
	}
	tampered := strings.Replace(link2["bundleUrl"].(string), "signature=", "signature=x", 1)
	if code := getStatus(t, tampered); code != 403 {
		t.Fatalf("tampered link: %d", code)
	}
	time.Sleep(4 * time.Second)
	if code := getStatus(t, link2["bundleUrl"].(string)); code != 403 {
		t.Fatalf("expired link: %d", code)
	}
	download(t, bundleLink(t, base, key, jobID), "docs.acme.test-export-")

	t.Log("no key in the logs")
	if strings.Contains(srv.logs.String(), key) || strings.Contains(srv.logs.String(), key[4:20]) {
		t.Fatal("the API key appears in the server log")
	}
	srv.stop()
}

// pollExport polls a job until it is terminal, checking that progress and
// pageCount never decrease and that progress was seen moving.
func pollExport(t testing.TB, base, key, id string, wantMoving bool) map[string]any {
	t.Helper()
	lastP, lastN, seen := -1.0, -1.0, map[float64]bool{}
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		code, j, _ := call(t, "GET", base+"/v1/static-export/jobs/"+id, key, nil)
		if code != 200 {
			t.Fatalf("job %s: %d %v", id, code, j)
		}
		p, n := j["progress"].(float64), j["pageCount"].(float64)
		if p < lastP || n < lastN || p > 100 || (p == 100) != (j["status"] == "completed") {
			t.Fatalf("progress went %v -> %v, pages %v -> %v (status %v)", lastP, p, lastN, n, j["status"])
		}
		lastP, lastN = p, n
		seen[p] = true
		if j["status"] == "completed" || j["status"] == "failed" {
			if wantMoving && j["status"] == "completed" && len(seen) < 4 {
				t.Errorf("progress seen only at %v", seen)
			}
			return j
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("export %s not finished", id)
	return nil
}

func bundleLink(t testing.TB, base, key, id string) map[string]any {
	t.Helper()
	code, b, _ := call(t, "POST", base+"/v1/static-export/jobs/"+id+"/bundle", key, nil)
	if code != 200 || b["jobId"] != id || b["bundleUrl"] == nil || b["expiresAt"] == nil {
		t.Fatalf("bundle: %d %v", code, b)
	}
	exp, err := time.Parse(time.RFC3339, b["expiresAt"].(string))
	if err != nil || !exp.After(time.Now()) {
		t.Fatalf("expiresAt %v: %v", b["expiresAt"], err)
	}
	return b
}

func getStatus(t testing.TB, url string) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// download fetches a bundle link without credentials, checks its sha256
// and verifies the archive.
func download(t testing.TB, link map[string]any, namePrefix string) bundle.Manifest {
	t.Helper()
	resp, err := http.Get(link["bundleUrl"].(string))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("download: %d %s", resp.StatusCode, data)
	}
	sum := sha256.Sum256(data)
	if hex.EncodeToString(sum[:]) != link["sha256"] || float64(len(data)) != link["sizeBytes"] {
		t.Fatalf("download: sha256/size mismatch")
	}
	if cd := resp.Header.Get("Content-Disposition"); !strings.Contains(cd, namePrefix) || !strings.Contains(cd, ".tar.gz") {
		t.Fatalf("Content-Disposition %q", cd)
	}
	m, err := bundle.Read(bytes.NewReader(data), bundle.Limits{}, nil)
	if err != nil {
		t.Fatalf("bundle does not verify: %v", err)
	}
	return m
}

// TestServeCorpusStarter publishes and exports the Mintlify starter kit,
// read in place from the shared corpus.
func TestServeCorpusStarter(t *testing.T) {
	t.Parallel()
	corpus, _ := filepath.Abs("../../shared/corpus/mintlify-starter")
	repo := corpusRepo(t, corpus)
	data := t.TempDir()
	srv := startServe(t, data, "--render-page-delay", "60ms")
	org := lastLine(lectern(t, "admin", "--data-dir", data, "org", "create", "--name", "Mint", "--plan", "enterprise"))
	prj := lastLine(lectern(t, "admin", "--data-dir", data, "project", "create", "--org", org, "--name", "Starter",
		"--repo", "file://"+repo, "--domain", "starter.docs.test"))
	key := lastLine(lectern(t, "admin", "--data-dir", data, "key", "create", "--org", org, "--name", "ci"))
	st := waitUpdate(t, srv.url, key, trigger(t, srv.url, key, prj))
	if st["status"] != "success" || !strings.Contains(st["summary"].(string), "18 pages") { // 17 navigation pages and SOURCE.md, unlisted
		t.Fatalf("starter update: %v", st)
	}
	for _, p := range []string{"/", "/quickstart", "/essentials/markdown", "/api-reference/endpoint/get"} {
		if code, _ := page(t, srv.url, "starter.docs.test", p); code != 200 {
			t.Errorf("%s: %d", p, code)
		}
	}
	_, job, _ := call(t, "POST", srv.url+"/v1/static-export/jobs", key, map[string]any{"domain": "starter.docs.test", "basePath": "/docs"})
	final := pollExport(t, srv.url, key, job["jobId"].(string), true)
	if final["status"] != "completed" || final["pageCount"].(float64) != 18 { // 17 navigation pages and SOURCE.md, unlisted
		t.Fatalf("starter export: %v", final)
	}
	m := download(t, bundleLink(t, srv.url, key, final["jobId"].(string)), "starter.docs.test-export-")
	if m.PageCount != 18 {
		t.Fatalf("manifest pageCount %d", m.PageCount)
	}
}
