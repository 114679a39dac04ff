package apicheck_test

import (
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"lectern.dev/lectern/internal/apicheck"
)

// documentPath is Lectern's OpenAPI document, which httpapi embeds.
const documentPath = "../../httpapi/openapi.json"

var loadChecker = sync.OnceValues(func() (*apicheck.Checker, error) {
	doc, err := os.ReadFile(documentPath)
	if err != nil {
		return nil, err
	}
	return apicheck.New(doc)
})

// checker returns the Checker of Lectern's document, shared by all tests.
func checker(t *testing.T) *apicheck.Checker {
	t.Helper()
	c, err := loadChecker()
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}

type obj = map[string]any

// with returns a copy of o with the given key/value pairs set; a nil value
// deletes the key (use jsonNull for a JSON null).
func with(o obj, kv ...any) obj {
	c := maps.Clone(o)
	for i := 0; i < len(kv); i += 2 {
		k := kv[i].(string)
		if kv[i+1] == nil {
			delete(c, k)
		} else {
			c[k] = kv[i+1]
		}
	}
	return c
}

// jsonNull marshals as null, unlike a nil in with.
var jsonNull = json.RawMessage("null")

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	if b, ok := v.(string); ok {
		return []byte(b)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var (
	exportJob = obj{
		"jobId": "exp_01hzy3k6q2v9d8e7f6g5h4j3k2", "domain": "docs.example.com",
		"status": "running", "progress": 42, "pageCount": 17,
		"createdAt": "2025-01-02T03:04:05Z", "updatedAt": "2025-01-02T03:04:06.123456789Z",
		"completedAt": jsonNull, "error": jsonNull,
	}
	updateStatus = obj{
		"statusId": "upd_01hzy3k6q2v9d8e7f6g5h4j3k2", "projectId": "prj_01hzy3k6q2v9d8e7f6g5h4j3k2",
		"status": "queued", "source": "api", "createdAt": "2025-01-02T03:04:05Z",
		"startedAt": jsonNull, "endedAt": jsonNull, "summary": "Queued.",
		"commit": jsonNull, "logs": []string{},
	}
	bundle = obj{
		"jobId": "exp_01hzy3k6q2v9d8e7f6g5h4j3k2", "bundleUrl": "https://bundles.example.com/exp_1.tar.gz?sig=abc",
		"expiresAt": "2025-01-02T04:04:05Z", "sizeBytes": 1048576,
		"sha256": strings.Repeat("ab", 32), "version": "0123456789ab-exp_01hzy3k6q2v9d8e7f6g5h4j3k2",
	}
	commit = obj{"sha": "0123456789abcdef0123456789abcdef01234567", "ref": "refs/heads/main", "message": "Fix typo"}
)

// problem returns a problem details body for code and status.
func problem(code string, status int, kv ...any) obj {
	return with(obj{
		"type": "urn:lectern:problem:" + code, "title": "Title", "status": status,
		"detail": "Detail.", "code": code,
	}, kv...)
}

// Headers.
var (
	rid       = map[string]string{"X-Request-Id": "req_1"}
	jsonCT    = "application/json"
	problemCT = "application/problem+json"
)

func hdr(kv ...string) map[string]string {
	h := maps.Clone(rid)
	for i := 0; i < len(kv); i += 2 {
		if kv[i+1] == "" {
			delete(h, kv[i])
		} else {
			h[kv[i]] = kv[i+1]
		}
	}
	return h
}

var rateLimitHeaders = []string{"Retry-After", "30", "RateLimit-Limit", "100", "RateLimit-Remaining", "0", "RateLimit-Reset", "30"}

type responseCase struct {
	name    string
	method  string
	path    string
	status  int
	ct      string
	headers map[string]string
	body    any      // marshaled to JSON; a string is sent as is
	wantErr []string // substrings of the error; none: must pass
}

func TestCheckResponse(t *testing.T) {
	t.Parallel()
	const (
		jobPath    = "/v1/static-export/jobs/exp_01hzy3k6q2v9d8e7f6g5h4j3k2"
		jobsPath   = "/v1/static-export/jobs"
		bundlePath = jobPath + "/bundle"
		updPath    = "/v1/project/update/prj_01hzy3k6q2v9d8e7f6g5h4j3k2"
		statusPath = "/v1/project/update-status/upd_01hzy3k6q2v9d8e7f6g5h4j3k2"
	)
	location := hdr("Location", jobPath)
	failed := with(exportJob, "status", "failed", "completedAt", "2025-01-02T03:05:00Z",
		"error", obj{"code": "render_failed", "message": "Rendering failed."})

	cases := []responseCase{
		// ExportJob, the happy paths.
		{name: "export job", method: "GET", path: jobPath, status: 200, ct: jsonCT, headers: rid, body: exportJob},
		{name: "export job with charset", method: "GET", path: jobPath, status: 200, ct: "application/json; charset=utf-8", headers: rid, body: exportJob},
		{name: "export job absolute request URL", method: "GET", path: "http://lectern.example.com" + jobPath, status: 200, ct: jsonCT, headers: rid, body: exportJob},
		{name: "export job failed", method: "GET", path: jobPath, status: 200, ct: jsonCT, headers: rid, body: failed},
		{name: "export job with basePath", method: "GET", path: jobPath, status: 200, ct: jsonCT, headers: rid, body: with(exportJob, "basePath", "/docs")},
		{name: "export started", method: "POST", path: jobsPath, status: 202, ct: jsonCT, headers: location, body: exportJob},

		// ExportJob, wrong bodies.
		{name: "missing required field", method: "GET", path: jobPath, status: 200, ct: jsonCT, headers: rid,
			body: with(exportJob, "pageCount", nil), wantErr: []string{`"pageCount"`, "missing"}},
		{name: "missing nullable required field", method: "GET", path: jobPath, status: 200, ct: jsonCT, headers: rid,
			body: with(exportJob, "completedAt", nil), wantErr: []string{`"completedAt"`, "missing"}},
		{name: "unknown extra field", method: "GET", path: jobPath, status: 200, ct: jsonCT, headers: rid,
			body: with(exportJob, "extra", 1), wantErr: []string{`"extra"`, "unsupported"}},
		{name: "bad enum status", method: "GET", path: jobPath, status: 200, ct: jsonCT, headers: rid,
			body: with(exportJob, "status", "done"), wantErr: []string{`"/status"`, "allowed values"}},
		{name: "progress 101", method: "GET", path: jobPath, status: 200, ct: jsonCT, headers: rid,
			body: with(exportJob, "progress", 101), wantErr: []string{`"/progress"`, "at most 100"}},
		{name: "progress negative", method: "GET", path: jobPath, status: 200, ct: jsonCT, headers: rid,
			body: with(exportJob, "progress", -1), wantErr: []string{`"/progress"`, "at least 0"}},
		{name: "progress not an integer", method: "GET", path: jobPath, status: 200, ct: jsonCT, headers: rid,
			body: with(exportJob, "progress", 4.5), wantErr: []string{`"/progress"`, "integer"}},
		{name: "progress as a string", method: "GET", path: jobPath, status: 200, ct: jsonCT, headers: rid,
			body: with(exportJob, "progress", "42"), wantErr: []string{`"/progress"`}},
		{name: "bad date-time", method: "GET", path: jobPath, status: 200, ct: jsonCT, headers: rid,
			body: with(exportJob, "createdAt", "yesterday"), wantErr: []string{`"/createdAt"`, "date-time"}},
		{name: "impossible date-time", method: "GET", path: jobPath, status: 200, ct: jsonCT, headers: rid,
			body: with(exportJob, "createdAt", "2025-02-31T03:04:05Z"), wantErr: []string{`"/createdAt"`, "date-time"}},
		{name: "date without time", method: "GET", path: jobPath, status: 200, ct: jsonCT, headers: rid,
			body: with(exportJob, "createdAt", "2025-01-02"), wantErr: []string{`"/createdAt"`, "date-time"}},
		{name: "date-time not in UTC", method: "GET", path: jobPath, status: 200, ct: jsonCT, headers: rid,
			body: with(exportJob, "updatedAt", "2025-01-02T04:04:05+01:00"), wantErr: []string{`"/updatedAt"`, "Z$"}},
		{name: "nullable date-time of wrong type", method: "GET", path: jobPath, status: 200, ct: jsonCT, headers: rid,
			body: with(exportJob, "completedAt", 1735787045), wantErr: []string{`"/completedAt"`, "string, null"}},
		{name: "nullable date-time not a date-time", method: "GET", path: jobPath, status: 200, ct: jsonCT, headers: rid,
			body: with(exportJob, "completedAt", "soon"), wantErr: []string{`"/completedAt"`, "date-time"}},
		{name: "nullable object of wrong type", method: "GET", path: jobPath, status: 200, ct: jsonCT, headers: rid,
			body: with(exportJob, "error", "boom"), wantErr: []string{`"/error"`, "oneOf"}},
		{name: "nullable object missing a field", method: "GET", path: jobPath, status: 200, ct: jsonCT, headers: rid,
			body: with(failed, "error", obj{"code": "x"}), wantErr: []string{`"/error"`, `"message"`}},
		{name: "nullable object with extra field", method: "GET", path: jobPath, status: 200, ct: jsonCT, headers: rid,
			body: with(failed, "error", obj{"code": "x", "message": "m", "stack": "…"}), wantErr: []string{`"/error"`, `"stack"`}},
		{name: "body not JSON", method: "GET", path: jobPath, status: 200, ct: jsonCT, headers: rid,
			body: `{"jobId":`, wantErr: []string{"decode"}},
		{name: "empty body", method: "GET", path: jobPath, status: 200, ct: jsonCT, headers: rid,
			body: ``, wantErr: []string{"decode"}},
		{name: "array instead of object", method: "GET", path: jobPath, status: 200, ct: jsonCT, headers: rid,
			body: []obj{exportJob}, wantErr: []string{"object"}},

		// Headers.
		{name: "no X-Request-Id", method: "GET", path: jobPath, status: 200, ct: jsonCT, headers: nil,
			body: exportJob, wantErr: []string{`missing required header "X-Request-Id"`}},
		{name: "empty X-Request-Id", method: "GET", path: jobPath, status: 200, ct: jsonCT, headers: map[string]string{"X-Request-Id": ""},
			body: exportJob, wantErr: []string{`"X-Request-Id"`}},
		{name: "202 without Location", method: "POST", path: jobsPath, status: 202, ct: jsonCT, headers: rid,
			body: exportJob, wantErr: []string{`missing required header "Location"`}},
		{name: "202 with a Location that is no URI", method: "POST", path: jobsPath, status: 202, ct: jsonCT,
			headers: hdr("Location", "/v1/static-export/jobs/a b"), body: exportJob, wantErr: []string{`"Location"`, "uri-reference"}},

		// Status codes and content types.
		{name: "undocumented status", method: "GET", path: jobPath, status: 418, ct: jsonCT, headers: rid,
			body: obj{}, wantErr: []string{"status 418 is not documented", "200, 401, 403, 404, 429, 500, 503"}},
		{name: "status documented elsewhere only", method: "GET", path: jobPath, status: 400, ct: problemCT, headers: rid,
			body: problem("invalid_request", 400, "errors", []obj{}), wantErr: []string{"status 400 is not documented"}},
		{name: "redirect status", method: "GET", path: jobPath, status: 307, headers: hdr("Location", "/elsewhere"),
			body: ``, wantErr: []string{"status 307 is not documented"}},
		{name: "error as application/json", method: "GET", path: jobPath, status: 404, ct: jsonCT, headers: rid,
			body: problem("not_found", 404), wantErr: []string{`Content-Type "application/json" is not documented`, "application/problem+json"}},
		{name: "success as problem+json", method: "GET", path: jobPath, status: 200, ct: problemCT, headers: rid,
			body: exportJob, wantErr: []string{`Content-Type "application/problem+json" is not documented`}},
		{name: "no content type", method: "GET", path: jobPath, status: 200, headers: rid,
			body: exportJob, wantErr: []string{`Content-Type "" is not documented`}},

		// Problems.
		{name: "404", method: "GET", path: jobPath, status: 404, ct: problemCT, headers: rid, body: problem("not_found", 404)},
		{name: "404 with request id", method: "GET", path: jobPath, status: 404, ct: problemCT, headers: rid, body: problem("not_found", 404, "requestId", "req_1")},
		{name: "401", method: "GET", path: jobPath, status: 401, ct: problemCT, headers: hdr("WWW-Authenticate", "Bearer"), body: problem("unauthorized", 401)},
		{name: "401 invalid key", method: "POST", path: updPath, status: 401, ct: problemCT,
			headers: hdr("WWW-Authenticate", `Bearer realm="lectern", error="invalid_token"`), body: problem("invalid_api_key", 401)},
		{name: "401 without WWW-Authenticate", method: "GET", path: jobPath, status: 401, ct: problemCT, headers: rid,
			body: problem("unauthorized", 401), wantErr: []string{`missing required header "WWW-Authenticate"`}},
		{name: "401 with Basic challenge", method: "GET", path: jobPath, status: 401, ct: problemCT,
			headers: hdr("WWW-Authenticate", `Basic realm="x"`), body: problem("unauthorized", 401), wantErr: []string{`"WWW-Authenticate"`}},
		{name: "401 carrying another status's code", method: "GET", path: jobPath, status: 401, ct: problemCT,
			headers: hdr("WWW-Authenticate", "Bearer"), body: problem("not_found", 401), wantErr: []string{`"/code"`, "unauthorized"}},
		{name: "problem status differs from HTTP status", method: "GET", path: jobPath, status: 404, ct: problemCT, headers: rid,
			body: problem("not_found", 400), wantErr: []string{`"/status"`}},
		{name: "problem code outside the enum", method: "GET", path: jobPath, status: 404, ct: problemCT, headers: rid,
			body: problem("missing", 404), wantErr: []string{`"/code"`}},
		{name: "problem missing detail", method: "GET", path: jobPath, status: 404, ct: problemCT, headers: rid,
			body: with(problem("not_found", 404), "detail", nil), wantErr: []string{`"detail"`}},
		{name: "problem with unknown member", method: "GET", path: jobPath, status: 404, ct: problemCT, headers: rid,
			body: problem("not_found", 404, "hint", "x"), wantErr: []string{`"hint"`}},
		{name: "403 plan required", method: "POST", path: jobsPath, status: 403, ct: problemCT, headers: rid, body: problem("plan_required", 403)},
		{name: "403 plan required on updates", method: "POST", path: updPath, status: 403, ct: problemCT, headers: rid,
			body: problem("plan_required", 403), wantErr: []string{`"/code"`}},
		{name: "400 with errors", method: "POST", path: jobsPath, status: 400, ct: problemCT, headers: rid,
			body: problem("invalid_request", 400, "errors", []obj{{"field": "domain", "message": "is required"}})},
		{name: "400 without errors", method: "POST", path: jobsPath, status: 400, ct: problemCT, headers: rid,
			body: problem("invalid_request", 400), wantErr: []string{`"errors"`}},
		{name: "400 with a malformed field error", method: "POST", path: jobsPath, status: 400, ct: problemCT, headers: rid,
			body: problem("invalid_request", 400, "errors", []obj{{"field": "domain"}}), wantErr: []string{`"message"`}},
		{name: "409 export in progress", method: "POST", path: jobsPath, status: 409, ct: problemCT, headers: rid,
			body: problem("export_in_progress", 409, "jobId", "exp_1")},
		{name: "409 export in progress without jobId", method: "POST", path: jobsPath, status: 409, ct: problemCT, headers: rid,
			body: problem("export_in_progress", 409), wantErr: []string{"jobId"}},
		{name: "409 idempotency key in use needs no jobId", method: "POST", path: jobsPath, status: 409, ct: problemCT, headers: rid,
			body: problem("idempotency_key_in_use", 409)},
		{name: "409 job not completed", method: "POST", path: bundlePath, status: 409, ct: problemCT, headers: rid, body: problem("job_not_completed", 409)},
		{name: "409 job failed", method: "POST", path: bundlePath, status: 409, ct: problemCT, headers: rid, body: problem("job_failed", 409)},
		{name: "409 export in progress on bundles", method: "POST", path: bundlePath, status: 409, ct: problemCT, headers: rid,
			body: problem("export_in_progress", 409, "jobId", "exp_1"), wantErr: []string{`"/code"`}},
		{name: "413", method: "POST", path: jobsPath, status: 413, ct: problemCT, headers: rid, body: problem("request_too_large", 413)},
		{name: "415", method: "POST", path: jobsPath, status: 415, ct: problemCT, headers: rid, body: problem("unsupported_media_type", 415)},
		{name: "422", method: "POST", path: updPath, status: 422, ct: problemCT, headers: rid, body: problem("idempotency_key_reused", 422)},
		{name: "429", method: "GET", path: statusPath, status: 429, ct: problemCT, headers: hdr(rateLimitHeaders...), body: problem("rate_limited", 429)},
		{name: "429 without rate limit headers", method: "GET", path: statusPath, status: 429, ct: problemCT, headers: rid,
			body: problem("rate_limited", 429), wantErr: []string{
				`missing required header "Retry-After"`, `missing required header "RateLimit-Limit"`,
				`missing required header "RateLimit-Remaining"`, `missing required header "RateLimit-Reset"`}},
		{name: "429 with an HTTP-date Retry-After", method: "GET", path: statusPath, status: 429, ct: problemCT,
			headers: hdr(append(rateLimitHeaders, "Retry-After", "Wed, 21 Oct 2015 07:28:00 GMT")...), body: problem("rate_limited", 429),
			wantErr: []string{`"Retry-After"`}},
		{name: "500", method: "GET", path: statusPath, status: 500, ct: problemCT, headers: rid, body: problem("internal", 500, "requestId", "req_1")},
		{name: "500 without requestId", method: "GET", path: statusPath, status: 500, ct: problemCT, headers: rid,
			body: problem("internal", 500), wantErr: []string{`"requestId"`}},
		{name: "503", method: "GET", path: statusPath, status: 503, ct: problemCT, headers: hdr("Retry-After", "5"), body: problem("unavailable", 503)},
		{name: "503 without Retry-After", method: "GET", path: statusPath, status: 503, ct: problemCT, headers: rid,
			body: problem("unavailable", 503), wantErr: []string{`missing required header "Retry-After"`}},

		// UpdateStatus and the trigger.
		{name: "update triggered", method: "POST", path: updPath, status: 202, ct: jsonCT,
			headers: hdr("Location", statusPath), body: obj{"statusId": "upd_01hzy3k6q2v9d8e7f6g5h4j3k2"}},
		{name: "update triggered with extra field", method: "POST", path: updPath, status: 202, ct: jsonCT,
			headers: hdr("Location", statusPath), body: obj{"statusId": "upd_1", "status": "queued"}, wantErr: []string{"status", "not allowed"}},
		{name: "update triggered with another status", method: "POST", path: updPath, status: 200, ct: jsonCT,
			headers: rid, body: obj{"statusId": "upd_1"}, wantErr: []string{"status 200 is not documented"}},
		{name: "queued update", method: "GET", path: statusPath, status: 200, ct: jsonCT, headers: rid, body: updateStatus},
		{name: "finished update", method: "GET", path: statusPath, status: 200, ct: jsonCT, headers: rid,
			body: with(updateStatus, "status", "success", "startedAt", "2025-01-02T03:04:06Z", "endedAt", "2025-01-02T03:05:06Z",
				"commit", commit, "logs", []string{"fetched", "rendered 17 pages"})},
		{name: "superseded update", method: "GET", path: statusPath, status: 200, ct: jsonCT, headers: rid,
			body: with(updateStatus, "status", "superseded", "supersededBy", "upd_2")},
		{name: "update logs null", method: "GET", path: statusPath, status: 200, ct: jsonCT, headers: rid,
			body: with(updateStatus, "logs", jsonNull), wantErr: []string{`"/logs"`}},
		{name: "update commit with extra field", method: "GET", path: statusPath, status: 200, ct: jsonCT, headers: rid,
			body: with(updateStatus, "commit", with(commit, "author", "me")), wantErr: []string{`"/commit"`, `"author"`}},
		{name: "update commit of wrong type", method: "GET", path: statusPath, status: 200, ct: jsonCT, headers: rid,
			body: with(updateStatus, "commit", "0123456"), wantErr: []string{`"/commit"`}},
		{name: "update bad status", method: "GET", path: statusPath, status: 200, ct: jsonCT, headers: rid,
			body: with(updateStatus, "status", "running"), wantErr: []string{`"/status"`}},
		{name: "update startedAt of wrong type", method: "GET", path: statusPath, status: 200, ct: jsonCT, headers: rid,
			body: with(updateStatus, "startedAt", false), wantErr: []string{`"/startedAt"`}},

		// Bundle.
		{name: "bundle", method: "POST", path: bundlePath, status: 200, ct: jsonCT, headers: rid, body: bundle},
		{name: "bundle URL not a URI", method: "POST", path: bundlePath, status: 200, ct: jsonCT, headers: rid,
			body: with(bundle, "bundleUrl", "bundles/exp_1.tar.gz"), wantErr: []string{`"/bundleUrl"`, "uri"}},
		{name: "bundle expiry impossible date", method: "POST", path: bundlePath, status: 200, ct: jsonCT, headers: rid,
			body: with(bundle, "expiresAt", "2025-02-30T00:00:00Z"), wantErr: []string{`"/expiresAt"`, "date-time"}},
		{name: "bundle sha256 upper-case", method: "POST", path: bundlePath, status: 200, ct: jsonCT, headers: rid,
			body: with(bundle, "sha256", strings.Repeat("AB", 32)), wantErr: []string{`"/sha256"`}},
		{name: "bundle size negative", method: "POST", path: bundlePath, status: 200, ct: jsonCT, headers: rid,
			body: with(bundle, "sizeBytes", -1), wantErr: []string{`"/sizeBytes"`}},
		{name: "bundle 202", method: "POST", path: bundlePath, status: 202, ct: jsonCT, headers: rid,
			body: bundle, wantErr: []string{"status 202 is not documented"}},

		// Routing.
		{name: "unknown path", method: "GET", path: "/v1/static-export", status: 200, ct: jsonCT, headers: rid,
			body: obj{}, wantErr: []string{"no operation"}},
		{name: "unknown method", method: "DELETE", path: jobPath, status: 200, ct: jsonCT, headers: rid,
			body: obj{}, wantErr: []string{"no operation"}},
		{name: "path without the /v1 prefix", method: "GET", path: "/static-export/jobs/exp_1", status: 200, ct: jsonCT, headers: rid,
			body: exportJob, wantErr: []string{"no operation"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := checker(t)
			req := httptest.NewRequest(tc.method, tc.path, nil)
			rec := httptest.NewRecorder()
			if tc.ct != "" {
				rec.Header().Set("Content-Type", tc.ct)
			}
			for k, v := range tc.headers {
				rec.Header().Set(k, v)
			}
			rec.WriteHeader(tc.status)
			body := mustJSON(t, tc.body)
			rec.Write(body)
			resp := rec.Result()
			err := c.CheckResponse(req, resp, body)
			checkErr(t, err, tc.wantErr)
		})
	}
}

// checkErr fails unless err is nil where want is empty, or an error holding
// every substring of want.
func checkErr(t *testing.T, err error, want []string) {
	t.Helper()
	switch {
	case len(want) == 0 && err != nil:
		t.Fatalf("want no error, got:\n%v", err)
	case len(want) > 0 && err == nil:
		t.Fatalf("want an error mentioning %q, got none", want)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error does not mention %q:\n%v", w, err)
		}
	}
}

