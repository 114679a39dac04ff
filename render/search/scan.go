package search

import (
	"html"
	"strings"
)

// scan reads a rendered body's h2 and h3 headings that have an id, as the
// table of contents lists them (those with text), and, when sections is
// set, splits the body's text into sections at them (Sections). A heading
// is an element <h2 ... id="x" ...> or <h3 ...> (the last such id
// attribute of the tag) up to the first </h2> or </h3> after it; a tag
// without its end is no heading.
func scan(body string, sections bool) (toc []TOCItem, secs []Section) {
	at, anchor, heading := 0, "", ""
	for i := 0; ; {
		k := strings.Index(body[i:], "<h")
		if k < 0 {
			break
		}
		k += i
		i = k + 2
		if k+2 >= len(body) || body[k+2] != '2' && body[k+2] != '3' {
			continue
		}
		gt0 := strings.IndexByte(body[k:], '>')
		if gt0 < 0 {
			break
		}
		id, gt, ok := headingID(body, k+3, k+gt0)
		if !ok {
			continue
		}
		end := closeHeading(body[gt+1:])
		if end < 0 {
			break // no heading ends after this one either
		}
		inner := body[gt+1 : gt+1+end]
		t := text(inner)
		id = html.UnescapeString(id)
		if t != "" {
			level := 2
			if body[k+2] == '3' {
				level = 3
			}
			toc = append(toc, TOCItem{ID: id, Text: t, Level: level})
		}
		if sections {
			secs = appendSection(secs, anchor, heading, body[at:k])
			anchor, heading = id, t
		}
		at = gt + 1 + end + len("</h2>")
		i = at
	}
	if sections {
		secs = appendSection(secs, anchor, heading, body[at:])
	}
	return toc, secs
}

// headingID returns the value of the last id="..." attribute (preceded by
// white space, not empty) that starts in body[from:to], the attributes of
// a tag up to its first '>', and where the tag ends: the first '>' after
// the value, which may hold '>' itself.
func headingID(body string, from, to int) (string, int, bool) {
	for j := to; ; {
		k := strings.LastIndex(body[from:j], `id="`)
		if k < 0 {
			return "", 0, false
		}
		k += from
		j = k
		if k == 0 || !isSpace(body[k-1]) {
			continue
		}
		v := body[k+4:]
		q := strings.IndexByte(v, '"')
		if q <= 0 {
			continue
		}
		gt := strings.IndexByte(v[q:], '>')
		if gt < 0 {
			continue
		}
		return v[:q], k + 4 + q + gt, true
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' }

// closeHeading returns where the first </h2> or </h3> of s is, -1 when it
// has none.
func closeHeading(s string) int {
	for i := 0; ; {
		k := strings.Index(s[i:], "</h")
		if k < 0 {
			return -1
		}
		k += i
		if k+4 < len(s) && (s[k+3] == '2' || s[k+3] == '3') && s[k+4] == '>' {
			return k
		}
		i = k + 3
	}
}
