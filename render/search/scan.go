package search

import (
	"html"
	"strings"
)

// heading is an h2 or h3 of a rendered body that has an id: its tag
// starts at body[start:], its text is body[from:to], its end tag ends
// before body[end:], and id is its id attribute as written (escaped).
type heading struct {
	start, from, to, end int
	level                int
	id                   string
}

// eachHeading calls fn with the h2 and h3 headings of a rendered body
// that have an id, in order. A heading is an element <h2 ... id="x" ...>
// or <h3 ...> (the last such id attribute of the tag) up to the first
// </h2> or </h3> after it; a tag without its end is no heading, and no
// heading is read after one whose tag or element does not end.
func eachHeading(body string, fn func(h heading)) {
	for i := 0; ; {
		k := strings.Index(body[i:], "<h")
		if k < 0 {
			return
		}
		k += i
		i = k + 2
		if k+2 >= len(body) || body[k+2] != '2' && body[k+2] != '3' {
			continue
		}
		gt0 := strings.IndexByte(body[k:], '>')
		if gt0 < 0 {
			return
		}
		id, gt, ok := headingID(body, k+3, k+gt0)
		if !ok {
			// Nor has any other h2 or h3 before this '>' an id: the
			// attributes of each are the end of these.
			i = k + gt0
			continue
		}
		end := closeHeading(body[gt+1:])
		if end < 0 {
			return // no heading ends after this one either
		}
		h := heading{start: k, from: gt + 1, to: gt + 1 + end, end: gt + 1 + end + len("</h2>"), level: 2, id: id}
		if body[k+2] == '3' {
			h.level = 3
		}
		fn(h)
		i = h.end
	}
}

// Headings are the h2 and h3 headings of a rendered body that have an id
// (eachHeading's), found once for both the page's table of contents
// (TOC) and its sections in the index (Page.Headings): reading a body
// for them took as long as reading its text.
type Headings struct {
	body string
	list []heading
}

// FindHeadings finds the headings of body.
func FindHeadings(body string) *Headings {
	hs := &Headings{body: body}
	eachHeading(body, func(h heading) { hs.list = append(hs.list, h) })
	return hs
}

// TOC lists the headings that have text, in document order, including
// those inside components.
func (hs *Headings) TOC() []TOCItem {
	var toc []TOCItem
	for _, h := range hs.list {
		if t := text(hs.body[h.from:h.to]); t != "" {
			toc = append(toc, TOCItem{ID: html.UnescapeString(h.id), Text: t, Level: h.level})
		}
	}
	return toc
}

// in returns the headings of body: hs's when hs is body's (nil or
// another body's: found now).
func (hs *Headings) in(body string) []heading {
	if hs != nil && hs.body == body {
		return hs.list
	}
	return FindHeadings(body).list
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
