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

// searchEmptyFlow: a site none of whose pages is in search (searchable:
// false) has an index of no page; its search dialog answers a word and a
// single letter with "No results", with no error on the page. Over HTTP
// and from file://.
func searchEmptyFlow(t *testing.T, ctx, browserCtx context.Context) {
	fsys := fstest.MapFS{
		"favicon.svg": {Data: []byte(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"/>`)},
		"docs.json":   {Data: []byte(`{"name":"Empty","favicon":"/favicon.svg","navigation":{"groups":[{"group":"G","pages":["a","b"]}]}}`)},
	}
	for _, name := range []string{"a", "b"} {
		fsys[name+".mdx"] = &fstest.MapFile{Data: []byte("---\ntitle: Page " + name + "\nsearchable: false\n---\n\nA deploy guide.\n")}
	}
	for _, export := range []bool{false, true} {
		dir := t.TempDir()
		if _, err := Build(ctx, fsys, output.Dir{Dir: dir}, Options{Export: export}); err != nil {
			t.Fatal(err)
		}
		tab := siteTab(t, browserCtx, dir, export)
		if tab == nil {
			return
		}
		label := fmt.Sprintf("export=%v", export)
		for _, q := range []string{"deploy", "d"} {
			// Opened, search selects the last query: typing replaces it.
			if !tab.Run(label+": search "+q, chromedp.KeyEvent("k", chromedp.KeyModifiers(modCtrl)), chromedp.WaitVisible(chromedp.CSS(selSearchInput)),
				chromedp.SendKeys(chromedp.CSS(selSearchInput), q)) {
				return
			}
			status := ""
			for i := 0; i < 50 && !strings.HasPrefix(status, "No results for “"+q); i++ {
				time.Sleep(100 * time.Millisecond)
				status, _ = tab.Try(`document.querySelector(".lc-search-status").textContent`, stepTimeout)
			}
			if !strings.HasPrefix(status, "No results for “"+q) {
				t.Errorf("%s: %q in an index of no page: status %q, want No results", label, q, status)
			}
			tab.Run(label+": close search", chromedp.KeyEvent(kb.Escape))
		}
		tab.Check(label + ": search of an index of no page")
	}
}
