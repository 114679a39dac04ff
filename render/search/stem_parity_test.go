package search

import (
	"bufio"
	"context"
	"encoding/json"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"lectern.dev/lectern/internal/browsertest"
)

// stemCorpusDir holds the shared corpora, read in place at test time.
const stemCorpusDir = "../../../shared/corpus/"

// stemCorpora are the corpora whose words TestStemParity stems.
var stemCorpora = []string{"pipecat-docs", "mintlify-starter"}

// TestStemParity runs stem.js in headless Chromium over the words of
// testdata/stem-words.txt, every distinct word of the corpora's .md and
// .mdx files and strings of letters made up by stemGeneratedWords, and fails on each word whose lecternStem differs from
// Stem. Without Chromium it is skipped (browsertest.Start); without the
// corpora their part is.
func TestStemParity(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	browserCtx, closeBrowser := browsertest.Start(t, ctx)
	defer closeBrowser()
	tab := browsertest.NewTab(t, browserCtx, browsertest.Options{})

	// stem.js defines lecternStem and no other global.
	src, _ := json.Marshal(StemJS)
	added, _ := tab.Eval("load stem.js", `(function () {
		var before = Object.getOwnPropertyNames(window);
		(0, eval)(`+string(src)+`);
		return Object.getOwnPropertyNames(window).filter(function (n) { return before.indexOf(n) < 0; }).join(" ");
	})()`)
	if added != "lecternStem" {
		t.Fatalf("stem.js defined the globals %q, want just lecternStem", added)
	}

	t.Run("testdata", func(t *testing.T) {
		compareStems(t, tab, stemTestdataWords(t))
	})
	t.Run("corpus", func(t *testing.T) {
		compareStems(t, tab, stemCorpusWords(t))
	})
	t.Run("generated", func(t *testing.T) {
		compareStems(t, tab, stemGeneratedWords(40000))
	})
	tab.Check("stem words")
}

// compareStems stems words with lecternStem in tab, a few thousand at a
// time, and fails for each that Stem stems otherwise.
func compareStems(t *testing.T, tab *browsertest.Tab, words []string) {
	t.Helper()
	const batch = 4000
	compared, changed, differ := 0, 0, 0
	for len(words) > 0 {
		n := min(batch, len(words))
		chunk := words[:n]
		words = words[n:]
		in, err := json.Marshal(chunk)
		if err != nil {
			t.Fatal(err)
		}
		out, ok := tab.Eval("stem words", "JSON.stringify("+string(in)+".map(function (w) { return lecternStem(w); }))")
		if !ok {
			return
		}
		var got []string
		if err := json.Unmarshal([]byte(out), &got); err != nil || len(got) != len(chunk) {
			t.Fatalf("lecternStem returned %d stems for %d words (%v)", len(got), len(chunk), err)
		}
		for i, w := range chunk {
			want := Stem(w)
			if want != w {
				changed++
			}
			if got[i] != want {
				if differ++; differ <= 50 {
					t.Errorf("%q: lecternStem gives %q, Stem gives %q", w, got[i], want)
				}
			}
		}
		compared += len(chunk)
	}
	if differ > 50 {
		t.Errorf("and %d more words differ", differ-50)
	}
	t.Logf("compared the stems of %d words (%d of them changed by stemming)", compared, changed)
}

// stemCorpusWords returns, sorted, every distinct word of the .md and .mdx
// files of stemCorpora, as the search index would see them: lowercased,
// apostrophes dropped ("reader's" is "readers"), split at anything but a
// letter or a digit. It skips t when the corpora are absent.
func stemCorpusWords(t testing.TB) []string {
	t.Helper()
	seen := map[string]bool{}
	for _, name := range stemCorpora {
		root := stemCorpusDir + name
		if _, err := os.Stat(root); err != nil {
			t.Skipf("corpus %s is absent (%v): its words are not compared", name, err)
		}
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			if ext := filepath.Ext(path); ext != ".md" && ext != ".mdx" {
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			text := strings.NewReplacer("'", "", "\u2019", "").Replace(strings.ToLower(string(data)))
			for _, w := range strings.FieldsFunc(text, func(r rune) bool {
				return !unicode.IsLetter(r) && !unicode.IsDigit(r)
			}) {
				seen[w] = true
			}
			return nil
		})
		if err != nil {
			t.Fatalf("read corpus %s: %v", name, err)
		}
	}
	words := make([]string, 0, len(seen))
	for w := range seen {
		words = append(words, w)
	}
	slices.Sort(words)
	if len(words) < 1000 {
		t.Fatalf("the corpora hold only %d distinct words", len(words))
	}
	return words
}

// stemGeneratedWords returns n made-up words, the same at each run: 1 to 8
// letters (vowels, y and the letters of suffixes more often than others)
// followed, mostly, by one or two of the suffixes the algorithm looks
// for, so that rare paths (a y after a y, a suffix within R1 but not R2)
// are walked too.
func stemGeneratedWords(n int) []string {
	const letters = "aeiouyyyeeislntdgrbcfhkmpvwxzjqaeioulls"
	suffixes := strings.Fields(`s es ies ied sses us ss ed eed eedly edly ing ingly y ly li bli abli alli entli
		ousli fulli lessli ogi tional ational ation ator enci anci izer ization alism aliti iviti biliti
		fulness ousness iveness alize icate iciti ical ful ness ative al ance ence er ic able ible ant
		ement ment ent ism ate iti ous ive ize ion sion tion e l ll at bl iz bb dd ff gg mm nn pp rr tt`)
	r := rand.New(rand.NewPCG(1, 2))
	words := make([]string, 0, n)
	for len(words) < n {
		var b strings.Builder
		for range 1 + r.IntN(8) {
			b.WriteByte(letters[r.IntN(len(letters))])
		}
		for range r.IntN(3) {
			b.WriteString(suffixes[r.IntN(len(suffixes))])
		}
		words = append(words, b.String())
	}
	return words
}

// stemTestdataWords reads testdata/stem-words.txt.
func stemTestdataWords(t *testing.T) []string {
	t.Helper()
	f, err := os.Open("testdata/stem-words.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var words []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if w := strings.TrimSpace(sc.Text()); w != "" && !strings.HasPrefix(w, "#") {
			words = append(words, w)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(words) < 1000 {
		t.Fatalf("testdata/stem-words.txt has only %d words", len(words))
	}
	return words
}
