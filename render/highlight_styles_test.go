package render

import (
	"bytes"
	"maps"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/styles"
)

// TestHighlightStylesCSS checks that highlight_styles.css is the CSS of
// chroma's styles; with -update, it writes it.
func TestHighlightStylesCSS(t *testing.T) {
	t.Parallel()
	css, classes := generateHighlightStyles()
	if *updateGolden {
		if err := os.WriteFile("highlight_styles.css", css, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, gotClasses := highlightStyles()
	if !bytes.Equal(got, css) {
		t.Fatal("highlight_styles.css is not what chroma's styles give: go test ./render -run HighlightStylesCSS -update")
	}
	if !maps.Equal(gotClasses, classes) {
		t.Fatalf("classes read from highlight_styles.css:\n%v\nfrom chroma's styles:\n%v", sortedKeys(gotClasses), sortedKeys(classes))
	}
}

// generateHighlightStyles computes from chroma's styles what
// highlightStyles holds: the CSS and the token classes that carry a style
// in either style.
func generateHighlightStyles() ([]byte, map[string]bool) {
	light := chromaRules(lightStyle)
	dark := chromaRules(darkStyle)
	defined := map[string]bool{}
	for sel := range light {
		defined[sel] = true
	}
	for sel := range dark {
		defined[sel] = true
	}
	var b bytes.Buffer
	b.WriteString("/* Syntax highlighting (chroma styles " + lightStyle + " and " + darkStyle + ") */\n")
	b.WriteString(".lc-code .chroma .hl { display: block; }\n")
	sels := make([]string, 0, len(defined))
	for sel := range defined {
		sels = append(sels, sel)
	}
	sort.Strings(sels)
	for _, sel := range sels {
		if decl, ok := light[sel]; ok {
			b.WriteString(sel + " { " + decl + " }\n")
		}
	}
	darkRules := func(prefix string) {
		for _, sel := range sels {
			decl, ok := dark[sel]
			if sel != ".chroma" {
				// Undo what the light style sets and the dark one does not.
				decl = "color: inherit; background-color: transparent; font-weight: inherit; font-style: inherit; " + decl
			} else if !ok {
				continue
			}
			b.WriteString(prefix + sel + " { " + decl + " }\n")
		}
	}
	b.WriteString("@media (prefers-color-scheme: dark) {\n")
	darkRules(`html:not([data-theme="light"]) `)
	b.WriteString("}\n")
	darkRules(`html[data-theme="dark"] `)
	classes := map[string]bool{}
	for sel := range defined {
		if c, ok := strings.CutPrefix(sel, ".chroma ."); ok {
			classes[c] = true
		}
	}
	return b.Bytes(), classes
}

var cssRuleRE = regexp.MustCompile(`(?m)^/\* (\w+) \*/ ([^{]+?) \{ ?([^}]*?) ?\}$`)

// tokenRuleSkip are chroma's rules for markup Lectern does not produce
// (line numbers, line tables, per-line wrappers, whitespace colour).
var tokenRuleSkip = map[string]bool{
	"Background": true, "LineLink": true, "LineTableTD": true, "LineTable": true,
	"LineNumbersTable": true, "LineNumbers": true, "Line": true, "TextWhitespace": true,
}

// chromaRules returns a style's CSS as selector → declarations.
func chromaRules(style string) map[string]string {
	var buf bytes.Buffer
	f := chromahtml.New(chromahtml.WithClasses(true))
	if err := f.WriteCSS(&buf, styles.Get(style)); err != nil {
		return map[string]string{}
	}
	rules := map[string]string{}
	for _, m := range cssRuleRE.FindAllStringSubmatch(buf.String(), -1) {
		if tokenRuleSkip[m[1]] {
			continue
		}
		decl := strings.TrimSpace(m[3])
		if decl != "" && !strings.HasSuffix(decl, ";") {
			decl += ";"
		}
		rules[strings.TrimSpace(m[2])] = decl
	}
	return rules
}

// TestStyledClass checks styledClass against the regular expression it
// writes out, on every line of highlight_styles.css and a few others.
func TestStyledClass(t *testing.T) {
	t.Parallel()
	re := regexp.MustCompile(`^(?:html\S* )?\.chroma \.(\w+) \{`)
	lines := []string{".chroma .k { color: red }", "html .chroma .s2 {", "html[data-theme=\"dark\"] .chroma .c1 { x }",
		"html\t.chroma .k {", ".chroma .k{", ".chroma . {", ".chroma .a-b {", "xhtml .chroma .k {", "html .chroma .kd_2 {"}
	for line := range bytes.Lines(highlightStylesCSS) {
		lines = append(lines, strings.TrimSuffix(string(line), "\n"))
	}
	for _, line := range lines {
		want := ""
		if m := re.FindStringSubmatch(line); m != nil {
			want = m[1]
		}
		if got := styledClass([]byte(line)); got != want {
			t.Errorf("styledClass(%q) = %q, want %q", line, got, want)
		}
	}
}
