package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/httpapi"
	"lectern.dev/lectern/store"
)

// page is a list response.
type page struct {
	Items      []map[string]any `json:"items"`
	NextCursor *string          `json:"nextCursor"`
}

// list GETs path with key and decodes the page.
func (e *env) list(t *testing.T, path, key string) page {
	t.Helper()
	resp, body := e.do(t, req("GET", path, key, nil))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, resp.StatusCode, body)
	}
	var p page
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatalf("GET %s: %v: %s", path, err, body)
	}
	return p
}

// walk reads every page of path (which has no query yet) limit at a time
// and returns the IDs in order.
func (e *env) walk(t *testing.T, path, idKey, key string, limit int) []string {
	t.Helper()
	var ids []string
	cursor := ""
	for pages := 0; ; pages++ {
		if pages > 100 {
			t.Fatalf("%s: more than 100 pages", path)
		}
		q := url.Values{"limit": {fmt.Sprint(limit)}}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		sep := "?"
		if strings.Contains(path, "?") {
			sep = "&"
		}
		p := e.list(t, path+sep+q.Encode(), key)
		if len(p.Items) > limit {
			t.Errorf("%s: %d items, limit %d", path, len(p.Items), limit)
		}
		for _, it := range p.Items {
			ids = append(ids, it[idKey].(string))
		}
		if p.NextCursor == nil {
			return ids
		}
		if len(p.Items) != limit {
			t.Errorf("%s: a page of %d items (limit %d) says there is more", path, len(p.Items), limit)
		}
		cursor = *p.NextCursor
	}
}

// TestProjectRoutesHideOtherOrgs: every project route answers 404 for a
// project of another organization, and changes nothing of it.
func TestProjectRoutesHideOtherOrgs(t *testing.T) {
	t.Parallel()
	e := newEnv(t, httpapi.Config{}, nil)
	id := e.entProj.ID
	for _, r := range []*http.Request{
		req("GET", "/v1/projects/"+id, e.freeKey, nil),
		req("PATCH", "/v1/projects/"+id, e.freeKey, []byte(`{"name":"taken"}`)),
		req("DELETE", "/v1/projects/"+id, e.freeKey, nil),
		req("GET", "/v1/projects/"+id+"/updates", e.freeKey, nil),
		req("GET", "/v1/projects/"+id+"/deployments", e.freeKey, nil),
		req("GET", "/v1/projects/prj_nope", e.freeKey, nil),
	} {
		resp, body := e.do(t, r)
		p := wantProblem(t, resp, body, http.StatusNotFound, lectern.ENOTFOUND)
		if strings.Contains(p.Detail, e.ent.ID) || strings.Contains(p.Detail, entDomain) {
			t.Errorf("%s %s: detail %q tells of the other organization", r.Method, r.URL.Path, p.Detail)
		}
	}
	got, err := e.raw.GetProject(context.Background(), id)
	if err != nil || got.Name != e.entProj.Name {
		t.Fatalf("the project after another organization's requests: %+v, %v", got, err)
	}
	for _, key := range []string{e.entKey, e.freeKey} {
		p := e.list(t, "/v1/projects", key)
		want := e.entProj.ID
		if key == e.freeKey {
			want = e.freeProj.ID
		}
		if len(p.Items) != 1 || p.Items[0]["id"] != want {
			t.Errorf("GET /v1/projects lists %v, want only %s", p.Items, want)
		}
	}
	e.startExport(t, e.entKey, entDomain)
	if p := e.list(t, "/v1/static-export/jobs", e.freeKey); len(p.Items) != 0 {
		t.Errorf("the free organization lists the other's exports: %v", p.Items)
	}
}

