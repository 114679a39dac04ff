package sites

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"gocloud.dev/blob"

	"lectern.dev/lectern"
	"lectern.dev/lectern/blobstore/blobtest"
	"lectern.dev/lectern/internal/precompress"
)

func newHot(max int64, share float64, fileMax int64) *hotCache {
	c := &hotCache{}
	c.setLimits(max, share, fileMax)
	return c
}

func hotHas(c *hotCache, key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.by[key] != nil
}

// The cache never holds more than its bound, counting each entry's
// overhead, and forgets the least recently used file first.
func TestHotCacheBoundAndLRU(t *testing.T) {
	t.Parallel()
	cost := int64(1000 + len("k0") + hotEntryOverhead)
	c := newHot(3*cost, 1, 1<<20)
	data := make([]byte, 1000)
	for i := range 3 {
		c.put("site", fmt.Sprintf("k%d", i), data)
	}
	if used, _ := c.stats(); used != 3*cost {
		t.Fatalf("used = %d after 3 files, want %d", used, 3*cost)
	}
	c.get("k0") // k1 is now the least recently used
	c.put("site", "k3", data)
	for key, want := range map[string]bool{"k0": true, "k1": false, "k2": true, "k3": true} {
		if hotHas(c, key) != want {
			t.Errorf("%s kept = %v, want %v", key, !want, want)
		}
	}
	for i := range 100 {
		c.put(fmt.Sprintf("s%d", i%7), fmt.Sprintf("x%02d", i), data[:100+i*7])
		if used, _ := c.stats(); used > 3*cost {
			t.Fatalf("used = %d > bound %d after %d puts", used, 3*cost, i+1)
		}
	}
	if got, ok := c.get("x99"); !ok || len(got) != 100+99*7 {
		t.Errorf("the last file put is not kept whole (%d bytes, %v)", len(got), ok)
	}
}

// One site holds at most its share: a busy site evicts its own files, and
// another site's stay.
func TestHotCacheSiteShare(t *testing.T) {
	t.Parallel()
	c := newHot(100_000, 0.25, 1<<20)
	data := make([]byte, 1000)
	for i := range 15 { // within its share
		c.put("quiet", fmt.Sprintf("quiet/%d", i), data)
	}
	for i := range 500 {
		c.put("busy", fmt.Sprintf("busy/%d", i), data)
	}
	_, by := c.stats()
	if by["busy"] > 25_000 || by["busy"] < 20_000 {
		t.Errorf("the busy site holds %d bytes, want up to its share of 25000 and near it", by["busy"])
	}
	for i := range 15 {
		if !hotHas(c, fmt.Sprintf("quiet/%d", i)) {
			t.Errorf("quiet/%d was evicted by another site's files", i)
		}
	}
	if !hotHas(c, "busy/499") || hotHas(c, "busy/0") {
		t.Error("the busy site should keep its most recent files, not its oldest")
	}
	c.dropSite("busy")
	if _, by := c.stats(); by["busy"] != 0 || hotHas(c, "busy/499") || !hotHas(c, "quiet/0") {
		t.Errorf("after dropSite(busy): %v, busy/499 kept %v", by, hotHas(c, "busy/499"))
	}
}

// A file over the size limit, or over a site's share, is not kept; a
// disabled cache keeps nothing.
func TestHotCacheSizeLimit(t *testing.T) {
	t.Parallel()
	c := newHot(1<<20, 1, 1000)
	c.put("s", "small", make([]byte, 1000))
	c.put("s", "big", make([]byte, 1001))
	if !hotHas(c, "small") || hotHas(c, "big") {
		t.Errorf("kept: small %v (want true), big %v (want false)", hotHas(c, "small"), hotHas(c, "big"))
	}
	c = newHot(0, 1, 1000)
	c.put("s", "small", make([]byte, 10))
	if hotHas(c, "small") {
		t.Error("a disabled cache kept a file")
	}
}

// newHotSite serves a deployment with a manifest through a bucket that
// records its reads.
func newHotSite(t *testing.T, files map[string]string) (*Server, *recordingBucket, *lectern.Project, string) {
	t.Helper()
	st, under := openStore(t), blobtest.Folder(t)
	p := newProject(t, st, "hot.example.com")
	dep := publishLive(t, st, under, p.ID, files)
	rec := &recordingBucket{b: under}
	return New(discardLog(), st, blob.NewBucket(rec)), rec, p, dep
}

