package sites

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"lectern.dev/lectern/internal/sitebuild"
	"lectern.dev/lectern/render"
	"lectern.dev/lectern/render/features"
)

// ownAssetRefRE finds the stylesheet and scripts of Lectern's own that a
// built page loads.
var ownAssetRefRE = regexp.MustCompile(`(?:href|src)="/(_lectern/[^"/]+\.(?:css|js))"`)

// TestOwnAssetsImmutable serves a site as the renderer builds it: the page
// links to Lectern's stylesheet and scripts under names with their
// content's hash, which are sent immutable, for a year, while the page is
// revalidated on every use.
func TestOwnAssetsImmutable(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	files := sitebuild.Files(t, sitebuild.Small, render.Options{})
	dep, _ := publishCompressed(t, s, files)
	s.depID = dep

	w := do(s.srv, "GET", "docs.example.com", "/")
	if w.Code != 200 || w.Header().Get("Cache-Control") != "no-cache" || w.Header().Get("ETag") == "" {
		t.Fatalf("GET / = %d, Cache-Control %q, ETag %q; want 200, no-cache and an ETag", w.Code, w.Header().Get("Cache-Control"), w.Header().Get("ETag"))
	}
	refs := ownAssetRefRE.FindAllStringSubmatch(w.Body.String(), -1)
	style := ""
	for _, m := range refs {
		name := m[1]
		if features.AssetBase(name) == "_lectern/style.css" {
			style = name
		}
		if !features.HashedAsset(name) {
			t.Errorf("the page loads %s, whose name has no hash", name)
			continue
		}
		a := do(s.srv, "GET", "docs.example.com", "/"+name)
		if a.Code != 200 || a.Body.String() != files[name] {
			t.Errorf("GET /%s = %d, want 200 and the file", name, a.Code)
		}
		if got := a.Header().Get("Cache-Control"); got != "public, max-age=31536000, immutable" {
			t.Errorf("GET /%s Cache-Control = %q, want immutable for a year", name, got)
		}
	}
	if style == "" || len(refs) < 3 { // style.css, theme-init.js, site.js at least
		t.Fatalf("the page loads %q, not Lectern's stylesheet and scripts", refs)
	}
	// The page's Markdown, the search index's meta file and the sitemap
	// keep their names: revalidated, or kept a short time.
	for path, want := range map[string]string{"/index.md": "no-cache", "/_lectern/search/meta.js": "no-cache", "/deploy": "no-cache"} {
		if got := do(s.srv, "GET", "docs.example.com", path).Header().Get("Cache-Control"); got != want {
			t.Errorf("GET %s Cache-Control = %q, want %q", path, got, want)
		}
	}
}

// TestManifestPlaygroundHashed: a deployment whose playground.js has its
// hash in its name has "Try it" forms, whose API servers its pages'
// policy lets them reach.
func TestManifestPlaygroundHashed(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	page := `<select class="lc-pg-input" data-pg-server><option value="https://api.example.com/v1">x</option></select>`
	dep, _ := publishCompressed(t, s, map[string]string{"index.html": "<p>home</p>", "api.html": page,
		features.AssetName(features.PlaygroundJSFile, []byte("// pg")): "// pg"})
	s.depID = dep
	if csp := do(s.srv, "GET", "docs.example.com", "/api").Header().Get("Content-Security-Policy"); !strings.Contains(csp, "connect-src 'self' https://api.example.com") {
		t.Errorf("GET /api: policy %q does not let the Try it form reach its server", csp)
	}
	// Without the script, the same markup opens nothing.
	q := newSite(t)
	dep, _ = publishCompressed(t, q, map[string]string{"index.html": "<p>home</p>", "api.html": page, "_lectern/site.0123456789.js": "// site"})
	q.depID = dep
	if csp := do(q.srv, "GET", "docs.example.com", "/api").Header().Get("Content-Security-Policy"); csp != PageCSP(nil) {
		t.Errorf("GET /api of a deployment without playground.js: policy %q, want the default", csp)
	}
	if got := do(q.srv, "GET", "docs.example.com", "/_lectern/site.0123456789.js"); got.Code != http.StatusOK {
		t.Errorf("GET the hashed site.js = %d", got.Code)
	}
}

// smallWithColor is sitebuild.Small with another primary colour.
func smallWithColor(color string) fstest.MapFS {
	fs := fstest.MapFS{}
	for k, v := range sitebuild.Small {
		fs[k] = v
	}
	fs["docs.json"] = &fstest.MapFile{Data: []byte(`{"name":"Acme","colors":{"primary":"` + color + `"},"navigation":{"groups":[{"group":"Guides","pages":["index","deploy"]}]}}`)}
	return fs
}

// TestOwnAssetsNewNameOnChange: a deployment whose stylesheet changed
// links to another name, so that browsers holding the old one for a year
// load the new one.
func TestOwnAssetsNewNameOnChange(t *testing.T) {
	t.Parallel()
	styleOf := func(files map[string]string) string {
		for _, m := range ownAssetRefRE.FindAllStringSubmatch(files["index.html"], -1) {
			if features.AssetBase(m[1]) == "_lectern/style.css" {
				return m[1]
			}
		}
		t.Fatal("index.html links to no stylesheet of its own")
		return ""
	}
	s := newSite(t)
	red := sitebuild.Files(t, smallWithColor("#ff0000"), render.Options{})
	dep, _ := publishCompressed(t, s, red)
	s.depID = dep
	old := styleOf(red)
	blue := sitebuild.Files(t, smallWithColor("#0000ff"), render.Options{})
	publishCompressed(t, s, blue)
	name := styleOf(blue)
	if name == old {
		t.Fatalf("the stylesheet of another colour has the same name %s", name)
	}
	w := do(s.srv, "GET", "docs.example.com", "/"+name)
	if w.Code != 200 || !strings.Contains(w.Body.String(), "--lc-primary: #0000ff") || w.Header().Get("Cache-Control") != "public, max-age=31536000, immutable" {
		t.Errorf("GET /%s = %d, Cache-Control %q; want 200, immutable, the new colour", name, w.Code, w.Header().Get("Cache-Control"))
	}
	if w := do(s.srv, "GET", "docs.example.com", "/"+old); w.Code != http.StatusNotFound {
		t.Errorf("GET the previous deployment's /%s = %d, want 404", old, w.Code)
	}
}
