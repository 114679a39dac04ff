package config

import (
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"lectern.dev/lectern/render/diag"
)

// load reads docs as the configuration file name and returns it with the
// messages of its warnings.
func load(t *testing.T, name, docs string) (*Config, []string) {
	t.Helper()
	var w diag.Warner
	cfg, err := Load(fstest.MapFS{name: {Data: []byte(docs)}}, &w, 1<<20)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	var msgs []string
	for _, x := range w.List() {
		msgs = append(msgs, x.Message)
	}
	return cfg, msgs
}

func TestLookDefaults(t *testing.T) {
	t.Parallel()
	cfg, warns := load(t, "docs.json", `{"name": "X"}`)
	if len(warns) > 0 {
		t.Errorf("warnings: %v", warns)
	}
	want := Appearance{Default: ModeSystem}
	if cfg.Appearance != want || cfg.Styling != (Styling{Eyebrows: EyebrowsSection, Codeblocks: ModeSystem}) ||
		cfg.Fonts != (Fonts{}) || cfg.Background != (Background{}) || cfg.NavbarPrimary != nil {
		t.Errorf("defaults: %+v %+v %+v %+v %+v", cfg.Appearance, cfg.Styling, cfg.Fonts, cfg.Background, cfg.NavbarPrimary)
	}
}

func TestLookSettings(t *testing.T) {
	t.Parallel()
	cfg, warns := load(t, "docs.json", `{
  "appearance": {"default": "Dark", "strict": true},
  "fonts": {"family": "Inter", "weight": 450, "source": "/fonts/Inter.woff2",
    "heading": {"family": "Playfair Display", "weight": "700"},
    "body": {"weight": 400}},
  "background": {"color": {"light": "#F8FAFC", "dark": "#0F172A"}, "decoration": "grid",
    "image": {"light": "/bg/light.png"}},
  "styling": {"eyebrows": "breadcrumbs", "codeblocks": "dark"}
}`)
	if len(warns) > 0 {
		t.Errorf("warnings: %v", warns)
	}
	if cfg.Appearance != (Appearance{Default: ModeDark, Strict: true}) {
		t.Errorf("appearance = %+v", cfg.Appearance)
	}
	wantFonts := Fonts{
		Heading: Font{Family: "Playfair Display", Weight: "700"},
		Body:    Font{Family: "Inter", Weight: "400", Source: "/fonts/Inter.woff2", Format: "woff2"},
	}
	if cfg.Fonts != wantFonts {
		t.Errorf("fonts = %+v, want %+v", cfg.Fonts, wantFonts)
	}
	wantBg := Background{Light: "#F8FAFC", Dark: "#0F172A", Decoration: "grid", ImageLight: "/bg/light.png", ImageDark: "/bg/light.png"}
	if cfg.Background != wantBg {
		t.Errorf("background = %+v, want %+v", cfg.Background, wantBg)
	}
	if cfg.Styling != (Styling{Eyebrows: EyebrowsBreadcrumbs, Codeblocks: ModeDark}) {
		t.Errorf("styling = %+v", cfg.Styling)
	}
}

func TestLookBadValues(t *testing.T) {
	t.Parallel()
	cfg, warns := load(t, "docs.json", `{
  "appearance": {"default": "sepia", "strict": "yes"},
  "fonts": {"family": "Evil\"; } body { display: none", "weight": 5000, "source": "/f/x.eot",
    "body": {"family": "Body Font", "weight": "heavy"}},
  "background": {"color": {"light": "url(https://x.test/a.png)", "dark": "#000"}, "decoration": "sparkles"},
  "styling": {"eyebrows": "title", "codeblocks": 42}
}`)
	for _, want := range []string{
		`appearance.default "sepia" is not one of system, light, dark; using "system"`,
		`appearance.strict "yes" is not true or false`,
		`fonts.family "Evil\"; } body { display: none" is not a font family name`,
		`fonts.weight 5000 is not a font weight`,
		`fonts.format of "/f/x.eot" is not woff or woff2`,
		`fonts.body.weight "heavy" is not a font weight`,
		`background.color.light "url(https://x.test/a.png)" is not a colour`,
		`background.decoration "sparkles" is not one of gradient, grid, windows`,
		`styling.eyebrows "title" is not one of section, breadcrumbs`,
		`styling.codeblocks 42 is not "system"`,
	} {
		found := false
		for _, w := range warns {
			found = found || strings.Contains(w, want)
		}
		if !found {
			t.Errorf("no warning %q in:\n%s", want, strings.Join(warns, "\n"))
		}
	}
	if cfg.Appearance != (Appearance{Default: ModeSystem}) || cfg.Styling != (Styling{Eyebrows: EyebrowsSection, Codeblocks: ModeSystem}) {
		t.Errorf("bad values were not replaced by defaults: %+v %+v", cfg.Appearance, cfg.Styling)
	}
	if cfg.Fonts.Heading.Family != "" || cfg.Fonts.Heading.Weight != "" || cfg.Fonts.Body.Family != "Body Font" {
		t.Errorf("fonts = %+v", cfg.Fonts)
	}
	if cfg.Background.Light != "" || cfg.Background.Dark != "#000" || cfg.Background.Decoration != "" {
		t.Errorf("background = %+v", cfg.Background)
	}
	_, warns = load(t, "docs.json", `{"appearance": "dark", "styling": [1], "fonts": 3}`)
	if len(warns) != 3 {
		t.Errorf("settings that are not objects: warnings %v", warns)
	}
}

