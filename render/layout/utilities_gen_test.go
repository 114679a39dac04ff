package layout

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// The utility classes of theme/utilities.css: the Tailwind CSS (v3)
// classes Mintlify pages put on their HTML elements (className) that
// Lectern supports, with Tailwind's values. Only those listed are
// written, so that the stylesheet stays small; TestUtilitiesCSS checks
// that utilities.css is what this list gives and rewrites it with
// -update. Variants: dark: (Lectern's dark mode: the reader's preference
// unless html[data-theme] says otherwise), sm: md: lg: (min widths),
// hover:, group-hover:, and dark:hover:.
var utilityClasses = strings.Fields(`
	block inline inline-block flex inline-flex grid hidden contents table
	static relative absolute sticky inset-0 top-0 right-0 bottom-0 left-0 top-2 right-2 left-1/2 -translate-x-1/2 z-0 z-10 z-20

	flex-row flex-col flex-wrap flex-1 flex-auto flex-none shrink-0 grow
	items-start items-center items-end items-baseline items-stretch
	justify-start justify-center justify-end justify-between justify-around justify-evenly
	self-start self-center self-end place-items-center
	gap-0 gap-1 gap-2 gap-3 gap-4 gap-5 gap-6 gap-8 gap-10 gap-12
	gap-x-2 gap-x-4 gap-x-6 gap-x-8 gap-y-2 gap-y-4 gap-y-6 gap-y-8
	space-x-1 space-x-2 space-x-3 space-x-4 space-y-1 space-y-2 space-y-3 space-y-4 space-y-6 space-y-8
	grid-cols-1 grid-cols-2 grid-cols-3 grid-cols-4 col-span-2 col-span-full

	m-0 m-2 m-4 m-auto mx-auto my-auto ml-auto mr-auto
	mx-2 mx-4 my-0 my-1 my-2 my-4 my-6 my-8
	mt-0 mt-1 mt-1.5 mt-2 mt-3 mt-4 mt-5 mt-6 mt-8 mt-10 mt-12 mt-16
	mb-0 mb-1 mb-2 mb-3 mb-4 mb-6 mb-8 mb-10 mb-12
	ml-1 ml-2 ml-4 mr-1 mr-2 mr-4
	p-0 p-1 p-2 p-3 p-4 p-5 p-6 p-8
	px-1.5 px-2 px-3 px-3.5 px-4 px-5 px-6 px-8 py-0.5 py-1 py-1.5 py-2 py-3 py-4 py-6 py-8 py-12 py-16
	pt-0 pt-2 pt-4 pt-6 pt-8 pt-10 pb-0 pb-2 pb-4 pb-6 pb-8 pb-16 pb-24 pl-2 pl-4 pr-2 pr-4

	w-3 w-4 w-5 w-6 w-8 w-10 w-12 w-16 w-20 w-24 w-32 w-48 w-64 w-auto w-full w-fit w-1/2 w-1/3 w-2/3 w-1/4 w-3/4
	h-3 h-4 h-5 h-6 h-7 h-8 h-10 h-12 h-16 h-20 h-24 h-32 h-48 h-64 h-80 h-96 h-auto h-full h-fit
	size-3 size-4 size-5 size-6 size-8 size-10 size-12
	min-w-0 min-w-full max-w-xs max-w-sm max-w-md max-w-lg max-w-xl max-w-2xl max-w-3xl max-w-4xl max-w-5xl max-w-full max-w-none

	text-xs text-sm text-base text-lg text-xl text-2xl text-3xl text-4xl
	text-left text-center text-right text-justify
	font-light font-normal font-medium font-semibold font-bold font-mono font-sans
	italic not-italic uppercase lowercase capitalize normal-case
	tracking-tight tracking-normal tracking-wide leading-none leading-tight leading-snug leading-normal leading-relaxed
	whitespace-nowrap whitespace-normal whitespace-pre-wrap truncate break-words break-all
	underline no-underline line-through underline-offset-4

	border border-0 border-2 border-t border-b border-l border-r border-dashed
	rounded-none rounded-sm rounded rounded-md rounded-lg rounded-xl rounded-2xl rounded-3xl rounded-full
	text-white text-black text-primary text-gray-400 text-gray-500 text-gray-600 text-gray-700 text-gray-800 text-gray-900
	text-zinc-400 text-zinc-500 text-zinc-600 text-zinc-700 text-zinc-900 text-zinc-950 text-zinc-950/70 text-zinc-950/80
	text-green-600 text-blue-600 text-red-600
	bg-white bg-black bg-transparent bg-primary bg-gray-50 bg-gray-100 bg-zinc-50 bg-zinc-100 bg-zinc-950/20
	border-transparent border-primary border-gray-100 border-gray-200 border-gray-300 border-zinc-200 border-zinc-950/20

	shadow-none shadow-sm shadow shadow-md shadow-lg
	opacity-0 opacity-50 opacity-60 opacity-70 opacity-80 opacity-90 opacity-100
	overflow-hidden overflow-auto overflow-visible overflow-x-auto overflow-y-auto
	aspect-auto aspect-square aspect-video object-contain object-cover object-center
	cursor-pointer pointer-events-none select-none appearance-none
	transition transition-all transition-colors transition-opacity transition-transform duration-100 duration-200 duration-300 scale-105

	hover:underline hover:opacity-80 hover:opacity-100 hover:scale-105 hover:border-primary hover:border-gray-300 hover:bg-zinc-100
	group-hover:underline group-hover:opacity-100 group-hover:scale-105 group-hover:translate-x-0.5 group-hover:text-gray-500

	dark:block dark:hidden dark:flex dark:inline dark:inline-block dark:grid
	dark:text-white dark:text-white/60 dark:text-white/70 dark:text-white/80 dark:text-primary-light
	dark:text-gray-200 dark:text-gray-300 dark:text-gray-400 dark:text-gray-500
	dark:text-zinc-50 dark:text-zinc-300 dark:text-zinc-400 dark:text-zinc-500
	dark:bg-black dark:bg-white/5 dark:bg-white/10 dark:bg-white/20 dark:bg-zinc-800 dark:bg-zinc-900 dark:bg-gray-800 dark:bg-gray-900
	dark:border-white/10 dark:border-white/20 dark:border-zinc-800 dark:border-gray-800 dark:border-zinc-950/80
	dark:hover:bg-zinc-700 dark:hover:border-zinc-700

	sm:block sm:hidden sm:flex sm:grid sm:flex-row sm:grid-cols-2 sm:grid-cols-3 sm:text-3xl
	md:block md:hidden md:flex md:grid md:flex-row md:grid-cols-2 md:grid-cols-3 md:grid-cols-4
	lg:block lg:hidden lg:flex lg:grid lg:grid-cols-3 lg:grid-cols-4
`)

