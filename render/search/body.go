package search

import (
	"bytes"
	"html"
	"strings"
	"unicode/utf8"
)

// Reading a page's body for NewDoc, once: its sections' text goes into
// the page's fragment as it is read, and its words into the page's count
// (scratch). The body was read three times before (its text into a
// string per section, that string's words, then the string's JSON), a
// third of the build's cost of search.

// byteClass is what a byte of a body's text is to the reader: the end of
// a run of text (a tag or white space), an ASCII letter or digit (and
// whether a capital), or a byte that the run must be read more slowly
// for (an entity, a byte of a multi-byte rune) or written escaped in
// JSON.
const (
	classStop   = 1 << iota // '<' or white space: text's runs end there
	classWord               // an ASCII letter or digit
	classUpper              // an ASCII capital
	classAmp                // '&': the run has entities to decode
	classHigh               // a byte of a multi-byte rune
	classEscape             // written escaped in JSON: '"', '\\', control bytes
)

var byteClasses = func() (t [256]uint8) {
	for c := range 256 {
		switch {
		case textStop[c]:
			t[c] = classStop
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
			t[c] = classWord
		case 'A' <= c && c <= 'Z':
			t[c] = classWord | classUpper
		case c == '&':
			t[c] = classAmp
		case c >= utf8.RuneSelf:
			t[c] = classHigh
		case c < 0x20 || c == '"' || c == '\\':
			t[c] = classEscape
		}
	}
	return t
}()

// sections appends to b the JSON of the sections of a rendered body
// (what sections in scan_test.go reads plainly: the part before the first
// h2 or h3 with an id, unless empty, then each such heading's anchor,
// text and the text up to the next), as [anchor, heading, text]
// arrays separated by commas, and counts the words of each heading and
// text in sc (as heading and body). hs are the body's headings when
// found already (nil: found here). A body that is not valid UTF-8 is
// read with U+FFFD for its bad bytes.
func (sc *scratch) sections(b []byte, body string, hs *Headings) []byte {
	if !utf8.ValidString(body) {
		body = strings.ToValidUTF8(body, "\uFFFD")
	}
	written := 0 // sections
	start := len(b)
	b = append(b, `["",""`...)
	anchor, at := "", 0
	end := func(to int) {
		b = append(b, ',')
		before := len(b)
		b = sc.text(b, body[at:to], weightBody, fieldBody)
		if anchor == "" && len(b) == before+2 { // no anchor, no text: no section
			b = b[:start]
			return
		}
		b = append(b, ']')
		written++
	}
	for _, h := range hs.in(body) {
		end(h.start)
		start = len(b)
		if written > 0 {
			b = append(b, ',')
		}
		anchor = html.UnescapeString(h.id)
		b = append(b, '[')
		b = appendString(b, anchor)
		b = append(b, ',')
		b = sc.text(b, body[h.from:h.to], weightHeading, fieldHeading)
		at = h.end
	}
	end(len(body))
	return b
}

// text appends to b the text of an HTML fragment (text's: tags dropped,
// entities decoded, white space collapsed and trimmed, buttons' labels
// left out) as a JSON string, and counts its words in a field of weight
// weight.
func (sc *scratch) text(b []byte, s string, weight uint32, field uint8) []byte {
	t := sc.txt[:0]
	space := false // a space is due before the next run
	escape := false
	var tags tagSkipper
	for i := 0; i < len(s); {
		c := s[i]
		if byteClasses[c]&classStop != 0 {
			if c == '<' {
				if i = tags.skip(s, i); i < 0 {
					break
				}
			} else {
				i++
			}
			space = len(t) > 0
			continue
		}
		// A run of text, up to the next tag or white space. Its first
		// ASCII word is hashed as it is read: most runs are one word,
		// some with punctuation after it.
		start := i
		wordEnd, h, first := asciiWordEnd(s, i)
		var seen uint8 // the classes of the rest of the run
		j := wordEnd
		for ; j < len(s); j++ {
			k := byteClasses[s[j]]
			if k&classStop != 0 {
				break
			}
			seen |= k
		}
		run := s[start:j]
		i = j
		if space {
			t = append(t, ' ')
			space = false
		}
		if seen&classAmp != 0 {
			run = html.UnescapeString(run)
			t = append(t, run...)
			escape = true // (decoded: checked when written)
			sc.add(run, weight, field)
			continue
		}
		t = append(t, run...)
		escape = escape || seen&classEscape != 0
		if seen&classHigh != 0 {
			sc.add(run, weight, field) // (its first word may be the start of a word of other letters)
			continue
		}
		if wordEnd > start {
			sc.asciiWord(s[start:wordEnd], h, first, weight, field)
		}
		if seen&classWord != 0 { // more words after the first
			sc.addASCII(s[wordEnd:j], weight, field)
		}
	}
	sc.txt = t
	if len(t) > 0 && (t[0] >= utf8.RuneSelf || t[len(t)-1] >= utf8.RuneSelf || escape) {
		t = bytes.TrimSpace(t) // white space other than ASCII's at either end
	}
	if !escape {
		b = append(b, '"')
		b = append(b, t...)
		return append(b, '"')
	}
	return appendEscaped(b, t)
}

// tagSkipper skips the tags of a text, and knows once its buttons have
// no end.
type tagSkipper struct{ noButtonEnd bool }

// skip returns where the text after the tag at s[i] starts: after its
// '>', or after "</button>" for a button, whose label ("Copy" on code
// blocks) is the page's control, not its text; -1 when the tag does not
// end. A text with no "</button>" after a button is searched for it once,
// not at every button.
func (ts *tagSkipper) skip(s string, i int) int {
	if !ts.noButtonEnd && strings.HasPrefix(s[i:], "<button") {
		if end := strings.Index(s[i:], "</button>"); end >= 0 {
			return i + end + len("</button>")
		}
		ts.noButtonEnd = true
	}
	end := strings.IndexByte(s[i:], '>')
	if end < 0 {
		return -1
	}
	return i + end + 1
}
