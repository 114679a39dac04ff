package config

import (
	"fmt"
	"path"
	"strconv"
	"strings"
	"unicode"

	"lectern.dev/lectern/render/safe"
)

// Appearance is the colour mode a site opens in (docs.json appearance,
// mint.json modeToggle).
type Appearance struct {
	// Default is "system" (the reader's preference), "light" or "dark".
	Default string
	// Strict hides the light/dark toggle: the site stays in Default.
	Strict bool
}

// Font is a typeface of the configuration (docs.json fonts, mint.json
// font).
type Font struct {
	// Family is a CSS family name, "" for the theme's.
	Family string
	// Weight is a CSS font-weight number ("400", "550"), or "".
	Weight string
	// Source is the font file as written: a file of the repository or a
	// URL, or "".
	Source string
	// Format is the CSS format of Source ("woff2", "woff", "truetype",
	// "opentype"), or "" when unknown.
	Format string
}

// Fonts are the typefaces of headings and of body text, each made of the
// top-level values of fonts and its own (fonts.heading, fonts.body).
type Fonts struct{ Heading, Body Font }

// Background is the page's background (docs.json background, mint.json
// colors.background and backgroundImage).
type Background struct {
	// Light and Dark are the background colours of either mode, "" for
	// the theme's.
	Light, Dark string
	// Decoration is "gradient", "grid", "windows" or "".
	Decoration string
	// ImageLight and ImageDark are the files of background.image, as
	// written, or "".
	ImageLight, ImageDark string
}

// Styling are the finer choices of docs.json styling.
type Styling struct {
	// Eyebrows is "section" (the page's group above its title, the
	// default) or "breadcrumbs" (the path of divisions and groups).
	Eyebrows string
	// Codeblocks is "system" (code follows the site's mode, the
	// default), "dark" (always dark) or "light" (always light).
	Codeblocks string
}

// Values of Appearance.Default, Styling.Eyebrows and Styling.Codeblocks.
const (
	ModeSystem          = "system"
	ModeLight           = "light"
	ModeDark            = "dark"
	EyebrowsSection     = "section"
	EyebrowsBreadcrumbs = "breadcrumbs"
)

// parseLook reads the settings of the site's look: appearance, fonts,
// background and styling (docs.json), or their mint.json forms.
func parseLook(cfg *Config, raw map[string]any, cw *cfgWarner) {
	cfg.Appearance = Appearance{Default: ModeSystem}
	cfg.Styling = Styling{Eyebrows: EyebrowsSection, Codeblocks: ModeSystem}
	if a, ok := object(raw, "appearance", cw); ok {
		cfg.Appearance.Default = enum(a["default"], "appearance.default", ModeSystem, cw, ModeSystem, ModeLight, ModeDark)
		cfg.Appearance.Strict = flag(a["strict"], "appearance.strict", cw)
	} else if m, ok := raw["modeToggle"].(map[string]any); ok { // mint.json
		cfg.Appearance.Default = enum(m["default"], "modeToggle.default", ModeSystem, cw, ModeSystem, ModeLight, ModeDark)
		cfg.Appearance.Strict = flag(m["isHidden"], "modeToggle.isHidden", cw)
	}
	if f, ok := object(raw, "fonts", cw); ok {
		cfg.Fonts = parseFonts(f, "fonts", cw)
	} else if f, ok := raw["font"].(map[string]any); ok { // mint.json
		cfg.Fonts = parseFonts(f, "font", cw)
	}
	cfg.Background = parseBackground(raw, cw)
	if s, ok := object(raw, "styling", cw); ok {
		cfg.Styling.Eyebrows = enum(s["eyebrows"], "styling.eyebrows", EyebrowsSection, cw, EyebrowsSection, EyebrowsBreadcrumbs)
		cfg.Styling.Codeblocks = codeblocks(s["codeblocks"], cw)
	}
}

// object returns the object at raw[key], warning when there is a value
// of another type.
func object(raw map[string]any, key string, cw *cfgWarner) (map[string]any, bool) {
	switch v := raw[key].(type) {
	case map[string]any:
		return v, true
	case nil:
	default:
		cw.warn(Str(v), "%s must be an object; ignored", key)
	}
	return nil, false
}

