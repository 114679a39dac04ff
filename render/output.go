package render

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
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
//
// Update makes Dir a folder that is updated in place, file by file, while
// it may be served:
//
//   - each file is replaced atomically: written to a temporary file beside
//     it (".lectern-tmp-*"), then renamed over it, so that a reader sees
//     either the previous or the new content, never a part; a file that
//     already has the content to write is left alone (and keeps its
//     modification time);
//   - with Options.CacheDir, the build records in the cache, before it
//     writes anything, that Dir is being updated, and removes at the end
//     the files of the previous build into Dir that it no longer produces
//     (see "Updating the output in place" in cache.go).
//
// A build that fails to load its source (Build's EINVALID errors) writes
// nothing. One that fails later (a write error, a cancelled context)
// leaves Dir with some files old and some new, each of them whole, and the
// cache marked so that the next build trusts none of Dir's files.
type DirOutput struct {
	Dir    string
	Prev   string
	Update bool
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
	if d.Update {
		return replaceFile(root, name, data)
	}
	return root.WriteFile(name, data, 0o644)
}

// tmpPrefix starts the names of the temporary files of Update.
const tmpPrefix = ".lectern-tmp-"

// replaceFile writes data to name in root atomically (a temporary file
// renamed over it), unless name already holds data.
func replaceFile(root *os.Root, name string, data []byte) error {
	if sameContent(root, name, data) {
		return nil
	}
	return renameInto(root, name, func(f *os.File) error {
		_, err := f.Write(data)
		return err
	})
}

// renameInto writes name in root atomically: write fills a new temporary
// file beside it, which is renamed over name only when written and closed
// without error, and removed otherwise.
func renameInto(root *os.Root, name string, write func(*os.File) error) error {
	dir := path.Dir(name)
	for attempt := 0; ; attempt++ {
		tmp := path.Join(dir, tmpPrefix+strconv.FormatUint(rand.Uint64(), 36))
		f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) && attempt < 10 {
			continue
		}
		if err != nil {
			return err
		}
		err = write(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = root.Rename(tmp, name)
		}
		if err != nil {
			root.Remove(tmp)
		}
		return err
	}
}

// sameContent reports whether the file name of root is a regular file
// holding exactly data. It reads the file only when the sizes match.
func sameContent(root *os.Root, name string, data []byte) bool {
	fi, err := root.Lstat(name)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() != int64(len(data)) {
		return false
	}
	f, err := root.Open(name)
	if err != nil {
		return false
	}
	defer f.Close()
	buf := make([]byte, min(len(data), 256<<10))
	for off := 0; off < len(data); {
		n, err := io.ReadFull(f, buf[:min(len(buf), len(data)-off)])
		if err != nil || !bytes.Equal(buf[:n], data[off:off+n]) {
			return false
		}
		off += n
	}
	n, _ := f.Read(buf[:min(len(buf), 1)])
	return n == 0
}

// writeParts writes the file name as WriteFile does, its content being
// parts: data, or bytes of the file src (copied by the system where it
// can, without reading them).
func (d DirOutput) writeParts(name string, parts []filePart, src *os.File) error {
	if !fs.ValidPath(name) || name == "." || d.Dir == "" {
		return lectern.Errorf(lectern.EINVALID, "render: refusing to write %q outside the output folder", name)
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
	write := func(f *os.File) error {
		for _, p := range parts {
			if p.data != nil {
				if _, err := f.Write(p.data); err != nil {
					return err
				}
				continue
			}
			if _, err := src.Seek(p.off, io.SeekStart); err != nil {
				return err
			}
			n, err := f.ReadFrom(&io.LimitedReader{R: src, N: p.n})
			if err == nil && n != p.n {
				err = io.ErrUnexpectedEOF
			}
			if err != nil {
				return err
			}
		}
		return nil
	}
	if !d.Update {
		f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		if err != nil {
			return err
		}
		err = write(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	}
	return renameInto(root, name, write)
}

// removeFiles removes the files names (slash-separated, relative) of Dir
// and then the folders they leave empty. It returns the names it could not
// remove (a missing file counts as removed).
func (d DirOutput) removeFiles(names []string) []string {
	if len(names) == 0 || d.Dir == "" {
		return nil
	}
	root, err := os.OpenRoot(d.Dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return names
	}
	defer root.Close()
	var failed []string
	dirs := map[string]bool{}
	for _, name := range names {
		if !fs.ValidPath(name) || name == "." {
			continue
		}
		if err := root.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			failed = append(failed, name)
			continue
		}
		for dir := path.Dir(name); dir != "."; dir = path.Dir(dir) {
			dirs[dir] = true
		}
	}
	// Deepest first; a folder that is not empty stays.
	list := sortedKeys(dirs)
	sort.SliceStable(list, func(i, j int) bool { return strings.Count(list[i], "/") > strings.Count(list[j], "/") })
	for _, dir := range list {
		root.Remove(dir)
	}
	return failed
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
// Dir or else from Prev (cache.go: the previous search index), and the
// function that releases it. A file the build does not write (in Prev) or
// replaces by a rename (Update) is mapped into memory rather than read: it
// can be large, and only parts of it are copied; it is then also returned
// open (file), else file is nil.
func (d DirOutput) readKept(name string, f cachedFile) (data []byte, file *os.File, release func(), ok bool) {
	for _, dir := range []string{d.Dir, d.Prev} {
		if dir == "" {
			continue
		}
		o := DirOutput{Dir: dir}
		if got, ok := o.fileInfo(name); !ok || got != f {
			continue
		}
		file := filepath.Join(dir, filepath.FromSlash(name))
		if d.Update || dir == d.Prev {
			if data, open, release, err := mapFile(file, f.Size); err == nil {
				return data, open, release, true
			}
		}
		data, err := os.ReadFile(file)
		if err == nil && int64(len(data)) == f.Size {
			return data, nil, func() {}, true
		}
	}
	return nil, nil, nil, false
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