// utilityBreakpoints are the min widths of the responsive variants.
var utilityBreakpoints = []struct{ prefix, width string }{{"sm:", "640px"}, {"md:", "768px"}, {"lg:", "1024px"}}

// generateUtilitiesCSS returns theme/utilities.css for utilityClasses,
// or an error naming a class it cannot write.
func generateUtilitiesCSS() (string, error) {
	var base, hover, dark, darkHover []string
	responsive := map[string][]string{}
	for _, class := range utilityClasses {
		variants, name := splitVariants(class)
		decls, suffix, ok := utilityRule(name)
		if !ok {
			return "", fmt.Errorf("utility class %q: no rule for %q", class, name)
		}
		sel := "." + cssEscapeClass(class)
		rule := func(s string) string { return s + suffix + " { " + decls + " }" }
		switch variants {
		case "":
			base = append(base, rule(sel))
		case "hover:":
			hover = append(hover, rule(sel+":hover"))
		case "group-hover:":
			hover = append(hover, rule(".group:hover "+sel))
		case "dark:":
			dark = append(dark, rule(sel))
		case "dark:hover:":
			darkHover = append(darkHover, rule(sel+":hover"))
		case "sm:", "md:", "lg:":
			responsive[variants] = append(responsive[variants], rule(sel))
		default:
			return "", fmt.Errorf("utility class %q: no variant %q", class, variants)
		}
	}
	var b strings.Builder
	b.WriteString("/* Utility classes pages may use (Tailwind CSS v3's names and values, MIT),\n" +
		"   written by TestUtilitiesCSS (render/layout/utilities_gen_test.go): edit the list there. */\n")
	for _, r := range append(base, hover...) {
		b.WriteString(r + "\n")
	}
	for _, bp := range utilityBreakpoints {
		if rules := responsive[bp.prefix]; len(rules) > 0 {
			b.WriteString("@media (min-width: " + bp.width + ") {\n")
			for _, r := range rules {
				b.WriteString("  " + r + "\n")
			}
			b.WriteString("}\n")
		}
	}
	// The dark: variants in the form of the system's preference, which
	// Theme.CSS completes with the toggle's (dark.go).
	b.WriteString(darkMedia + "\n")
	for _, r := range append(dark, darkHover...) {
		b.WriteString("  " + systemDark + " " + r + "\n")
	}
	b.WriteString("}\n")
	return b.String(), nil
}

