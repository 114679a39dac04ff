package selfhost

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/andybalholm/brotli"
	"lectern.dev/lectern/render/features"
)

// serveSite fetches a bundle of version v into a new cache, builds its
// site with features f and serves it on loopback.
func serveSite(t *testing.T, v string, f features.Site) (*httptest.Server, *Handler, *Entry) {
	return serveSiteBudget(t, v, f, memBudget)
}

// serveSiteBudget is serveSite keeping at most budget bytes in memory (0:
// every file is served from the folder).
func serveSiteBudget(t *testing.T, v string, f features.Site, budget int64) (*httptest.Server, *Handler, *Entry) {
	t.Helper()
	o := newOrigin(t)
	c, _ := newTestCache(t)
	e, err := c.Fetch(context.Background(), o.put("/b.tar.gz", makeBundle(t, testSite(v), v)), "")
	if err != nil {
		t.Fatal(err)
	}
	s, err := buildSite(context.Background(), e, f, filepath.Join(c.Dir(), "site-"+v), budget)
	if err != nil {
		t.Fatal(err)
	}
	h := NewHandler(slog.New(slog.DiscardHandler))
	h.Swap(s)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv, h, e
}

// get sends a request with the given headers (name, value, ...) and
// returns the response with its body read (decoded by nobody).
func get(t *testing.T, method, url string, hdr ...string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	tr := &http.Transport{DisableCompression: true}
	defer tr.CloseIdleConnections()
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

func TestServeRoutes(t *testing.T) {
	t.Parallel()
	forBudgets(t, testServeRoutes)
}

func testServeRoutes(t *testing.T, budget int64) {
	srv, _, _ := serveSiteBudget(t, "v1", features.Site{Search: true, Playground: true}, budget)
	cases := []struct {
		path   string
		status int
		ctype  string
		body   string
	}{
		{"/", 200, "text/html; charset=utf-8", "<h1>Home</h1>"},
		{"/index.html", 200, "text/html; charset=utf-8", "<h1>Home</h1>"},
		{"/guides/x", 200, "text/html; charset=utf-8", "<h1>Guide X</h1>"},
		{"/guides/x/", 200, "text/html; charset=utf-8", "<h1>Guide X</h1>"},
		{"/guides/x.html", 200, "text/html; charset=utf-8", "<h1>Guide X</h1>"},
		{"/guides", 200, "text/html; charset=utf-8", "<h1>Guides</h1>"},
		{"/guides/", 200, "text/html; charset=utf-8", "<h1>Guides</h1>"},
		{"/_lectern/style.css", 200, "text/css; charset=utf-8", "body { color: black }"},
		{"/_lectern/site.js", 200, "text/javascript; charset=utf-8", "console.log"},
		{"/images/logo.png", 200, "image/png", "PNG"},
		{"/sitemap.xml", 200, "application/xml", "<urlset>"},
		// The repository's scripts are text: browsers do not run them.
		{"/scripts/widget.js", 200, "text/plain; charset=utf-8", "window.widget"},
		{"/downloads/report%20v1.2.pdf", 200, "application/pdf", "%PDF"},
		{"/guides/missing", 404, "text/html; charset=utf-8", "<h1>Page not found</h1>"},
		{"/guides/x.html/", 404, "text/html; charset=utf-8", "<h1>Page not found</h1>"},
		{"/lectern-manifest.json", 404, "text/html; charset=utf-8", "Page not found"},
		{"/../../etc/passwd", 404, "text/html; charset=utf-8", "Page not found"},
		{"/%2e%2e/entry.json", 404, "text/html; charset=utf-8", "Page not found"},
		{"/files/index.html", 404, "text/html; charset=utf-8", "Page not found"},
	}
	for _, tc := range cases {
		resp, body := get(t, "GET", srv.URL+tc.path)
		if resp.StatusCode != tc.status || resp.Header.Get("Content-Type") != tc.ctype || !strings.Contains(body, tc.body) {
			t.Errorf("GET %s: %d %q %.80q, want %d %q %q", tc.path, resp.StatusCode, resp.Header.Get("Content-Type"), body, tc.status, tc.ctype, tc.body)
		}
		// Pages have the site's policy; other files are sandboxed.
		wantCSP := "default-src 'self'"
		if !strings.HasPrefix(tc.ctype, "text/html") {
			wantCSP = features.FileCSP
		}
		if resp.Header.Get("X-Content-Type-Options") != "nosniff" || !strings.Contains(resp.Header.Get("Content-Security-Policy"), wantCSP) {
			t.Errorf("GET %s: security headers %v", tc.path, resp.Header)
		}
	}
	resp, body := get(t, "HEAD", srv.URL+"/nope")
	if resp.StatusCode != 404 || body != "" {
		t.Errorf("HEAD 404: %d %q", resp.StatusCode, body)
	}
	resp, _ = get(t, "POST", srv.URL+"/")
	if resp.StatusCode != 405 || resp.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("POST: %d %v", resp.StatusCode, resp.Header)
	}
}

