package render

import (
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"lectern.dev/lectern/render/diag"
	"lectern.dev/lectern/render/features"
	"lectern.dev/lectern/render/highlight"
	"lectern.dev/lectern/render/output"
)

// The build cache (Options.CacheDir) makes a rebuild after a small change
// re-render only the pages whose inputs changed. Its manifest records,
// for each page, the hashes of its inputs and the size and modification
// time of its output file, its search entry (as encoded JSON) and its
// warnings; for each source file read (pages and snippets), its stamp
// (below), its content hash and, for a page, what loading it produced
// (front matter, title, warnings); for each copied non-page file, its
// source's stamp and its output file. A page is reused when:
//
//   - the build's key is the same: cache format, renderer binary (path,
//     size, modification time), options, configuration file, the list of
//     source files and the size and modification time of every non-page
//     file (a new page, a removed one, a changed image or spec rebuilds
//     everything);
//   - the page's source and every snippet it imported have the same hash;
//   - its context is the same: what the sidebar of its section shows of
//     the pages (titles, sidebar titles, icons, hidden pages: hashed
//     without rendering the sidebar, layout.Theme.SidebarSum) and the titles
//     and paths of the previous and next pages;
//   - the Output still holds the file the previous build wrote (output.Dir:
//     same size and modification time, in Dir or, linked from there, in
//     Prev).
//
// Otherwise the page is rendered again.
//
// # Stamps: not reading unchanged sources
//
// A source file is not read again when its stamp is the one recorded: size,
// modification time, change time (ctime) and device and inode numbers, as
// the file system reports them (cache_stamp_*.go). The change time cannot
// be set by programs (touch, tar, rsync and git set the modification time
// only, and any write or utimes call sets the change time to the current
// time), so a same-size edit that restores the modification time still
// changes the stamp. A stamp is trusted only when the file's change and
// modification times are more than stampSlack before the start of the
// build that recorded it, so that an edit in the same clock tick as a
// recorded one (coarse file system timestamps) is never missed: such a
// file is read and hashed again, as is every file of an fs.FS that reports
// no change time (fstest.MapFS, embed.FS, other systems than Linux). The
// reasoning: the build that recorded a stamp statted the file after its
// start; an edit after that stat gets a change time after it, which
// differs from the recorded one unless both fall in one tick of the file
// system's clock, which the slack excludes. The accepted limitations are
// a clock that goes back by more than the slack, and a file system (a
// network one) whose clock is behind this machine's by more than it.
//
// A page whose source is not read is loaded from its manifest record (its
// front matter without the raw key table, title, body line, warnings); its
// body is read only if the page has to be rendered (site.ensureBody). The
// record is reused as well when the stamp changed but the content hash did
// not (a file touched or checked out again), which saves the YAML parsing.
//
// Everything else (404.html, sitemap, theme files) is written by every
// build, and left alone when it holds the same bytes. index.html, when it
// is a copy of the first page, is kept with that page. The search index is
// left alone when no page's entry changed; else, when the previous one is
// in the Output as written, it is spliced from it: the runs of entries
// that did not change are copied from its file by the system
// (copy_file_range), between the new entries (splicedSearchIndex), rather
// than assembled in memory. A copied non-page file whose source stamp is
// unchanged is kept (output.Dir: in Dir, or linked from Prev) rather than
// read and written again. The highlighted HTML of code blocks is kept by
// content, so that a page rendered again does not lex its unchanged code
// (highlight.Store).
//
// # Updating the output in place
//
// lectern build with a cache updates its output folder in place
// (output.Dir.Update) rather than building a new folder and swapping it in:
// replacing a folder of 10,000 pages costs more than rendering the page
// that changed. What a folder swap guaranteed is kept as follows:
//
//   - Nothing is written before the source is loaded: the errors that make
//     a site unusable (Build's EINVALID errors) leave the output and the
//     cache as they were.
//   - Before the first write, the manifest is marked as being updated (one
//     byte at a fixed offset: manifestStateOffset). A build that ends
//     before it writes the new manifest (an error, an interruption) leaves
//     the mark, and the next build trusts nothing of the output: every
//     page is rendered and every file written again (lectern build then
//     builds a new folder and swaps it in, UpdateReady). The sources'
//     records, which do not depend on the output, are still used.
//   - Each file is replaced atomically (output.Dir.Update), and a file that
//     already holds the content to write is not touched, so a server of
//     the folder never sees a partial file.
//   - The manifest lists every file the build put in the output
//     (Outputs, the pages' files and the assets), and the folder it wrote
//     into (Dir: device and inode, which a rename keeps). An update removes
//     the files the previous build into the same folder listed and this
//     one no longer produces, then the folders they leave empty.
//
// Given up: while an update runs, and after one that failed, the folder
// can hold a mix of old and new files (each of them whole): a page whose
// neighbour was renamed can link to a page that is gone or not there yet.
// The marker is not synced to disk: it covers an interrupted process, not
// a machine that loses power (whose unsynced output files are not whole
// either); the stamps of the output files still show which were rewritten.

