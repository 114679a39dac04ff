package render

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	"lectern.dev/lectern"
	"lectern.dev/lectern/internal/sitetest"
	"lectern.dev/lectern/render/cache"
	"lectern.dev/lectern/render/features"
	"lectern.dev/lectern/render/highlight"
	"lectern.dev/lectern/render/output"
	"lectern.dev/lectern/render/search"
)

// cacheBuild builds fsys into dir (with prev as output.Dir.Prev) with the
// cache cacheDir, and checks the result against a clean build without
// cache: same files byte for byte, same warnings.
func cacheBuild(t *testing.T, fsys fstest.MapFS, dir, prev, cacheDir string, export bool) *Result {
	t.Helper()
	return cacheBuildTo(t, fsys, output.Dir{Dir: dir, Prev: prev}, cacheDir, export)
}

// cacheBuildTo is cacheBuild into out.
func cacheBuildTo(t *testing.T, fsys fstest.MapFS, out output.Dir, cacheDir string, export bool) *Result {
	t.Helper()
	dir := out.Dir
	res, err := Build(context.Background(), fsys, out, Options{CacheDir: cacheDir, Export: export})
	if err != nil {
		t.Fatal(err)
	}
	clean := newMemOutput()
	want, err := Build(context.Background(), fsys, clean, Options{Export: export})
	if err != nil {
		t.Fatal(err)
	}
	if diff := outputDiff(t, sitetest.ReadDir(t, dir), clean.files); diff != "" {
		t.Fatal(diff)
	}
	if !reflect.DeepEqual(res.Warnings, want.Warnings) {
		t.Fatalf("warnings differ from a clean build's:\n%v\n%v", res.Warnings, want.Warnings)
	}
	if res.Files != want.Files || res.Pages != want.Pages {
		t.Fatalf("files %d pages %d, clean build: %d %d", res.Files, res.Pages, want.Files, want.Pages)
	}
	return res
}

