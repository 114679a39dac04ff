package render

import (
	"encoding/xml"
	"strings"

	"lectern.dev/lectern/render/links"
	"lectern.dev/lectern/render/output"
	"lectern.dev/lectern/render/page"
	"lectern.dev/lectern/render/search"
)

func (s *site) searchEntry(p *page.Page, body string, toc []search.TOCItem) search.Entry {
	var group string
	if g := s.entries[p.Path].Groups; len(g) > 0 {
		group = g[len(g)-1]
	}
	return search.NewEntry(p.Path, s.links.PageURL("index.html", p.Path), p.Title, p.Front.Description, group, p.Front.Keywords, body, toc)
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
	s.searchJSON, s.searchJS, s.searchOffsets = search.Assemble(s.search, s.indexed)
	return s.searchJSON
}

// indexed reports whether page i of s.order is in the search index.
func (s *site) indexed(i int) bool { return i < len(s.order) && s.inSearch(s.order[i]) }

// splicedSearchIndex lays out the search index (searchIndex) as parts
// when most of it is the previous build's index: from[i] is where page
// i's entry is in that index, -1 when it is not (buildCache.indexFrom).
// Entries that follow each other in both are one part, copied from the
// previous index's file rather than read (Dir.WriteParts). It sets
// s.searchOffsets, and returns nil when the index has too many parts.
func (s *site) splicedSearchIndex(from []int64) []output.Part {
	parts, offsets := search.Splice(s.search, s.indexed, from)
	if parts != nil {
		s.searchOffsets = offsets
	}
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

// sitemap lists the canonical URL of every page that is in it (inSitemap).
func (s *site) sitemap() []byte {
	var b strings.Builder
	b.WriteString(xml.Header)
	b.WriteString(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
	for _, p := range s.order {
		if !s.inSitemap(p) {
			continue
		}
		b.WriteString("  <url><loc>")
		if u := s.links.Canonical(p.Path); links.Unreserved(strings.TrimPrefix(strings.TrimPrefix(u, "https://"), "http://")) {
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
		b.WriteString("Sitemap: " + strings.TrimSuffix(s.links.Canonical("index"), "/") + "/sitemap.xml\n")
	}
	return []byte(b.String())
}
