// Package browsertest drives headless Chromium for Lectern's browser tests
// (render and selfhost) with one set of rules for what a page must never do.
//
// [Start] launches Debian's Chromium ([ChromiumPath]) through chromedp: a
// test skips when it is missing, and fails when CI=true. [NewTab] opens a
// tab that records every problem of its pages: a console.error or failed
// console.assert, an uncaught exception, an entry of the browser log at
// error level (a failed load or a 404 included), a request to an origin
// the test did not list, and a Content-Security-Policy violation (which a
// script the tab adds to every document reports as a console error).
// [Tab.Run], [Tab.Eval] and [Tab.Open] bound each step by [StepTimeout];
// [Tab.Check] fails the test with the problems seen since the last check.
// [Serve] serves a built site on loopback the way Lectern's sites server
// does, and [ScreenshotPath] says where a test leaves its screenshot.
//
// It is a test helper, imported only by tests.
package browsertest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"lectern.dev/lectern"
	"lectern.dev/lectern/internal/headless"
)

// ChromiumPath is Debian's Chromium, which CI installs with apt.
const ChromiumPath = "/usr/bin/chromium"

// StepTimeout bounds one step in the browser, so that a missing element
// fails its step with a clear message rather than eating the whole budget.
const StepTimeout = 8 * time.Second

// settle is how long Open lets deferred work of a loaded page (beacons,
// diagrams, late scripts) run before it checks the page.
const settle = 150 * time.Millisecond

// RequireChromium returns ChromiumPath. When it is not installed the test
// is skipped, or fails when the CI variable is "true".
func RequireChromium(t testing.TB) string {
	t.Helper()
	if _, err := os.Stat(ChromiumPath); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is required in CI (apt-get install chromium): %v", ChromiumPath, err)
		}
		t.Skipf("%s not installed: %v", ChromiumPath, err)
	}
	return ChromiumPath
}

// Start launches a headless Chromium (RequireChromium first) that lives as
// long as parent, with headless.Options and a fresh user-data folder. It
// returns the browser's context, from which NewTab opens tabs, and the
// function that closes the browser.
func Start(t testing.TB, parent context.Context) (context.Context, context.CancelFunc) {
	t.Helper()
	exe := RequireChromium(t)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(parent, headless.Options(exe, t.TempDir())...)
	browserCtx, cancelBrowser := chromedp.NewContext(allocCtx)
	cancel := func() {
		cancelBrowser()
		cancelAlloc()
	}
	// Start the browser now, on a context without a step's timeout.
	if err := chromedp.Do(browserCtx); err != nil {
		cancel()
		t.Fatalf("start chromium: %v", err)
	}
	return browserCtx, cancel
}

// Problems collects, safe for concurrent use, what pages must never do.
// It keeps the first 100 and counts the rest.
type Problems struct {
	mu      sync.Mutex
	list    []string
	dropped int
}

// Add records a problem, formatted as by fmt.Sprintf.
func (p *Problems) Add(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.list) >= 100 {
		p.dropped++
		return
	}
	p.list = append(p.list, fmt.Sprintf(format, args...))
}

// Take returns the problems recorded since the last Take and forgets them.
func (p *Problems) Take() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	l := p.list
	if p.dropped > 0 {
		l = append(l, fmt.Sprintf("and %d more problems", p.dropped))
	}
	p.list, p.dropped = nil, 0
	return l
}

// Options say what a Tab's pages may do.
type Options struct {
	// Origins are the origins ("http://127.0.0.1:8080") the pages may send
	// requests to; "file://" allows file URLs. data: and blob: URLs are
	// always allowed. A request anywhere else is a problem.
	Origins []string
	// Missing are URLs the test opens knowing they are not found: the
	// error the browser logs for loading one of them exactly is not a
	// problem (anything else the page does still is).
	Missing []string
}

// Tab is a browser tab whose pages' problems (see the package
// documentation) fail the test at the next Check or Open.
type Tab struct {
	t        testing.TB
	ctx      context.Context
	opts     Options
	problems Problems

	mu        sync.Mutex
	requested []string
}

