package layout

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"lectern.dev/lectern/render/markdown"
)

func TestLabelOn(t *testing.T) {
	t.Parallel()
	for c, want := range map[string]string{
		"#ffffff": labelDark, "#f5f5f5": labelDark, "#fde047": labelDark, "#a5b4fc": labelDark, "#16A34A": labelDark,
		"#26BD6C": labelDark, "#4f46e5": labelLight, "#312e81": labelLight, "#166E3F": labelLight, "#000": labelLight,
		"#2563eb": labelLight, "white": labelDark, "rgb(250, 250, 250)": labelDark, "rgba(20,20,20,.5)": labelLight,
		"hsl(60 100% 90%)": labelDark, "hsl(240, 60%, 30%)": labelLight, "rebeccapurple": labelLight, "#12": labelLight,
	} {
		if got := labelOn(c); got != want {
			t.Errorf("labelOn(%q) = %s, want %s", c, got, want)
		}
	}
	// The label chosen meets WCAG's 4.5:1 where either label can.
	for _, c := range []string{"#6b7280", "#0d9373", "#e11d48", "#f59e0b"} {
		l, _ := relativeLuminance(c)
		other, _ := relativeLuminance(labelOn(c))
		if r := contrastRatio(l, other); r < 4.5 {
			t.Errorf("labelOn(%q): contrast %.2f", c, r)
		}
	}
}

// TestLayoutIDsReserved checks that headings never take an id of the
// layout (markdown.LayoutIDs), which would make two elements of one id.
func TestLayoutIDsReserved(t *testing.T) {
	t.Parallel()
	tmpl := string(Asset("theme/layout.html"))
	for _, m := range regexp.MustCompile(` id="([a-z-]+)"`).FindAllStringSubmatch(tmpl, -1) {
		if !slices.Contains(markdown.LayoutIDs, m[1]) {
			t.Errorf("layout.html has id %q, which markdown.LayoutIDs lacks", m[1])
		}
	}
	ids := markdown.NewHeadingIDs()
	if got := string(ids.Generate([]byte("Content"), 0)); got != "content-1" {
		t.Errorf("a heading Content has id %q", got)
	}
}

func TestCSSString(t *testing.T) {
	t.Parallel()
	if got := cssString("a\"b\\c\nd.woff2"); got != `"a\"b\\c\a d.woff2"` || strings.Contains(got, "\n") {
		t.Errorf("cssString = %s", got)
	}
}

func TestReadableMix(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ c, bg, toward string }{
		{"#f5f5f5", themeBgLight, "#000000"}, {"#fde047", themeBgLight, "#000000"}, {"#312e81", themeBgDark, "#ffffff"},
		{"#123456", themeBgDark, "#ffffff"}, {"#4f46e5", themeBgLight, "#000000"},
	} {
		got, _, ok := readableMix(c.c, c.bg, c.toward)
		l1, _ := relativeLuminance(got)
		l2, _ := relativeLuminance(c.bg)
		if !ok || contrastRatio(l1, l2) < minAccentContrast {
			t.Errorf("readableMix(%s on %s) = %s, contrast %.2f", c.c, c.bg, got, contrastRatio(l1, l2))
		}
		if l0, _ := relativeLuminance(c.c); contrastRatio(l0, l2) >= minAccentContrast && got != c.c {
			t.Errorf("readableMix(%s on %s) changed a readable colour to %s", c.c, c.bg, got)
		}
	}
	if got, _, _ := readableMix("#4f46e5", themeBgLight, "#000000"); got != "#4f46e5" {
		t.Errorf("a readable colour changed: %s", got)
	}
	if got, _, _ := readableMix("#f5f5f5", themeBgLight, "#000000"); got == "#f5f5f5" || !strings.HasPrefix(got, "#") || len(got) != 7 {
		t.Errorf("near-white on white: %s", got)
	}
}
