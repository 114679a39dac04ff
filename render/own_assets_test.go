package render

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"lectern.dev/lectern/internal/sitetest"
	"lectern.dev/lectern/render/features"
	"lectern.dev/lectern/render/output"
)

// ownFiles returns the files written directly under _lectern/: Lectern's
// own assets.
func ownFiles(files map[string][]byte) map[string][]byte {
	own := map[string][]byte{}
	for name, data := range files {
		if rest, ok := strings.CutPrefix(name, features.ScriptDir); ok && !strings.Contains(rest, "/") {
			own[name] = data
		}
	}
	return own
}

// TestOwnAssetsHashed checks that every file of Lectern's own under
// _lectern/ is named by its content, and that every page links to those
// names, files of the output.
func TestOwnAssetsHashed(t *testing.T) {
	t.Parallel()
	// Wildcard redirects (redirects.js), a diagram (the mermaid library),
	// page actions (contextual.js), search, the assistant and analytics.
	site := `
-- docs.json --
{"name": "Own", "navigation": {"pages": ["index", "guides/flow"]},
 "redirects": [{"source": "/old/:slug*", "destination": "/guides/:slug*"}]}
-- index.mdx --
# Home
Go to [the flow](/guides/flow).
-- guides/flow.mdx --
# Flow
` + "```mermaid\ngraph TD; A-->B\n```\n"
	all := features.All()
	for _, export := range []bool{false, true} {
		opts := Options{Export: export, Features: &all}
		_, out := build(t, site, opts)
		own := ownFiles(out.files)
		for _, base := range []string{"_lectern/style.css", "_lectern/site.js", "_lectern/theme-init.js", "_lectern/contextual.js",
			"_lectern/search.js", "_lectern/assistant.js", "_lectern/analytics.js", "_lectern/redirects.js",
			"_lectern/mermaid.min.js", "_lectern/mermaid-init.js"} {
			if ownAssetName(out.files, base) == "" {
				t.Errorf("export=%v: %s is not written under a name with its hash", export, base)
			}
		}
		for name, data := range own {
			if !features.HashedAsset(name) || features.AssetName(features.AssetBase(name), data) != name {
				t.Errorf("export=%v: %s is not named by its content (%s)", export, name, features.AssetName(features.AssetBase(name), data))
			}
		}
		// Every link to them, from every page and 404.html, leads to one.
		linked := map[string]bool{}
		for _, l := range internalLinks(t, out.files, opts) {
			if rest, ok := strings.CutPrefix(l.target, features.ScriptDir); ok && !strings.Contains(rest, "/") {
				linked[l.target] = true
				if own[l.target] == nil {
					t.Errorf("export=%v: %s links to %s, not in the output", export, l.from, l.href)
				}
			}
		}
		for name := range own {
			if !linked[name] {
				t.Errorf("export=%v: %s is written but no page links to it", export, name)
			}
		}
		page := out.get(t, "guides/flow.html")
		style := regexp.MustCompile(`<link rel="stylesheet" href="(?:/|\.\./)(_lectern/style\.[0-9a-f]{10}\.css)">`).FindStringSubmatch(page)
		if style == nil || own[style[1]] == nil || !bytes.Contains(own[style[1]], []byte("--lc-primary")) {
			t.Errorf("export=%v: guides/flow.html does not link to the stylesheet by its hashed name: %v", export, style)
		}
	}
}

// ownAssetSite is a site of two pages whose primary colour is color.
func ownAssetSite(color string) fstest.MapFS {
	return fstest.MapFS{
		"docs.json": {Data: []byte(`{"name": "Own", "colors": {"primary": "` + color + `"}, "navigation": {"pages": ["index", "next"]}}`)},
		"index.mdx": {Data: []byte("# Home\n\nSee [next](/next).\n")},
		"next.mdx":  {Data: []byte("# Next\n\nBack [home](/).\n")},
	}
}

