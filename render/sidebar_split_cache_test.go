package render

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"lectern.dev/lectern/render/output"
)

// TestSidebarSplitRebuild checks that a rebuild with the cache, updating
// the output in place, writes what a change shows and no more: a page
// added to a group of a split section rewrites that group's pages, the
// section's navigation file and the sitemap, not the pages of the other
// groups; a title changed, the pages of its group and the navigation file.
// (The search index's files, which change with them, are left out.)
func TestSidebarSplitRebuild(t *testing.T) {
	t.Parallel()
	for _, export := range []bool{false, true} {
		fsys := foldersSite(300, 100) // g000, g001, g002: one section of 300 entries
		dir, cacheDir := filepath.Join(t.TempDir(), "site"), t.TempDir()
		out := output.Dir{Dir: dir, Update: true}
		step := func(what string, wantReused int) {
			t.Helper()
			if res := cacheBuildTo(t, fsys, out, cacheDir, export); res.Reused != wantReused {
				t.Fatalf("export=%v, %s: %d pages reused, want %d", export, what, res.Reused, wantReused)
			}
		}
		step("first build", 0)
		if page := readOut(t, dir, "g001/p00150.html"); !strings.Contains(page, `class="lc-nav-part"`) || strings.Contains(page, "p00050") {
			t.Fatalf("export=%v: g001/p00150.html does not show its group only:\n%.3000s", export, page)
		}
		before := identities(t, dir)
		step("nothing changed", 300)
		if list := rewritten(before, identities(t, dir)); len(list) != 0 {
			t.Fatalf("export=%v: a build without changes wrote %v", export, list)
		}

		// A page added in the middle of g001 (between p00149 and p00150).
		fsys["g001/p00149a.mdx"] = &fstest.MapFile{Data: []byte("---\ntitle: Added\n---\nNew.\n")}
		step("page added", 200)
		group := func(g string, extra ...string) []string { return filesUnder(t, dir, g, extra...) }
		want := group("g001", "_lectern/nav/site.js", "sitemap.xml", "g001/p00149a.md", "llms.txt", "llms-full.txt")
		got := notSearch(rewritten(before, identities(t, dir)))
		if !sameSet(got, want) {
			t.Fatalf("export=%v: adding a page to g001 wrote %v, want %v", export, got, want)
		}

		// A title changed in g002: its group and the navigation file.
		before = identities(t, dir)
		fsys["g002/p00250.mdx"].Data = bytes.Replace(fsys["g002/p00250.mdx"].Data, []byte("title: Page 250"), []byte("title: Renamed"), 1)
		step("title changed", 201)
		want = group("g002", "_lectern/nav/site.js", "g002/p00250.md", "llms.txt", "llms-full.txt")
		if got := notSearch(rewritten(before, identities(t, dir))); !sameSet(got, want) {
			t.Fatalf("export=%v: renaming a page of g002 wrote %v, want %v", export, got, want)
		}
	}
}

// filesUnder returns the names of the files of the output folder dir
// under its folder g but the pages' Markdown, and extra.
func filesUnder(t *testing.T, dir, g string, extra ...string) []string {
	t.Helper()
	var out []string
	for name := range identities(t, dir) {
		// Not the pages' Markdown, which their sidebar does not change.
		if strings.HasPrefix(name, g+"/") && !strings.HasSuffix(name, ".md") {
			out = append(out, name)
		}
	}
	return append(out, extra...)
}

// readOut reads the file name of the folder dir.
func readOut(t *testing.T, dir, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// notSearch returns the names of list but those of the search index's
// files.
func notSearch(list []string) []string {
	var out []string
	for _, name := range list {
		if !strings.HasPrefix(name, "_lectern/search") {
			out = append(out, name)
		}
	}
	return out
}

// sameSet reports whether a and b hold the same strings.
func sameSet(a, b []string) bool {
	m := map[string]int{}
	for _, s := range a {
		m[s]++
	}
	for _, s := range b {
		m[s]--
	}
	for _, n := range m {
		if n != 0 {
			return false
		}
	}
	return true
}
