package render

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"

	"lectern.dev/lectern/render/cache"
	"lectern.dev/lectern/render/layout"
	"lectern.dev/lectern/render/markdown"
	"lectern.dev/lectern/render/output"
	"lectern.dev/lectern/render/page"
	"lectern.dev/lectern/render/search"
)

// fileSum returns the hash of a source file, "" when it cannot be read.
// An unchanged stamp saves reading it.
func (c *buildCache) fileSum(s *site, name string) string {
	c.mu.Lock()
	v, ok := c.sums[name]
	c.mu.Unlock()
	if ok {
		return v
	}
	st := s.statFile(name)
	if old := s.manifest.Trusted(name, st); old != nil {
		v = old.Sum
		s.manifest.Put(name, &cache.Source{Stamp: st, Sum: v})
	} else if data, err := s.readFile(name); err == nil {
		v = cache.Sum(data)
		s.manifest.Put(name, &cache.Source{Stamp: st, Sum: v})
	}
	c.mu.Lock()
	c.sums[name] = v
	c.mu.Unlock()
	return v
}

// contextHash hashes what page i shows of the rest of the site: its
// source file (x.mdx may come beside x.md), its section's sidebar, where
// the configuration's links lead and the labels and paths of its
// neighbours.
func (c *buildCache) contextHash(s *site, i int) string {
	h := sha256.New()
	if s.theme != nil {
		// The sidebar's inputs rather than the sidebar itself, which is
		// then rendered only for a page rendered.
		sh := s.theme.SidebarSum(i)
		// Length-prefixed strings: file, sidebar and configuration
		// hashes, then the path and label of each neighbour (none: an
		// empty path).
		buf := make([]byte, 0, 256)
		field := func(v string) {
			buf = binary.AppendUvarint(buf, uint64(len(v)))
			buf = append(buf, v...)
		}
		field(s.order[i].File)
		field(sh)
		field(s.theme.ChromeSum())
		prev, next := s.theme.Neighbours(s.order[i])
		for _, q := range []*page.Page{prev, next} {
			if q != nil {
				field(q.Path)
				field(layout.NavLabel(q))
			} else {
				field("")
			}
		}
		h.Write(buf)
	}
	var sumBuf [sha256.Size]byte
	return hex.EncodeToString(h.Sum(sumBuf[:0])[:16])
}

// reuse returns the function that keeps page i from the previous build
// when its inputs are those of that build (ok), for site.renderPages; it
// is nil without a previous build.
func (c *buildCache) reuse(s *site) func(i int) (pageResult, bool) {
	if c.prev == nil {
		return nil
	}
	keeper, _ := s.out.(output.Keeper)
	if keeper == nil {
		return nil
	}
	c.contexts = make([]string, len(s.order))
	s.manifest.OutputsChecked()
	return func(i int) (pageResult, bool) {
		p := s.order[i]
		rec := &cache.Page{Src: s.srcSums[p.Path], Context: c.contextHash(s, i)}
		c.contexts[i] = rec.Context
		old := c.reusable(s, p, rec)
		if old == nil {
			return pageResult{}, false
		}
		if old.OutChecked && !old.OutOK || !old.OutChecked && (!keeper.KeepFile(p.Path+".html", old.Out) || !keeper.KeepFile(p.Path+".md", old.MD)) {
			return pageResult{}, false
		}
		if old.Mermaid && s.mermaid != nil {
			s.mermaid.used.Store(true)
		}
		if old.Playground {
			st := s.apiState()
			st.mu.Lock()
			st.playground = true
			st.mu.Unlock()
		}
		if old.SearchID > 0 {
			// Its fragment in the search index is kept too (its file is
			// written again if another of its pages changed).
			if !c.keepFragment(keeper, search.FragmentFile(old.SearchID-1), old.Frag) {
				return pageResult{}, false
			}
		}
		return pageResult{reused: true, doc: search.Doc{Terms: old.Terms}, warns: old.Warnings, cached: old}, true
	}
}

