package httpapi_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/httpapi"
	"lectern.dev/lectern/store"
)

// TestCancelAndPromoteHideOtherOrgs: the cancel and promote routes answer
// 404 for another organization's records, and change nothing.
func TestCancelAndPromoteHideOtherOrgs(t *testing.T) {
	t.Parallel()
	e := newEnv(t, httpapi.Config{}, nil)
	dep := e.deploy(t, e.entProj)
	resp, body := e.do(t, req("POST", "/v1/project/update/"+e.entProj.ID, e.entKey, nil))
	upd := decode(t, body)["statusId"].(string)
	job := e.startExport(t, e.entKey, entDomain)
	for _, r := range []*http.Request{
		req("POST", "/v1/project/update-status/"+upd+"/cancel", e.freeKey, nil),
		req("POST", "/v1/static-export/jobs/"+job+"/cancel", e.freeKey, nil),
		req("POST", "/v1/projects/"+e.entProj.ID+"/deployments/"+dep+"/promote", e.freeKey, nil),
		req("POST", "/v1/projects/"+e.freeProj.ID+"/deployments/"+dep+"/promote", e.freeKey, nil),
		req("POST", "/v1/project/update-status/upd_nope/cancel", e.entKey, nil),
	} {
		resp, body = e.do(t, r)
		wantProblem(t, resp, body, http.StatusNotFound, lectern.ENOTFOUND)
	}
	ctx := context.Background()
	if u, _ := e.raw.GetUpdate(ctx, upd); u.Status != lectern.UpdateQueued {
		t.Errorf("another organization's cancel changed the update: %s", u.Status)
	}
	if j, _ := e.raw.GetExport(ctx, job); j.Status != lectern.ExportQueued {
		t.Errorf("another organization's cancel changed the export: %s", j.Status)
	}
}

// TestCancel: a queued update and export end canceled at once; an ended
// one answers 409; a canceled export frees its domain for a new one.
func TestCancel(t *testing.T) {
	t.Parallel()
	e := newEnv(t, httpapi.Config{}, nil)
	_, body := e.do(t, req("POST", "/v1/project/update/"+e.entProj.ID, e.entKey, nil))
	upd := decode(t, body)["statusId"].(string)
	path := "/v1/project/update-status/" + upd + "/cancel"
	resp, body := e.do(t, req("POST", path, e.entKey, nil))
	if m := decode(t, body); resp.StatusCode != http.StatusOK || m["status"] != "canceled" || m["summary"] != store.CanceledByRequest || m["endedAt"] == nil {
		t.Errorf("cancel a queued update: %d %s", resp.StatusCode, body)
	}
	resp, body = e.do(t, req("POST", path, e.entKey, nil))
	wantProblem(t, resp, body, http.StatusConflict, lectern.ECONFLICT)
	resp, body = e.do(t, req("POST", path, e.entKey, []byte(`{"x":1}`)))
	wantProblem(t, resp, body, http.StatusBadRequest, lectern.EINVALID)
	resp, body = e.do(t, req("POST", path, e.entKey, bytes.Repeat([]byte(" "), 70<<10)))
	wantProblem(t, resp, body, http.StatusRequestEntityTooLarge, lectern.ETOOLARGE)

	job := e.startExport(t, e.entKey, entDomain)
	e.runExport(t, job)
	resp, body = e.do(t, req("POST", "/v1/static-export/jobs/"+job+"/cancel", e.entKey, nil))
	m := decode(t, body)
	if resp.StatusCode != http.StatusOK || m["status"] != "canceled" || fmt.Sprint(m["error"]) != "map[code:canceled message:"+store.CanceledByRequest+"]" {
		t.Errorf("cancel a running export: %d %s", resp.StatusCode, body)
	}
	lease := e.claim(t, job)
	if err := e.raw.SetExportProgress(context.Background(), lease, 50, 6, time.Now()); lectern.ErrorCode(err) != lectern.ECONFLICT {
		t.Errorf("the worker of a canceled export still writes: %v", err)
	}
	next := e.startExport(t, e.entKey, entDomain)
	e.completeExport(t, next)
	resp, body = e.do(t, req("POST", "/v1/static-export/jobs/"+next+"/cancel", e.entKey, nil))
	wantProblem(t, resp, body, http.StatusConflict, lectern.ECONFLICT)
}

// TestPromote: a kept deployment is made live again, the switch recorded
// in the project's updates; another project's deployment is 404.
func TestPromote(t *testing.T) {
	t.Parallel()
	e := newEnv(t, httpapi.Config{}, nil)
	first := e.deploy(t, e.entProj)
	e.deploy(t, e.entProj)
	other := e.deploy(t, e.freeProj)
	resp, body := e.do(t, req("POST", "/v1/projects/"+e.entProj.ID+"/deployments/"+first+"/promote", e.entKey, nil))
	m := decode(t, body)
	if resp.StatusCode != http.StatusOK || m["status"] != "success" || m["source"] != "promote" || resp.Header.Get("Location") != "/v1/project/update-status/"+fmt.Sprint(m["statusId"]) {
		t.Fatalf("promote: %d %s", resp.StatusCode, body)
	}
	ctx := context.Background()
	if _, live, _ := e.raw.ResolveDomain(ctx, entDomain); live != first {
		t.Errorf("the domain serves %s, want %s", live, first)
	}
	ups := e.list(t, "/v1/projects/"+e.entProj.ID+"/updates", e.entKey)
	if len(ups.Items) == 0 || ups.Items[0]["statusId"] != m["statusId"] {
		t.Errorf("the history does not start with the promotion: %v", ups.Items)
	}
	deps := e.list(t, "/v1/projects/"+e.entProj.ID+"/deployments", e.entKey)
	for _, d := range deps.Items {
		if d["live"] != (d["id"] == first) {
			t.Errorf("deployment %v after promoting %s", d, first)
		}
	}
	for _, dep := range []string{other, "dep_nope"} {
		resp, body := e.do(t, req("POST", "/v1/projects/"+e.entProj.ID+"/deployments/"+dep+"/promote", e.entKey, nil))
		wantProblem(t, resp, body, http.StatusNotFound, lectern.ENOTFOUND)
	}
	if _, live, _ := e.raw.ResolveDomain(ctx, entDomain); live != first {
		t.Errorf("a refused promote changed the live deployment to %s", live)
	}
}

// deploy runs a successful update of p and returns its deployment's ID.
func (e *env) deploy(t *testing.T, p *lectern.Project) string {
	t.Helper()
	ctx := context.Background()
	u := &lectern.Update{ProjectID: p.ID, Source: "api"}
	if err := e.raw.CreateUpdate(ctx, u); err != nil {
		t.Fatal(err)
	}
	for {
		job, lease, err := e.raw.ClaimJob(ctx, store.ClaimParams{Kinds: []string{store.KindUpdate}, Owner: "t", Now: time.Now(), LeaseFor: time.Minute})
		if err != nil || job == nil {
			t.Fatalf("claim %s: %v %v", u.ID, job, err)
		}
		if job.ID != u.ID {
			continue // an older update, left running
		}
		d := &lectern.Deployment{ProjectID: p.ID, Commit: lectern.Commit{SHA: fmt.Sprintf("%040d", time.Now().UnixNano()), Ref: "main"}, PageCount: 3}
		if err := e.raw.FinishUpdate(ctx, lease, store.UpdateResult{Status: lectern.UpdateSuccess, Deployment: d, EndedAt: time.Now()}); err != nil {
			t.Fatal(err)
		}
		return d.ID
	}
}
