package search

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
)

// encoded is the encoded words of page p (Doc.Terms, as a rebuild cache
// records them).
func encoded(p Page) []byte {
	d := NewDoc(p)
	d.Encode()
	return d.Terms
}

// builderPages are pages that share some words and each have their own,
// with capitals (camel-case parts) and a long title (its phrases).
func builderPages(n int) []Page {
	pages := make([]Page, n)
	for i := range pages {
		pages[i] = Page{
			URL: fmt.Sprintf("p%d", i), Title: fmt.Sprintf("Deploy the PipelineTask number %d of many", i),
			Body: fmt.Sprintf("<h2 id=\"a\">Shared words</h2><p>retry timeout w%d Wörter HTTPServer %s</p>", i, strings.Repeat("cache ", i%7)),
		}
	}
	return pages
}

// TestBuilderMatchesBuild: pages added to a Builder one at a time as
// NewDoc made them, in order or not, give the same files as Build given
// their encoded words (a rebuild cache's), and Encode's words decode to
// the words NewDoc found.
func TestBuilderMatchesBuild(t *testing.T) {
	pages := builderPages(50)
	var entries []Entry
	for id, p := range pages {
		entries = append(entries, Entry{ID: id * 2, Terms: encoded(p)}) // gaps, as a rebuild's
	}
	want, err := Build(entries)
	if err != nil {
		t.Fatal(err)
	}
	for _, order := range []string{"in order", "reversed"} {
		b := NewBuilder()
		for k := range pages {
			id := k
			if order == "reversed" {
				id = len(pages) - 1 - k
			}
			if err := b.Add(id*2, NewDoc(pages[id])); err != nil {
				t.Fatal(err)
			}
		}
		got := b.Files()
		if len(got) != len(want) {
			t.Fatalf("%s: %d files, Build wrote %d", order, len(got), len(want))
		}
		for i := range got {
			if got[i].Name != want[i].Name || !bytes.Equal(got[i].Data, want[i].Data) {
				t.Errorf("%s: file %d is %s, Build wrote %s", order, i, got[i].Name, want[i].Name)
			}
		}
	}
}

// TestBuilderRejects: an id added twice, one out of range and damaged
// terms are errors, and leave the pages added before as they were.
func TestBuilderRejects(t *testing.T) {
	pages := builderPages(2)
	b := NewBuilder()
	if err := b.Add(0, NewDoc(pages[0])); err != nil {
		t.Fatal(err)
	}
	before := b.Files()
	if err := b.Add(0, NewDoc(pages[1])); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("id added twice: %v", err)
	}
	if err := b.Add(-1, NewDoc(pages[1])); err == nil {
		t.Error("id -1 added")
	}
	if err := b.Add(1, Doc{Terms: []byte{0xff, 0xff}}); err == nil {
		t.Error("damaged terms added")
	}
	after := b.Files()
	if len(after) != len(before) || !bytes.Equal(after[0].Data, before[0].Data) {
		t.Error("a rejected page changed the index")
	}
}

// TestEmptyIndex: an index of no page (every page out of search) has
// empty lists in its meta file, which the browser's query reads as lists,
// and answers every query, one letter too, with no result.
func TestEmptyIndex(t *testing.T) {
	files := NewBuilder().Files()
	if len(files) != 1 {
		t.Fatalf("%d files, want the meta file alone", len(files))
	}
	payload, err := decodeFile(files[0].Data)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(payload, []byte(`"dl":[]`)) || !bytes.Contains(payload, []byte(`"c":[]`)) {
		t.Errorf("meta file %s: want empty lists", payload)
	}
	ix, err := Open(fstest.MapFS{MetaFile: {Data: files[0].Data}})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"a", "deploy", "deploy the"} {
		if rs, err := ix.Search(q, 5); err != nil || len(rs) != 0 {
			t.Errorf("Search(%q) = %v, %v; want nothing", q, rs, err)
		}
	}
}
