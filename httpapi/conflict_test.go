package httpapi_test

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"lectern.dev/lectern"
	"lectern.dev/lectern/httpapi"
	"lectern.dev/lectern/store"
)

func TestExportConflicts(t *testing.T) {
	t.Parallel()
	e := newEnv(t, httpapi.Config{}, nil)
	job := e.startExport(t, e.entKey, entDomain)
	bundle := "/v1/static-export/jobs/" + job + "/bundle"

	wantJob := func(status string) map[string]any {
		t.Helper()
		resp, body := e.do(t, req("GET", "/v1/static-export/jobs/"+job, e.entKey, nil))
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET job: %d %s", resp.StatusCode, body)
		}
		j := decode(t, body)
		if j["status"] != status {
			t.Errorf("job status %v, want %s", j["status"], status)
		}
		return j
	}
	wantInProgress := func() {
		t.Helper()
		for _, d := range []string{entDomain, strings.ToUpper(entDomain)} {
			resp, body := e.do(t, req("POST", "/v1/static-export/jobs", e.entKey, []byte(`{"domain":"`+d+`"}`)))
			p := wantProblem(t, resp, body, http.StatusConflict, lectern.EEXPORTINPROGRESS)
			if p.JobID != job {
				t.Errorf("export_in_progress jobId %q, want %q", p.JobID, job)
			}
		}
	}

	// Queued.
	wantJob("queued")
	resp, body := e.do(t, req("POST", bundle, e.entKey, nil))
	if p := wantProblem(t, resp, body, http.StatusConflict, lectern.ENOTCOMPLETED); !strings.Contains(p.Detail, "queued") {
		t.Errorf("detail %q does not say the job is queued", p.Detail)
	}
	wantInProgress()

	// Running.
	e.runExport(t, job)
	j := wantJob("running")
	if j["progress"] != 40.0 || j["pageCount"] != 5.0 {
		t.Errorf("running job progress %v pageCount %v, want 40 and 5", j["progress"], j["pageCount"])
	}
	resp, body = e.do(t, req("POST", bundle, e.entKey, nil))
	wantProblem(t, resp, body, http.StatusConflict, lectern.ENOTCOMPLETED)
	wantInProgress()

	// Failed.
	e.failExport(t, job)
	j = wantJob("failed")
	if je, _ := j["error"].(map[string]any); je["code"] != "render_failed" || je["message"] == "" {
		t.Errorf("failed job error %v", j["error"])
	}
	if j["completedAt"] == nil {
		t.Errorf("failed job has no completedAt")
	}
	resp, body = e.do(t, req("POST", bundle, e.entKey, nil))
	wantProblem(t, resp, body, http.StatusConflict, lectern.EJOBFAILED)

	// A failed export no longer blocks a new one.
	if next := e.startExport(t, e.entKey, entDomain); next == job {
		t.Errorf("a new export reused the failed job's ID")
	}
	if n := e.notes.n.Load(); n != 2 {
		t.Errorf("Notify called %d times for 2 queued exports", n)
	}
}

func TestRateLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, httpapi.Config{RateLimit: httpapi.RateLimit{Rate: 1, Burst: 2}}, nil)
	job := e.startExport(t, e.entKey, entDomain)
	k, _ := e.newKey(e.ent.ID)
	path := "/v1/static-export/jobs/" + job
	for i, want := range []string{"1", "0"} {
		resp, body := e.do(t, req("GET", path, k, nil))
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("request %d: %d %s", i+1, resp.StatusCode, body)
		}
		h := resp.Header
		if h.Get("RateLimit-Limit") != "2" || h.Get("RateLimit-Remaining") != want || h.Get("RateLimit-Reset") == "" {
			t.Errorf("request %d: RateLimit-Limit %q Remaining %q Reset %q, want 2, %s, set", i+1,
				h.Get("RateLimit-Limit"), h.Get("RateLimit-Remaining"), h.Get("RateLimit-Reset"), want)
		}
	}
	resp, body := e.do(t, req("GET", path, k, nil))
	wantProblem(t, resp, body, http.StatusTooManyRequests, lectern.ERATELIMITED)
	h := resp.Header
	if s, err := strconv.Atoi(h.Get("Retry-After")); err != nil || s < 1 || s > 2 {
		t.Errorf("Retry-After %q, want 1 or 2 seconds", h.Get("Retry-After"))
	}
	if h.Get("RateLimit-Limit") != "2" || h.Get("RateLimit-Remaining") != "0" {
		t.Errorf("429 RateLimit-Limit %q Remaining %q, want 2 and 0", h.Get("RateLimit-Limit"), h.Get("RateLimit-Remaining"))
	}
	if s, err := strconv.Atoi(h.Get("RateLimit-Reset")); err != nil || s < 1 {
		t.Errorf("429 RateLimit-Reset %q", h.Get("RateLimit-Reset"))
	}
	// The limit is per key: another key of the organization is not limited.
	k2, _ := e.newKey(e.ent.ID)
	if resp, body := e.do(t, req("GET", path, k2, nil)); resp.StatusCode != http.StatusOK {
		t.Errorf("another key: %d %s", resp.StatusCode, body)
	}
}

