// Package search builds a site's search index: the entry of each page
// (NewEntry: title, description, group, keywords, the headings of its
// table of contents, its text), encoded once per page (Encode, by the
// page's worker or kept by the rebuild cache), and joined into
// _lectern/search-index.json and its script form (Assemble), or spliced
// from the previous build's index (Splice). TOC reads a page's h2 and h3
// for its table of contents and its entry.
//
// It knows nothing of pages' source or the theme: it reads the HTML of a
// page's body and writes JSON.
package search

import (
	"encoding/json"
	"html"
	"regexp"
	"strings"
	"unicode/utf8"

	"lectern.dev/lectern/render/output"
)

// TOCItem is an entry of a page's table of contents.
type TOCItem struct {
	ID    string `json:"id"`
	Text  string `json:"text"`
	Level int    `json:"level"`
}

var headingRE = regexp.MustCompile(`(?s)<h([23])[^>]*\sid="([^"]+)"[^>]*>(.*?)</h[23]>`)

// TOC lists the h2 and h3 headings of a rendered body, in
// document order, including those inside components.

// indexHead and indexTail are what the search index holds around its
// entries.
const indexHead, indexTail = `{"version":1,"pages":[`, `]}`

func TOC(body string) []TOCItem {
	var out []TOCItem
	for _, m := range headingRE.FindAllStringSubmatch(body, -1) {
		text := text(m[3])
		if text == "" {
			continue
		}
		level := 2
		if m[1] == "3" {
			level = 3
		}
		out = append(out, TOCItem{ID: html.UnescapeString(m[2]), Text: text, Level: level})
	}
	return out
}

