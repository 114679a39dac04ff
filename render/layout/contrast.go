package layout

import (
	"math"
	"strconv"
	"strings"
)

// Text colours on a coloured background (a button): white, or the
// theme's near-black.
const (
	labelLight = "#ffffff"
	labelDark  = "#111827"
)

// labelOn returns the colour of text on a background of colour c (a CSS
// colour safe.Color let through): white or near-black, whichever has the
// higher WCAG 2 contrast ratio with c; white when c cannot be read
// (a colour name other than white and black, or a colour function with
// relative values).
func labelOn(c string) string {
	l, ok := relativeLuminance(c)
	if !ok {
		return labelLight
	}
	dark, _ := relativeLuminance(labelDark)
	if contrastRatio(l, 1) >= contrastRatio(l, dark) {
		return labelLight
	}
	return labelDark
}

// contrastRatio is the WCAG 2 contrast ratio of two relative luminances.
func contrastRatio(a, b float64) float64 {
	if a < b {
		a, b = b, a
	}
	return (a + 0.05) / (b + 0.05)
}

// relativeLuminance is the WCAG 2 relative luminance of colour c: a hex
// colour, rgb()/rgba(), hsl()/hsla(), white or black.
func relativeLuminance(c string) (float64, bool) {
	r, g, b, ok := parseRGB(c)
	if !ok {
		return 0, false
	}
	lin := func(v float64) float64 {
		if v <= 0.04045 {
			return v / 12.92
		}
		return math.Pow((v+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(r) + 0.7152*lin(g) + 0.0722*lin(b), true
}

// parseRGB reads colour c as red, green and blue from 0 to 1.
func parseRGB(c string) (r, g, b float64, ok bool) {
	c = strings.ToLower(strings.TrimSpace(c))
	switch {
	case c == "white":
		return 1, 1, 1, true
	case c == "black":
		return 0, 0, 0, true
	case strings.HasPrefix(c, "#"):
		return parseHex(c[1:])
	case strings.HasPrefix(c, "rgb(") || strings.HasPrefix(c, "rgba("):
		v, ok := colorArgs(c)
		if !ok {
			return 0, 0, 0, false
		}
		return v[0] / 255, v[1] / 255, v[2] / 255, true
	case strings.HasPrefix(c, "hsl(") || strings.HasPrefix(c, "hsla("):
		v, ok := colorArgs(c)
		if !ok {
			return 0, 0, 0, false
		}
		r, g, b := hslToRGB(v[0], v[1]/100, v[2]/100)
		return r, g, b, true
	}
	return 0, 0, 0, false
}

// parseHex reads rgb, rgba, rrggbb or rrggbbaa (the alpha is ignored).
func parseHex(h string) (r, g, b float64, ok bool) {
	switch len(h) {
	case 3, 4:
		h = string([]byte{h[0], h[0], h[1], h[1], h[2], h[2]})
	case 6, 8:
		h = h[:6]
	default:
		return 0, 0, 0, false
	}
	n, err := strconv.ParseUint(h, 16, 32)
	if err != nil {
		return 0, 0, 0, false
	}
	return float64(n>>16&0xff) / 255, float64(n>>8&0xff) / 255, float64(n&0xff) / 255, true
}

// colorArgs reads the first three numbers of a colour function
// ("rgb(10, 20, 30)", "hsl(200 50% 40% / .5)"), percent signs dropped.
func colorArgs(c string) ([3]float64, bool) {
	var v [3]float64
	open, end := strings.IndexByte(c, '('), strings.IndexByte(c, ')')
	if open < 0 || end < open {
		return v, false
	}
	fields := strings.FieldsFunc(c[open+1:end], func(r rune) bool { return r == ',' || r == ' ' || r == '/' })
	if len(fields) < 3 {
		return v, false
	}
	for i := range v {
		if strings.HasSuffix(fields[i], "%") && strings.HasPrefix(c, "rgb") {
			return v, false // percentages of rgb(): rare, read as unknown
		}
		f, err := strconv.ParseFloat(strings.TrimSuffix(fields[i], "%"), 64)
		if err != nil {
			return v, false
		}
		v[i] = f
	}
	return v, true
}

// hslToRGB converts hue (degrees), saturation and lightness (0 to 1).
func hslToRGB(h, s, l float64) (r, g, b float64) {
	h = math.Mod(math.Mod(h, 360)+360, 360) / 360
	k := func(n float64) float64 {
		k := math.Mod(n+h*12, 12)
		a := s * math.Min(l, 1-l)
		return l - a*math.Max(-1, math.Min(math.Min(k-3, 9-k), 1))
	}
	return k(0), k(8), k(4)
}

// minAccentContrast is the contrast an accent colour needs with the page's
// background to carry text (WCAG's ratio for large text and controls).
const minAccentContrast = 3

// Page backgrounds of the theme (style.css), against which accents are
// checked when the configuration sets none.
const (
	themeBgLight = "#ffffff"
	themeBgDark  = "#0f1115"
)

// accents returns the colours of text accents (links' underlines, the
// current page in the sidebar, eyebrows) in light and dark mode:
// colors.primary and colors.light (else primary). One too faint on its
// mode's background (under 3:1) is mixed with black or white until it is
// not, keeping its hue; a configured colour that needed it is warned of.
func (t *Theme) accents() (onLight, onDark string) {
	bgL, bgD := themeBgLight, themeBgDark
	if b := t.s.Config.Background.Light; b != "" {
		bgL = b
	}
	if b := t.s.Config.Background.Dark; b != "" {
		bgD = b
	}
	pick := func(mode, bg, c, toward string, warn bool) string {
		fixed, ratio, ok := readableMix(c, bg, toward)
		if !ok || fixed == c {
			return c
		}
		if warn {
			t.s.Config.Warn(t.w, c, "colour %s is hard to read on the %s background %s (contrast %.1f:1, under %d:1); accents use %s in %s mode",
				c, mode, bg, ratio, minAccentContrast, fixed, mode)
		}
		return fixed
	}
	dark := t.light
	if dark == "" {
		dark = t.primary
	}
	return pick("light", bgL, t.primary, "#000000", t.primary != DefaultPrimary), pick("dark", bgD, dark, "#ffffff", t.light != "")
}

// readableMix returns colour c, or c mixed with toward in the least
// proportion (in steps of 5%) that gives it a contrast of
// minAccentContrast with bg, as #rrggbb, with c's own contrast. ok is
// false when a colour cannot be read.
func readableMix(c, bg, toward string) (fixed string, ratio float64, ok bool) {
	r, g, b, ok1 := parseRGB(c)
	tr, tg, tb, ok2 := parseRGB(toward)
	lb, ok3 := relativeLuminance(bg)
	if !ok1 || !ok2 || !ok3 {
		return c, 0, false
	}
	l, _ := relativeLuminance(c)
	ratio = contrastRatio(l, lb)
	if ratio >= minAccentContrast {
		return c, ratio, true
	}
	for p := 0.05; p <= 1.0001; p += 0.05 {
		mix := hexColor(r+(tr-r)*p, g+(tg-g)*p, b+(tb-b)*p)
		if lm, _ := relativeLuminance(mix); contrastRatio(lm, lb) >= minAccentContrast {
			return mix, ratio, true
		}
	}
	return toward, ratio, true
}

// hexColor writes red, green and blue from 0 to 1 as #rrggbb.
func hexColor(r, g, b float64) string {
	h := func(v float64) string {
		n := int(math.Round(math.Max(0, math.Min(1, v)) * 255))
		return string([]byte{"0123456789abcdef"[n>>4], "0123456789abcdef"[n&15]})
	}
	return "#" + h(r) + h(g) + h(b)
}