func readsOf(keys []string, key string) int {
	n := 0
	for _, k := range keys {
		if k == key {
			n++
		}
	}
	return n
}

// Many requests for a file, at once and then one after the other, read it
// from the store once per encoding, and every answer is the same as the
// first: body, ETag, type, length, encoding.
func TestHotCacheServesFromMemory(t *testing.T) {
	t.Parallel()
	srv, rec, p, dep := newHotSite(t, bigFiles)
	key := testKey(t, srv, p.ID, dep, "index.html")
	brKey := precompress.ObjectVariantKey(key, precompress.Brotli)
	first := do(srv, "GET", "hot.example.com", "/", "Accept-Encoding", "identity")
	firstBr := do(srv, "GET", "hot.example.com", "/", "Accept-Encoding", "br")
	if first.Code != 200 || first.Body.String() != bigFiles["index.html"] || firstBr.Header().Get("Content-Encoding") != "br" {
		t.Fatalf("first GET / = %d (%q), br: %q", first.Code, first.Header().Get("Content-Encoding"), firstBr.Header().Get("Content-Encoding"))
	}
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Go(func() {
			enc, want := "identity", first
			if i%2 == 1 {
				enc, want = "br", firstBr
			}
			w := do(srv, "GET", "hot.example.com", "/", "Accept-Encoding", enc)
			if w.Code != 200 || w.Body.String() != want.Body.String() {
				t.Errorf("GET / (%s) = %d, %d bytes, want the first answer's %d", enc, w.Code, w.Body.Len(), want.Body.Len())
			}
			for _, h := range []string{"ETag", "Content-Type", "Content-Length", "Content-Encoding", "Last-Modified", "Cache-Control", "Vary", "Content-Security-Policy"} {
				if w.Header().Get(h) != want.Header().Get(h) {
					t.Errorf("GET / (%s) %s = %q, want the first answer's %q", enc, h, w.Header().Get(h), want.Header().Get(h))
				}
			}
		})
	}
	wg.Wait()
	keys := rec.read()
	if n, nbr := readsOf(keys, key), readsOf(keys, brKey); n != 1 || nbr != 1 {
		t.Errorf("%d reads of the page and %d of its brotli copy for 42 requests, want 1 each", n, nbr)
	}
	// Revalidation and ranges are answered from memory as from the store.
	if w := do(srv, "GET", "hot.example.com", "/", "If-None-Match", first.Header().Get("ETag"), "Accept-Encoding", "identity"); w.Code != http.StatusNotModified {
		t.Errorf("conditional GET = %d, want 304", w.Code)
	}
	if w := do(srv, "GET", "hot.example.com", "/", "Range", "bytes=4-9"); w.Code != http.StatusPartialContent || w.Body.String() != bigFiles["index.html"][4:10] {
		t.Errorf("Range GET = %d %q", w.Code, w.Body.String())
	}
	w := do(srv, "GET", "hot.example.com", "/", "Range", "bytes=0-3,10-12")
	if body := w.Body.String(); w.Code != http.StatusPartialContent || !strings.Contains(body, bigFiles["index.html"][0:4]) || !strings.Contains(body, bigFiles["index.html"][10:13]) {
		t.Errorf("multi-range GET = %d %q", w.Code, body)
	}
	if n := readsOf(rec.read(), key); n != 1 {
		t.Errorf("%d reads of the page after a 304 and ranges, want still 1", n)
	}
}

// A file over the size limit is read from the store on every request.
func TestHotCacheLargeFileNotKept(t *testing.T) {
	t.Parallel()
	srv, rec, p, dep := newHotSite(t, bigFiles)
	srv.SetHotCache(1<<20, 0, 100) // every file of bigFiles is larger
	for range 3 {
		if w := do(srv, "GET", "hot.example.com", "/images/a.png"); w.Code != 200 || w.Body.String() != bigFiles["images/a.png"] {
			t.Fatalf("GET /images/a.png = %d, %d bytes", w.Code, w.Body.Len())
		}
	}
	if n := readsOf(rec.read(), testKey(t, srv, p.ID, dep, "images/a.png")); n != 3 {
		t.Errorf("%d reads of a file over the limit for 3 requests, want 3", n)
	}
	if used, _ := srv.hot.stats(); used != 0 {
		t.Errorf("the cache holds %d bytes, want none", used)
	}
}
