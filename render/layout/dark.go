package layout

import "strings"

// Dark mode.
//
// A page is dark when html[data-theme] says so (the toggle, a choice
// stored earlier, or appearance.default) or, without it, when the
// reader's system prefers dark; it works without script in the second
// case. The theme's stylesheets (style.css, utilities.css and the
// configured look) write each rule of dark mode once, for the system's
// preference:
//
//	@media (prefers-color-scheme: dark) {
//	  :root:not([data-theme="light"]) .x { ... }
//	}
//
// and withToggleDark follows each such block with its rules for the
// html[data-theme="dark"] form, so that the two never differ.

const (
	darkMedia  = "@media (prefers-color-scheme: dark) {"
	systemDark = `:root:not([data-theme="light"])`
	toggleDark = `:root[data-theme="dark"]`
)

// withToggleDark returns css with each darkMedia block followed by its
// rules, unindented, with toggleDark in place of systemDark. A block
// whose braces do not close is left as it is, with what follows it.
func withToggleDark(css string) string {
	var b strings.Builder
	b.Grow(len(css) + len(css)/8)
	for {
		i := strings.Index(css, darkMedia)
		if i < 0 {
			break
		}
		start := i + len(darkMedia)
		end := closingBrace(css, start)
		if end < 0 {
			break
		}
		b.WriteString(css[:end+1])
		for _, rule := range blockRules(css[start:end]) {
			b.WriteString("\n" + strings.ReplaceAll(strings.ReplaceAll(rule, "\n  ", "\n"), systemDark, toggleDark))
		}
		css = css[end+1:]
	}
	b.WriteString(css)
	return b.String()
}

// closingBrace returns the index of the brace that closes the block whose
// body starts at css[start:], or -1.
func closingBrace(css string, start int) int {
	depth := 1
	for i := start; i < len(css); i++ {
		switch css[i] {
		case '{':
			depth++
		case '}':
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return -1
}

// blockRules splits the body of a block into its rules ("selector { ...
// }"), trimmed of the space around them.
func blockRules(body string) []string {
	var rules []string
	for {
		open := strings.IndexByte(body, '{')
		if open < 0 {
			return rules
		}
		end := closingBrace(body, open+1)
		if end < 0 {
			return rules
		}
		rules = append(rules, strings.TrimSpace(body[:end+1]))
		body = body[end+1:]
	}
}
