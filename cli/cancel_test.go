package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// bigSite is a site of n pages, each with some prose and a code block,
// navigation from the folder tree.
func bigSite(n int) map[string]string {
	files := map[string]string{}
	for i := range n {
		var b strings.Builder
		fmt.Fprintf(&b, "---\ntitle: Page %d\n---\n\n", i)
		for p := range 12 {
			fmt.Fprintf(&b, "## Part %d\n\nThe worker %d reads the queue, retries the request and writes the record of page %d.\n\n", p, p, i)
		}
		b.WriteString("```go\nfunc main() {\n\tfmt.Println(\"hello\")\n}\n```\n")
		files[fmt.Sprintf("g%02d/p%04d.mdx", i/100, i)] = b.String()
	}
	return files
}

// TestCancelRunningJobs: against a real serve with one worker, an export
// of a 1,500-page site canceled while it renders ends canceled at once;
// its worker gives the job up within seconds (the server logs it), stores
// no bundle, and takes the next job; the domain can be exported again. A
// running update canceled the same way publishes nothing: the live
// deployment stays.
func TestCancelRunningJobs(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	srv := startServe(t, data, "--workers", "1", "--job-lease", "3s")
	admin := func(args ...string) string {
		return lastLine(lectern(t, append([]string{"admin", "--data-dir", data}, args...)...))
	}
	org := admin("org", "create", "--name", "Big", "--plan", "enterprise")
	repo, _ := newRepo(t, bigSite(1500))
	prj := admin("project", "create", "--org", org, "--name", "Big", "--repo", repo, "--domain", "big.acme.test")
	key := admin("key", "create", "--org", org, "--name", "ci")
	if st := waitUpdate(t, srv.url, key, trigger(t, srv.url, key, prj)); st["status"] != "success" {
		t.Fatalf("deploy: %v", st)
	}
	_, p, _ := call(t, "GET", srv.url+"/v1/projects/"+prj, key, nil)
	live := p["liveDeploymentId"]

	code, job, _ := call(t, "POST", srv.url+"/v1/static-export/jobs", key, map[string]string{"domain": "big.acme.test"})
	if code != 202 {
		t.Fatalf("start export: %d %v", code, job)
	}
	id := job["jobId"].(string)
	running := func(path string, isRunning func(map[string]any) bool) {
		t.Helper()
		for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			_, m, _ := call(t, "GET", srv.url+path, key, nil)
			if isRunning(m) {
				return
			}
		}
		t.Fatalf("%s did not start running", path)
	}
	running("/v1/static-export/jobs/"+id, func(m map[string]any) bool { return m["status"] == "running" && m["progress"].(float64) > 0 })
	canceledAt := time.Now()
	code, m, _ := call(t, "POST", srv.url+"/v1/static-export/jobs/"+id+"/cancel", key, nil)
	if code != 200 || m["status"] != "canceled" {
		t.Fatalf("cancel the running export: %d %v", code, m)
	}
	// The worker gives the job up: the runner logs it.
	gaveUp := func(job string) time.Duration {
		t.Helper()
		for time.Since(canceledAt) < 30*time.Second {
			for _, line := range strings.Split(srv.logs.String(), "\n") {
				if strings.Contains(line, job) && strings.Contains(line, "lease lost") {
					return time.Since(canceledAt)
				}
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Fatalf("the worker of %s did not give it up within 30s; logs:\n%s", job, srv.logs.String())
		return 0
	}
	t.Logf("the export's worker gave it up %s after the cancel", gaveUp(id).Round(time.Millisecond))
	if _, m, _ = call(t, "GET", srv.url+"/v1/static-export/jobs/"+id, key, nil); m["status"] != "canceled" || m["completedAt"] != nil {
		t.Errorf("the canceled export afterwards: %v", m)
	}
	if code, m, _ := call(t, "POST", srv.url+"/v1/static-export/jobs/"+id+"/bundle", key, nil); code != 409 || m["code"] != "job_failed" {
		t.Errorf("bundle of the canceled export: %d %v", code, m)
	}
	if files := filesUnder(t, filepath.Join(data, "blobs", "exports", id)); len(files) != 0 {
		t.Errorf("the canceled export left files: %v", files)
	}

	// A running update canceled: nothing published.
	upd := trigger(t, srv.url, key, prj)
	running("/v1/project/update-status/"+upd, func(m map[string]any) bool { return m["status"] == "in_progress" })
	canceledAt = time.Now()
	if code, m, _ := call(t, "POST", srv.url+"/v1/project/update-status/"+upd+"/cancel", key, nil); code != 200 || m["status"] != "canceled" {
		t.Fatalf("cancel the running update: %d %v", code, m)
	}
	t.Logf("the update's worker gave it up %s after the cancel", gaveUp(upd).Round(time.Millisecond))
	if _, p, _ := call(t, "GET", srv.url+"/v1/projects/"+prj, key, nil); p["liveDeploymentId"] != live {
		t.Errorf("the canceled update changed the live deployment to %v, want %v", p["liveDeploymentId"], live)
	}
	if _, deps, _ := call(t, "GET", srv.url+"/v1/projects/"+prj+"/deployments", key, nil); len(deps["items"].([]any)) != 1 {
		t.Errorf("deployments after the canceled update: %v", deps["items"])
	}

	// The one worker is free: a new export of the domain completes.
	code, job, _ = call(t, "POST", srv.url+"/v1/static-export/jobs", key, map[string]string{"domain": "big.acme.test"})
	if code != 202 {
		t.Fatalf("export again: %d %v", code, job)
	}
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		_, m, _ := call(t, "GET", srv.url+"/v1/static-export/jobs/"+job["jobId"].(string), key, nil)
		if m["status"] == "completed" {
			// Where a bundle is stored: the check of the canceled one above
			// looked in the right place.
			if files := filesUnder(t, filepath.Join(data, "blobs", "exports", job["jobId"].(string))); len(files) == 0 {
				t.Errorf("no files of the completed export where the canceled one's were looked for")
			}
			break
		}
		if m["status"] == "failed" || time.Now().After(deadline) {
			t.Fatalf("the export after the cancel: %v", m)
		}
	}
}

// filesUnder lists the files (not folders) under dir, none when it does
// not exist.
func filesUnder(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, p)
		}
		return nil
	})
	return out
}