// TestProjectListPages: lists are newest first; walking their pages
// returns every record once; limit and cursor are checked.
func TestProjectListPages(t *testing.T) {
	t.Parallel()
	e := newEnv(t, httpapi.Config{}, nil)
	want := []string{e.entProj.ID}
	for i := 0; i < 24; i++ {
		want = append(want, e.project(e.ent.ID, fmt.Sprintf("p%d.ent.test", i)).ID)
	}
	for i, j := 0, len(want)-1; i < j; i, j = i+1, j-1 {
		want[i], want[j] = want[j], want[i]
	}
	for _, limit := range []int{1, 7, 25, 100} {
		got := e.walk(t, "/v1/projects", "id", e.entKey, limit)
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("limit %d: %v, want %v", limit, got, want)
		}
	}
	if p := e.list(t, "/v1/projects", e.entKey); len(p.Items) != 20 || p.NextCursor == nil {
		t.Errorf("no limit: %d items (next %v), want the default 20 and a next page", len(p.Items), p.NextCursor)
	}
	for _, q := range []string{"limit=0", "limit=101", "limit=x", "limit=1&limit=2", "cursor=abc", "cursor=" + url.QueryEscape("djEuMTIz")} {
		resp, body := e.do(t, req("GET", "/v1/projects?"+q, e.entKey, nil))
		p := wantProblem(t, resp, body, http.StatusBadRequest, lectern.EINVALID)
		name, _, _ := strings.Cut(q, "=")
		if f := p.fields(); len(f) != 1 || f[0] != name {
			t.Errorf("?%s: errors %v, want %s", q, f, name)
		}
	}
}

// TestProjectPatch: fields change together or not at all, with the rules
// of creation; a domain given up is free at once.
func TestProjectPatch(t *testing.T) {
	t.Parallel()
	hosts, err := lectern.NewServerHosts("lectern.test")
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, httpapi.Config{ServerHosts: hosts}, nil)
	path := "/v1/projects/" + e.entProj.ID
	patch := func(body string) (*http.Response, []byte) {
		return e.do(t, req("PATCH", path, e.entKey, []byte(body)))
	}
	resp, body := patch(`{"name":"Handbook","branch":"release/2","docsRoot":"site/docs","domains":["New.Ent.Test","new.ent.test","www.ent.test"],"deploymentType":"client-hosted","repoUrl":"https://git.example/handbook.git"}`)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("PATCH: %d %s", resp.StatusCode, body)
	}
	m := decode(t, body)
	if m["name"] != "Handbook" || m["branch"] != "release/2" || m["docsRoot"] != "/site/docs" || m["deploymentType"] != "client-hosted" ||
		fmt.Sprint(m["domains"]) != "[new.ent.test www.ent.test]" || m["repoUrl"] != "https://git.example/handbook.git" {
		t.Errorf("PATCH answered %s", body)
	}
	ctx := context.Background()
	if _, err := e.raw.GetProjectByDomain(ctx, entDomain); lectern.ErrorCode(err) != lectern.ENOTFOUND {
		t.Errorf("the domain given up still resolves: %v", err)
	}
	if err := e.raw.CreateProject(ctx, &lectern.Project{OrgID: e.free.ID, Name: "x", RepoURL: "https://git.example/x.git", Branch: "main",
		DocsRoot: "/", Domains: []string{entDomain}, DeploymentType: lectern.DeploymentCloud}); err != nil {
		t.Errorf("the domain given up cannot be taken: %v", err)
	}

	before, _ := e.raw.GetProject(ctx, e.entProj.ID)
	for _, c := range []struct {
		body   string
		status int
		code   string
		field  string
	}{
		{`{"name":"Other","domains":["` + freeDomain + `"]}`, http.StatusConflict, lectern.ECONFLICT, "domains"},
		{`{"name":"Other","domains":["lectern.test"]}`, http.StatusBadRequest, lectern.EINVALID, "domains"},
		{`{"domains":[]}`, http.StatusBadRequest, lectern.EINVALID, "domains"},
		{`{"name":"Other","repoUrl":"/srv/git/other"}`, http.StatusBadRequest, lectern.EINVALID, "repoUrl"},
		{`{"repoUrl":"file:///srv/git/other"}`, http.StatusBadRequest, lectern.EINVALID, "repoUrl"},
		{`{"repoUrl":"/srv/git/other/x::/.."}`, http.StatusBadRequest, lectern.EINVALID, "repoUrl"},
		{`{"repoUrl":"http://169.254.169.254/latest"}`, http.StatusBadRequest, lectern.EINVALID, "repoUrl"},
		{`{"name":"x","domains":null}`, http.StatusBadRequest, lectern.EINVALID, "domains"},
		{`{"repoUrl":"https://user:s3cr3t@git.example/x.git"}`, http.StatusBadRequest, lectern.EINVALID, "repoUrl"},
		{`{"branch":"-x"}`, http.StatusBadRequest, lectern.EINVALID, "branch"},
		{`{"docsRoot":"../up"}`, http.StatusBadRequest, lectern.EINVALID, "docsRoot"},
		{`{"deploymentType":"moon"}`, http.StatusBadRequest, lectern.EINVALID, "deploymentType"},
		{`{"name":"  "}`, http.StatusBadRequest, lectern.EINVALID, "name"},
		{`{"liveDeploymentId":"dep_x"}`, http.StatusBadRequest, lectern.EINVALID, "liveDeploymentId"},
		{`{}`, http.StatusBadRequest, lectern.EINVALID, "body"},
	} {
		resp, body := patch(c.body)
		p := wantProblem(t, resp, body, c.status, c.code)
		if f := p.fields(); len(f) == 0 || f[0] != c.field {
			t.Errorf("%s: errors %v, want %s", c.body, f, c.field)
		}
		if strings.Contains(string(body), "s3cr3t") {
			t.Errorf("%s: the answer shows the password: %s", c.body, body)
		}
	}
	after, _ := e.raw.GetProject(ctx, e.entProj.ID)
	if fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("refused PATCHes changed the project:\n%+v\nwas\n%+v", after, before)
	}
}

