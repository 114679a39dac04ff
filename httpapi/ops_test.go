package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/httpapi"
)

func TestOpenAPIDocumentServed(t *testing.T) {
	t.Parallel()
	e := newEnv(t, httpapi.Config{}, nil)
	resp, body := e.do(t, req("GET", "/v1/openapi.json", "", nil))
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("GET /v1/openapi.json: %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var doc struct {
		OpenAPI string         `json:"openapi"`
		Info    map[string]any `json:"info"`
		Paths   map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.1") {
		t.Errorf("openapi %q, want 3.1.x", doc.OpenAPI)
	}
	for _, p := range []string{"/project/update/{projectId}", "/static-export/jobs", "/static-export/jobs/{jobId}", "/static-export/jobs/{jobId}/bundle"} {
		if doc.Paths[p] == nil {
			t.Errorf("the served document lacks path %s", p)
		}
	}
	if string(body) != string(httpapi.OpenAPIDocument()) {
		t.Errorf("the served document differs from OpenAPIDocument()")
	}
}

func TestHealthAndReadiness(t *testing.T) {
	t.Parallel()
	e := newEnv(t, httpapi.Config{}, nil)
	for _, path := range []string{"/healthz", "/readyz"} {
		if resp, body := e.do(t, req("GET", path, "", nil)); resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %d %s", path, resp.StatusCode, body)
		}
	}
	e.h.Drain()
	if resp, body := e.do(t, req("GET", "/readyz", "", nil)); resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("GET /readyz after Drain: %d %s, want 503", resp.StatusCode, body)
	}
	if resp, _ := e.do(t, req("GET", "/healthz", "", nil)); resp.StatusCode != http.StatusOK {
		t.Errorf("GET /healthz after Drain: %d, want 200", resp.StatusCode)
	}
	// Draining stops new traffic from the balancer; requests still in flight work.
	if resp, body := e.do(t, req("POST", "/v1/project/update/"+e.entProj.ID, e.entKey, nil)); resp.StatusCode != http.StatusAccepted {
		t.Errorf("API call while draining: %d %s", resp.StatusCode, body)
	}

	// Not ready when the store is down.
	e2 := newEnv(t, httpapi.Config{}, nil)
	e2.raw.Close()
	if resp, body := e2.do(t, req("GET", "/readyz", "", nil)); resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("GET /readyz with the store closed: %d %s, want 503", resp.StatusCode, body)
	}
}

func TestMetrics(t *testing.T) {
	t.Parallel()
	e := newEnv(t, httpapi.Config{}, nil)
	e.startExport(t, e.entKey, entDomain)
	e.do(t, req("GET", "/v1/static-export/jobs/exp_00000000000000000000000000", e.entKey, nil))
	resp, body := e.do(t, req("GET", "/metrics", "", nil))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %d", resp.StatusCode)
	}
	text := string(body)
	for _, re := range []string{
		`lectern_http_requests_total\{code="202",method="POST",route="/v1/static-export/jobs"\} 1`,
		`lectern_http_requests_total\{code="404",method="GET",route="/v1/static-export/jobs/\{jobId\}"\} 1`,
		`lectern_http_request_duration_seconds_count\{method="POST",route="/v1/static-export/jobs"\} 1`,
	} {
		if !regexp.MustCompile(re).MatchString(text) {
			t.Errorf("/metrics lacks %s", re)
		}
	}
	// Labels are route patterns, never raw paths with IDs.
	if strings.Contains(text, "exp_0000") {
		t.Errorf("/metrics has a raw path label")
	}
}

// TestLogsHoldNoKeys sends keys every way a client could, with request
// logging on, failures and panics included, and checks the log. (Every env
// also checks its log for its keys when its test ends.)
func TestLogsHoldNoKeys(t *testing.T) {
	t.Parallel()
	e := newEnv(t, httpapi.Config{LogRequests: true, RateLimit: httpapi.RateLimit{Rate: 0.1, Burst: 2}}, nil)
	job := e.startExport(t, e.entKey, entDomain)
	revoked, revokedID := e.newKey(e.ent.ID)
	e.raw.RevokeAPIKey(context.Background(), revokedID, time.Now())
	unknown := lectern.NewAPIKey()
	e.remember(unknown)
	badSum := badChecksum(e.freeKey)
	e.remember(badSum)
	for _, key := range []string{e.entKey, e.freeKey, revoked, unknown, badSum} {
		for _, r := range []*http.Request{
			req("GET", "/v1/static-export/jobs/"+job, key, nil),
			req("POST", "/v1/project/update/"+e.entProj.ID, key, nil),
			req("POST", "/v1/static-export/jobs", key, []byte(`{"domain":"`+entDomain+`"}`)), // 429 by now
		} {
			e.do(t, r)
		}
		r := req("GET", "/v1/static-export/jobs/"+job, key, nil)
		r.Header.Set("Origin", "https://app.example")
		e.do(t, r)
		r = req("GET", "/v1/static-export/jobs/"+job, "", nil)
		r.Header.Set("Authorization", "Basic "+key)
		e.do(t, r)
	}
	// A failure logged at error level after authentication.
	e.raw.Close()
	e.do(t, req("GET", "/v1/static-export/jobs/"+job, e.entKey, nil))

	logs := e.logs.String()
	for _, status := range []string{"200", "202", "401", "403", "429", "500"} {
		if !strings.Contains(logs, `"status":`+status) {
			t.Errorf("no request answered %s was logged", status)
		}
	}
	if !strings.Contains(logs, `"status":500`) || !strings.Contains(logs, `"route":"/v1/static-export/jobs/{jobId}"`) {
		t.Errorf("the request log does not show the requests:\n%s", logs)
	}
	for _, k := range []string{e.entKey, e.freeKey, revoked, unknown, badSum} {
		if strings.Contains(logs, k[len(lectern.APIKeyPrefix):]) {
			t.Errorf("the log holds key %s…", k[:8])
		}
	}
}
