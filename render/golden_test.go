package render

import (
	"flag"
	"path/filepath"
	"testing"

	"lectern.dev/lectern/internal/sitetest"
)

var updateGolden = flag.Bool("update", false, "rewrite the testdata/*.golden files with the current output")

// TestGolden compares rendered pages of smallSite with testdata/*.golden:
// page bodies, and one whole page to catch changes of the theme. Run
// `go test ./render -run TestGolden -update` after an intended change and
// review the diff.
func TestGolden(t *testing.T) {
	t.Parallel()
	_, live := build(t, smallSite, Options{BasePath: "/docs"})
	_, export := build(t, smallSite, Options{Export: true})
	cases := []struct {
		golden string
		out    *memOutput
		file   string
		whole  bool
	}{
		{"intro-live.golden", live, "guides/intro.html", false},
		{"components-live.golden", live, "guides/components.html", false},
		{"index-export.golden", export, "index.html", false},
		{"quickstart-export-page.golden", export, "quickstart.html", true},
	}
	for _, c := range cases {
		got := unhashed(c.out.get(t, c.file)) // own assets' names without their hash
		if !c.whole {
			got = sitetest.Content(t, got) + "\n"
		}
		path := filepath.Join("testdata", c.golden)
		sitetest.Golden(t, path, c.file, got, *updateGolden)
	}
}
