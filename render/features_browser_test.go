package render

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/chromedp/chromedp"

	"lectern.dev/lectern/internal/browsertest"
	"lectern.dev/lectern/internal/sitetest"
	"lectern.dev/lectern/render/features"
)

// cspSite is built like an export bundle (every feature, marked) for the
// browser test of the site features under their Content-Security-Policy.
// Its pages use what could need more than the CSP allows: style
// attributes (columns, icon colours), a Mermaid diagram, code blocks,
// tabs, and an OpenAPI page with a playground whose server is API (the
// test's other origin).
const cspSite = `
-- docs.json --
{"name": "Zoo", "favicon": "/favicon.svg", "navigation": {"groups": [
  {"group": "Start", "pages": ["index", "guides/care"]},
  {"group": "Reference", "openapi": "pets.json", "pages": []}
]}}
-- pets.json --
{
  "openapi": "3.0.3",
  "info": {"title": "Pets", "version": "1"},
  "servers": [{"url": "API/v1"}],
  "paths": {
    "/pets/{petId}": {
      "get": {
        "operationId": "getPet", "summary": "Get a pet", "tags": ["Pets"],
        "parameters": [{"name": "petId", "in": "path", "required": true, "schema": {"type": "integer"}, "example": 7}],
        "responses": {"200": {"description": "The pet"}}
      }
    }
  }
}
-- favicon.svg --
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><circle cx="8" cy="8" r="7" fill="#d97706"/></svg>
-- index.mdx --
---
title: Welcome
---
Feed the animals twice a day. <Icon icon="star" color="#d97706" />

<Columns cols={2}>
  <Card title="Care" href="/guides/care">Water and food.</Card>
  <Card title="Pets" href="/guides/care">Who lives here.</Card>
</Columns>

<Tabs>
  <Tab title="Cats">Cats sleep.</Tab>
  <Tab title="Dogs">Dogs walk.</Tab>
</Tabs>

` + "```mermaid\ngraph TD; Feed-->Water\n```" + `

` + "```js\nconsole.log(\"fed\")\n```" + `
-- guides/care.mdx --
---
title: Care
---
## Water

Fresh water every morning.
`

// featureServer is the test's other origin: the assistant's and the
// analytics' endpoints and the API of the playground, with CORS.
type featureServer struct {
	url  string
	mu   sync.Mutex
	hits []string // bodies of page views
	asks []string // questions
	all  int      // requests of any kind
}

func newFeatureServer(t *testing.T) *featureServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fs := &featureServer{url: "http://" + ln.Addr().String()}
	srv := &http.Server{Handler: http.HandlerFunc(fs.serve), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { srv.Close() })
	return fs
}

