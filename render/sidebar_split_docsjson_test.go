package render

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"lectern.dev/lectern/render/output"
)

// docsJSONSite is a site with a docs.json: a tab "Guides" of three groups
// of 100 pages (g000...g002: one split section of 300 entries) and a tab
// "Reference" of one group of 20 pages (r/), the groups' pages as listed
// in nav (group name to page paths).
func docsJSONSite(nav map[string][]string, groupNames map[string]string) fstest.MapFS {
	fsys := fstest.MapFS{}
	group := func(g string) map[string]any {
		name := groupNames[g]
		if name == "" {
			name = "Group " + g
		}
		for _, p := range nav[g] {
			if _, ok := fsys[p+".mdx"]; !ok {
				fsys[p+".mdx"] = &fstest.MapFile{Data: []byte(fmt.Sprintf("---\ntitle: Page %s\n---\nText of %s.\n", filepath.Base(p), p))}
			}
		}
		return map[string]any{"group": name, "pages": nav[g]}
	}
	cfg := map[string]any{
		"name": "Docs", "theme": "mint", "colors": map[string]any{"primary": "#0D9373"},
		"navigation": map[string]any{"tabs": []any{
			map[string]any{"tab": "Guides", "groups": []any{group("g000"), group("g001"), group("g002")}},
			map[string]any{"tab": "Reference", "groups": []any{group("r")}},
		}},
	}
	data, _ := json.MarshalIndent(cfg, "", "  ")
	fsys["docs.json"] = &fstest.MapFile{Data: data}
	return fsys
}

// TestSidebarSplitRebuildDocsJSON is TestSidebarSplitRebuild for a site
// whose navigation is in docs.json: a page added to a group (docs.json
// changed with it) rewrites that group's pages, its tab's navigation file
// and the sitemap, not the other pages; every other change of docs.json
// rebuilds what it shows in, and each build is a clean build's, byte for
// byte (cacheBuildTo).
func TestSidebarSplitRebuildDocsJSON(t *testing.T) {
	t.Parallel()
	nav := map[string][]string{}
	for i := range 300 {
		g := fmt.Sprintf("g%03d", i/100)
		nav[g] = append(nav[g], fmt.Sprintf("%s/p%05d", g, i))
	}
	for i := range 20 {
		nav["r"] = append(nav["r"], fmt.Sprintf("r/q%02d", i))
	}
	names := map[string]string{}
	fsys := docsJSONSite(nav, names)
	dir, cacheDir := filepath.Join(t.TempDir(), "site"), t.TempDir()
	out := output.Dir{Dir: dir, Update: true}
	step := func(what string, wantReused int) {
		t.Helper()
		if res := cacheBuildTo(t, fsys, out, cacheDir, false); res.Reused != wantReused {
			t.Fatalf("%s: %d pages reused, want %d", what, res.Reused, wantReused)
		}
	}
	step("first build", 0)
	var navFile string
	for name := range identities(t, dir) {
		if strings.HasPrefix(name, "_lectern/nav/") {
			if navFile != "" {
				t.Fatalf("two navigation files: %s and %s (the Reference tab is too small to split)", navFile, name)
			}
			navFile = name
		}
	}
	if navFile == "" {
		t.Fatal("no navigation file: the Guides tab is not split")
	}
	group := func(g string, extra ...string) []string { return filesUnder(t, dir, g, extra...) }
	changed := func(what string, wantReused int, want []string) {
		t.Helper()
		before := identities(t, dir)
		fsys["docs.json"] = docsJSONSite(nav, names)["docs.json"]
		for name, f := range docsJSONSite(nav, names) {
			if fsys[name] == nil {
				fsys[name] = f
			}
		}
		step(what, wantReused)
		if want == nil {
			return
		}
		if got := notSearch(rewritten(before, identities(t, dir))); !sameSet(got, want) {
			t.Fatalf("%s wrote %v, want %v", what, got, want)
		}
	}
	changed("nothing changed", 320, []string{})

	// docs.json written again with other white space: nothing to do.
	before := identities(t, dir)
	var v any
	_ = json.Unmarshal(fsys["docs.json"].Data, &v)
	fsys["docs.json"].Data, _ = json.Marshal(v)
	step("docs.json reformatted", 320)
	if got := notSearch(rewritten(before, identities(t, dir))); len(got) != 0 {
		t.Fatalf("reformatting docs.json wrote %v", got)
	}

	// A page added in the middle of g001: its group, the tab's
	// navigation file and the sitemap.
	nav["g001"] = append(nav["g001"][:50:50], append([]string{"g001/p00149a"}, nav["g001"][50:]...)...)
	changed("page added to g001", 220, group("g001", navFile, "sitemap.xml", "g001/p00149a.html", "g001/p00149a.md", "llms.txt", "llms-full.txt"))

	// A page added at the top of the Reference tab: where its tab leads
	// changes on every page.
	nav["r"] = append([]string{"r/first"}, nav["r"]...)
	changed("page added at the top of a tab", 0, nil)

	// A page moved from g002 to the Reference tab.
	nav["g002"] = nav["g002"][1:]
	nav["r"] = append(nav["r"], "g002/p00200")
	changed("page moved to another tab", 200, nil) // g000 and g001 but its last page, whose next page changed

	// A group renamed: the structure of the navigation changed.
	names["g000"] = "Renamed"
	changed("group renamed", 0, nil)
}
