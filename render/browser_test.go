package render

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"lectern.dev/lectern/internal/browsertest"
	"lectern.dev/lectern/render/output"
)

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

// TestBrowser builds the starter site, serves it on loopback (and opens the
// export form from file://) and drives headless Chromium through it: pages,
// tabs, an accordion, search, dark mode. Any console error, uncaught
// exception, error log entry (a 404 included), CSP violation or request to
// another origin fails the test (internal/browsertest). A full-page
// screenshot of each form is kept after the run
// (browsertest.ScreenshotPath) and its path logged.
func TestBrowser(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	browserCtx, closeBrowser := browsertest.Start(t, ctx)
	defer closeBrowser()
	src := corpusDir + "mintlify-starter"
	if _, err := os.Stat(src + "/docs.json"); err != nil {
		t.Fatalf("corpus mintlify-starter is not readable: %v", err)
	}

	t.Run("live", func(t *testing.T) {
		dir := t.TempDir()
		if _, err := Build(ctx, os.DirFS(src), output.Dir{Dir: dir}, Options{}); err != nil {
			t.Fatalf("Build: %v", err)
		}
		base := serveSite(t, dir)
		tab := browsertest.NewTab(t, browserCtx, browsertest.Options{Origins: []string{base}})
		browserFlow(t, tab, func(p string) string { return base + "/" + p })
	})
	t.Run("export", func(t *testing.T) {
		dir := t.TempDir()
		if _, err := Build(ctx, os.DirFS(src), output.Dir{Dir: dir}, Options{Export: true}); err != nil {
			t.Fatalf("Build: %v", err)
		}
		abs, err := filepath.Abs(dir)
		if err != nil {
			t.Fatal(err)
		}
		root := (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
		tab := browsertest.NewTab(t, browserCtx, browsertest.Options{Origins: []string{"file://"}})
		browserFlow(t, tab, func(p string) string {
			if p == "" {
				p = "index"
			}
			return root + "/" + p + ".html"
		})
	})
	t.Run("redirects", func(t *testing.T) { redirectsBrowserFlow(t, ctx, browserCtx) })
	t.Run("features", func(t *testing.T) { featuresBrowserFlow(t, ctx, browserCtx) })          // features_browser_test.go
	t.Run("sidebar split", func(t *testing.T) { sidebarSplitBrowserFlow(t, ctx, browserCtx) }) // sidebar_split_browser_test.go
	t.Run("components", func(t *testing.T) { componentsBrowserFlow(t, ctx, browserCtx) })      // components_browser_test.go
	t.Run("theme", func(t *testing.T) { themeBrowserFlow(t, ctx, browserCtx) })                // theme_browser_test.go
	t.Run("search", func(t *testing.T) { searchBrowserFlow(t, ctx, browserCtx) })              // search_browser_test.go
	t.Run("contextual", func(t *testing.T) { contextualBrowserFlow(t, ctx, browserCtx) })      // contextual_browser_test.go
	t.Run("contextual export", func(t *testing.T) { contextualExportFlow(t, ctx, browserCtx) })
}

// stepTimeout bounds one wait in the browser (redirectsBrowserFlow's too).
const stepTimeout = browsertest.StepTimeout

// serveSite serves dir on loopback as browsertest.Serve does and returns
// the base URL.
func serveSite(t *testing.T, dir string) string {
	t.Helper()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return browsertest.Serve(t, root.FS(), nil)
}

// pageProblems collects what a page must never do, for a flow that
// listens to its tab itself (redirectsBrowserFlow).
type pageProblems struct{ browsertest.Problems }

func (p *pageProblems) add(format string, args ...any) { p.Add(format, args...) }

func (p *pageProblems) take() []string { return p.Take() }

// localURL reports whether a request URL stays on this machine, for a
// flow that listens to its tab itself (redirectsBrowserFlow); a
// browsertest.Tab allows only the origins it is given.
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

// browserFlow walks the site in tab, whose pages are at urlOf("quickstart")
// and so on ("" is the home page).
func browserFlow(t *testing.T, tab *browsertest.Tab, urlOf func(p string) string) {
	open := func(p string) bool { t.Helper(); return tab.Open(urlOf(p)) }

	// Pages open cleanly.
	for _, p := range []string{"", "quickstart", "essentials/code", "api-reference/endpoint/create"} {
		open(p)
	}

	// Tabs: the second tab of the Tabs component on essentials/navigation
	// (the starter's other Tabs and CodeGroups sit inside code fences).
	if open("essentials/navigation") {
		res, ok := tab.Eval("tabs", `(function () {
			const buttons = Array.from(document.querySelectorAll(`+jsString(selTabButton)+`));
			if (buttons.length === 0) return "no element matches `+selTabButton+`";
			const second = buttons.find((b, i) => i > 0 && b.parentElement === buttons[0].parentElement);
			if (!second) return "the first tab bar has no second `+selTabButton+`";
			second.setAttribute("data-lc-test", "tab2");
			return "ok";
		})()`)
		if ok && res != "ok" {
			t.Errorf("tabs: %s", res)
		} else if ok && tab.Run("click the second tab", chromedp.Click(chromedp.CSS(`[data-lc-test="tab2"]`), chromedp.NodeVisible)) {
			res, _ := tab.Eval("tabs", `(function () {
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
		tab.Check("tabs")
	}

	// Accordion on the quickstart page.
	if open("quickstart") {
		if tab.Run("open an accordion",
			chromedp.Click(chromedp.CSS(`main details:not([open]) > summary`), chromedp.NodeVisible),
			chromedp.WaitVisible(chromedp.CSS(`main details[open] > :not(summary)`)),
		) {
			n, _ := tab.Eval("accordion", `String(document.querySelectorAll("main details[open]").length)`)
			if n == "0" || n == "" {
				t.Errorf("accordion: no details[open] after clicking its summary")
			}
		}
		tab.Check("accordion")
	}

	// Copy buttons on code blocks.
	if open("essentials/code") {
		tab.Run("copy buttons", chromedp.WaitReady(chromedp.CSS(selCopy)))
		tab.Check("copy buttons")
	}

	// Search from another page: "/" (or the button), type, click the first
	// result, land on the quickstart.
	if open("essentials/markdown") {
		func() {
			ctx, cancel := context.WithTimeout(tab.Context(), 3*time.Second)
			defer cancel()
			_ = chromedp.Do(ctx, chromedp.KeyEvent("/"), chromedp.WaitVisible(chromedp.CSS(selSearchInput)))
		}()
		if v, _ := tab.Eval("search", `(function () { const i = document.querySelector(`+jsString(selSearchInput)+`); return i && i.offsetParent !== null ? "open" : "closed"; })()`); v != "open" {
			t.Logf(`search: "/" did not open %s; trying %s`, selSearchInput, selSearchOpen)
			tab.Run("open search with "+selSearchOpen, chromedp.Click(chromedp.CSS(selSearchOpen), chromedp.NodeVisible))
		}
		if tab.Run("search for quickstart",
			chromedp.WaitVisible(chromedp.CSS(selSearchInput)),
			// chromedp sends a key's character as its own event, which the
			// page's preventDefault on keydown cannot cancel: clear it.
			chromedp.SendKeys(chromedp.CSS(selSearchInput), kb.End+strings.Repeat(kb.Backspace, 4)+"quickstart"),
			chromedp.WaitVisible(chromedp.CSS(selSearchHit)),
		) && searchSettled(t, tab) && tab.Run("click the first result", chromedp.Click(chromedp.CSS(selSearchHit), chromedp.NodeVisible)) {
			// The click navigates: the page's context goes away under any
			// evaluation, so ask again until the new page answers.
			loc := ""
			for deadline := time.Now().Add(stepTimeout); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
				v, err := tab.Try(`document.readyState === "complete" ? location.href : ""`, time.Second)
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
		tab.Check("search")
	}

	// Dark mode: the toggle flips html[data-theme] and the background.
	if open("quickstart") {
		const state = `JSON.stringify([document.documentElement.dataset.theme || "", getComputedStyle(document.body).backgroundColor])`
		before, _ := tab.Eval("theme", state)
		if tab.Run("toggle the theme", chromedp.Click(chromedp.CSS(selThemeToggle), chromedp.NodeVisible)) {
			ctx, cancel := context.WithTimeout(tab.Context(), stepTimeout)
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
		tab.Check("theme")
	}

	tab.Screenshot()
	tab.Check("end")
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
func searchSettled(t *testing.T, tab *browsertest.Tab) bool {
	t.Helper()
	const js = `Array.from(document.querySelectorAll(` + "`" + selSearchHit + "`" + `)).map(a => (a.getAttribute("href") || "") + " " + a.textContent.trim().slice(0, 40)).join(" | ")`
	last, same := "", 0
	for deadline := time.Now().Add(stepTimeout); time.Now().Before(deadline); time.Sleep(150 * time.Millisecond) {
		v, err := tab.Try(js, time.Second)
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
