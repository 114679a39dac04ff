package assistant

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// chatServer is a local server speaking the OpenAI chat-completions
// protocol with streaming: it answers every request with pieces, as
// chunks, then [DONE]; status, when not 200, is returned instead; cut
// drops the connection after the first piece.
type chatServer struct {
	*httptest.Server
	mu       sync.Mutex
	requests []chatRequest
	auth     []string
	pieces   []string
	status   int
	cut      bool
}

func newChatServer(t *testing.T, pieces ...string) *chatServer {
	cs := &chatServer{pieces: pieces, status: http.StatusOK}
	cs.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		var req chatRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, `{"error":{"message":"bad json"}}`, http.StatusBadRequest)
			return
		}
		cs.mu.Lock()
		cs.requests = append(cs.requests, req)
		cs.auth = append(cs.auth, r.Header.Get("Authorization"))
		status, cut := cs.status, cs.cut
		cs.mu.Unlock()
		if status != http.StatusOK {
			http.Error(w, `{"error":{"message":"model overloaded"}}`, status)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for i, p := range cs.pieces {
			chunk := map[string]any{"id": "c1", "object": "chat.completion.chunk", "model": req.Model,
				"choices": []map[string]any{{"index": 0, "delta": map[string]string{"content": p}, "finish_reason": nil}}}
			data, _ := json.Marshal(chunk)
			fmt.Fprintf(w, "data: %s\n\n", data)
			w.(http.Flusher).Flush()
			if cut && i == 0 {
				conn, _, _ := w.(http.Hijacker).Hijack()
				conn.Close()
				return
			}
		}
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(cs.Close)
	return cs
}

func (cs *chatServer) got() ([]chatRequest, []string) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return append([]chatRequest(nil), cs.requests...), append([]string(nil), cs.auth...)
}

type event struct {
	name string
	data map[string]any
}

// askService posts body to svc over ix's site and returns the events.
func askService(t *testing.T, svc *Service, ask Ask, body string) (int, []event, string) {
	t.Helper()
	w := httptest.NewRecorder()
	svc.Serve(w, httptest.NewRequest("POST", "/_lectern/assistant", strings.NewReader(body)), ask)
	var evs []event
	var text strings.Builder
	sc := bufio.NewScanner(strings.NewReader(w.Body.String()))
	for sc.Scan() {
		if e, ok := strings.CutPrefix(sc.Text(), "event: "); ok {
			evs = append(evs, event{name: e})
		}
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok && len(evs) > 0 {
			json.Unmarshal([]byte(d), &evs[len(evs)-1].data)
			if evs[len(evs)-1].name == "text" {
				text.WriteString(evs[len(evs)-1].data["text"].(string))
			}
		}
	}
	return w.Code, evs, text.String()
}

func citations(evs []event) []string {
	var out []string
	for _, e := range evs {
		if e.name == "citation" {
			out = append(out, fmt.Sprintf("%v %v", e.data["n"], e.data["url"]))
		}
	}
	return out
}

const rollbackQ = `{"messages":[{"role":"user","content":"What regions are there?"},{"role":"assistant","content":"Every region."},{"role":"user","content":"How do I roll back a release?"}]}`

