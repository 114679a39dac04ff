package cli_test

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"lectern.dev/lectern/cli"
	"lectern.dev/lectern/render/features"
)

// TestBuildServe builds with --watch --serve under a base path and reads
// the site as a browser would: clean paths, assets, the site's 404 page
// for missing paths (also outside the base path, and for paths that try
// to leave the folder), and the last rebuild after a change. The command
// ends, without error, with its context.
func TestBuildServe(t *testing.T) {
	t.Parallel()
	src, out := t.TempDir(), filepath.Join(t.TempDir(), "site")
	os.MkdirAll(filepath.Join(src, "guides"), 0o755)
	os.WriteFile(filepath.Join(src, "docs.json"), []byte(`{"name": "Acme", "navigation": {"pages": ["index", "guides/start"]}}`), 0o644)
	os.WriteFile(filepath.Join(src, "index.mdx"), []byte("---\ntitle: Home\n---\nWelcome home.\n"), 0o644)
	os.WriteFile(filepath.Join(src, "guides", "start.mdx"), []byte("---\ntitle: Start\n---\nStart here.\n"), 0o644)
	os.WriteFile(filepath.Join(src, "widget.js"), []byte("window.__pwned = 1\n"), 0o644)
	// A link in the output that points out of it is not followed.
	secret := filepath.Join(t.TempDir(), "secret.txt")
	os.WriteFile(secret, []byte("not for the web"), 0o644)

	stdout, _, stop := startCLI(t, "build", "--watch", "--serve", "127.0.0.1:0", "--base-path", "docs", "--out", out, src)
	line := stdout.next(t, "Serving the site at ")
	site := strings.Fields(strings.TrimPrefix(line, "Serving the site at "))[0]
	if !strings.HasPrefix(site, "http://127.0.0.1:") || !strings.HasSuffix(site, "/docs/") {
		t.Fatalf("address: %s", line)
	}
	origin := strings.TrimSuffix(site, "/docs/")
	stdout.next(t, "Watching")
	os.Symlink(secret, filepath.Join(out, "secret.txt"))

	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(method, url string) (int, http.Header, string) {
		t.Helper()
		req, _ := http.NewRequest(method, url, nil)
		resp, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header, string(body)
	}
	// Lectern's stylesheet and scripts, named by their content: as the
	// home page links to them.
	_, _, home := get("GET", origin+"/docs/")
	ownAsset := func(base, ext string) string {
		t.Helper()
		m := regexp.MustCompile(`"(/docs/_lectern/` + base + `\.[0-9a-f]{10}\.` + ext + `)"`).FindStringSubmatch(home)
		if m == nil {
			t.Fatalf("the home page links to no %s.%s of its own:\n%s", base, ext, home)
		}
		return m[1]
	}
	styleURL, siteJS := ownAsset("style", "css"), ownAsset("site", "js")
	for _, c := range []struct {
		method, path string
		status       int
		want         string
	}{
		{"GET", "/docs/", 200, "Welcome home."},
		{"GET", "/docs/guides/start", 200, "Start here."},
		{"GET", "/docs/guides/start/", 200, "Start here."},
		{"GET", "/docs/guides/start.html", 200, "Start here."},
		{"HEAD", "/docs/guides/start", 200, ""},
		{"GET", styleURL, 200, "{"},
		{"GET", "/docs/guides/missing", 404, "<html"},
		{"GET", "/docsx/guides/start", 404, "<html"},
		{"GET", "/guides/start", 404, "<html"},
		{"GET", "/docs/../../../../etc/passwd", 404, "<html"},
		{"GET", "/docs/%2e%2e/%2e%2e/etc/passwd", 404, "<html"},
		{"GET", "/docs/secret.txt", 404, "<html"},
		{"POST", "/docs/", 405, ""},
	} {
		status, hdr, body := get(c.method, origin+c.path)
		if status != c.status || !strings.Contains(body, c.want) || strings.Contains(body, "not for the web") {
			t.Fatalf("%s %s: %d %q, want %d with %q", c.method, c.path, status, body[:min(len(body), 200)], c.status, c.want)
		}
		if status == 200 && hdr.Get("Cache-Control") != "no-store" {
			t.Fatalf("%s: Cache-Control %q", c.path, hdr.Get("Cache-Control"))
		}
	}
	if status, hdr, _ := get("GET", origin+"/"); status != http.StatusFound || hdr.Get("Location") != "/docs/" {
		t.Fatalf("/: %d to %q", status, hdr.Get("Location"))
	}
	if _, hdr, _ := get("GET", origin+"/docs/guides/start"); !strings.HasPrefix(hdr.Get("Content-Type"), "text/html") ||
		!strings.Contains(hdr.Get("Content-Security-Policy"), "script-src 'self';") {
		t.Fatalf("page type %q, policy %q", hdr.Get("Content-Type"), hdr.Get("Content-Security-Policy"))
	}
	// The repository's JavaScript is not served as script; other files
	// are sandboxed.
	if _, hdr, _ := get("GET", origin+"/docs/widget.js"); hdr.Get("Content-Type") != "text/plain; charset=utf-8" || hdr.Get("Content-Security-Policy") != features.FileCSP {
		t.Fatalf("widget.js: type %q, policy %q", hdr.Get("Content-Type"), hdr.Get("Content-Security-Policy"))
	}
	if _, hdr, _ := get("GET", origin+siteJS); hdr.Get("Content-Type") != "text/javascript; charset=utf-8" {
		t.Fatalf("site.js: type %q", hdr.Get("Content-Type"))
	}

	// A change is served once rebuilt.
	os.WriteFile(filepath.Join(src, "guides", "start.mdx"), []byte("---\ntitle: Start\n---\nStart over here.\n"), 0o644)
	stdout.next(t, "Rebuilt")
	if _, _, body := get("GET", origin+"/docs/guides/start"); !strings.Contains(body, "Start over here.") {
		t.Fatal("the rebuilt page is not served")
	}

	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := http.Get(site); err == nil {
		t.Fatal("still serving after the end")
	}
}

// TestBuildServeRefusesBusyAddress: an address in use fails the command
// before it builds anything.
func TestBuildServeRefusesBusyAddress(t *testing.T) {
	t.Parallel()
	src, out := t.TempDir(), filepath.Join(t.TempDir(), "site")
	os.WriteFile(filepath.Join(src, "docs.json"), []byte(`{"name": "Acme", "navigation": {"pages": ["index"]}}`), 0o644)
	os.WriteFile(filepath.Join(src, "index.mdx"), []byte("# Hello\n"), 0o644)
	// Serve once, on a free port, then try the same port again while
	// the first is still listening.
	stdout, _, stop := startCLI(t, "build", "--serve", "127.0.0.1:0", "--out", out, src)
	line := stdout.next(t, "Serving the site at ")
	addr := strings.TrimSuffix(strings.TrimPrefix(strings.Fields(strings.TrimPrefix(line, "Serving the site at "))[0], "http://"), "/")
	out2 := filepath.Join(t.TempDir(), "site")
	err := cli.Run(context.Background(), []string{"build", "--serve", addr, "--out", out2, src}, noEnv, strings.NewReader(""), io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "--serve") {
		t.Fatalf("busy address: %v", err)
	}
	if _, err := os.Stat(out2); err == nil {
		t.Fatal("built although it could not serve")
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
}
