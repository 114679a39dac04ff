package render

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"lectern.dev/lectern/internal/browsertest"
	"lectern.dev/lectern/render/output"
	"lectern.dev/lectern/render/search"
)

// searchQueries are typed in the browser and run from Go on the same
// index: words as written, stems, prefixes being typed, typos, several
// words, camel-case parts, and none found.
var searchQueries = []string{
	"deepgram", "interruptions", "interruption handling", "transprt", "daily transport",
	"vad anal", "openai llm service", "pipelinetask", "context aggregator", "speech to text",
	"configuring", "websocket", "zzqqxx", "llm ", "deepgram zzqqxx",
}

// searchBrowserFlow builds Pipecat's docs (live form, served over HTTP;
// export form, opened from file://) and checks that the reader's browser
// finds what Index.Search finds in Go, result for result; and that typing
// a word found only at the end of the longest page shows that page, its
// word marked, and Enter opens it.
func searchBrowserFlow(t *testing.T, ctx, browserCtx context.Context) {
	t.Run("words", func(t *testing.T) { searchWordsFlow(t, ctx, browserCtx) })
	t.Run("unsnap", func(t *testing.T) { searchUnsnapFlow(t, browserCtx) })    // search_unsnap_browser_test.go
	t.Run("stale", func(t *testing.T) { searchStaleFlow(t, ctx, browserCtx) }) // search_stale_browser_test.go
	t.Run("empty", func(t *testing.T) { searchEmptyFlow(t, ctx, browserCtx) }) // search_empty_browser_test.go
	src := corpusDir + "pipecat-docs"
	if _, err := os.Stat(src + "/docs.json"); err != nil {
		t.Skipf("corpus pipecat-docs is not readable: %v", err)
	}
	for _, export := range []bool{false, true} {
		dir := t.TempDir()
		if _, err := Build(ctx, os.DirFS(src), output.Dir{Dir: dir}, Options{Export: export}); err != nil {
			t.Fatalf("Build: %v", err)
		}
		ix, err := search.Open(os.DirFS(dir))
		if err != nil {
			t.Fatal(err)
		}
		tab := siteTab(t, browserCtx, dir, export)
		if tab == nil {
			return
		}
		compareSearches(t, tab, ix, searchQueries, "export="+strconv.FormatBool(export))
		word, page := lastWordOfLongestPage(t, ix)
		t.Logf("export=%v: %q is at the end of %s", export, word, page)
		if !tab.Run("type "+word,
			chromedp.KeyEvent("k", chromedp.KeyModifiers(modCtrl)),
			chromedp.WaitVisible(chromedp.CSS(selSearchInput)),
			chromedp.SendKeys(chromedp.CSS(selSearchInput), kb.End+word+" "),
			chromedp.WaitVisible(chromedp.CSS(selSearchHit+" mark")),
		) || !searchSettled(t, tab) {
			continue
		}
		first, _ := tab.Eval("first result", `(function () { const a = document.querySelector(`+jsString(selSearchHit)+`); return a.getAttribute("href") + " " + a.querySelector("mark").textContent; })()`)
		if !strings.Contains(first, page) || !strings.HasSuffix(strings.ToLower(first), " "+word) {
			t.Errorf("export=%v: the first result for %q is %q, want %s with the word marked", export, word, first, page)
		}
		tab.Run("open it", chromedp.KeyEvent(kb.Enter))
		loc := ""
		for i := 0; i < 50 && !strings.Contains(loc, page); i++ {
			loc, _ = tab.Try(`document.readyState === "complete" ? location.href : ""`, stepTimeout)
		}
		if !strings.Contains(loc, page) {
			t.Errorf("export=%v: Enter led to %q, want %s", export, loc, page)
		}
		tab.Check("search")
	}
}

