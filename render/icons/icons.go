// Package icons draws the icons pages name ("rocket", "github",
// "fa-brands fa-github") as inline SVG: a Library (docs.json's
// icons.library) resolves a name, with an icon style (Font Awesome's
// iconType), to the markup of SVG and HTML; IsPath tells an icon name from
// an image path.
//
// It knows nothing of components or the theme, which call it.
package icons

import (
	_ "embed"
	"html"
	"strconv"
	"strings"
	"sync"
)

// Icons are drawn from three bundled sets, each generated under assets/
// with its licence next to it:
//
//   - Font Awesome Free 7.1.0, the version Mintlify draws (fontawesome.txt,
//     CC BY 4.0, by gen_fontawesome.go from the @fortawesome/fontawesome-free
//     npm package): its solid, regular and brands icons, path data only;
//   - Lucide (lucide.txt, ISC, by gen.go from the lucide-static npm
//     package);
//   - a curated set of brand logos (brands.txt, by gen_brands.go, mostly
//     from Simple Icons, CC0; LICENSE-brands lists each icon's source),
//     for brands Font Awesome does not have ("openai", "anthropic").
//
// A named icon becomes an inline <svg>, so pages load nothing for it.

//go:embed assets/fontawesome.txt
var faData string

//go:embed assets/lucide.txt
var lucideData string

//go:embed assets/brands.txt
var brandData string

// faIconSet maps "style/name" (style: solid, regular or brands) to "width
// path" of a Font Awesome icon (a viewBox 512 high), aliases resolved.
var faIconSet = sync.OnceValue(func() map[string]string { return parseIconSet(faData, 2900) })

// lucideIcons maps an icon name to its inner SVG (stroked), aliases
// resolved.
var lucideIcons = sync.OnceValue(func() map[string]string { return parseIconSet(lucideData, 2300) })

// brandIcons maps a brand name to its inner SVG (filled), aliases
// resolved.
var brandIcons = sync.OnceValue(func() map[string]string { return parseIconSet(brandData, 100) })

// parseIconSet reads an icon set: one "name<TAB>body" line per icon,
// one "name<TAB>=target" line per alias.
func parseIconSet(data string, size int) map[string]string {
	m := make(map[string]string, size)
	var aliases [][2]string
	for line := range strings.Lines(data) {
		name, body, ok := strings.Cut(strings.TrimRight(line, "\n"), "\t")
		if !ok {
			continue
		}
		if target, isAlias := strings.CutPrefix(body, "="); isAlias {
			aliases = append(aliases, [2]string{name, target})
			continue
		}
		m[name] = body
	}
	for _, a := range aliases {
		if body, ok := m[a[1]]; ok {
			if _, taken := m[a[0]]; !taken {
				m[a[0]] = body
			}
		}
	}
	return m
}

// SVG renders a named icon of the default library (Font Awesome) as
// inline SVG with class lc-icon, or "" when the name is unknown. size is
// in pixels (0: the CSS decides, 1em by default); color is a safe CSS
// colour or "".
func SVG(name string, size int, color string) string {
	return FontAwesome.SVG(name, "", size, color)
}

// HTML renders a named icon of the default library for the site's chrome
// (Library.HTML).
func HTML(name string) string {
	return FontAwesome.HTML(name)
}

// SVG renders icon name of library l, in style (Font Awesome's iconType:
// "regular", "solid", "brands", "duotone", ...; "" for the default), as
// inline SVG with class lc-icon, or "" when no bundled set has the name.
// size is in pixels (0: the CSS decides, 1em by default); color is a safe
// CSS colour or "".
func (l Library) SVG(name, style string, size int, color string) string {
	g := l.lookup(name, style)
	if g.body == "" {
		return ""
	}
	var b strings.Builder
	b.Grow(len(g.body) + 300)
	b.WriteString(`<svg class="lc-icon" data-icon="`)
	b.WriteString(html.EscapeString(name))
	b.WriteString(`" xmlns="http://www.w3.org/2000/svg" viewBox="`)
	body := g.body
	if g.kind == faGlyph {
		width, d, _ := strings.Cut(body, " ")
		b.WriteString("0 0 " + width + " 512")
		body = `<path d="` + d + `"/>`
	} else {
		b.WriteString("0 0 24 24")
	}
	b.WriteString(`"`)
	if size > 0 {
		s := strconv.Itoa(size)
		b.WriteString(` width="` + s + `" height="` + s + `"`)
	} else {
		b.WriteString(` width="1em" height="1em"`)
	}
	if g.kind == stroked {
		b.WriteString(` fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true"`)
	} else {
		b.WriteString(` fill="currentColor" aria-hidden="true"`)
	}
	if color != "" {
		b.WriteString(` style="color: ` + color + `"`)
	}
	b.WriteString(">")
	b.WriteString(body)
	b.WriteString("</svg>")
	return b.String()
}

// HTML renders a named icon of library l for the site's chrome
// (navigation groups, tabs, anchors): inline SVG, or "" when the name is
// unknown or is a path.
func (l Library) HTML(name string) string {
	if name == "" || IsPath(name) {
		return ""
	}
	return l.SVG(name, "", 0, "")
}

// Resolves reports whether l draws icon name in style: whether SVG gives
// more than "".
func (l Library) Resolves(name, style string) bool {
	return l.lookup(name, style).body != ""
}

// IsPath reports whether an icon value names an image rather than an
// icon: a path, a file name or a URL.
func IsPath(v string) bool {
	return strings.ContainsAny(v, "/.") || strings.HasPrefix(v, "<")
}