func (fs *featureServer) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<16))
	fs.mu.Lock()
	fs.all++
	fs.mu.Unlock()
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Allow-Headers", "Content-Type, Accept")
	h.Set("Access-Control-Allow-Methods", "GET, POST")
	if r.Method == http.MethodOptions {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	switch r.URL.Path {
	case "/hit":
		fs.mu.Lock()
		fs.hits = append(fs.hits, string(body))
		fs.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	case "/ask":
		// The widget's body: the conversation, the question last.
		var q struct {
			Messages []struct{ Role, Content string }
		}
		_ = json.Unmarshal(body, &q)
		fs.mu.Lock()
		if n := len(q.Messages); n > 0 && q.Messages[n-1].Role == "user" {
			fs.asks = append(fs.asks, q.Messages[n-1].Content)
		} else {
			fs.asks = append(fs.asks, "unexpected body: "+string(body))
		}
		fs.mu.Unlock()
		if n := len(q.Messages); n > 0 && strings.Contains(q.Messages[n-1].Content, "stream") {
			// Server-sent events with CRLF line ends, a CRLF split
			// across two writes, as a third-party endpoint may send.
			h.Set("Content-Type", "text/event-stream")
			for _, part := range []string{"event: text\r", "\ndata: {\"text\":\"Fresh <i>water</i> [1]\"}\r\n\r\n",
				"event: citation\r\ndata: {\"n\":1,\"title\":\"Care\",\"url\":\"guides/care.html\"}\r\n\r\n",
				"event: done\r\ndata: {\"found\":true}\r\n\r\n"} {
				io.WriteString(w, part)
				w.(http.Flusher).Flush()
				time.Sleep(20 * time.Millisecond)
			}
			return
		}
		h.Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"answer": "Give them <b>fresh</b> water.",
			"sources": []map[string]string{
				{"title": "Care guide", "url": "guides/care.html#water"},
				{"title": "Bad link", "url": "javascript:alert(1)"},
			},
		})
	case "/v1/pets/7":
		h.Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"name":"Rex"}`)
	default:
		http.NotFound(w, r)
	}
}

func (fs *featureServer) counts() (hits []string, asks []string, all int) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return append([]string(nil), fs.hits...), append([]string(nil), fs.asks...), fs.all
}

// serveFiles serves a transformed site as a self-hosted deployment does
// (browsertest.Serve), with the headers of header on every response. It
// returns the base URL.
func serveFiles(t *testing.T, files map[string][]byte, header http.Header) string {
	t.Helper()
	site := fstest.MapFS{}
	for name, data := range files {
		site[name] = &fstest.MapFile{Data: data}
	}
	return browsertest.Serve(t, site, header)
}

// featuresBrowserFlow serves the export form of cspSite and of the
// starter corpus, transformed with every feature on and with every
// feature off, under the CSP of those features, and opens their pages in
// Chromium (internal/browsertest): any console error, CSP violation,
// exception, error log entry (but the 404 of the page that is missing on
// purpose) or request to an origin other than the two sites' (and, with
// the features on, the test's other origin) fails. With the features on,
// the search, the assistant (question and answer through the test's other
// origin), the analytics beacon, the playground and the Mermaid diagram
// must work; with them off no page may show or request any of them.
func featuresBrowserFlow(t *testing.T, ctx, browserCtx context.Context) {
	api := newFeatureServer(t)
	all := features.All()
	site := newMemOutput()
	if _, err := Build(ctx, sitetest.Archive(t, strings.ReplaceAll(cspSite, "API/v1", api.url+"/v1")), site, Options{Export: true, Features: &all}); err != nil {
		t.Fatalf("Build: %v", err)
	}
	starter := newMemOutput()
	if _, err := Build(ctx, os.DirFS(corpusDir+"mintlify-starter"), starter, Options{Export: true, Features: &all}); err != nil {
		t.Fatalf("Build starter: %v", err)
	}
	// The playground may reach the servers its pages offer.
	var servers []string
	for _, data := range site.files {
		servers = append(servers, features.PlaygroundServerOrigins(data)...)
	}
	if len(servers) != 1 || servers[0] != api.url {
		t.Fatalf("PlaygroundServerOrigins of the site = %q, want [%s]", servers, api.url)
	}
	on := features.Site{Search: true, Assistant: true, AssistantURL: api.url + "/ask", Analytics: true, AnalyticsURL: api.url + "/hit",
		Playground: true, PlaygroundOrigins: servers}
	for _, c := range []struct {
		name string
		f    features.Site
	}{{"on", on}, {"off", features.Site{}}} {
		t.Run(c.name, func(t *testing.T) {
			header := http.Header{"Content-Security-Policy": {c.f.ContentSecurityPolicy()}, "X-Content-Type-Options": {"nosniff"}}
			base := serveFiles(t, transformSite(t, c.f, site.files), header)
			starterBase := serveFiles(t, transformSite(t, c.f, starter.files), header)
			_, _, before := api.counts()
			origins := []string{base, starterBase}
			if c.name == "on" {
				origins = append(origins, api.url)
			}
			b := browsertest.NewTab(t, browserCtx, browsertest.Options{Origins: origins, Missing: []string{base + "/no-such-page"}})

			for _, p := range []string{"", "guides/care", "api-reference/pets/get-a-pet", "no-such-page"} {
				b.Open(base + "/" + p)
			}
			for _, p := range []string{"", "quickstart", "essentials/code", "essentials/markdown", "api-reference/endpoint/create", "api-reference/endpoint/get"} {
				b.Open(starterBase + "/" + p)
			}
			present := func(sel string) string {
				return `document.querySelector(` + jsString(sel) + `) ? "yes" : "no"`
			}
			if !c.f.Search {
				b.Open(base + "/guides/care")
				for _, sel := range []string{".lc-search-button", "#lc-search", ".lc-assistant-button", "#lc-assistant", "[data-lc-playground]",
					`script[src*="search"]`, `script[src*="assistant"]`, `script[src*="analytics"]`, `meta[name^="lectern-"]`} {
					if v, _ := b.Eval("absent "+sel, present(sel)); v != "no" {
						t.Errorf("features off: the page has %s", sel)
					}
				}
				b.Open(base + "/api-reference/pets/get-a-pet")
				if v, _ := b.Eval("no playground", present("[data-lc-playground]")+` + (document.querySelector('script[src*="playground"]') ? " script" : "")`); v != "no" {
					t.Errorf("features off: the operation page has a playground (%s)", v)
				}
				// The CSP blocks what the features would need: a request to
				// the other origin is refused and reported.
				if v, _ := b.Eval("blocked fetch", `fetch(`+jsString(api.url+"/hit")+`, {method: "POST", body: "x"}).then(() => "sent", () => "blocked")`); v != "blocked" {
					t.Errorf("features off: a request to another origin was %s, want blocked by the CSP", v)
				}
				if got := b.Take(); len(got) == 0 || !strings.Contains(strings.Join(got, "\n"), "connect-src") {
					t.Errorf("features off: the blocked request was not reported as a CSP violation: %v", got)
				}
				if _, _, after := api.counts(); after != before {
					t.Errorf("features off: the pages sent %d requests to the other origin", after-before)
				}
				return
			}

			// Analytics: one page view per page load, with its path.
			hits, _, _ := api.counts()
			if len(hits) < 4 {
				t.Errorf("analytics: %d page views received, want one per page of the site (4): %v", len(hits), hits)
			}
			for _, h := range hits {
				var v struct{ Path, Referrer, Title, TS string }
				if err := json.Unmarshal([]byte(h), &v); err != nil || v.Path == "" || v.Title == "" || v.TS == "" {
					t.Errorf("analytics: page view %q lacks path, title or ts (%v)", h, err)
				}
			}

			// Search.
			b.Open(base + "/guides/care")
			b.Run("search", chromedp.Click(chromedp.CSS(".lc-search-button"), chromedp.NodeVisible),
				chromedp.WaitVisible(chromedp.CSS("#lc-search-input")),
				chromedp.SendKeys(chromedp.CSS("#lc-search-input"), "water"),
				chromedp.WaitVisible(chromedp.CSS(".lc-search-result a")))
			b.Check("search")

			// Assistant: ask, read the answer as text and the safe sources
			// as links.
			b.Open(base + "/guides/care")
			b.Run("assistant", chromedp.Click(chromedp.CSS(".lc-assistant-button"), chromedp.NodeVisible),
				chromedp.WaitVisible(chromedp.CSS(".lc-assistant-input")),
				chromedp.SendKeys(chromedp.CSS(".lc-assistant-input"), "How often do they drink?"),
				chromedp.Click(chromedp.CSS(".lc-assistant-send"), chromedp.NodeVisible),
				chromedp.WaitVisible(chromedp.CSS(".lc-assistant-answer:not(.lc-assistant-pending) .lc-assistant-text")))
			got, _ := b.Eval("assistant answer", `JSON.stringify({
				text: document.querySelector(".lc-assistant-answer .lc-assistant-text").textContent,
				bold: document.querySelectorAll(".lc-assistant-answer b").length,
				links: Array.from(document.querySelectorAll(".lc-assistant-sources a")).map(a => a.textContent + " " + a.href)})`)
			if want := `{"text":"Give them <b>fresh</b> water.","bold":0,"links":["Care guide ` + base + `/guides/care.html#water"]}`; got != want {
				t.Errorf("assistant: got %s\nwant %s", got, want)
			}
			// A streamed answer, CRLF split across chunks, is read whole.
			b.Run("assistant stream", chromedp.SendKeys(chromedp.CSS(".lc-assistant-input"), "And stream it?"),
				chromedp.Click(chromedp.CSS(".lc-assistant-send"), chromedp.NodeVisible),
				chromedp.WaitVisible(chromedp.CSS(".lc-assistant-answer:nth-of-type(2):not(.lc-assistant-pending) .lc-assistant-sources a")))
			got, _ = b.Eval("streamed answer", `JSON.stringify({
				text: document.querySelectorAll(".lc-assistant-answer")[1].querySelector(".lc-assistant-text").textContent,
				italic: document.querySelectorAll(".lc-assistant-answer i").length,
				cite: document.querySelectorAll(".lc-assistant-answer")[1].querySelector("sup a").href})`)
			if want := `{"text":"Fresh <i>water</i> [1]","italic":0,"cite":"` + base + `/guides/care.html"}`; got != want {
				t.Errorf("assistant stream: got %s\nwant %s", got, want)
			}
			if _, asks, _ := api.counts(); len(asks) != 2 || asks[0] != "How often do they drink?" || asks[1] != "And stream it?" {
				t.Errorf("assistant: questions received %q", asks)
			}
			b.Check("assistant")

			// Playground: send the request to the API (the other origin).
			b.Open(base + "/api-reference/pets/get-a-pet")
			b.Run("playground", chromedp.Click(chromedp.CSS(".lc-playground > summary"), chromedp.NodeVisible),
				chromedp.Click(chromedp.CSS("[data-pg-send]"), chromedp.NodeVisible),
				chromedp.Poll[chromedp.Void](`/"Rex"/.test((document.querySelector("[data-pg-response]") || {}).textContent)`, chromedp.WithPollingTimeout(stepTimeout)))
			if v, _ := b.Eval("playground status", `document.querySelector("[data-pg-status]").textContent`); !strings.HasPrefix(v, "200") {
				t.Errorf("playground: status %q, want 200", v)
			}
			b.Check("playground")

			// Mermaid draws its diagram.
			b.Open(base + "/")
			b.Run("mermaid", chromedp.WaitVisible(chromedp.CSS("pre.mermaid svg")))
			b.Check("mermaid")
		})
	}
}
