package render

import (
	"bytes"
	"context"
	"path/filepath"
	"reflect"
	"testing"
	"testing/fstest"
)

// cacheBuild builds fsys into dir (with prev as DirOutput.Prev) with the
// cache cacheDir, and checks the result against a clean build without
// cache: same files byte for byte, same warnings.
func cacheBuild(t *testing.T, fsys fstest.MapFS, dir, prev, cacheDir string, export bool) *Result {
	t.Helper()
	res, err := Build(context.Background(), fsys, DirOutput{Dir: dir, Prev: prev}, Options{CacheDir: cacheDir, Export: export})
	if err != nil {
		t.Fatal(err)
	}
	clean := newMemOutput()
	want, err := Build(context.Background(), fsys, clean, Options{Export: export})
	if err != nil {
		t.Fatal(err)
	}
	got := readDir(t, dir)
	if len(got) != len(clean.files) {
		t.Fatalf("%d files with the cache, %d without", len(got), len(clean.files))
	}
	for name, data := range clean.files {
		if !bytes.Equal(got[name], data) {
			t.Fatalf("%s differs from a clean build's", name)
		}
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
		dir, cache := t.TempDir(), t.TempDir()
		total := 60
		step := func(what string, wantReused int) {
			t.Helper()
			res := cacheBuild(t, fsys, dir, "", cache, export)
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

		fsys["new.mdx"] = &fstest.MapFile{Data: []byte("# New\n")}
		step("file added", 0)
		step("nothing changed again", total)

		// A new output folder, reusing the previous one's pages.
		next := filepath.Join(t.TempDir(), "next")
		res := cacheBuild(t, fsys, next, dir, cache, export)
		if res.Reused != total {
			t.Fatalf("export=%v: %d pages reused from Prev, want %d", export, res.Reused, total)
		}
		// The output was edited by hand: the page is rendered again.
		if err := DirOutput(DirOutput{Dir: next}).WriteFile("t0/p003.html", []byte("edited")); err != nil {
			t.Fatal(err)
		}
		res = cacheBuild(t, fsys, next, "", cache, export)
		if res.Reused != total-1 {
			t.Fatalf("export=%v: %d pages reused after an edit of the output, want %d", export, res.Reused, total-1)
		}
	}
}

func TestCacheWithoutDirOutput(t *testing.T) {
	t.Parallel()
	fsys := bigSite(1, 2, 5)
	cache := t.TempDir()
	for range 2 {
		out := newMemOutput()
		res, err := Build(context.Background(), fsys, out, Options{CacheDir: cache})
		if err != nil {
			t.Fatal(err)
		}
		if res.Reused != 0 || len(out.files) != res.Files {
			t.Fatalf("reused %d, %d files of %d", res.Reused, len(out.files), res.Files)
		}
	}
}
