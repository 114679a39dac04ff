package httpapi_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"lectern.dev/lectern"
	"lectern.dev/lectern/httpapi"
)

func TestStartExportValidation(t *testing.T) {
	t.Parallel()
	e := newEnv(t, httpapi.Config{}, nil)
	cases := []struct {
		name, body string
		field      string // the field errors[] must name ("body" for the body as a whole)
	}{
		{"invalid JSON", `{"domain":`, "body"},
		{"not JSON", `domain=docs.ent.test`, "body"},
		{"syntax error", `{"domain" "docs.ent.test"}`, "body"},
		{"array", `["docs.ent.test"]`, "body"},
		{"empty body", ``, "body"},
		{"trailing data", `{"domain":"docs.ent.test"} {}`, "body"},
		{"unknown field", `{"domain":"docs.ent.test","format":"zip"}`, "format"},
		{"field name in another case", `{"Domain":"docs.ent.test"}`, "Domain"},
		{"missing domain", `{}`, "domain"},
		{"null domain", `{"domain":null}`, "domain"},
		{"empty domain", `{"domain":""}`, "domain"},
		{"domain not a string", `{"domain":42}`, "domain"},
		{"scheme", `{"domain":"https://docs.ent.test"}`, "domain"},
		{"path", `{"domain":"docs.ent.test/guides"}`, "domain"},
		{"port", `{"domain":"docs.ent.test:443"}`, "domain"},
		{"trailing dot", `{"domain":"docs.ent.test."}`, "domain"},
		{"underscore", `{"domain":"docs_ent.test"}`, "domain"},
		{"space", `{"domain":"docs ent.test"}`, "domain"},
		{"non-ASCII", `{"domain":"dócs.ent.test"}`, "domain"},
		{"user info", `{"domain":"me@docs.ent.test"}`, "domain"},
		{"empty label", `{"domain":"docs..test"}`, "domain"},
		{"leading hyphen", `{"domain":"-docs.ent.test"}`, "domain"},
		{"query", `{"domain":"docs.ent.test?x=1"}`, "domain"},
		{"too long", `{"domain":"` + strings.Repeat("a.", 130) + `test"}`, "domain"},
		{"label too long", `{"domain":"` + strings.Repeat("a", 64) + `.test"}`, "domain"},
		{"bad basePath", `{"domain":"docs.ent.test","basePath":"docs/../x"}`, "basePath"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			resp, body := e.do(t, req("POST", "/v1/static-export/jobs", e.entKey, []byte(c.body)))
			p := wantProblem(t, resp, body, http.StatusBadRequest, lectern.EINVALID)
			if !slices.Contains(p.fields(), c.field) {
				t.Errorf("errors[] names %v, want %q", p.fields(), c.field)
			}
			for _, f := range p.Errors {
				if f.Message == "" {
					t.Errorf("errors[] entry %q has no message", f.Field)
				}
			}
		})
	}
	// Cleanups of the parent run after its parallel subtests.
	t.Cleanup(func() {
		if n := e.exports(t, e.ent.ID); n != 0 {
			t.Errorf("invalid requests created %d exports", n)
		}
	})
}

