package selfhost

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/bundle"
)

func TestCacheFetch(t *testing.T) {
	t.Parallel()
	o := newOrigin(t)
	c, parent := newTestCache(t)
	site := testSite("v1")
	data := makeBundle(t, site, "v1")
	e, err := c.Fetch(context.Background(), o.put("/b1.tar.gz", data), "")
	if err != nil {
		t.Fatal(err)
	}
	if e.Version != "v1" || e.Size != int64(len(data)) || len(e.Manifest.Files) != len(site) {
		t.Fatalf("entry %+v", e)
	}
	for name, f := range site {
		got, err := os.ReadFile(filepath.Join(e.Dir, filepath.FromSlash(name)))
		if err != nil || !bytes.Equal(got, f.Data) {
			t.Errorf("%s: %q %v", name, got, err)
		}
	}
	if got, ok := c.Lookup("v1"); !ok || got.Dir != e.Dir || got.SHA256 != e.SHA256 {
		t.Fatalf("Lookup: %+v %v", got, ok)
	}
	if _, ok := c.Lookup("v2"); ok {
		t.Fatal("Lookup found a version never fetched")
	}
	if got := tree(t, parent); !slices.Contains(got, "cache/bundles/v1/entry.json") || slices.ContainsFunc(got, func(p string) bool {
		return strings.HasPrefix(p, "cache/tmp/") && p != "cache/tmp/" || !strings.HasPrefix(p, "cache/")
	}) {
		t.Fatalf("files left: %v", got)
	}

	t.Log("the same bundle again keeps the entry; the pin is checked")
	if e2, err := c.Fetch(context.Background(), o.put("/b1.tar.gz", data), "v1"); err != nil || e2.Dir != e.Dir {
		t.Fatalf("refetch: %v", err)
	}
	_, err = c.Fetch(context.Background(), o.put("/b1.tar.gz", data), "v2")
	if err == nil || lectern.ErrorCode(err) != lectern.EINVALID || !strings.Contains(err.Error(), `the bundle holds version "v1", but staticExport.version pins "v2"`) {
		t.Fatalf("pin mismatch: %v", err)
	}

	t.Log("last served is remembered")
	if err := c.SetLastServed("v1"); err != nil || c.LastServed() != "v1" {
		t.Fatalf("last served: %v %q", err, c.LastServed())
	}
}

func TestCacheVersionNames(t *testing.T) {
	t.Parallel()
	o := newOrigin(t)
	c, parent := newTestCache(t)
	for _, v := range []string{"../../escape", "a/b", ".hidden", "abc123-exp_01J"} {
		e, err := c.Fetch(context.Background(), o.put("/b.tar.gz", makeBundle(t, testSite(v), v)), "")
		if err != nil {
			t.Fatalf("%q: %v", v, err)
		}
		if got, ok := c.Lookup(v); !ok || got.Dir != e.Dir || !strings.HasPrefix(e.Dir, filepath.Join(c.Dir(), "bundles")+string(filepath.Separator)) {
			t.Fatalf("%q: lookup %v, dir %s", v, ok, e.Dir)
		}
	}
	for _, p := range tree(t, parent) {
		if !strings.HasPrefix(p, "cache/") {
			t.Fatalf("written outside the cache: %s", p)
		}
	}
}

func TestCachePrune(t *testing.T) {
	t.Parallel()
	o := newOrigin(t)
	c, _ := newTestCache(t)
	c.Keep = 2
	for _, v := range []string{"v1", "v2", "v3"} {
		if _, err := c.Fetch(context.Background(), o.put("/b.tar.gz", makeBundle(t, testSite(v), v)), ""); err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond) // distinct CachedAt
	}
	if err := c.SetLastServed("v1"); err != nil {
		t.Fatal(err)
	}
	_, ok1 := c.Lookup("v1")
	_, ok2 := c.Lookup("v2")
	_, ok3 := c.Lookup("v3")
	if !ok1 || ok2 || !ok3 {
		t.Fatalf("after prune: v1 %v v2 %v v3 %v; want the served one and the newest", ok1, ok2, ok3)
	}
}

