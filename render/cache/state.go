package cache

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

	"lectern.dev/lectern/render/output"
)

// State is the previous build's manifest, read in the background
// while the source loads, and the records of this build's sources.
type State struct {
	wait    func() (*Manifest, error)
	once    sync.Once
	m       *Manifest // nil when absent or from another renderer
	Raw     *Manifest // as read: nil when absent or not decodable
	err     error
	Tool    string
	Start   int64
	mu      sync.Mutex
	Sources map[string]*Source // this build's
	// checked is closed once the output files of the page records have
	// been looked up (checkOutputs), or when they are not.
	checked chan struct{}
}

// ReadState starts reading the manifest of the previous build in the
// background (while the source loads). A missing or unreadable manifest
// is nil.
func ReadState(dir string, out output.Output) *State {
	type result struct {
		m   *Manifest
		err error
	}
	ch := make(chan result, 1)
	checked := make(chan struct{})
	go func() {
		var checks sync.WaitGroup
		defer func() {
			checks.Wait()
			close(checked)
		}()
		data, err := os.ReadFile(filepath.Join(dir, ManifestName))
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
		ch <- result{m: m}
		if d, ok := DirOutputOf(out); ok && d.Update && d.Prev == "" && !m.Updating {
			checkOutputs(d, m, &checks)
		}
	}()
	ms := &State{Start: time.Now().UnixNano(), Tool: toolKey(), Sources: map[string]*Source{}, checked: checked}
	ms.wait = func() (*Manifest, error) {
		r := <-ch
		return r.m, r.err
	}
	return ms
}

// checkOutputs looks up, on the workers of checks, the output files (HTML
// and Markdown) of every page record of m in the folder d updated in
// place, which the build would else do when it decides to keep the page
// (buildCache.reuse): this way the lookups, system calls that cost more
// than deciding, run while the source loads.
func checkOutputs(d output.Dir, m *Manifest, checks *sync.WaitGroup) {
	recs := make([]*Page, 0, len(m.Pages))
	names := make([]string, 0, len(m.Pages))
	for p, rec := range m.Pages {
		recs, names = append(recs, rec), append(names, p)
	}
	workers := min(runtime.GOMAXPROCS(0), len(recs))
	for w := range workers {
		checks.Add(1)
		go func() {
			defer checks.Done()
			t := &Tracker{d: d}
			defer t.CloseDirs()
			for i := w; i < len(recs); i += workers {
				f, ok := t.FileInfo(names[i] + ".html")
				g, mdOK := t.FileInfo(names[i] + ".md")
				recs[i].OutChecked, recs[i].OutOK = true, ok && f == recs[i].Out && mdOK && g == recs[i].MD
			}
		}()
	}
}

// OutputsChecked waits for checkOutputs, if it runs.
func (ms *State) OutputsChecked() { <-ms.checked }

// Get waits for the previous manifest; it is nil when it is absent or
// was written by another renderer. When it was left by an update of the
// output that did not finish, only its source records are kept.
func (ms *State) Get() (*Manifest, error) {
	ms.once.Do(func() {
		ms.Raw, ms.err = ms.wait()
		m := ms.Raw
		if m != nil && m.Tool != ms.Tool {
			m = nil
		}
		if m != nil && m.Updating {
			// Never trust a half-updated output.
			m = &Manifest{Updating: true, Tool: m.Tool, Key: m.Key, Start: m.Start, Sources: m.Sources, Code: m.Code}
		}
		ms.m = m
	})
	return ms.m, ms.err
}

// Trusted returns the previous record of the source file name when its
// stamp is st and can be trusted (doc.go: Stamps).
func (ms *State) Trusted(name string, st Stamp) *Source {
	m, _ := ms.Get()
	if m == nil || !st.OK {
		return nil
	}
	old := m.Sources[name]
	if old == nil || old.Stamp != st {
		return nil
	}
	if st.Racy(m.Start) {
		return nil
	}
	return old
}

// Previous returns the previous record of name, whatever its stamp.
func (ms *State) Previous(name string) *Source {
	m, _ := ms.Get()
	if m == nil {
		return nil
	}
	return m.Sources[name]
}

// Put records source file name for the next manifest.
func (ms *State) Put(name string, rec *Source) {
	ms.mu.Lock()
	ms.Sources[name] = rec
	ms.mu.Unlock()
}

// MarkUpdating marks the manifest in dir, last as read, as that of an
// output being updated: its state byte is set in place. A manifest that
// could not be read is removed instead.
func MarkUpdating(dir string, last *Manifest) error {
	name := filepath.Join(dir, ManifestName)
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
	f, err := os.Open(filepath.Join(cacheDir, ManifestName))
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

// ResetSources starts this build's source records, with room for n.
func (ms *State) ResetSources(n int) {
	ms.mu.Lock()
	ms.Sources = make(map[string]*Source, n)
	ms.mu.Unlock()
}
