package render

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"time"

	"lectern.dev/lectern"
)

// DirOutput writes files under the folder Dir, creating it and any parent
// folders as needed.
//
// With Options.CacheDir, a build keeps the pages of the previous build that
// are still valid: in Dir itself or, when Prev is set, by hard-linking (or
// copying) them from the folder Prev, the previous output, into Dir (for
// building into a new folder that replaces the old one).
type DirOutput struct {
	Dir  string
	Prev string
}

// WriteFile writes data to name under d.Dir. It refuses, with an EINVALID
// error, a name that is not a clean relative slash-separated path (absolute,
// with "..", "." or empty segments) and, through os.Root, one that would
// leave Dir by a symbolic link; other errors are the file system's.
func (d DirOutput) WriteFile(name string, data []byte) error {
	if !fs.ValidPath(name) || name == "." {
		return lectern.Errorf(lectern.EINVALID, "render: refusing to write %q outside the output folder", name)
	}
	if d.Dir == "" {
		return lectern.Errorf(lectern.EINVALID, "render: DirOutput has no folder")
	}
	if err := os.MkdirAll(d.Dir, 0o755); err != nil {
		return err
	}
	root, err := os.OpenRoot(d.Dir)
	if err != nil {
		return err
	}
	defer root.Close()
	if dir := path.Dir(name); dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	return root.WriteFile(name, data, 0o644)
}

// fileInfo describes the file name of Dir (cache.go).
func (d DirOutput) fileInfo(name string) (cachedFile, bool) {
	if !fs.ValidPath(name) || d.Dir == "" {
		return cachedFile{}, false
	}
	fi, err := os.Lstat(filepath.Join(d.Dir, filepath.FromSlash(name)))
	if err != nil || !fi.Mode().IsRegular() {
		return cachedFile{}, false
	}
	return cachedFile{Size: fi.Size(), ModTime: fi.ModTime().UnixNano()}, true
}

// keepFile reports whether the file name that f describes is in Dir,
// linking or copying it there from Prev when it is there instead.
func (d DirOutput) keepFile(name string, f cachedFile) bool {
	if d.Prev == "" || !fs.ValidPath(name) {
		got, ok := d.fileInfo(name)
		return ok && got == f
	}
	// Prev first: Dir is usually a new folder, where the link is made
	// (and where a file already there is kept only if it is f).
	if got, ok := (DirOutput{Dir: d.Prev}).fileInfo(name); !ok || got != f {
		got, ok := d.fileInfo(name)
		return ok && got == f
	}
	from := filepath.Join(d.Prev, filepath.FromSlash(name))
	to := filepath.Join(d.Dir, filepath.FromSlash(name))
	err := os.Link(from, to)
	if errors.Is(err, fs.ErrNotExist) { // the folder is missing
		if os.MkdirAll(filepath.Dir(to), 0o755) != nil {
			return false
		}
		err = os.Link(from, to)
	}
	switch {
	case err == nil:
		return true
	case errors.Is(err, fs.ErrExist):
		got, ok := d.fileInfo(name)
		return ok && got == f
	}
	return copyFile(from, to, f) == nil
}

// readKept returns the content of the file name that f describes, from
// Dir or else from Prev (cache.go: the previous search index).
func (d DirOutput) readKept(name string, f cachedFile) ([]byte, bool) {
	for _, dir := range []string{d.Dir, d.Prev} {
		if dir == "" {
			continue
		}
		o := DirOutput{Dir: dir}
		if got, ok := o.fileInfo(name); !ok || got != f {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err == nil && int64(len(data)) == f.Size {
			return data, true
		}
	}
	return nil, false
}

// copyFile copies from to to, keeping the modification time f records.
func copyFile(from, to string, f cachedFile) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	mt := time.Unix(0, f.ModTime)
	return os.Chtimes(to, mt, mt)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
