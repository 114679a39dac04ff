package sites

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/andybalholm/brotli"

	"lectern.dev/lectern/blobstore"
	"lectern.dev/lectern/internal/precompress"
)

// publishCompressed publishes files as the update job does
// (publishLive), to the site's project.
func publishCompressed(t *testing.T, s *site, files map[string]string) (string, *precompress.Manifest) {
	t.Helper()
	return publishManifest(t, s.st, s.bucket, s.p.ID, files, precompress.ManifestVersionShared)
}

// bigFiles are a deployment's files with text large enough to compress.
var bigFiles = map[string]string{
	"index.html":                  "<h1>home</h1>" + strings.Repeat("<p>Lectern serves docs.</p>\n", 100),
	"404.html":                    "<h1>not found</h1>" + strings.Repeat("<p>Nothing here.</p>\n", 100),
	"_lectern/style.css":          strings.Repeat("body{color:red}\n", 100), // an own asset of a deployment built before their names had a hash
	"_lectern/site.0123456789.js": strings.Repeat("console.log(1);\n", 100),
	"_lectern/search/c/abc123.js": "LECTERN_SEARCH(" + strings.Repeat(`"word",`, 200) + ");\n",
	"small.txt":                   "too small to compress",
	"images/a.png":                pngBytes + strings.Repeat("\x00", 1000),
}

func decode(t *testing.T, enc string, body []byte) string {
	t.Helper()
	var r io.Reader
	switch enc {
	case "br":
		r = brotli.NewReader(bytes.NewReader(body))
	case "gzip":
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			t.Fatalf("gzip: %v", err)
		}
		r = zr
	case "":
		return string(body)
	default:
		t.Fatalf("unexpected Content-Encoding %q", enc)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("decode %s: %v", enc, err)
	}
	return string(out)
}

func newCompressedSite(t *testing.T) (*site, *precompress.Manifest) {
	t.Helper()
	s := newSite(t)
	dep, m := publishCompressed(t, s, bigFiles)
	s.depID = dep
	return s, m
}

func TestCompressionNegotiated(t *testing.T) {
	t.Parallel()
	s, m := newCompressedSite(t)
	for _, tc := range []struct{ accept, want string }{
		{"", ""},
		{"gzip, deflate, br, zstd", "br"},
		{"gzip", "gzip"},
		{"br;q=0.5, gzip", "gzip"},
		{"br;q=1.0, gzip;q=0.8", "br"},
		{"br;q=0, gzip;q=0", ""},
		{"br;q=0", ""},
		{"identity", ""},
		{"*", "br"},
		{"*;q=0.1, br;q=0", "gzip"},
		{"deflate", ""},
	} {
		for _, path := range []string{"/", "/_lectern/style.css", "/_lectern/search/c/abc123.js"} {
			name := strings.TrimPrefix(path, "/")
			if name == "" {
				name = "index.html"
			}
			w := do(s.srv, "GET", "docs.example.com", path, "Accept-Encoding", tc.accept)
			enc := w.Header().Get("Content-Encoding")
			if w.Code != 200 || enc != tc.want {
				t.Errorf("GET %s Accept-Encoding %q = %d %q, want 200 %q", path, tc.accept, w.Code, enc, tc.want)
				continue
			}
			if got := decode(t, enc, w.Body.Bytes()); got != bigFiles[name] {
				t.Errorf("GET %s Accept-Encoding %q: decoded body differs from the file", path, tc.accept)
			}
			if got := w.Header().Get("Vary"); got != "Accept-Encoding" {
				t.Errorf("GET %s Vary = %q, want Accept-Encoding", path, got)
			}
			if got, want := w.Header().Get("Content-Length"), strconv.Itoa(w.Body.Len()); got != want {
				t.Errorf("GET %s Accept-Encoding %q Content-Length = %q, want %q", path, tc.accept, got, want)
			}
			etag := m.Files[name].ETag()
			if enc != "" {
				etag = precompress.ETag(etag, map[string]int{"br": precompress.Brotli, "gzip": precompress.Gzip}[enc])
				if w.Body.Len() >= len(bigFiles[name]) {
					t.Errorf("GET %s %s: %d bytes, not smaller than %d", path, enc, w.Body.Len(), len(bigFiles[name]))
				}
			}
			if got := w.Header().Get("ETag"); got != etag {
				t.Errorf("GET %s Accept-Encoding %q ETag = %q, want %q", path, tc.accept, got, etag)
			}
		}
	}
	// Files without copies: small text (still Vary), binary (no Vary).
	w := do(s.srv, "GET", "docs.example.com", "/small.txt", "Accept-Encoding", "br, gzip")
	if w.Code != 200 || w.Header().Get("Content-Encoding") != "" || w.Body.String() != bigFiles["small.txt"] || w.Header().Get("Vary") != "Accept-Encoding" {
		t.Errorf("GET /small.txt = %d %q Vary %q, want it as it is with Vary", w.Code, w.Header().Get("Content-Encoding"), w.Header().Get("Vary"))
	}
	w = do(s.srv, "GET", "docs.example.com", "/images/a.png", "Accept-Encoding", "br, gzip")
	if w.Code != 200 || w.Header().Get("Content-Encoding") != "" || w.Body.String() != bigFiles["images/a.png"] || w.Header().Get("Vary") != "" {
		t.Errorf("GET /images/a.png = %d %q Vary %q, want it as it is, no Vary", w.Code, w.Header().Get("Content-Encoding"), w.Header().Get("Vary"))
	}
}