// keepFragment keeps the previous build's fragment file name (as info
// says it was written), once for the pages it holds: the first of them
// asks the output, the others read its answer.
func (c *buildCache) keepFragment(keeper output.Keeper, name string, info output.FileInfo) bool {
	key := keptFile{name, info}
	if ok, done := c.keptFrags.Load(key); done {
		return ok.(bool)
	}
	ok := keeper.KeepFile(name, info)
	if ok && c.out != nil {
		c.out.MarkWritten(name)
	}
	c.keptFrags.Store(key, ok)
	return ok
}

// keptFile is a file of the previous build, as a page's record has it.
type keptFile struct {
	name string
	info output.FileInfo
}

// page returns the worker function of a build with a cache that renders
// page i (those reuse keeps are not given to it) and makes its record.
func (c *buildCache) page(s *site) func(i int) pageResult {
	return func(i int) pageResult {
		p := s.order[i]
		rec := &cache.Page{Src: s.srcSums[p.Path]}
		if c.contexts != nil {
			rec.Context = c.contexts[i]
		} else {
			rec.Context = c.contextHash(s, i)
		}
		r := s.renderOne(i)
		if r.err == nil {
			r.doc.Encode() // on the page's worker
			rec.Terms, rec.Warnings = r.doc.Terms, r.warns
			rec.Links, rec.LinkSum = r.lookups, s.links.LookupSum(r.lookups)
			rec.Mermaid = bytes.Contains(r.data, []byte(markdown.MermaidMarker))
			rec.Playground = bytes.Contains(r.data, []byte(playgroundMarker()))
			if len(r.deps) > 0 {
				rec.Deps = map[string]string{}
				for _, d := range r.deps {
					rec.Deps[d] = c.fileSum(s, d)
				}
			}
			r.cached = rec
		}
		return r
	}
}

// reusable returns the previous record of p when its inputs match rec's.
func (c *buildCache) reusable(s *site, p *page.Page, rec *cache.Page) *cache.Page {
	if c.prev == nil {
		return nil
	}
	old := c.prev.Pages[p.Path]
	if old == nil || old.Src == "" || old.Src != rec.Src || old.Context != rec.Context {
		return nil
	}
	for d, h := range old.Deps {
		if h == "" || c.fileSum(s, d) != h {
			return nil
		}
	}
	if !c.samePageFiles && s.links.LookupSum(old.Links) != old.LinkSum {
		return nil // a link, snippet or module of the page is another now
	}
	return old
}

// finish records each page's id in the search index and its fragment
// file, as written or kept, once the site files are written.
func (c *buildCache) finish(s *site) {
	keeper, ok := s.out.(output.Keeper)
	if !ok || s.searchIDs == nil {
		return
	}
	infos := map[string]output.FileInfo{}
	for i, p := range s.order {
		rec, id := c.next.Pages[p.Path], s.searchIDs[i]
		if rec == nil {
			continue
		}
		if id < 0 {
			if rec.SearchID != 0 {
				// Kept, but out of the index now (a group of the
				// navigation hidden): its id is another page's to take.
				r := *rec
				r.SearchID, r.Frag = 0, output.FileInfo{}
				c.next.Pages[p.Path] = &r
			}
			continue
		}
		name := search.FragmentFile(id)
		f, ok := infos[name]
		if !ok {
			if f, ok = keeper.FileInfo(name); !ok {
				continue
			}
			infos[name] = f
		}
		if rec.SearchID == id+1 && rec.Frag == f {
			continue
		}
		// A copy: the record may be the previous build's.
		r := *rec
		r.SearchID, r.Frag = id+1, f
		c.next.Pages[p.Path] = &r
	}
}

// keptFragment reports whether page i, kept from the previous build
// (reuse), keeps its fragment as the search index's page id.
func (c *buildCache) keptFragment(s *site, i, id int) bool {
	if c.prev == nil {
		return false
	}
	old := c.prev.Pages[s.order[i].Path]
	return old != nil && old.SearchID == id+1
}

