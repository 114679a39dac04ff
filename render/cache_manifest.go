package render

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"lectern.dev/lectern/render/features"
	"lectern.dev/lectern/render/output"
)

// manifestState is the previous build's manifest, read in the background
// while the source loads, and the records of this build's sources.
type manifestState struct {
	wait  func() (*cacheManifest, error)
	once  sync.Once
	m     *cacheManifest // nil when absent or from another renderer
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
// was written by another renderer. When it was left by an update of the
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
// build by this renderer into the folder dir, as it is now (same device
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
