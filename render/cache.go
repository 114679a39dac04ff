package render

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"lectern.dev/lectern/render/diag"
	"lectern.dev/lectern/render/features"
	"lectern.dev/lectern/render/highlight"
	"lectern.dev/lectern/render/limits"
	"lectern.dev/lectern/render/links"
	"lectern.dev/lectern/render/markdown"
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
//   - the build's key is the same: cache format, components.Renderer binary (path,
//     size, modification time), options, configuration file, the list of
//     source files and the size and modification time of every non-page
//     file (a new page, a removed one, a changed image or spec rebuilds
//     everything);
//   - the page's source and every snippet it imported have the same hash;
//   - its context is the same: what the sidebar of its section shows of
//     the pages (titles, sidebar titles, icons, hidden pages: hashed
//     without rendering the sidebar, theme.sidebarInputs) and the titles
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
	// Tool identifies the format and the components.Renderer binary: the source
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
	// last is the previous manifest as read, whatever its components.Renderer: the
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

func sum(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:16])
}

// manifestState is the previous build's manifest, read in the background
// while the source loads, and the records of this build's sources.
type manifestState struct {
	wait  func() (*cacheManifest, error)
	once  sync.Once
	m     *cacheManifest // nil when absent or from another components.Renderer
	raw   *cacheManifest // as read: nil when absent or not decodable
	index []byte         // the previous search index, as written
	// indexFile is the file of index, open, or nil.
	indexFile *os.File
	// release releases index (output.Dir.ReadKept); it runs at the end of
	// the build (buildCache.save) or, after a failed one, when ms is
	// collected.
	release func()
	err     error
	tool    string
	start   int64
	mu      sync.Mutex
	sources map[string]*cachedSource // this build's
	// checked is closed once the output files of the page records have
	// been looked up (checkOutputs), or when they are not.
	checked chan struct{}
}

// readManifest starts reading the manifest of the previous build in the
// background (while the source loads). A missing or unreadable manifest
// is nil.
func readManifest(dir string, out output.Output) *manifestState {
	type result struct {
		m         *cacheManifest
		index     []byte
		indexFile *os.File
		release   func()
		err       error
	}
	ch := make(chan result, 1)
	checked := make(chan struct{})
	go func() {
		var checks sync.WaitGroup
		defer func() {
			checks.Wait()
			close(checked)
		}()
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
		m, ok := decodeManifest(data)
		if !ok {
			ch <- result{} // from another version: ignored
			return
		}
		// The previous search index, which holds the pages' entries.
		var index []byte
		var indexFile *os.File
		release := func() {}
		if keeper, ok := out.(output.Keeper); ok && m.Index.Size > 0 && !m.Updating {
			if data, file, rel, ok := keeper.ReadKept(features.SearchIndexFile, m.Index); ok {
				index, indexFile, release = data, file, rel
			}
		}
		ch <- result{m: m, index: index, indexFile: indexFile, release: release}
		if d, ok := dirOutputOf(out); ok && d.Update && d.Prev == "" && !m.Updating {
			checkOutputs(d, m, &checks)
		}
	}()
	ms := &manifestState{start: time.Now().UnixNano(), tool: toolKey(), sources: map[string]*cachedSource{}, release: func() {},
		checked: checked}
	ms.wait = func() (*cacheManifest, error) {
		r := <-ch
		if r.release != nil {
			ms.index, ms.indexFile, ms.release = r.index, r.indexFile, r.release
			runtime.AddCleanup(ms, func(release func()) { release() }, r.release)
		}
		return r.m, r.err
	}
	return ms
}

// checkOutputs looks up, on the workers of checks, the output file of
// every page record of m in the folder d updated in place, which the
// build would else do when it decides to keep the page (buildCache.reuse):
// this way the lookups, system calls that cost more than deciding, run
// while the source loads.
func checkOutputs(d output.Dir, m *cacheManifest, checks *sync.WaitGroup) {
	recs := make([]*cachedPage, 0, len(m.Pages))
	names := make([]string, 0, len(m.Pages))
	for p, rec := range m.Pages {
		recs, names = append(recs, rec), append(names, p+".html")
	}
	workers := min(runtime.GOMAXPROCS(0), len(recs))
	for w := range workers {
		checks.Add(1)
		go func() {
			defer checks.Done()
			t := &dirTracker{d: d}
			defer t.closeDirs()
			for i := w; i < len(recs); i += workers {
				f, ok := t.FileInfo(names[i])
				recs[i].outChecked, recs[i].outOK = true, ok && f == recs[i].Out
			}
		}()
	}
}