// cacheFormat changes whenever the manifest's format or meaning does.
const cacheFormat = "lectern-render-cache/5"

const manifestName = "manifest.bin"

// stampSlack is how long before the start of the build that recorded it a
// stamp's times must be for the stamp to be trusted: many times the tick
// of the coarse clock that Linux file systems take their times from. On
// file systems whose times are whole seconds (FAT keeps modification
// times to 2 s), it is coarseStampSlack.
const (
	stampSlack       = 100 * time.Millisecond
	coarseStampSlack = 3 * time.Second
)

// racy reports whether a stamp is too close to the start of the build that
// recorded it to be trusted (see "Stamps" above).
func (st fileStamp) racy(start int64) bool {
	slack := int64(stampSlack)
	if st.CTime%int64(time.Second) == 0 || st.ModTime%int64(time.Second) == 0 {
		slack = int64(coarseStampSlack)
	}
	return st.CTime >= start-slack || st.ModTime >= start-slack
}

// cacheManifest is what the cache folder holds.
type cacheManifest struct {
	// Updating says that a build was updating the output in place when
	// the manifest was written, and did not finish (see "Updating the
	// output in place"): only Sources may be used.
	Updating bool
	// Dir is the output folder the build wrote into.
	Dir fileID
	// Tool identifies the format and the renderer binary: the source
	// records are used only when it matches; Key covers all of the
	// build's inputs: the page records are used only when it matches.
	Tool, Key string
	Start     int64                    // Unix nanoseconds when the build began
	Pages     map[string]*cachedPage   // by navigation path
	Sources   map[string]*cachedSource // by source file
	Assets    map[string]*cachedAsset  // copied non-page files
	// Index is the search index as written (_lectern/search-index.json),
	// which holds the search entries of the pages that are in it; IndexJS
	// is _lectern/search-index.js, the same index as a script.
	Index, IndexJS output.FileInfo
	// Home is index.html as written when it is a copy of the first page
	// (there is no "index" page), and HomePage that page.
	Home     output.FileInfo
	HomePage string
	// Outputs are the files the build put in Dir other than the pages'
	// (which are the keys of Pages + ".html"), sorted.
	Outputs []string
	// Code is the highlighted code kept (highlight.Store).
	Code highlight.Index

	// pageOrder and fileOrder, when set, are the order in which to
	// encode Pages and Sources (navigation order, the source files in
	// the order of fs.WalkDir),
	// which saves sorting thousands of keys; keys not in them follow,
	// sorted. They are not encoded.
	pageOrder, fileOrder []string
	// encodedSources, when set, is Sources encoded (encodeSources), done
	// ahead by buildCache.encodeSourcesAhead. It is not encoded.
	encodedSources []byte
}

// fileID identifies a file or folder: device and inode numbers.
type fileID struct{ Dev, Ino uint64 }

// cachedPage is the record of one page.
type cachedPage struct {
	Src     string            // hash of the source file
	Deps    map[string]string // imported files → hash
	Context string            // hash of the sidebar and neighbours
	Out     output.FileInfo
	// Entry is the search entry (JSON), kept here only when the page is
	// not in the search index (noindex); else it is the bytes
	// [EntryOff, EntryOff+EntryLen) of the previous search index.
	Entry              []byte
	InIndex            bool
	EntryOff, EntryLen int64
	Warnings           []diag.Warning
	// Mermaid says the page has a diagram (the build then writes the
	// mermaid library). Anything else a page's render records on the site
	// must be kept here too, so that a reused page records it again.
	Mermaid bool
	// Playground says the page has an API playground (the build then
	// writes playground.js).
	Playground bool
	// outChecked says the Output's file was looked up (checkOutputs), and
	// outOK that it is Out. They are not encoded.
	outChecked, outOK bool
}

