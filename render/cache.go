package render

import (
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
)

// The build cache (Options.CacheDir) makes a rebuild after a small change
// re-render only the pages whose inputs changed. Its manifest records,
// for each page, the hashes of its inputs and the size and modification
// time of its output file, its search entry and its warnings. A page is
// reused when:
//
//   - the build's key is the same: cache format, renderer binary (path,
//     size, modification time), options, configuration file, the list of
//     source files and the size and modification time of every non-page
//     file (a new page, a removed one, a changed image or spec rebuilds
//     everything);
//   - the page's source and every snippet it imported have the same hash;
//   - its context is the same: the rendered sidebar of its section (page
//     titles, sidebar titles, icons, hidden pages) and the titles and paths
//     of the previous and next pages;
//   - the Output still holds the file the previous build wrote (DirOutput:
//     same size and modification time, in Dir or, linked from there, in
//     Prev).
//
// Otherwise the page is rendered again. Everything else (index.html,
// 404.html, the search index, sitemap, theme files, copied files) is
// written by every build.

// cacheFormat changes whenever the manifest's format or meaning does.
const cacheFormat = "lectern-render-cache/1"

const manifestName = "manifest.gob"

// cacheManifest is what the cache folder holds.
type cacheManifest struct {
	Key   string
	Pages map[string]*cachedPage
}

// cachedPage is the record of one page.
type cachedPage struct {
	Src      string            // hash of the source file
	Deps     map[string]string // imported files → hash
	Context  string            // hash of the sidebar and neighbours
	Out      cachedFile
	Entry    searchEntry
	Warnings []Warning
	// Mermaid says the page has a diagram (the build then writes the
	// mermaid library). Anything else a page's render records on the site
	// must be kept here too, so that a reused page records it again.
	Mermaid bool
	// Playground says the page has an API playground (the build then
	// writes playground.js).
	Playground bool
}

// cachedFile identifies an output file as written.
type cachedFile struct {
	Size    int64
	ModTime int64 // Unix nanoseconds
}

// fileKeeper is implemented by Outputs that can keep a file a previous
// build wrote (DirOutput).
type fileKeeper interface {
	// keepFile reports whether name is (or, from a previous folder, has
	// been made) the file f describes.
	keepFile(name string, f cachedFile) bool
	// fileInfo describes the file name as just written.
	fileInfo(name string) (cachedFile, bool)
}

// buildCache is the cache of one build; its methods are safe for
// concurrent use by the workers.
type buildCache struct {
	dir  string
	prev *cacheManifest // nil when absent or of another key
	next *cacheManifest

	mu       sync.Mutex
	sums     map[string]string       // source file → hash (snippets)
	sidebars map[*sidebarHTML]string // rendered sidebar → hash
}

func sum(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:16])
}

// readManifest starts reading the manifest of the previous build in the
// background (while the source loads); the function it returns waits for
// it. A missing or unreadable manifest is nil.
func readManifest(dir string) func() (*cacheManifest, error) {
	type result struct {
		m   *cacheManifest
		err error
	}
	ch := make(chan result, 1)
	go func() {
		data, err := os.ReadFile(filepath.Join(dir, manifestName))
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				err = nil
			} else {
				err = fmt.Errorf("render: read cache: %w", err)
			}
			ch <- result{err: err}
			return
		}
		var m cacheManifest
		if gob.NewDecoder(bytes.NewReader(data)).Decode(&m) != nil || m.Pages == nil {
			ch <- result{} // from another version: ignored
			return
		}
		ch <- result{m: &m}
	}()
	return func() (*cacheManifest, error) {
		r := <-ch
		return r.m, r.err
	}
}

// openCache takes the manifest of the previous build (from readManifest)
// when its key matches this build's.
func openCache(s *site, prev func() (*cacheManifest, error)) (*buildCache, error) {
	c := &buildCache{dir: s.opts.CacheDir, sums: map[string]string{}, sidebars: map[*sidebarHTML]string{}}
	key, err := cacheKey(s)
	m, rerr := prev()
	if err != nil {
		return nil, err
	}
	if rerr != nil {
		return nil, rerr
	}
	c.next = &cacheManifest{Key: key, Pages: make(map[string]*cachedPage, len(s.order))}
	if m != nil && m.Key == key {
		c.prev = m
	}
	return c, nil
}

