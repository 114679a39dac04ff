// Package search is a site's full-text search: the index a build writes,
// and the queries on it, in Go (Open, Index.Search) and in the reader's
// browser (QueryJS, with StemJS and UnsnapJS), which give the same results.
//
// Each page's worker makes the page's Doc (NewDoc): every word of its
// title, description, keywords, headings and body text, with weighted
// frequencies (title > heading > description > body), and its fragment,
// the file a result shows (title, group, text by section). Build turns
// the pages' Docs into the meta file and the chunks of the vocabulary,
// sorted, each word with the pages that hold it. A query loads the meta
// file, then only the chunks of its words' prefixes and the fragments of
// the results it shows: a few hundred KB at 10,000 pages. Every file is a
// script (codec.go), so the same index works over HTTP and from file://.
// Words are matched exactly, by English stem (Stem), by prefix while
// typing, and with one typo in longer words; pages are ranked by BM25.
//
// TOC reads a page's h2 and h3 for its table of contents. The package
// knows nothing of pages' source or the theme: it reads the HTML of a
// page's body.
package search

import (
	"html"
	"strings"
)

// TOCItem is an entry of a page's table of contents.
type TOCItem struct {
	ID    string `json:"id"`
	Text  string `json:"text"`
	Level int    `json:"level"`
}

// textStop are the bytes that end a run of text.
var textStop = [256]bool{'<': true, ' ': true, '\n': true, '\t': true, '\r': true}

// text returns the text of an HTML fragment, tags dropped, entities
// decoded and whitespace collapsed. Rendered bodies hold no scripts or
// styles, so all text counts but the labels of buttons (a code block's
// "Copy"), which are the page's controls.
func text(s string) string {
	var b strings.Builder
	b.Grow(len(s) / 2)
	space := true // drop leading space
	var tags tagSkipper
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '<':
			if i = tags.skip(s, i); i < 0 {
				i = len(s)
				continue
			}
			if !space {
				b.WriteByte(' ')
				space = true
			}
		case c == ' ' || c == '\n' || c == '\t' || c == '\r':
			if !space {
				b.WriteByte(' ')
				space = true
			}
			i++
		default:
			end := i + 1
			for end < len(s) && !textStop[s[end]] {
				end++
			}
			word := s[i:end]
			if strings.IndexByte(word, '&') >= 0 {
				word = html.UnescapeString(word)
			}
			b.WriteString(word)
			space = false
			i = end
		}
	}
	return strings.TrimSpace(b.String())
}
