package render

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"lectern.dev/lectern/render/output"
	"lectern.dev/lectern/render/search"
)

// TestSearchRebuild: a rebuild with a cache (in place) finds a changed
// page's new words and not its old ones, keeps the other pages'
// fragments, and writes only the chunks whose words changed.
func TestSearchRebuild(t *testing.T) {
	t.Parallel()
	fsys := bigSite(1, 4, 50) // 200 pages
	// A vocabulary of some 40,000 words, in many chunks.
	for name, f := range fsys {
		if strings.HasSuffix(name, ".mdx") && strings.HasPrefix(name, "t0/") {
			var b strings.Builder
			for i := range 200 {
				fmt.Fprintf(&b, " %s%dq%d", name[4:7], i, len(f.Data)%7)
			}
			f.Data = append(f.Data, "\n\nWords"+b.String()+".\n"...)
		}
	}
	fsys["t0/p010.mdx"].Data = bytes.Replace(fsys["t0/p010.mdx"].Data, []byte("Intro of page 10"), []byte("Intro of page 10 about aardvarkish things"), 1)
	dir, cacheDir := filepath.Join(t.TempDir(), "site"), t.TempDir()
	out := output.Dir{Dir: dir, Update: true}
	find := func(q string) []string {
		t.Helper()
		ix, err := search.Open(os.DirFS(dir))
		if err != nil {
			t.Fatal(err)
		}
		rs, err := ix.Search(q, 10)
		if err != nil {
			t.Fatal(err)
		}
		var paths []string
		for _, r := range rs {
			paths = append(paths, r.Path)
		}
		return paths
	}
	cacheBuildTo(t, fsys, out, cacheDir, false)
	if got := find("aardvarkish "); !slices.Equal(got, []string{"t0/p010"}) {
		t.Fatalf("aardvarkish before the change: %v", got)
	}
	before := identities(t, dir)
	fsys["t0/p010.mdx"].Data = bytes.Replace(fsys["t0/p010.mdx"].Data, []byte("aardvarkish"), []byte("zeppelinesque"), 1)
	if res := cacheBuildTo(t, fsys, out, cacheDir, false); res.Reused != 199 {
		t.Fatalf("%d pages reused, want 199", res.Reused)
	}
	if got := find("aardvarkish "); len(got) != 0 {
		t.Errorf("the old word is still found: %v", got)
	}
	if got := find("zeppelinesque "); !slices.Equal(got, []string{"t0/p010"}) {
		t.Errorf("the new word: %v, want t0/p010", got)
	}
	var frags, chunks, others []string
	after := identities(t, dir)
	for _, name := range rewritten(before, after) {
		switch {
		case strings.HasPrefix(name, search.Dir+"f/"):
			frags = append(frags, name)
		case strings.HasPrefix(name, search.Dir+"c/"):
			chunks = append(chunks, name)
		case name != "t0/p010.html" && name != "t0/p010.md" && name != "llms-full.txt" && name != search.MetaFile:
			others = append(others, name)
		}
	}
	all := 0
	for name := range after {
		if strings.HasPrefix(name, search.Dir+"c/") {
			all++
		}
	}
	t.Logf("chunks written: %d of %d", len(chunks), all)
	if len(frags) != 1 || len(others) != 0 || len(chunks) == 0 || len(chunks) > 4 || all < 10 {
		t.Errorf("the change wrote fragments %v, %d of %d chunks, and %v", frags, len(chunks), all, others)
	}
}
