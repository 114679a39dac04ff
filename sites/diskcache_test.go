package sites

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"lectern.dev/lectern/blobstore/blobtest"
)

// diskBytes returns the bytes of the files under dir, and their number.
func diskBytes(t *testing.T, dir string) (int64, int) {
	t.Helper()
	var total int64
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		total += info.Size()
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return total, n
}

// With the disk cache (and no memory cache), a file read once is served
// from disk afterwards: deleting it from the store changes nothing. Files
// past the memory cache's 1 MiB are kept too, and ranges of them are
// served from disk. A missing file is 404 and leaves nothing on disk.
func TestDiskCacheServesFromDisk(t *testing.T) {
	t.Parallel()
	st, b := openStore(t), blobtest.Folder(t)
	p := newProject(t, st, "disk.example.com")
	big := strings.Repeat("0123456789abcdef", 1<<17) // 2 MiB
	page := "<!doctype html><title>Disk</title><p>" + strings.Repeat("words ", 200)
	dep := publishLive(t, st, b, p.ID, map[string]string{"index.html": page, "video.bin": big})
	srv := New(discardLog(), st, b)
	srv.SetHotCache(0, 0, 0)
	dir := filepath.Join(t.TempDir(), "site-cache")
	if err := srv.SetDiskCache(dir, 64<<20); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/", "/video.bin"} {
		if w := do(srv, "GET", "disk.example.com", path); w.Code != 200 {
			t.Fatalf("GET %s = %d", path, w.Code)
		}
	}
	if w := do(srv, "GET", "disk.example.com", "/missing.html"); w.Code != 404 {
		t.Fatalf("GET /missing.html = %d, want 404", w.Code)
	}
	total, n := diskBytes(t, dir)
	if want := int64(len(page) + len(big)); total != want || n != 2 {
		t.Fatalf("the disk cache holds %d bytes in %d files, want %d in 2 (the page and the video, not the missing file)", total, n, want)
	}
	for _, name := range []string{"index.html", "video.bin"} {
		if err := b.Delete(t.Context(), testKey(t, srv, p.ID, dep, name)); err != nil {
			t.Fatal(err)
		}
	}
	if w := do(srv, "GET", "disk.example.com", "/"); w.Code != 200 || w.Body.String() != page {
		t.Errorf("GET / once gone from the store = %d (%d bytes), want the page from disk", w.Code, w.Body.Len())
	}
	r := do(srv, "GET", "disk.example.com", "/video.bin", "Range", "bytes=16-31")
	if r.Code != 206 || r.Body.String() != "0123456789abcdef" {
		t.Errorf("a range of the video once gone from the store = %d %q, want 206 and 16 bytes from disk", r.Code, r.Body.String())
	}
}

// The disk cache never holds more than its bound, and one busy site
// cannot take more than a quarter of it. A deleted project's files leave
// the disk at once.
func TestDiskCacheBoundAndDelete(t *testing.T) {
	t.Parallel()
	st, b := openStore(t), blobtest.Folder(t)
	const bound = 256 << 10
	srv := New(discardLog(), st, b)
	srv.SetHotCache(0, 0, 0)
	dir := filepath.Join(t.TempDir(), "site-cache")
	if err := srv.SetDiskCache(dir, bound); err != nil {
		t.Fatal(err)
	}
	ws := srv.Watch(st)
	files := map[string]string{}
	for i := range 40 {
		files["p"+string(rune('a'+i%26))+string(rune('a'+i/26))+".html"] = strings.Repeat("x", 10<<10) // 10 KiB each
	}
	busy := newProject(t, st, "busy.example.com")
	quiet := newProject(t, st, "quiet.example.com")
	publishLive(t, ws, b, busy.ID, files)
	publishLive(t, ws, b, quiet.ID, map[string]string{"index.html": strings.Repeat("q", 10<<10)})
	if w := do(srv, "GET", "quiet.example.com", "/"); w.Code != 200 {
		t.Fatalf("GET quiet / = %d", w.Code)
	}
	for name := range files {
		if w := do(srv, "GET", "busy.example.com", "/"+name); w.Code != 200 {
			t.Fatalf("GET busy /%s = %d", name, w.Code)
		}
		if total, _ := diskBytes(t, dir); total > bound {
			t.Fatalf("the disk cache holds %d bytes, over its bound %d", total, bound)
		}
	}
	_, bySite := srv.disk.lru.stats()
	if bySite[busy.ID] > bound/4 {
		t.Errorf("the busy site holds %d bytes, more than a quarter of %d", bySite[busy.ID], bound)
	}
	if bySite[quiet.ID] == 0 {
		t.Error("the busy site pushed the quiet site's page out of the disk cache")
	}
	if err := ws.DeleteProject(t.Context(), quiet.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, bySite := srv.disk.lru.stats(); bySite[quiet.ID] != 0 {
		t.Errorf("the deleted project still has %d bytes in the disk cache", bySite[quiet.ID])
	}
	total, _ := diskBytes(t, dir)
	if used, _ := srv.disk.lru.stats(); total > used {
		t.Errorf("%d bytes on disk, more than the %d the cache counts (files of the deleted project left?)", total, used)
	}
}

// An earlier run's files are not served and leave the disk, without
// holding up the start: the folder starts empty at once.
func TestDiskCacheStartsEmpty(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "site-cache")
	if err := os.MkdirAll(filepath.Join(dir, "ab"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ab", "left-over"), []byte("an earlier run's"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := New(discardLog(), openStore(t), blobtest.Folder(t))
	if err := srv.SetDiskCache(dir, 1<<20); err != nil {
		t.Fatal(err)
	}
	if total, n := diskBytes(t, dir); n != 0 {
		t.Errorf("the cache folder holds %d files (%d bytes) at the start, want none", n, total)
	}
	if info, err := os.Stat(dir); err != nil || info.Mode().Perm() != 0o700 {
		t.Errorf("the cache folder: %v, %v; want mode 0700", info, err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		old, _ := filepath.Glob(dir + ".old-*")
		if len(old) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the earlier run's files are still there: %v", old)
		}
	}
}