// cachedSource is the record of one source file that was read.
type cachedSource struct {
	Stamp fileStamp
	Sum   string
	Load  *cachedLoad // for a page: what loadPage produced
}

// cachedLoad is a loaded page without its body: loadPage's result for the
// navigation path Nav and a source of the recorded hash.
type cachedLoad struct {
	Nav                                                   string
	Title, Description, SidebarTitle, Icon, OpenAPI, Mode string
	Hidden, NoIndex                                       bool
	Keywords                                              []string
	PageTitle                                             string
	BodyLine                                              int
	Warnings                                              []diag.Warning
}

// cachedAsset is a copied non-page file.
type cachedAsset struct {
	Stamp fileStamp // of the source
	Out   output.FileInfo
}

// fileStamp identifies a version of a source file without reading it.
// OK is false when the file system does not report a change time.
type fileStamp struct {
	OK                   bool
	Size, ModTime, CTime int64
	Dev, Ino             uint64
}

// buildCache is the cache of one build; its methods are safe for
// concurrent use by the workers.
type buildCache struct {
	dir  string
	prev *cacheManifest // nil when absent or of another key
	// last is the previous manifest as read, whatever its renderer: the
	// files it lists are removed from an output updated in place.
	last *cacheManifest
	next *cacheManifest
	// out records the files written to a output.Dir (nil for other
	// Outputs).
	out *dirTracker
	// code is the highlighted code (highlight.Store).
	code *highlight.Store
	// prevIndex is the previous build's search index, nil when it is
	// not in the Output as written; releaseIndex releases it.
	prevIndex    []byte
	releaseIndex func()
	// prevIndexFile is the file of prevIndex, open, or nil; indexFrom
	// says, for each page (in the order of the site), where its search
	// entry is in prevIndex, -1 when it is not the same bytes there
	// (record).
	prevIndexFile *os.File
	indexFrom     []int64
	// entriesChanged says that a page's search entry, or whether it is in
	// the search index, is not as in the previous build (record), so that
	// the search index is not the previous one.
	entriesChanged bool

	// contexts are the pages' context hashes (contextHash), in the order
	// of the site, once reuse has run.
	contexts []string
	// firstReused says the first page was kept from the previous build.
	firstReused bool
	// sourcesEncoded is closed once encodeSourcesAhead is done.
	sourcesEncoded chan struct{}

	mu   sync.Mutex
	sums map[string]string // source file → hash (snippets)
}

// statFile returns the stamp of the source file name: the one the walk
// of the source found (site.load), else a new one.
func (s *site) statFile(name string) fileStamp {
	if st, ok := s.stamps[name]; ok {
		return st
	}
	fi, err := fs.Stat(s.src, name)
	if err != nil || !fi.Mode().IsRegular() {
		return fileStamp{}
	}
	return stampOf(fi)
}

// openCache takes the manifest of the previous build when its key matches
// this build's.
func openCache(s *site, ms *manifestState) (*buildCache, error) {
	c := &buildCache{dir: s.opts.CacheDir, sums: map[string]string{}}
	key, err := cacheKey(s, ms.tool)
	m, rerr := ms.get()
	if err != nil {
		return nil, err
	}
	if rerr != nil {
		return nil, rerr
	}
	c.next = &cacheManifest{Tool: ms.tool, Key: key, Start: ms.start,
		Pages: make(map[string]*cachedPage, len(s.order)), Sources: ms.sources, Assets: map[string]*cachedAsset{}}
	c.next.fileOrder = s.fileList
	c.next.pageOrder = make([]string, len(s.order))
	for i, p := range s.order {
		c.next.pageOrder[i] = p.Path
	}
	c.releaseIndex = ms.release
	if m != nil && m.Key == key && !m.Updating {
		c.prev = m
		c.prevIndex, c.prevIndexFile = ms.index, ms.indexFile
	}
	c.entriesChanged = c.prevIndex == nil
	var code highlight.Index
	if m != nil {
		code = m.Code
	}
	c.code = highlight.NewStore(c.dir, code)
	c.last = ms.raw
	if d, ok := dirOutputOf(s.out); ok {
		c.out = &dirTracker{d: d, names: map[string]bool{}}
		if d.Update && c.prevIndex != nil {
			// Written again only if a page's entry changed (record).
			c.out.kept = map[string]output.FileInfo{features.SearchIndexFile: c.prev.Index}
			if c.prev.IndexJS.Size > 0 {
				c.out.kept[features.SearchIndexJSFile] = c.prev.IndexJS
			}
			c.out.keptSame = func() bool { return !c.entriesChanged }
		}
		s.out = c.out
		if d.Update {
			// Nothing has been written yet: mark the manifest first.
			if err := markUpdating(c.dir, ms.raw); err != nil {
				return nil, err
			}
		}
	}
	return c, nil
}

