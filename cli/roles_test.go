package cli_test

import (
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"lectern.dev/lectern/httpapi"
	"lectern.dev/lectern/internal/apicheck"
)

// TestSupersedeAcrossRoles queues several updates on an API-only server
// (no workers), checks that all but the newest end superseded by it, then
// starts a worker-only server on the same store and checks that only the
// newest is built. It also covers a repository and a branch that do not
// exist, and the job metrics.
func TestSupersedeAcrossRoles(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	api := startServe(t, data, "--role", "api")
	org := lastLine(lectern(t, "admin", "--data-dir", data, "org", "create", "--name", "Acme", "--plan", "pro"))
	repo, sha := newRepo(t, smallSite("Superseding."))
	prj := lastLine(lectern(t, "admin", "--data-dir", data, "project", "create", "--org", org, "--name", "Docs", "--repo", repo, "--domain", "docs.acme.test"))
	key := lastLine(lectern(t, "admin", "--data-dir", data, "key", "create", "--org", org, "--name", "ci"))

	var ids []string
	for range 3 {
		ids = append(ids, trigger(t, api.url, key, prj))
	}
	for i, id := range ids {
		_, st, _ := call(t, "GET", api.url+"/v1/project/update-status/"+id, key, nil)
		switch {
		case i < 2 && (st["status"] != "superseded" || st["supersededBy"] != ids[i+1] || st["endedAt"] == nil):
			t.Fatalf("update %d: %v", i, st)
		case i == 2 && st["status"] != "queued":
			t.Fatalf("newest update: %v", st)
		}
	}

	worker := startServe(t, data, "--role", "worker")
	st := waitUpdate(t, api.url, key, ids[2])
	if st["status"] != "success" || st["commit"].(map[string]any)["sha"] != sha {
		t.Fatalf("newest update: %v", st)
	}
	if _, body := page(t, api.url, "docs.acme.test", "/quickstart"); !strings.Contains(body, "Superseding.") {
		t.Fatal("site not live after the worker built it")
	}

	missingRepo := lastLine(lectern(t, "admin", "--data-dir", data, "project", "create", "--org", org, "--name", "Gone",
		"--repo", filepath.Join(t.TempDir(), "nope"), "--domain", "gone.acme.test"))
	st = waitUpdate(t, api.url, key, trigger(t, api.url, key, missingRepo))
	if st["status"] != "failure" || !strings.Contains(st["summary"].(string), "not found") {
		t.Fatalf("missing repository: %v", st)
	}
	missingBranch := lastLine(lectern(t, "admin", "--data-dir", data, "project", "create", "--org", org, "--name", "Branch",
		"--repo", repo, "--branch", "release", "--domain", "branch.acme.test"))
	st = waitUpdate(t, api.url, key, trigger(t, api.url, key, missingBranch))
	if st["status"] != "failure" || !strings.Contains(st["summary"].(string), `"release"`) {
		t.Fatalf("missing branch: %v", st)
	}
	if code, _ := page(t, api.url, "branch.acme.test", "/"); code != 404 {
		t.Fatalf("never-deployed site: %d", code)
	}

	// Metrics: the worker counted its runs (once each run has ended: a
	// status is final a moment before its run is counted); the API its
	// requests.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		m := metrics(t, worker.url)
		if strings.Contains(m, `lectern_job_runs_total{kind="update",outcome="done"} 3`) &&
			strings.Contains(m, `lectern_job_duration_seconds_count{kind="update",outcome="done"} 3`) && strings.Contains(m, `lectern_jobs{kind="update",state="done"}`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("worker metrics lack job runs:\n%s", grep(m, "lectern_job"))
		}
	}
	if m := metrics(t, api.url); !strings.Contains(m, `lectern_http_requests_total{code="202",method="POST",route="/v1/project/update/{projectId}"}`) ||
		!strings.Contains(m, `lectern_http_request_duration_seconds_count{method="GET",route="/v1/project/update-status/{statusId}"}`) {
		t.Fatalf("api metrics lack requests:\n%s", grep(m, "lectern_http"))
	}

	// The free-plan organization may not export.
	code, prob, _ := call(t, "POST", api.url+"/v1/static-export/jobs", key, map[string]any{"domain": "docs.acme.test"})
	if code != 403 || prob["code"] != "plan_required" {
		t.Fatalf("pro plan export: %d %v", code, prob)
	}
	lectern(t, "admin", "--data-dir", data, "org", "set-plan", org, "--plan", "enterprise")
	if code, job, _ := call(t, "POST", api.url+"/v1/static-export/jobs", key, map[string]any{"domain": "docs.acme.test"}); code != 202 {
		t.Fatalf("after set-plan: %d %v", code, job)
	}
}

func metrics(t *testing.T, base string) string {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

func grep(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// checker validates responses of the end-to-end tests against the OpenAPI
// document.
var checker = func() *apicheck.Checker {
	c, err := apicheck.New(httpapi.OpenAPIDocument())
	if err != nil {
		panic(err)
	}
	return c
}()
