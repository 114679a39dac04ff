package render

import (
	"regexp"
	"strings"
	"testing"
)

// lookSite sets every setting of the site's look: appearance, fonts (a
// bundled file, a file on another host, a family without a file),
// background, styling, a GitHub button, and has stylesheets of its own.
const lookSite = `
-- docs.json --
{
  "name": "Look",
  "colors": {"primary": "#f5f5f5", "light": "#fafafa", "dark": "#eeeeee"},
  "appearance": {"default": "dark", "strict": true},
  "fonts": {"family": "Brand Sans", "weight": 450, "source": "/fonts/brand.woff2",
    "heading": {"family": "Hubot Sans", "source": "https://cdn.test/hubot.woff2", "format": "woff2", "weight": 700}},
  "background": {"color": {"light": "#f8fafc", "dark": "#0f172a"}, "decoration": "grid", "image": "/img/bg.png"},
  "styling": {"codeblocks": "dark"},
  "navbar": {"primary": {"type": "github", "href": "https://github.com/acme/rocket"}},
  "navigation": {"groups": [{"group": "Start", "pages": ["index", "guide/setup"]}]}
}
-- index.mdx --
# Home
-- guide/setup.mdx --
---
title: Setup
---
Text with [a link](/index).

<img className="block dark:hidden rounded-xl" src="/img/bg.png" alt="light" />
-- fonts/brand.woff2 --
woff2
-- img/bg.png --
PNG
-- style.css --
#navbar { background: #fffff2; }
-- theme/z.css --
/* @import url("https://commented.test/x.css"); */
@import url("https://fonts.googleapis.com/css2?family=Inter");
@import "local.css";
.hero { background: url(https://img.test/hero.png) no-repeat; }
.logo { background-image: url("/img/bg.png"); }
-- theme/local.css --
.x { color: red; }
-- node_modules/pkg/skip.css --
.skip {}
`

func TestLookCustomCSS(t *testing.T) {
	t.Parallel()
	for _, export := range []bool{false, true} {
		opts := Options{Export: export}
		if !export {
			opts.BasePath = "/docs"
		}
		res, out := build(t, lookSite, opts)
		setup := out.get(t, "guide/setup.html")
		u := func(live, exp string) string {
			if export {
				return exp
			}
			return live
		}
		// Every .css file of the repository, by path, after the theme's.
		links := regexp.MustCompile(`<link rel="stylesheet" href="([^"]+)">`).FindAllStringSubmatch(setup, -1)
		var got []string
		for _, l := range links {
			got = append(got, l[1])
		}
		want := []string{u("/docs/_lectern/style.css", "../_lectern/style.css"), u("/docs/style.css", "../style.css"),
			u("/docs/theme/local.css", "../theme/local.css"), u("/docs/theme/z.css", "../theme/z.css")}
		if strings.Join(got, " ") != out.named(strings.Join(want, " ")) {
			t.Errorf("export=%v: stylesheets %v, want %v", export, got, want)
		}
		for _, f := range []string{"style.css", "theme/z.css", "theme/local.css"} {
			if !out.has(f) {
				t.Errorf("export=%v: %s not copied", export, f)
			}
		}
		if strings.Contains(setup, "<style") {
			t.Errorf("export=%v: a stylesheet was inlined", export)
		}
		var warns []string
		for _, w := range res.Warnings {
			if strings.HasPrefix(w.File, "theme/") || w.File == "style.css" {
				warns = append(warns, w.String())
			}
		}
		wantWarns := []string{
			`theme/z.css:2: @import "https://fonts.googleapis.com/css2?family=Inter" is on another host and is not loaded`,
			`theme/z.css:4: url() "https://img.test/hero.png" is on another host and is not loaded`,
		}
		if len(warns) != len(wantWarns) {
			t.Errorf("export=%v: stylesheet warnings %q, want %q", export, warns, wantWarns)
		}
		for i := range min(len(warns), len(wantWarns)) {
			if !strings.HasPrefix(warns[i], wantWarns[i]) {
				t.Errorf("export=%v: warning %q, want %q…", export, warns[i], wantWarns[i])
			}
		}
	}
}