// splitVariants splits "dark:hover:bg-x" into "dark:hover:" and "bg-x".
func splitVariants(class string) (variants, name string) {
	i := strings.LastIndexByte(class, ':')
	return class[:i+1], class[i+1:]
}

// cssEscapeClass escapes the characters of a class name that a CSS
// selector cannot hold as they are.
func cssEscapeClass(class string) string {
	return strings.NewReplacer(":", `\:`, "/", `\/`, ".", `\.`).Replace(class)
}

// utilityFixed are the classes of one fixed rule each. A border's colour
// is the theme's (as Tailwind's is its gray-200) unless a colour class,
// written after, says otherwise.
var utilityFixed = map[string]string{
	"block": "display: block", "inline": "display: inline", "inline-block": "display: inline-block", "flex": "display: flex",
	"inline-flex": "display: inline-flex", "grid": "display: grid", "hidden": "display: none", "contents": "display: contents",
	"table": "display: table", "static": "position: static", "relative": "position: relative", "absolute": "position: absolute",
	"sticky": "position: sticky", "flex-row": "flex-direction: row", "flex-col": "flex-direction: column", "flex-wrap": "flex-wrap: wrap",
	"flex-1": "flex: 1 1 0%", "flex-auto": "flex: 1 1 auto", "flex-none": "flex: none", "shrink-0": "flex-shrink: 0", "grow": "flex-grow: 1",
	"items-start": "align-items: flex-start", "items-center": "align-items: center", "items-end": "align-items: flex-end",
	"items-baseline": "align-items: baseline", "items-stretch": "align-items: stretch", "justify-start": "justify-content: flex-start",
	"justify-center": "justify-content: center", "justify-end": "justify-content: flex-end", "justify-between": "justify-content: space-between",
	"justify-around": "justify-content: space-around", "justify-evenly": "justify-content: space-evenly", "self-start": "align-self: flex-start",
	"self-center": "align-self: center", "self-end": "align-self: flex-end", "place-items-center": "place-items: center",
	"col-span-full": "grid-column: 1 / -1",
	"text-left":     "text-align: left", "text-center": "text-align: center", "text-right": "text-align: right", "text-justify": "text-align: justify",
	"font-light": "font-weight: 300", "font-normal": "font-weight: 400", "font-medium": "font-weight: 500", "font-semibold": "font-weight: 600",
	"font-bold": "font-weight: 700", "font-mono": "font-family: var(--lc-mono)", "font-sans": "font-family: var(--lc-font)",
	"italic": "font-style: italic", "not-italic": "font-style: normal", "uppercase": "text-transform: uppercase",
	"lowercase": "text-transform: lowercase", "capitalize": "text-transform: capitalize", "normal-case": "text-transform: none",
	"tracking-tight": "letter-spacing: -0.025em", "tracking-normal": "letter-spacing: 0em", "tracking-wide": "letter-spacing: 0.025em",
	"leading-none": "line-height: 1", "leading-tight": "line-height: 1.25", "leading-snug": "line-height: 1.375",
	"leading-normal": "line-height: 1.5", "leading-relaxed": "line-height: 1.625",
	"whitespace-nowrap": "white-space: nowrap", "whitespace-normal": "white-space: normal", "whitespace-pre-wrap": "white-space: pre-wrap",
	"truncate": "overflow: hidden; text-overflow: ellipsis; white-space: nowrap", "break-words": "overflow-wrap: break-word",
	"break-all": "word-break: break-all", "underline": "text-decoration-line: underline", "no-underline": "text-decoration-line: none",
	"line-through": "text-decoration-line: line-through", "underline-offset-4": "text-underline-offset: 4px",
	"border": "border-width: 1px; border-style: solid; border-color: var(--lc-border)", "border-0": "border-width: 0", "border-2": "border-width: 2px; border-style: solid; border-color: var(--lc-border)",
	"border-t": "border-top-width: 1px; border-top-style: solid; border-top-color: var(--lc-border)", "border-b": "border-bottom-width: 1px; border-bottom-style: solid; border-bottom-color: var(--lc-border)",
	"border-l": "border-left-width: 1px; border-left-style: solid; border-left-color: var(--lc-border)", "border-r": "border-right-width: 1px; border-right-style: solid; border-right-color: var(--lc-border)",
	"border-dashed": "border-style: dashed",
	"rounded-none":  "border-radius: 0", "rounded-sm": "border-radius: 0.125rem", "rounded": "border-radius: 0.25rem",
	"rounded-md": "border-radius: 0.375rem", "rounded-lg": "border-radius: 0.5rem", "rounded-xl": "border-radius: 0.75rem",
	"rounded-2xl": "border-radius: 1rem", "rounded-3xl": "border-radius: 1.5rem", "rounded-full": "border-radius: 9999px",
	"shadow-none": "box-shadow: none", "shadow-sm": "box-shadow: 0 1px 2px 0 rgb(0 0 0 / 0.05)",
	"shadow":          "box-shadow: 0 1px 3px 0 rgb(0 0 0 / 0.1), 0 1px 2px -1px rgb(0 0 0 / 0.1)",
	"shadow-md":       "box-shadow: 0 4px 6px -1px rgb(0 0 0 / 0.1), 0 2px 4px -2px rgb(0 0 0 / 0.1)",
	"shadow-lg":       "box-shadow: 0 10px 15px -3px rgb(0 0 0 / 0.1), 0 4px 6px -4px rgb(0 0 0 / 0.1)",
	"overflow-hidden": "overflow: hidden", "overflow-auto": "overflow: auto", "overflow-visible": "overflow: visible",
	"overflow-x-auto": "overflow-x: auto", "overflow-y-auto": "overflow-y: auto",
	"aspect-auto": "aspect-ratio: auto", "aspect-square": "aspect-ratio: 1 / 1", "aspect-video": "aspect-ratio: 16 / 9",
	"object-contain": "object-fit: contain", "object-cover": "object-fit: cover", "object-center": "object-position: center",
	"cursor-pointer": "cursor: pointer", "pointer-events-none": "pointer-events: none", "select-none": "user-select: none",
	"appearance-none":      "appearance: none",
	"transition":           "transition-property: color, background-color, border-color, text-decoration-color, fill, stroke, opacity, box-shadow, transform; transition-timing-function: cubic-bezier(0.4, 0, 0.2, 1); transition-duration: 150ms",
	"transition-all":       "transition-property: all; transition-timing-function: cubic-bezier(0.4, 0, 0.2, 1); transition-duration: 150ms",
	"transition-colors":    "transition-property: color, background-color, border-color, text-decoration-color, fill, stroke; transition-timing-function: cubic-bezier(0.4, 0, 0.2, 1); transition-duration: 150ms",
	"transition-opacity":   "transition-property: opacity; transition-timing-function: cubic-bezier(0.4, 0, 0.2, 1); transition-duration: 150ms",
	"transition-transform": "transition-property: transform; transition-timing-function: cubic-bezier(0.4, 0, 0.2, 1); transition-duration: 150ms",
	"scale-105":            "transform: scale(1.05)",
	"-translate-x-1/2":     "transform: translateX(-50%)",
	"translate-x-0.5":      "transform: translateX(0.125rem)",
	"text-xs":              "font-size: 0.75rem; line-height: 1rem",
	"text-sm":              "font-size: 0.875rem; line-height: 1.25rem",
	"text-base":            "font-size: 1rem; line-height: 1.5rem",
	"text-lg":              "font-size: 1.125rem; line-height: 1.75rem",
	"text-xl":              "font-size: 1.25rem; line-height: 1.75rem",
	"text-2xl":             "font-size: 1.5rem; line-height: 2rem",
	"text-3xl":             "font-size: 1.875rem; line-height: 2.25rem",
	"text-4xl":             "font-size: 2.25rem; line-height: 2.5rem",
	"max-w-xs":             "max-width: 20rem",
	"max-w-sm":             "max-width: 24rem",
	"max-w-md":             "max-width: 28rem",
	"max-w-lg":             "max-width: 32rem",
	"max-w-xl":             "max-width: 36rem",
	"max-w-2xl":            "max-width: 42rem",
	"max-w-3xl":            "max-width: 48rem",
	"max-w-4xl":            "max-width: 56rem",
	"max-w-5xl":            "max-width: 64rem",
	"max-w-full":           "max-width: 100%",
	"max-w-none":           "max-width: none",
	"min-w-0":              "min-width: 0",
	"min-w-full":           "min-width: 100%",
}

