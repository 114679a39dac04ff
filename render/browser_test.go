package render

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// chromiumPath is Debian's chromium, which CI installs with apt.
const chromiumPath = "/usr/bin/chromium"

// Selectors agreed with the theme.
const (
	selTabButton   = ".lc-tab-button"
	selTabPanel    = ".lc-tab-panel"
	selSearchOpen  = ".lc-search-button"
	selSearchInput = "#lc-search-input"
	selSearchHit   = ".lc-search-result a"
	selThemeToggle = ".lc-theme-toggle"
	selCopy        = ".lc-copy"
)

// stepTimeout bounds one wait in the browser, so that a missing element
// fails its step with a clear message rather than eating the whole budget.
const stepTimeout = 8 * time.Second

// TestBrowser builds the starter site, serves it on loopback (and opens the
// export form from file://) and drives headless Chromium through it: pages,
// tabs, an accordion, search, dark mode. Any console error, uncaught
// exception, error log entry (a 404 included) or request to another host
// fails the test. A full-page screenshot of each form is kept after the
// run (screenshotPath) and its path logged.
func TestBrowser(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is required in CI (apt-get install chromium): %v", chromiumPath, err)
		}
		t.Skipf("%s not installed: %v", chromiumPath, err)
	}
	src := corpusDir + "mintlify-starter"
	if _, err := os.Stat(src + "/docs.json"); err != nil {
		t.Fatalf("corpus mintlify-starter is not readable: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()

	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(chromiumPath),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("no-default-browser-check", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(1280, 900),
		chromedp.UserDataDir(t.TempDir()),
	)
	defer cancelAlloc()
	browserCtx, cancelBrowser := chromedp.NewContext(allocCtx)
	defer cancelBrowser()
	// Start the browser on a context without its own timeout.
	if err := chromedp.Do(browserCtx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}

	t.Run("live", func(t *testing.T) {
		dir := t.TempDir()
		if _, err := Build(ctx, os.DirFS(src), DirOutput{Dir: dir}, Options{}); err != nil {
			t.Fatalf("Build: %v", err)
		}
		base := serveSite(t, dir)
		browserFlow(t, browserCtx, func(p string) string { return base + "/" + p })
	})
	t.Run("export", func(t *testing.T) {
		dir := t.TempDir()
		if _, err := Build(ctx, os.DirFS(src), DirOutput{Dir: dir}, Options{Export: true}); err != nil {
			t.Fatalf("Build: %v", err)
		}
		abs, err := filepath.Abs(dir)
		if err != nil {
			t.Fatal(err)
		}
		root := (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
		browserFlow(t, browserCtx, func(p string) string {
			if p == "" {
				p = "index"
			}
			return root + "/" + p + ".html"
		})
	})
	t.Run("redirects", func(t *testing.T) { redirectsBrowserFlow(t, ctx, browserCtx) })
	t.Run("features", func(t *testing.T) { featuresBrowserFlow(t, ctx, browserCtx) }) // features_browser_test.go
}

// serveSite serves dir on loopback the way Lectern's sites server does:
// "/" is index.html, "/x" is x.html (or x/index.html), files with an
// extension are served as they are, and anything else is 404.html with
// status 404. It returns the base URL.
func serveSite(t *testing.T, dir string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	serve := func(w http.ResponseWriter, r *http.Request, name string, status int) bool {
		f, err := root.Open(name)
		if err != nil {
			return false
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil || st.IsDir() {
			return false
		}
		if status != http.StatusOK {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.WriteHeader(status)
			_, _ = f.WriteTo(w)
			return true
		}
		http.ServeContent(w, r, name, st.ModTime(), f)
		return true
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := strings.Trim(path.Clean("/"+r.URL.Path), "/")
		var candidates []string
		switch {
		case p == "":
			candidates = []string{"index.html"}
		case path.Ext(p) != "":
			candidates = []string{p, p + ".html"}
		default:
			candidates = []string{p + ".html", p + "/index.html"}
		}
		for _, c := range candidates {
			if serve(w, r, c, http.StatusOK) {
				return
			}
		}
		if !serve(w, r, "404.html", http.StatusNotFound) {
			http.NotFound(w, r)
		}
	}), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
}

// pageProblems collects what a page must never do.
type pageProblems struct {
	mu   sync.Mutex
	list []string
}

func (p *pageProblems) add(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.list) < 100 {
		p.list = append(p.list, fmt.Sprintf(format, args...))
	}
}

func (p *pageProblems) take() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	l := p.list
	p.list = nil
	return l
}

