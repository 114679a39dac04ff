package httpapi_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/httpapi"
	"lectern.dev/lectern/store"
)

// endpoint is one authenticated /v1 operation.
type endpoint struct {
	name, method, path string
	body               []byte
}

// endpoints lists the five authenticated operations, on records of the
// enterprise organization so that a valid key would succeed.
func (e *env) endpoints(t *testing.T) []endpoint {
	jobID := e.startExport(t, e.entKey, entDomain)
	e.completeExport(t, jobID)
	resp, body := e.do(t, req("POST", "/v1/project/update/"+e.entProj.ID, e.entKey, nil))
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("trigger update: %d %s", resp.StatusCode, body)
	}
	statusID := decode(t, body)["statusId"].(string)
	return []endpoint{
		{"trigger update", "POST", "/v1/project/update/" + e.entProj.ID, nil},
		{"update status", "GET", "/v1/project/update-status/" + statusID, nil},
		{"start export", "POST", "/v1/static-export/jobs", []byte(`{"domain":"` + entDomain + `"}`)},
		{"get job", "GET", "/v1/static-export/jobs/" + jobID, nil},
		{"bundle", "POST", "/v1/static-export/jobs/" + jobID + "/bundle", nil},
	}
}

// badChecksum returns k with its last checksum character changed.
func badChecksum(k string) string {
	last := byte('0')
	if k[len(k)-1] == '0' {
		last = '1'
	}
	return k[:len(k)-1] + string(last)
}

func TestAuthentication(t *testing.T) {
	t.Parallel()
	e := newEnv(t, httpapi.Config{}, nil)
	eps := e.endpoints(t)

	revoked, revokedID := e.newKey(e.ent.ID)
	if err := e.raw.RevokeAPIKey(context.Background(), revokedID, time.Now()); err != nil {
		t.Fatal(err)
	}
	unknown := lectern.NewAPIKey() // well-formed, valid checksum, never stored
	e.remember(unknown)
	if err := lectern.CheckAPIKey(unknown); err != nil {
		t.Fatalf("NewAPIKey made a key that fails CheckAPIKey: %v", err)
	}
	badSum := badChecksum(e.entKey)
	e.remember(badSum)
	if lectern.CheckAPIKey(badSum) == nil {
		t.Fatal("badChecksum made a key that passes CheckAPIKey")
	}

	unauthorized := []struct {
		name   string
		values []string // Authorization header values; none for no header
	}{
		{"no header", nil},
		{"empty", []string{""}},
		{"basic", []string{"Basic dXNlcjpwYXNz"}},
		{"bearer without token", []string{"Bearer"}},
		{"bearer with blank token", []string{"Bearer    "}},
		{"key without scheme", []string{e.entKey}},
		{"token with a space", []string{"Bearer " + e.entKey + " extra"}},
		{"two headers", []string{"Bearer " + e.entKey, "Bearer " + e.entKey}},
	}
	invalidKey := []struct{ name, key string }{
		{"unknown", unknown},
		{"revoked", revoked},
		{"bad checksum", badSum},
		{"too short", e.entKey[:20]},
		{"wrong prefix", "xyz_" + e.entKey[4:]},
	}

	for _, ep := range eps {
		t.Run(ep.name, func(t *testing.T) {
			t.Parallel()
			for _, c := range unauthorized {
				r := req(ep.method, ep.path, "", ep.body)
				for _, v := range c.values {
					r.Header.Add("Authorization", v)
				}
				resp, body := e.do(t, r)
				wantProblem(t, resp, body, http.StatusUnauthorized, lectern.EUNAUTHORIZED)
				if h := resp.Header.Get("WWW-Authenticate"); !strings.HasPrefix(h, "Bearer") {
					t.Errorf("%s: WWW-Authenticate %q, want Bearer…", c.name, h)
				}
			}
			// Without a key to refuse, Origin changes nothing.
			r := req(ep.method, ep.path, "", ep.body)
			r.Header.Set("Origin", "https://evil.example")
			resp, body := e.do(t, r)
			wantProblem(t, resp, body, http.StatusUnauthorized, lectern.EUNAUTHORIZED)
			for _, c := range invalidKey {
				resp, body := e.do(t, req(ep.method, ep.path, c.key, ep.body))
				p := wantProblem(t, resp, body, http.StatusUnauthorized, lectern.EINVALIDKEY)
				h := resp.Header.Get("WWW-Authenticate")
				if !strings.HasPrefix(h, "Bearer") {
					t.Errorf("%s key: WWW-Authenticate %q, want Bearer…", c.name, h)
				}
				if strings.Contains(p.Detail, c.key) || strings.Contains(string(body), c.key[4:]) {
					t.Errorf("%s key: the problem repeats the key: %s", c.name, body)
				}
			}
			// Any key with a browser Origin: 403, valid or not.
			for _, key := range []string{e.entKey, unknown, revoked, badSum} {
				r := req(ep.method, ep.path, key, ep.body)
				r.Header.Set("Origin", "https://docs.example.com")
				resp, body := e.do(t, r)
				wantProblem(t, resp, body, http.StatusForbidden, lectern.EORIGIN)
			}
		})
	}
}