func TestCompressedHEADAndRange(t *testing.T) {
	t.Parallel()
	s, _ := newCompressedSite(t)
	get := do(s.srv, "GET", "docs.example.com", "/", "Accept-Encoding", "br")
	head := do(s.srv, "HEAD", "docs.example.com", "/", "Accept-Encoding", "br")
	if head.Code != 200 || head.Body.Len() != 0 || head.Header().Get("Content-Encoding") != "br" {
		t.Fatalf("HEAD = %d, %d body bytes, %q; want 200, none, br", head.Code, head.Body.Len(), head.Header().Get("Content-Encoding"))
	}
	for _, k := range []string{"Content-Length", "ETag", "Last-Modified", "Vary", "Content-Type", "Cache-Control"} {
		if head.Header().Get(k) != get.Header().Get(k) || get.Header().Get(k) == "" {
			t.Errorf("HEAD %s = %q, GET's %q", k, head.Header().Get(k), get.Header().Get(k))
		}
	}
	// A range is of the file as it is, whatever the client accepts.
	w := do(s.srv, "GET", "docs.example.com", "/", "Accept-Encoding", "br, gzip", "Range", "bytes=4-12")
	if w.Code != http.StatusPartialContent || w.Body.String() != bigFiles["index.html"][4:13] || w.Header().Get("Content-Encoding") != "" {
		t.Errorf("Range = %d %q %q, want 206 %q as it is", w.Code, w.Body.String(), w.Header().Get("Content-Encoding"), bigFiles["index.html"][4:13])
	}
	if got := w.Header().Get("Vary"); got != "Accept-Encoding" {
		t.Errorf("Range Vary = %q", got)
	}
}