// utilityColors are the colours of the text-, bg- and border- classes:
// Tailwind's palette for those used, the site's colours for primary.
var utilityColors = map[string]string{
	"white": "#ffffff", "black": "#000000", "transparent": "transparent",
	"primary": "var(--lc-primary)", "primary-light": "var(--lc-primary-light)", "primary-dark": "var(--lc-primary-dark)",
	"gray-50": "#f9fafb", "gray-100": "#f3f4f6", "gray-200": "#e5e7eb", "gray-300": "#d1d5db", "gray-400": "#9ca3af",
	"gray-500": "#6b7280", "gray-600": "#4b5563", "gray-700": "#374151", "gray-800": "#1f2937", "gray-900": "#111827",
	"zinc-50": "#fafafa", "zinc-100": "#f4f4f5", "zinc-200": "#e4e4e7", "zinc-300": "#d4d4d8", "zinc-400": "#a1a1aa",
	"zinc-500": "#71717a", "zinc-600": "#52525b", "zinc-700": "#3f3f46", "zinc-800": "#27272a", "zinc-900": "#18181b",
	"zinc-950": "#09090b", "green-600": "#16a34a", "blue-600": "#2563eb", "red-600": "#dc2626",
}

// utilitySpacing is Tailwind's spacing scale: n is n/4 rem.
func utilitySpacing(v string) (string, bool) {
	switch v {
	case "0":
		return "0", true
	case "px":
		return "1px", true
	case "auto":
		return "auto", true
	case "full":
		return "100%", true
	case "fit":
		return "fit-content", true
	}
	if a, b, ok := strings.Cut(v, "/"); ok {
		n, err1 := strconv.Atoi(a)
		d, err2 := strconv.Atoi(b)
		if err1 != nil || err2 != nil || d == 0 {
			return "", false
		}
		return strconv.FormatFloat(float64(n)*100/float64(d), 'f', -1, 64) + "%", true
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f < 0 || f > 96 {
		return "", false
	}
	return strconv.FormatFloat(f/4, 'f', -1, 64) + "rem", true
}

var (
	spacingRE = regexp.MustCompile(`^(m|mx|my|mt|mr|mb|ml|p|px|py|pt|pr|pb|pl|gap-x|gap-y|gap|w|h|size|inset|top|right|bottom|left)-(.+)$`)
	colorRE   = regexp.MustCompile(`^(text|bg|border)-([a-z]+(?:-[a-z]+)?(?:-\d+)?)(?:/(\d+))?$`)
)

// spacingProps are the properties of the spacing classes.
var spacingProps = map[string][]string{
	"m": {"margin"}, "mx": {"margin-left", "margin-right"}, "my": {"margin-top", "margin-bottom"}, "mt": {"margin-top"},
	"mr": {"margin-right"}, "mb": {"margin-bottom"}, "ml": {"margin-left"}, "p": {"padding"}, "px": {"padding-left", "padding-right"},
	"py": {"padding-top", "padding-bottom"}, "pt": {"padding-top"}, "pr": {"padding-right"}, "pb": {"padding-bottom"},
	"pl": {"padding-left"}, "gap": {"gap"}, "gap-x": {"column-gap"}, "gap-y": {"row-gap"}, "w": {"width"}, "h": {"height"},
	"size": {"width", "height"}, "inset": {"inset"}, "top": {"top"}, "right": {"right"}, "bottom": {"bottom"}, "left": {"left"},
}

// utilityRule returns the declarations of a utility class without
// variants, and what follows its selector (space-x-2 styles children).
func utilityRule(name string) (decls, suffix string, ok bool) {
	if d, ok := utilityFixed[name]; ok {
		return d, "", true
	}
	if m := spacingRE.FindStringSubmatch(name); m != nil {
		v, ok := utilitySpacing(m[2])
		if !ok {
			return "", "", false
		}
		var ds []string
		for _, p := range spacingProps[m[1]] {
			ds = append(ds, p+": "+v)
		}
		return strings.Join(ds, "; "), "", true
	}
	if rest, ok := strings.CutPrefix(name, "space-"); ok && len(rest) > 2 {
		v, ok := utilitySpacing(rest[2:])
		side := map[byte]string{'x': "margin-left", 'y': "margin-top"}[rest[0]]
		return side + ": " + v, " > :not([hidden]) ~ :not([hidden])", ok && side != ""
	}
	if n, ok := strings.CutPrefix(name, "grid-cols-"); ok {
		return "grid-template-columns: repeat(" + n + ", minmax(0, 1fr))", "", isNumber(n)
	}
	if n, ok := strings.CutPrefix(name, "col-span-"); ok {
		return "grid-column: span " + n + " / span " + n, "", isNumber(n)
	}
	if n, ok := strings.CutPrefix(name, "opacity-"); ok {
		f, err := strconv.Atoi(n)
		return "opacity: " + strconv.FormatFloat(float64(f)/100, 'f', -1, 64), "", err == nil && f <= 100
	}
	if n, ok := strings.CutPrefix(name, "z-"); ok {
		return "z-index: " + n, "", isNumber(n)
	}
	if n, ok := strings.CutPrefix(name, "duration-"); ok {
		return "transition-duration: " + n + "ms", "", isNumber(n)
	}
	return colorRule(name)
}

// colorRule returns the declaration of a text-, bg- or border- colour
// class, with its /opacity.
func colorRule(name string) (decls, suffix string, ok bool) {
	m := colorRE.FindStringSubmatch(name)
	if m == nil {
		return "", "", false
	}
	c, ok := utilityColors[m[2]]
	if !ok {
		return "", "", false
	}
	if m[3] != "" {
		c = "color-mix(in srgb, " + c + " " + m[3] + "%, transparent)"
	}
	prop := map[string]string{"text": "color", "bg": "background-color", "border": "border-color"}[m[1]]
	return prop + ": " + c, "", true
}

func isNumber(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil
}