// TestProjectDelete: a deleted project is gone at once, its domain free,
// its queued update canceled; its history stays readable by ID.
func TestProjectDelete(t *testing.T) {
	t.Parallel()
	e := newEnv(t, httpapi.Config{}, nil)
	path := "/v1/projects/" + e.entProj.ID
	resp, body := e.do(t, req("POST", "/v1/project/update/"+e.entProj.ID, e.entKey, nil))
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("trigger: %d %s", resp.StatusCode, body)
	}
	upd := decode(t, body)["statusId"].(string)
	job := e.startExport(t, e.entKey, entDomain)

	resp, body = e.do(t, req("DELETE", path, e.entKey, nil))
	if resp.StatusCode != http.StatusNoContent || len(body) != 0 {
		t.Fatalf("DELETE: %d %s", resp.StatusCode, body)
	}
	for _, r := range []*http.Request{req("GET", path, e.entKey, nil), req("DELETE", path, e.entKey, nil),
		req("GET", path+"/updates", e.entKey, nil), req("POST", "/v1/project/update/"+e.entProj.ID, e.entKey, nil)} {
		resp, body := e.do(t, r)
		wantProblem(t, resp, body, http.StatusNotFound, lectern.ENOTFOUND)
	}
	if p := e.list(t, "/v1/projects", e.entKey); len(p.Items) != 0 {
		t.Errorf("the list still shows %v", p.Items)
	}
	resp, body = e.do(t, req("GET", "/v1/project/update-status/"+upd, e.entKey, nil))
	if m := decode(t, body); resp.StatusCode != http.StatusOK || m["status"] != "canceled" || m["endedAt"] == nil || m["summary"] != store.CanceledByDelete {
		t.Errorf("the queued update after DELETE: %d %s", resp.StatusCode, body)
	}
	resp, body = e.do(t, req("GET", "/v1/static-export/jobs/"+job, e.entKey, nil))
	if m := decode(t, body); resp.StatusCode != http.StatusOK || m["status"] != "canceled" || fmt.Sprint(m["error"]) != "map[code:canceled message:"+store.CanceledByDelete+"]" {
		t.Errorf("the queued export after DELETE: %d %s", resp.StatusCode, body)
	}
	if err := e.raw.CreateProject(context.Background(), &lectern.Project{OrgID: e.free.ID, Name: "x", RepoURL: "https://git.example/x.git",
		Branch: "main", DocsRoot: "/", Domains: []string{entDomain}, DeploymentType: lectern.DeploymentCloud}); err != nil {
		t.Errorf("the deleted project's domain cannot be taken: %v", err)
	}
}

