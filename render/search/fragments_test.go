package search

import (
	"bytes"
	"fmt"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// TestFragmentsRoundTrip encodes fragment files with gaps (pages not in
// the index, at the start, middle and end of a file) and reads them back.
func TestFragmentsRoundTrip(t *testing.T) {
	for _, slots := range [][]int{{0}, {7}, {1, 3, 6}, {0, 1, 2, 3, 4, 5, 6, 7}, {}} {
		var fs Fragments
		for _, i := range slots {
			fs[i] = []byte(fmt.Sprintf(`{"p":"page%d","u":"u","t":"T","s":[]}`, i))
		}
		got, err := DecodeFragments(EncodeFragments(&fs))
		if err != nil {
			t.Fatalf("%v: %v", slots, err)
		}
		for i := range fs {
			if !bytes.Equal(got[i], fs[i]) {
				t.Errorf("%v: slot %d is %q, want %q", slots, i, got[i], fs[i])
			}
		}
	}
	for _, bad := range []string{"", "x", encodeAsFile(`{}`), encodeAsFile(`[1,2,3,4,5,6,7,8,9]`), encodeAsFile(`[`)} {
		if _, err := DecodeFragments([]byte(bad)); err == nil {
			t.Errorf("DecodeFragments(%.40q) gives no error", bad)
		}
	}
}

// TestDecodeFragmentsBound reads a damaged fragment file of a million
// small values: an error, without making them a list first.
func TestDecodeFragmentsBound(t *testing.T) {
	data := encodeFile([]byte("[" + strings.Repeat("0,", 1<<20) + "0]"))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := DecodeFragments(data)
	runtime.ReadMemStats(&after)
	if err == nil {
		t.Fatal("a file of a million values reads as fragments")
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 16<<20 {
		t.Errorf("reading it allocated %d MB", n>>20)
	}
}

func encodeAsFile(payload string) string { return string(encodeFile([]byte(payload))) }

// TestFragmentFilesGroupPages checks that pages share a fragment file by
// FragmentGroup ids, that a query finds pages in every slot of a file with
// gaps, and that asking for an id its file does not hold is an error.
func TestFragmentFilesGroupPages(t *testing.T) {
	if FragmentFile(0) != FragmentFile(FragmentGroup-1) || FragmentFile(FragmentGroup-1) == FragmentFile(FragmentGroup) {
		t.Fatalf("FragmentFile: %s %s %s", FragmentFile(0), FragmentFile(FragmentGroup-1), FragmentFile(FragmentGroup))
	}
	ids := []int{0, 2, 7, 8, 12, 23}
	words := map[int]string{0: "alpha", 2: "bravo", 7: "charlie", 8: "delta", 12: "echo", 23: "foxtrot"}
	pages := map[int]Page{}
	for _, id := range ids {
		pages[id] = Page{Path: fmt.Sprint("p", id), URL: fmt.Sprint("p", id), Title: fmt.Sprint("Page ", id), Body: fmt.Sprintf("<p>%s shared</p>", words[id])}
	}
	fsys, _ := siteFS(t, pages)
	n := 0
	for name := range fsys {
		if strings.HasPrefix(name, Dir+"f/") {
			n++
		}
	}
	if n != 3 {
		t.Fatalf("%d fragment files for ids %v, want 3", n, ids)
	}
	ix, err := Open(fsys)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if got := links(t, ix, words[id]); len(got) != 1 || got[0] != fmt.Sprint("p", id) {
			t.Errorf("%s finds %v, want [p%d]", words[id], got, id)
		}
	}
	if got := links(t, ix, "shared"); len(got) != len(ids) {
		t.Errorf("shared finds %v, want all of %v", got, ids)
	}
	if _, err := ix.fragment(3); err == nil || !strings.Contains(err.Error(), "no page 3") {
		t.Errorf("the fragment of an id not in the index: %v", err)
	}
}

// TestQueryJSFragmentGroup checks that the reader's side groups fragments
// as the index does.
func TestQueryJSFragmentGroup(t *testing.T) {
	m := regexp.MustCompile(`FRAGMENT_GROUP = (\d+)`).FindStringSubmatch(QueryJS)
	if m == nil || m[1] != fmt.Sprint(FragmentGroup) {
		t.Fatalf("query.js: FRAGMENT_GROUP = %v, want %d", m, FragmentGroup)
	}
}
