package render

import (
	"cmp"
	"context"
	"encoding/json"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"lectern.dev/lectern/internal/browsertest"
	"lectern.dev/lectern/render/output"
)

// corpusShots are, for each corpus, the pages TestCorpusBrowser keeps
// screenshots of, in light and dark mode: the home page and an API page;
// and of the home page with the search dialog open on the query
// corpusSearch, its results shown.
var corpusShots = map[string][]string{
	"mintlify-starter": {"", "api-reference/endpoint/get"},
	"pipecat-docs":     {"", "api-reference/pipecat-cloud/rest-reference/endpoint/agent-list-all"},
}

// corpusSearch is a query with results in every corpus.
const corpusSearch = "deploy"

// TestCorpusBrowser builds each corpus in the live form, serves it on
// loopback and opens every page of it in headless Chromium: no page may
// log an error, load a file that is missing or load from another host
// (internal/browsertest), and every link of every page to the site must
// resolve (no 404 inside the site). It keeps screenshots of the home page
// and an API page of each corpus in light and dark mode for people to
// look at (browsertest.ScreenshotPath; the paths are logged).
func TestCorpusBrowser(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	browserCtx, closeBrowser := browsertest.Start(t, ctx)
	defer closeBrowser()
	for _, c := range corpora {
		t.Run(c.name, func(t *testing.T) {
			src := corpusDir + c.name
			if _, err := os.Stat(src + "/docs.json"); err != nil {
				t.Fatalf("corpus %s is not readable: %v", c.name, err)
			}
			dir := t.TempDir()
			res, err := Build(ctx, os.DirFS(src), output.Dir{Dir: dir}, Options{})
			if err != nil {
				t.Fatalf("Build: %v", err)
			}
			// What the corpus itself lacks (images left out of it, links
			// to pages it does not have) the build warned of: those alone
			// may be missing.
			warned := warnedTargets(res.Warnings)
			known := func(u string) bool {
				p, err := url.Parse(u)
				return err == nil && warned[strings.TrimPrefix(p.Path, "/")]
			}
			base := serveSite(t, dir)
			tab := browsertest.NewTab(t, browserCtx, browsertest.Options{Origins: []string{base}})
			pages := corpusPages(t, dir)
			linkedFrom := map[string]string{} // link target → a page that links to it
			for _, p := range pages {
				if ctx.Err() != nil {
					t.Fatal("out of time")
				}
				ok := tab.Visit(base + "/" + p)
				for _, problem := range tab.Take() {
					if f := strings.Fields(problem); !strings.Contains(problem, "404 (Not Found)") || !known(f[len(f)-1]) {
						t.Errorf("%s: %s", p, problem)
					}
				}
				if !ok {
					continue
				}
				raw, ok := tab.Eval("links of "+p, `JSON.stringify([...document.querySelectorAll("a[href]")].map(a => a.href))`)
				if !ok {
					continue
				}
				var hrefs []string
				if err := json.Unmarshal([]byte(raw), &hrefs); err != nil {
					t.Fatalf("links of %s: %v", p, err)
				}
				for _, h := range hrefs {
					u, err := url.Parse(h)
					if err != nil || !strings.HasPrefix(h, base+"/") && h != base {
						continue
					}
					u.Fragment = ""
					if _, seen := linkedFrom[u.String()]; !seen {
						linkedFrom[u.String()] = p
					}
				}
			}
			checked := 0
			for target, from := range linkedFrom {
				resp, err := http.Get(target)
				if err != nil {
					t.Errorf("%s → %s: %v", from, target, err)
					continue
				}
				resp.Body.Close()
				checked++
				if resp.StatusCode != http.StatusOK && !known(target) {
					t.Errorf("%s links to %s: %s", from, target, resp.Status)
				}
			}
			t.Logf("%d pages opened, %d distinct links inside the site checked", len(pages), checked)
			for _, p := range corpusShots[c.name] {
				for _, theme := range []string{"light", "dark"} {
					name := strings.ReplaceAll(cmp.Or(p, "home"), "/", "-") + "-" + theme
					t.Run(name, func(t *testing.T) {
						tab := browsertest.NewTab(t, browserCtx, browsertest.Options{Origins: []string{base}})
						tab.Open(base + "/")
						tab.Eval("theme", `localStorage.setItem("lectern-theme", "`+theme+`"), "ok"`)
						tab.Open(base + "/" + p)
						tab.Screenshot()
					})
				}
			}
			for _, theme := range []string{"light", "dark"} {
				t.Run("search-"+theme, func(t *testing.T) {
					tab := browsertest.NewTab(t, browserCtx, browsertest.Options{Origins: []string{base}})
					tab.Open(base + "/")
					tab.Eval("theme", `localStorage.setItem("lectern-theme", "`+theme+`"), "ok"`)
					tab.Open(base + "/")
					if !tab.Run("search "+corpusSearch, chromedp.KeyEvent("k", chromedp.KeyModifiers(modCtrl)), chromedp.WaitVisible(chromedp.CSS(selSearchInput)),
						chromedp.SendKeys(chromedp.CSS(selSearchInput), corpusSearch)) {
						return
					}
					n := ""
					for i := 0; i < 50 && (n == "" || n == "0"); i++ {
						time.Sleep(100 * time.Millisecond)
						n, _ = tab.Try(`String(document.querySelectorAll("#lc-search-results a").length)`, stepTimeout)
					}
					if n == "" || n == "0" {
						t.Errorf("search %q shows no result", corpusSearch)
					}
					tab.Screenshot()
					tab.Check("search " + corpusSearch)
				})
			}
		})
	}
}

// corpusPages lists the URL paths of the pages of the built site in dir:
// its .html files but 404.html and redirect pages.
func corpusPages(t *testing.T, dir string) []string {
	t.Helper()
	var pages []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".html") {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		data, err := os.ReadFile(p)
		if err != nil || rel == "404.html" || strings.Contains(string(data[:min(len(data), 400)]), `http-equiv="refresh"`) {
			return err
		}
		pages = append(pages, strings.TrimSuffix(rel, ".html"))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(pages)
	return pages
}
