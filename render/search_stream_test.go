package render

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"lectern.dev/lectern/render/limits"
	"lectern.dev/lectern/render/search"
)

// streamSite is a site of n pages in one group, each with a word of its
// own ("uniqN"); every fifth page is left out of search
// (searchable: false).
func streamSite(n int) fstest.MapFS {
	fsys := fstest.MapFS{}
	var pages []string
	for i := range n {
		name := fmt.Sprintf("p%02d", i)
		pages = append(pages, `"`+name+`"`)
		front := fmt.Sprintf("title: Page %d", i)
		if i%5 == 4 {
			front += "\nsearchable: false"
		}
		fsys[name+".mdx"] = &fstest.MapFile{Data: fmt.Appendf(nil, "---\n%s\n---\n\nText of uniq%d and shared words.\n\n## More\n\nAnother section.\n", front, i)}
	}
	fsys["docs.json"] = &fstest.MapFile{Data: []byte(`{"name":"S","navigation":{"groups":[{"group":"G","pages":[` + strings.Join(pages, ",") + `]}]}}`)}
	return fsys
}

// TestSearchStream: a build that makes its index as it writes the pages
// (no previous build) gives every page in search the next id in
// navigation order, finds each by its own word, fragment included (21
// pages: the last fragment file holds part of a group), leaves out the
// pages out of search, and writes the fragment files it names.
func TestSearchStream(t *testing.T) {
	t.Parallel()
	const n = 21
	out := newMemOutput()
	if _, err := Build(context.Background(), streamSite(n), out, Options{}); err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{}
	for name, data := range out.files {
		fsys[name] = &fstest.MapFile{Data: data}
	}
	ix, err := search.Open(fsys)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		rs, err := ix.Search(fmt.Sprintf("uniq%d", i), 5)
		if err != nil {
			t.Fatal(err)
		}
		var paths []string
		for _, r := range rs {
			paths = append(paths, r.Path)
		}
		// (Prefixes and typos find others after it: uniq1, uniq10.)
		page := fmt.Sprintf("p%02d", i)
		if i%5 == 4 {
			if slices.Contains(paths, page) {
				t.Errorf("uniq%d finds %v, with %s, which is out of search", i, paths, page)
			}
		} else if len(paths) == 0 || paths[0] != page || rs[0].Title != fmt.Sprintf("Page %d", i) {
			t.Errorf("uniq%d finds %v first, want %s", i, rs, page)
		}
	}
	inIndex := n - n/5
	var frags []string
	for name := range out.files {
		if strings.HasPrefix(name, search.Dir+"f/") {
			frags = append(frags, name)
		}
	}
	slices.Sort(frags)
	var want []string
	for id := 0; id < inIndex; id += search.FragmentGroup {
		want = append(want, search.FragmentFile(id))
	}
	slices.Sort(want)
	if !slices.Equal(frags, want) {
		t.Errorf("fragment files %v, want %v", frags, want)
	}
}

// TestSearchStreamEndsWithFailedBuild: a build that fails while writing
// its pages (its output budget spent) leaves no goroutine of the search
// index behind.
func TestSearchStreamEndsWithFailedBuild(t *testing.T) {
	before := runtime.NumGoroutine()
	for range 5 {
		_, err := Build(context.Background(), streamSite(60), newMemOutput(), Options{Limits: limits.Limits{MaxOutputBytes: 200 << 10}})
		if le := limits.AsError(err); le == nil || le.Limit != limits.MaxOutputSize {
			t.Fatalf("want the output limit's error, got %v", err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := runtime.NumGoroutine(); got > before {
		buf := make([]byte, 1<<16)
		t.Fatalf("%d goroutines after the failed builds, %d before:\n%s", got, before, buf[:runtime.Stack(buf, true)])
	}
}
