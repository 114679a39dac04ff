package layout

import (
	"strings"
	"testing"
)

func TestWithToggleDark(t *testing.T) {
	t.Parallel()
	in := `.a { color: red; }
@media (prefers-color-scheme: dark) {
  :root:not([data-theme="light"]) {
    --lc-bg: #000;
  }
  :root:not([data-theme="light"]) .x, :root:not([data-theme="light"]) .y { display: none; }
}
.b { color: blue; }
@media (min-width: 640px) { .c { display: block } }
@media (prefers-color-scheme: dark) { :root:not([data-theme="light"]) body { background: #111; } }
`
	want := `.a { color: red; }
@media (prefers-color-scheme: dark) {
  :root:not([data-theme="light"]) {
    --lc-bg: #000;
  }
  :root:not([data-theme="light"]) .x, :root:not([data-theme="light"]) .y { display: none; }
}
:root[data-theme="dark"] {
  --lc-bg: #000;
}
:root[data-theme="dark"] .x, :root[data-theme="dark"] .y { display: none; }
.b { color: blue; }
@media (min-width: 640px) { .c { display: block } }
@media (prefers-color-scheme: dark) { :root:not([data-theme="light"]) body { background: #111; } }
:root[data-theme="dark"] body { background: #111; }
`
	if got := withToggleDark(in); got != want {
		t.Errorf("withToggleDark:\n%s\nwant:\n%s", got, want)
	}
	for _, s := range []string{"", ".a {}", darkMedia + " .x { color: red; }", darkMedia + "\n}"} {
		if got := withToggleDark(s); got != s && s != "" {
			t.Errorf("withToggleDark(%q) = %q", s, got)
		}
	}
}

// Every rule of the theme's dark blocks is for the system's preference,
// so that its copy is for the toggle's, and no rule is written in the
// toggle's form by hand (it would be missing from the other form).
func TestThemeDarkRules(t *testing.T) {
	t.Parallel()
	for name, css := range map[string]string{"style.css": string(styleCSS), "utilities.css": string(utilitiesCSS)} {
		if strings.Contains(css, toggleDark+" ") || strings.Contains(css, toggleDark+"{") {
			t.Errorf("%s writes a rule for %s: write it in a %q block", name, toggleDark, darkMedia)
		}
		blocks := 0
		for rest := css; ; {
			i := strings.Index(rest, darkMedia)
			if i < 0 {
				break
			}
			start := i + len(darkMedia)
			end := closingBrace(rest, start)
			if end < 0 {
				t.Fatalf("%s: a dark block does not close", name)
			}
			blocks++
			for _, rule := range blockRules(rest[start:end]) {
				sel, _, _ := strings.Cut(rule, "{")
				for _, part := range strings.Split(sel, ",") {
					if !strings.HasPrefix(strings.TrimSpace(part), systemDark) {
						t.Errorf("%s: dark rule %q does not start with %s", name, strings.TrimSpace(part), systemDark)
					}
				}
			}
			rest = rest[end+1:]
		}
		if blocks == 0 {
			t.Errorf("%s has no dark block", name)
		}
	}
	if css := string(staticCSS()); !strings.Contains(css, toggleDark+" .lc-logo-light { display: none; }") ||
		!strings.Contains(css, toggleDark+` .dark\:hidden { display: none }`) {
		t.Errorf("the theme's stylesheet lacks the toggle's dark rules")
	}
}
