package icons

import "strings"

// Library is the icon set a site's icon names come from: docs.json's
// icons.library. The zero value draws as FontAwesome, Mintlify's default.
//
// Each library looks a name up in its own set first and falls back to the
// others, so that a name drawn by no set of the library (a Font Awesome
// Pro icon, a Lucide name on a Font Awesome site) still shows an icon:
//
//   - FontAwesome: Font Awesome Free (its styles in the order the style
//     asks for), the curated brand logos, Lucide, then the Lucide icon
//     nearest a Font Awesome Pro name (faIcons);
//   - Lucide and Tabler (whose outline icons Lucide's resemble; Tabler is
//     not bundled): Lucide, the Lucide icon nearest a Font Awesome name,
//     Font Awesome Free, then the brand logos.
type Library string

// The libraries of docs.json's icons.library.
const (
	FontAwesome Library = "fontawesome"
	Lucide      Library = "lucide"
	Tabler      Library = "tabler"
)

// ParseLibrary reads a value of docs.json's icons.library ("" for none):
// ok is false, with FontAwesome, for a value that is not fontawesome,
// lucide or tabler.
func ParseLibrary(v string) (lib Library, ok bool) {
	switch Library(strings.ToLower(strings.TrimSpace(v))) {
	case "", FontAwesome:
		return FontAwesome, true
	case Lucide:
		return Lucide, true
	case Tabler:
		return Tabler, true
	}
	return FontAwesome, false
}

// kind says how an icon's body is drawn.
type kind uint8

const (
	stroked kind = iota // Lucide: inner SVG in 24×24, stroked
	filled              // brand logos: inner SVG in 24×24, filled
	faGlyph             // Font Awesome: "width path", 512 high, filled
)

// glyph is a resolved icon; body is "" when there is none.
type glyph struct {
	body string
	kind kind
}

// lookup resolves name in style. A name may carry Font Awesome classes
// ("fa-solid fa-bolt", "fab fa-github"): their style comes before style,
// and the last of the other words that resolves is the icon.
func (l Library) lookup(name, style string) glyph {
	words, classStyle := splitName(name)
	if classStyle != "" {
		style = classStyle
	}
	for i := len(words) - 1; i >= 0; i-- {
		if g := l.find(words[i], style); g.body != "" {
			return g
		}
	}
	return glyph{}
}

// find resolves one icon name n (lower case, without "fa-").
func (l Library) find(n, style string) glyph {
	if n == "" {
		return glyph{}
	}
	lucide := func() glyph {
		if body, ok := lucideIcons()[n]; ok {
			return glyph{body, stroked}
		}
		if alt, ok := faIcons[n]; ok {
			return glyph{lucideIcons()[alt], stroked}
		}
		return glyph{}
	}
	brand := func() glyph { return glyph{brandIcons()[n], filled} }
	fa := func() glyph {
		set := faIconSet()
		for _, s := range faStyles(style) {
			if body, ok := set[s+"/"+n]; ok {
				return glyph{body, faGlyph}
			}
		}
		return glyph{}
	}
	order := []func() glyph{fa, brand, lucide}
	if l == Lucide || l == Tabler {
		order = []func() glyph{lucide, fa, brand}
	}
	for _, f := range order {
		if g := f(); g.body != "" {
			return g
		}
	}
	return glyph{}
}

// faStyles returns the Font Awesome Free styles to try for style, best
// first. Mintlify draws regular icons unless told otherwise; the Pro
// styles fall back to the Free style nearest them: light, thin and the
// other outline styles to regular, duotone and the sharp solid ones to
// solid, and each to the other when Free lacks the icon in that style.
func faStyles(style string) []string {
	s := strings.ToLower(strings.TrimSpace(style))
	switch {
	case strings.Contains(s, "brand") || s == "fab":
		return []string{"brands", "solid", "regular"}
	case strings.Contains(s, "regular") || strings.Contains(s, "light") || strings.Contains(s, "thin"):
		return []string{"regular", "solid", "brands"}
	case strings.Contains(s, "solid") || strings.Contains(s, "duotone"):
		return []string{"solid", "regular", "brands"}
	}
	switch s {
	case "fas", "fad", "fass", "fasds":
		return []string{"solid", "regular", "brands"}
	}
	return []string{"regular", "solid", "brands"}
}

// styleClasses are the Font Awesome classes that choose a style.
var styleClasses = map[string]bool{
	"fa": true, "fas": true, "far": true, "fab": true, "fal": true, "fat": true, "fad": true,
	"fass": true, "fasr": true, "fasl": true, "fast": true, "fasds": true,
	"fa-solid": true, "fa-regular": true, "fa-brands": true, "fa-light": true, "fa-thin": true,
	"fa-duotone": true, "fa-sharp": true, "fa-sharp-duotone": true, "fa-classic": true,
}

// splitName reads an icon name: the words that may name the icon (lower
// case, without a "fa-" or "lucide-" prefix) and, when the name has more
// than one word, the style its Font Awesome classes give ("" for none).
func splitName(name string) (words []string, style string) {
	fields := strings.Fields(strings.ToLower(name))
	var styles []string
	for _, f := range fields {
		if len(fields) > 1 && styleClasses[f] {
			styles = append(styles, strings.TrimPrefix(f, "fa-"))
			continue
		}
		f = strings.TrimPrefix(f, "fa-")
		f = strings.TrimPrefix(f, "lucide-")
		words = append(words, f)
	}
	return words, strings.Join(styles, "-")
}
