package render

import (
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
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
		got := c.out.get(t, c.file)
		if !c.whole {
			got = contentOf(t, got) + "\n"
		}
		path := filepath.Join("testdata", c.golden)
		if *updateGolden {
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run with -update to create it)", err)
		}
		if got != string(want) {
			t.Errorf("%s differs from %s (run with -update if intended):\n%s", c.file, path, firstDiff(string(want), got))
		}
	}
}

// firstDiff shows the first differing line of two texts.
func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return "line " + strconv.Itoa(i+1) + ":\n  want: " + w + "\n  got:  " + g
		}
	}
	return "(no line differs)"
}
