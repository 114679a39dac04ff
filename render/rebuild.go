package render

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"lectern.dev/lectern/render/cache"
	"lectern.dev/lectern/render/highlight"
	"lectern.dev/lectern/render/links"
	"lectern.dev/lectern/render/page"
)

// buildCache is the cache of one build; its methods are safe for
// concurrent use by the workers.
type buildCache struct {
	dir  string
	prev *cache.Manifest // nil when absent or of another key
	// last is the previous manifest as read, whatever its renderer: the
	// files it lists are removed from an output updated in place.
	last *cache.Manifest
	next *cache.Manifest
	// out records the files written to a output.Dir (nil for other
	// Outputs).
	out *cache.Tracker
	// code is the highlighted code (highlight.Store).
	code *highlight.Store
	// samePageFiles says the source has the page files of the previous
	// build: the pages' lookups find what they found (Page.LinkSum).
	samePageFiles bool
	// searchChanged says that a page's words for the search index, or
	// whether it is in the index, are not as in the previous build
	// (record), so that the index's meta file and chunks are built again.
	searchChanged bool

	// contexts are the pages' context hashes (contextHash), in the order
	// of the site, once reuse has run.
	contexts []string
	// keptFrags are the fragment files of the search index that reuse
	// asked the output to keep (keepFragment): keptFile → bool.
	keptFrags sync.Map
	// firstReused says the first page was kept from the previous build.
	firstReused bool
	// sourcesEncoded is closed once encodeSourcesAhead is done.
	sourcesEncoded chan struct{}

	mu   sync.Mutex
	sums map[string]string // source file → hash (snippets)
}

// statFile returns the stamp of the source file name: the one the walk
// of the source found (site.load), else a new one.
func (s *site) statFile(name string) cache.Stamp {
	if st, ok := s.stamps[name]; ok {
		return st
	}
	fi, err := fs.Stat(s.src, name)
	if err != nil || !fi.Mode().IsRegular() {
		return cache.Stamp{}
	}
	return cache.StampOf(fi)
}

// openCache takes the manifest of the previous build when its key matches
// this build's.
func openCache(s *site, ms *cache.State) (*buildCache, error) {
	c := &buildCache{dir: s.opts.CacheDir, sums: map[string]string{}}
	key := cacheKey(s, ms.Tool)
	m, err := ms.Get()
	if err != nil {
		return nil, err
	}
	c.next = &cache.Manifest{Tool: ms.Tool, Key: key, Start: ms.Start,
		Pages: make(map[string]*cache.Page, len(s.order)), Sources: ms.Sources, Assets: map[string]*cache.Asset{}}
	pageOrder := make([]string, len(s.order))
	for i, p := range s.order {
		pageOrder[i] = p.Path
	}
	c.next.SetOrder(pageOrder, s.fileList)
	c.next.PageFiles = pageFilesSum(s.fileList, s.pages)
	if m != nil && m.Key == key && !m.Updating {
		c.prev = m
	}
	c.searchChanged = c.prev == nil || !samePages(c.prev, s)
	c.samePageFiles = c.prev != nil && c.prev.PageFiles == c.next.PageFiles
	var code highlight.Index
	if m != nil {
		code = m.Code
	}
	c.code = highlight.NewStore(c.dir, code)
	c.last = ms.Raw
	if d, ok := cache.DirOutputOf(s.out); ok {
		c.out = cache.NewTracker(d)
		s.out = c.out
		if d.Update {
			// Nothing has been written yet: mark the manifest first.
			if err := cache.MarkUpdating(c.dir, ms.Raw); err != nil {
				return nil, err
			}
		}
	}
	return c, nil
}

// pageFilesSum hashes the names of the page files of files, and the paths
// of the site's pages: those the navigation generates (OpenAPI operations)
// come and go with no page file.
func pageFilesSum(files []string, pages map[string]*page.Page) string {
	h := sha256.New()
	for _, f := range files {
		if links.IsPageFile(f) {
			h.Write([]byte(f))
			h.Write([]byte{0})
		}
	}
	h.Write([]byte{1})
	for _, p := range slices.Sorted(maps.Keys(pages)) {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// samePages reports whether the previous build had the pages of s: pages
// come and go without a change of key, and the search index is the
// previous one only if none did.
func samePages(prev *cache.Manifest, s *site) bool {
	if len(prev.Pages) != len(s.order) {
		return false
	}
	for _, p := range s.order {
		if prev.Pages[p.Path] == nil {
			return false
		}
	}
	return true
}

// encodeSourcesAhead encodes the next manifest's Sources in the background
// (while the site files are written): once the pages are rendered, no
// source is read any more.
func (c *buildCache) encodeSourcesAhead() {
	c.sourcesEncoded = make(chan struct{})
	go func() {
		defer close(c.sourcesEncoded)
		c.next.EncodeSourcesNow()
	}()
}

// save writes the manifest of this build, replacing the previous one. For
// an output updated in place, it first removes the files of the previous
// build into the same folder that this one did not produce.
func (c *buildCache) save() error {
	if c.out != nil {
		cache.RecordOutputs(c.next, c.last, c.out)
		c.out.CloseDirs()
	}
	// Without a previous record, every page was rendered.
	c.next.Code = c.code.Save(c.prev == nil)
	if c.sourcesEncoded != nil {
		<-c.sourcesEncoded
	}
	if err := cache.Write(c.dir, c.next); err != nil {
		return err
	}
	// The previous format's manifest, if any, is of no further use, nor
	// are the files of highlighted code it does not name.
	os.Remove(filepath.Join(c.dir, "manifest.gob"))
	highlight.RemoveOtherFiles(c.dir, c.next.Code.File)
	return nil
}
