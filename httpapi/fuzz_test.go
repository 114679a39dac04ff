package httpapi_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"lectern.dev/lectern"
	"lectern.dev/lectern/httpapi"
)

// checkFuzzProblem checks the invariants of a problem answer.
func checkFuzzProblem(t *testing.T, resp *http.Response, body []byte) *problemBody {
	t.Helper()
	if ct := resp.Header.Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("%d with Content-Type %q: %s", resp.StatusCode, ct, body)
	}
	var p problemBody
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatalf("%d problem is not JSON: %v: %q", resp.StatusCode, err, body)
	}
	if p.Status != resp.StatusCode || p.Code == "" || p.Type != "urn:lectern:problem:"+p.Code || p.Detail == "" {
		t.Fatalf("%d: malformed problem %s", resp.StatusCode, body)
	}
	return &p
}

// fuzzCheck validates a response against the OpenAPI document.
func (e *env) fuzzCheck(t *testing.T, r *http.Request, resp *http.Response, body []byte) {
	t.Helper()
	if err := e.check.CheckResponse(r, resp, body); err != nil {
		t.Fatalf("apicheck: %v\nbody: %s", err, body)
	}
}

func FuzzStartExportBody(f *testing.F) {
	for _, s := range []string{
		`{"domain":"docs.ent.test"}`,
		`{"domain":"DOCS.ENT.TEST","basePath":"/docs"}`,
		`{"domain":"\u0064ocs.ent.test"}`,
		`{"domain":" docs.ent.test "}`,
		`{"domain":"docs.ent.test."}`,
		`{"domain":"https://docs.ent.test/x"}`,
		`{"domain":"docs.ent.test:8080"}`,
		`{"domain":"docs.ent.test\u0000"}`,
		`{"domain":"xn--dcs-0na.ent.test"}`,
		`{"domain":"nobody.test","domain":"docs.ent.test"}`,
		`{"Domain":"docs.ent.test"}`,
		`{"domain":["docs.ent.test"]}`,
		`{"domain":{"a":[[[[[[[[[[1]]]]]]]]]]}}`,
		`{"domain":1e999}`,
		`{"domain":"docs.ent.test","basePath":"/a/../b"}`,
		`{"domain":"docs.ent.test","basePath":null}`,
		`{"domain":"docs.ent.test"}garbage`,
		`{}`, `[]`, `null`, ``, `{`, "\xff\xfe{}", `"docs.ent.test"`,
	} {
		f.Add([]byte(s))
	}
	e := newEnv(f, httpapi.Config{}, nil)
	f.Fuzz(func(t *testing.T, body []byte) {
		r := req("POST", "/v1/static-export/jobs", e.entKey, append([]byte{}, body...))
		resp, rb := e.serve(r)
		if resp.StatusCode >= 500 {
			t.Fatalf("body %q: %d %s", body, resp.StatusCode, rb)
		}
		e.fuzzCheck(t, r, resp, rb)
		if resp.StatusCode != http.StatusAccepted {
			checkFuzzProblem(t, resp, rb)
			return
		}
		var job struct {
			JobID  string `json:"jobId"`
			Domain string `json:"domain"`
			Status string `json:"status"`
		}
		if err := json.Unmarshal(rb, &job); err != nil || job.JobID == "" || job.Status != "queued" {
			t.Fatalf("body %q: 202 %s (%v)", body, rb, err)
		}
		if d, err := lectern.NormalizeDomain(job.Domain); err != nil || d != job.Domain {
			t.Fatalf("body %q: 202 with domain %q, which NormalizeDomain gives as %q, %v", body, job.Domain, d, err)
		}
		if job.Domain != entDomain {
			t.Fatalf("body %q: 202 for domain %q, which the organization does not own", body, job.Domain)
		}
	})
}

func FuzzAuthorizationHeader(f *testing.F) {
	for _, s := range []string{
		"Bearer {key}", "bearer {key}", "BEARER {key}", "  Bearer   {key}  ", "Bearer\t{key}", "Bearer {key}\nBearer {key}",
		"Bearer {key}x", "Bearer x{key}", "Bearer {key} {key}", "Basic {key}", "{key}", "Bearer", "Bearer ", "",
		"Bearer lct_", "Bearer lct_00000000000000000000000000000000000000", "Bearer lct_ÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿ",
		"Bearer \x00{key}", "Bearer {key}\x00", "Bearer\u00a0{key}", "Token {key}", "Bearer=\"{key}\"",
	} {
		f.Add(s)
	}
	e := newEnv(f, httpapi.Config{}, nil)
	job := e.startExport(f, e.entKey, entDomain)
	path := "/v1/static-export/jobs/" + job
	f.Fuzz(func(t *testing.T, auth string) {
		auth = strings.ReplaceAll(auth, "{key}", e.entKey)
		r := req("GET", path, "", nil)
		if auth != "" {
			r.Header["Authorization"] = strings.Split(auth, "\n")
		}
		resp, rb := e.serve(r)
		e.fuzzCheck(t, r, resp, rb)
		switch resp.StatusCode {
		case http.StatusOK:
			// Success only for the real key, sent once as a bearer token.
			vals := r.Header.Values("Authorization")
			scheme, token, _ := strings.Cut(strings.TrimSpace(auth), " ")
			if len(vals) != 1 || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) != e.entKey {
				t.Fatalf("Authorization %q: 200", auth)
			}
			if !strings.Contains(string(rb), job) {
				t.Fatalf("Authorization %q: 200 without the job: %s", auth, rb)
			}
		case http.StatusUnauthorized, http.StatusForbidden:
			p := checkFuzzProblem(t, resp, rb)
			if p.Code != lectern.EUNAUTHORIZED && p.Code != lectern.EINVALIDKEY && p.Code != lectern.EORIGIN {
				t.Fatalf("Authorization %q: %d %s", auth, resp.StatusCode, p.Code)
			}
			if resp.StatusCode == http.StatusUnauthorized && !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
				t.Fatalf("Authorization %q: 401 without a Bearer challenge", auth)
			}
		default:
			t.Fatalf("Authorization %q: %d %s", auth, resp.StatusCode, rb)
		}
	})
}
