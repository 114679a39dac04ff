package apicheck_test

import (
	"fmt"
	"iter"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"lectern.dev/lectern/internal/apicheck"
)

// The stable error codes of lectern's errors.go that the API may send.
var errorCodes = []string{
	"unauthorized", "invalid_api_key", "browser_origin_forbidden", "plan_required",
	"invalid_request", "unsupported_media_type", "request_too_large", "not_found",
	"job_not_completed", "job_failed", "export_in_progress", "rate_limited", "internal",
	"idempotency_key_reused", "idempotency_key_in_use", "method_not_allowed",
	"unavailable", "conflict",
}

func TestDocumentLoads(t *testing.T) {
	t.Parallel()
	doc := checker(t).Document()
	if doc.OpenAPI != "3.1.0" || !doc.IsOpenAPI31OrLater() {
		t.Errorf("openapi = %q, want 3.1.0", doc.OpenAPI)
	}
	if doc.Info.Title != "Lectern API" || doc.Info.Version != "1.0.0" {
		t.Errorf("info = %q %q", doc.Info.Title, doc.Info.Version)
	}
	if len(doc.Servers) != 1 || doc.Servers[0].URL != "/v1" {
		t.Errorf("servers = %v, want one, /v1", doc.Servers)
	}
	if s := doc.Components.SecuritySchemes["bearerAuth"]; s == nil || s.Value.Type != "http" || s.Value.Scheme != "bearer" {
		t.Errorf("bearerAuth is not an http bearer scheme: %+v", s)
	}
	if len(doc.Security) != 1 || doc.Security[0]["bearerAuth"] == nil {
		t.Errorf("security = %v, want bearerAuth", doc.Security)
	}
	want := map[string]string{
		"triggerUpdate":   "POST /project/update/{projectId}",
		"getUpdateStatus": "GET /project/update-status/{statusId}",
		"startExport":     "POST /static-export/jobs",
		"getExport":       "GET /static-export/jobs/{jobId}",
		"createBundle":    "POST /static-export/jobs/{jobId}/bundle",
		"getOpenAPI":      "GET /openapi.json",
		// Projects over time.
		"listProjects":      "GET /projects",
		"getProject":        "GET /projects/{projectId}",
		"updateProject":     "PATCH /projects/{projectId}",
		"deleteProject":     "DELETE /projects/{projectId}",
		"listUpdates":       "GET /projects/{projectId}/updates",
		"listDeployments":   "GET /projects/{projectId}/deployments",
		"promoteDeployment": "POST /projects/{projectId}/deployments/{deploymentId}/promote",
		"cancelUpdate":      "POST /project/update-status/{statusId}/cancel",
		"listExports":       "GET /static-export/jobs",
		"cancelExport":      "POST /static-export/jobs/{jobId}/cancel",
		"listWebhooks":      "GET /webhooks",
		"createWebhook":     "POST /webhooks",
		"getWebhook":        "GET /webhooks/{webhookId}",
		"deleteWebhook":     "DELETE /webhooks/{webhookId}",
		"listDeliveries":    "GET /webhooks/{webhookId}/deliveries",
		"askAssistant":      "POST /assistant/{domain}/message",
		// Analytics reports.
		"getAnalyticsViews":     "GET /analytics/{projectId}/views",
		"getAnalyticsSearches":  "GET /analytics/{projectId}/searches",
		"getAnalyticsFeedback":  "GET /analytics/{projectId}/feedback",
		"getAnalyticsAssistant": "GET /analytics/{projectId}/assistant",
	}
	got := map[string]string{}
	for r, op := range operations(doc) {
		got[op.OperationID] = r.method + " " + r.path
	}
	if len(got) != len(want) {
		t.Errorf("operations = %v, want %v", got, want)
	}
	for id, route := range want {
		if got[id] != route {
			t.Errorf("operation %s is %q, want %q", id, got[id], route)
		}
	}
	problem := doc.Components.Schemas["Problem"].Value
	if code := problem.Properties["code"].Value; !slices.Equal(anyStrings(code.Enum), errorCodes) {
		t.Errorf("Problem.code enum = %v, want %v", code.Enum, errorCodes)
	}
}