// enum returns v when it is one of allowed, def when it is absent, and
// def with a warning otherwise.
func enum(v any, what, def string, cw *cfgWarner, allowed ...string) string {
	if v == nil {
		return def
	}
	s := strings.ToLower(Str(v))
	for _, a := range allowed {
		if s == a {
			return a
		}
	}
	cw.warn(Str(v), "%s %s is not one of %s; using %q", what, quoted(v), strings.Join(allowed, ", "), def)
	return def
}

// flag returns v when it is a boolean, false with a warning when it is
// something else.
func flag(v any, what string, cw *cfgWarner) bool {
	if v == nil {
		return false
	}
	b, ok := v.(bool)
	if !ok {
		cw.warn(Str(v), "%s %s is not true or false; using false", what, quoted(v))
	}
	return b
}

// quoted shows a configuration value in a warning.
func quoted(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	return fmt.Sprint(v)
}

// parseFonts reads fonts (or mint.json's font): the top-level values,
// then those of heading (headings) and body over them.
func parseFonts(f map[string]any, what string, cw *cfgWarner) Fonts {
	top := parseFont(f, what, cw)
	out := Fonts{Heading: top, Body: top}
	for _, k := range []string{"heading", "headings", "body"} {
		sub, ok := f[k].(map[string]any)
		if !ok {
			continue
		}
		own := parseFont(sub, what+"."+k, cw)
		target := &out.Body
		if k != "body" {
			target = &out.Heading
		}
		*target = overFont(top, own)
	}
	return out
}

// overFont returns the font own, completed by top's values: all of them
// when both name the same family, only the weight when own names another
// (top's file is not that family's).
func overFont(top, own Font) Font {
	f := top
	if own.Family != "" && !strings.EqualFold(own.Family, top.Family) {
		f = Font{Family: own.Family, Weight: top.Weight}
	}
	if own.Weight != "" {
		f.Weight = own.Weight
	}
	if own.Source != "" {
		f.Source, f.Format = own.Source, own.Format
	}
	return f
}

// parseFont reads one font object (family, weight, source or mint.json's
// url, format), warning of values a stylesheet cannot use.
func parseFont(m map[string]any, what string, cw *cfgWarner) Font {
	var f Font
	if fam := Str(m["family"]); fam != "" {
		fam = strings.Trim(fam, `"' `)
		if validFamily(fam) {
			f.Family = fam
		} else {
			cw.warn(Str(m["family"]), "%s.family %q is not a font family name (letters, digits, spaces, -, _ and .); ignored", what, Str(m["family"]))
		}
	}
	f.Weight = fontWeight(m["weight"], what, cw)
	f.Source = Str(m["source"])
	if f.Source == "" {
		f.Source = Str(m["url"]) // mint.json
	}
	if f.Source == "" {
		return f
	}
	format := strings.ToLower(Str(m["format"]))
	if format == "" {
		format = strings.TrimPrefix(strings.ToLower(path.Ext(strings.SplitN(f.Source, "?", 2)[0])), ".")
	}
	switch format {
	case "woff", "woff2":
		f.Format = format
	case "ttf", "truetype":
		f.Format = "truetype"
	case "otf", "opentype":
		f.Format = "opentype"
	default:
		cw.warn(f.Source, "%s.format of %q is not woff or woff2, nor ttf or otf; the font is given without a format", what, f.Source)
	}
	return f
}

// validFamily reports whether s can stand quoted as a CSS family name.
func validFamily(s string) bool {
	if s == "" || len(s) > 100 {
		return false
	}
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != ' ' && r != '-' && r != '_' && r != '.' {
			return false
		}
	}
	return true
}

// fontWeight reads a font weight: a number from 1 to 1000 (a JSON number
// or a string), normal or bold; else "" with a warning.
func fontWeight(v any, what string, cw *cfgWarner) string {
	var s string
	switch w := v.(type) {
	case nil:
		return ""
	case float64:
		s = strconv.FormatFloat(w, 'f', -1, 64)
	case string:
		s = strings.ToLower(strings.TrimSpace(w))
		if s == "normal" || s == "bold" {
			return s
		}
	}
	if n, err := strconv.ParseFloat(s, 64); err == nil && n >= 1 && n <= 1000 {
		return strconv.FormatFloat(n, 'f', -1, 64)
	}
	cw.warn(Str(v), "%s.weight %s is not a font weight (a number from 1 to 1000); ignored", what, quoted(v))
	return ""
}

