package pagemd

import (
	"regexp"
	"strings"

	"lectern.dev/lectern/render/highlight"
	"lectern.dev/lectern/render/links"
	"lectern.dev/lectern/render/safe"
)

// The Markdown text of a flow is kept as written but for two things,
// which rewrite changes: the info string of each fence, reduced to its
// language and title, and the destination of each link, image and link
// reference definition outside code, resolved as the HTML's are.

// fenceOpenRE matches the opening line of a fence, after list markers.
var fenceOpenRE = regexp.MustCompile("^([ \t]*(?:(?:[-*+]|[0-9]{1,9}[.)])[ \t]+)?)(```+|~~~+)(.*)$")

// rewrite rewrites the fences' info strings and the links of s.
func (c *conv) rewrite(s string) string {
	if !strings.Contains(s, "[") && !strings.Contains(s, "```") && !strings.Contains(s, "~~~") {
		return s // nothing to rewrite: most flows of components
	}
	lines := strings.Split(s, "\n")
	var out, chunk []string
	flush := func() {
		if len(chunk) > 0 {
			out = append(out, c.rewriteLinks(strings.Join(chunk, "\n")))
			chunk = chunk[:0]
		}
	}
	var fenceChar byte
	fenceLen := 0
	for _, l := range lines {
		if fenceLen > 0 {
			out = append(out, l)
			if t := strings.TrimSpace(l); len(t) >= fenceLen && strings.Trim(t, string(fenceChar)) == "" {
				fenceLen = 0
			}
			continue
		}
		m := fenceOpenRE.FindStringSubmatch(l)
		if m == nil || m[2][0] == '`' && strings.Contains(m[3], "`") {
			chunk = append(chunk, l)
			continue
		}
		flush()
		fenceChar, fenceLen = m[2][0], len(m[2])
		out = append(out, m[1]+m[2]+fenceInfo(m[3]))
	}
	flush()
	return strings.Join(out, "\n")
}

// fenceInfo reduces a fence's info string to its language and title
// ("python main.py"), dropping Mintlify's options (highlighted lines,
// icons, flags).
func fenceInfo(info string) string {
	if strings.TrimSpace(info) == "" {
		return ""
	}
	b := highlight.ParseInfo(strings.TrimSpace(info))
	t := oneLine(b.Title)
	switch {
	case b.Lang != "" && t != "":
		return b.Lang + " " + t
	case b.Lang != "":
		return b.Lang
	}
	return ""
}

// rewriteLinks resolves the destinations of the links, images and
// reference definitions of s, Markdown text without fences; code spans
// and escaped characters are left as they are. It takes time in
// proportion to the length of s (markupOf finds the code spans and the
// brackets that match in one pass each).
func (c *conv) rewriteLinks(s string) string {
	if !strings.ContainsAny(s, "[") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	c.rewriteRange(&b, s, 0, len(s), markupOf(s), 0)
	return b.String()
}

// rewriteRange writes s[lo:hi] to b with its links rewritten; depth is
// that of the link whose text it is (an image in a link's text is
// rewritten, nothing deeper).
func (c *conv) rewriteRange(b *strings.Builder, s string, lo, hi int, m *markup, depth int) {
	for i := lo; i < hi; {
		switch ch := s[i]; {
		case ch == '\\' && i+1 < hi:
			b.WriteString(s[i : i+2])
			i += 2
		case ch == '`':
			end := m.code[i]
			if end == 0 || end > hi {
				end = i + runLen(s[:hi], i, '`')
			}
			b.WriteString(s[i:end])
			i = end
		case ch == '[' || ch == '!' && i+1 < hi && s[i+1] == '[':
			image := ch == '!'
			open := i
			if image {
				open++
			}
			if close, ok := m.match[open]; ok && close < hi {
				if next, ok := c.link(b, s, i, open, close, hi, image, m, depth); ok {
					i = next
					continue
				}
			}
			b.WriteByte(ch)
			i++
		default:
			b.WriteByte(ch)
			i++
		}
	}
}

// link writes the link, image or reference definition whose brackets are
// at open and close (start is where it starts: the "!" of an image), its
// destination resolved, and returns the index after it; ok is false when
// there is none.
func (c *conv) link(b *strings.Builder, s string, start, open, close, hi int, image bool, m *markup, depth int) (next int, ok bool) {
	text := func() {
		if image || depth > 0 {
			b.WriteString(s[open+1 : close])
			return
		}
		c.rewriteRange(b, s, open+1, close, m, depth+1) // [![image](src)](href)
	}
	switch {
	case close+1 < hi && s[close+1] == '(':
		dest, title, end, ok := destination(s[:hi], close+2)
		if !ok {
			return 0, false
		}
		u := c.href(dest, image)
		if u == "" {
			text() // a link not allowed: its text
			return end, true
		}
		if image {
			b.WriteString("!")
		}
		b.WriteString("[")
		text()
		b.WriteString("](" + wrapDest(u) + title + ")")
		return end, true
	case !image && close+1 < hi && s[close+1] == ':' && lineStart(s, start):
		// [label]: destination "title"
		j := close + 2
		for j < hi && (s[j] == ' ' || s[j] == '\t') {
			j++
		}
		k := j
		for k < hi && s[k] != ' ' && s[k] != '\t' && s[k] != '\n' {
			k++
		}
		if k == j {
			return 0, false
		}
		u := c.href(strings.TrimSuffix(strings.TrimPrefix(s[j:k], "<"), ">"), false)
		if u == "" {
			u = "#"
		}
		b.WriteString(s[start:close+2] + s[close+2:j] + wrapDest(u))
		return k, true
	}
	return 0, false
}

