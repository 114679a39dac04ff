package pagemd

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
)

// fill puts the insets of a flow in place of their tokens in s. A block
// stands on lines of its own, apart from the text before and after it by
// a blank line, each of its lines indented as the line where it stands
// (under a list item's marker, inside a block quote).
func fill(s string, insets []inset) string {
	if len(insets) == 0 {
		return s
	}
	out := make([]byte, 0, len(s)+64*len(insets))
	for {
		i := strings.IndexByte(s, 0)
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i+1:], 0)
		if j < 0 {
			break
		}
		k, err := strconv.Atoi(s[i+1 : i+1+j])
		out = append(out, s[:i]...)
		s = s[i+j+2:]
		if err != nil || k < 0 || k >= len(insets) {
			continue
		}
		in := insets[k]
		md := strings.Trim(in.md, "\n")
		ls := bytes.LastIndexByte(out, '\n') + 1
		prefix := string(out[ls:])
		if !in.block {
			out = appendLines(out, md, leadingSpace(prefix))
			continue
		}
		var cont string
		switch {
		case strings.TrimSpace(prefix) == "":
			// Indented no deeper than the text around it: the list item
			// it is in, or nothing (an element indented in the source
			// is not code).
			indent := prefix[:min(len(prefix), contentColumn(out[:ls]))]
			out = out[:ls]
			if ls > 0 && !blankBefore(out[:ls-1]) {
				out = append(out, '\n')
			}
			out = append(out, indent...)
			cont = indent
		case markersOnly(prefix):
			cont = continuation(prefix)
		default:
			cont = continuation(leadingSpace(prefix))
			out = append(out, "\n\n"+cont...)
		}
		out = appendLines(out, md, cont)
		out = append(out, '\n')
		if !strings.HasPrefix(s, "\n") {
			// Text after it on its line starts a paragraph of its own.
			out = append(out, "\n"+cont...)
			s = strings.TrimLeft(s, " \t")
		}
	}
	return string(append(out, s...))
}

// appendLines appends md to out, its lines after the first prefixed with
// cont (blank ones with cont's markers only).
func appendLines(out []byte, md, cont string) []byte {
	for i, l := range strings.Split(md, "\n") {
		if i > 0 {
			out = append(out, '\n')
			if strings.TrimSpace(l) == "" {
				out = append(out, strings.TrimRight(cont, " \t")...)
				continue
			}
			out = append(out, cont...)
		}
		out = append(out, l...)
	}
	return out
}

// contentColumn returns the column of the content of the last non-blank
// line of out: its indentation, and for a list item its marker's width.
func contentColumn(out []byte) int {
	for len(out) > 0 {
		i := bytes.LastIndexByte(out, '\n')
		line := string(out[i+1:])
		out = out[:max(i, 0)]
		if strings.TrimSpace(line) == "" {
			if i < 0 {
				break
			}
			continue
		}
		t := strings.TrimLeft(line, " ")
		col := len(line) - len(t)
		if m := listMarkerRE.FindString(t); m != "" {
			col += len(m)
		}
		return col
	}
	return 0
}

var listMarkerRE = regexp.MustCompile(`^(?:[-*+]|[0-9]{1,9}[.)])[ \t]+`)

// blankBefore reports whether the line that out ends with is blank (or
// out is empty).
func blankBefore(out []byte) bool {
	return len(bytes.TrimSpace(out[bytes.LastIndexByte(out, '\n')+1:])) == 0
}

var markersRE = regexp.MustCompile(`^[ \t]*(?:(?:[-*+]|[0-9]{1,9}[.)])[ \t]+|>[ \t]?)+$`)

// markersOnly reports whether prefix holds only list and quote markers.
func markersOnly(prefix string) bool { return markersRE.MatchString(prefix) }

