package cache

import (
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"lectern.dev/lectern/render/output"
)

// DirOutputOf returns the output.Dir that out is, if it is one.
func DirOutputOf(out output.Output) (output.Dir, bool) {
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

// Tracker is the Output of a build with a cache into a output.Dir: it
// records the names written (the manifest's Outputs).
type Tracker struct {
	d     output.Dir
	mu    sync.Mutex
	names map[string]bool
	// dirs are the folders of Dir opened by FileInfo, by slash-separated
	// path with a trailing slash ("" for Dir).
	dirs map[string]*os.Root
}

func (t *Tracker) WriteFile(name string, data []byte) error {
	if err := t.d.WriteFile(name, data); err != nil {
		return err
	}
	t.MarkWritten(name)
	return nil
}

func (t *Tracker) KeepFile(name string, f output.FileInfo) bool {
	if t.d.Prev != "" {
		return t.d.KeepFile(name, f)
	}
	got, ok := t.FileInfo(name)
	return ok && got == f
}

// FileInfo is output.Dir.FileInfo, with the file looked up in its folder
// opened once (dirs), which costs less than a lookup of its whole path:
// a rebuild looks up every page's file.
func (t *Tracker) FileInfo(name string) (output.FileInfo, bool) {
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

// CloseDirs closes the folders FileInfo opened.
func (t *Tracker) CloseDirs() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, r := range t.dirs {
		r.Close()
	}
	t.dirs = nil
}

func (t *Tracker) ReadKept(name string, f output.FileInfo) ([]byte, bool) {
	return t.d.ReadKept(name, f)
}

// RecordOutputs sets next's Dir and Outputs, from what t recorded. For an output
// updated in place (output.Dir.Update) whose previous build last (the
// previous manifest as read) describes, it first removes the files that build produced and
// this one did not, and lists those it could not remove, so that the next
// build tries again.
func RecordOutputs(next, last *Manifest, t *Tracker) {
	id, ok := dirIDOf(t.d.Dir)
	if ok {
		next.Dir = id
	}
	isPage := func(name string) bool {
		p, ok := strings.CutSuffix(name, ".html")
		if !ok {
			p, ok = strings.CutSuffix(name, ".md")
		}
		return ok && next.Pages[p] != nil
	}
	outputs := map[string]bool{}
	for name := range t.names {
		if !isPage(name) {
			outputs[name] = true
		}
	}
	for name := range next.Assets {
		outputs[name] = true
	}
	if t.d.Update && last != nil && ok && last.Dir == id {
		var stale []string
		for p := range last.Pages {
			if next.Pages[p] != nil {
				continue
			}
			for _, name := range []string{p + ".html", p + ".md"} {
				if !outputs[name] {
					stale = append(stale, name)
				}
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
	next.Outputs = slices.Sorted(maps.Keys(outputs))
}

// MarkWritten records name as a file of the output that the build
// produced without writing it (a kept index.html).
func (t *Tracker) MarkWritten(name string) {
	t.mu.Lock()
	t.names[name] = true
	t.mu.Unlock()
}

// NewTracker returns a tracker of the files written to d.
func NewTracker(d output.Dir) *Tracker {
	return &Tracker{d: d, names: map[string]bool{}}
}