func TestFetchRetries(t *testing.T) {
	t.Parallel()
	o := newOrigin(t)
	c, _ := newTestCache(t)
	data := makeBundle(t, testSite("v1"), "v1")

	t.Log("5xx is retried")
	link := o.put("/flaky.tar.gz", data)
	o.fail("/flaky.tar.gz", 503, 502)
	before := o.hits.Load()
	if _, err := c.Fetch(context.Background(), link, ""); err != nil {
		t.Fatalf("after two 5xx: %v", err)
	}
	if n := o.hits.Load() - before; n != 3 {
		t.Fatalf("%d requests, want 3", n)
	}

	t.Log("403 and 404 are not")
	for _, status := range []int{403, 404} {
		p := fmt.Sprintf("/gone%d.tar.gz", status)
		link := o.put(p, data)
		o.fail(p, status, status, status)
		before := o.hits.Load()
		_, err := c.Fetch(context.Background(), link, "")
		var de *DownloadError
		if !errors.As(err, &de) || de.Status != status || de.Attempts != 1 || o.hits.Load()-before != 1 || lectern.ErrorCode(err) != lectern.EUNAVAILABLE {
			t.Fatalf("%d: %v (%d requests)", status, err, o.hits.Load()-before)
		}
		if strings.Contains(err.Error(), "s3cr3tsig") || strings.Contains(err.Error(), "n0nce") {
			t.Fatalf("error shows the query: %v", err)
		}
	}

	t.Log("5xx to the end")
	o.fail("/down.tar.gz", 500, 500, 500)
	_, err := c.Fetch(context.Background(), o.put("/down.tar.gz", data), "")
	if err == nil || !strings.Contains(err.Error(), "500 Internal Server Error (after 3 attempts)") {
		t.Fatalf("always 500: %v", err)
	}

	t.Log("an expired link says when it expired")
	expired := strings.Replace(o.put("/old.tar.gz", data), "expires=", "expires=1700000000&x=", 1)
	o.fail("/old.tar.gz", 403)
	_, err = c.Fetch(context.Background(), expired, "")
	if err == nil || !strings.Contains(err.Error(), "the bundle link expired at 2023-11-14T22:13:20Z (the server answered 403 Forbidden)") {
		t.Fatalf("expired: %v", err)
	}

	t.Log("a network error is retried and reported without the URL")
	dead := newOrigin(t)
	deadLink := dead.put("/b.tar.gz", data)
	dead.Close()
	_, err = c.Fetch(context.Background(), deadLink, "")
	var de *DownloadError
	if !errors.As(err, &de) || de.Status != 0 || de.Attempts != 3 || !strings.Contains(err.Error(), "connection refused") || strings.Contains(err.Error(), "s3cr3tsig") {
		t.Fatalf("dead host: %v", err)
	}

	t.Log("cancellation stops the retries")
	o.fail("/slow.tar.gz", 503, 503, 503)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Fetch(ctx, o.put("/slow.tar.gz", data), ""); !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled: %v", err)
	}
}

func TestFetchSizeLimit(t *testing.T) {
	t.Parallel()
	c, _ := newTestCache(t)
	big := bytes.Repeat([]byte{0x1f}, 2<<20)
	chunked := false
	srv := newOrigin(t)
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if chunked {
			w.Write(big[:1000])
			w.(http.Flusher).Flush()
		}
		w.Write(big)
	})
	for _, ch := range []bool{false, true} {
		chunked = ch
		_, err := c.Fetch(context.Background(), srv.URL+"/big.tar.gz", "")
		if err == nil || !strings.Contains(err.Error(), "over the limit") || lectern.ErrorCode(err) != lectern.EINVALID {
			t.Fatalf("chunked %v: %v", ch, err)
		}
	}
}

