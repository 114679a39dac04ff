package selfhost

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"lectern.dev/lectern"
	"lectern.dev/lectern/bundle"
	"lectern.dev/lectern/internal/browsertest"
	"lectern.dev/lectern/render"
	"lectern.dev/lectern/render/features"
	"lectern.dev/lectern/render/output"
	"lectern.dev/lectern/store"
)

// exportBundle renders the starter corpus (read in place) as the export
// job does, every feature marked, and returns it as a bundle.
func exportBundle(t *testing.T) []byte {
	t.Helper()
	src, _ := filepath.Abs("../../shared/corpus/mintlify-starter")
	if _, err := os.Stat(filepath.Join(src, "docs.json")); err != nil {
		t.Fatalf("corpus mintlify-starter is not readable: %v", err)
	}
	out := t.TempDir()
	all := features.All()
	if _, err := render.Build(context.Background(), os.DirFS(src), &output.Dir{Dir: out},
		render.Options{Export: true, SiteURL: "https://starter.docs.test", Features: &all}); err != nil {
		t.Fatalf("render: %v", err)
	}
	var buf bytes.Buffer
	if _, err := bundle.Write(context.Background(), &buf, os.DirFS(out), bundle.Manifest{Version: "starter-1", Domain: "starter.docs.test",
		CreatedAt: time.Now().UTC()}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestBrowser opens the self-hosted starter site in headless Chromium, in
// air-gapped mode (no search, no assistant, no analytics; playground on)
// and in client-hosted mode (search, assistant and analytics on, their
// endpoints on loopback). Any request to another host, console error,
// uncaught exception or error log entry (a CSP violation included) fails
// the test; search must work where it is on and leave no trace where it
// is off, and the analytics beacon must reach its endpoint.
func TestBrowser(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	browserCtx, closeBrowser := browsertest.Start(t, ctx)
	defer closeBrowser()
	data := exportBundle(t)
	o := newOrigin(t)
	link := o.put("/starter.tar.gz", data)

	var beacons sync.Map // path → true
	endpoints := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", "*")
		if r.URL.Path == "/hit" {
			var v struct{ Path string }
			b, _ := io.ReadAll(r.Body)
			json.Unmarshal(b, &v)
			beacons.Store(v.Path, true)
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer endpoints.Close()

	// Each mode lists the origins its pages may reach besides the site's.
	modes := []struct {
		name, yaml string
		search     bool
		assistant  bool // selfhost's own
		others     []string
	}{
		{"air-gapped", "deployment: {type: air-gapped}\nstaticExport: {enabled: true, bundleUrl: %q}\nfeatures: {playground: true}\n", false, false, nil},
		{"client-hosted", "deployment: {type: client-hosted}\nstaticExport: {enabled: true, bundleUrl: %q}\n" +
			"features: {search: true, assistant: true, analytics: true}\n" +
			"assistant: {endpoint: \"" + endpoints.URL + "/ask\"}\nanalytics: {endpoint: \"" + endpoints.URL + "/hit\"}\n", true, false, []string{endpoints.URL}},
		{"own assistant and analytics", "deployment: {type: client-hosted}\nstaticExport: {enabled: true, bundleUrl: %q}\nfeatures: {assistant: true, analytics: true}\n", false, true, nil},
	}
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			cfgFile := filepath.Join(t.TempDir(), "lectern.yaml")
			os.WriteFile(cfgFile, []byte(fmt.Sprintf(m.yaml, link)), 0o644)
			cfg, err := LoadConfig(cfgFile, func(string) string { return "" })
			if err != nil {
				t.Fatal(err)
			}
			c, _ := newTestCache(t)
			c.limits = bundle.Limits{MaxTotal: 64 << 20}
			c.fetcher.MaxSize = 64 << 20
			h := NewHandler(slog.New(slog.DiscardHandler))
			rt, err := NewRuntime(slog.New(slog.DiscardHandler), c, h, cfgFile, func(string) string { return "" })
			if err != nil {
				t.Fatal(err)
			}
			if err := rt.Apply(context.Background(), cfg); err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(h)
			t.Cleanup(srv.Close) // after the tab's
			b := browsertest.NewTab(t, browserCtx, browsertest.Options{Origins: append(m.others, srv.URL)})
			// A headless browser's events are not counted: a reader's.
			b.Run("an ordinary browser", chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
				_, err := cdp.Call(ctx, target, emulation.SetUserAgentOverride, emulation.SetUserAgentOverrideParams{UserAgent: browserUA})
				return err
			}))

			for _, p := range []string{"/", "/quickstart", "/essentials/markdown", "/api-reference/endpoint/get"} {
				b.Open(srv.URL + p)
			}
			present, _ := b.Eval("features present", `String(!!document.querySelector(".lc-search-button") + "," + !!document.getElementById("lc-search-input") + "," + !!document.querySelector(".lc-assistant-button") + "," + !!document.querySelector('meta[name="lectern-analytics-url"]'))`)
			want := fmt.Sprint(m.search, ",", m.search, ",", m.search || m.assistant, ",", m.search || m.assistant)
			if present != want {
				t.Errorf("search button, search input, assistant button, analytics meta: %s, want %s", present, want)
			}
			if m.search {
				followSearch(t, b, "quickstart")
				deadline := time.Now().Add(browsertest.StepTimeout)
				for _, ok := beacons.Load("/quickstart"); !ok; _, ok = beacons.Load("/quickstart") {
					if time.Now().After(deadline) {
						t.Fatal("no analytics beacon reached the endpoint for /quickstart")
					}
					time.Sleep(50 * time.Millisecond)
				}
			} else if m.assistant {
				askOwnAssistant(t, b, srv.URL)
				ownAnalyticsRecorded(t, rt)
			} else {
				airGappedTools(t, srv.URL)
				for _, r := range b.Requested() {
					if strings.Contains(r, "search") || strings.Contains(r, "analytics") || strings.Contains(r, "assistant") {
						t.Errorf("a disabled feature made a request: %s", r)
					}
				}
			}
			b.Check(m.name)
		})
	}
}

