package layout

import (
	"strings"

	"lectern.dev/lectern/render/config"
	"lectern.dev/lectern/render/highlight"
	"lectern.dev/lectern/render/links"
)

// look is what the configuration sets of the site's look (docs.json
// appearance, fonts, background, styling), checked once by New.
type look struct {
	appearance config.Appearance
	styling    config.Styling
	background config.Background
	// heading and body are the configured fonts: a family (maybe "")
	// and a weight; faces are the @font-face rules of their files in the
	// repository.
	heading, body config.Font
	faces         []fontFace
	// bgLight and bgDark are the source files of background.image, ""
	// when none.
	bgLight, bgDark string
}

// fontFace is a font file of the repository, declared with @font-face.
type fontFace struct{ family, weight, file, format string }

// newLook checks the look the configuration asks for, warning of what
// it cannot use: font files on other hosts or missing, fonts with no
// file (never fetched from a font service), background images.
func (t *Theme) newLook() look {
	cfg := t.s.Config
	lk := look{appearance: cfg.Appearance, styling: cfg.Styling, background: cfg.Background,
		heading: cfg.Fonts.Heading, body: cfg.Fonts.Body}
	seen := map[fontFace]bool{}
	for _, f := range []config.Font{cfg.Fonts.Heading, cfg.Fonts.Body} {
		if face, ok := t.fontFace(f); ok && !seen[face] {
			seen[face] = true
			lk.faces = append(lk.faces, face)
		}
	}
	lk.bgLight = t.configFile(cfg.Background.ImageLight, "background.image")
	lk.bgDark = lk.bgLight
	if cfg.Background.ImageDark != cfg.Background.ImageLight {
		lk.bgDark = t.configFile(cfg.Background.ImageDark, "background.image")
	}
	return lk
}

// fontFace returns the @font-face of font f when its file is in the
// repository. A font without a file, or with one on another host, is not
// downloaded: pages name its family first, so that it applies where it
// is installed, and a warning says so.
func (t *Theme) fontFace(f config.Font) (fontFace, bool) {
	cfg := t.s.Config
	if f.Family == "" {
		if f.Source != "" {
			cfg.Warn(t.w, f.Source, "font file %q has no family (fonts.family); not used", f.Source)
		}
		return fontFace{}, false
	}
	if f.Source == "" {
		cfg.Warn(t.w, f.Family, "font %q is not downloaded (pages load nothing from font services): give fonts.source a font file of the repository, or pages use it only where it is installed", f.Family)
		return fontFace{}, false
	}
	switch tg := t.s.Links.Resolve("", f.Source); tg.Kind {
	case links.File:
		return fontFace{family: f.Family, weight: f.Weight, file: tg.Path, format: f.Format}, true
	case links.External:
		cfg.Warn(t.w, f.Source, "font file %q is on another host and is not downloaded (pages load nothing from other hosts): add it to the repository, or pages use %q only where it is installed", f.Source, f.Family)
	default:
		cfg.Warn(t.w, f.Source, "font file %q not found", f.Source)
	}
	return fontFace{}, false
}

// htmlTheme is the data-theme of the <html> element: the mode the site
// opens in when it is not the reader's preference, else "".
func (lk *look) htmlTheme() string {
	if lk.appearance.Default == config.ModeLight || lk.appearance.Default == config.ModeDark {
		return lk.appearance.Default
	}
	return ""
}

// css returns the stylesheet of the configured look, written after the
// theme's (Theme.CSS): fonts, background, code block mode. URLs in it
// are relative to _lectern/style.css.
func (t *Theme) lookCSS() string {
	lk := &t.look
	var b strings.Builder
	b.WriteString("\n/* The site's settings (docs.json fonts, background, styling) */\n")
	for _, f := range lk.faces {
		b.WriteString(`@font-face { font-family: "` + f.family + `"; src: url(` + cssString(t.s.Links.AssetURL(styleFile, f.file)) + `)`)
		if f.format != "" {
			b.WriteString(` format("` + f.format + `")`)
		}
		if f.weight != "" {
			b.WriteString("; font-weight: " + f.weight)
		}
		b.WriteString("; font-display: swap; }\n")
	}
	var root []string
	if lk.body.Family != "" {
		root = append(root, `--lc-font: "`+lk.body.Family+`", var(--lc-font-system)`)
	}
	if lk.heading.Family != "" {
		root = append(root, `--lc-font-heading: "`+lk.heading.Family+`", var(--lc-font-system)`)
	}
	if lk.background.Light != "" {
		root = append(root, "--lc-bg: "+lk.background.Light, "--lc-bg-soft: color-mix(in srgb, var(--lc-bg) 96%, var(--lc-fg))")
	}
	if len(root) > 0 {
		b.WriteString(":root { " + strings.Join(root, "; ") + "; }\n")
	}
	if lk.body.Weight != "" {
		b.WriteString("body { font-weight: " + lk.body.Weight + "; }\n")
	}
	if lk.heading.Weight != "" {
		b.WriteString("h1, h2, h3, h4, h5, h6, .lc-title { font-weight: " + lk.heading.Weight + "; }\n")
	}
	if c := lk.background.Dark; c != "" {
		dark := "--lc-bg: " + c + "; --lc-bg-soft: color-mix(in srgb, var(--lc-bg) 94%, var(--lc-fg)); --lc-code-bg: color-mix(in srgb, var(--lc-bg) 90%, var(--lc-fg));"
		b.WriteString(darkRule(":root", dark))
	}
	t.backgroundCSS(&b)
	codeBlocksCSS(&b, lk.styling.Codeblocks)
	return b.String()
}