// TestOwnAssetsNameFollowsContent: another colour is another stylesheet,
// under another name that every page links to; the scripts, unchanged,
// keep theirs.
func TestOwnAssetsNameFollowsContent(t *testing.T) {
	t.Parallel()
	build := func(color string) *memOutput {
		out := newMemOutput()
		if _, err := Build(t.Context(), ownAssetSite(color), out, Options{}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	red, blue := build("#ff0000"), build("#0000ff")
	redCSS, blueCSS := ownAssetName(red.files, "_lectern/style.css"), ownAssetName(blue.files, "_lectern/style.css")
	if redCSS == "" || redCSS == blueCSS {
		t.Fatalf("stylesheets of two colours are named %q and %q", redCSS, blueCSS)
	}
	if !strings.Contains(blue.get(t, blueCSS), "--lc-primary: #0000ff") {
		t.Errorf("%s lacks its colour", blueCSS)
	}
	for _, page := range []string{"index.html", "next.html", "404.html"} {
		if p := blue.get(t, page); !strings.Contains(p, `href="/`+blueCSS+`"`) || strings.Contains(p, redCSS) {
			t.Errorf("%s does not link to its stylesheet %s", page, blueCSS)
		}
	}
	if a, b := ownAssetName(red.files, "_lectern/site.js"), ownAssetName(blue.files, "_lectern/site.js"); a == "" || a != b {
		t.Errorf("site.js named %q and %q: its content is the same", a, b)
	}
	// The same source builds the same bytes.
	again := build("#0000ff")
	if diff := outputDiff(t, again.files, blue.files); diff != "" {
		t.Errorf("two builds of the same source differ: %s", diff)
	}
}

// TestOwnAssetsRebuild updates an output in place with the rebuild cache:
// a new colour renders every page again (their stylesheet's name changed)
// and removes the previous stylesheet; a page's change then writes that
// page, not the stylesheet or the other pages.
func TestOwnAssetsRebuild(t *testing.T) {
	t.Parallel()
	for _, export := range []bool{false, true} {
		fsys := bigSite(1, 2, 5) // 10 pages
		fsys["docs.json"].Data = bytes.Replace(fsys["docs.json"].Data, []byte(`{"name":"Big",`), []byte(`{"name":"Big","colors":{"primary":"#ff0000"},`), 1)
		dir, cacheDir := filepath.Join(t.TempDir(), "site"), t.TempDir()
		out := output.Dir{Dir: dir, Update: true}
		cacheBuildTo(t, fsys, out, cacheDir, export)
		styleOf := func() string {
			t.Helper()
			name := ownAssetName(sitetest.ReadDir(t, dir), "_lectern/style.css")
			if name == "" {
				t.Fatalf("export=%v: no stylesheet, or several, in the output", export)
			}
			return name
		}
		red := styleOf()

		fsys["docs.json"].Data = bytes.Replace(fsys["docs.json"].Data, []byte("#ff0000"), []byte("#0000ff"), 1)
		if res := cacheBuildTo(t, fsys, out, cacheDir, export); res.Reused != 0 {
			t.Errorf("export=%v: %d pages reused after the stylesheet changed, want 0", export, res.Reused)
		}
		blue := styleOf()
		if blue == red {
			t.Fatalf("export=%v: the stylesheet kept its name %s with another colour", export, red)
		}
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(red))); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("export=%v: the previous stylesheet %s is still in the output (%v)", export, red, err)
		}

		before := identities(t, dir)
		fsys["t0/p002.mdx"].Data = append(fsys["t0/p002.mdx"].Data, "\nOne more line.\n"...)
		if res := cacheBuildTo(t, fsys, out, cacheDir, export); res.Reused != 9 {
			t.Errorf("export=%v: %d pages reused after one page changed, want 9", export, res.Reused)
		}
		for _, name := range rewritten(before, identities(t, dir)) {
			if strings.HasSuffix(name, ".html") && name != "t0/p002.html" || features.HashedAsset(name) {
				t.Errorf("export=%v: a one-page change wrote %s", export, name)
			}
		}
		if styleOf() != blue {
			t.Errorf("export=%v: a page's change renamed the stylesheet", export)
		}
	}
}