func TestStartExportMediaTypeAndSize(t *testing.T) {
	t.Parallel()
	e := newEnv(t, httpapi.Config{}, nil)
	valid := []byte(`{"domain":"` + entDomain + `"}`)
	for _, ct := range []string{"", "text/plain", "application/x-www-form-urlencoded", "application/json; charset=latin1", "application/jsonx", "json"} {
		r := req("POST", "/v1/static-export/jobs", e.entKey, valid)
		if ct == "" {
			r.Header.Del("Content-Type")
		} else {
			r.Header.Set("Content-Type", ct)
		}
		resp, body := e.do(t, r)
		wantProblem(t, resp, body, http.StatusUnsupportedMediaType, lectern.EMEDIATYPE)
	}

	big := []byte(`{"domain":"` + strings.Repeat("a", 70<<10) + `"}`)
	resp, body := e.do(t, req("POST", "/v1/static-export/jobs", e.entKey, big))
	wantProblem(t, resp, body, http.StatusRequestEntityTooLarge, lectern.ETOOLARGE)

	// Without a Content-Length the limit still holds while reading.
	r := req("POST", "/v1/static-export/jobs", e.entKey, nil)
	r.Header.Set("Content-Type", "application/json")
	r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(big)), -1
	resp, body = e.do(t, r)
	wantProblem(t, resp, body, http.StatusRequestEntityTooLarge, lectern.ETOOLARGE)

	// 64 KiB + 1 is too large; exactly 64 KiB is not.
	over := append(bytes.Clone(valid), bytes.Repeat([]byte(" "), 64<<10-len(valid)+1)...)
	resp, body = e.do(t, req("POST", "/v1/static-export/jobs", e.entKey, over))
	wantProblem(t, resp, body, http.StatusRequestEntityTooLarge, lectern.ETOOLARGE)
	exact := over[:64<<10]
	resp, body = e.do(t, req("POST", "/v1/static-export/jobs", e.entKey, exact))
	if resp.StatusCode != http.StatusAccepted {
		t.Errorf("a 64 KiB body: %d %s, want 202", resp.StatusCode, body)
	}
}

func TestStartExportNormalizesDomain(t *testing.T) {
	t.Parallel()
	e := newEnv(t, httpapi.Config{}, nil)
	r := req("POST", "/v1/static-export/jobs", e.entKey, []byte(`{"domain":"DOCS.Ent.TEST","basePath":"/docs/"}`))
	r.Header.Set("Content-Type", "application/json; charset=UTF-8")
	resp, body := e.do(t, r)
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("upper-case domain: %d %s", resp.StatusCode, body)
	}
	job := decode(t, body)
	if job["domain"] != entDomain {
		t.Errorf("202 domain %v, want %q", job["domain"], entDomain)
	}
	if job["basePath"] != "/docs" {
		t.Errorf("202 basePath %v, want /docs", job["basePath"])
	}
	id := job["jobId"].(string)
	stored, err := e.raw.GetExport(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if stored.Domain != entDomain {
		t.Errorf("stored domain %q, want %q", stored.Domain, entDomain)
	}
	resp, body = e.do(t, req("GET", "/v1/static-export/jobs/"+id, e.entKey, nil))
	if got := decode(t, body)["domain"]; resp.StatusCode != http.StatusOK || got != entDomain {
		t.Errorf("GET job: %d, domain %v, want %q", resp.StatusCode, got, entDomain)
	}
}

// TestBodylessOperations: trigger update and bundle take no body. What they
// answer to one must be a documented response.
func TestBodylessOperations(t *testing.T) {
	t.Parallel()
	e := newEnv(t, httpapi.Config{}, nil)
	jobID := e.startExport(t, e.entKey, entDomain)
	e.completeExport(t, jobID)
	for _, path := range []string{"/v1/project/update/" + e.entProj.ID, "/v1/static-export/jobs/" + jobID + "/bundle"} {
		for _, ok := range []string{"", "{}", " { } "} {
			if resp, body := e.do(t, req("POST", path, e.entKey, []byte(ok))); resp.StatusCode >= 300 {
				t.Errorf("POST %s with body %q: %d %s", path, ok, resp.StatusCode, body)
			}
		}
		resp, body := e.do(t, req("POST", path, e.entKey, []byte(`{"branch":"dev"}`)))
		wantProblem(t, resp, body, http.StatusBadRequest, lectern.EINVALID)
		resp, body = e.do(t, req("POST", path, e.entKey, bytes.Repeat([]byte(" "), 65<<10)))
		wantProblem(t, resp, body, http.StatusRequestEntityTooLarge, lectern.ETOOLARGE)
	}
}

