package search

import (
	"fmt"
	"io/fs"
	"reflect"
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
	build := func(pages map[int]Page) (fstest.MapFS, map[int][]byte) {
		fsys, terms := fstest.MapFS{}, map[int][]byte{}
		var es []Entry
		frags := map[int][]byte{}
		for id, p := range pages {
			d := NewDoc(p)
			frags[id] = d.Frag
			terms[id] = d.Terms
			es = append(es, Entry{ID: id, Terms: d.Terms})
		}
		files, err := Build(es)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			fsys[f.Name] = &fstest.MapFile{Data: f.Data}
		}
		putFragments(fsys, frags)
		return fsys, terms
	}
	before, oldTerms := build(pages)
	// Page 3 changed, page 7 removed, page 40 added.
	pages[3] = page(3, "zeppelin")
	delete(pages, 7)
	pages[40] = page(40, "quasar")
	want, newTerms := build(pages)
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
	if len(kept) == 0 || len(files)-1 > len(kept) {
		t.Errorf("%d chunks written, %d kept: want most kept", len(files)-1, len(kept))
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
	var es []Entry
	for id := range 60000 {
		terms[id] = encodeTerms([]Term{{Word: "common", F: 4}, {Word: fmt.Sprintf("w%05d", id), F: 4}}, 2)
		es = append(es, Entry{ID: id, Terms: terms[id]})
	}
	files, err := Build(es)
	if err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{}
	for _, f := range files {
		fsys[f.Name] = &fstest.MapFile{Data: f.Data}
	}
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
