package search

import (
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
)

// site builds an index of pages (ids in order) into a file system.
func site(t testing.TB, pages ...Page) (*Index, fstest.MapFS) {
	t.Helper()
	byID := map[int]Page{}
	for i, p := range pages {
		byID[i] = p
	}
	fsys, _ := siteFS(t, byID)
	ix, err := Open(fsys)
	if err != nil {
		t.Fatal(err)
	}
	return ix, fsys
}

// siteFS builds the index of pages (by id) into a file system, and
// returns it with the pages' words (Doc.Terms) by id.
func siteFS(t testing.TB, pages map[int]Page) (fstest.MapFS, map[int][]byte) {
	t.Helper()
	terms, frags := map[int][]byte{}, map[int][]byte{}
	for id, p := range pages {
		d := NewDoc(p)
		d.Encode()
		terms[id], frags[id] = d.Terms, d.Frag
	}
	fsys := indexFS(t, terms)
	putFragments(fsys, frags)
	return fsys, terms
}

// indexFS builds the meta file and chunks of the pages of terms (by id)
// into a file system.
func indexFS(t testing.TB, terms map[int][]byte) fstest.MapFS {
	t.Helper()
	var entries []Entry
	for id, ts := range terms {
		entries = append(entries, Entry{ID: id, Terms: ts})
	}
	files, err := Build(entries)
	if err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{}
	for _, f := range files {
		fsys[f.Name] = &fstest.MapFile{Data: f.Data}
	}
	return fsys
}

// putFragments writes the fragment files of frags (by id) into fsys.
func putFragments(fsys fstest.MapFS, frags map[int][]byte) {
	files := map[string]*Fragments{}
	for id, f := range frags {
		name := FragmentFile(id)
		if files[name] == nil {
			files[name] = new(Fragments)
		}
		files[name][id%FragmentGroup] = f
	}
	for name, fs := range files {
		fsys[name] = &fstest.MapFile{Data: EncodeFragments(fs)}
	}
}

func links(t testing.TB, ix *Index, q string) []string {
	t.Helper()
	rs, err := ix.Search(q, 10)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rs {
		out = append(out, r.Link())
	}
	return out
}

func TestWords(t *testing.T) {
	got := strings.Join(Words("Hello, World! gpt-4o snake_case Ünïcode ÉTÉ x"+strings.Repeat("a", MaxWord+1)+" z"), "|")
	want := "hello|world|gpt|4o|snake|case|ünïcode|été|z"
	if got != want {
		t.Errorf("Words = %q, want %q", got, want)
	}
}

func TestLess16(t *testing.T) {
	// JavaScript's order: U+10000 (two units, first 0xD800) before U+E000.
	if !less16("a\U00010000", "a\ue000") || less16("a\ue000", "a\U00010000") {
		t.Error("astral runes must sort before U+E000, as in JavaScript")
	}
	if !less16("ab", "abc") || !less16("abc", "abd") || less16("b", "a") {
		t.Error("byte order broken")
	}
}

func TestSearchRanksTitleOverHeadingOverBody(t *testing.T) {
	ix, _ := site(t,
		Page{URL: "body", Title: "Alpha", Body: "<p>We talk about webhooks here once.</p>"},
		Page{URL: "heading", Title: "Beta", Body: `<p>Intro.</p><h2 id="hooks">Webhooks</h2><p>More text.</p>`},
		Page{URL: "title", Title: "Webhooks", Body: "<p>All about them.</p>"},
	)
	got := links(t, ix, "webhooks ")
	want := []string{"title", "heading#hooks", "body"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("webhooks: %v, want %v", got, want)
	}
}

// TestRankIsSearchWithoutExcerpts: Rank ranks as Search does, and leaves
// the excerpt's fields empty.
func TestRankIsSearchWithoutExcerpts(t *testing.T) {
	ix, _ := site(t,
		Page{URL: "body", Title: "Alpha", Body: "<p>We talk about webhooks here once.</p>"},
		Page{URL: "heading", Title: "Beta", Body: `<p>Intro.</p><h2 id="hooks">Webhooks</h2><p>More text.</p>`},
		Page{URL: "title", Title: "Webhooks", Body: "<p>All about them.</p>"},
	)
	full, err := ix.Search("webhooks ", 10)
	if err != nil {
		t.Fatal(err)
	}
	ranked, err := ix.Rank("webhooks ", 10)
	if err != nil || len(ranked) != len(full) || len(full) != 3 {
		t.Fatalf("Rank = %v, %v; Search = %v", ranked, err, full)
	}
	for i, r := range ranked {
		f := full[i]
		if r.ID != f.ID || r.Score != f.Score || r.URL != f.URL || r.Title != f.Title {
			t.Errorf("result %d: Rank %+v, Search %+v", i, r, f)
		}
		if r.Anchor != "" || r.Heading != "" || r.Excerpt != "" || r.Highlights != nil {
			t.Errorf("result %d: Rank placed an excerpt: %+v", i, r)
		}
	}
}