// parseBackground reads background (docs.json), or colors.background and
// backgroundImage (mint.json).
func parseBackground(raw map[string]any, cw *cfgWarner) Background {
	var bg Background
	b, ok := object(raw, "background", cw)
	if !ok {
		if c, ok := raw["colors"].(map[string]any); ok {
			if m, ok := c["background"].(map[string]any); ok {
				bg.Light = bgColor(m["light"], "colors.background.light", cw)
				bg.Dark = bgColor(m["dark"], "colors.background.dark", cw)
			}
		}
		bg.ImageLight = Str(raw["backgroundImage"])
		bg.ImageDark = bg.ImageLight
		return bg
	}
	if c, ok := b["color"].(map[string]any); ok {
		bg.Light = bgColor(c["light"], "background.color.light", cw)
		bg.Dark = bgColor(c["dark"], "background.color.dark", cw)
	} else if b["color"] != nil {
		cw.warn(Str(b["color"]), "background.color must be an object with light and dark colours; ignored")
	}
	bg.Decoration = enum(b["decoration"], "background.decoration", "", cw, "gradient", "grid", "windows")
	switch img := b["image"].(type) {
	case string:
		bg.ImageLight, bg.ImageDark = Str(img), Str(img)
	case map[string]any:
		bg.ImageLight, bg.ImageDark = Str(img["light"]), Str(img["dark"])
		if bg.ImageLight == "" {
			bg.ImageLight = bg.ImageDark
		}
		if bg.ImageDark == "" {
			bg.ImageDark = bg.ImageLight
		}
	}
	return bg
}

// bgColor returns v when it is a CSS colour, else "" (with a warning
// when v is set).
func bgColor(v any, what string, cw *cfgWarner) string {
	if v == nil {
		return ""
	}
	if c := safe.Color(Str(v)); c != "" {
		return c
	}
	cw.warn(Str(v), "%s %s is not a colour such as \"#0f172a\"; ignored", what, quoted(v))
	return ""
}

// darkCodeThemes are the Shiki themes, named in styling.codeblocks, that
// are dark; the other names are taken as light themes.
var darkCodeThemes = []string{"dark", "night", "dracula", "monokai", "nord", "poimandres", "synthwave", "houston",
	"mocha", "frappe", "macchiato", "moon", "vesper", "andromeeda", "aurora", "laserwave", "plastic", "black",
	"dimmed", "material-theme", "kanagawa-wave", "kanagawa-dragon", "rose-pine", "ayu"}

// codeblocks reads styling.codeblocks: "system", "dark", a Shiki theme
// name or {theme: name | {light, dark}}. Lectern highlights code with its
// own light and dark styles, so a theme counts for the mode it is made
// for.
func codeblocks(v any, cw *cfgWarner) string {
	switch c := v.(type) {
	case nil:
		return ModeSystem
	case string:
		switch s := strings.ToLower(strings.TrimSpace(c)); s {
		case ModeSystem, ModeDark, ModeLight:
			return s
		case "":
			return ModeSystem
		default:
			return themeMode(s)
		}
	case map[string]any:
		switch t := c["theme"].(type) {
		case string:
			return themeMode(strings.ToLower(strings.TrimSpace(t)))
		case map[string]any:
			return ModeSystem // a light and a dark theme: code follows the site
		case nil:
			return ModeSystem
		}
	}
	cw.warn(Str(v), "styling.codeblocks %s is not \"system\", \"dark\", a theme name or {\"theme\": ...}; using \"system\"", quoted(v))
	return ModeSystem
}

// themeMode returns the mode of the Shiki theme named name.
func themeMode(name string) string {
	if name == "red" {
		return ModeDark
	}
	for _, d := range darkCodeThemes {
		if strings.Contains(name, d) && !strings.Contains(name, "light") && !strings.Contains(name, "dawn") {
			return ModeDark
		}
	}
	return ModeLight
}
