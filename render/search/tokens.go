package search

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxWord is the longest word, in bytes, that the index keeps: longer
// runs of letters and digits (hashes, base64) are not words a reader types.
const MaxWord = 48

// eachWord calls fn with every word of s, lowercased, and the byte offsets
// of the word in s. A word is a run of letters and digits (Unicode
// categories L and N, and the marks that follow a letter); everything else
// separates words, as the reader's browser does with /[\p{L}\p{N}\p{M}]+/gu.
func eachWord(s string, fn func(w string, start, end int)) {
	eachRawWord(s, func(start, end int, ascii, upper bool) {
		w := s[start:end]
		if !ascii {
			w = strings.ToLower(w)
		} else if upper {
			w = lowerASCII(w)
		}
		fn(w, start, end)
	})
}

// eachRawWord calls fn with the byte offsets of every word of s
// (eachWord's), as written, and whether it is all ASCII and has an ASCII
// capital: NewDoc lowercases it without a new string for each.
func eachRawWord(s string, fn func(start, end int, ascii, upper bool)) {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if !isASCIIWordByte(c) {
				i++
				continue
			}
		} else if r, n := utf8.DecodeRuneInString(s[i:]); !isWordRune(r) {
			i += n
			continue
		}
		start, ascii, upper := i, true, false
		for i < len(s) {
			c := s[i]
			if c < utf8.RuneSelf {
				if !isASCIIWordByte(c) {
					break
				}
				upper = upper || ('A' <= c && c <= 'Z')
				i++
				continue
			}
			r, n := utf8.DecodeRuneInString(s[i:])
			if !isWordRune(r) {
				break
			}
			ascii = false
			i += n
		}
		if i-start > MaxWord {
			continue
		}
		fn(start, i, ascii, upper)
	}
}

func isASCIIWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func isWordRune(r rune) bool {
	if 0x2000 <= r && r <= 0x206f {
		return false // General Punctuation (typographic quotes and dashes), none L, N or M
	}
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r)
}

// appendLowerASCII appends s, ASCII, lowercased.
func appendLowerASCII(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return b
}

func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// Words returns the words of s (eachWord), in order, repeats included.
func Words(s string) []string {
	var out []string
	eachWord(s, func(w string, _, _ int) { out = append(out, w) })
	return out
}

// less16 orders words as JavaScript compares strings (by UTF-16 code
// units), which the reader's browser uses to find a word's chunk. It is
// byte order but for runes past U+FFFF, which sort before U+E000.
func less16(a, b string) bool {
	for i := 0; i < len(a) && i < len(b); {
		if a[i] < utf8.RuneSelf && b[i] < utf8.RuneSelf {
			if a[i] != b[i] {
				return a[i] < b[i]
			}
			i++
			continue
		}
		ra, na := utf8.DecodeRuneInString(a[i:])
		rb, nb := utf8.DecodeRuneInString(b[i:])
		if ra != rb {
			if ua, ub := unit16(ra), unit16(rb); ua != ub {
				return ua < ub
			}
			return ra < rb
		}
		if na != nb { // cannot happen for equal runes
			return na < nb
		}
		i += na
	}
	return len(a) < len(b)
}

// compare16 is less16 as a three-way comparison.
func compare16(a, b string) int {
	switch {
	case a == b:
		return 0
	case less16(a, b):
		return -1
	}
	return 1
}

// unit16 is the first UTF-16 code unit of r, scaled so that runes of one
// unit keep their order among themselves.
func unit16(r rune) rune {
	if r >= 0x10000 {
		return 0xD800 + (r-0x10000)>>10
	}
	return r
}

// camelParts returns the parts of a word written in camel case ("PipelineTask":
// "pipeline", "task"; "HTTPServer": "http", "server"; "getV2Data": "get",
// "v2", "data"), lowercased, or nil when it has one part. The index holds a
// word and its parts, so that "pipeline task" finds PipelineTask.
func camelParts(orig string) []string {
	var parts []string
	eachCamelPart(orig, func(part string) { parts = append(parts, lowerASCII(part)) })
	return parts
}

// eachCamelPart calls fn with each part of orig (camelParts'), as written,
// and not at all when orig has one part or is not all ASCII.
func eachCamelPart(orig string, fn func(part string)) {
	for i := 0; i < len(orig); i++ {
		if orig[i] >= utf8.RuneSelf {
			return // ASCII words only
		}
	}
	start := 0
	for i := 1; i < len(orig); i++ {
		c, p := orig[i], orig[i-1]
		upper, pLower, pUpper := 'A' <= c && c <= 'Z', 'a' <= p && p <= 'z', 'A' <= p && p <= 'Z'
		// A lower-case letter or digit then an upper-case one; or the last
		// of a run of capitals before a lower-case letter.
		next := i+1 < len(orig) && 'a' <= orig[i+1] && orig[i+1] <= 'z'
		if upper && (pLower || '0' <= p && p <= '9') || upper && pUpper && next {
			fn(orig[start:i])
			start = i
		}
	}
	if start > 0 {
		fn(orig[start:])
	}
}