func TestLookSettingsCSS(t *testing.T) {
	t.Parallel()
	for _, export := range []bool{false, true} {
		res, out := build(t, lookSite, Options{Export: export})
		css := out.get(t, "_lectern/style.css")
		fontURL := "/fonts/brand.woff2"
		if export {
			fontURL = "../fonts/brand.woff2"
		}
		for _, want := range []string{
			`@font-face { font-family: "Brand Sans"; src: url("` + fontURL + `") format("woff2"); font-weight: 450; font-display: swap; }`,
			`--lc-font: "Brand Sans", var(--lc-font-system)`,
			`--lc-font-heading: "Hubot Sans", var(--lc-font-system)`,
			"--lc-bg: #f8fafc",
			"body { font-weight: 450; }",
			"h1, h2, h3, h4, h5, h6, .lc-title { font-weight: 700; }",
			`:root[data-theme="dark"] { --lc-bg: #0f172a;`,
			`background-size: 48px 48px`,
			// styling.codeblocks "dark": the dark highlighting in both modes
			"html .lc-body .lc-code, html .lc-body .lc-code-group.lc-tabbed { --lc-code-bg: #1b1f27;",
			"html .lc-body .chroma { color: #e6edf3; background-color: #0d1117;",
			// a near-white primary: a dark label on its buttons
			"--lc-on-button: #111827",
			// and accents darkened until readable on the light background
			"--lc-accent-on-light: #8",
			// utility classes
			`:root[data-theme="dark"] .dark\:hidden { display: none }`,
		} {
			if !strings.Contains(css, want) {
				t.Errorf("export=%v: style.css lacks %s", export, want)
			}
		}
		if strings.Contains(css, "cdn.test") || strings.Contains(css, "hubot.woff2") {
			t.Errorf("export=%v: style.css names the font file on another host", export)
		}
		var msgs []string
		for _, w := range res.Warnings {
			if w.File == "docs.json" {
				msgs = append(msgs, w.Message)
			}
		}
		joined := strings.Join(msgs, "\n")
		for _, want := range []string{
			`font file "https://cdn.test/hubot.woff2" is on another host and is not downloaded`,
			`colour #f5f5f5 is hard to read on the light background #f8fafc (contrast 1.0:1, under 3:1); accents use #`,
		} {
			if strings.Count(joined, want) != 1 {
				t.Errorf("export=%v: want one warning %q in:\n%s", export, want, joined)
			}
		}
		checkNoExternalRefs(t, map[string][]byte{"guide/setup.html": []byte(out.get(t, "guide/setup.html")), "_lectern/style.css": []byte(css)})
	}
}

func TestLookFontWithoutFile(t *testing.T) {
	t.Parallel()
	const site = `
-- docs.json --
{"fonts": {"family": "Inter", "heading": {"family": "Inter"}}, "navigation": {"pages": ["index"]}}
-- index.mdx --
# Hi
`
	res, out := build(t, site, Options{Export: true})
	css := out.get(t, "_lectern/style.css")
	if !strings.Contains(css, `--lc-font: "Inter", var(--lc-font-system)`) || strings.Contains(css, "@font-face") {
		t.Errorf("style.css does not name Inter first without a @font-face")
	}
	n := 0
	for _, w := range res.Warnings {
		if strings.Contains(w.Message, `font "Inter" is not downloaded`) {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d warnings that Inter is not downloaded, want one: %v", n, res.Warnings)
	}
}

func TestLookAppearanceAndButton(t *testing.T) {
	t.Parallel()
	_, out := build(t, lookSite, Options{})
	setup := out.get(t, "guide/setup.html")
	for _, want := range []string{
		`<html lang="en" data-theme="dark" data-theme-strict data-current-path="/guide/setup">`,
		`<a class="lc-navbar-primary lc-navbar-github" id="topbar-cta-button" href="https://github.com/acme/rocket" rel="noopener"><svg class="lc-icon" data-icon="github"`,
		`</svg>rocket</a>`,
		// Links in the text and utility classes pass through.
		`<a href="/">a link</a>`,
		`<img class="block dark:hidden rounded-xl" src="/img/bg.png" alt="light">`,
	} {
		if !strings.Contains(setup, want) {
			t.Errorf("guide/setup.html lacks %s", want)
		}
	}
	if strings.Contains(setup, "lc-theme-toggle") {
		t.Errorf("appearance.strict: the page has a theme toggle")
	}
	if !strings.Contains(out.get(t, "index.html"), ` data-current-path="/">`) {
		t.Errorf("index.html's data-current-path is not /")
	}
	// Without appearance settings: the reader's preference, a toggle.
	_, out = build(t, themeSite, Options{})
	index := out.get(t, "index.html")
	if !strings.Contains(index, `<html lang="en" data-current-path="/">`) || !strings.Contains(index, `<button class="lc-theme-toggle"`) {
		t.Errorf("default appearance: no toggle, or a data-theme")
	}
}

// TestLookEyebrows checks that the page's title is never repeated above
// it: the group as eyebrow by default, the path of divisions and groups
// as breadcrumbs with styling.eyebrows, a label repeated by the level
// below it shown once.
func TestLookEyebrows(t *testing.T) {
	t.Parallel()
	const site = `
-- docs.json --
{"navigation": {"tabs": [{"tab": "Overview", "groups": [{"group": "Overview", "pages": ["index", {"group": "More", "pages": ["more"]}]}]}]}%s}
-- index.mdx --
# Welcome
-- more.mdx --
# More page
`
	_, out := build(t, strings.Replace(site, "%s", "", 1), Options{})
	more := out.get(t, "more.html")
	if !strings.Contains(more, `<p class="lc-eyebrow eyebrow">More</p>`) || strings.Contains(more, "lc-breadcrumbs") {
		t.Errorf("section eyebrows: more.html shows breadcrumbs or no eyebrow")
	}
	_, out = build(t, strings.Replace(site, "%s", `, "styling": {"eyebrows": "breadcrumbs"}`, 1), Options{})
	more = out.get(t, "more.html")
	want := `<ol class="breadcrumb-list"><li class="breadcrumb-item"><a href="/">Overview</a></li><li class="breadcrumb-item"><span>More</span></li></ol>`
	if !strings.Contains(more, want) || strings.Contains(more, "lc-eyebrow") {
		t.Errorf("breadcrumbs: more.html lacks %s, or has an eyebrow", want)
	}
	if strings.Contains(more, `<span aria-current="page">`) {
		t.Errorf("breadcrumbs repeat the page's title")
	}
}
