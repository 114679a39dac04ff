package highlight

import (
	"bytes"
	"flag"
	"maps"
	"os"
	"regexp"
	"slices"
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
	if *updateStyles {
		if err := os.WriteFile("highlight_styles.css", css, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, gotClasses := highlightStyles()
	if !bytes.Equal(got, css) {
		t.Fatal("highlight_styles.css is not what chroma's styles give: go test ./render/highlight -run HighlightStylesCSS -update")
	}
	if !maps.Equal(gotClasses, classes) {
		t.Fatalf("classes read from highlight_styles.css:\n%v\nfrom chroma's styles:\n%v", slices.Sorted(maps.Keys(gotClasses)), slices.Sorted(maps.Keys(classes)))
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

// TestStyledClass checks which token classes styledClasses finds, line
// by line and in the whole of highlight_styles.css.
func TestStyledClass(t *testing.T) {
	t.Parallel()
	cases := []struct{ line, want string }{
		{".chroma .k { color: red }", "k"},
		{"html .chroma .s2 {", "s2"},
		{"html[data-theme=\"dark\"] .chroma .c1 { x }", "c1"},
		{"html:not([data-theme=\"light\"]) .chroma .nf { x }", "nf"},
		{"html .chroma .kd_2 {", "kd_2"},
		{"html\t.chroma .k {", ""},
		{".chroma .k{", ""},
		{".chroma . {", ""},
		{".chroma .a-b {", ""},
		{"xhtml .chroma .k {", ""},
		{".lc-code .chroma .hl { display: block; }", ""},
		{".chroma { color: red }", ""},
	}
	var all []byte
	for _, c := range cases {
		got := styledClasses([]byte(c.line))
		if c.want == "" && len(got) != 0 || c.want != "" && (len(got) != 1 || !got[c.want]) {
			t.Errorf("styledClasses(%q) = %v, want %q", c.line, got, c.want)
		}
		all = append(all, c.line+"\n"...)
	}
	// Line by line and all at once find the same classes.
	want := map[string]bool{"k": true, "s2": true, "c1": true, "nf": true, "kd_2": true}
	if got := styledClasses(all); !maps.Equal(got, want) {
		t.Errorf("styledClasses of all the lines = %v, want k, s2, c1, nf, kd_2", got)
	}
	union := map[string]bool{}
	for line := range bytes.Lines(highlightStylesCSS) {
		for cls := range styledClasses(line) {
			union[cls] = true
		}
	}
	_, classes := highlightStyles()
	if !maps.Equal(classes, union) {
		t.Errorf("highlightStyles' classes %v, line by line %v", classes, union)
	}
	for _, cls := range []string{"k", "s2", "c1", "err", "hl"} {
		if !classes[cls] {
			t.Errorf("highlight_styles.css: class %q not found", cls)
		}
	}
}

var updateStyles = flag.Bool("update", false, "rewrite highlight_styles.css from chroma's styles")