// outputsChecked waits for checkOutputs, if it runs.
func (ms *manifestState) outputsChecked() { <-ms.checked }

// get waits for the previous manifest; it is nil when it is absent or
// was written by another components.Renderer. When it was left by an update of the
// output that did not finish, only its source records are kept.
func (ms *manifestState) get() (*cacheManifest, error) {
	ms.once.Do(func() {
		ms.raw, ms.err = ms.wait()
		m := ms.raw
		if m != nil && m.Tool != ms.tool {
			m = nil
		}
		if m != nil && m.Updating {
			// Never trust a half-updated output.
			m = &cacheManifest{Updating: true, Tool: m.Tool, Key: m.Key, Start: m.Start, Sources: m.Sources, Code: m.Code}
		}
		if m == nil || m.Updating {
			ms.release()
			ms.index, ms.indexFile = nil, nil
		}
		ms.m = m
	})
	return ms.m, ms.err
}

// trusted returns the previous record of the source file name when its
// stamp is st and can be trusted (see "Stamps" above).
func (ms *manifestState) trusted(name string, st fileStamp) *cachedSource {
	m, _ := ms.get()
	if m == nil || !st.OK {
		return nil
	}
	old := m.Sources[name]
	if old == nil || old.Stamp != st {
		return nil
	}
	if st.racy(m.Start) {
		return nil
	}
	return old
}

// previous returns the previous record of name, whatever its stamp.
func (ms *manifestState) previous(name string) *cachedSource {
	m, _ := ms.get()
	if m == nil {
		return nil
	}
	return m.Sources[name]
}