// cacheKey hashes what every page depends on.
func cacheKey(s *site) (string, error) {
	h := sha256.New()
	line := func(parts ...string) {
		for _, p := range parts {
			h.Write([]byte(strconv.Quote(p)))
			h.Write([]byte{' '})
		}
		h.Write([]byte{'\n'})
	}
	line(cacheFormat)
	if exe, err := os.Executable(); err == nil {
		if fi, err := os.Stat(exe); err == nil {
			line("exe", exe, strconv.FormatInt(fi.Size(), 10), strconv.FormatInt(fi.ModTime().UnixNano(), 10))
		}
	}
	line("opts", s.opts.BasePath, strconv.FormatBool(s.opts.Export), s.opts.SiteURL)
	for _, name := range []string{"docs.json", "mint.json"} {
		if s.files[name] {
			data, err := fs.ReadFile(s.src, name)
			if err != nil {
				return "", fmt.Errorf("render: read %s: %w", name, err)
			}
			line("config", name, sum(data))
		}
	}
	for _, f := range sortedKeys(s.files) {
		if isPageFile(f) {
			line("page", f)
			continue
		}
		fi, err := fs.Stat(s.src, f)
		if err != nil {
			line("file", f, "?")
			continue
		}
		line("file", f, strconv.FormatInt(fi.Size(), 10), strconv.FormatInt(fi.ModTime().UnixNano(), 10))
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// fileSum returns the hash of a source file, "" when it cannot be read.
func (c *buildCache) fileSum(s *site, name string) string {
	c.mu.Lock()
	v, ok := c.sums[name]
	c.mu.Unlock()
	if ok {
		return v
	}
	data, err := fs.ReadFile(s.src, name)
	if err == nil {
		v = sum(data)
	}
	c.mu.Lock()
	c.sums[name] = v
	c.mu.Unlock()
	return v
}

// contextHash hashes what page i shows of the rest of the site: its
// section's sidebar and the labels and paths of its neighbours.
func (c *buildCache) contextHash(s *site, i int) string {
	p := s.order[i]
	h := sha256.New()
	if s.theme != nil {
		sb := s.theme.sidebar(s.sectionOf(p), p.path+".html")
		c.mu.Lock()
		sh, ok := c.sidebars[sb]
		if !ok {
			sh = sum([]byte(sb.html))
			c.sidebars[sb] = sh
		}
		c.mu.Unlock()
		h.Write([]byte(sh))
		h.Write([]byte{0})
		for _, j := range []int{i - 1, i + 1} {
			if j >= 0 && j < len(s.order) {
				q := s.order[j]
				h.Write([]byte(strconv.Quote(q.path) + strconv.Quote(s.theme.navLabel(q))))
			}
			h.Write([]byte{0})
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// page returns the worker function of a build with a cache: reuse page i
// when its inputs are those of the previous build, else render it.
func (c *buildCache) page(s *site) func(i int) pageResult {
	keeper, _ := s.out.(fileKeeper)
	return func(i int) pageResult {
		p := s.order[i]
		rec := &cachedPage{Src: s.srcSums[p.path], Context: c.contextHash(s, i)}
		if old := c.reusable(s, p, rec); old != nil && keeper != nil && keeper.keepFile(p.path+".html", old.Out) {
			if old.Mermaid && s.mermaid != nil {
				s.mermaid.used.Store(true)
			}
			if old.Playground {
				st := s.apiState()
				st.mu.Lock()
				st.playground = true
				st.mu.Unlock()
			}
			return pageResult{reused: true, entry: old.Entry, warns: old.Warnings, cached: old}
		}
		r := s.renderOne(i)
		if r.err == nil {
			rec.Entry, rec.Warnings = r.entry, r.warns
			rec.Mermaid = bytes.Contains(r.data, []byte(mermaidMarker))
			rec.Playground = bytes.Contains(r.data, []byte(playgroundMarker))
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
func (c *buildCache) reusable(s *site, p *page, rec *cachedPage) *cachedPage {
	if c.prev == nil {
		return nil
	}
	old := c.prev.Pages[p.path]
	if old == nil || old.Src != rec.Src || old.Context != rec.Context {
		return nil
	}
	for d, h := range old.Deps {
		if h == "" || c.fileSum(s, d) != h {
			return nil
		}
	}
	return old
}

// record adds page i, as written, to the next manifest. It runs on the
// goroutine that writes the pages.
func (c *buildCache) record(s *site, i int, r pageResult) {
	rec := r.cached
	if rec == nil {
		return
	}
	if !r.reused {
		keeper, ok := s.out.(fileKeeper)
		if !ok {
			return
		}
		f, ok := keeper.fileInfo(s.order[i].path + ".html")
		if !ok {
			return
		}
		rec.Out = f
	}
	c.next.Pages[s.order[i].path] = rec
}

// save writes the manifest of this build, replacing the previous one.
func (c *buildCache) save() error {
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(c.next); err != nil {
		return fmt.Errorf("render: write cache: %w", err)
	}
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return fmt.Errorf("render: write cache: %w", err)
	}
	tmp, err := os.CreateTemp(c.dir, manifestName+".tmp-*")
	if err != nil {
		return fmt.Errorf("render: write cache: %w", err)
	}
	_, err = tmp.Write(buf.Bytes())
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(c.dir, manifestName))
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("render: write cache: %w", err)
	}
	return nil
}
