package render

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
	"time"

	"lectern.dev/lectern/internal/sitetest"
	"lectern.dev/lectern/render/cache"
	"lectern.dev/lectern/render/output"
)

// TestCacheStamps builds from a folder, where unchanged sources are not
// read again (their stamps are trusted), and checks that same-size edits,
// also with the modification time put back, are still seen.
func TestCacheStamps(t *testing.T) {
	t.Parallel()
	fsys := bigSite(1, 2, 10) // 20 pages
	fsys["logo.txt"] = &fstest.MapFile{Data: []byte("logo v1")}
	src := t.TempDir()
	for name, f := range fsys {
		p := filepath.Join(src, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(cache.StampSlack + 50*time.Millisecond) // so that the stamps are trusted
	dir, cacheDir := t.TempDir(), t.TempDir()
	step := func(what string, wantReused int) {
		t.Helper()
		root, err := os.OpenRoot(src)
		if err != nil {
			t.Fatal(err)
		}
		defer root.Close()
		res, err := Build(context.Background(), root.FS(), output.Dir{Dir: dir}, Options{CacheDir: cacheDir})
		if err != nil {
			t.Fatal(err)
		}
		clean := newMemOutput()
		_, err = Build(context.Background(), root.FS(), clean, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if diff := outputDiff(t, sitetest.ReadDir(t, dir), clean.files); diff != "" {
			t.Fatalf("%s: %s", what, diff)
		}
		if res.Reused != wantReused {
			t.Fatalf("%s: %d pages reused, want %d", what, res.Reused, wantReused)
		}
	}
	step("first build", 0)
	time.Sleep(cache.StampSlack + 50*time.Millisecond)
	step("nothing changed", 20)
	step("nothing changed again", 20)

	// A same-size edit of a body, its modification time put back.
	p := filepath.Join(src, "t0", "p005.mdx")
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	i := bytes.LastIndexByte(bytes.TrimRight(data, "\n"), '\n')
	data[i+1] ^= 0x20 // flip the case of a letter
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	step("same-size edit", 19)
	// The copied file, same size, modification time put back.
	l := filepath.Join(src, "logo.txt")
	fi, _ = os.Stat(l)
	os.WriteFile(l, []byte("logo v2"), 0o644)
	os.Chtimes(l, fi.ModTime(), fi.ModTime())
	step("asset edit", 20)
}
