package sites

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"lectern.dev/lectern"
	"lectern.dev/lectern/blobstore/blobtest"
	"lectern.dev/lectern/internal/sitebuild"
	"lectern.dev/lectern/render"
	"lectern.dev/lectern/store"
)

// builtFiles renders a small site and returns its files by path.
func builtFiles(t testing.TB) map[string]string {
	return sitebuild.Files(t, sitebuild.Small, render.Options{})
}

// ask posts a question to host's assistant.
func ask(srv http.Handler, host, body string) *httptest.ResponseRecorder {
	r := httptest.NewRequest("POST", AssistantPath, strings.NewReader(body))
	r.Host = host
	w := httptest.NewRecorder()
	srv.ServeHTTP(w, r)
	return w
}

// TestAssistantOnCloudSites: a cloud site's assistant answers from its
// live deployment's index, streamed, the section cited; other deployment
// types have none; bad requests say why; a project is rate limited, whichever
// of its domains is asked.
func TestAssistantOnCloudSites(t *testing.T) {
	t.Parallel()
	st, b := openStore(t), blobtest.Folder(t)
	files := builtFiles(t)
	cloud := newProject(t, st, "cloud.example.com", "www.cloud.example.com")
	publish(t, st, b, cloud.ID, files)
	other := newProject(t, st, "other.example.com")
	publish(t, st, b, other.ID, files)
	hosted := &lectern.Project{OrgID: cloud.OrgID, Name: "Hosted", RepoURL: "https://git.example.com/h.git", Branch: "main", DocsRoot: "/",
		Domains: []string{"hosted.example.com"}, DeploymentType: lectern.DeploymentClientHosted}
	if err := st.CreateProject(context.Background(), hosted); err != nil {
		t.Fatal(err)
	}
	publish(t, st, b, hosted.ID, files)
	srv := New(discardLog(), st, b)

	w := ask(srv, "cloud.example.com", `{"messages":[{"role":"user","content":"How do I roll back a release?"}]}`)
	if w.Code != 200 || !strings.HasPrefix(w.Header().Get("Content-Type"), "text/event-stream") {
		t.Fatalf("ask: %d %s %s", w.Code, w.Header().Get("Content-Type"), w.Body.String())
	}
	var text strings.Builder
	var cites []string
	found := false
	sc := bufio.NewScanner(strings.NewReader(w.Body.String()))
	event := ""
	for sc.Scan() {
		line := sc.Text()
		if e, ok := strings.CutPrefix(line, "event: "); ok {
			event = e
		}
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			var v map[string]any
			json.Unmarshal([]byte(d), &v)
			switch event {
			case "text":
				text.WriteString(v["text"].(string))
			case "citation":
				cites = append(cites, v["url"].(string))
			case "done":
				found = v["found"] == true
			}
		}
	}
	if !found || !strings.Contains(text.String(), "acme rollback") || len(cites) == 0 || cites[0] != "/deploy#rolling-back" {
		t.Errorf("answer %q, citations %v, found %v", text.String(), cites, found)
	}

	if w := ask(srv, "hosted.example.com", `{"messages":[{"role":"user","content":"roll back"}]}`); w.Code != 404 {
		t.Errorf("a client-hosted project's assistant on the live site: %d", w.Code)
	}
	for _, body := range []string{``, `{}`, `{"messages":[]}`, `{"messages":[{"role":"assistant","content":"x"}]}`,
		`{"messages":[{"role":"user","content":"  "}]}`, `{"messages":[{"role":"system","content":"x"}]}`, `{"question":"x"}`} {
		if w := ask(srv, "cloud.example.com", body); w.Code != 400 || !strings.Contains(w.Body.String(), `"error"`) {
			t.Errorf("%q: %d %s", body, w.Code, w.Body.String())
		}
	}
	if w := ask(srv, "cloud.example.com", `{"messages":[{"role":"user","content":"`+strings.Repeat("x", 40<<10)+`"}]}`); w.Code != 413 {
		t.Errorf("a large body: %d", w.Code)
	}
	r := httptest.NewRequest("GET", AssistantPath, nil)
	r.Host = "cloud.example.com"
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, r)
	if rec.Code != 405 {
		t.Errorf("GET %s: %d", AssistantPath, rec.Code)
	}
	limited := false
	for i := 0; i < 40 && !limited; i++ {
		limited = ask(srv, "cloud.example.com", `{"messages":[{"role":"user","content":"roll back"}]}`).Code == 429
	}
	if !limited {
		t.Error("40 questions at once were not rate limited")
	}
	// The limit is the project's: its other domain is limited too, another
	// project is not.
	if w := ask(srv, "www.cloud.example.com", `{"messages":[{"role":"user","content":"roll back"}]}`); w.Code != 429 {
		t.Errorf("the limited project's other domain: %d, want 429", w.Code)
	}
	if w := ask(srv, "other.example.com", `{"messages":[{"role":"user","content":"roll back"}]}`); w.Code != 200 {
		t.Errorf("another project after one was limited: %d, want 200", w.Code)
	}
}