// TestDocumentConventions walks the document for the rules every operation
// and response must follow.
func TestDocumentConventions(t *testing.T) {
	t.Parallel()
	doc := checker(t).Document()
	for r, op := range operations(doc) {
		method, name := r.method, r.method+" "+r.path
		if op.OperationID == "" || op.Summary == "" || op.Description == "" {
			t.Errorf("%s: operationId, summary and description are all required", name)
		}
		public := op.Security != nil && len(*op.Security) == 0
		must := []int{429, 500}
		if !public {
			must = append(must, 401, 403, 503)
			// A record named in the path may be missing (or another
			// organization's); a list of the key's own records may not.
			if strings.Contains(r.path, "{") {
				must = append(must, 404)
			}
		}
		for _, status := range must {
			if op.Responses.Status(status) == nil {
				t.Errorf("%s (%s) does not document %d", name, op.OperationID, status)
			}
		}
		if op.Responses.Default() != nil {
			t.Errorf("%s: a default response would hide undocumented statuses", name)
		}
		// The assistant's answer streams as it is written: there is no
		// response to replay, so it takes no Idempotency-Key.
		if method == http.MethodPost && !public && op.OperationID != "askAssistant" {
			if p := op.Parameters.GetByInAndName("header", "Idempotency-Key"); p == nil || p.Required {
				t.Errorf("%s: POST must take an optional Idempotency-Key header", name)
			}
			for _, status := range []int{409, 422} {
				if op.Responses.Status(status) == nil {
					t.Errorf("%s: POST with Idempotency-Key must document %d", name, status)
				}
			}
		}
		for code, ref := range op.Responses.Map() {
			status, err := strconv.Atoi(code)
			if err != nil {
				t.Errorf("%s: response %q is not a status code", name, code)
				continue
			}
			resp := ref.Value
			where := name + " → " + code
			checkRequestID(t, where, resp)
			if status >= 400 {
				codes := checkProblemResponse(t, where, status, resp)
				// Spelled out in the response's and in the operation's description.
				for _, c := range codes {
					if !strings.Contains(*resp.Description, "`"+c+"`") {
						t.Errorf("%s: the response's description does not name the code %q", where, c)
					}
					if !strings.Contains(op.Description, "`"+c+"`") {
						t.Errorf("%s: the operation's description does not name the code %q of %d", name, c, status)
					}
				}
			} else if status == http.StatusNoContent {
				if len(resp.Content) != 0 {
					t.Errorf("%s: 204 has no body", where)
				}
			} else if err := successMedia(method, resp.Content); err != "" {
				t.Errorf("%s: %s", where, err)
			}
			if status == http.StatusAccepted && resp.Headers["Location"] == nil {
				t.Errorf("%s: 202 must document Location", where)
			}
		}
	}
	for name, ref := range doc.Components.Responses {
		checkRequestID(t, "components.responses."+name, ref.Value)
	}
	for _, status := range []struct {
		name    string
		headers []string
	}{
		{"Unauthorized", []string{"WWW-Authenticate"}},
		{"TooManyRequests", []string{"Retry-After", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"}},
		{"Unavailable", []string{"Retry-After"}},
	} {
		resp := doc.Components.Responses[status.name]
		for _, h := range status.headers {
			if resp == nil || resp.Value.Headers[h] == nil || !resp.Value.Headers[h].Value.Required {
				t.Errorf("components.responses.%s must require header %s", status.name, h)
			}
		}
	}
}

// TestDocumentUses31Nullability makes sure no schema relies on the OpenAPI
// 3.0 keyword nullable, which an OpenAPI 3.1 document validated by
// kin-openapi ignores (see TestNullableKeywordIsIgnored): null must be
// allowed with a type array or a oneOf with {"type": "null"}.
func TestDocumentUses31Nullability(t *testing.T) {
	t.Parallel()
	doc := checker(t).Document()
	nullable := 0
	seen := map[*openapi3.Schema]bool{}
	var walk func(where string, ref *openapi3.SchemaRef)
	walk = func(where string, ref *openapi3.SchemaRef) {
		if ref == nil || ref.Value == nil || seen[ref.Value] {
			return
		}
		s := ref.Value
		seen[s] = true
		if s.Nullable {
			t.Errorf("%s uses nullable: use a type array with \"null\"", where)
		}
		if s.Type.IncludesNull() {
			nullable++
		}
		for name, p := range s.Properties {
			walk(where+"."+name, p)
		}
		walk(where+"[]", s.Items)
		for i, group := range [][]*openapi3.SchemaRef{s.OneOf, s.AnyOf, s.AllOf} {
			for j, sub := range group {
				walk(where+"/"+[]string{"oneOf", "anyOf", "allOf"}[i]+"/"+strconv.Itoa(j), sub)
			}
		}
	}
	for name, ref := range doc.Components.Schemas {
		walk(name, ref)
	}
	if nullable == 0 {
		t.Error("no schema allows null with a type array: the walk is broken")
	}
}

// TestNullableKeywordIsIgnored records kin-openapi's behaviour that shaped
// the document: in an OpenAPI 3.1 document, "nullable: true" no longer
// allows null (it is not a JSON Schema 2020-12 keyword), while a type array
// with "null" and a oneOf with {"type": "null"} do.
func TestNullableKeywordIsIgnored(t *testing.T) {
	t.Parallel()
	const doc = `{
  "openapi": "3.1.0",
  "info": {"title": "t", "version": "1"},
  "servers": [{"url": "/v1"}],
  "paths": {"/x": {"get": {"responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {
    "type": "object",
    "properties": {
      "old": {"type": "string", "nullable": true},
      "typeArray": {"type": ["string", "null"]},
      "oneOf": {"oneOf": [{"$ref": "#/components/schemas/O"}, {"type": "null"}]}
    },
    "additionalProperties": false
  }}}}}}}},
  "components": {"schemas": {"O": {"type": "object", "required": ["a"], "properties": {"a": {"type": "string"}}}}}
}`
	c, err := apicheck.New([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	check := func(body string) error {
		req, _ := http.NewRequest("GET", "/v1/x", nil)
		resp := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}}}
		return c.CheckResponse(req, resp, []byte(body))
	}
	for _, body := range []string{`{"typeArray": null}`, `{"oneOf": null}`, `{"typeArray": "s", "oneOf": {"a": "s"}}`} {
		if err := check(body); err != nil {
			t.Errorf("%s: %v", body, err)
		}
	}
	for _, body := range []string{`{"old": null}`, `{"typeArray": 1}`, `{"oneOf": {}}`, `{"oneOf": "s"}`} {
		if err := check(body); err == nil {
			t.Errorf("%s passed", body)
		}
	}
}

// successMedia says what is wrong with the media types of a success, ""
// when nothing: application/json, which a GET may also offer as text/csv
// (a table, for Accept: text/csv); or, alone, text/event-stream (a
// stream of events).
func successMedia(method string, content openapi3.Content) string {
	if len(content) == 1 && content["text/event-stream"] != nil {
		return ""
	}
	if content["application/json"] == nil {
		return "a success must be application/json (or text/event-stream alone)"
	}
	for media, mt := range content {
		switch {
		case media == "application/json":
		case media == "text/csv" && method == http.MethodGet:
			if mt.Schema == nil || mt.Schema.Value == nil || !mt.Schema.Value.Type.Is("string") {
				return "text/csv must be a string schema"
			}
		default:
			return fmt.Sprintf("a success may offer application/json and, for a GET, text/csv; not %s", media)
		}
	}
	return ""
}

// checkRequestID fails unless resp documents a required X-Request-Id.
func checkRequestID(t *testing.T, where string, resp *openapi3.Response) {
	t.Helper()
	h := resp.Headers["X-Request-Id"]
	if h == nil || h.Value == nil || !h.Value.Required {
		t.Errorf("%s does not document a required X-Request-Id header", where)
	} else if h.Ref != "#/components/headers/X-Request-Id" {
		t.Errorf("%s: X-Request-Id should refer to components.headers", where)
	}
}

// checkProblemResponse fails unless resp is an application/problem+json
// Problem narrowed to status, and returns the codes it allows.
func checkProblemResponse(t *testing.T, where string, status int, resp *openapi3.Response) []string {
	t.Helper()
	mt := resp.Content.Get("application/problem+json")
	if mt == nil || len(resp.Content) != 1 {
		t.Errorf("%s: an error must be application/problem+json only", where)
		return nil
	}
	s := mt.Schema.Value
	if len(s.AllOf) != 2 || s.AllOf[0].Ref != "#/components/schemas/Problem" {
		t.Errorf("%s: the schema must be allOf Problem and its narrowing", where)
		return nil
	}
	narrow := s.AllOf[1].Value
	if st := narrow.Properties["status"]; st == nil || len(st.Value.Enum) != 1 || st.Value.Enum[0] != float64(status) {
		t.Errorf("%s: Problem.status must be narrowed to %d", where, status)
	}
	code := narrow.Properties["code"]
	if code == nil || len(code.Value.Enum) == 0 {
		t.Errorf("%s: Problem.code must be narrowed to the codes of %d", where, status)
		return nil
	}
	codes := anyStrings(code.Value.Enum)
	for _, c := range codes {
		if !slices.Contains(errorCodes, c) {
			t.Errorf("%s: unknown code %q", where, c)
		}
	}
	return codes
}

type route struct{ method, path string }

// operations yields the document's operations with their method and path.
func operations(doc *openapi3.T) iter.Seq2[route, *openapi3.Operation] {
	return func(yield func(route, *openapi3.Operation) bool) {
		for _, path := range doc.Paths.InMatchingOrder() {
			for method, op := range doc.Paths.Value(path).Operations() {
				if !yield(route{method, path}, op) {
					return
				}
			}
		}
	}
}

func anyStrings(values []any) []string {
	out := make([]string, 0, len(values))
	for _, v := range values {
		s, _ := v.(string)
		out = append(out, s)
	}
	return out
}