// Every bad bundle is refused with a clear error, and nothing stays
// behind: no entry, nothing in tmp, nothing outside the cache folder.
func TestFetchBadBundles(t *testing.T) {
	t.Parallel()
	valid := makeBundle(t, testSite("v1"), "v1")
	idx := regEntry("index.html", "<h1>hi</h1>")
	corrupt := bytes.Clone(valid)
	corrupt[len(corrupt)-8] ^= 0xff // the gzip trailer's CRC
	wrongSum := listed(idx)
	wrongSum.SHA256 = sum("something else")
	dev := func(typ byte, name string) tarEntry {
		return tarEntry{hdr: tar.Header{Typeflag: typ, Name: name, Mode: 0o644, Devmajor: 1, Devminor: 3}}
	}
	huge := tarEntry{hdr: tar.Header{Typeflag: tar.TypeReg, Name: "big.bin", Size: 10 << 30, Mode: 0o644}}
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"not gzip", []byte("<html>this is not a bundle</html>"), "not a gzip stream"},
		{"empty", nil, "not a gzip stream"},
		{"truncated", valid[:len(valid)*2/3], "truncated"},
		{"corrupt", corrupt, "gzip checksum mismatch"},
		{"wrong checksum", craft(t, []bundle.File{wrongSum}, idx), "sha256 mismatch"},
		{"dot-dot", craft(t, []bundle.File{listed(idx)}, idx, regEntry("../evil.html", "x")), "path escapes the archive root"},
		{"dot-dot inside", craft(t, []bundle.File{listed(idx)}, idx, regEntry("a/../../evil.html", "x")), "escapes"},
		{"absolute", craft(t, []bundle.File{listed(idx)}, idx, regEntry("/etc/evil", "x")), "absolute path"},
		{"symlink", craft(t, []bundle.File{listed(idx)}, idx, tarEntry{hdr: tar.Header{Typeflag: tar.TypeSymlink, Name: "link", Linkname: "/etc/passwd"}}), "symbolic link"},
		{"hard link", craft(t, []bundle.File{listed(idx)}, idx, tarEntry{hdr: tar.Header{Typeflag: tar.TypeLink, Name: "hard", Linkname: "index.html"}}), "hard link"},
		{"char device", craft(t, []bundle.File{listed(idx)}, idx, dev(tar.TypeChar, "null")), "device file"},
		{"block device", craft(t, []bundle.File{listed(idx)}, idx, dev(tar.TypeBlock, "sda")), "device file"},
		{"fifo", craft(t, []bundle.File{listed(idx)}, idx, dev(tar.TypeFifo, "pipe")), "named pipe"},
		{"duplicate", craft(t, []bundle.File{listed(idx)}, idx, idx), "duplicate entry"},
		{"10 GB claimed", craft(t, []bundle.File{{Path: "big.bin", Size: 5, SHA256: sum("12345")}}, huge), "over the limit"},
		{"10 GB listed", craft(t, []bundle.File{{Path: "big.bin", Size: 10 << 30, SHA256: sum("x")}}, huge), "over the limit"},
		{"listed but missing", craft(t, []bundle.File{listed(idx), listed(regEntry("z.html", "z"))}, idx), `"z.html": listed in the manifest but missing`},
		{"not listed", craft(t, []bundle.File{}, idx), "not listed in the manifest"},
		{"no manifest", craft(t, nil, idx), "manifest missing"},
	}
	o := newOrigin(t)
	c, parent := newTestCache(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.Fetch(context.Background(), o.put("/bad.tar.gz", tc.data), "")
			if err == nil {
				t.Fatal("accepted")
			}
			if !errors.Is(err, bundle.ErrInvalid) || lectern.ErrorCode(err) != lectern.EINVALID || !strings.Contains(err.Error(), tc.want) ||
				!strings.HasPrefix(err.Error(), "the bundle is refused: ") {
				t.Fatalf("error %q (code %s), want ErrInvalid mentioning %q", err, lectern.ErrorCode(err), tc.want)
			}
			if got := tree(t, parent); !slices.Equal(got, []string{"cache/", "cache/.lectern-selfhost-cache", "cache/bundles/", "cache/lock", "cache/tmp/"}) {
				t.Fatalf("left behind: %v", got)
			}
		})
	}
}