func TestLookCodeblocks(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`"system"`: ModeSystem, `"dark"`: ModeDark, `"Dracula"`: ModeDark, `"github-light"`: ModeLight,
		`"one-dark-pro"`: ModeDark, `"min-light"`: ModeLight, `"catppuccin-latte"`: ModeLight, `"rose-pine-dawn"`: ModeLight,
		`{"theme": "nord"}`: ModeDark, `{"theme": {"light": "github-light", "dark": "github-dark"}}`: ModeSystem,
	} {
		cfg, warns := load(t, "docs.json", `{"styling": {"codeblocks": `+in+`}}`)
		if cfg.Styling.Codeblocks != want || len(warns) > 0 {
			t.Errorf("codeblocks %s = %q (warnings %v), want %q", in, cfg.Styling.Codeblocks, warns, want)
		}
	}
}

func TestLookMintJSON(t *testing.T) {
	t.Parallel()
	cfg, warns := load(t, "mint.json", `{"name": "M", "navigation": [],
  "modeToggle": {"default": "light", "isHidden": true},
  "font": {"headings": {"family": "Lora"}, "body": {"family": "Inter", "url": "https://fonts.test/inter.woff2"}},
  "colors": {"primary": "#123456", "background": {"dark": "#101010"}},
  "backgroundImage": "/bg.png",
  "topbarCtaButton": {"type": "github", "url": "https://github.com/acme/widgets"}}`)
	if len(warns) > 0 {
		t.Errorf("warnings: %v", warns)
	}
	if cfg.Appearance != (Appearance{Default: ModeLight, Strict: true}) {
		t.Errorf("appearance = %+v", cfg.Appearance)
	}
	if cfg.Fonts.Heading.Family != "Lora" || cfg.Fonts.Body != (Font{Family: "Inter", Source: "https://fonts.test/inter.woff2", Format: "woff2"}) {
		t.Errorf("fonts = %+v", cfg.Fonts)
	}
	if cfg.Background != (Background{Dark: "#101010", ImageLight: "/bg.png", ImageDark: "/bg.png"}) {
		t.Errorf("background = %+v", cfg.Background)
	}
	if want := (&Button{Type: "github", Label: "widgets", Href: "https://github.com/acme/widgets"}); !reflect.DeepEqual(cfg.NavbarPrimary, want) {
		t.Errorf("button = %+v, want %+v", cfg.NavbarPrimary, want)
	}
}

func TestNavbarPrimary(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]*Button{
		`{"type": "button", "label": "Start", "href": "https://a.test"}`:   {Type: "button", Label: "Start", Href: "https://a.test"},
		`{"type": "github", "href": "https://github.com/org/repo.git"}`:    {Type: "github", Label: "repo", Href: "https://github.com/org/repo.git"},
		`{"type": "github", "href": "https://github.com/org"}`:             {Type: "github", Label: "GitHub", Href: "https://github.com/org"},
		`{"type": "GitHub", "label": "Star us", "href": "https://g.test"}`: {Type: "github", Label: "Star us", Href: "https://g.test"},
		`{"type": "discord", "href": "https://discord.gg/x"}`:              {Type: "discord", Label: "Discord", Href: "https://discord.gg/x"},
		`{"label": "No href"}`: nil,
	} {
		cfg, _ := load(t, "docs.json", `{"navbar": {"links": [{"label": "L", "href": "/l"}], "primary": `+in+`}}`)
		if !reflect.DeepEqual(cfg.NavbarPrimary, want) {
			t.Errorf("primary %s = %+v, want %+v", in, cfg.NavbarPrimary, want)
		}
		if len(cfg.NavbarLinks) != 1 {
			t.Errorf("primary %s: navbar links %+v, want the one link", in, cfg.NavbarLinks)
		}
	}
	_, warns := load(t, "docs.json", `{"navbar": {"primary": {"type": "rocket", "label": "Go", "href": "/go"}}}`)
	if len(warns) != 1 || !strings.Contains(warns[0], `navbar.primary.type "rocket" is not button, github or discord`) {
		t.Errorf("warnings = %v", warns)
	}
}

// FuzzLook checks that any configuration gives settings a stylesheet can
// hold as they are: family names, weights and colours that cannot close
// a declaration or load anything.
func FuzzLook(f *testing.F) {
	f.Add(`{"fonts": {"family": "Inter", "weight": 400, "heading": {"family": "A B"}}, "background": {"color": {"light": "#fff"}}}`)
	f.Add(`{"appearance": {"default": "dark"}, "styling": {"codeblocks": {"theme": "x"}}, "navbar": {"primary": {"type": "github", "href": "https://github.com/a/b"}}}`)
	f.Add(`{"font": {"family": "x;}", "url": "u"}, "modeToggle": {"default": 1}, "colors": {"background": {"dark": "red"}}}`)
	f.Fuzz(func(t *testing.T, docs string) {
		var w diag.Warner
		cfg, err := Load(fstest.MapFS{"docs.json": {Data: []byte(docs)}}, &w, 1<<20)
		if err != nil || cfg == nil {
			return
		}
		for _, font := range []Font{cfg.Fonts.Heading, cfg.Fonts.Body} {
			if font.Family != "" && !validFamily(font.Family) || strings.ContainsAny(font.Weight, ";{}\"'\\()") {
				t.Errorf("unsafe font %+v", font)
			}
		}
		for _, c := range []string{cfg.Background.Light, cfg.Background.Dark} {
			if strings.ContainsAny(c, ";{}\"'\\:") {
				t.Errorf("unsafe colour %q", c)
			}
		}
		switch cfg.Appearance.Default + "/" + cfg.Styling.Eyebrows {
		case "system/section", "light/section", "dark/section", "system/breadcrumbs", "light/breadcrumbs", "dark/breadcrumbs":
		default:
			t.Errorf("appearance %+v, styling %+v", cfg.Appearance, cfg.Styling)
		}
	})
}
