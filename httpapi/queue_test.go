package httpapi_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"lectern.dev/lectern/httpapi"
	"lectern.dev/lectern/store"
)

// A queued update and a queued export say where they wait: their place
// among their organization's queued jobs (the update first), the jobs it
// runs and its limit, and why (the organization's limit reached); once
// started they say nothing of a queue. The answers match the OpenAPI
// document (env.do checks every response).
func TestQueuePlaceInStatus(t *testing.T) {
	t.Parallel()
	e := newEnv(t, httpapi.Config{OrgJobs: 1}, nil)
	p2 := e.project(e.ent.ID, "second.acme.test")
	trig := func(project string) string {
		resp, body := e.do(t, req("POST", "/v1/project/update/"+project, e.entKey, nil))
		if resp.StatusCode != http.StatusAccepted {
			t.Fatalf("trigger: %d %s", resp.StatusCode, body)
		}
		return decode(t, body)["statusId"].(string)
	}
	exp := e.startExport(t, e.entKey, e.entProj.Domains[0])
	time.Sleep(2 * time.Millisecond)
	first := trig(e.entProj.ID)
	time.Sleep(2 * time.Millisecond)
	second := trig(p2.ID)
	queue := func(path string) map[string]any {
		t.Helper()
		resp, body := e.do(t, req("GET", path, e.entKey, nil))
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, resp.StatusCode, body)
		}
		q, _ := decode(t, body)["queue"].(map[string]any)
		return q
	}
	want := func(what string, q map[string]any, pos, running int, reason string) {
		t.Helper()
		if q == nil || q["position"] != float64(pos) || q["running"] != float64(running) || q["limit"] != float64(1) || q["reason"] != reason {
			t.Errorf("%s: queue %v, want position %d, running %d, limit 1, %s", what, q, pos, running, reason)
		}
	}
	want("the first update", queue("/v1/project/update-status/"+first), 1, 0, "workers_busy")
	want("the second update", queue("/v1/project/update-status/"+second), 2, 0, "workers_busy")
	want("the export, after the updates", queue("/v1/static-export/jobs/"+exp), 3, 0, "workers_busy")

	job, _, err := e.raw.ClaimJob(context.Background(), store.ClaimParams{Kinds: []string{store.KindUpdate, store.KindExport},
		Owner: "w", Now: time.Now(), LeaseFor: time.Minute, OrgLimit: 1})
	if err != nil || job == nil || job.ID != first {
		t.Fatalf("claimed %v, %v; want the first update", job, err)
	}
	want("the second update, the organization at its limit", queue("/v1/project/update-status/"+second), 1, 1, "organization_limit")
	want("the export, the organization at its limit", queue("/v1/static-export/jobs/"+exp), 2, 1, "organization_limit")
	if q := queue("/v1/project/update-status/" + first); q != nil {
		t.Errorf("the running update says it waits: %v", q)
	}
}
