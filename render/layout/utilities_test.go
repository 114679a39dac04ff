package layout

import (
	"flag"
	"os"
	"strings"
	"testing"
)

var updateUtilities = flag.Bool("update", false, "rewrite theme/utilities.css from utilityClasses")

// TestUtilitiesCSS checks that theme/utilities.css is what utilityClasses
// gives (with -update, it writes it), and that it stays small.
func TestUtilitiesCSS(t *testing.T) {
	t.Parallel()
	css, err := generateUtilitiesCSS()
	if err != nil {
		t.Fatal(err)
	}
	if *updateUtilities {
		if err := os.WriteFile("theme/utilities.css", []byte(css), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if string(utilitiesCSS) != css {
		t.Fatal("theme/utilities.css is not what utilityClasses gives: go test ./render/layout -run UtilitiesCSS -update")
	}
	if len(css) > 40<<10 {
		t.Errorf("utilities.css has %d bytes: keep to the classes pages use", len(css))
	}
}

// TestUtilityRules checks the rules of the classes Mintlify's pages use
// most: dark-mode visibility, spacing, colours with opacity, variants, as
// pages get them (with the toggle's dark rules, dark.go).
func TestUtilityRules(t *testing.T) {
	t.Parallel()
	css := withToggleDark(string(utilitiesCSS))
	for _, want := range []string{
		".block { display: block }",
		".hidden { display: none }",
		`:root[data-theme="dark"] .dark\:hidden { display: none }`,
		`:root[data-theme="dark"] .dark\:block { display: block }`,
		`  :root:not([data-theme="light"]) .dark\:hidden { display: none }`,
		".rounded-xl { border-radius: 0.75rem }",
		".w-full { width: 100% }",
		".aspect-video { aspect-ratio: 16 / 9 }",
		`.mt-1\.5 { margin-top: 0.375rem }`,
		".mx-auto { margin-left: auto; margin-right: auto }",
		`.w-1\/2 { width: 50% }`,
		".space-y-4 > :not([hidden]) ~ :not([hidden]) { margin-top: 1rem }",
		`.text-zinc-950\/80 { color: color-mix(in srgb, #09090b 80%, transparent) }`,
		`:root[data-theme="dark"] .dark\:text-primary-light { color: var(--lc-primary-light) }`,
		`.-translate-x-1\/2 { transform: translateX(-50%) }`,
		`.group:hover .group-hover\:underline { text-decoration-line: underline }`,
		`.hover\:opacity-80:hover { opacity: 0.8 }`,
		`:root[data-theme="dark"] .dark\:hover\:bg-zinc-700:hover { background-color: #3f3f46 }`,
		"@media (min-width: 640px) {\n  .sm\\:block { display: block }",
		`  .sm\:grid-cols-2 { grid-template-columns: repeat(2, minmax(0, 1fr)) }`,
	} {
		if !strings.Contains(css, want) {
			t.Errorf("utilities.css lacks %s", want)
		}
	}
	// A colour class comes after the width that sets the theme's colour.
	if strings.Index(css, ".border {") > strings.Index(css, ".border-gray-200 {") {
		t.Errorf("border colours precede the border widths")
	}
	// The dark variants come after the base classes, so that
	// "hidden dark:block" shows the element in dark mode.
	if strings.Index(css, ".hidden {") > strings.Index(css, `.dark\:block`) {
		t.Errorf("dark variants precede the base classes")
	}
}

// TestUtilityRuleErrors checks that the generator refuses classes it has
// no rule for rather than writing a wrong one.
func TestUtilityRuleErrors(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"w-[350px]", "text-purple-500", "grid-cols-x", "opacity-150", "bg-"} {
		if d, _, ok := utilityRule(name); ok {
			t.Errorf("utilityRule(%q) = %q, want no rule", name, d)
		}
	}
}