// TestAssistantRecordsAndFeedback: an answer is recorded with its
// citations and the domain asked, its id sent in "done"; the reader of
// that project's site may rate it, another project's site may not.
func TestAssistantRecordsAndFeedback(t *testing.T) {
	t.Parallel()
	st, b := openStore(t), blobtest.Folder(t)
	files := builtFiles(t)
	cloud := newProject(t, st, "cloud.example.com")
	publish(t, st, b, cloud.ID, files)
	other := newProject(t, st, "other.example.com")
	publish(t, st, b, other.ID, files)
	srv := New(discardLog(), st, b)

	w := ask(srv, "cloud.example.com", `{"messages":[{"role":"user","content":"How do I roll back a release?"}]}`)
	var id string
	for _, line := range strings.Split(w.Body.String(), "\n") {
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			var v struct{ ID string }
			json.Unmarshal([]byte(d), &v)
			if v.ID != "" {
				id = v.ID
			}
		}
	}
	ms, err := st.ListAssistantMessages(context.Background(), cloud.ID, store.AssistantFilter{}, store.Page{})
	if err != nil || len(ms) != 1 {
		t.Fatalf("recorded %d, %v", len(ms), err)
	}
	m := ms[0]
	if m.ID != id || m.Domain != "cloud.example.com" || m.Source != lectern.AssistantFromSite || m.Question != "How do I roll back a release?" ||
		!m.Found || !strings.Contains(m.Answer, "acme rollback") || len(m.Citations) == 0 || m.Citations[0].URL != "/deploy#rolling-back" || m.Helpful != nil {
		t.Fatalf("record %+v (done id %q)", m, id)
	}

	rate := func(host, body string) int {
		r := httptest.NewRequest("POST", FeedbackPath, strings.NewReader(body))
		r.Host = host
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, r)
		return rec.Code
	}
	if c := rate("other.example.com", `{"id":"`+id+`","helpful":false}`); c != 404 {
		t.Errorf("another project's site rated the answer: %d", c)
	}
	if c := rate("cloud.example.com", `{"id":"ask_00000000000000000000000000","helpful":true}`); c != 404 {
		t.Errorf("an unknown answer: %d, want 404", c)
	}
	r := httptest.NewRequest("GET", FeedbackPath, nil)
	r.Host = "cloud.example.com"
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, r)
	if rec.Code != 405 {
		t.Errorf("GET %s: %d", FeedbackPath, rec.Code)
	}
	for _, body := range []string{`{}`, `{"id":"` + id + `"}`, `{"id":"` + id + `","helpful":"yes"}`, `{"id":"` + id + `","helpful":true,"x":1}`, `nope`,
		`{"id":"` + id + `","helpful":false} trailing`} {
		if c := rate("cloud.example.com", body); c != 400 {
			t.Errorf("%s: %d, want 400", body, c)
		}
	}
	if c := rate("cloud.example.com", `{"id":"`+id+`","helpful":true}`); c != 204 {
		t.Fatalf("rating: %d", c)
	}
	ms, _ = st.ListAssistantMessages(context.Background(), cloud.ID, store.AssistantFilter{}, store.Page{})
	if ms[0].Helpful == nil || !*ms[0].Helpful {
		t.Errorf("the rating was not kept: %+v", ms[0].Helpful)
	}
}