// cspViolationJS reports every CSP violation of a page as a console error.
const cspViolationJS = `document.addEventListener("securitypolicyviolation", function (e) {
	console.error("CSP violation: " + e.violatedDirective + " blocked " + (e.blockedURI || "inline") + " at " + e.sourceFile + ":" + e.lineNumber);
});`

// NewTab opens a tab in the browser of browserCtx (from Start) and starts
// recording its problems and requests. The tab closes when the test ends.
func NewTab(t testing.TB, browserCtx context.Context, opts Options) *Tab {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browserCtx)
	t.Cleanup(cancel)
	b := &Tab{t: t, ctx: ctx, opts: opts}
	if err := chromedp.Listen(ctx, b.event); err != nil {
		t.Fatalf("listen: %v", err)
	}
	if !b.Run("report CSP violations", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: cspViolationJS})
		return err
	})) {
		t.FailNow()
	}
	return b
}

// event records what one event of the tab says; it runs in chromedp's
// reading loop, so it only appends under locks.
func (b *Tab) event(ev any) {
	switch ev := ev.(type) {
	case *network.EventRequestWillBeSent:
		b.mu.Lock()
		b.requested = append(b.requested, ev.Request.URL)
		b.mu.Unlock()
		if !b.allowed(ev.Request.URL) {
			b.problems.Add("request to another host: %s %s", ev.Request.Method, ev.Request.URL)
		}
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
			var parts []string
			for _, a := range ev.Args {
				var str string
				switch {
				case a.Value == nil:
					parts = append(parts, a.Description)
				case json.Unmarshal(a.Value, &str) == nil:
					parts = append(parts, str)
				default:
					parts = append(parts, string(a.Value))
				}
			}
			b.problems.Add("console.%s: %s", ev.Type, strings.Join(parts, " "))
		}
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		msg := d.Text
		if d.Exception != nil && d.Exception.Description != "" {
			msg += " " + d.Exception.Description
		}
		b.problems.Add("uncaught exception at %s:%d: %s", d.URL, d.LineNumber+1, msg)
	case *log.EventEntryAdded:
		e := ev.Entry
		if e.Level == log.EntryLevelError && !(e.Source == log.EntrySourceNetwork && slices.Contains(b.opts.Missing, e.URL)) {
			b.problems.Add("log error (%s): %s %s", e.Source, e.Text, e.URL)
		}
	}
}

// allowed reports whether the pages may request raw.
func (b *Tab) allowed(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	return u.Scheme == "data" || u.Scheme == "blob" || slices.Contains(b.opts.Origins, u.Scheme+"://"+u.Host)
}

// Context is the tab's context, for waits a step does not fit. Bound each
// use with a timeout.
func (b *Tab) Context() context.Context { return b.ctx }

// Run runs the actions as one step bounded by StepTimeout. When one fails
// it reports the error under the step's name and returns false.
func (b *Tab) Run(step string, actions ...chromedp.Action[chromedp.Void]) bool {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, StepTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("timed out after %v", StepTimeout)
		}
		b.t.Errorf("%s: %v", step, err)
		return false
	}
	return true
}

// Eval evaluates js in the page (a promise is awaited) as one step and
// returns its string value. When the evaluation fails it reports the
// error under the step's name and returns "", false.
func (b *Tab) Eval(step, js string) (string, bool) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, StepTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[string](js, chromedp.EvalAwaitPromise))
	if err != nil {
		b.t.Errorf("%s: %v", step, err)
		return "", false
	}
	return v, true
}

// Try evaluates js like Eval within timeout but reports nothing: it is for
// polling a page that may be navigating away.
func (b *Tab) Try(js string, timeout time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(b.ctx, timeout)
	defer cancel()
	return chromedp.Run(ctx, chromedp.Evaluate[string](js, chromedp.EvalAwaitPromise))
}

// Open navigates to u, waits until the document is complete, lets its
// deferred work run and checks the page. It reports whether the page
// loaded.
func (b *Tab) Open(u string) bool {
	b.t.Helper()
	ok := b.Run("open "+u, chromedp.Navigate(u), chromedp.WaitReady("body"),
		chromedp.Poll[chromedp.Void](`document.readyState === "complete"`, chromedp.WithPollingTimeout(StepTimeout)))
	time.Sleep(settle)
	b.Check("open " + u)
	return ok
}

