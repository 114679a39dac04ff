package httpapi_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"lectern.dev/lectern"
	"lectern.dev/lectern/httpapi"
	"lectern.dev/lectern/internal/sitebuild"
	"lectern.dev/lectern/render"
	"lectern.dev/lectern/sites"
	"lectern.dev/lectern/store"
)

// assistantSite renders a small site and returns its files by path.
func assistantSite(t *testing.T) map[string]string {
	return sitebuild.Files(t, sitebuild.Small, render.Options{})
}

// TestAssistantMessage: POST /v1/assistant/{domain}/message answers from
// the organization's live site as the site does, streamed; another
// organization's domain, an unknown one and a malformed one are 404s;
// bad bodies, projects without a live deployment and air-gapped ones are
// refused with a problem that says why.
func TestAssistantMessage(t *testing.T) {
	t.Parallel()
	e := newEnv(t, httpapi.Config{}, nil)
	log := slog.New(slog.DiscardHandler)
	reg := prometheus.NewRegistry()
	e.h = httpapi.NewHandler(log, e.st, nil, e.links, e.links, sites.New(log, e.raw, e.bucket), reg, reg, httpapi.Config{})
	e.publishSite(t, e.entProj.ID, assistantSite(t))
	question := []byte(`{"messages":[{"role":"user","content":"How do I roll back a release?"}]}`)

	resp, body := e.do(t, req("POST", "/v1/assistant/"+entDomain+"/message", e.entKey, question))
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("ask: %d %s %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	var text strings.Builder
	var events, cites []string
	sc := bufio.NewScanner(bytes.NewReader(body))
	for sc.Scan() {
		if ev, ok := strings.CutPrefix(sc.Text(), "event: "); ok {
			events = append(events, ev)
		}
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			var v struct{ Text, URL string }
			json.Unmarshal([]byte(d), &v)
			text.WriteString(v.Text)
			if v.URL != "" {
				cites = append(cites, v.URL)
			}
		}
	}
	if !strings.Contains(text.String(), "run acme rollback with the release number") || len(cites) == 0 || cites[0] != "/deploy#rolling-back" ||
		events[len(events)-1] != "done" {
		t.Errorf("answer %q, citations %v, events %v", text.String(), cites, events)
	}

	if ms, err := e.raw.ListAssistantMessages(context.Background(), e.entProj.ID, store.AssistantFilter{}, store.Page{}); err != nil || len(ms) != 1 ||
		ms[0].Source != lectern.AssistantFromAPI || ms[0].Domain != entDomain || ms[0].Question != "How do I roll back a release?" {
		t.Errorf("recorded %v, %v", ms, err)
	}

	// Another organization's domain, unknown and malformed domains.
	for _, c := range []struct{ key, domain string }{{e.freeKey, entDomain}, {e.entKey, freeDomain}, {e.entKey, "nobody.test"}, {e.entKey, "not%20a%20domain"}, {e.entKey, "DOCS.ENT.TEST."}} {
		resp, body := e.do(t, req("POST", "/v1/assistant/"+c.domain+"/message", c.key, question))
		if c.domain == "DOCS.ENT.TEST." {
			continue // a spelling of the domain: either answered or not found, never another's
		}
		p := wantProblem(t, resp, body, 404, lectern.ENOTFOUND)
		if p != nil && strings.Contains(string(body), "Rolling") {
			t.Errorf("%s: the body holds the docs", c.domain)
		}
	}

	// Bad bodies.
	for _, b := range []string{`{}`, `{"messages":[]}`, `{"question":"x"}`, `{"messages":[{"role":"system","content":"x"}]}`,
		`{"messages":[{"role":"user","content":"   "}]}`, `not json`} {
		resp, body := e.do(t, req("POST", "/v1/assistant/"+entDomain+"/message", e.entKey, []byte(b)))
		wantProblem(t, resp, body, 400, lectern.EINVALID)
	}
	r := req("POST", "/v1/assistant/"+entDomain+"/message", e.entKey, question)
	r.Header.Set("Content-Type", "text/plain")
	resp, body = e.do(t, r)
	wantProblem(t, resp, body, 415, lectern.EMEDIATYPE)
	resp, body = e.do(t, req("POST", "/v1/assistant/"+entDomain+"/message", "", question))
	wantProblem(t, resp, body, 401, lectern.EUNAUTHORIZED)
	resp, body = e.doUnchecked(t, req("GET", "/v1/assistant/"+entDomain+"/message", e.entKey, nil))
	wantProblem(t, resp, body, 405, lectern.EMETHOD)

	// No live deployment yet; an air-gapped project.
	fresh := e.project(e.ent.ID, "fresh.ent.test")
	resp, body = e.do(t, req("POST", "/v1/assistant/fresh.ent.test/message", e.entKey, question))
	if p := wantProblem(t, resp, body, 409, lectern.ECONFLICT); p != nil && !strings.Contains(p.Detail, "no live deployment") {
		t.Errorf("no deployment: %s", body)
	}
	_ = fresh
	gapped := &lectern.Project{OrgID: e.ent.ID, Name: "Gapped", RepoURL: "https://git.example/g.git", Branch: "main", DocsRoot: "/",
		Domains: []string{"gapped.ent.test"}, DeploymentType: lectern.DeploymentAirGapped}
	if err := e.raw.CreateProject(context.Background(), gapped); err != nil {
		t.Fatal(err)
	}
	e.publishSite(t, gapped.ID, assistantSite(t))
	resp, body = e.do(t, req("POST", "/v1/assistant/gapped.ent.test/message", e.entKey, question))
	if p := wantProblem(t, resp, body, 409, lectern.ECONFLICT); p != nil && !strings.Contains(p.Detail, "air-gapped") {
		t.Errorf("air-gapped: %s", body)
	}
}
