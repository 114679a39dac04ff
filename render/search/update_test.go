package search

import (
	"fmt"
	"io/fs"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// TestUpdate: an index patched for changed, added and removed pages
// answers as one built from scratch, and writes only the chunks whose
// words changed.
func TestUpdate(t *testing.T) {
	page := func(i int, extra string) Page {
		var b strings.Builder
		for k := range 300 {
			fmt.Fprintf(&b, " w%dx%d", i, k) // words of this page only: many chunks
		}
		return Page{URL: fmt.Sprintf("p%d", i), Title: fmt.Sprintf("Page %d", i), Body: "<p>common words" + b.String() + " " + extra + "</p>"}
	}
	pages := map[int]Page{}
	for i := range 40 {
		pages[i] = page(i, "")
	}
	before, oldTerms := siteFS(t, pages)
	// Page 3 changed, page 7 removed, page 40 added.
	pages[3] = page(3, "zeppelin")
	delete(pages, 7)
	pages[40] = page(40, "quasar")
	want, newTerms := siteFS(t, pages)
	files, kept, err := Update(func(name string) ([]byte, error) { return fs.ReadFile(before, name) }, []Change{
		{ID: 3, Old: oldTerms[3], New: newTerms[3]}, {ID: 7, Old: oldTerms[7]}, {ID: 40, New: newTerms[40]},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := fstest.MapFS{}
	for name, f := range want {
		if strings.HasPrefix(name, Dir+"f/") {
			got[name] = f
		}
	}
	for _, name := range kept {
		got[name] = before[name]
	}
	for _, f := range files {
		got[f.Name] = &fstest.MapFile{Data: f.Data}
	}
	t.Logf("%d chunks written, %d kept", len(files)-1, len(kept))
	// Page 7's words leave a chunk small, which takes in the next.
	if written := len(files) - 1; 3*len(kept) < written+len(kept) {
		t.Errorf("%d chunks written, %d kept: want a third kept at least", written, len(kept))
	}
	a, err := Open(got)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Open(want)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"zeppelin ", "quasar ", "w7x5 ", "w3x100 ", "common words", "page 40", "w40x299 "} {
		ra, err := a.Search(q, 50)
		if err != nil {
			t.Fatal(err)
		}
		rb, _ := b.Search(q, 50)
		if !reflect.DeepEqual(ra, rb) {
			t.Errorf("%q: patched %v, built %v", q, ra, rb)
		}
	}
	if rs, _ := a.Search("w7x5 ", 5); len(rs) != 0 {
		t.Errorf("a removed page is found: %v", rs)
	}
}

// TestUpdateLargeCommonWord: a word all of 60,000 pages hold makes a chunk
// past twice the bound by itself; a change still patches the index rather
// than building it again.
func TestUpdateLargeCommonWord(t *testing.T) {
	terms := map[int][]byte{}
	for id := range 60000 {
		terms[id] = encodeTerms([]Term{{Word: "common", F: 4}, {Word: fmt.Sprintf("w%05d", id), F: 4}}, 2)
	}
	fsys := indexFS(t, terms)
	changed := encodeTerms([]Term{{Word: "common", F: 8}, {Word: "w00005", F: 4}}, 3)
	out, kept, err := Update(func(name string) ([]byte, error) { return fs.ReadFile(fsys, name) },
		[]Change{{ID: 5, Old: terms[5], New: changed}})
	if err != nil {
		t.Fatalf("Update: %v (the index would be built again on every rebuild)", err)
	}
	if len(out) != 2 || len(kept) == 0 {
		t.Errorf("%d files written, %d kept: want the meta file and the common word's chunk", len(out), len(kept))
	}
}

// TestUpdateSplitsAndJoins grows one chunk to many times its bound and
// empties others: the patched index's chunks are split and joined (none
// past maxChunk, few below minChunk: a query loads few small files),
// the others kept, and it answers as an index built afresh.
func TestUpdateSplitsAndJoins(t *testing.T) {
	words := func(id, n int, stem string) []byte {
		var ts []Term
		for k := range n {
			ts = append(ts, Term{Word: fmt.Sprintf("%s%05d", stem, k*97+id), F: 4})
		}
		slices.SortFunc(ts, func(a, b Term) int { return strings.Compare(a.Word, b.Word) })
		return encodeTerms(ts, n)
	}
	terms := map[int][]byte{}
	for id := range 60 {
		terms[id] = words(id, 400, fmt.Sprintf("p%02dw", id))
	}
	before := indexFS(t, terms)
	// Page 10 grows to 12,000 words of its own, pages 20 to 29 lose
	// theirs, page 61 is new.
	var changes []Change
	next := maps.Clone(terms)
	next[10] = words(10, 12000, "p10w")
	changes = append(changes, Change{ID: 10, Old: terms[10], New: next[10]})
	for id := 20; id < 30; id++ {
		next[id] = encodeTerms(nil, 0)
		changes = append(changes, Change{ID: id, Old: terms[id], New: next[id]})
	}
	next[61] = words(61, 50, "zz")
	changes = append(changes, Change{ID: 61, New: next[61]})
	files, kept, err := Update(func(name string) ([]byte, error) { return fs.ReadFile(before, name) }, changes)
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	got := fstest.MapFS{}
	for _, name := range kept {
		got[name] = before[name]
	}
	for _, f := range files {
		got[f.Name] = &fstest.MapFile{Data: f.Data}
	}
	m, err := reader(func(name string) ([]byte, error) { return fs.ReadFile(got, name) }).meta()
	if err != nil {
		t.Fatal(err)
	}
	small := 0
	for i, c := range m.Chunks {
		data, err := fs.ReadFile(got, Dir+c[1])
		if err != nil {
			t.Fatalf("chunk %s: %v", c[1], err)
		}
		payload, _ := decodeFile(data)
		if len(payload) > maxChunk+4<<10 {
			t.Errorf("chunk %d of %d (%s...) holds %d bytes, past %d", i, len(m.Chunks), c[0], len(payload), maxChunk)
		}
		if len(payload) < minChunk && i < len(m.Chunks)-1 {
			small++
		}
	}
	t.Logf("%d chunks before, %d after (%d below %d bytes): %d written, %d kept", len(before)-1, len(m.Chunks), small, minChunk, len(files)-1, len(kept))
	// The chunks of pages 0 to 9, 11 to 19 and 30 to 59 are kept but
	// those beside the changes; one chunk split (page 10's) may end in a
	// small one.
	if len(kept) < len(before)/2 || small > 1 {
		t.Errorf("%d chunks of %d kept, %d small: want most kept, one small at most", len(kept), len(before)-1, small)
	}
	a, err := Open(got)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Open(indexFS(t, next))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"p10w11000", "p10w00010", "p10w", "p25w00025", "p25w", "p30w00030", "zz00061", "zz", "p59w"} {
		ra, err := a.matches(q, true)
		if err != nil {
			t.Fatal(err)
		}
		rb, _ := b.matches(q, true)
		if !reflect.DeepEqual(ra, rb) {
			t.Errorf("%q: patched %v, built %v", q, ra, rb)
		}
	}
}