func TestServeCachingAndConditional(t *testing.T) {
	t.Parallel()
	forBudgets(t, testServeCachingAndConditional)
}

func testServeCachingAndConditional(t *testing.T, budget int64) {
	srv, _, _ := serveSite(t, "v1", features.Site{Search: true})
	resp, _ := get(t, "GET", srv.URL+"/guides/x")
	etag := resp.Header.Get("ETag")
	if !strings.HasPrefix(etag, `"`) || resp.Header.Get("Cache-Control") != "no-cache" || resp.Header.Get("Last-Modified") != "" {
		t.Fatalf("page headers %v", resp.Header)
	}
	if resp, body := get(t, "GET", srv.URL+"/guides/x", "If-None-Match", etag); resp.StatusCode != 304 || body != "" {
		t.Fatalf("If-None-Match: %d", resp.StatusCode)
	}
	if resp, _ := get(t, "GET", srv.URL+"/guides/x", "If-None-Match", `"other"`); resp.StatusCode != 200 {
		t.Fatalf("other ETag: %d", resp.StatusCode)
	}
	if resp, body := get(t, "GET", srv.URL+"/_lectern/site.js", "Range", "bytes=0-6"); resp.StatusCode != 206 || body != "console" {
		t.Fatalf("range: %d %q", resp.StatusCode, body)
	}
	resp, _ = get(t, "GET", srv.URL+"/_lectern/app.3f2a9c1d.js")
	if resp.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" {
		t.Fatalf("hashed asset: %v", resp.Header)
	}
	resp, _ = get(t, "GET", srv.URL+"/_lectern/style.css")
	if resp.Header.Get("Cache-Control") != "no-cache" {
		t.Fatalf("unhashed asset: %v", resp.Header)
	}
	// A navigation file keeps its name when it changes, whatever it looks like.
	resp, _ = get(t, "GET", srv.URL+"/_lectern/nav/-3f2a9c1d.js")
	if resp.StatusCode != 200 || resp.Header.Get("Cache-Control") != "no-cache" {
		t.Fatalf("navigation file: %d %v", resp.StatusCode, resp.Header)
	}
}

func TestServeCompression(t *testing.T) {
	t.Parallel()
	forBudgets(t, testServeCompression)
}