func TestExportsPerHour(t *testing.T) {
	t.Parallel()
	e := newEnv(t, httpapi.Config{ExportsPerHour: 1}, nil)
	job := e.startExport(t, e.entKey, entDomain)
	e.completeExport(t, job)
	resp, body := e.do(t, req("POST", "/v1/static-export/jobs", e.entKey, []byte(`{"domain":"`+entDomain+`"}`)))
	wantProblem(t, resp, body, http.StatusTooManyRequests, lectern.ERATELIMITED)
	// The one export leaves the hour's window in just under an hour.
	if got, err := strconv.Atoi(resp.Header.Get("Retry-After")); err != nil || got < 3590 || got > 3600 {
		t.Errorf("Retry-After %q, want about 3600", resp.Header.Get("Retry-After"))
	}
	if got := resp.Header.Get("RateLimit-Reset"); got != resp.Header.Get("Retry-After") {
		t.Errorf("RateLimit-Reset %q, want the Retry-After %q", got, resp.Header.Get("Retry-After"))
	}
	// The refused start stored nothing: a quota of two still has room.
	if err := e.raw.CreateExport(context.Background(), &lectern.ExportJob{OrgID: e.ent.ID, ProjectID: e.entProj.ID, Domain: "quota.check.test"},
		store.ExportQuota{Max: 2, Since: e.ent.CreatedAt}); err != nil {
		t.Errorf("after one refused start: %v, want room for a second export", err)
	}

	// The quota is per organization.
	other := &lectern.Organization{Name: "Other Enterprise", Plan: lectern.PlanEnterprise}
	if err := e.raw.CreateOrg(context.Background(), other); err != nil {
		t.Fatal(err)
	}
	e.project(other.ID, "docs.other.test")
	otherKey, _ := e.newKey(other.ID)
	e.startExport(t, otherKey, "docs.other.test")
}

// faultStore makes GetExport fail or panic.
type faultStore struct {
	store.Store
	getExport func(ctx context.Context, id string) (*lectern.ExportJob, error)
}

func (f *faultStore) GetExport(ctx context.Context, id string) (*lectern.ExportJob, error) {
	return f.getExport(ctx, id)
}

func TestInternalErrors(t *testing.T) {
	t.Parallel()
	const secret = "dial tcp 10.9.8.7:5432: password authentication failed for user lectern_admin"
	cases := []struct {
		name      string
		wrap      func(store.Store) store.Store
		close     bool
		inLog     string // the underlying text, which only the log holds
		requestID string // sent as X-Request-Id
	}{
		{name: "store closed", close: true, inLog: "is closed"},
		{name: "store error", inLog: secret, requestID: "ci-run-42", wrap: func(s store.Store) store.Store {
			return &faultStore{Store: s, getExport: func(context.Context, string) (*lectern.ExportJob, error) {
				return nil, errors.New(secret)
			}}
		}},
		{name: "wrapped store error", inLog: secret, wrap: func(s store.Store) store.Store {
			return &faultStore{Store: s, getExport: func(context.Context, string) (*lectern.ExportJob, error) {
				return nil, &lectern.Error{Code: lectern.EINTERNAL, Message: "lookup failed: " + secret}
			}}
		}},
		{name: "panic", inLog: secret, wrap: func(s store.Store) store.Store {
			return &faultStore{Store: s, getExport: func(context.Context, string) (*lectern.ExportJob, error) {
				panic(secret)
			}}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, httpapi.Config{}, c.wrap)
			if c.close {
				e.raw.Close()
			}
			r := req("GET", "/v1/static-export/jobs/exp_00000000000000000000000000", e.entKey, nil)
			if c.requestID != "" {
				r.Header.Set("X-Request-Id", c.requestID)
			}
			resp, body := e.do(t, r)
			p := wantProblem(t, resp, body, http.StatusInternalServerError, lectern.EINTERNAL)
			id := resp.Header.Get("X-Request-Id")
			if c.requestID != "" && id != c.requestID {
				t.Errorf("X-Request-Id %q, want the caller's %q", id, c.requestID)
			}
			if p.RequestID != id || !strings.Contains(p.Detail, id) {
				t.Errorf("requestId %q / detail %q, want request id %q in both", p.RequestID, p.Detail, id)
			}
			for _, leak := range []string{c.inLog, "10.9.8.7", "sql", "panic"} {
				if strings.Contains(string(body), leak) {
					t.Errorf("the response reveals %q: %s", leak, body)
				}
			}
			logs := e.logs.String()
			if !strings.Contains(logs, id) || !strings.Contains(logs, c.inLog) {
				t.Errorf("the log lacks the request id %s or the error %q:\n%s", id, c.inLog, logs)
			}
		})
	}
}