// followSearch opens the search dialog, types q and follows the first result,
// which must lead to a page whose URL contains q.
func followSearch(t *testing.T, b *browsertest.Tab, q string) {
	t.Helper()
	if !b.Run("search for "+q,
		chromedp.Click(chromedp.CSS(".lc-search-button"), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS("#lc-search-input")),
		chromedp.SendKeys(chromedp.CSS("#lc-search-input"), kb.End+strings.Repeat(kb.Backspace, 4)+q),
		chromedp.WaitVisible(chromedp.CSS(".lc-search-result a")),
	) {
		return
	}
	href, _ := b.Eval("first result", `document.querySelector(".lc-search-result a").href`)
	if !strings.Contains(href, q) {
		t.Errorf("search %q: first result %q", q, href)
		return
	}
	b.Open(href)
	b.Check("search")
}

// askOwnAssistant opens selfhost's own assistant with ?assistant=open,
// asks it a question of the starter's docs and reads the answer streamed
// with its sources, links into the site; Ctrl+I closes and opens the
// panel. Screenshots in light and dark mode.
func askOwnAssistant(t *testing.T, b *browsertest.Tab, base string) {
	t.Helper()
	b.Open(base + "/quickstart?assistant=open")
	if !b.Run("ask", chromedp.WaitVisible(chromedp.CSS("#lc-assistant")),
		chromedp.SendKeys(chromedp.CSS(".lc-assistant-input"), "How do I install the Mintlify CLI?"+kb.Enter),
		chromedp.WaitVisible(chromedp.CSS(".lc-assistant-answer:not(.lc-assistant-pending) .lc-assistant-sources a"))) {
		return
	}
	got, _ := b.Eval("answer", `JSON.stringify({text: document.querySelector(".lc-assistant-answer .lc-assistant-text").textContent,
		cites: document.querySelectorAll(".lc-assistant-answer sup a").length,
		links: Array.from(document.querySelectorAll(".lc-assistant-sources a")).map(a => a.href)})`)
	var v struct {
		Text  string
		Cites int
		Links []string
	}
	json.Unmarshal([]byte(got), &v)
	if !strings.Contains(v.Text, "npm i -g mint") || v.Cites == 0 || len(v.Links) == 0 || !strings.HasPrefix(v.Links[0], base+"/") {
		t.Errorf("answer: %s", got)
	}
	shot := browsertest.ScreenshotPath(t)
	b.Screenshot()
	os.Rename(shot, strings.TrimSuffix(shot, ".png")+"-light.png")
	if _, ok := b.Eval("dark", `document.documentElement.setAttribute("data-theme", "dark"), "ok"`); !ok {
		return
	}
	b.Screenshot()
	b.Run("Ctrl+I closes", chromedp.KeyEvent("i", chromedp.KeyModifiers(2 /* Ctrl */)),
		chromedp.WaitNotVisible(chromedp.CSS("#lc-assistant")))
	b.Run("Ctrl+I opens", chromedp.KeyEvent("i", chromedp.KeyModifiers(2 /* Ctrl */)),
		chromedp.WaitVisible(chromedp.CSS("#lc-assistant")))
	b.Check("assistant")
}

// ownAnalyticsRecorded: the pages' views reached selfhost's own
// analytics, and so did the question to its assistant.
func ownAnalyticsRecorded(t *testing.T, rt *Runtime) {
	t.Helper()
	a, ctx := rt.analytics, context.Background()
	if a == nil {
		t.Fatal("no own analytics")
	}
	defer rt.Close()
	day := lectern.AnalyticsDate(time.Now())
	want := []string{"/", "/api-reference/endpoint/get", "/essentials/markdown", "/quickstart"}
	var got []string
	for deadline := time.Now().Add(browsertest.StepTimeout); ; time.Sleep(50 * time.Millisecond) {
		top, err := a.st.AnalyticsTop(ctx, a.ProjectID, lectern.AnalyticsPageview, day, day.AddDate(0, 0, 1), store.AnalyticsTopFilter{Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		got = got[:0]
		for _, k := range top {
			got = append(got, k.Key)
		}
		slices.Sort(got)
		if slices.Equal(got, want) || time.Now().After(deadline) {
			break
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("pages viewed %q, want %q", got, want)
	}
	msgs, err := a.st.ListAssistantMessages(ctx, a.ProjectID, store.AssistantFilter{}, store.Page{})
	if err != nil || len(msgs) != 1 || msgs[0].Question != "How do I install the Mintlify CLI?" || msgs[0].Source != lectern.AssistantFromSite {
		t.Errorf("questions recorded: %v %+v", err, msgs)
	}
}

// airGappedTools: an air-gapped site answers no assistant, and its MCP
// server has get_page only.
func airGappedTools(t *testing.T, base string) {
	t.Helper()
	resp, err := http.Post(base+"/_lectern/assistant", "application/json", strings.NewReader(`{"messages":[{"role":"user","content":"install"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode == 200 || strings.Contains(string(body), "event:") {
		t.Errorf("the air-gapped site answered the assistant: %d %s", resp.StatusCode, body)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: base + "/mcp", MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(tools.Tools) != 1 || tools.Tools[0].Name != "get_page" {
		t.Errorf("air-gapped MCP tools: %+v %v", tools, err)
	}
}
