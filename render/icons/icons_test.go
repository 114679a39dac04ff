package icons

import (
	"strings"
	"testing"
)

// faBody returns the path data of Font Awesome icon style/name, which
// must be bundled.
func faBody(t *testing.T, key string) string {
	t.Helper()
	body, ok := faIconSet()[key]
	if !ok {
		t.Fatalf("Font Awesome icon %s is not bundled", key)
	}
	_, d, _ := strings.Cut(body, " ")
	return d
}

func TestLookupFontAwesome(t *testing.T) {
	t.Parallel()
	bolt := faBody(t, "solid/bolt")
	cases := []struct {
		name, style string
		want        string // the path expected: a "style/name" of faIconSet
	}{
		// Font Awesome's bolt is lightning (Lucide's is a nut).
		{"bolt", "", "solid/bolt"},
		{"fa-bolt", "", "solid/bolt"},
		{"fa-solid fa-bolt", "", "solid/bolt"},
		{"fas fa-bolt", "", "solid/bolt"},
		{"zap", "", "solid/bolt"}, // a Font Awesome alias
		{"cog", "", "solid/gear"},
		// Mintlify draws regular icons unless told otherwise.
		{"circle-check", "", "regular/circle-check"},
		{"circle-check", "solid", "solid/circle-check"},
		{"fa-solid fa-circle-check", "", "solid/circle-check"},
		{"fa-regular fa-circle-check", "solid", "regular/circle-check"},
		{"circle-check", "light", "regular/circle-check"},
		{"circle-check", "thin", "regular/circle-check"},
		{"circle-check", "duotone", "solid/circle-check"},
		{"circle-check", "sharp-solid", "solid/circle-check"},
		// A style Free lacks the icon in falls back to the other.
		{"rocket", "regular", "solid/rocket"},
		{"rocket", "light", "solid/rocket"},
		{"rocket", "duotone", "solid/rocket"},
		{"github", "", "brands/github"},
		{"fa-brands fa-github", "", "brands/github"},
		{"fab fa-github", "", "brands/github"},
		{"github", "brands", "brands/github"},
		{"x-twitter", "", "brands/x-twitter"},
		{"FA-Solid  FA-Rocket", "", "solid/rocket"},
		{"fa-solid fa-rocket fa-fw", "", "solid/rocket"},
	}
	for _, c := range cases {
		g := FontAwesome.lookup(c.name, c.style)
		if want := faBody(t, c.want); g.kind != faGlyph || !strings.HasSuffix(g.body, " "+want) {
			t.Errorf("lookup(%q, %q) = %.40q (kind %d), want %s", c.name, c.style, g.body, g.kind, c.want)
		}
	}
	if svg := SVG("bolt", 0, ""); !strings.Contains(svg, `viewBox="0 0 448 512"`) || !strings.Contains(svg, `<path d="`+bolt+`"/>`) ||
		!strings.Contains(svg, `fill="currentColor"`) || strings.Contains(svg, "stroke") {
		t.Errorf("SVG(bolt) = %s", svg)
	}
}

func TestLookupFallbacks(t *testing.T) {
	t.Parallel()
	cases := []struct {
		lib        Library
		name       string
		kind       kind
		lucideName string // for stroked results: the Lucide icon expected
	}{
		// Names Font Awesome Free lacks: Lucide names, Pro names (faIcons),
		// brands of the curated set.
		{FontAwesome, "cpu", stroked, "cpu"},
		{FontAwesome, "refresh-cw", stroked, "refresh-cw"},
		{FontAwesome, "book-open-cover", stroked, "book-open"},
		{FontAwesome, "sliders-up", stroked, "sliders-vertical"},
		{FontAwesome, "anthropic", filled, ""},
		{FontAwesome, "claude", filled, ""},
		// Lucide first when the library is Lucide (or Tabler).
		{Lucide, "bolt", stroked, "bolt"},
		{Lucide, "rocket", stroked, "rocket"},
		{Tabler, "rocket", stroked, "rocket"},
		{Lucide, "gear", stroked, "settings"},
		{Lucide, "lucide-rocket", stroked, "rocket"},
		// ...and Font Awesome for a name Lucide lacks.
		{Lucide, "arrow-pointer", faGlyph, ""},
		{Lucide, "discord", faGlyph, ""},
		{Lucide, "anthropic", filled, ""},
	}
	for _, c := range cases {
		g := c.lib.lookup(c.name, "")
		if g.body == "" || g.kind != c.kind {
			t.Errorf("%s: lookup(%q) = %.40q kind %d, want kind %d", c.lib, c.name, g.body, g.kind, c.kind)
			continue
		}
		if c.lucideName != "" && g.body != lucideIcons()[c.lucideName] {
			t.Errorf("%s: lookup(%q) is not Lucide's %s", c.lib, c.name, c.lucideName)
		}
	}
	for _, lib := range []Library{FontAwesome, Lucide, Tabler, ""} {
		if lib.Resolves("no-such-icon-xyz", "") || lib.Resolves("", "") || lib.Resolves("fa-solid", "") {
			t.Errorf("%q resolves a name no set has", lib)
		}
		if !lib.Resolves("rocket", "") || !lib.Resolves("github", "") {
			t.Errorf("%q does not resolve rocket or github", lib)
		}
	}
	if Library("").SVG("bolt", "", 0, "") != FontAwesome.SVG("bolt", "", 0, "") {
		t.Errorf("the zero Library is not Font Awesome")
	}
}