// A name two entries share on a case-insensitive file system, or a file
// already present, is refused by O_EXCL rather than overwritten.
func TestExtractRefusesExisting(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "index.html"), []byte("mine"), 0o644)
	_, err := Extract(context.Background(), bytes.NewReader(makeBundle(t, testSite("v1"), "v1")), dir, bundle.Limits{})
	if !errors.Is(err, bundle.ErrInvalid) || !strings.Contains(err.Error(), "clashes") {
		t.Fatalf("err %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "index.html")); string(b) != "mine" {
		t.Fatal("existing file overwritten")
	}
}

func TestCacheLock(t *testing.T) {
	t.Parallel()
	c, _ := newTestCache(t)
	_, err := OpenCache(c.Dir(), testFetcher(), bundle.Limits{})
	if err == nil || lectern.ErrorCode(err) != lectern.EINVALID || !strings.Contains(err.Error(), "is in use by another lectern selfhost") {
		t.Fatalf("second open: %v", err)
	}
	c.Close()
	c.Close()
	c2, err := OpenCache(c.Dir(), testFetcher(), bundle.Limits{})
	if err != nil {
		t.Fatalf("open after Close: %v", err)
	}
	c2.Close()
}

// TestCacheFolderOfItsOwn: a runtime clears parts of its cache folder, so
// OpenCache refuses a folder of other files, even one with tmp and sites
// folders of its own, and leaves it as it was; it takes a new or empty
// folder and marks it, and a cache made before the marker.
func TestCacheFolderOfItsOwn(t *testing.T) {
	t.Parallel()
	work := t.TempDir()
	os.MkdirAll(filepath.Join(work, "sites", "blog"), 0o755)
	os.MkdirAll(filepath.Join(work, "tmp"), 0o755)
	os.WriteFile(filepath.Join(work, "sites", "blog", "post.md"), []byte("post"), 0o644)
	os.WriteFile(filepath.Join(work, "tmp", "notes.txt"), []byte("notes"), 0o644)
	for _, dir := range []string{work, filepath.Join(work, "sites")} {
		if _, err := OpenCache(dir, testFetcher(), bundle.Limits{}); err == nil || lectern.ErrorCode(err) != lectern.EINVALID || !strings.Contains(err.Error(), "already holds other files") {
			t.Fatalf("%s: %v", dir, err)
		}
	}
	for _, f := range []string{"sites/blog/post.md", "tmp/notes.txt"} {
		if _, err := os.Stat(filepath.Join(work, f)); err != nil {
			t.Fatalf("%s removed: %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(work, "bundles")); err == nil {
		t.Fatal("a refused folder was written to")
	}

	// New, empty, marked, and a cache from before the marker.
	empty := t.TempDir()
	legacy := t.TempDir()
	os.MkdirAll(filepath.Join(legacy, "bundles"), 0o755)
	os.MkdirAll(filepath.Join(legacy, "tmp", "x"), 0o755)
	os.WriteFile(filepath.Join(legacy, "lock"), nil, 0o644)
	for _, dir := range []string{filepath.Join(t.TempDir(), "new"), empty, legacy} {
		for i := 0; i < 2; i++ {
			c, err := OpenCache(dir, testFetcher(), bundle.Limits{})
			if err != nil {
				t.Fatalf("%s, open %d: %v", dir, i, err)
			}
			c.Close()
		}
		if _, err := os.Stat(filepath.Join(dir, ".lectern-selfhost-cache")); err != nil {
			t.Fatalf("%s not marked", dir)
		}
	}
}