// siteTab opens the home page of the site built into dir in a new tab:
// from file:// for the export form, else served over HTTP on loopback. It
// returns nil when the page did not open (the test has failed).
func siteTab(t *testing.T, browserCtx context.Context, dir string, export bool) *browsertest.Tab {
	t.Helper()
	var pageURL string
	var tab *browsertest.Tab
	if export {
		abs, _ := filepath.Abs(dir)
		pageURL = (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String() + "/index.html"
		tab = browsertest.NewTab(t, browserCtx, browsertest.Options{Origins: []string{"file://"}})
	} else {
		base := serveSite(t, dir)
		pageURL = base + "/"
		tab = browsertest.NewTab(t, browserCtx, browsertest.Options{Origins: []string{base}})
	}
	if !tab.Open(pageURL) {
		return nil
	}
	return tab
}

// compareSearches runs each query in the page open in tab and on ix, and
// fails when the browser's results differ from Go's.
func compareSearches(t *testing.T, tab *browsertest.Tab, ix *search.Index, queries []string, label string) {
	t.Helper()
	for i, q := range queries {
		want := goResults(t, ix, q)
		// Every other query after warm(), whose rehearsal must leave
		// the index's results as they were.
		got, ok := tab.Eval("search "+q, `(function () {
  const meta = document.getElementById("lc-search").getAttribute("data-search-index");
  const ix = lecternSearchIndex(meta.replace(/meta\.js$/, ""));
  return (`+strconv.FormatBool(i%2 == 1)+` ? ix.warm() : Promise.resolve()).then(() => ix.search(`+jsString(q)+`, 10)).then(rs => JSON.stringify(rs.map(r =>
    r.url + (r.anchor ? "#" + r.anchor : "") + " | " + r.excerpt + " | " + r.marks.map(m => r.excerpt.slice(m[0], m[1])).join(",") + " | " + r.partial)));
})()`)
		if !ok {
			continue
		}
		var list []string
		if err := json.Unmarshal([]byte(got), &list); err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		if strings.Join(list, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s, %q: the browser found\n%s\nGo found\n%s", label, q, strings.Join(list, "\n"), strings.Join(want, "\n"))
		}
	}
}

// searchWordsFlow checks that the browser reads words as Go does, and
// finds them in the index's sorted chunks: capitals (Greek's final sigma,
// Turkish dotted I), letters of the BMP's top and beyond it (which sort
// otherwise in UTF-16 than in UTF-8), the longest word kept, camel case.
func searchWordsFlow(t *testing.T, ctx, browserCtx context.Context) {
	fsys := fstest.MapFS{
		"docs.json":   {Data: []byte(`{"name":"Words","favicon":"/favicon.svg","navigation":{"groups":[{"group":"Words","pages":["index","upper","lower","fill"]}]}}`)},
		"favicon.svg": {Data: []byte(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"/>`)},
		"index.mdx":   {Data: []byte("---\ntitle: Words\n---\n\nThe getHTTPServerV2 call; αβγδεζηθικλμνξοπρστυφχψω and αβγδεζηθικλμνξοπρστυφχψωα.\n")},
		"upper.mdx":   {Data: []byte("---\ntitle: Capitals\n---\n\nΟΔΟΣ ΣΑΣ İSTANBUL ＡＢＣ.\n")},
		"lower.mdx":   {Data: []byte("---\ntitle: Small letters\n---\n\nοδος σας i̇stanbul ａｂｃ.\n")},
	}
	// Enough words for several chunks, whose bounds fall among letters
	// that UTF-8 and UTF-16 order differently.
	var fill strings.Builder
	fill.WriteString("---\ntitle: Fill\n---\n\n")
	for i := range 2500 {
		fmt.Fprintf(&fill, "alpha%d ωμέγα%d 𝒜𝒷%d ｱｲ%d\n", i, i, i, i)
	}
	fsys["fill.mdx"] = &fstest.MapFile{Data: []byte(fill.String())}
	longQuery := "" // more words than count, the last being typed
	for i := range 20 {
		longQuery += fmt.Sprintf("alpha%d ", i+1)
	}
	longQuery += "alph"
	dir := t.TempDir()
	if _, err := Build(ctx, fsys, output.Dir{Dir: dir}, Options{}); err != nil {
		t.Fatalf("Build: %v", err)
	}
	ix, err := search.Open(os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	base := serveSite(t, dir)
	tab := browsertest.NewTab(t, browserCtx, browsertest.Options{Origins: []string{base}})
	if !tab.Open(base + "/") {
		return
	}
	compareSearches(t, tab, ix, []string{
		"ΟΔΟΣ", "οδος ", "ΣΑΣ ", "σας", "İstanbul", "i̇stanbul ", "ＡＢＣ", "ａｂｃ ",
		"alpha1234", "ALPHA2499 ", "ωμέγα77 ", "ΩΜΈΓΑ1999", "𝒜𝒷1234 ", "𝒜𝒷12", "ｱｲ2400 ", "ｱｲ7",
		"αβγδεζηθικλμνξοπρστυφχψω", "αβγδεζηθικλμνξοπρστυφχψωα", "http server", "GetHttpServerV2",
		longQuery,
	}, "words")
	tab.Check("search words")
}

// modCtrl is the Ctrl modifier of a key event.
const modCtrl = 2

// goResults runs q on ix as searchBrowserFlow's page script reports it.
func goResults(t *testing.T, ix *search.Index, q string) []string {
	rs, err := ix.Search(q, 10)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rs {
		var marks []string
		for _, m := range r.Highlights {
			marks = append(marks, r.Excerpt[m[0]:m[1]])
		}
		out = append(out, r.Link()+" | "+r.Excerpt+" | "+strings.Join(marks, ",")+" | "+strconv.FormatBool(r.Partial))
	}
	return out
}

// lastWordOfLongestPage returns a word of the last sections of the
// index's longest page for which that page is the first result, and the
// page's URL path.
func lastWordOfLongestPage(t *testing.T, ix *search.Index) (string, string) {
	docs, err := ix.Documents()
	if err != nil {
		t.Fatal(err)
	}
	size := func(d search.Document) int {
		n := 0
		for _, s := range d.Sections {
			n += len(s.Text)
		}
		return n
	}
	sort.Slice(docs, func(i, j int) bool { return size(docs[i]) > size(docs[j]) })
	long := docs[0]
	for k := len(long.Sections) - 1; k >= len(long.Sections)-3 && k >= 0; k-- {
		// Words of this section that the title and the sections before
		// it do not hold.
		before := map[string]bool{}
		for _, w := range search.Words(long.Title) {
			before[w] = true
		}
		for _, s := range long.Sections[:k] {
			for _, w := range search.Words(s.Heading + " " + s.Text) {
				before[w] = true
			}
		}
		words := search.Words(long.Sections[k].Text)
		for i := len(words) - 1; i >= 0; i-- {
			w := words[i]
			if len(w) < 6 || before[w] {
				continue
			}
			rs, err := ix.Search(w+" ", 5)
			if err == nil && len(rs) > 0 && rs[0].ID == long.ID {
				return w, strings.TrimSuffix(long.URL, ".html")
			}
		}
	}
	t.Fatalf("no word of the end of %s is its own", long.Path)
	return "", ""
}