func TestSearchFindsWordAtEndOfLongPage(t *testing.T) {
	long := "<p>" + strings.Repeat("filler words of a long page ", 20000) + "</p><p>zebracorn</p>"
	ix, _ := site(t, Page{URL: "other", Title: "Other", Body: "<p>nothing</p>"}, Page{URL: "long", Title: "Long", Body: long})
	rs, err := ix.Search("zebracorn", 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 || rs[0].URL != "long" {
		t.Fatalf("zebracorn: %+v", rs)
	}
	if !strings.Contains(rs[0].Excerpt, "zebracorn") || len(rs[0].Highlights) != 1 {
		t.Errorf("excerpt %q, highlights %v", rs[0].Excerpt, rs[0].Highlights)
	}
	h := rs[0].Highlights[0]
	if rs[0].Excerpt[h[0]:h[1]] != "zebracorn" {
		t.Errorf("highlight %v is %q", h, rs[0].Excerpt[h[0]:h[1]])
	}
}

func TestSearchPrefixTypoAndAnd(t *testing.T) {
	ix, _ := site(t,
		Page{URL: "auth", Title: "Authentication", Body: "<p>Use an API key to authenticate requests.</p>"},
		Page{URL: "deploy", Title: "Deployments", Body: "<p>Deploy the site with the API.</p>"},
	)
	for q, want := range map[string]string{
		"authent":        "auth",   // prefix while typing
		"authentication": "auth",   // exact
		"authentcation":  "auth",   // a letter left out
		"deplyoments":    "deploy", // two letters swapped
		"api deploy":     "deploy", // every word
		"site api":       "deploy",
	} {
		got := links(t, ix, q)
		if len(got) == 0 || got[0] != want {
			t.Errorf("%q: %v, want %s first", q, got, want)
		}
	}
	if got := links(t, ix, "authentica "); len(got) != 0 {
		t.Errorf("a finished word is not a prefix: %v", got)
	}
	if got := links(t, ix, "api key"); len(got) != 1 || got[0] != "auth" {
		t.Errorf("api key: %v, want only auth (both words)", got)
	}
	// No page holds both: those holding one, marked partial.
	rs, err := ix.Search("authentication deploy ", 5)
	if err != nil || len(rs) != 2 || !rs[0].Partial {
		t.Errorf("authentication deploy: %+v, %v; want both pages, partial", rs, err)
	}
	if rs, _ := ix.Search("api deploy ", 5); len(rs) != 1 || rs[0].Partial {
		t.Errorf("api deploy: %+v, want one page, not partial", rs)
	}
}

func TestSearchLengthNormalisation(t *testing.T) {
	ix, _ := site(t,
		Page{URL: "long", Title: "A", Body: "<p>token " + strings.Repeat("other words here ", 300) + "</p>"},
		Page{URL: "short", Title: "B", Body: "<p>token and little else</p>"},
	)
	if got := links(t, ix, "token "); fmt.Sprint(got) != "[short long]" {
		t.Errorf("token: %v, want the shorter page first", got)
	}
}

func TestSearchTitlePhrase(t *testing.T) {
	ix, _ := site(t,
		Page{URL: "tts", Title: "Text to Speech", Body: "<p>Speech from text, text to speech.</p>"},
		Page{URL: "acme-stt", Title: "Acme Speech-to-Text", Body: "<p>Acme turns speech to text.</p>"},
		Page{URL: "stt", Title: "Speech to Text", Body: "<p>Services that turn audio into words.</p>"},
		Page{URL: "metrics", Title: "Metrics", Body: "<p>speech text speech text speech text to to.</p>"},
	)
	// The title that is the query, then a title holding it in order,
	// then the same words in another order.
	if got := links(t, ix, "speech to text "); fmt.Sprint(got[:3]) != "[stt acme-stt tts]" {
		t.Errorf("speech to text: %v", got)
	}
}

// TestBounds: what a page's text and a query can make is bounded: the
// distinct words a page adds, the phrases of a long title, the words of a
// query that count.
func TestBounds(t *testing.T) {
	var body strings.Builder
	for i := range 2 * maxPageTerms {
		fmt.Fprintf(&body, "w%d ", i)
	}
	title := strings.Repeat("very long title ", 1000)
	terms, n, err := DocTerms(encoded(Page{Title: "Heading " + title, Body: "<p>" + body.String() + "</p>"}))
	if err != nil {
		t.Fatal(err)
	}
	if len(terms) != maxPageTerms || n != 3001+2*maxPageTerms {
		t.Errorf("%d words kept of a page of %d, want %d", len(terms), n, maxPageTerms)
	}
	phrases, heading := 0, false
	for _, term := range terms {
		if isPhrase(term.Word) {
			phrases++
		}
		if strings.HasPrefix(term.Word, titleMark) || len(term.Word) > 2*MaxWord+1 {
			t.Errorf("a title of 3,001 words is indexed as %q", term.Word[:min(len(term.Word), 40)])
		}
		heading = heading || term.Word == "heading"
	}
	if phrases == 0 || phrases > maxTitleWords-1 || !heading {
		t.Errorf("%d pairs of the title, its first word kept: %v", phrases, heading)
	}

	// A query's first maxQueryWords words count: a page holding them all
	// is no partial result, whatever follows.
	var held, query strings.Builder
	for i := range maxQueryWords {
		fmt.Fprintf(&held, "held%c ", 'a'+i)
	}
	query.WriteString(held.String())
	for i := range 40 {
		fmt.Fprintf(&query, "absent%d ", i)
	}
	ix, _ := site(t, Page{URL: "p", Title: "P", Body: "<p>" + held.String() + "</p>"})
	rs, err := ix.Search(query.String()+"absen", 5)
	if err != nil || len(rs) != 1 || rs[0].Partial {
		t.Errorf("a query of %d words: %+v, %v; want the page that holds the first %d", maxQueryWords+41, rs, err, maxQueryWords)
	}
}

// TestTextSkipsButtons: a code block's "Copy" button is not the page's
// text.
func TestTextSkipsButtons(t *testing.T) {
	got := text(`<p>Run it:</p><div class="lc-code"><button class="lc-copy" type="button" aria-label="Copy code">Copy</button><pre>acme up</pre></div><p>Done.</p>`)
	if got != "Run it: acme up Done." {
		t.Errorf("text = %q", got)
	}
}