// TestProjectHistory: updates and deployments newest first, the live one
// marked; export jobs found again by domain and state.
func TestProjectHistory(t *testing.T) {
	t.Parallel()
	e := newEnv(t, httpapi.Config{}, nil)
	ctx := context.Background()
	var deps []string
	for i := 0; i < 3; i++ {
		resp, body := e.do(t, req("POST", "/v1/project/update/"+e.entProj.ID, e.entKey, nil))
		if resp.StatusCode != http.StatusAccepted {
			t.Fatalf("trigger: %d %s", resp.StatusCode, body)
		}
		job, lease, err := e.raw.ClaimJob(ctx, store.ClaimParams{Kinds: []string{store.KindUpdate}, Owner: "t", Now: time.Now(), LeaseFor: time.Minute})
		if err != nil || job == nil {
			t.Fatalf("claim: %v %v", job, err)
		}
		d := &lectern.Deployment{ProjectID: e.entProj.ID, Commit: lectern.Commit{SHA: fmt.Sprintf("%040d", i), Ref: "main"}, PageCount: 10 + i}
		if err := e.raw.FinishUpdate(ctx, lease, store.UpdateResult{Status: lectern.UpdateSuccess, Deployment: d, EndedAt: time.Now()}); err != nil {
			t.Fatal(err)
		}
		deps = append([]string{d.ID}, deps...)
	}
	got := e.list(t, "/v1/projects/"+e.entProj.ID+"/deployments", e.entKey)
	if len(got.Items) != 3 {
		t.Fatalf("deployments: %v", got.Items)
	}
	for i, d := range got.Items {
		if d["id"] != deps[i] || d["live"] != (i == 0) || d["pageCount"] != float64(12-i) {
			t.Errorf("deployment %d: %v, want %s (live: %v)", i, d, deps[i], i == 0)
		}
	}
	if ups := e.walk(t, "/v1/projects/"+e.entProj.ID+"/updates", "statusId", e.entKey, 2); len(ups) != 3 {
		t.Errorf("updates: %v", ups)
	}
	resp, body := e.do(t, req("GET", "/v1/projects/"+e.entProj.ID, e.entKey, nil))
	if m := decode(t, body); resp.StatusCode != http.StatusOK || m["liveDeploymentId"] != deps[0] ||
		m["liveDeployment"].(map[string]any)["id"] != deps[0] {
		t.Errorf("GET project: %d %s", resp.StatusCode, body)
	}

	second := e.project(e.ent.ID, "two.ent.test")
	a := e.startExport(t, e.entKey, entDomain)
	e.failExport(t, a)
	b := e.startExport(t, e.entKey, entDomain)
	c := e.startExport(t, e.entKey, second.Domains[0])
	for _, q := range []struct{ query, want string }{
		{"", c + "," + b + "," + a},
		{"?domain=" + entDomain, b + "," + a},
		{"?domain=DOCS.ENT.TEST&status=failed", a},
		{"?status=queued", c + "," + b},
	} {
		if got := e.walk(t, "/v1/static-export/jobs"+q.query, "jobId", e.entKey, 1); strings.Join(got, ",") != q.want {
			t.Errorf("exports%s: %v, want %s", q.query, got, q.want)
		}
	}
	for _, q := range []string{"status=done", "domain=" + url.QueryEscape("not a domain")} {
		resp, body := e.do(t, req("GET", "/v1/static-export/jobs?"+q, e.entKey, nil))
		wantProblem(t, resp, body, http.StatusBadRequest, lectern.EINVALID)
	}
}