// localURL reports whether a request URL stays on this machine.
func localURL(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	switch u.Scheme {
	case "data", "blob", "file":
		return true
	case "http", "https", "ws", "wss":
		h := u.Hostname()
		return h == "127.0.0.1" || h == "localhost" || h == "::1"
	}
	return false
}

// browserFlow opens a new tab and walks the site, whose pages are at
// urlOf("quickstart") and so on ("" is the home page).
func browserFlow(t *testing.T, browserCtx context.Context, urlOf func(p string) string) {
	tabCtx, cancelTab := chromedp.NewContext(browserCtx)
	defer cancelTab()
	problems := &pageProblems{}
	if err := chromedp.Listen(tabCtx, func(ev any) {
		switch ev := ev.(type) {
		case *network.EventRequestWillBeSent:
			if !localURL(ev.Request.URL) {
				problems.add("request to another host: %s %s", ev.Request.Method, ev.Request.URL)
			}
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
				var parts []string
				for _, a := range ev.Args {
					if a.Value != nil {
						parts = append(parts, string(a.Value))
					} else {
						parts = append(parts, a.Description)
					}
				}
				problems.add("console.%s: %s", ev.Type, strings.Join(parts, " "))
			}
		case *runtime.EventExceptionThrown:
			d := ev.ExceptionDetails
			msg := d.Text
			if d.Exception != nil && d.Exception.Description != "" {
				msg += " " + d.Exception.Description
			}
			problems.add("uncaught exception at %s:%d: %s", d.URL, d.LineNumber+1, msg)
		case *log.EventEntryAdded:
			if ev.Entry.Level == log.EntryLevelError {
				problems.add("log error (%s): %s %s", ev.Entry.Source, ev.Entry.Text, ev.Entry.URL)
			}
		}
	}); err != nil {
		t.Fatalf("listen: %v", err)
	}
	// check fails the test with the problems seen so far, naming the step.
	check := func(step string) {
		t.Helper()
		for _, p := range problems.take() {
			t.Errorf("%s: %s", step, p)
		}
	}
	// run runs one step with its own timeout.
	run := func(step string, actions ...chromedp.Action[chromedp.Void]) bool {
		t.Helper()
		ctx, cancel := context.WithTimeout(tabCtx, stepTimeout)
		defer cancel()
		if err := chromedp.Do(ctx, actions...); err != nil {
			if errors.Is(err, context.DeadlineExceeded) {
				err = fmt.Errorf("timed out after %v", stepTimeout)
			}
			t.Errorf("%s: %v", step, err)
			return false
		}
		return true
	}
	eval := func(step, js string) (string, bool) {
		t.Helper()
		ctx, cancel := context.WithTimeout(tabCtx, stepTimeout)
		defer cancel()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
		if err != nil {
			t.Errorf("%s: %v", step, err)
			return "", false
		}
		return v, true
	}
	// open navigates and waits for the page and its script.
	open := func(p string) bool {
		t.Helper()
		ok := run("open "+urlOf(p),
			chromedp.Navigate(urlOf(p)),
			chromedp.WaitReady("body"),
			chromedp.Poll[chromedp.Void](`document.readyState === "complete"`, chromedp.WithPollingTimeout(stepTimeout)),
		)
		check("open " + p)
		return ok
	}

	// Pages open cleanly.
	for _, p := range []string{"", "quickstart", "essentials/code", "api-reference/endpoint/create"} {
		open(p)
	}

	// Tabs: the second tab of the Tabs component on essentials/navigation
	// (the starter's other Tabs and CodeGroups sit inside code fences).
	if open("essentials/navigation") {
		res, ok := eval("tabs", `(function () {
			const buttons = Array.from(document.querySelectorAll(`+jsString(selTabButton)+`));
			if (buttons.length === 0) return "no element matches `+selTabButton+`";
			const second = buttons.find((b, i) => i > 0 && b.parentElement === buttons[0].parentElement);
			if (!second) return "the first tab bar has no second `+selTabButton+`";
			second.setAttribute("data-lc-test", "tab2");
			return "ok";
		})()`)
		if ok && res != "ok" {
			t.Errorf("tabs: %s", res)
		} else if ok && run("click the second tab", chromedp.Click(chromedp.CSS(`[data-lc-test="tab2"]`), chromedp.NodeVisible)) {
			res, _ := eval("tabs", `(function () {
				const b = document.querySelector('[data-lc-test="tab2"]');
				let panel = null;
				const id = b.getAttribute("aria-controls");
				if (id) panel = document.getElementById(id);
				let panels = [];
				for (let el = b.parentElement; el && panels.length < 2; el = el.parentElement) {
					panels = Array.from(el.querySelectorAll(`+jsString(selTabPanel)+`));
				}
				if (!panel) panel = panels[1];
				if (!panel) return "no second `+selTabPanel+` near the tab buttons";
				const shown = el => el.offsetParent !== null && !el.hidden && getComputedStyle(el).display !== "none";
				if (!shown(panel)) return "the second panel is not visible after its tab was clicked";
				if (panels[0] && panels[0] !== panel && shown(panels[0])) return "the first panel is still visible";
				return "ok";
			})()`)
			if res != "ok" {
				t.Errorf("tabs: %s", res)
			}
		}
		check("tabs")
	}

	// Accordion on the quickstart page.
	if open("quickstart") {
		if run("open an accordion",
			chromedp.Click(chromedp.CSS(`main details:not([open]) > summary`), chromedp.NodeVisible),
			chromedp.WaitVisible(chromedp.CSS(`main details[open] > :not(summary)`)),
		) {
			n, _ := eval("accordion", `String(document.querySelectorAll("main details[open]").length)`)
			if n == "0" || n == "" {
				t.Errorf("accordion: no details[open] after clicking its summary")
			}
		}
		check("accordion")
	}

	// Copy buttons on code blocks.
	if open("essentials/code") {
		run("copy buttons", chromedp.WaitReady(chromedp.CSS(selCopy)))
		check("copy buttons")
	}

	// Search from another page: "/" (or the button), type, click the first
	// result, land on the quickstart.
	if open("essentials/markdown") {
		func() {
			ctx, cancel := context.WithTimeout(tabCtx, 3*time.Second)
			defer cancel()
			_ = chromedp.Do(ctx, chromedp.KeyEvent("/"), chromedp.WaitVisible(chromedp.CSS(selSearchInput)))
		}()
		if v, _ := eval("search", `(function () { const i = document.querySelector(`+jsString(selSearchInput)+`); return i && i.offsetParent !== null ? "open" : "closed"; })()`); v != "open" {
			t.Logf(`search: "/" did not open %s; trying %s`, selSearchInput, selSearchOpen)
			run("open search with "+selSearchOpen, chromedp.Click(chromedp.CSS(selSearchOpen), chromedp.NodeVisible))
		}
		if run("search for quickstart",
			chromedp.WaitVisible(chromedp.CSS(selSearchInput)),
			// chromedp sends a key's character as its own event, which the
			// page's preventDefault on keydown cannot cancel: clear it.
			chromedp.SendKeys(chromedp.CSS(selSearchInput), kb.End+strings.Repeat(kb.Backspace, 4)+"quickstart"),
			chromedp.WaitVisible(chromedp.CSS(selSearchHit)),
		) && searchSettled(t, tabCtx) && run("click the first result", chromedp.Click(chromedp.CSS(selSearchHit), chromedp.NodeVisible)) {
			// The click navigates: the page's context goes away under any
			// evaluation, so ask again until the new page answers.
			loc := ""
			for deadline := time.Now().Add(stepTimeout); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
				ctx, cancel := context.WithTimeout(tabCtx, time.Second)
				v, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.readyState === "complete" ? location.href : ""`))
				cancel()
				if err == nil && v != "" {
					loc = v
					if strings.Contains(v, "quickstart") {
						break
					}
				}
			}
			if !strings.Contains(loc, "quickstart") {
				t.Errorf("search: the first result led to %q, want a quickstart page", loc)
			} else {
				t.Logf("search: landed on %s", loc)
			}
		}
		check("search")
	}

	// Dark mode: the toggle flips html[data-theme] and the background.
	if open("quickstart") {
		const state = `JSON.stringify([document.documentElement.dataset.theme || "", getComputedStyle(document.body).backgroundColor])`
		before, _ := eval("theme", state)
		if run("toggle the theme", chromedp.Click(chromedp.CSS(selThemeToggle), chromedp.NodeVisible)) {
			ctx, cancel := context.WithTimeout(tabCtx, stepTimeout)
			after, err := chromedp.Run(ctx, chromedp.Poll[string](`(function () {
				const s = `+state+`;
				return s !== `+jsString(before)+` ? s : null; })()`, chromedp.WithPollingTimeout(stepTimeout)))
			cancel()
			switch {
			case err != nil:
				t.Errorf("theme: nothing changed after clicking %s (before %s): %v", selThemeToggle, before, err)
			default:
				var b, a [2]string
				parsePair(before, &b)
				parsePair(after, &a)
				if a[0] == b[0] || a[0] == "" {
					t.Errorf("theme: data-theme %q → %q, want a flip", b[0], a[0])
				}
				if a[1] == b[1] {
					t.Errorf("theme: background colour stayed %s", a[1])
				}
				t.Logf("theme: %s → %s", before, after)
			}
		}
		check("theme")
	}

	shot := screenshotPath(t)
	ctx, cancel := context.WithTimeout(tabCtx, stepTimeout)
	defer cancel()
	if png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)); err != nil {
		t.Errorf("screenshot: %v", err)
	} else if err := os.WriteFile(shot, png, 0o644); err != nil {
		t.Errorf("screenshot: %v", err)
	} else {
		t.Logf("screenshot: %s", shot)
	}
	check("end")
}

// screenshotPath is where a browser subtest leaves its screenshot for
// people to look at: $LECTERN_SCREENSHOT_DIR, or lectern-browser-test in
// the system temp folder, one file per subtest, replaced at each run (a
// test's own temp dir is removed when it ends).
func screenshotPath(t *testing.T) string {
	dir := os.Getenv("LECTERN_SCREENSHOT_DIR")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "lectern-browser-test")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("screenshot folder: %v", err)
	}
	return filepath.Join(dir, strings.ReplaceAll(t.Name(), "/", "-")+".png")
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\u2028", `\u2028`, "\u2029", `\u2029`)
	return `"` + r.Replace(s) + `"`
}

// parsePair decodes the ["theme", "colour"] JSON the theme step reads.
func parsePair(s string, out *[2]string) {
	s = strings.TrimSuffix(strings.TrimPrefix(s, `["`), `"]`)
	a, b, _ := strings.Cut(s, `","`)
	out[0], out[1] = a, b
}

// searchSettled waits until the search results stop changing (results of a
// partly typed query may show first) and logs them.
func searchSettled(t *testing.T, tabCtx context.Context) bool {
	t.Helper()
	const js = `Array.from(document.querySelectorAll(` + "`" + selSearchHit + "`" + `)).map(a => (a.getAttribute("href") || "") + " " + a.textContent.trim().slice(0, 40)).join(" | ")`
	last, same := "", 0
	for deadline := time.Now().Add(stepTimeout); time.Now().Before(deadline); time.Sleep(150 * time.Millisecond) {
		ctx, cancel := context.WithTimeout(tabCtx, time.Second)
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
		cancel()
		if err != nil {
			last = "error: " + err.Error()
			continue
		}
		if v == last && v != "" {
			if same++; same >= 3 {
				t.Logf("search results: %s", v)
				return true
			}
			continue
		}
		last, same = v, 0
	}
	t.Errorf("search: the results did not settle within %v (last: %q)", stepTimeout, last)
	return false
}