// TestCheckResponseListsEveryProblem shows that one call reports all the
// problems of a response, headers and body, not just the first.
func TestCheckResponseListsEveryProblem(t *testing.T) {
	t.Parallel()
	c := checker(t)
	req := httptest.NewRequest("GET", "/v1/static-export/jobs/exp_1", nil)
	body := mustJSON(t, with(exportJob, "status", "bogus", "progress", 101, "createdAt", "x", "pageCount", nil, "extra", true))
	resp := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {jsonCT}}}
	err := c.CheckResponse(req, resp, body)
	checkErr(t, err, []string{
		"GET /v1/static-export/jobs/exp_1 (getExport) → 200",
		`missing required header "X-Request-Id"`, `"/status"`, `"/progress"`, `"/createdAt"`, `"pageCount"`, `"extra"`,
	})
	if n := strings.Count(err.Error(), "\n  - "); n < 6 {
		t.Errorf("want one line per problem (6 at least), got %d:\n%v", n, err)
	}
}

// TestServesItsOwnDocument checks the document as the body of getOpenAPI.
func TestServesItsOwnDocument(t *testing.T) {
	t.Parallel()
	c := checker(t)
	doc, err := os.ReadFile(documentPath)
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest("GET", "/v1/openapi.json", nil)
	resp := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {jsonCT}, "X-Request-Id": {"r"}}}
	if err := c.CheckResponse(req, resp, doc); err != nil {
		t.Fatal(err)
	}
	if err := c.CheckRequest(req, nil); err != nil {
		t.Fatalf("getOpenAPI needs no API key: %v", err)
	}
}