// styleFile is the theme's stylesheet, from which its URLs are relative.
const styleFile = "_lectern/style.css"

// darkRule returns the rule of decls for selector sel (starting with
// :root) in dark mode, in the form of the system's preference, which
// Theme.CSS completes with the toggle's (dark.go).
func darkRule(sel, decls string) string {
	return darkMedia + " " + systemDark + strings.TrimPrefix(sel, ":root") + " { " + decls + " } }\n"
}

// backgroundCSS writes the background image and decoration.
func (t *Theme) backgroundCSS(b *strings.Builder) {
	lk := &t.look
	image := func(file string) string {
		return "background-image: url(" + cssString(t.s.Links.AssetURL(styleFile, file)) + ");"
	}
	if lk.bgLight != "" {
		b.WriteString("body { " + image(lk.bgLight) + " background-size: cover; background-position: top center; background-repeat: no-repeat; background-attachment: fixed; }\n")
	}
	if lk.bgDark != lk.bgLight && lk.bgDark != "" {
		b.WriteString(darkRule(":root body", image(lk.bgDark)))
	}
	switch lk.background.Decoration {
	case "gradient":
		b.WriteString(`body::before { content: ""; position: absolute; z-index: -1; inset: 0 0 auto; height: 640px; pointer-events: none; ` +
			"background: radial-gradient(ellipse 70% 60% at 50% -10%, color-mix(in srgb, var(--lc-accent) 22%, transparent), transparent 70%); }\n")
	case "grid":
		b.WriteString(`body::before { content: ""; position: absolute; z-index: -1; inset: 0 0 auto; height: 640px; pointer-events: none; ` +
			"background-image: linear-gradient(to right, color-mix(in srgb, var(--lc-fg) 7%, transparent) 1px, transparent 1px), " +
			"linear-gradient(to bottom, color-mix(in srgb, var(--lc-fg) 7%, transparent) 1px, transparent 1px); background-size: 48px 48px; " +
			"-webkit-mask-image: linear-gradient(to bottom, #000, transparent); mask-image: linear-gradient(to bottom, #000, transparent); }\n")
	}
}

// Code block colours of either mode, for styling.codeblocks "dark" and
// "light" (the theme's own values, scoped to code blocks).
const (
	codeDarkVars  = "--lc-code-bg: #1b1f27; --lc-border: #2a2f38; --lc-fg: #e6e8eb; --lc-fg-soft: #9aa3ad; --lc-bg: #0f1115; color: #e6e8eb; color-scheme: dark;"
	codeLightVars = "--lc-code-bg: #f3f4f6; --lc-border: #e3e6ea; --lc-fg: #1f2328; --lc-fg-soft: #59636e; --lc-bg: #ffffff; color: #1f2328; color-scheme: light;"
)

// codeBlocksCSS writes the rules that keep code blocks dark (or light)
// in both modes: the highlighting of that mode (render/highlight's
// rules, under a selector that wins over the other mode's) and the
// colours of the block around it.
func codeBlocksCSS(b *strings.Builder, mode string) {
	if mode != config.ModeDark && mode != config.ModeLight {
		return
	}
	const scope = "html .lc-body " // as specific as highlight's dark rules, and later
	vars := codeDarkVars
	if mode == config.ModeLight {
		vars = codeLightVars
	}
	b.WriteString(scope + ".lc-code, " + scope + ".lc-code-group.lc-tabbed { " + vars + " }\n")
	inMedia := false
	for _, line := range strings.Split(string(highlight.CSS()), "\n") {
		switch {
		case strings.HasPrefix(line, "@media"):
			inMedia = true
		case inMedia && line == "}":
			inMedia = false
		case mode == config.ModeDark && strings.HasPrefix(line, `html[data-theme="dark"] `):
			b.WriteString(scope + strings.TrimPrefix(line, `html[data-theme="dark"] `) + "\n")
		case mode == config.ModeLight && !inMedia && strings.HasPrefix(line, ".chroma"):
			if !strings.HasPrefix(line, ".chroma {") {
				// Undo what the dark style sets and the light one does not.
				line = strings.Replace(line, "{ ", "{ color: inherit; background-color: transparent; font-weight: inherit; font-style: inherit; ", 1)
			}
			b.WriteString(scope + line + "\n")
		}
	}
}

// cssString quotes s as a CSS string.
func cssString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\a `, "\r", "", "\f", "")
	return `"` + r.Replace(s) + `"`
}
