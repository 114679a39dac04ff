package render

import (
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"lectern.dev/lectern/internal/sitetest"
	"lectern.dev/lectern/render/output"
)

// TestRebuildNavigationMoves changes where docs.json lists pages without
// adding or removing a group or division, which leaves the rebuild cache's
// key as it was (rebuild_key.go): each rebuild, in place and with the
// cache, is a clean build's byte for byte (cacheBuildTo), and renders the
// pages it says.
func TestRebuildNavigationMoves(t *testing.T) {
	t.Parallel()
	pages := "-- a1.mdx --\n# A1\nSee [b1](/b1).\n-- a2.mdx --\n# A2\n-- b1.mdx --\n# B1\n-- c1.mdx --\n# C1\n"
	for _, c := range []struct {
		name, before, after string
		reused              int // pages kept by the rebuild; -1: any
	}{
		{"a page moved to the next group", // the same pages in the same order
			`{"groups":[{"group":"A","pages":["a1","a2"]},{"group":"B","pages":["b1","c1"]}]}`,
			`{"groups":[{"group":"A","pages":["a1"]},{"group":"B","pages":["a2","b1","c1"]}]}`, 0},
		{"a page moved out of a version",
			`{"versions":[{"version":"v1","groups":[{"group":"A","pages":["a1","a2"]}]},{"version":"v2","groups":[{"group":"B","pages":["a1","a2","b1","c1"]}]}]}`,
			`{"versions":[{"version":"v1","groups":[{"group":"A","pages":["a1"]}]},{"version":"v2","groups":[{"group":"B","pages":["a1","a2","b1","c1"]}]}]}`, -1},
		{"a page moved into a hidden group",
			`{"groups":[{"group":"A","pages":["a1","a2","b1"]},{"group":"H","hidden":true,"pages":["c1"]}]}`,
			`{"groups":[{"group":"A","pages":["a1","a2"]},{"group":"H","hidden":true,"pages":["b1","c1"]}]}`, -1},
		{"a page moved out of a hidden group",
			`{"groups":[{"group":"A","pages":["a1","a2"]},{"group":"H","hidden":true,"pages":["b1","c1"]}]}`,
			`{"groups":[{"group":"A","pages":["a1","a2","b1"]},{"group":"H","hidden":true,"pages":["c1"]}]}`, -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			fsys := sitetest.Archive(t, "-- docs.json --\n{\"name\":\"N\",\"navigation\":"+c.before+"}\n"+pages)
			dir, cacheDir := filepath.Join(t.TempDir(), "site"), t.TempDir()
			out := output.Dir{Dir: dir, Update: true}
			cacheBuildTo(t, fsys, out, cacheDir, false)
			fsys["docs.json"] = &fstest.MapFile{Data: []byte("{\"name\":\"N\",\"navigation\":" + c.after + "}\n")}
			if res := cacheBuildTo(t, fsys, out, cacheDir, false); c.reused >= 0 && res.Reused != c.reused {
				t.Errorf("%d pages kept, want %d", res.Reused, c.reused)
			}
			// And back.
			fsys["docs.json"] = &fstest.MapFile{Data: []byte("{\"name\":\"N\",\"navigation\":" + c.before + "}\n")}
			cacheBuildTo(t, fsys, out, cacheDir, false)
		})
	}
}

// TestRebuildGeneratedPages removes and adds back an API page that an
// entry of docs.json's navigation generates ("GET /b"), which no page file
// stands for, and which a page of another tab links to: that page is
// rendered again (its link is broken, then found), and each build is a
// clean build's, warnings included (cacheBuildTo).
func TestRebuildGeneratedPages(t *testing.T) {
	t.Parallel()
	docs := func(ops string) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte(`{"name":"G","navigation":{"tabs":[{"tab":"Guides","pages":["index","other"]},` +
			`{"tab":"API","groups":[{"group":"Ops","openapi":"spec.yaml","pages":[` + ops + `]}]}]}}`)}
	}
	fsys := fstest.MapFS{
		"docs.json": docs(`"GET /a","GET /b"`),
		"index.mdx": {Data: []byte("# Home\nSee [b](/api-reference/get-b).\n")},
		"other.mdx": {Data: []byte("# Other\nNo link.\n")},
		"spec.yaml": {Data: []byte("openapi: 3.0.0\ninfo: {title: T, version: \"1\"}\npaths:\n" +
			"  /a:\n    get: {summary: Get A, responses: {\"200\": {description: ok}}}\n" +
			"  /b:\n    get: {summary: Get B, responses: {\"200\": {description: ok}}}\n")},
	}
	dir, cacheDir := filepath.Join(t.TempDir(), "site"), t.TempDir()
	out := output.Dir{Dir: dir, Update: true}
	if res := cacheBuildTo(t, fsys, out, cacheDir, false); len(res.Warnings) != 0 {
		t.Fatalf("warnings of the first build: %v", res.Warnings)
	}
	fsys["docs.json"] = docs(`"GET /a"`)
	res := cacheBuildTo(t, fsys, out, cacheDir, false)
	if len(res.Warnings) == 0 {
		t.Error("the link to the page no longer generated is not reported")
	}
	fsys["docs.json"] = docs(`"GET /a","GET /b"`)
	if res := cacheBuildTo(t, fsys, out, cacheDir, false); len(res.Warnings) != 0 || res.Reused == 0 {
		t.Errorf("the page generated again: warnings %v, %d pages kept", res.Warnings, res.Reused)
	}
}

// TestRebuildKeepsMethodBadges changes a page of a split section whose
// other groups hold pages with "api" and "hideApiMarker" front matter:
// those pages are kept, loaded from the cache without their raw front
// matter, and the navigation file, drawn again from every page, still
// shows their method badges as a clean build does (cacheBuildTo).
func TestRebuildKeepsMethodBadges(t *testing.T) {
	t.Parallel()
	fsys := foldersSite(300, 100)
	fsys["g000/p00001.mdx"].Data = []byte("---\ntitle: Legacy\napi: \"PUT https://legacy.test/v0/things/{id}\"\n---\nOld.\n")
	fsys["g000/p00002.mdx"].Data = []byte("---\ntitle: Quiet\napi: \"GET https://legacy.test/v0/things\"\nhideApiMarker: true\n---\nNo badge.\n")
	dir, cacheDir := filepath.Join(t.TempDir(), "site"), t.TempDir()
	out := output.Dir{Dir: dir, Update: true}
	cacheBuildTo(t, fsys, out, cacheDir, false)
	nav := readOut(t, dir, "_lectern/nav/site.js")
	if !strings.Contains(nav, "lc-nav-method-put") || strings.Contains(nav, "lc-nav-method-get") {
		t.Fatalf("the navigation file does not show PUT and hide GET:\n%.2000s", nav)
	}
	fsys["g002/p00250.mdx"].Data = []byte("---\ntitle: Renamed\n---\nText.\n")
	if res := cacheBuildTo(t, fsys, out, cacheDir, false); res.Reused != 200 {
		t.Errorf("%d pages kept, want 200 (g000 and g001)", res.Reused)
	}
}
