package markdown

import (
	"strings"

	"lectern.dev/lectern/render/mdx"
)

// MaxNesting bounds the nesting of link brackets and of block
// containers (lists, block quotes) that goldmark sees: its time grows
// faster than linearly with them. Deeper markers are escaped, so that they
// show as text.
const MaxNesting = 64

// LimitNesting escapes the link brackets and the list and block-quote
// markers of src that are nested deeper than MaxNesting. It returns
// src unchanged (and false) when nothing is that deep, else the new text
// and the offset in src of the first escaped marker.
func LimitNesting(src string) (out string, firstAt int, changed bool) {
	if strings.Count(src, "[") <= MaxNesting && !manyContainers(src) {
		return src, 0, false
	}
	l := nestingLimiter{src: src}
	for off := 0; off < len(src); {
		off = l.line(off)
	}
	if !l.changed {
		return src, 0, false
	}
	l.b.WriteString(src[l.last:])
	return l.b.String(), l.firstAt, true
}

// nestingLimiter is the state of LimitNesting's scan of src, line by line.
type nestingLimiter struct {
	src     string
	b       strings.Builder
	last    int // src[last:] is not yet copied to b
	changed bool
	firstAt int // offset in src of the first escaped marker

	fence       mdx.FenceState
	lists       []int // content columns of the open list items
	prevBlank   bool
	depth, over int // bracket nesting, and brackets escaped beyond it
	noSpan      map[int]int
}

// escape copies src up to i to the output, followed by a backslash that
// escapes the marker at i.
func (l *nestingLimiter) escape(i int) {
	if !l.changed {
		l.changed, l.firstAt = true, i
		l.b.Grow(len(l.src) + 64)
	}
	l.b.WriteString(l.src[l.last:i])
	l.b.WriteByte('\\')
	l.last = i
}

// line scans the line of src that starts at off, escaping its markers
// that are nested too deep, and returns the offset where the next line to
// scan starts.
func (l *nestingLimiter) line(off int) (next int) {
	src := l.src
	end := mdx.LineEnd(src, off)
	line := src[off:end]
	next = min(end+1, len(src))
	if l.fence.Line(line) {
		l.prevBlank = false
		return next
	}
	if strings.TrimSpace(line) == "" {
		l.depth, l.over, l.prevBlank = 0, 0, true
		return next
	}
	// Block containers at the start of the line.
	j := l.containers(off, end)
	l.prevBlank = false
	// Link brackets in the rest of the line.
	return l.brackets(j, end, next)
}

// containers scans the block containers (block-quote and list markers) at
// the start of the line src[off:end], escaping the first one nested too
// deep, and returns the offset where the rest of the line starts.
func (l *nestingLimiter) containers(off, end int) int {
	src := l.src
	col, j := 0, off
	for j < end && (src[j] == ' ' || src[j] == '\t') {
		if src[j] == '\t' {
			col += 4 - col%4
		} else {
			col++
		}
		j++
	}
	if w, _ := listMarker(src[j:end]); w > 0 || l.prevBlank || (j < end && src[j] == '>') {
		for len(l.lists) > 0 && col < l.lists[len(l.lists)-1] {
			l.lists = l.lists[:len(l.lists)-1]
		}
	}
	level := len(l.lists)
	for j < end {
		if src[j] == '>' {
			level++
			if level > MaxNesting {
				l.escape(j)
				break
			}
			j++
			col++
			if j < end && src[j] == ' ' {
				j++
				col++
			}
			continue
		}
		w, sp := listMarker(src[j:end])
		if w == 0 {
			break
		}
		level++
		if level > MaxNesting {
			l.escape(j + w - 1) // "\-", "1\."
			break
		}
		l.lists = append(l.lists, col+w+sp)
		j += w + sp
		col += w + sp
	}
	return j
}

// brackets scans the link brackets in src[from:end], the rest of a line
// whose next line starts at next, escaping those nested too deep. It
// returns where the next line to scan starts: later than next when a code
// span runs on past the line.
func (l *nestingLimiter) brackets(from, end, next int) int {
	src := l.src
	for i := from; i < end; i++ {
		switch src[i] {
		case '\\':
			i++
		case '`':
			n := mdx.RunLen(src, i, '`')
			if stop, known := l.noSpan[n]; known && i < stop {
				i += n - 1
				continue
			}
			if e := mdx.CodeSpanEnd(src, i+n, n); e > 0 {
				// A code span ending on a later line hides that
				// line's markers too; good enough for a limit.
				if e > end {
					end = mdx.LineEnd(src, e)
					next = min(end+1, len(src))
				}
				i = e - 1
				continue
			}
			if l.noSpan == nil {
				l.noSpan = map[int]int{}
			}
			l.noSpan[n] = blankLineAfter(src, i)
			i += n - 1
		case '[':
			if l.depth >= MaxNesting {
				l.escape(i)
				l.over++
			} else {
				l.depth++
			}
		case ']':
			switch {
			case l.over > 0:
				l.escape(i)
				l.over--
			case l.depth > 0:
				l.depth--
			}
		}
	}
	return next
}

// manyContainers reports whether some line of src starts with more than
// MaxNesting/2 container markers, or src has many indented list
// items: a cheap test for LimitNesting's container pass.
func manyContainers(src string) bool {
	indented := 0
	for off := 0; off < len(src); off = mdx.LineEnd(src, off) + 1 {
		j := off
		for j < len(src) && (src[j] == ' ' || src[j] == '\t') {
			j++
		}
		if j > off {
			if w, _ := listMarker(src[j:mdx.LineEnd(src, j)]); w > 0 {
				indented++
				if indented > MaxNesting/2 {
					return true
				}
			}
		}
		n := 0
		for j < len(src) && n <= MaxNesting/2 {
			if src[j] == '>' {
				j++
			} else if w, sp := listMarker(src[j:mdx.LineEnd(src, j)]); w > 0 {
				j += w + sp
			} else {
				break
			}
			n++
			for j < len(src) && src[j] == ' ' {
				j++
			}
		}
		if n > MaxNesting/2 {
			return true
		}
		if j >= len(src) {
			break
		}
	}
	return false
}

// listMarker returns the width of the list item marker that s starts with
// ("-", "*", "+", "1." or "1)", followed by a space, a tab or the end) and
// the number of spaces after it, or 0 when there is none.
func listMarker(s string) (width, spaces int) {
	w := 0
	switch {
	case s == "":
		return 0, 0
	case s[0] == '-' || s[0] == '*' || s[0] == '+':
		w = 1
	default:
		for w < len(s) && w < 9 && '0' <= s[w] && s[w] <= '9' {
			w++
		}
		if w == 0 || w >= len(s) || (s[w] != '.' && s[w] != ')') {
			return 0, 0
		}
		w++
	}
	if w < len(s) && s[w] != ' ' && s[w] != '\t' {
		return 0, 0
	}
	for w+spaces < len(s) && spaces < 4 && (s[w+spaces] == ' ' || s[w+spaces] == '\t') {
		spaces++
	}
	return w, max(spaces, 1)
}

// blankLineAfter returns the offset of the first blank line after i, or
// len(s).
func blankLineAfter(s string, i int) int {
	for {
		k := strings.IndexByte(s[i:], '\n')
		if k < 0 {
			return len(s)
		}
		i += k + 1
		j := i
		for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
			j++
		}
		if j >= len(s) || s[j] == '\n' {
			return i
		}
	}
}
