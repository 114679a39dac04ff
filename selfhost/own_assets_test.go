package selfhost

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"testing"

	"lectern.dev/lectern/render/features"
)

// TestOwnAssetsOfExport serves an exported site: the stylesheet and
// scripts of Lectern's own that its pages load carry their content's hash
// and are sent immutable, for a year, but for those this configuration
// changed (the stylesheet, the assistant's and the analytics' styles taken
// out: another configuration serves other bytes under the same name),
// revalidated as the pages and the search index's meta file are; the
// script of a feature that is off is not served, whatever its name.
func TestOwnAssetsOfExport(t *testing.T) {
	t.Parallel()
	site := exportedSite(t)
	assistantJS := ""
	for name := range site {
		if features.AssetBase(name) == features.AssistantJSFile && features.HashedAsset(name) {
			assistantJS = name
		}
	}
	if assistantJS == "" {
		t.Fatal("the export has no assistant.js under a name with its hash")
	}
	o := newOrigin(t)
	c, _ := newTestCache(t)
	e, err := c.Fetch(context.Background(), o.put("/b.tar.gz", makeBundle(t, site, "v1")), "")
	if err != nil {
		t.Fatal(err)
	}
	s, err := buildSite(context.Background(), e, features.Site{Search: true}, filepath.Join(c.Dir(), "site"), memBudget)
	if err != nil {
		t.Fatal(err)
	}
	h := NewHandler(slog.New(slog.DiscardHandler))
	h.Swap(s)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)

	resp, page := get(t, "GET", srv.URL+"/deploy")
	if resp.StatusCode != 200 || resp.Header.Get("Cache-Control") != "no-cache" {
		t.Fatalf("GET /deploy = %d, Cache-Control %q; want 200, no-cache", resp.StatusCode, resp.Header.Get("Cache-Control"))
	}
	refs := regexp.MustCompile(`(?:href|src)="(_lectern/[^"/]+\.(?:css|js))"`).FindAllStringSubmatch(page, -1)
	if len(refs) < 4 { // style.css, theme-init.js, site.js, search.js
		t.Fatalf("the page loads %q, not Lectern's stylesheet and scripts", refs)
	}
	for _, m := range refs {
		if !features.HashedAsset(m[1]) {
			t.Errorf("the page loads %s, whose name has no hash", m[1])
		}
		want := "public, max-age=31536000, immutable"
		if features.AssetBase(m[1]) == "_lectern/style.css" {
			want = "no-cache" // features off taken out of it
		}
		if r, _ := get(t, "GET", srv.URL+"/"+m[1]); r.StatusCode != 200 || r.Header.Get("Cache-Control") != want {
			t.Errorf("GET /%s = %d, Cache-Control %q; want 200, %s", m[1], r.StatusCode, r.Header.Get("Cache-Control"), want)
		}
		if m[1] == assistantJS {
			t.Errorf("the page loads the assistant's script with the assistant off")
		}
	}
	if r, _ := get(t, "GET", srv.URL+"/"+assistantJS); r.StatusCode != 404 {
		t.Errorf("GET /%s with the assistant off = %d, want 404", assistantJS, r.StatusCode)
	}
	if r, _ := get(t, "GET", srv.URL+"/_lectern/search/meta.js"); r.StatusCode != 200 || r.Header.Get("Cache-Control") != "no-cache" {
		t.Errorf("GET the search index's meta file = %d, Cache-Control %q; want 200, no-cache", r.StatusCode, r.Header.Get("Cache-Control"))
	}
}