// continuation is the prefix of the lines that continue a line starting
// with prefix: its list markers become spaces, its quote markers stay.
func continuation(prefix string) string {
	b := []byte(prefix)
	for i, ch := range b {
		if ch != ' ' && ch != '\t' && ch != '>' {
			b[i] = ' '
		}
	}
	return string(b)
}

// leadingSpace returns the spaces and quote markers that start s.
func leadingSpace(s string) string {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '>') {
		i++
	}
	return s[:i]
}

// normalize tidies the Markdown of a page: outside fences, blank lines
// are empty and never more than one in a row; it ends with one newline
// and holds no NUL byte.
func normalize(s string) string {
	lines := strings.Split(s, "\n")
	out := make([]string, 0, len(lines))
	var fenceChar byte
	fenceLen := 0
	blank := true // at the start: no blank lines
	for _, l := range lines {
		if fenceLen > 0 {
			out = append(out, l)
			if t := strings.TrimSpace(l); len(t) >= fenceLen && strings.Trim(t, string(fenceChar)) == "" {
				fenceLen = 0
			}
			blank = false
			continue
		}
		if strings.TrimSpace(l) == "" {
			if !blank {
				out = append(out, "")
			}
			blank = true
			continue
		}
		if m := fenceOpenRE.FindStringSubmatch(l); m != nil && !(m[2][0] == '`' && strings.Contains(m[3], "`")) {
			fenceChar, fenceLen = m[2][0], len(m[2])
		}
		out = append(out, strings.TrimRight(l, " \t"))
		blank = false
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	// A NUL byte of the source (an attribute's, shown as written) is no
	// character of a text file.
	return strings.ReplaceAll(strings.Join(out, "\n"), "\x00", "\uFFFD") + "\n"
}

var textEscaper = strings.NewReplacer(`\`, `\\`, "`", "\\`", `*`, `\*`, `[`, `\[`, `]`, `\]`, `<`, `\<`, `{`, `\{`, `}`, `\}`,
	"\x00", "\uFFFD") // NUL delimits the tokens of a flow (fill)

// escape makes text (a JSX string, an attribute, a title) read literally
// as Markdown, escaping only what would start markup inside a line, and
// braces, which MDX would read as an expression.
func escape(s string) string { return textEscaper.Replace(s) }

// oneLine joins the lines of s with spaces, for a heading, a bold title,
// a table cell.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// quote makes s a block quote.
func quote(s string) string {
	lines := strings.Split(strings.Trim(s, "\n"), "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			lines[i] = ">"
		} else {
			lines[i] = "> " + l
		}
	}
	return strings.Join(lines, "\n")
}

// listItem makes s a list item of marker ("- ", "2. "), its lines after
// the first indented under the item's text.
func listItem(marker, s string) string {
	s = strings.Trim(s, "\n")
	if strings.TrimSpace(s) == "" {
		return strings.TrimRight(marker, " ")
	}
	pad := strings.Repeat(" ", len(marker))
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		switch {
		case i == 0:
			lines[i] = marker + l
		case strings.TrimSpace(l) == "":
			lines[i] = ""
		default:
			lines[i] = pad + l
		}
	}
	return strings.Join(lines, "\n")
}

// blockStart reports whether a line starts a block other than a
// paragraph: a heading, list item, quote, fence, table row, thematic
// break or indented code.
func blockStart(line string) bool {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) >= 4 {
		return true
	}
	switch {
	case t == "":
		return false
	case strings.HasPrefix(t, "#"), strings.HasPrefix(t, ">"), strings.HasPrefix(t, "|"),
		strings.HasPrefix(t, "```"), strings.HasPrefix(t, "~~~"), strings.HasPrefix(t, "$$"),
		strings.HasPrefix(t, "- "), strings.HasPrefix(t, "* "), strings.HasPrefix(t, "+ "),
		t == "---", t == "***", t == "-", t == "*":
		return true
	}
	return orderedMarkerRE.MatchString(t)
}

var orderedMarkerRE = regexp.MustCompile(`^[0-9]{1,9}[.)]( |$)`)
