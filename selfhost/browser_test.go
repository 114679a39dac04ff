package selfhost

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"lectern.dev/lectern/bundle"
	"lectern.dev/lectern/render"
)

// chromiumPath is Debian's chromium, which CI installs with apt.
const chromiumPath = "/usr/bin/chromium"

// browserStep bounds one wait in the browser.
const browserStep = 8 * time.Second

// exportBundle renders the starter corpus (read in place) as the export
// job does, every feature marked, and returns it as a bundle.
func exportBundle(t *testing.T) []byte {
	t.Helper()
	src, _ := filepath.Abs("../../shared/corpus/mintlify-starter")
	if _, err := os.Stat(filepath.Join(src, "docs.json")); err != nil {
		t.Fatalf("corpus mintlify-starter is not readable: %v", err)
	}
	out := t.TempDir()
	all := render.AllSiteFeatures()
	if _, err := render.Build(context.Background(), os.DirFS(src), &render.DirOutput{Dir: out},
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
	if _, err := os.Stat(chromiumPath); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is required in CI (apt-get install chromium): %v", chromiumPath, err)
		}
		t.Skipf("%s not installed: %v", chromiumPath, err)
	}
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

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(chromiumPath), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true), chromedp.Flag("no-first-run", true), chromedp.Flag("no-default-browser-check", true),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(1280, 900), chromedp.UserDataDir(t.TempDir()),
	)
	defer cancelAlloc()
	browserCtx, cancelBrowser := chromedp.NewContext(allocCtx)
	defer cancelBrowser()
	if err := chromedp.Do(browserCtx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}

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
			defer srv.Close()
			b := newBrowserTab(t, browserCtx, append(m.others, srv.URL))
			defer b.close()

			for _, p := range []string{"/", "/quickstart", "/essentials/markdown", "/api-reference/endpoint/get"} {
				b.open(srv.URL + p)
			}
			present, _ := b.eval(`String(!!document.querySelector(".lc-search-button") + "," + !!document.getElementById("lc-search-input") + "," + !!document.querySelector(".lc-assistant-button") + "," + !!document.querySelector('meta[name="lectern-analytics-url"]'))`)
			want := fmt.Sprint(m.search, ",", m.search, ",", m.search, ",", m.search)
			if present != want {
				t.Errorf("search button, search input, assistant button, analytics meta: %s, want %s", present, want)
			}
			if m.search {
				b.search("quickstart")
				deadline := time.Now().Add(browserStep)
				for _, ok := beacons.Load("/quickstart"); !ok; _, ok = beacons.Load("/quickstart") {
					if time.Now().After(deadline) {
						t.Fatal("no analytics beacon reached the endpoint for /quickstart")
					}
					time.Sleep(50 * time.Millisecond)
				}
			} else {
				for _, r := range b.requested() {
					if strings.Contains(r, "search") || strings.Contains(r, "analytics") || strings.Contains(r, "assistant") {
						t.Errorf("a disabled feature made a request: %s", r)
					}
				}
			}
			b.check(m.name)
		})
	}
}

// browserTab is a Chromium tab that records what its pages must never do:
// reach an origin not listed, log an error, throw.
type browserTab struct {
	t        *testing.T
	ctx      context.Context
	close    func()
	mu       sync.Mutex
	problems []string
	urls     []string
}

func newBrowserTab(t *testing.T, browserCtx context.Context, origins []string) *browserTab {
	ctx, cancel := chromedp.NewContext(browserCtx)
	b := &browserTab{t: t, ctx: ctx, close: cancel}
	local := func(raw string) bool {
		u, err := url.Parse(raw)
		if err != nil {
			return false
		}
		return u.Scheme == "data" || u.Scheme == "blob" || slices.Contains(origins, u.Scheme+"://"+u.Host)
	}
	err := chromedp.Listen(ctx, func(ev any) {
		b.mu.Lock()
		defer b.mu.Unlock()
		switch ev := ev.(type) {
		case *network.EventRequestWillBeSent:
			b.urls = append(b.urls, ev.Request.URL)
			if !local(ev.Request.URL) {
				b.problems = append(b.problems, "request to another origin: "+ev.Request.URL)
			}
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
				var parts []string
				for _, a := range ev.Args {
					parts = append(parts, string(a.Value)+a.Description)
				}
				b.problems = append(b.problems, "console error: "+strings.Join(parts, " "))
			}
		case *runtime.EventExceptionThrown:
			msg := ev.ExceptionDetails.Text
			if ev.ExceptionDetails.Exception != nil {
				msg += " " + ev.ExceptionDetails.Exception.Description
			}
			b.problems = append(b.problems, "uncaught exception: "+msg)
		case *log.EventEntryAdded:
			if ev.Entry.Level == log.EntryLevelError {
				b.problems = append(b.problems, fmt.Sprintf("log error (%s): %s %s", ev.Entry.Source, ev.Entry.Text, ev.Entry.URL))
			}
		}
	})
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	return b
}

// check fails the test with the problems seen so far.
func (b *browserTab) check(step string) {
	b.t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, p := range b.problems {
		b.t.Errorf("%s: %s", step, p)
	}
	b.problems = nil
}

func (b *browserTab) requested() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.urls...)
}

func (b *browserTab) run(step string, actions ...chromedp.Action[chromedp.Void]) bool {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, browserStep)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("timed out after %v", browserStep)
		}
		b.t.Errorf("%s: %v", step, err)
		return false
	}
	return true
}

func (b *browserTab) eval(js string) (string, bool) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, browserStep)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
	if err != nil {
		b.t.Errorf("eval: %v", err)
		return "", false
	}
	return v, true
}

// open navigates to u, waits for the page to load and checks it.
func (b *browserTab) open(u string) {
	b.t.Helper()
	b.run("open "+u, chromedp.Navigate(u), chromedp.WaitReady("body"),
		chromedp.Poll[chromedp.Void](`document.readyState === "complete"`, chromedp.WithPollingTimeout(browserStep)))
	time.Sleep(100 * time.Millisecond) // let deferred scripts and beacons run
	b.check("open " + u)
}

// search opens the search dialog, types q and follows the first result,
// which must lead to a page whose URL contains q.
func (b *browserTab) search(q string) {
	b.t.Helper()
	if !b.run("search for "+q,
		chromedp.Click(chromedp.CSS(".lc-search-button"), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS("#lc-search-input")),
		chromedp.SendKeys(chromedp.CSS("#lc-search-input"), kb.End+strings.Repeat(kb.Backspace, 4)+q),
		chromedp.WaitVisible(chromedp.CSS(".lc-search-result a")),
	) {
		return
	}
	href, _ := b.eval(`document.querySelector(".lc-search-result a").href`)
	if !strings.Contains(href, q) {
		b.t.Errorf("search %q: first result %q", q, href)
		return
	}
	b.open(href)
	b.check("search")
}