func TestParseLibrary(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]Library{"": FontAwesome, "fontawesome": FontAwesome, " Lucide ": Lucide, "tabler": Tabler} {
		if got, ok := ParseLibrary(in); !ok || got != want {
			t.Errorf("ParseLibrary(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	if got, ok := ParseLibrary("material"); ok || got != FontAwesome {
		t.Errorf("ParseLibrary(material) = %q, %v", got, ok)
	}
}

func TestSVGMarkup(t *testing.T) {
	t.Parallel()
	if got := Lucide.SVG("rocket", "", 0, ""); !strings.HasPrefix(got, `<svg class="lc-icon" data-icon="rocket" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="1em" height="1em" fill="none" stroke="currentColor"`) {
		t.Errorf("Lucide rocket: %s", got)
	}
	if got := SVG("github", 32, "#ff0000"); !strings.HasPrefix(got, `<svg class="lc-icon" data-icon="github" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 512 512" width="32" height="32" fill="currentColor" aria-hidden="true" style="color: #ff0000"><path d="`) {
		t.Errorf("github: %s", got)
	}
	if got := SVG("anthropic", 0, ""); !strings.Contains(got, `viewBox="0 0 24 24"`) || !strings.Contains(got, `fill="currentColor"`) {
		t.Errorf("anthropic: %s", got)
	}
	if got := SVG(`a"<b`, 0, ""); got != "" {
		t.Errorf("unknown name drew %s", got)
	}
	if got := SVG(`fa-solid fa-rocket" onload="x`, 0, ""); strings.Contains(got, `" onload`) {
		t.Errorf("name not escaped: %s", got)
	}
	if HTML("/x.svg") != "" || HTML("nope-nope") != "" || !strings.HasPrefix(HTML("rocket"), "<svg") || Lucide.HTML("a.png") != "" {
		t.Errorf("HTML: wrong result")
	}
}

func TestIconSets(t *testing.T) {
	t.Parallel()
	if n := len(faIconSet()); n < 2700 {
		t.Errorf("only %d Font Awesome icons and aliases bundled", n)
	}
	if len(lucideIcons()) < 2000 {
		t.Errorf("only %d Lucide icons bundled", len(lucideIcons()))
	}
	if n := len(brandIcons()); n < 50 || n > 200 {
		t.Errorf("%d brand icons: want a curated set", n)
	}
	if len(faData) > 1600<<10 || len(lucideData) > 1<<20 {
		t.Errorf("icon data: Font Awesome %d bytes, Lucide %d; want them compact", len(faData), len(lucideData))
	}
	for key, body := range faIconSet() {
		style, _, _ := strings.Cut(key, "/")
		width, d, ok := strings.Cut(body, " ")
		if style != "solid" && style != "regular" && style != "brands" || !ok || width == "" || strings.Trim(width, "0123456789") != "" ||
			strings.Trim(d, "MmLlHhVvCcSsQqTtAaZz0123456789.,- ") != "" {
			t.Errorf("Font Awesome icon %s: unexpected entry %.80q", key, body)
		}
	}
}

func BenchmarkIconSVG(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		_ = SVG("rocket", 0, "")
	}
}