// keepSearchFiles reports whether the search index's meta file and chunks
// of the previous build are kept (and records them): no page's words
// changed, and the index holds as many pages (n).
func (c *buildCache) keepSearchFiles(s *site, n int) bool {
	if c.searchChanged || c.prev == nil || len(c.prev.Search) == 0 || c.out == nil {
		return false
	}
	had := 0
	for _, rec := range c.prev.Pages {
		if rec.SearchID > 0 {
			had++
		}
	}
	if had != n {
		return false
	}
	for _, f := range c.prev.Search {
		if !c.out.KeepFile(f.Name, f.Info) {
			return false
		}
	}
	for _, f := range c.prev.Search {
		c.out.MarkWritten(f.Name)
		s.written++
	}
	c.next.Search = c.prev.Search
	return true
}

// recordSearchFiles records the search index's meta file and chunks as
// written.
func (c *buildCache) recordSearchFiles(files []search.File) {
	if c.out == nil {
		return
	}
	c.next.Search = make([]cache.SearchFile, 0, len(files))
	for _, f := range files {
		info, ok := c.out.FileInfo(f.Name)
		if !ok {
			c.next.Search = nil
			return
		}
		c.next.Search = append(c.next.Search, cache.SearchFile{Name: f.Name, Info: info})
	}
}

// record adds page i, as written, to the next manifest. It runs on the
// goroutine that writes the pages.
func (c *buildCache) record(s *site, i int, r pageResult) {
	if i == 0 {
		c.firstReused = r.reused
	}
	if !c.searchChanged && !r.reused {
		// A reused page has its previous words and id.
		old := c.prev.Pages[s.order[i].Path]
		c.searchChanged = old == nil || (old.SearchID > 0) != (r.doc.Terms != nil) || !bytes.Equal(r.doc.Terms, old.Terms)
	}
	rec := r.cached
	if rec == nil {
		return
	}
	if !r.reused {
		keeper, ok := s.out.(output.Keeper)
		if !ok {
			return
		}
		f, ok := keeper.FileInfo(s.order[i].Path + ".html")
		if !ok {
			return
		}
		md, ok := keeper.FileInfo(markdownName(s.order[i].Path + ".html"))
		if !ok {
			return
		}
		rec.Out, rec.MD = f, md
	}
	c.next.Pages[s.order[i].Path] = rec
}

// keepHome reports whether index.html and index.md, a copy of the first
// page (there is no "index" page), are kept from the previous build: that
// page was, and the Output still holds the files written with it.
func (c *buildCache) keepHome(s *site) bool {
	if c.prev == nil || c.out == nil || !c.firstReused || c.prev.HomePage != s.order[0].Path || c.prev.Home.Size == 0 {
		return false
	}
	if !c.out.KeepFile("index.html", c.prev.Home) || !c.out.KeepFile("index.md", c.prev.HomeMD) {
		return false
	}
	c.out.MarkWritten("index.html")
	c.out.MarkWritten("index.md")
	c.next.Home, c.next.HomeMD, c.next.HomePage = c.prev.Home, c.prev.HomeMD, c.prev.HomePage
	return true
}

// recordHome records index.html and index.md as just written, a copy of
// the first page.
func (c *buildCache) recordHome(s *site) {
	if c.out == nil {
		return
	}
	f, ok := c.out.FileInfo("index.html")
	md, mdOK := c.out.FileInfo("index.md")
	if ok && mdOK {
		c.next.Home, c.next.HomeMD, c.next.HomePage = f, md, s.order[0].Path
	}
}

// keepAsset reports whether the copied file name, whose source has the
// stamp st, is kept from the previous build (and records it).
func (c *buildCache) keepAsset(s *site, name string, st cache.Stamp) bool {
	keeper, ok := s.out.(output.Keeper)
	if !ok || !st.OK {
		return false
	}
	m, _ := s.manifest.Get()
	if m == nil {
		return false
	}
	old := m.Assets[name]
	if old == nil || old.Stamp != st {
		return false
	}
	if st.Racy(m.Start) || !keeper.KeepFile(name, old.Out) {
		return false
	}
	c.next.Assets[name] = old
	return true
}

// recordAsset records the copied file name as just written.
func (c *buildCache) recordAsset(s *site, name string, st cache.Stamp) {
	keeper, ok := s.out.(output.Keeper)
	if !ok || !st.OK {
		return
	}
	if f, ok := keeper.FileInfo(name); ok {
		c.next.Assets[name] = &cache.Asset{Stamp: st, Out: f}
	}
}