// lineStart reports whether only up to three spaces are before i on its
// line.
func lineStart(s string, i int) bool {
	n := 0
	for j := i - 1; j >= 0 && s[j] != '\n'; j-- {
		if s[j] != ' ' || n == 3 {
			return false
		}
		n++
	}
	return true
}

// markup is where the code spans of a text end (by the index of their
// opening backticks) and which "]" closes each "[" (by its index).
type markup struct {
	code  map[int]int
	match map[int]int
}

// markupOf finds the code spans and the matching brackets of s, a run of
// paragraphs: a code span runs to the next run of as many backticks in
// its paragraph; brackets match outside code spans and escapes, within a
// paragraph.
func markupOf(s string) *markup {
	m := &markup{code: map[int]int{}, match: map[int]int{}}
	type run struct{ at, n, para int }
	var runs []run
	para := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '\n':
			if blankLineAt(s, i+1) {
				para++
			}
		case '`':
			n := runLen(s, i, '`')
			runs = append(runs, run{i, n, para})
			i += n - 1
		}
	}
	// The next run of the same length in the same paragraph, from the end.
	next := make([]int, len(runs))
	last := map[int]int{}
	for k := len(runs) - 1; k >= 0; k-- {
		if k+1 < len(runs) && runs[k+1].para != runs[k].para {
			clear(last)
		}
		next[k] = -1
		if j, ok := last[runs[k].n]; ok {
			next[k] = j
		}
		last[runs[k].n] = k
	}
	for k := 0; k < len(runs); k++ {
		if j := next[k]; j >= 0 {
			m.code[runs[k].at] = runs[j].at + runs[j].n
			k = j
		}
	}
	var stack []int
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '`':
			if end := m.code[i]; end > 0 {
				i = end - 1
			} else {
				i += runLen(s, i, '`') - 1
			}
		case '\n':
			if blankLineAt(s, i+1) {
				stack = stack[:0]
			}
		case '[':
			stack = append(stack, i)
		case ']':
			if len(stack) > 0 {
				m.match[stack[len(stack)-1]] = i
				stack = stack[:len(stack)-1]
			}
		}
	}
	return m
}

// blankLineAt reports whether the line starting at i is blank (or i is
// the end of s).
func blankLineAt(s string, i int) bool {
	for ; i < len(s) && s[i] != '\n'; i++ {
		if s[i] != ' ' && s[i] != '\t' {
			return false
		}
	}
	return true
}

// maxLinkText bounds how far a link's destination and title are looked
// for, so that text with many "](" costs time in proportion to its
// length.
const maxLinkText = 4096

// destination reads a link's destination and optional title from s[i:]
// up to its closing ")": dest, the title as written (with its leading
// space) and the index after the ")".
func destination(s string, i int) (dest, title string, end int, ok bool) {
	j := i
	for j < len(s) && (s[j] == ' ' || s[j] == '\t' || s[j] == '\n') {
		j++
	}
	start := j
	if j < len(s) && s[j] == '<' {
		k := strings.IndexAny(s[j+1:], ">\n")
		if k < 0 || s[j+1+k] != '>' {
			return "", "", 0, false
		}
		dest = s[j+1 : j+1+k]
		j += k + 2
	} else {
		depth := 0
		for j < len(s) && s[j] > ' ' && j-start < maxLinkText {
			if s[j] == '\\' && j+1 < len(s) {
				j += 2
				continue
			}
			if s[j] == '(' {
				depth++
			} else if s[j] == ')' {
				if depth == 0 {
					break
				}
				depth--
			}
			j++
		}
		dest = s[start:j]
	}
	// The title, as written, up to the closing parenthesis.
	k := j
	quote := byte(0)
	for ; k < len(s) && k-j < maxLinkText; k++ {
		ch := s[k]
		switch {
		case quote != 0 && ch == '\\':
			k++
		case quote != 0 && ch == quote:
			quote = 0
		case quote == 0 && (ch == '"' || ch == '\''):
			quote = ch
		case quote == 0 && ch == '(' && strings.TrimSpace(s[j:k]) == "":
			quote = ')'
		case quote == 0 && ch == ')':
			t := strings.TrimRight(s[j:k], " \t\n")
			if t != "" && strings.TrimSpace(t) == "" {
				t = ""
			}
			return dest, t, k + 1, true
		}
	}
	return "", "", 0, false
}

// wrapDest writes a destination in angle brackets when it holds spaces or
// parentheses.
func wrapDest(u string) string {
	if strings.ContainsAny(u, " ()<>") {
		return "<" + strings.NewReplacer("<", "%3C", ">", "%3E").Replace(u) + ">"
	}
	return u
}

// href resolves a link (or an image's source, image set) of the page as
// its HTML does: the same URL, or "" when its scheme is not allowed
// (render/safe); links elsewhere are kept as written.
func (c *conv) href(u string, image bool) string {
	u = strings.TrimSpace(u)
	if u == "" || !safe.URLAllowed(u, image) {
		return ""
	}
	if scheme, _, ok := safe.Scheme(u); ok && scheme == "data" {
		return u
	}
	t := c.env.Links.Resolve(c.page, u)
	if t.Kind == links.External {
		return u
	}
	out := c.env.Links.URL(c.out, t)
	if !safe.URLAllowed(out, image) {
		out = "./" + out // "javascript:x.html", a page of that name
	}
	return out
}

func runLen(s string, i int, ch byte) int {
	n := 0
	for i+n < len(s) && s[i+n] == ch {
		n++
	}
	return n
}