func TestPageAndAssetRevalidation(t *testing.T) {
	t.Parallel()
	s, m := newCompressedSite(t)
	lastMod := deployedAt.Format(http.TimeFormat)
	for _, tc := range []struct{ path, name, cache string }{
		{"/", "index.html", "no-cache"},
		{"/_lectern/style.css", "_lectern/style.css", "no-cache"},
		{"/_lectern/site.0123456789.js", "_lectern/site.0123456789.js", "public, max-age=31536000, immutable"},
		{"/_lectern/search/c/abc123.js", "_lectern/search/c/abc123.js", "public, max-age=31536000, immutable"},
	} {
		for _, accept := range []string{"", "gzip", "br"} {
			w := do(s.srv, "GET", "docs.example.com", tc.path, "Accept-Encoding", accept)
			etag := w.Header().Get("ETag")
			if !strings.HasPrefix(etag, strings.TrimSuffix(m.Files[tc.name].ETag(), `"`)) || strings.HasPrefix(etag, "W/") {
				t.Errorf("GET %s (%q) ETag = %q, want the strong content hash %s", tc.path, accept, etag, m.Files[tc.name].ETag())
			}
			if got := w.Header().Get("Cache-Control"); got != tc.cache {
				t.Errorf("GET %s Cache-Control = %q, want %q", tc.path, got, tc.cache)
			}
			if got := w.Header().Get("Last-Modified"); got != lastMod {
				t.Errorf("GET %s Last-Modified = %q, want the deployment's %q", tc.path, got, lastMod)
			}
			w = do(s.srv, "GET", "docs.example.com", tc.path, "Accept-Encoding", accept, "If-None-Match", etag)
			if w.Code != http.StatusNotModified || w.Body.Len() != 0 || w.Header().Get("ETag") != etag {
				t.Errorf("GET %s (%q) If-None-Match %s = %d, %d bytes, ETag %q; want 304", tc.path, accept, etag, w.Code, w.Body.Len(), w.Header().Get("ETag"))
			}
			w = do(s.srv, "GET", "docs.example.com", tc.path, "Accept-Encoding", accept, "If-Modified-Since", lastMod)
			if w.Code != http.StatusNotModified {
				t.Errorf("GET %s If-Modified-Since the deployment = %d, want 304", tc.path, w.Code)
			}
			w = do(s.srv, "GET", "docs.example.com", tc.path, "Accept-Encoding", accept, "If-Modified-Since", deployedAt.Add(-time.Hour).Format(http.TimeFormat))
			if w.Code != 200 {
				t.Errorf("GET %s If-Modified-Since before the deployment = %d, want 200", tc.path, w.Code)
			}
		}
	}
	// Another encoding's tag is another representation: not a 304.
	br := do(s.srv, "GET", "docs.example.com", "/", "Accept-Encoding", "br").Header().Get("ETag")
	if w := do(s.srv, "GET", "docs.example.com", "/", "Accept-Encoding", "gzip", "If-None-Match", br); w.Code != 200 || w.Header().Get("Content-Encoding") != "gzip" {
		t.Errorf("gzip request with br's ETag = %d %q, want 200 gzip", w.Code, w.Header().Get("Content-Encoding"))
	}
	// The content hash stays from one deployment to the next for what did
	// not change, and changes with the content.
	next := map[string]string{}
	for k, v := range bigFiles {
		next[k] = v
	}
	next["index.html"] += "<p>changed</p>"
	etagCSS := do(s.srv, "GET", "docs.example.com", "/_lectern/style.css").Header().Get("ETag")
	etagPage := do(s.srv, "GET", "docs.example.com", "/").Header().Get("ETag")
	publishCompressed(t, s, next)
	if w := do(s.srv, "GET", "docs.example.com", "/_lectern/style.css", "If-None-Match", etagCSS); w.Code != http.StatusNotModified {
		t.Errorf("unchanged asset after a deployment = %d, want 304", w.Code)
	}
	if w := do(s.srv, "GET", "docs.example.com", "/", "If-None-Match", etagPage); w.Code != 200 || w.Body.String() != next["index.html"] {
		t.Errorf("changed page after a deployment = %d, want 200 and the new page", w.Code)
	}
}

func TestManifestListsFiles(t *testing.T) {
	t.Parallel()
	s, _ := newCompressedSite(t)
	// A file the manifest does not list is not served, even if a blob is
	// there: the manifest is the deployment's list of files.
	if err := s.bucket.WriteAll(t.Context(), blobstore.SiteKey(s.p.ID, s.depID, "stray.html"), []byte("stray"), nil); err != nil {
		t.Fatal(err)
	}
	w := do(s.srv, "GET", "docs.example.com", "/stray", "Accept-Encoding", "br")
	if w.Code != 404 || decode(t, w.Header().Get("Content-Encoding"), w.Body.Bytes()) != bigFiles["404.html"] {
		t.Errorf("GET /stray = %d, want the 404 page", w.Code)
	}
	if w.Header().Get("Content-Encoding") != "" || w.Header().Get("Cache-Control") != "no-store" {
		t.Errorf("404 Content-Encoding %q Cache-Control %q, want none and no-store", w.Header().Get("Content-Encoding"), w.Header().Get("Cache-Control"))
	}
}

// A deployment published before manifests (the one newSite makes) is
// served as it is, with the ETag of its deployment and name.
func TestDeploymentWithoutCopiesServed(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	w := do(s.srv, "GET", "docs.example.com", "/guides/x", "Accept-Encoding", "br, gzip")
	if w.Code != 200 || w.Body.String() != siteFiles["guides/x.html"] || w.Header().Get("Content-Encoding") != "" {
		t.Fatalf("GET = %d %q %q, want the page as it is", w.Code, w.Body.String(), w.Header().Get("Content-Encoding"))
	}
	if w.Header().Get("Vary") != "Accept-Encoding" || w.Header().Get("Last-Modified") == "" {
		t.Errorf("Vary %q Last-Modified %q, want both", w.Header().Get("Vary"), w.Header().Get("Last-Modified"))
	}
	etag := w.Header().Get("ETag")
	if w := do(s.srv, "GET", "docs.example.com", "/guides/x", "If-None-Match", etag); w.Code != http.StatusNotModified {
		t.Errorf("If-None-Match = %d, want 304", w.Code)
	}
	if w := do(s.srv, "GET", "docs.example.com", "/images/a.png", "Range", "bytes=1-3"); w.Code != http.StatusPartialContent || w.Body.String() != pngBytes[1:4] {
		t.Errorf("Range = %d %q", w.Code, w.Body.String())
	}
}
