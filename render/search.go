package render

import (
	"encoding/json"
	"encoding/xml"
	"html"
	"regexp"
	"strings"
	"unicode/utf8"

	"lectern.dev/lectern/render/links"
	"lectern.dev/lectern/render/output"
)

// tocItem is an entry of a page's table of contents.
type tocItem struct {
	ID    string `json:"id"`
	Text  string `json:"text"`
	Level int    `json:"level"`
}

var headingRE = regexp.MustCompile(`(?s)<h([23])[^>]*\sid="([^"]+)"[^>]*>(.*?)</h[23]>`)

// tableOfContents lists the h2 and h3 headings of a rendered body, in
// document order, including those inside components.
func tableOfContents(body string) []tocItem {
	var out []tocItem
	for _, m := range headingRE.FindAllStringSubmatch(body, -1) {
		text := htmlToText(m[3])
		if text == "" {
			continue
		}
		level := 2
		if m[1] == "3" {
			level = 3
		}
		out = append(out, tocItem{ID: html.UnescapeString(m[2]), Text: text, Level: level})
	}
	return out
}

// htmlToText returns the text of an HTML fragment, tags dropped, entities
// decoded and whitespace collapsed. Rendered bodies hold no scripts or
// styles, so all text counts.
func htmlToText(s string) string {
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

// searchEntry is one page of _lectern/search-index.json.
type searchEntry struct {
	Path        string          `json:"path"`
	URL         string          `json:"url"`
	Title       string          `json:"title"`
	Description string          `json:"description,omitempty"`
	Group       string          `json:"group,omitempty"`
	Keywords    []string        `json:"keywords,omitempty"`
	Headings    []searchHeading `json:"headings"`
	Text        string          `json:"text"`
}

// searchHeading is an h2 or h3 of a page in the search index.
type searchHeading struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

// maxSearchText bounds the text kept per page in the search index, which
// stays small enough for sites of thousands of pages.
const maxSearchText = 3000

func (s *site) searchEntry(p *page, body string, toc []tocItem) searchEntry {
	text := htmlToText(body)
	if len(text) > maxSearchText {
		cut := maxSearchText
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = text[:cut]
	}
	e := searchEntry{
		Path: p.path, Title: p.title, Description: p.fm.Description,
		Keywords: p.fm.Keywords, Headings: make([]searchHeading, 0, len(toc)), Text: text,
		URL: s.pageURL("index.html", p.path),
	}
	for _, h := range toc {
		e.Headings = append(e.Headings, searchHeading{ID: h.ID, Text: h.Text})
	}
	if g := s.entries[p.path].Groups; len(g) > 0 {
		e.Group = g[len(g)-1]
	}
	return e
}

// encodeSearchEntry is the JSON of one entry of the search index, as
// json.Marshal writes it in the index's list of pages. The pages' entries
// are encoded by the workers (or kept in the cache) and joined by
// searchIndex.
func encodeSearchEntry(e searchEntry) []byte {
	if e.Headings == nil {
		e.Headings = []searchHeading{}
	}
	data, err := json.Marshal(e)
	if err != nil { // cannot happen: only strings
		return []byte("{}")
	}
	return data
}

// searchIndex is the JSON of _lectern/search-index.json: every page that is
// not noindex, with URLs as seen from the site root (relative in the export
// form: site.js prefixes them with the page's way to the root). It is the
// same as json.Marshal of {version: 1, pages: [entries]}; it is assembled
// once per build and shared with searchIndexJS.
func (s *site) searchIndex() []byte {
	if s.searchJSON != nil {
		return s.searchJSON
	}
	const head, tail = `{"version":1,"pages":[`, `]}`
	size := len(searchJSPrefix) + len(head) + len(tail) + len(searchJSSuffix)
	for _, e := range s.search {
		size += len(e) + 1
	}
	// One buffer for both files: the JSON is written in place in the
	// script's (searchIndexJS), which saves a copy of a large index.
	buf := make([]byte, 0, size)
	buf = append(buf, searchJSPrefix...)
	out := buf[len(buf):]
	out = append(out, head...)
	first := true
	s.searchOffsets = make([]int, len(s.search))
	for i, e := range s.search {
		s.searchOffsets[i] = -1
		if i < len(s.order) && !s.order[i].fm.NoIndex {
			if !first {
				out = append(out, ',')
			}
			s.searchOffsets[i] = len(out)
			out = append(out, e...)
			first = false
		}
	}
	out = append(out, tail...)
	s.searchJSON = out[:len(out):len(out)]
	s.searchJS = append(buf[:len(buf)+len(out)], searchJSSuffix...)
	return s.searchJSON
}

const searchJSPrefix, searchJSSuffix = "window.LECTERN_SEARCH_INDEX = ", ";\n"

// maxSplicedParts bounds the parts of a spliced search index, beyond which
// it is assembled in memory instead.
const maxSplicedParts = 64

// splicedSearchIndex lays out the search index (searchIndex) as parts
// when most of it is the previous build's index: from[i] is where page
// i's entry is in that index, -1 when it is not (buildCache.indexFrom).
// Entries that follow each other in both are one part, copied from the
// previous index's file rather than read (Dir.WriteParts). It sets
// s.searchOffsets, and returns nil when the index has too many parts.
func (s *site) splicedSearchIndex(from []int64) []output.Part {
	const head, tail = `{"version":1,"pages":[`, `]}`
	var parts []output.Part
	// add appends new bytes, to the last part when it holds new bytes.
	add := func(b []byte) {
		if k := len(parts) - 1; k >= 0 && parts[k].Data != nil {
			parts[k].Data = append(parts[k].Data, b...)
			return
		}
		parts = append(parts, output.Part{Data: append(make([]byte, 0, len(b)+64), b...)})
	}
	add([]byte(head))
	offsets := make([]int, len(s.search))
	pos, first := len(head), true
	for i, e := range s.search {
		offsets[i] = -1
		if i >= len(s.order) || s.order[i].fm.NoIndex {
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
			return nil
		}
	}
	add([]byte(tail))
	s.searchOffsets = offsets
	return parts
}

// searchIndexJS is _lectern/search-index.js, the same index as a script
// that sets window.LECTERN_SEARCH_INDEX: site.js loads it with a <script>
// tag, which works from file:// where fetch() does not. encoding/json
// escapes U+2028 and U+2029, so the JSON is a valid JavaScript expression.
func (s *site) searchIndexJS() []byte {
	if s.searchSpliced {
		return nil // written from parts (writeSiteFiles)
	}
	s.searchIndex()
	return s.searchJS
}

// canonicalURL is the extensionless URL of a page for the sitemap and
// canonical links: SiteURL (if set) + BasePath + "/" + page.
func (s *site) canonicalURL(page string) string {
	p := page
	if p == "index" {
		p = ""
	}
	prefix := s.opts.SiteURL
	if !strings.HasSuffix(prefix, s.opts.BasePath) || s.opts.BasePath == "" {
		prefix += s.opts.BasePath
	}
	return prefix + "/" + links.EscapePath(p)
}

// sitemap lists the canonical URL of every page that is not noindex.
func (s *site) sitemap() []byte {
	var b strings.Builder
	b.WriteString(xml.Header)
	b.WriteString(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
	for _, p := range s.order {
		if p.fm.NoIndex {
			continue
		}
		b.WriteString("  <url><loc>")
		if u := s.canonicalURL(p.path); links.Unreserved(strings.TrimPrefix(strings.TrimPrefix(u, "https://"), "http://")) {
			b.WriteString(u) // nothing to escape
		} else {
			_ = xml.EscapeText(&b, []byte(u))
		}
		b.WriteString("</loc></url>\n")
	}
	b.WriteString("</urlset>\n")
	return []byte(b.String())
}

func (s *site) robots() []byte {
	var b strings.Builder
	b.WriteString("User-agent: *\nAllow: /\n")
	if s.opts.SiteURL != "" {
		b.WriteString("Sitemap: " + strings.TrimSuffix(s.canonicalURL("index"), "/") + "/sitemap.xml\n")
	}
	return []byte(b.String())
}

var httpMethods = map[string]bool{"GET": true, "POST": true, "PUT": true, "PATCH": true, "DELETE": true,
	"HEAD": true, "OPTIONS": true, "TRACE": true, "WEBHOOK": true}

// openAPIBlock shows the operation a page's openapi front matter names,
// such as "POST /plants" or "spec.json GET /plants". The full reference is
// rendered by later work.
func openAPIBlock(ref string) string {
	fields := strings.Fields(ref)
	for i, f := range fields {
		m := strings.ToUpper(f)
		if httpMethods[m] && i+1 < len(fields) {
			return `<div class="lc-openapi"><span class="lc-method lc-method-` + strings.ToLower(m) + `">` + m +
				`</span><code class="lc-openapi-path">` + html.EscapeString(fields[i+1]) + "</code></div>\n"
		}
	}
	return ""
}
