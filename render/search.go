package render

import (
	"cmp"
	"encoding/xml"
	"fmt"
	"runtime"
	"strings"

	"lectern.dev/lectern/render/features"
	"lectern.dev/lectern/render/links"
	"lectern.dev/lectern/render/page"
	"lectern.dev/lectern/render/search"
)

// searchDoc is page p's document for the search index (render/search),
// made on the page's worker from its rendered body and the body's
// headings; it is empty when p is not in the index.
func (s *site) searchDoc(p *page.Page, body string, headings *search.Headings) search.Doc {
	if !s.inSearch(p) || !s.opts.features().Search {
		return search.Doc{}
	}
	var group string
	if g := s.entries[p.Path].Groups; len(g) > 0 {
		group = g[len(g)-1]
	}
	if s.apiPage(p) {
		// Only API pages have examples and features' markers (the
		// playground's; those of the content are made inert: pageBody).
		body = features.StripMarkup(withoutExamples(body))
	}
	return search.NewDoc(search.Page{
		Path: p.Path, URL: s.links.PageURL("index.html", p.Path), Title: p.Title,
		Description: p.Front.Description, Group: group, Keywords: p.Front.Keywords,
		Body: body, Headings: headings,
	})
}

// searchIndexIDs gives each page in the search index its id there (the
// name of its fragment file, its number in the index): with a cache, the
// one it had in the previous build, so that a kept page's fragment stays
// valid; the others, in navigation order, the next ids not taken.
func (s *site) searchIndexIDs() []int {
	ids := make([]int, len(s.order))
	taken := map[int]bool{}
	for i, p := range s.order {
		ids[i] = -1
		if !s.inSearch(p) || !s.search[i].InIndex() {
			continue
		}
		if s.cache != nil && s.cache.prev != nil {
			if old := s.cache.prev.Pages[p.Path]; old != nil && old.SearchID > 0 && old.SearchID-1 <= search.MaxID && !taken[old.SearchID-1] {
				ids[i] = old.SearchID - 1
				taken[ids[i]] = true
			}
		}
	}
	next := 0
	for i := range s.order {
		if ids[i] >= 0 || !s.search[i].InIndex() || !s.inSearch(s.order[i]) {
			continue
		}
		for taken[next] {
			next++
		}
		ids[i] = next
		taken[next] = true
	}
	return ids
}

// writeSearchIndex writes the search index: the fragment files of the
// pages in it (one for each search.FragmentGroup ids; a cache keeps those
// whose pages were all kept: buildCache.reuse), and the meta file and
// chunks, which a cache keeps when no page's words changed, and patches
// when some did. It marks them in generated.
func (s *site) writeSearchIndex(generated map[string]bool) error {
	if s.stream != nil {
		return s.stream.finish(s, generated) // search_stream.go
	}
	s.searchIDs = s.searchIndexIDs()
	entries := make([]search.Entry, 0, len(s.order))
	groups := map[int]*fragmentGroup{} // by id/search.FragmentGroup
	for i, id := range s.searchIDs {
		if id < 0 {
			continue
		}
		g := groups[id/search.FragmentGroup]
		if g == nil {
			g = &fragmentGroup{name: search.FragmentFile(id)}
			groups[id/search.FragmentGroup] = g
		}
		if d := s.search[i]; d.Frag != nil {
			g.frags[id%search.FragmentGroup] = d.Frag
			g.changed = true
		} else if s.cache == nil || !s.cache.keptFragment(s, i, id) {
			return fmt.Errorf("render: internal error: no search fragment for %s", s.order[i].File)
		} else {
			g.kept = append(g.kept, i)
		}
		entries = append(entries, search.Entry{ID: id, Terms: s.search[i].Terms})
	}
	var todo []*fragmentGroup
	if s.cache != nil {
		s.cache.fragmentsGone(s, groups)
	}
	for _, g := range groups {
		if !g.changed {
			// Kept whole (buildCache.reuse kept its file).
			generated[g.name] = true
			s.written++
			continue
		}
		todo = append(todo, g)
	}
	// The changed files are made (their kept pages' fragments read back
	// from their previous copies) and compressed while the chunks are
	// made, then written.
	files := make([]search.File, len(todo))
	var encErr error
	encoded := make(chan struct{})
	go func() {
		defer close(encoded)
		encErr = forEach(len(todo), runtime.GOMAXPROCS(0), func(k int) error {
			if g := todo[k]; len(g.kept) > 0 {
				if err := s.cache.readKeptFragments(s, g); err != nil {
					return err
				}
			}
			files[k] = search.File{Name: todo[k].name, Data: search.EncodeFragments(&todo[k].frags)}
			return nil
		})
	}()
	err := s.writeSearchChunks(entries, generated)
	<-encoded
	if err = cmp.Or(err, encErr); err != nil {
		return err
	}
	for _, f := range files {
		generated[f.Name] = true
	}
	return s.writeParallel(files)
}

// fragmentGroup is a fragment file of the search index being written:
// the fragments of its pages rendered, and those kept from the previous
// build (indices in s.order), which are read from its previous file when
// it changed.
type fragmentGroup struct {
	name    string
	frags   search.Fragments
	kept    []int
	changed bool
}

// writeSearchChunks writes the search index's meta file and chunks, or
// keeps or patches those of the cache's previous build.
func (s *site) writeSearchChunks(entries []search.Entry, generated map[string]bool) error {
	if s.cache != nil && s.cache.keepSearchFiles(s, len(entries)) {
		for _, f := range s.cache.next.Search {
			generated[f.Name] = true
		}
		return nil
	}
	if s.cache != nil {
		// Patched, when the previous index is there (rebuild_search.go).
		if ok, err := s.cache.updateSearch(s, generated); ok || err != nil {
			return err
		}
	}
	files, err := search.Build(entries)
	if err != nil {
		return err
	}
	for _, f := range files {
		if err := s.write(f.Name, f.Data); err != nil {
			return err
		}
		generated[f.Name] = true
	}
	if s.cache != nil {
		s.cache.recordSearchFiles(files)
	}
	return nil
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