// searchParts returns the search index as parts to splice from the
// previous one (site.splicedSearchIndex), or nil when it is assembled in
// memory: without a previous index in the Output, open, or with too many
// parts.
func (c *buildCache) searchParts(s *site) []output.Part {
	if c.out == nil || c.prevIndexFile == nil || c.indexFrom == nil {
		return nil
	}
	return s.splicedSearchIndex(c.indexFrom)
}

// recordOutputs sets the next manifest's Dir and Outputs. For an output
// updated in place (output.Dir.Update) whose previous build the last
// manifest describes, it first removes the files that build produced and
// this one did not, and lists those it could not remove, so that the next
// build tries again.
func (c *buildCache) recordOutputs() {
	t := c.out
	id, ok := dirIDOf(t.d.Dir)
	if ok {
		c.next.Dir = id
	}
	isPage := func(name string) bool {
		p, ok := strings.CutSuffix(name, ".html")
		return ok && c.next.Pages[p] != nil
	}
	outputs := map[string]bool{}
	for name := range t.names {
		if !isPage(name) {
			outputs[name] = true
		}
	}
	for name := range c.next.Assets {
		outputs[name] = true
	}
	if last := c.last; t.d.Update && last != nil && ok && last.Dir == id {
		var stale []string
		for p := range last.Pages {
			if name := p + ".html"; c.next.Pages[p] == nil && !outputs[name] {
				stale = append(stale, name)
			}
		}
		for _, name := range last.Outputs {
			if !outputs[name] && !isPage(name) {
				stale = append(stale, name)
			}
		}
		sort.Strings(stale)
		for _, name := range t.d.RemoveFiles(stale) {
			outputs[name] = true
		}
	}
	c.next.Outputs = slices.Sorted(maps.Keys(outputs))
}

// encodeSourcesAhead encodes the next manifest's Sources in the background
// (while the site files are written): once the pages are rendered, no
// source is read any more.
func (c *buildCache) encodeSourcesAhead() {
	c.sourcesEncoded = make(chan struct{})
	go func() {
		defer close(c.sourcesEncoded)
		e := &encBuf{b: make([]byte, 0, 64+len(c.next.Sources)*160)}
		encodeSources(e, c.next)
		c.next.encodedSources = e.b
	}()
}

// save writes the manifest of this build, replacing the previous one. For
// an output updated in place, it first removes the files of the previous
// build into the same folder that this one did not produce.
func (c *buildCache) save() error {
	if c.out != nil {
		c.recordOutputs()
		c.out.closeDirs()
	}
	// Without a previous record, every page was rendered.
	c.next.Code = c.code.Save(c.prev == nil)
	if c.sourcesEncoded != nil {
		<-c.sourcesEncoded
	}
	// The previous search index is read no more.
	c.prevIndex, c.prevIndexFile = nil, nil
	if c.out != nil {
		c.out.kept = nil
	}
	c.releaseIndex()
	data := encodeManifest(c.next)
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return fmt.Errorf("render: write cache: %w", err)
	}
	tmp, err := os.CreateTemp(c.dir, manifestName+".tmp-*")
	if err != nil {
		return fmt.Errorf("render: write cache: %w", err)
	}
	_, err = tmp.Write(data)
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
	// The previous format's manifest, if any, is of no further use, nor
	// are the files of highlighted code it does not name.
	os.Remove(filepath.Join(c.dir, "manifest.gob"))
	highlight.RemoveOtherFiles(c.dir, c.next.Code.File)
	return nil
}