func TestCheckRequest(t *testing.T) {
	t.Parallel()
	const bearer = "Bearer lct_0123456789abcdefghijABCDEFGHIJ01abcdef"
	type requestCase struct {
		name    string
		method  string
		path    string
		headers map[string]string
		body    any // nil: no body
		wantErr []string
	}
	auth := map[string]string{"Authorization": bearer}
	authJSON := map[string]string{"Authorization": bearer, "Content-Type": jsonCT}
	withKey := func(h map[string]string, key string) map[string]string {
		h = maps.Clone(h)
		h["Idempotency-Key"] = key
		return h
	}
	exportReq := obj{"domain": "docs.example.com"}
	cases := []requestCase{
		{name: "start export", method: "POST", path: "/v1/static-export/jobs", headers: authJSON, body: exportReq},
		{name: "start export with base path and key", method: "POST", path: "/v1/static-export/jobs",
			headers: withKey(authJSON, "k-1"), body: with(exportReq, "basePath", "/docs")},
		{name: "start export with charset", method: "POST", path: "/v1/static-export/jobs",
			headers: map[string]string{"Authorization": bearer, "Content-Type": "application/json; charset=utf-8"}, body: exportReq},
		{name: "start export without body", method: "POST", path: "/v1/static-export/jobs", headers: authJSON,
			wantErr: []string{"request body", "missing"}},
		{name: "start export unknown field", method: "POST", path: "/v1/static-export/jobs", headers: authJSON,
			body: with(exportReq, "format", "zip"), wantErr: []string{"request body", "format"}},
		{name: "start export missing domain", method: "POST", path: "/v1/static-export/jobs", headers: authJSON,
			body: obj{"basePath": "/"}, wantErr: []string{"domain"}},
		{name: "start export bad domain", method: "POST", path: "/v1/static-export/jobs", headers: authJSON,
			body: obj{"domain": "docs example.com"}, wantErr: []string{"/domain", "hostname"}},
		{name: "start export domain too long", method: "POST", path: "/v1/static-export/jobs", headers: authJSON,
			body: obj{"domain": strings.Repeat("a.", 127) + "com"}, wantErr: []string{"/domain"}},
		{name: "start export relative base path", method: "POST", path: "/v1/static-export/jobs", headers: authJSON,
			body: with(exportReq, "basePath", "docs"), wantErr: []string{"/basePath"}},
		{name: "start export wrong content type", method: "POST", path: "/v1/static-export/jobs",
			headers: map[string]string{"Authorization": bearer, "Content-Type": "text/plain"}, body: `{"domain":"docs.example.com"}`,
			wantErr: []string{"text/plain"}},
		{name: "start export not JSON", method: "POST", path: "/v1/static-export/jobs", headers: authJSON,
			body: `{"domain":`, wantErr: []string{"request body"}},
		{name: "no Authorization", method: "POST", path: "/v1/static-export/jobs",
			headers: map[string]string{"Content-Type": jsonCT}, body: exportReq, wantErr: []string{"Authorization: Bearer"}},
		{name: "Basic Authorization", method: "GET", path: "/v1/static-export/jobs/exp_1",
			headers: map[string]string{"Authorization": "Basic dXNlcjpwYXNz"}, wantErr: []string{"Authorization: Bearer"}},
		{name: "empty bearer token", method: "GET", path: "/v1/static-export/jobs/exp_1",
			headers: map[string]string{"Authorization": "Bearer "}, wantErr: []string{"Authorization: Bearer"}},
		{name: "idempotency key too long", method: "POST", path: "/v1/project/update/prj_1",
			headers: withKey(auth, strings.Repeat("k", 256)), wantErr: []string{`"Idempotency-Key"`}},
		{name: "idempotency key of 255 characters", method: "POST", path: "/v1/project/update/prj_1",
			headers: withKey(auth, strings.Repeat("k", 255))},
		{name: "trigger update", method: "POST", path: "/v1/project/update/prj_01hzy3k6q2v9d8e7f6g5h4j3k2", headers: auth},
		{name: "trigger update of malformed project ID", method: "POST", path: "/v1/project/update/not-a-project", headers: auth},
		{name: "trigger update with a body", method: "POST", path: "/v1/project/update/prj_1", headers: authJSON,
			body: obj{}, wantErr: []string{"request body not allowed"}},
		{name: "update status", method: "GET", path: "/v1/project/update-status/upd_1", headers: auth},
		{name: "get export", method: "GET", path: "/v1/static-export/jobs/exp_1", headers: auth},
		{name: "create bundle", method: "POST", path: "/v1/static-export/jobs/exp_1/bundle", headers: withKey(auth, "b-1")},
		{name: "openapi without a key", method: "GET", path: "/v1/openapi.json"},
		{name: "unknown operation", method: "PUT", path: "/v1/static-export/jobs", headers: auth, wantErr: []string{"no operation"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := checker(t)
			var body []byte
			if tc.body != nil {
				body = mustJSON(t, tc.body)
			}
			req := httptest.NewRequest(tc.method, tc.path, nil)
			for k, v := range tc.headers {
				req.Header.Set(k, v)
			}
			checkErr(t, c.CheckRequest(req, body), tc.wantErr)
		})
	}
}

func TestNewRejects(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(documentPath)
	if err != nil {
		t.Fatal(err)
	}
	replace := func(old, new string) []byte {
		if !strings.Contains(string(doc), old) {
			t.Fatalf("document has no %q", old)
		}
		return []byte(strings.Replace(string(doc), old, new, 1))
	}
	cases := map[string]struct {
		doc  []byte
		want string
	}{
		"not JSON":                     {[]byte(`{"openapi":`), "loading"},
		"OpenAPI 3.0":                  {replace(`"openapi": "3.1.0"`, `"openapi": "3.0.3"`), "want 3.1"},
		"dangling $ref":                {replace(`"#/components/schemas/JobError"`, `"#/components/schemas/JobErr"`), "JobErr"},
		"unknown type":                 {replace(`"type": "integer"`, `"type": "int"`), "int"},
		"misspelt format":              {replace(`"format": "date-time"`, `"format": "date-tme"`), "date-tme"},
		"response without description": {replace(`"description": "The export job."`, `"summary": "The export job."`), "description"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := apicheck.New(tc.doc)
			checkErr(t, err, []string{tc.want})
		})
	}
}