// put records source file name for the next manifest.
func (ms *manifestState) put(name string, rec *cachedSource) {
	ms.mu.Lock()
	ms.sources[name] = rec
	ms.mu.Unlock()
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

// toolKey identifies the cache format and the components.Renderer binary.
func toolKey() string {
	key := cacheFormat
	if exe, err := os.Executable(); err == nil {
		if fi, err := os.Stat(exe); err == nil {
			key += " " + strconv.Quote(exe) + " " + strconv.FormatInt(fi.Size(), 10) + " " + strconv.FormatInt(fi.ModTime().UnixNano(), 10)
		}
	}
	return key
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
		c.next.pageOrder[i] = p.path
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

// dirOutputOf returns the output.Dir that out is, if it is one.
func dirOutputOf(out output.Output) (output.Dir, bool) {
	switch d := out.(type) {
	case output.Dir:
		return d, true
	case *output.Dir:
		if d != nil {
			return *d, true
		}
	}
	return output.Dir{}, false
}

// dirTracker is the Output of a build with a cache into a output.Dir: it
// records the names written (the manifest's Outputs).
type dirTracker struct {
	d     output.Dir
	mu    sync.Mutex
	names map[string]bool
	// kept are files of Dir as the previous build wrote them (the search
	// index and its script), which are the same as that build's when
	// keptSame says so: output.Dir.Update leaves them alone, without
	// reading them to compare, when they are still as recorded.
	kept     map[string]output.FileInfo
	keptSame func() bool
	// dirs are the folders of Dir opened by FileInfo, by slash-separated
	// path with a trailing slash ("" for Dir).
	dirs map[string]*os.Root
}

// WriteParts writes the file name from parts (Dir.WriteParts),
// unless it is kept (WriteFile).
func (t *dirTracker) WriteParts(name string, parts []output.Part, src *os.File) error {
	var size int64
	for _, p := range parts {
		if p.Data != nil {
			size += int64(len(p.Data))
		} else {
			size += p.N
		}
	}
	f, ok := t.kept[name]
	if !ok || !t.keptSame() || size != f.Size {
		if err := t.d.WriteParts(name, parts, src); err != nil {
			return err
		}
	} else if got, ok := t.d.FileInfo(name); !ok || got != f {
		if err := t.d.WriteParts(name, parts, src); err != nil {
			return err
		}
	}
	t.mu.Lock()
	t.names[name] = true
	t.mu.Unlock()
	return nil
}

func (t *dirTracker) WriteFile(name string, data []byte) error {
	if f, ok := t.kept[name]; ok && t.keptSame() && int64(len(data)) == f.Size {
		if got, ok := t.d.FileInfo(name); ok && got == f {
			t.mu.Lock()
			t.names[name] = true
			t.mu.Unlock()
			return nil
		}
	}
	err := t.d.WriteFile(name, data)
	if err == nil {
		t.mu.Lock()
		t.names[name] = true
		t.mu.Unlock()
	}
	return err
}

func (t *dirTracker) KeepFile(name string, f output.FileInfo) bool {
	if t.d.Prev != "" {
		return t.d.KeepFile(name, f)
	}
	got, ok := t.FileInfo(name)
	return ok && got == f
}

// FileInfo is output.Dir.FileInfo, with the file looked up in its folder
// opened once (dirs), which costs less than a lookup of its whole path:
// a rebuild looks up every page's file.
func (t *dirTracker) FileInfo(name string) (output.FileInfo, bool) {
	if !fs.ValidPath(name) || t.d.Dir == "" {
		return output.FileInfo{}, false
	}
	dir, base := path.Split(name)
	t.mu.Lock()
	r, ok := t.dirs[dir]
	t.mu.Unlock()
	if !ok {
		var err error
		if r, err = os.OpenRoot(filepath.Join(t.d.Dir, filepath.FromSlash(dir))); err != nil {
			// Not (yet) there: not remembered, a later write creates it.
			return t.d.FileInfo(name)
		}
		t.mu.Lock()
		if old, ok := t.dirs[dir]; ok {
			r.Close()
			r = old
		} else {
			if t.dirs == nil {
				t.dirs = map[string]*os.Root{}
			}
			t.dirs[dir] = r
		}
		t.mu.Unlock()
	}
	fi, err := r.Lstat(base)
	if err != nil || !fi.Mode().IsRegular() {
		return output.FileInfo{}, false
	}
	return output.FileInfo{Size: fi.Size(), ModTime: fi.ModTime().UnixNano()}, true
}

// closeDirs closes the folders FileInfo opened.
func (t *dirTracker) closeDirs() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, r := range t.dirs {
		r.Close()
	}
	t.dirs = nil
}

func (t *dirTracker) ReadKept(name string, f output.FileInfo) ([]byte, *os.File, func(), bool) {
	return t.d.ReadKept(name, f)
}

// markUpdating marks the manifest in dir, last as read, as that of an
// output being updated: its state byte is set in place. A manifest that
// could not be read is removed instead.
func markUpdating(dir string, last *cacheManifest) error {
	name := filepath.Join(dir, manifestName)
	if last == nil {
		if err := os.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("render: write cache: %w", err)
		}
		return nil
	}
	if last.Updating {
		return nil
	}
	f, err := os.OpenFile(name, os.O_WRONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err == nil {
		_, err = f.WriteAt([]byte{manifestUpdating}, int64(manifestStateOffset))
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return fmt.Errorf("render: write cache: %w", err)
	}
	return nil
}

// UpdateReady reports whether the cache in cacheDir describes a finished
// build by this components.Renderer into the folder dir, as it is now (same device
// and inode). A build into output.Dir{Dir: dir, Update: true} with that
// cache then renders and writes only what changed and removes what the
// source no longer produces. When it is false, lectern build builds a new
// folder and swaps it in (after a build that did not finish, or on the
// first build); an update in place would still give a correct site, but
// could not remove the files of a build it knows nothing of.
func UpdateReady(cacheDir, dir string) bool {
	if cacheDir == "" {
		return false
	}
	f, err := os.Open(filepath.Join(cacheDir, manifestName))
	if err != nil {
		return false
	}
	defer f.Close()
	buf := make([]byte, 16<<10)
	n, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return false
	}
	h, ok := decodeManifestHead(buf[:n])
	if !ok || h.Updating || h.Tool != toolKey() {
		return false
	}
	id, ok := dirIDOf(dir)
	return ok && id == h.Dir
}