func TestNotFound(t *testing.T) {
	t.Parallel()
	e := newEnv(t, httpapi.Config{}, nil)
	entJob := e.startExport(t, e.entKey, entDomain)
	resp, body := e.do(t, req("POST", "/v1/project/update/"+e.freeProj.ID, e.freeKey, nil))
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("free trigger update: %d %s", resp.StatusCode, body)
	}
	freeStatus := decode(t, body)["statusId"].(string)

	cases := []struct {
		name, method, path, key, body string
	}{
		{"unknown project", "POST", "/v1/project/update/prj_00000000000000000000000000", e.entKey, ""},
		{"malformed project id", "POST", "/v1/project/update/nope", e.entKey, ""},
		{"unknown status", "GET", "/v1/project/update-status/upd_00000000000000000000000000", e.entKey, ""},
		{"unknown job", "GET", "/v1/static-export/jobs/exp_00000000000000000000000000", e.entKey, ""},
		{"unknown job bundle", "POST", "/v1/static-export/jobs/exp_00000000000000000000000000/bundle", e.entKey, ""},
		{"unowned domain", "POST", "/v1/static-export/jobs", e.entKey, `{"domain":"nobody.test"}`},
		{"other org's project", "POST", "/v1/project/update/" + e.freeProj.ID, e.entKey, ""},
		{"other org's status", "GET", "/v1/project/update-status/" + freeStatus, e.entKey, ""},
		{"other org's job", "GET", "/v1/static-export/jobs/" + entJob, e.freeKey, ""},
		{"other org's job bundle", "POST", "/v1/static-export/jobs/" + entJob + "/bundle", e.freeKey, ""},
		{"other org's domain", "POST", "/v1/static-export/jobs", e.entKey, `{"domain":"` + freeDomain + `"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var b []byte
			if c.body != "" {
				b = []byte(c.body)
			}
			resp, body := e.do(t, req(c.method, c.path, c.key, b))
			p := wantProblem(t, resp, body, http.StatusNotFound, lectern.ENOTFOUND)
			for _, leak := range []string{e.ent.ID, e.free.ID, e.ent.Name, e.free.Name, "organization"} {
				if strings.Contains(p.Detail, leak) {
					t.Errorf("detail %q reveals %q", p.Detail, leak)
				}
			}
		})
	}
	// The owners still see their records.
	if resp, _ := e.do(t, req("GET", "/v1/project/update-status/"+freeStatus, e.freeKey, nil)); resp.StatusCode != http.StatusOK {
		t.Errorf("owner GET status: %d", resp.StatusCode)
	}
	if resp, _ := e.do(t, req("GET", "/v1/static-export/jobs/"+entJob, e.entKey, nil)); resp.StatusCode != http.StatusOK {
		t.Errorf("owner GET job: %d", resp.StatusCode)
	}
}

func TestRoutingErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t, httpapi.Config{}, nil)
	methods := []struct{ method, path, allow string }{
		{"PUT", "/v1/static-export/jobs", "GET, HEAD, POST"},
		{"POST", "/v1/projects", "GET"},
		{"PUT", "/v1/projects/prj_x", "DELETE, GET, HEAD, PATCH"},
		{"DELETE", "/v1/projects/prj_x/updates", "GET"},
		{"PUT", "/v1/static-export/jobs/exp_x", "GET"},
		{"DELETE", "/v1/static-export/jobs/exp_x", "GET"},
		{"GET", "/v1/static-export/jobs/exp_x/bundle", "POST"},
		{"GET", "/v1/project/update/prj_x", "POST"},
		{"POST", "/v1/project/update-status/upd_x", "GET"},
		{"POST", "/v1/openapi.json", "GET"},
		{"POST", "/healthz", "GET"},
	}
	for _, m := range methods {
		// No documented operation routes these, so apicheck cannot check them.
		resp, body := e.doUnchecked(t, req(m.method, m.path, e.entKey, nil))
		wantProblem(t, resp, body, http.StatusMethodNotAllowed, lectern.EMETHOD)
		if got := resp.Header.Get("Allow"); !strings.Contains(got, m.allow) {
			t.Errorf("%s %s: Allow %q, want %s", m.method, m.path, got, m.allow)
		}
	}
	for _, path := range []string{"/v1/nope", "/v1/static-export/jobs/exp_x/bundle/extra", "/v1/static-export/jobs/", "/v2/static-export/jobs", "/"} {
		resp, body := e.doUnchecked(t, req("GET", path, e.entKey, nil))
		wantProblem(t, resp, body, http.StatusNotFound, lectern.ENOTFOUND)
	}
}