// Visit is Open without the check: for a page whose problems the test
// expects (it reads them with Take).
func (b *Tab) Visit(u string) bool {
	b.t.Helper()
	ok := b.Run("open "+u, chromedp.Navigate(u), chromedp.WaitReady("body"),
		chromedp.Poll[chromedp.Void](`document.readyState === "complete"`, chromedp.WithPollingTimeout(StepTimeout)))
	time.Sleep(settle)
	return ok
}

// Check fails the test with each problem seen since the last Check (or
// Take), naming the step.
func (b *Tab) Check(step string) {
	b.t.Helper()
	for _, p := range b.problems.Take() {
		b.t.Errorf("%s: %s", step, p)
	}
}

// Take returns the problems seen since the last Check or Take without
// failing the test, for a test that expects some.
func (b *Tab) Take() []string { return b.problems.Take() }

// Requested returns the URL of every request the tab's pages sent, in
// order.
func (b *Tab) Requested() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.requested)
}

// Screenshot saves a full-page screenshot of the tab at ScreenshotPath and
// logs where.
func (b *Tab) Screenshot() {
	b.t.Helper()
	shot := ScreenshotPath(b.t)
	ctx, cancel := context.WithTimeout(b.ctx, StepTimeout)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err == nil {
		err = os.WriteFile(shot, png, 0o644)
	}
	if err != nil {
		b.t.Errorf("screenshot: %v", err)
		return
	}
	b.t.Logf("screenshot: %s", shot)
}

// ElementShot saves a screenshot of the element sel (a CSS selector)
// beside ScreenshotPath's, its name ending in -name.png, and logs where:
// a widget seen at its size, in a page too long to look at whole.
func (b *Tab) ElementShot(sel, name string) {
	b.t.Helper()
	shot := strings.TrimSuffix(ScreenshotPath(b.t), ".png") + "-" + name + ".png"
	ctx, cancel := context.WithTimeout(b.ctx, StepTimeout)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS(sel), chromedp.NodeVisible))
	if err == nil {
		err = os.WriteFile(shot, png, 0o644)
	}
	if err != nil {
		b.t.Errorf("screenshot of %s: %v", sel, err)
		return
	}
	b.t.Logf("screenshot: %s", shot)
}

// ScreenshotPath is where a browser test leaves its screenshot for people
// to look at: $LECTERN_SCREENSHOT_DIR, or lectern-browser-test in the
// system temp folder, one file per test name, replaced at each run (a
// test's own temp folder is removed when it ends).
func ScreenshotPath(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("LECTERN_SCREENSHOT_DIR")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "lectern-browser-test")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("screenshot folder: %v", err)
	}
	return filepath.Join(dir, strings.ReplaceAll(t.Name(), "/", "-")+".png")
}

// Serve serves site on loopback until the test ends, the way Lectern's
// sites server does: each URL path is the first regular file of
// lectern.SiteFiles ("/" is index.html, "/x" and "/x/" are x.html or else
// x/index.html, a path with an extension is the file itself or that name
// plus .html, an extensionless path may also name a file as it is), and
// anything else is 404.html with status 404. Every response carries the
// fields of header. It returns the base URL ("http://127.0.0.1:port").
func Serve(t testing.TB, site fs.FS, header http.Header) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for k, v := range header {
			w.Header()[k] = v
		}
		for _, c := range lectern.SiteFiles(r.URL.Path) {
			if serveFile(w, r, site, c, http.StatusOK) {
				return
			}
		}
		if !serveFile(w, r, site, "404.html", http.StatusNotFound) {
			http.NotFound(w, r)
		}
	}), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
}

// serveFile answers with the regular file name of site and status, and
// reports whether there was one.
func serveFile(w http.ResponseWriter, r *http.Request, site fs.FS, name string, status int) bool {
	f, err := site.Open(name)
	if err != nil {
		return false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return false
	}
	if status != http.StatusOK {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(status)
		_, _ = io.Copy(w, f)
		return true
	}
	if rs, ok := f.(io.ReadSeeker); ok {
		http.ServeContent(w, r, name, st.ModTime(), rs)
		return true
	}
	data, err := io.ReadAll(f)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return true
	}
	http.ServeContent(w, r, name, st.ModTime(), bytes.NewReader(data))
	return true
}