// cacheKey hashes what every page depends on.
func cacheKey(s *site, tool string) (string, error) {
	h := sha256.New()
	line := func(parts ...string) {
		for _, p := range parts {
			h.Write([]byte(strconv.Quote(p)))
			h.Write([]byte{' '})
		}
		h.Write([]byte{'\n'})
	}
	line(tool)
	line("opts", s.opts.BasePath, strconv.FormatBool(s.opts.Export), s.opts.SiteURL, strconv.FormatBool(s.opts.AllowRemote),
		fmt.Sprintf("%+v", s.opts.features()), strconv.FormatBool(s.opts.CustomScripts))
	for _, name := range []string{"docs.json", "mint.json"} {
		if s.files[name] {
			data, err := s.readFile(name)
			if err != nil {
				return "", limits.ReadError(name, err)
			}
			line("config", name, sum(data))
		}
	}
	for _, f := range s.fileList {
		if links.IsPageFile(f) {
			line("page", f)
			continue
		}
		st, ok := s.stamps[f]
		if !ok {
			fi, err := fs.Stat(s.src, f)
			if err != nil {
				line("file", f, "?")
				continue
			}
			st = stampOf(fi)
		}
		line("file", f, strconv.FormatInt(st.Size, 10), strconv.FormatInt(st.ModTime, 10))
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

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
	if old := s.manifest.trusted(name, st); old != nil {
		v = old.Sum
		s.manifest.put(name, &cachedSource{Stamp: st, Sum: v})
	} else if data, err := s.readFile(name); err == nil {
		v = sum(data)
		s.manifest.put(name, &cachedSource{Stamp: st, Sum: v})
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
		// The sidebar's inputs rather than the sidebar itself, which is
		// then rendered only for a page rendered.
		sh := s.theme.sidebarSums[s.theme.sidebarKeyOf(s.sections[i], p.path+".html")]
		// Length-prefixed strings: sidebar hash, then the path and label
		// of each neighbour (none: an empty path).
		buf := make([]byte, 0, 256)
		field := func(v string) {
			buf = binary.AppendUvarint(buf, uint64(len(v)))
			buf = append(buf, v...)
		}
		field(sh)
		for _, j := range []int{i - 1, i + 1} {
			if j >= 0 && j < len(s.order) {
				q := s.order[j]
				field(q.path)
				field(s.theme.navLabel(q))
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
	s.manifest.outputsChecked()
	return func(i int) (pageResult, bool) {
		p := s.order[i]
		rec := &cachedPage{Src: s.srcSums[p.path], Context: c.contextHash(s, i)}
		c.contexts[i] = rec.Context
		old := c.reusable(s, p, rec)
		if old == nil {
			return pageResult{}, false
		}
		if old.outChecked && !old.outOK || !old.outChecked && !keeper.KeepFile(p.path+".html", old.Out) {
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
		return pageResult{reused: true, entry: c.entry(old), warns: old.Warnings, cached: old}, true
	}
}

// page returns the worker function of a build with a cache that renders
// page i (those reuse keeps are not given to it) and makes its record.
func (c *buildCache) page(s *site) func(i int) pageResult {
	return func(i int) pageResult {
		p := s.order[i]
		rec := &cachedPage{Src: s.srcSums[p.path]}
		if c.contexts != nil {
			rec.Context = c.contexts[i]
		} else {
			rec.Context = c.contextHash(s, i)
		}
		r := s.renderOne(i)
		if r.err == nil {
			rec.Entry, rec.Warnings = r.entry, r.warns
			rec.Mermaid = bytes.Contains(r.data, []byte(markdown.MermaidMarker))
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
	if old == nil || old.Src == "" || old.Src != rec.Src || old.Context != rec.Context || c.entry(old) == nil {
		return nil
	}
	for d, h := range old.Deps {
		if h == "" || c.fileSum(s, d) != h {
			return nil
		}
	}
	return old
}

// entry returns the search entry of a previous page record, nil when it
// is not available (the previous search index is not there).
func (c *buildCache) entry(old *cachedPage) []byte {
	if !old.InIndex {
		return old.Entry
	}
	end := old.EntryOff + old.EntryLen
	if old.EntryOff < 0 || old.EntryLen < 2 || end > int64(len(c.prevIndex)) {
		return nil
	}
	e := c.prevIndex[old.EntryOff:end:end]
	if e[0] != '{' || e[len(e)-1] != '}' {
		return nil
	}
	return e
}

// finish moves the search entries of the pages that are in the search
// index, as written, out of their records: the next build reads them
// from the index. It runs once the site files are written.
func (c *buildCache) finish(s *site) {
	keeper, ok := s.out.(output.Keeper)
	if !ok || s.searchOffsets == nil {
		return
	}
	f, ok := keeper.FileInfo(features.SearchIndexFile)
	if !ok {
		return
	}
	c.next.Index = f
	c.next.IndexJS, _ = keeper.FileInfo(features.SearchIndexJSFile)
	for i, p := range s.order {
		rec := c.next.Pages[p.path]
		if rec == nil || s.searchOffsets[i] < 0 {
			continue
		}
		if rec.InIndex && rec.Entry == nil && rec.EntryOff == int64(s.searchOffsets[i]) && rec.EntryLen == int64(len(s.search[i])) {
			continue // a reused record, its entry where it was
		}
		// A copy: the record may be the previous build's.
		r := *rec
		r.Entry, r.InIndex, r.EntryOff, r.EntryLen = nil, true, int64(s.searchOffsets[i]), int64(len(s.search[i]))
		c.next.Pages[p.path] = &r
	}
}

// record adds page i, as written, to the next manifest. It runs on the
// goroutine that writes the pages.
func (c *buildCache) record(s *site, i int, r pageResult) {
	if i == 0 {
		c.firstReused = r.reused
	}
	if c.prevIndex != nil {
		if c.indexFrom == nil {
			c.indexFrom = make([]int64, len(s.order))
		}
		c.indexFrom[i] = -1
		if r.reused && r.cached.InIndex {
			// r.entry is the bytes of prevIndex there (entry).
			c.indexFrom[i] = r.cached.EntryOff
		}
	}
	if !c.entriesChanged && !r.reused {
		// A reused page has its previous entry, at its place (the pages
		// and their order are those of the previous build: same key).
		old := c.prev.Pages[s.order[i].path]
		c.entriesChanged = old == nil || old.InIndex == s.order[i].fm.NoIndex || !bytes.Equal(r.entry, c.entry(old))
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
		f, ok := keeper.FileInfo(s.order[i].path + ".html")
		if !ok {
			return
		}
		rec.Out = f
	}
	c.next.Pages[s.order[i].path] = rec
}

// keepHome reports whether index.html, a copy of the first page (there is
// no "index" page), is kept from the previous build: that page was, and
// the Output still holds the index.html written with it.
func (c *buildCache) keepHome(s *site) bool {
	if c.prev == nil || c.out == nil || !c.firstReused || c.prev.HomePage != s.order[0].path || c.prev.Home.Size == 0 {
		return false
	}
	if !c.out.KeepFile("index.html", c.prev.Home) {
		return false
	}
	c.out.mu.Lock()
	c.out.names["index.html"] = true
	c.out.mu.Unlock()
	c.next.Home, c.next.HomePage = c.prev.Home, c.prev.HomePage
	return true
}

// recordHome records index.html as just written, a copy of the first page.
func (c *buildCache) recordHome(s *site) {
	if c.out == nil {
		return
	}
	if f, ok := c.out.FileInfo("index.html"); ok {
		c.next.Home, c.next.HomePage = f, s.order[0].path
	}
}

// keepAsset reports whether the copied file name, whose source has the
// stamp st, is kept from the previous build (and records it).
func (c *buildCache) keepAsset(s *site, name string, st fileStamp) bool {
	keeper, ok := s.out.(output.Keeper)
	if !ok || !st.OK {
		return false
	}
	m, _ := s.manifest.get()
	if m == nil {
		return false
	}
	old := m.Assets[name]
	if old == nil || old.Stamp != st {
		return false
	}
	if st.racy(m.Start) || !keeper.KeepFile(name, old.Out) {
		return false
	}
	c.next.Assets[name] = old
	return true
}

// recordAsset records the copied file name as just written.
func (c *buildCache) recordAsset(s *site, name string, st fileStamp) {
	keeper, ok := s.out.(output.Keeper)
	if !ok || !st.OK {
		return
	}
	if f, ok := keeper.FileInfo(name); ok {
		c.next.Assets[name] = &cachedAsset{Stamp: st, Out: f}
	}
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