func TestValidKeySucceeds(t *testing.T) {
	t.Parallel()
	e := newEnv(t, httpapi.Config{}, nil)
	for _, auth := range []string{"Bearer " + e.entKey, "bearer " + e.entKey, "  Bearer   " + e.entKey + "  "} {
		r := req("POST", "/v1/project/update/"+e.entProj.ID, "", nil)
		r.Header.Set("Authorization", auth)
		if resp, body := e.do(t, r); resp.StatusCode != http.StatusAccepted {
			t.Errorf("Authorization %q…: %d %s", auth[:10], resp.StatusCode, body)
		}
	}
	// A second key of the same organization works as well.
	k2, _ := e.newKey(e.ent.ID)
	if resp, body := e.do(t, req("POST", "/v1/project/update/"+e.entProj.ID, k2, nil)); resp.StatusCode != http.StatusAccepted {
		t.Errorf("second key: %d %s", resp.StatusCode, body)
	}
}

func TestPlanRequired(t *testing.T) {
	t.Parallel()
	e := newEnv(t, httpapi.Config{}, nil)
	for _, domain := range []string{freeDomain, entDomain, "nobody.test"} {
		resp, body := e.do(t, req("POST", "/v1/static-export/jobs", e.freeKey, []byte(`{"domain":"`+domain+`"}`)))
		p := wantProblem(t, resp, body, http.StatusForbidden, lectern.EPLAN)
		if !strings.Contains(p.Detail, "enterprise") {
			t.Errorf("detail %q does not name the plan needed", p.Detail)
		}
	}
	// Updates need no plan.
	if resp, body := e.do(t, req("POST", "/v1/project/update/"+e.freeProj.ID, e.freeKey, nil)); resp.StatusCode != http.StatusAccepted {
		t.Errorf("free org trigger update: %d %s", resp.StatusCode, body)
	}
	// No export was stored: a quota of one over all time still has room.
	if err := e.raw.CreateExport(context.Background(), &lectern.ExportJob{OrgID: e.free.ID, ProjectID: e.freeProj.ID, Domain: freeDomain},
		store.ExportQuota{Max: 1}); err != nil {
		t.Errorf("the free organization already has an export: %v", err)
	}
}

// TestRefusedKeyChallenge: the OpenAPI document's WWW-Authenticate header
// says `error="invalid_token"` is added when a key was sent but refused
// (RFC 6750 section 3), and only then.
func TestRefusedKeyChallenge(t *testing.T) {
	t.Parallel()
	e := newEnv(t, httpapi.Config{}, nil)
	unknown := lectern.NewAPIKey()
	e.remember(unknown)
	resp, body := e.do(t, req("GET", "/v1/static-export/jobs/exp_x", unknown, nil))
	wantProblem(t, resp, body, http.StatusUnauthorized, lectern.EINVALIDKEY)
	if h := resp.Header.Get("WWW-Authenticate"); !strings.Contains(h, `error="invalid_token"`) {
		t.Errorf("refused key: WWW-Authenticate %q lacks error=\"invalid_token\"", h)
	}
	resp, body = e.do(t, req("GET", "/v1/static-export/jobs/exp_x", "", nil))
	wantProblem(t, resp, body, http.StatusUnauthorized, lectern.EUNAUTHORIZED)
	if h := resp.Header.Get("WWW-Authenticate"); strings.Contains(h, "error=") {
		t.Errorf("no key: WWW-Authenticate %q has an error attribute (RFC 6750: none when no credentials were sent)", h)
	}
}
