package render

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"lectern.dev/lectern/render/output"
)

// searchStaleFlow leaves a page open across a deployment: the site is
// built again in place with other pages (a word gone, a new one, the
// pages renumbered in the index), and once the index the page loaded is
// older than search.js's STALE, the next search reads the new index: the
// new word is found on its page, the old one nowhere. Over HTTP and from
// file://.
func searchStaleFlow(t *testing.T, ctx, browserCtx context.Context) {
	site := func(word string, pages int) fstest.MapFS {
		fsys := fstest.MapFS{}
		var list []string
		for i := range pages {
			name := fmt.Sprintf("p%03d", i)
			body := fmt.Sprintf("Filler text of page %d.", i)
			if i == pages-1 {
				body += " The " + word + " setting."
			}
			fsys[name+".mdx"] = &fstest.MapFile{Data: []byte("---\ntitle: Page " + name + "\n---\n\n" + body + "\n")}
			list = append(list, `"`+name+`"`)
		}
		fsys["favicon.svg"] = &fstest.MapFile{Data: []byte(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"/>`)}
		fsys["docs.json"] = &fstest.MapFile{Data: []byte(`{"name":"Stale","favicon":"/favicon.svg","navigation":{"groups":[{"group":"G","pages":[` + strings.Join(list, ",") + `]}]}}`)}
		return fsys
	}
	for _, export := range []bool{false, true} {
		dir := t.TempDir()
		out := output.Dir{Dir: dir, Update: true}
		if _, err := Build(ctx, site("quokka", 30), out, Options{Export: export}); err != nil {
			t.Fatal(err)
		}
		tab := siteTab(t, browserCtx, dir, export)
		if tab == nil {
			return
		}
		label := fmt.Sprintf("export=%v", export)
		// find searches for word and returns the links of the results
		// (none: the dialog says so).
		find := func(what, word string) string {
			if !tab.Run(label+": open search", chromedp.KeyEvent("k", chromedp.KeyModifiers(modCtrl)), chromedp.WaitVisible(chromedp.CSS(selSearchInput))) {
				return ""
			}
			// Opened, search selects the last query: typing replaces it.
			if !tab.Run(label+": search "+word, chromedp.SendKeys(chromedp.CSS(selSearchInput), word+" ")) {
				return ""
			}
			// Settled on this query: no results, said so, or a first
			// result holding the word (not the last query's).
			state := ""
			js := `(function () {
  const hit = document.querySelector(` + jsString(selSearchHit) + `);
  if (hit) return hit.textContent.toLowerCase().includes(` + jsString(word) + `) ? "hits" : "";
  return document.querySelector(".lc-search-status").textContent.startsWith(` + jsString("No results for “"+word) + `) ? "none" : "";
})()`
			for i := 0; i < 80 && state == ""; i++ {
				if state, _ = tab.Try(js, stepTimeout); state == "" {
					time.Sleep(100 * time.Millisecond)
				}
			}
			if state == "hits" && !searchSettled(t, tab) {
				return ""
			}
			got, _ := tab.Eval(what, `Array.from(document.querySelectorAll(`+jsString(selSearchHit)+`)).map(a => a.getAttribute("href")).join(" ")`)
			tab.Run(label+": close search", chromedp.KeyEvent(kb.Escape))
			return got
		}
		if got := find("before", "quokka"); !strings.Contains(got, "p029") {
			t.Fatalf("%s: quokka finds %q before the deployment, want p029", label, got)
		}
		// The deployment: fewer pages, quokka gone, zanzibar new.
		if _, err := Build(ctx, site("zanzibar", 12), out, Options{Export: export}); err != nil {
			t.Fatal(err)
		}
		// Within STALE the page keeps the index it loaded.
		if got := find("soon after", "quokka"); !strings.Contains(got, "p029") {
			t.Errorf("%s: right after the deployment, quokka finds %q, want p029 still", label, got)
		}
		// Ten minutes later.
		tab.Eval("clock", `(function () { const now = Date.now; Date.now = () => now() + 600000; return "ok"; })()`)
		if got := find("zanzibar later", "zanzibar"); !strings.Contains(got, "p011") || strings.Contains(got, "p029") {
			t.Errorf("%s: after the deployment, zanzibar finds %q, want p011", label, got)
		}
		if got := find("quokka later", "quokka"); got != "" {
			t.Errorf("%s: after the deployment, quokka finds %q, want nothing", label, got)
		}
		tab.Check(label + ": search across a deployment")
	}
}