// TestModelAnswer: with a model, the prompt holds the retrieved passages,
// numbered, the earlier turns and the question; the model's text streams
// to the reader and the passages it cites come back as citations.
func TestModelAnswer(t *testing.T) {
	ix := buildIndex(t, smallSite)
	cs := newChatServer(t, "To roll back, run ", "`acme rollback` with the release number [1].")
	var rec []Result
	svc := &Service{Model: &Model{URL: cs.URL + "/v1", Name: "docs-model", Key: "sk-secret"}}
	code, evs, text := askService(t, svc, Ask{Index: ix, Site: "Acme", Record: func(r Result) string {
		rec = append(rec, r)
		return "amsg_1"
	}}, rollbackQ)
	if code != 200 || text != "To roll back, run `acme rollback` with the release number [1]." {
		t.Fatalf("%d %q", code, text)
	}
	if c := citations(evs); len(c) != 1 || c[0] != "1 /deploy#rolling-back" {
		t.Errorf("citations %v", c)
	}
	last := evs[len(evs)-1]
	if last.name != "done" || last.data["found"] != true || last.data["id"] != "amsg_1" {
		t.Errorf("done: %+v", last)
	}
	reqs, auth := cs.got()
	if len(reqs) != 1 || auth[0] != "Bearer sk-secret" {
		t.Fatalf("requests %d, auth %q", len(reqs), auth)
	}
	req := reqs[0]
	if req.Model != "docs-model" || !req.Stream || len(req.Messages) != 4 {
		t.Fatalf("request: %+v", req)
	}
	sys := req.Messages[0]
	if sys.Role != "system" || !strings.Contains(sys.Content, "[1] Deploying › Rolling back (/deploy#rolling-back)\nTo roll back a release, run acme rollback with the release number.") ||
		!strings.Contains(sys.Content, "Acme documentation") || !strings.Contains(sys.Content, NotFound) {
		t.Errorf("system message:\n%s", sys.Content)
	}
	if m := req.Messages[1:]; m[0].Content != "What regions are there?" || m[1].Role != "assistant" || m[2].Content != "How do I roll back a release?" {
		t.Errorf("turns: %+v", m)
	}
	if len(rec) != 1 || rec[0].Model != "docs-model" || rec[0].ModelError != "" || rec[0].Question != "How do I roll back a release?" ||
		rec[0].Answer.Text != text || len(rec[0].Answer.Citations) != 1 {
		t.Errorf("recorded %+v", rec)
	}
}

// TestModelFallback: a model that fails before writing gives the
// extractive answer; one that fails while writing keeps what it wrote and
// adds the extractive quotes; an unanswerable question never reaches the
// model; the key appears in no error.
func TestModelFallback(t *testing.T) {
	ix := buildIndex(t, smallSite)
	q := `{"messages":[{"role":"user","content":"How do I roll back a release?"}]}`
	for _, tc := range []struct {
		name   string
		setup  func(cs *chatServer) string // returns the model URL
		prefix string
	}{
		{"HTTP 503", func(cs *chatServer) string { cs.status = 503; return cs.URL + "/v1" }, "> "},
		{"unreachable", func(cs *chatServer) string { return "http://" + closedAddr(t) + "/v1" }, "> "},
		{"cut", func(cs *chatServer) string { cs.cut = true; return cs.URL + "/v1/chat/completions" }, "Roll back with [1]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := newChatServer(t, "Roll back with [1]", " more")
			var rec Result
			svc := &Service{Model: &Model{URL: tc.setup(cs), Name: "m", Key: "sk-secret"}}
			_, evs, text := askService(t, svc, Ask{Index: ix, Record: func(r Result) string { rec = r; return "" }}, q)
			if !strings.HasPrefix(text, tc.prefix) || !strings.Contains(text, "run acme rollback with the release number.") {
				t.Fatalf("answer %q", text)
			}
			if c := citations(evs); len(c) == 0 || c[0] != "1 /deploy#rolling-back" {
				t.Errorf("citations %v", c)
			}
			if rec.ModelError == "" || strings.Contains(rec.ModelError, "sk-secret") || rec.Answer.Text != text {
				t.Errorf("recorded %+v", rec)
			}
			if _, id := evs[len(evs)-1].data["id"]; evs[len(evs)-1].name != "done" || id {
				t.Errorf("last event %+v", evs[len(evs)-1])
			}
		})
	}

	cs := newChatServer(t, "never")
	svc := &Service{Model: &Model{URL: cs.URL + "/v1", Name: "m"}}
	_, _, text := askService(t, svc, Ask{Index: ix}, `{"messages":[{"role":"user","content":"What is the capital of Mongolia?"}]}`)
	if reqs, _ := cs.got(); len(reqs) != 0 || !strings.HasPrefix(text, NotFound) {
		t.Errorf("unanswerable: %d model requests, answer %q", len(reqs), text)
	}
}

// TestModelNotFound: a model that says the docs do not answer gives an
// answer not found, without sources.
func TestModelNotFound(t *testing.T) {
	a := modelAnswer(NotFound+".", []Passage{{Title: "A", URL: "/a"}})
	if a.Found || len(a.Citations) != 0 {
		t.Errorf("%+v", a)
	}
	a = modelAnswer("Yes, see [2, 1] and [9].", []Passage{{Title: "A", URL: "/a"}, {Title: "B", URL: "/b"}})
	if !a.Found || len(a.Citations) != 2 || a.Citations[0].URL != "/b" || a.Citations[1].URL != "/a" {
		t.Errorf("%+v", a)
	}
}

func closedAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

func TestParseModelURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://vllm.internal:8000/v1":                  "http://vllm.internal:8000/v1/chat/completions",
		"https://ollama.test/v1/":                       "https://ollama.test/v1/chat/completions",
		"http://llm.test/openai/v1/chat/completions":    "http://llm.test/openai/v1/chat/completions",
		"ftp://llm.test/v1":                             "",
		"http://user:pw@llm.test/v1":                    "",
		"/v1":                                           "",
		"http://llm.test/v1?key=x":                      "",
		"http://llm.test/v1#x":                          "",
		"javascript:alert(1)":                           "",
		"http://[::1]:11434/v1":                         "http://[::1]:11434/v1/chat/completions",
		"  http://llm.test/v1  ":                        "http://llm.test/v1/chat/completions",
		"http://llm.test:99999999999999999999999999/v1": "",
	} {
		got, err := ParseModelURL(in)
		if got != want || (want == "") != (err != nil) {
			t.Errorf("ParseModelURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

// TestModelKeyNeverLeaks: an endpoint that echoes the Authorization
// header in its error, and one that redirects, leave the key out of the
// recorded error, and the redirect is not followed.
func TestModelKeyNeverLeaks(t *testing.T) {
	ix := buildIndex(t, smallSite)
	var redirected sync.Mutex
	followed := false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/echo/chat/completions":
			http.Error(w, `{"error":{"message":"bad key `+r.Header.Get("Authorization")+`"}}`, http.StatusUnauthorized)
		case "/moved/chat/completions":
			http.Redirect(w, r, "/elsewhere", http.StatusTemporaryRedirect)
		default:
			redirected.Lock()
			followed = true
			redirected.Unlock()
		}
	}))
	defer srv.Close()
	const key = "sk-0123456789abcdef"
	for _, path := range []string{"/echo", "/moved"} {
		var rec Result
		svc := &Service{Model: &Model{URL: srv.URL + path, Name: "m", Key: key}}
		_, _, text := askService(t, svc, Ask{Index: ix, Record: func(r Result) string { rec = r; return "" }},
			`{"messages":[{"role":"user","content":"How do I roll back a release?"}]}`)
		if rec.ModelError == "" || strings.Contains(rec.ModelError, key[:8]) || !strings.HasPrefix(text, "> ") {
			t.Errorf("%s: model error %q, answer %q", path, rec.ModelError, text)
		}
	}
	redirected.Lock()
	defer redirected.Unlock()
	if followed {
		t.Error("the redirect was followed")
	}
}

// TestModelStreamsBounded: beyond MaxStreamsPerKey answers being written
// for one key, the next question of that key gets the extractive answer
// at once; another key still gets the model.
func TestModelStreamsBounded(t *testing.T) {
	ix := buildIndex(t, smallSite)
	release := make(chan struct{})
	started := make(chan struct{}, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		started <- struct{}{}
		<-release
		fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"content\":\"Model [1]\"}}]}\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	svc := &Service{Model: &Model{URL: srv.URL + "/v1", Name: "m"}, MaxStreamsPerKey: 1, MaxStreams: 2}
	q := `{"messages":[{"role":"user","content":"How do I roll back a release?"}]}`
	done := make(chan string)
	go func() { _, _, text := askService(t, svc, Ask{Index: ix, Key: "p1"}, q); done <- text }()
	<-started
	var rec Result
	_, _, text := askService(t, svc, Ask{Index: ix, Key: "p1", Record: func(r Result) string { rec = r; return "" }}, q)
	if !strings.HasPrefix(text, "> ") || rec.ModelError == "" {
		t.Errorf("p1's second question: %q (%q), want the extractive answer", text, rec.ModelError)
	}
	go func() { _, _, text := askService(t, svc, Ask{Index: ix, Key: "p2"}, q); done <- text }()
	<-started
	close(release)
	for i := 0; i < 2; i++ {
		if text := <-done; text != "Model [1]" {
			t.Errorf("a question within the bounds: %q", text)
		}
	}
}