func testServeCompression(t *testing.T, budget int64) {
	srv, _, _ := serveSite(t, "v1", features.Site{Search: true})
	_, plain := get(t, "GET", srv.URL+"/guides/x")
	decoders := map[string]func(io.Reader) io.Reader{
		"gzip": func(r io.Reader) io.Reader { zr, _ := gzip.NewReader(r); return zr },
		"br":   func(r io.Reader) io.Reader { return brotli.NewReader(r) },
	}
	etags := map[string]bool{}
	for _, ae := range []string{"gzip", "br", "gzip, deflate, br", "br;q=0, gzip"} {
		resp, body := get(t, "GET", srv.URL+"/guides/x", "Accept-Encoding", ae)
		enc := resp.Header.Get("Content-Encoding")
		want := "br"
		if !strings.Contains(ae, "br") || strings.Contains(ae, "br;q=0") {
			want = "gzip"
		}
		if enc != want || resp.Header.Get("Vary") != "Accept-Encoding" || len(body) >= len(plain) {
			t.Fatalf("Accept-Encoding %q: encoding %q, vary %q, %d bytes vs %d", ae, enc, resp.Header.Get("Vary"), len(body), len(plain))
		}
		dec, _ := io.ReadAll(decoders[enc](strings.NewReader(body)))
		if string(dec) != plain {
			t.Fatalf("%s body does not decode to the page", enc)
		}
		etags[resp.Header.Get("ETag")] = true
		if r2, _ := get(t, "GET", srv.URL+"/guides/x", "Accept-Encoding", ae, "If-None-Match", resp.Header.Get("ETag")); r2.StatusCode != 304 {
			t.Fatalf("conditional %s: %d", enc, r2.StatusCode)
		}
	}
	if len(etags) != 2 {
		t.Fatalf("ETags per encoding: %v", etags)
	}
	// Images are not compressed; tiny files neither.
	for _, p := range []string{"/images/logo.png", "/_lectern/site.js"} {
		if resp, _ := get(t, "GET", srv.URL+p, "Accept-Encoding", "gzip, br"); resp.Header.Get("Content-Encoding") != "" {
			t.Errorf("%s compressed", p)
		}
	}
}

// forBudgets runs test with files served from memory and from the folder.
func forBudgets(t *testing.T, test func(*testing.T, int64)) {
	for name, budget := range map[string]int64{"memory": memBudget, "disk": 0} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			test(t, budget)
		})
	}
}

func TestServeFeatures(t *testing.T) {
	t.Parallel()
	on, _, _ := serveSite(t, "v1", features.Site{Search: true, Analytics: true, AnalyticsURL: "https://stats.acme.internal/hit"})
	off, _, _ := serveSite(t, "v1", features.Site{})

	_, page := get(t, "GET", on.URL+"/guides/x")
	if !strings.Contains(page, `class="lc-search-button"`) || !strings.Contains(page, "/_lectern/search.js") ||
		!strings.Contains(page, `content="https://stats.acme.internal/hit"`) || strings.Contains(page, "<!--lectern:") {
		t.Fatalf("features on:\n%s", page)
	}
	resp, _ := get(t, "GET", on.URL+"/guides/x")
	if resp.StatusCode != 200 || !strings.Contains(resp.Header.Get("Content-Security-Policy"), "connect-src 'self' https://stats.acme.internal") {
		t.Fatalf("page %d, CSP %q", resp.StatusCode, resp.Header.Get("Content-Security-Policy"))
	}
	if resp, _ := get(t, "GET", on.URL+"/_lectern/search.js"); resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/javascript; charset=utf-8" {
		t.Fatalf("search.js %d, %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}

	_, page = get(t, "GET", off.URL+"/guides/x")
	for _, trace := range []string{"search", "analytics", "lectern:"} {
		if strings.Contains(page, trace) {
			t.Fatalf("feature off leaves %q in the page:\n%s", trace, page)
		}
	}
	for _, p := range []string{"/_lectern/search.js", "/_lectern/search/meta.js", "/_lectern/analytics.js"} {
		if resp, _ := get(t, "GET", off.URL+p); resp.StatusCode != 404 {
			t.Errorf("%s served with the feature off: %d", p, resp.StatusCode)
		}
	}
	resp, _ = get(t, "GET", off.URL+"/")
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "connect-src 'self';") {
		t.Fatalf("CSP with features off: %q", csp)
	}
}