func TestCacheRebuild(t *testing.T) {
	t.Parallel()
	for _, export := range []bool{false, true} {
		fsys := bigSite(2, 3, 10) // 60 pages, 30 per tab
		dir, cacheDir := t.TempDir(), t.TempDir()
		total := 60
		step := func(what string, wantReused int) {
			t.Helper()
			res := cacheBuild(t, fsys, dir, "", cacheDir, export)
			if res.Reused != wantReused {
				t.Fatalf("export=%v, %s: %d pages reused, want %d", export, what, res.Reused, wantReused)
			}
		}
		step("first build", 0)
		step("nothing changed", total)

		fsys["t0/p005.mdx"].Data = append(fsys["t0/p005.mdx"].Data, "\nOne more line.\n"...)
		step("one body changed", total-1)

		// A title is in the sidebar of its tab (30 pages) and in the pager
		// of its neighbours (in the same tab here).
		fsys["t1/p040.mdx"].Data = bytes.Replace(fsys["t1/p040.mdx"].Data, []byte("title: Page 40"), []byte("title: Renamed"), 1)
		step("one title changed", total-30)

		// The snippet is imported by pages 0, 7, ..., 56: 9 pages.
		fsys["snippets/shared.mdx"].Data = []byte("Changed shared text.\n")
		step("snippet changed", total-9)

		fsys["docs.json"].Data = bytes.Replace(fsys["docs.json"].Data, []byte(`"name":"Big"`), []byte(`"name":"Bigger"`), 1)
		step("configuration changed", 0)

		// A page outside the navigation is built too (unlisted.go); the
		// others, which do not link to it, are kept.
		fsys["new.mdx"] = &fstest.MapFile{Data: []byte("# New\n")}
		step("file added", total)
		total++
		step("nothing changed again", total)

		// A page that 12 pages link to (n%5 == 1: "/nowhere-1") appears:
		// they are rendered again; and goes.
		fsys["nowhere-1.mdx"] = &fstest.MapFile{Data: []byte("# Somewhere\n")}
		step("linked page added", total-12)
		// (A build into the same folder without Update leaves the files
		// it no longer writes: lectern build writes a new folder, or
		// updates in place.)
		delete(fsys, "nowhere-1.mdx")
		for _, name := range []string{"nowhere-1.html", "nowhere-1.md"} {
			if err := os.Remove(filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
		}
		step("linked page removed", total-12)

		// A new output folder, reusing the previous one's pages.
		next := filepath.Join(t.TempDir(), "next")
		res := cacheBuild(t, fsys, next, dir, cacheDir, export)
		if res.Reused != total {
			t.Fatalf("export=%v: %d pages reused from Prev, want %d", export, res.Reused, total)
		}
		// The output was edited by hand: the page is rendered again.
		if err := output.Dir(output.Dir{Dir: next}).WriteFile("t0/p003.html", []byte("edited")); err != nil {
			t.Fatal(err)
		}
		res = cacheBuild(t, fsys, next, "", cacheDir, export)
		if res.Reused != total-1 {
			t.Fatalf("export=%v: %d pages reused after an edit of the output, want %d", export, res.Reused, total-1)
		}
	}
}

func TestCacheWithoutDirOutput(t *testing.T) {
	t.Parallel()
	fsys := bigSite(1, 2, 5)
	cacheDir := t.TempDir()
	for range 2 {
		out := newMemOutput()
		res, err := Build(context.Background(), fsys, out, Options{CacheDir: cacheDir})
		if err != nil {
			t.Fatal(err)
		}
		if res.Reused != 0 || len(out.files) != res.Files {
			t.Fatalf("reused %d, %d files of %d", res.Reused, len(out.files), res.Files)
		}
	}
}

// identities describes the files of dir as found. A file written again has
// a new identity: a rename gives it a new inode, a write a new modification
// time.
func identities(t *testing.T, dir string) map[string]fs.FileInfo {
	t.Helper()
	ids := map[string]fs.FileInfo{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		ids[filepath.ToSlash(rel)] = fi
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// rewritten lists the files of after that are not in before or were
// written again.
func rewritten(before, after map[string]fs.FileInfo) []string {
	var list []string
	for name, fi := range after {
		if old, ok := before[name]; !ok || !os.SameFile(old, fi) || !old.ModTime().Equal(fi.ModTime()) {
			list = append(list, name)
		}
	}
	sort.Strings(list)
	return list
}

// TestCacheUpdateInPlace updates an output folder in place
// (output.Dir.Update): a one-page change writes only that page and the
// search index, files no longer produced are removed, and the output is
// always the same as a clean build's.
func TestCacheUpdateInPlace(t *testing.T) {
	t.Parallel()
	for _, export := range []bool{false, true} {
		fsys := bigSite(2, 3, 10) // 60 pages
		fsys["images/logo.txt"] = &fstest.MapFile{Data: []byte("logo")}
		dir, cacheDir := filepath.Join(t.TempDir(), "site"), t.TempDir()
		out := output.Dir{Dir: dir, Update: true}
		step := func(what string, wantReused int) {
			t.Helper()
			res := cacheBuildTo(t, fsys, out, cacheDir, export)
			if res.Reused != wantReused {
				t.Fatalf("export=%v, %s: %d pages reused, want %d", export, what, res.Reused, wantReused)
			}
			if !cache.UpdateReady(cacheDir, dir) {
				t.Fatalf("export=%v, %s: the cache does not describe the output", export, what)
			}
		}
		if cache.UpdateReady(cacheDir, dir) {
			t.Fatal("UpdateReady before the first build")
		}
		step("first build", 0)
		before := identities(t, dir)
		step("nothing changed", 60)
		if list := rewritten(before, identities(t, dir)); len(list) != 0 {
			t.Fatalf("export=%v: a build without changes wrote %v", export, list)
		}

		// As in a new process: the code of the page rendered again comes
		// from the cache (highlight.Store).
		highlight.ForgetCached()
		fsys["t0/p005.mdx"].Data = append(fsys["t0/p005.mdx"].Data, "\nOne more line.\n"...)
		step("one body changed", 59)
		// The page and its Markdown, llms-full.txt, its search fragment,
		// the index's meta file and the chunks of its words.
		var frags, others []string
		for _, name := range rewritten(before, identities(t, dir)) {
			switch {
			case strings.HasPrefix(name, search.Dir+"f/"):
				frags = append(frags, name)
			case name != "t0/p005.html" && name != "t0/p005.md" && name != "llms-full.txt" && name != search.MetaFile && !strings.HasPrefix(name, search.Dir+"c/"):
				others = append(others, name)
			}
		}
		if len(frags) != 1 || len(others) != 0 {
			t.Fatalf("export=%v: a one-page change wrote the fragments %v and %v", export, frags, others)
		}

		// Pages changed at the start, in the middle and at the end of
		// the navigation.
		for _, p := range []string{"t0/p000.mdx", "t1/p031.mdx", "t1/p059.mdx"} {
			fsys[p].Data = bytes.Replace(fsys[p].Data, []byte("Intro of page"), []byte("Introduction of page"), 1)
		}
		step("three bodies changed", 57)

		// A change that leaves the page's words and text as they were (the
		// code's language): nothing of the search index is written again.
		before = identities(t, dir)
		fsys["t0/p005.mdx"].Data = bytes.Replace(fsys["t0/p005.mdx"].Data, []byte("```go"), []byte("```c"), 1)
		step("code language changed", 59)
		// (Its Markdown shows the code's language: it and llms-full.txt change.)
		if list := rewritten(before, identities(t, dir)); !reflect.DeepEqual(list, []string{"llms-full.txt", "t0/p005.html", "t0/p005.md"}) {
			t.Fatalf("export=%v: a change of the page only wrote %v", export, list)
		}

		// A page left out of the search index: the index is written again.
		fsys["t0/p007.mdx"].Data = bytes.Replace(fsys["t0/p007.mdx"].Data, []byte("title: Page 7"), []byte("title: Page 7\nnoindex: true"), 1)
		step("page left out of the search index", 59)
		// The index edited by hand: its meta file is written again, and
		// the pages whose fragments the edited file held are rendered
		// again.
		ix, err := search.Open(os.DirFS(dir))
		if err != nil {
			t.Fatal(err)
		}
		docs, err := ix.Documents()
		if err != nil {
			t.Fatal(err)
		}
		inFile := 0
		for _, d := range docs {
			if search.FragmentFile(d.ID) == search.FragmentFile(3) {
				inFile++
			}
		}
		for _, name := range []string{search.MetaFile, search.FragmentFile(3)} {
			if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(name)), []byte("{}"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		step("search index edited", 60-inFile)
		ix, err = search.Open(os.DirFS(dir))
		if err != nil {
			t.Fatalf("export=%v: the index edited by hand is not written again: %v", export, err)
		}
		if docs, err := ix.Documents(); err != nil || len(docs) != 59 {
			t.Fatalf("export=%v: %d pages in the index (%v), want 59", export, len(docs), err)
		}

		// A page and a file removed: their output files go, and the folder
		// left empty.
		delete(fsys, "t1/p059.mdx")
		delete(fsys, "images/logo.txt")
		fsys["docs.json"].Data = bytes.Replace(fsys["docs.json"].Data, []byte(`,"t1/p059"`), nil, 1)
		step("page and file removed", 0)
		for _, gone := range []string{"t1/p059.html", "images"} {
			if _, err := os.Stat(filepath.Join(dir, gone)); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("export=%v: %s is still in the output (%v)", export, gone, err)
			}
		}
		step("nothing changed again", 59)
	}
}

// TestCacheInterruptedUpdate interrupts an update in place and checks that
// the next build trusts none of the output: it renders every page again,
// also one whose file was changed in a way its recorded size and
// modification time do not show.
func TestCacheInterruptedUpdate(t *testing.T) {
	t.Parallel()
	fsys := bigSite(1, 2, 10) // 20 pages
	dir, cacheDir := t.TempDir(), t.TempDir()
	out := output.Dir{Dir: dir, Update: true}
	cacheBuildTo(t, fsys, out, cacheDir, false)

	fsys["t0/p002.mdx"].Data = append(fsys["t0/p002.mdx"].Data, "\nOne more line.\n"...)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opts := Options{CacheDir: cacheDir, Progress: func(done, total int) {
		if done == 5 {
			cancel()
		}
	}}
	if _, err := Build(ctx, fsys, out, opts); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted build: %v", err)
	}
	if cache.UpdateReady(cacheDir, dir) {
		t.Fatal("an interrupted update left the cache describing the output")
	}
	if got := sitetest.ReadDir(t, dir)["t0/p002.html"]; !bytes.Contains(got, []byte("One more line.")) {
		t.Fatal("the interrupted build did not get to write t0/p002.html")
	}
	// A file the interrupted build could have written in the same clock
	// tick as the previous one, with the same size: only the mark shows it.
	name := filepath.Join(dir, "t0", "p010.html")
	fi, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, bytes.Repeat([]byte("x"), int(fi.Size())), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(name, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}

	if res := cacheBuildTo(t, fsys, out, cacheDir, false); res.Reused != 0 {
		t.Fatalf("the build after an interrupted update reused %d pages", res.Reused)
	}
	if !cache.UpdateReady(cacheDir, dir) {
		t.Fatal("the cache does not describe the output after a full build")
	}
	if res := cacheBuildTo(t, fsys, out, cacheDir, false); res.Reused != 20 {
		t.Fatalf("the next build reused %d pages, want 20", res.Reused)
	}
}

// TestCacheFailedUpdateKeepsOutput checks that a build that fails to load
// its source touches neither the output it would update nor the cache.
func TestCacheFailedUpdateKeepsOutput(t *testing.T) {
	t.Parallel()
	fsys := bigSite(1, 2, 10) // 20 pages
	dir, cacheDir := t.TempDir(), t.TempDir()
	out := output.Dir{Dir: dir, Update: true}
	cacheBuildTo(t, fsys, out, cacheDir, false)
	files, ids := sitetest.ReadDir(t, dir), identities(t, dir)
	manifest, err := os.ReadFile(filepath.Join(cacheDir, cache.ManifestName))
	if err != nil {
		t.Fatal(err)
	}

	good := fsys["docs.json"].Data
	for _, broken := range []string{`{"name": "x", "navigation": [`, `{"name":"x","navigation":{"pages":["t0/p000","gone"]}}`} {
		fsys["docs.json"].Data = []byte(broken)
		_, err := Build(context.Background(), fsys, out, Options{CacheDir: cacheDir})
		if lectern.ErrorCode(err) != lectern.EINVALID {
			t.Fatalf("broken configuration %s: %v", broken, err)
		}
		if list := rewritten(ids, identities(t, dir)); len(list) != 0 || !reflect.DeepEqual(sitetest.ReadDir(t, dir), files) {
			t.Fatalf("a failed build changed the output: %v", list)
		}
		if now, _ := os.ReadFile(filepath.Join(cacheDir, cache.ManifestName)); !bytes.Equal(now, manifest) {
			t.Fatal("a failed build changed the cache")
		}
	}
	fsys["docs.json"].Data = good
	if res := cacheBuildTo(t, fsys, out, cacheDir, false); res.Reused != 20 {
		t.Fatalf("the build after a failed one reused %d pages, want 20", res.Reused)
	}
}

// TestCacheSidebarWarnings checks that the broken links of the sidebars
// are warned once each, in navigation order, whether the pages showing
// them are rendered or kept (a kept page does not render its sidebar),
// and as a build without a cache warns them (cacheBuildTo).
func TestCacheSidebarWarnings(t *testing.T) {
	t.Parallel()
	page := func(title string) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte("---\ntitle: " + title + "\n---\n\nText of " + title + ".\n")}
	}
	fsys := fstest.MapFS{
		"docs.json": &fstest.MapFile{Data: []byte(`{"name": "S", "navigation": {"tabs": [
  {"tab": "A", "groups": [{"group": "GA", "pages": ["a/one", {"group": "Links", "pages": [{"label": "Gone A", "href": "/gone-a"}]}, "a/two"]}]},
  {"tab": "B", "groups": [{"group": "GB", "pages": ["b/one", {"label": "Gone B", "href": "/gone-b"}]}]}
]}}`)},
		"a/one.mdx": page("One"), "a/two.mdx": page("Two"), "b/one.mdx": page("B one"),
	}
	for _, export := range []bool{false, true} {
		dir, cacheDir := filepath.Join(t.TempDir(), "site"), t.TempDir()
		for _, step := range []string{"first build", "nothing changed", "a page of tab B changed", "a title changed"} {
			switch step {
			case "a page of tab B changed":
				fsys["b/one.mdx"] = page("B one, changed")
			case "a title changed":
				fsys["a/two.mdx"] = page("Two renamed")
			}
			res := cacheBuildTo(t, fsys, output.Dir{Dir: dir, Update: true}, cacheDir, export)
			var links []string
			for _, w := range res.Warnings {
				if strings.Contains(w.Message, "gone-") {
					links = append(links, w.String())
				}
			}
			if len(links) != 2 || !strings.Contains(links[0], "/gone-a") || !strings.Contains(links[1], "/gone-b") {
				t.Fatalf("export=%v, %s: sidebar warnings %q, want /gone-a then /gone-b once each", export, step, links)
			}
		}
	}
}

// Options that change the pages (the site features) invalidate the cache:
// a rebuild with other features equals a clean build with them.
func TestCacheFeaturesChangeRebuildsAll(t *testing.T) {
	t.Parallel()
	fsys := sitetest.Archive(t, "-- docs.json --\n{\"navigation\": {\"pages\": [\"index\", \"guide\"]}}\n-- index.mdx --\n# Home\n-- guide.mdx --\n# Guide\n")
	dir, cacheDir := t.TempDir(), t.TempDir()
	for _, f := range []*features.Site{nil, {Playground: true}, {Search: true, Playground: true}} {
		if _, err := Build(context.Background(), fsys, output.Dir{Dir: dir, Update: true}, Options{CacheDir: cacheDir, Features: f}); err != nil {
			t.Fatal(err)
		}
		clean := newMemOutput()
		if _, err := Build(context.Background(), fsys, clean, Options{Features: f}); err != nil {
			t.Fatal(err)
		}
		if diff := outputDiff(t, sitetest.ReadDir(t, dir), clean.files); diff != "" {
			t.Fatalf("features %+v: %s", f, diff)
		}
	}
}
