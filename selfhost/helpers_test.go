package selfhost

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"lectern.dev/lectern/bundle"
)

// testSite returns a small exported site whose pages carry version v
// (twice, so that a response mixing versions shows), with every feature's
// markup marked as the export build marks it.
func testSite(v string) fstest.MapFS {
	page := func(title string) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte("<!doctype html><html><head><title>" + title + " " + v + "</title>" +
			"<link rel=\"stylesheet\" href=\"/_lectern/style.css\">\n" +
			"<!--lectern:search--><script src=\"/_lectern/search.js\" defer></script><!--/lectern:search-->\n" +
			"<!--lectern:analytics--><meta name=\"lectern-analytics-url\" content=\"\"><script src=\"/_lectern/analytics.js\" defer></script><!--/lectern:analytics-->\n" +
			"</head><body><!--lectern:search--><button class=\"lc-search-button\">Search</button><!--/lectern:search-->\n" +
			"<h1>" + title + "</h1><p>" + strings.Repeat("Some documentation text. ", 40) + "</p><p>version " + v + "</p></body></html>")}
	}
	return fstest.MapFS{
		"index.html":                page("Home"),
		"404.html":                  page("Page not found"),
		"guides/x.html":             page("Guide X"),
		"guides/index.html":         page("Guides"),
		"_lectern/style.css":        {Data: []byte("body { color: black } /* " + v + " */" + strings.Repeat("\n.lc-x { margin: 0 }", 100))},
		"_lectern/site.js":          {Data: []byte("console.log('" + v + "');")},
		"_lectern/search.js":        {Data: []byte("// search " + v)},
		"_lectern/analytics.js":     {Data: []byte("// analytics " + v)},
		"_lectern/search/meta.js":   {Data: []byte("LECTERN_SEARCH(\"\");")},
		"_lectern/app.3f2a9c1d.js":  {Data: []byte("// hashed asset " + v)},
		"_lectern/nav/-3f2a9c1d.js": {Data: []byte("window.lecternNav={};// " + v)},
		"images/logo.png":           {Data: []byte("\x89PNG\r\n\x1a\n" + v)},
		"sitemap.xml":               {Data: []byte("<urlset></urlset>")},
		"scripts/widget.js":         {Data: []byte("window.widget = '" + v + "';")},
		"downloads/report v1.2.pdf": {Data: []byte("%PDF-1.4 " + v)},
	}
}

// makeBundle writes site as a bundle of version v.
func makeBundle(t testing.TB, site fstest.MapFS, v string) []byte {
	t.Helper()
	var buf bytes.Buffer
	_, err := bundle.Write(context.Background(), &buf, site, bundle.Manifest{Version: v, JobID: "exp_test", Domain: "docs.acme.test",
		CreatedAt: time.Date(2025, 3, 14, 9, 0, 0, 0, time.UTC), PageCount: 4})
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// tarEntry is one hand-made tar entry.
type tarEntry struct {
	hdr  tar.Header
	body string
}

func regEntry(name, body string) tarEntry {
	return tarEntry{hdr: tar.Header{Typeflag: tar.TypeReg, Name: name, Size: int64(len(body)), Mode: 0o644}, body: body}
}

func sum(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// craft builds a tar.gz by hand: a manifest listing files (sorted; none
// if files is nil), then ents. It lets tests write archives that
// bundle.Write refuses to.
func craft(t testing.TB, files []bundle.File, ents ...tarEntry) []byte {
	t.Helper()
	if files != nil {
		slices.SortFunc(files, func(a, b bundle.File) int { return strings.Compare(a.Path, b.Path) })
		mj, err := json.Marshal(bundle.Manifest{Version: "v1", Domain: "x.test", Files: files})
		if err != nil {
			t.Fatal(err)
		}
		ents = append([]tarEntry{regEntry(bundle.ManifestName, string(mj))}, ents...)
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, e := range ents {
		if err := tw.WriteHeader(&e.hdr); err != nil {
			t.Fatalf("craft %q: %v", e.hdr.Name, err)
		}
		io.WriteString(tw, e.body)
	}
	tw.Flush() // no Close: some entries are deliberately short
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

// listed returns the manifest line of a regular entry.
func listed(e tarEntry) bundle.File {
	return bundle.File{Path: e.hdr.Name, Size: int64(len(e.body)), SHA256: sum(e.body)}
}

// origin is a bundle host on loopback: it serves the bundle set for a
// path, or the statuses queued for it first.
type origin struct {
	*httptest.Server
	mu       sync.Mutex
	bodies   map[string][]byte
	statuses map[string][]int
	hits     atomic.Int64
}

func newOrigin(t testing.TB) *origin {
	o := &origin{bodies: map[string][]byte{}, statuses: map[string][]int{}}
	o.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o.hits.Add(1)
		o.mu.Lock()
		body, ok := o.bodies[r.URL.Path]
		var status int
		if q := o.statuses[r.URL.Path]; len(q) > 0 {
			status, o.statuses[r.URL.Path] = q[0], q[1:]
		}
		o.mu.Unlock()
		switch {
		case status != 0:
			if status == http.StatusForbidden {
				w.Header().Set("Content-Type", "application/problem+json")
				w.WriteHeader(status)
				io.WriteString(w, `{"status":403,"detail":"The download link's signature is invalid."}`)
				return
			}
			w.WriteHeader(status)
		case !ok:
			http.NotFound(w, r)
		default:
			w.Header().Set("Content-Type", "application/gzip")
			w.Write(body)
		}
	}))
	t.Cleanup(o.Close)
	return o
}

// put serves body at p and returns its signed-looking link.
func (o *origin) put(p string, body []byte) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.bodies[p] = body
	return fmt.Sprintf("%s%s?expires=%d&nonce=n0nce&signature=s3cr3tsig", o.URL, p, time.Now().Add(time.Hour).Unix())
}

// fail makes the next requests for p answer the statuses given.
func (o *origin) fail(p string, statuses ...int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.statuses[p] = append(o.statuses[p], statuses...)
}

// testFetcher retries quickly.
func testFetcher() *Fetcher {
	return &Fetcher{Client: &http.Client{}, Attempts: 3, Backoff: 5 * time.Millisecond, MaxSize: 1 << 20}
}

// newTestCache opens a cache in its own folder inside a parent folder that
// holds nothing else, so tests can check nothing was written beside it.
func newTestCache(t testing.TB) (*Cache, string) {
	t.Helper()
	parent := t.TempDir()
	c, err := OpenCache(filepath.Join(parent, "cache"), testFetcher(), bundle.Limits{MaxTotal: 1 << 20, MaxFiles: 1000})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, parent
}

// tree lists every path below dir, relative, with "/" after folders.
func tree(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			rel += "/"
		}
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	return out
}