func TestServeHealth(t *testing.T) {
	t.Parallel()
	h := NewHandler(slog.New(slog.DiscardHandler))
	srv := httptest.NewServer(h)
	defer srv.Close()
	if resp, _ := get(t, "GET", srv.URL+"/readyz"); resp.StatusCode != 503 {
		t.Fatalf("readyz before a site: %d", resp.StatusCode)
	}
	if resp, _ := get(t, "GET", srv.URL+"/"); resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("page before a site: %d", resp.StatusCode)
	}
	if resp, body := get(t, "GET", srv.URL+"/healthz"); resp.StatusCode != 200 || body != "ok\n" {
		t.Fatalf("healthz: %d %q", resp.StatusCode, body)
	}

	srv2, _, e := serveSite(t, "v7", features.Site{Search: true})
	resp, body := get(t, "GET", srv2.URL+"/readyz")
	var r struct {
		Status, Version string
		BundleCreatedAt string
		Features        map[string]bool
	}
	if err := json.Unmarshal([]byte(body), &r); err != nil || resp.StatusCode != 200 || r.Status != "ready" || r.Version != "v7" ||
		r.BundleCreatedAt != e.Manifest.CreatedAt.Format("2006-01-02T15:04:05Z") || !r.Features["search"] || r.Features["assistant"] {
		t.Fatalf("readyz: %d %s (%v)", resp.StatusCode, body, err)
	}
}

// A retired site's folder goes once its last request ends, not before.
func TestSiteRetire(t *testing.T) {
	t.Parallel()
	_, h, _ := serveSite(t, "v1", features.Site{})
	s := h.acquire()
	h.Swap(nil)
	if _, err := os.Stat(s.dir); err != nil {
		t.Fatalf("folder removed during a request: %v", err)
	}
	s.release()
	if _, err := os.Stat(s.dir); !os.IsNotExist(err) {
		t.Fatalf("folder kept after the last request: %v", err)
	}
}

// Files Transform leaves alone share the cache's inode rather than being
// copied; transformed pages are written.
func TestBuildSiteLinks(t *testing.T) {
	t.Parallel()
	_, h, e := serveSite(t, "v1", features.Site{})
	s := h.Current()
	same := func(name string) bool {
		a, _ := os.Stat(filepath.Join(e.Dir, name))
		b, _ := os.Stat(filepath.Join(s.dir, "files", name))
		return os.SameFile(a, b)
	}
	if !same("images/logo.png") || same("index.html") {
		t.Fatalf("logo linked %v, index linked %v", same("images/logo.png"), same("index.html"))
	}
	cached, _ := os.ReadFile(filepath.Join(e.Dir, "index.html"))
	if !bytes.Contains(cached, []byte("<!--lectern:search-->")) {
		t.Fatal("the cached bundle was modified")
	}
}

// A large media file is linked, not read, and served from the folder.
func TestBuildSiteLargeFile(t *testing.T) {
	t.Parallel()
	site := testSite("v1")
	big := bytes.Repeat([]byte("0123456789abcdef"), largeFile/16+1)
	site["media/intro.mp4"] = &fstest.MapFile{Data: big}
	o := newOrigin(t)
	c, _ := newTestCache(t)
	c.limits.MaxTotal, c.fetcher.MaxSize = 64<<20, 64<<20
	e, err := c.Fetch(context.Background(), o.put("/b.tar.gz", makeBundle(t, site, "v1")), "")
	if err != nil {
		t.Fatal(err)
	}
	s, err := BuildSite(context.Background(), e, features.Site{}, filepath.Join(c.Dir(), "site"))
	if err != nil {
		t.Fatal(err)
	}
	if f := s.index["media/intro.mp4"]; f == nil || f.data != nil || f.ctype[0] != "video/mp4" || f.size != int64(len(big)) {
		t.Fatalf("index entry %+v", f)
	}
	h := NewHandler(slog.New(slog.DiscardHandler))
	h.Swap(s)
	srv := httptest.NewServer(h)
	defer srv.Close()
	resp, body := get(t, "GET", srv.URL+"/media/intro.mp4", "Range", "bytes=16-31")
	if resp.StatusCode != 206 || body != "0123456789abcdef" {
		t.Fatalf("range of the large file: %d %q", resp.StatusCode, body)
	}
	if resp, body := get(t, "GET", srv.URL+"/media/intro.mp4"); resp.StatusCode != 200 || len(body) != len(big) {
		t.Fatalf("large file: %d, %d bytes", resp.StatusCode, len(body))
	}
}
