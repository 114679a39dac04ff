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
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"lectern.dev/lectern/bundle"
	"lectern.dev/lectern/internal/browsertest"
	"lectern.dev/lectern/render"
	"lectern.dev/lectern/render/features"
	"lectern.dev/lectern/render/output"
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
		others     []string
	}{
		{"air-gapped", "deployment: {type: air-gapped}\nstaticExport: {enabled: true, bundleUrl: %q}\nfeatures: {playground: true}\n", false, nil},
		{"client-hosted", "deployment: {type: client-hosted}\nstaticExport: {enabled: true, bundleUrl: %q}\n" +
			"features: {search: true, assistant: true, analytics: true}\n" +
			"assistant: {endpoint: \"" + endpoints.URL + "/ask\"}\nanalytics: {endpoint: \"" + endpoints.URL + "/hit\"}\n", true, []string{endpoints.URL}},
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

			for _, p := range []string{"/", "/quickstart", "/essentials/markdown", "/api-reference/endpoint/get"} {
				b.Open(srv.URL + p)
			}
			present, _ := b.Eval("features present", `String(!!document.querySelector(".lc-search-button") + "," + !!document.getElementById("lc-search-input") + "," + !!document.querySelector(".lc-assistant-button") + "," + !!document.querySelector('meta[name="lectern-analytics-url"]'))`)
			want := fmt.Sprint(m.search, ",", m.search, ",", m.search, ",", m.search)
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
			} else {
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