// text returns the text of an HTML fragment, tags dropped, entities
// decoded and whitespace collapsed. Rendered bodies hold no scripts or
// styles, so all text counts.
func text(s string) string {
	var b strings.Builder
	b.Grow(len(s) / 2)
	space := true // drop leading space
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '<':
			end := strings.IndexByte(s[i:], '>')
			if end < 0 {
				i = len(s)
				continue
			}
			i += end + 1
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
			for end < len(s) && !strings.ContainsRune("< \n\t\r", rune(s[end])) {
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

// Entry is one page of _lectern/search-index.json.
type Entry struct {
	Path        string    `json:"path"`
	URL         string    `json:"url"`
	Title       string    `json:"title"`
	Description string    `json:"description,omitempty"`
	Group       string    `json:"group,omitempty"`
	Keywords    []string  `json:"keywords,omitempty"`
	Headings    []Heading `json:"headings"`
	Text        string    `json:"text"`
}

// Heading is an h2 or h3 of a page in the search index.
type Heading struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

// MaxText bounds the text kept per page in the search index, which
// stays small enough for sites of thousands of pages.
const MaxText = 3000

// Encode is the JSON of one entry of the search index, as
// json.Marshal writes it in the index's list of pages. The pages' entries
// are encoded by the workers (or kept in the cache) and joined by
// Assemble.
func Encode(e Entry) []byte {
	if e.Headings == nil {
		e.Headings = []Heading{}
	}
	data, err := json.Marshal(e)
	if err != nil { // cannot happen: only strings
		return []byte("{}")
	}
	return data
}

// Assemble joins the encoded entries of the pages, in navigation order,
// into the JSON of _lectern/search-index.json, leaving out those for which
// indexed is false (noindex pages): the same as json.Marshal of
// {version: 1, pages: [entries]}, with URLs as seen from the site root
// (relative in the export form: site.js prefixes them with the page's way
// to the root). script is the same index as _lectern/search-index.js, a
// script that sets window.LECTERN_SEARCH_INDEX: site.js loads it with a
// <script> tag, which works from file:// where fetch() does not
// (encoding/json escapes U+2028 and U+2029, so the JSON is a valid
// JavaScript expression). offsets[i] is where entry i is in index, -1 when
// it is not in it.
func Assemble(entries [][]byte, indexed func(i int) bool) (index, script []byte, offsets []int) {
	size := len(searchJSPrefix) + len(indexHead) + len(indexTail) + len(searchJSSuffix)
	for _, e := range entries {
		size += len(e) + 1
	}
	// One buffer for both files: the JSON is written in place in the
	// script's, which saves a copy of a large index.
	buf := make([]byte, 0, size)
	buf = append(buf, searchJSPrefix...)
	out := buf[len(buf):]
	out = append(out, indexHead...)
	first := true
	offsets = make([]int, len(entries))
	for i, e := range entries {
		offsets[i] = -1
		if indexed(i) {
			if !first {
				out = append(out, ',')
			}
			offsets[i] = len(out)
			out = append(out, e...)
			first = false
		}
	}
	out = append(out, indexTail...)
	index = out[:len(out):len(out)]
	script = append(buf[:len(buf)+len(out)], searchJSSuffix...)
	return index, script, offsets
}

const searchJSPrefix, searchJSSuffix = "window.LECTERN_SEARCH_INDEX = ", ";\n"

// maxSplicedParts bounds the parts of a spliced search index, beyond which
// it is assembled in memory instead.
const maxSplicedParts = 64

// Splice lays out the search index (Assemble) as parts when most of it is
// the previous build's index: from[i] is where entry i is in that index, -1
// when it is not. Entries that follow each other in both are one part,
// copied from the previous index's file rather than read
// (output.Dir.WriteParts). It returns nil when the index would have too
// many parts, and the offsets Assemble would give.
func Splice(entries [][]byte, indexed func(i int) bool, from []int64) (parts []output.Part, offsets []int) {
	// add appends new bytes, to the last part when it holds new bytes.
	add := func(b []byte) {
		if k := len(parts) - 1; k >= 0 && parts[k].Data != nil {
			parts[k].Data = append(parts[k].Data, b...)
			return
		}
		parts = append(parts, output.Part{Data: append(make([]byte, 0, len(b)+64), b...)})
	}
	add([]byte(indexHead))
	offsets = make([]int, len(entries))
	pos, first := len(indexHead), true
	for i, e := range entries {
		offsets[i] = -1
		if !indexed(i) {
			continue
		}
		if !first {
			pos++
		}
		offsets[i] = pos
		n := int64(len(e))
		k := len(parts) - 1
		switch {
		case from[i] < 0:
			if !first {
				add([]byte{','})
			}
			add(e)
		case !first && parts[k].Data == nil && parts[k].Off+parts[k].N+1 == from[i]:
			// Right after the previous entry there too, past its comma.
			parts[k].N += 1 + n
		default:
			if !first {
				add([]byte{','})
			}
			parts = append(parts, output.Part{Off: from[i], N: n})
		}
		pos += len(e)
		first = false
		if len(parts) > maxSplicedParts {
			return nil, nil
		}
	}
	add([]byte(indexTail))
	return parts, offsets
}

// NewEntry is the entry of a page: its path, URL (from the site root),
// title, description, keywords and group, the headings of its table of
// contents, and its text, cut to a bound, from body, its HTML.
func NewEntry(path, url, title, description, group string, keywords []string, body string, toc []TOCItem) Entry {
	text := text(body)
	if len(text) > MaxText {
		cut := MaxText
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = text[:cut]
	}
	e := Entry{
		Path: path, Title: title, Description: description, Group: group,
		Keywords: keywords, Headings: make([]Heading, 0, len(toc)), Text: text, URL: url,
	}
	for _, h := range toc {
		e.Headings = append(e.Headings, Heading{ID: h.ID, Text: h.Text})
	}
	return e
}

// ScriptParts lays out _lectern/search-index.js from the parts of the
// index (Splice).
func ScriptParts(index []output.Part) []output.Part {
	parts := append([]output.Part{{Data: []byte(searchJSPrefix)}}, index...)
	return append(parts, output.Part{Data: []byte(searchJSSuffix)})
}
