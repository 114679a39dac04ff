package output

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"lectern.dev/lectern"
)

// Dir writes files under the folder Dir, creating it and any parent
// folders as needed.
//
// With render.Options.CacheDir, a build keeps the pages of the previous build that
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
//   - with render.Options.CacheDir, the build records in the cache, before it
//     writes anything, that Dir is being updated, and removes at the end
//     the files of the previous build into Dir that it no longer produces
//     (see "Updating the output in place" in render/cache).
//
// A build that fails to load its source (Build's EINVALID errors) writes
// nothing. One that fails later (a write error, a cancelled context)
// leaves Dir with some files old and some new, each of them whole, and the
// cache marked so that the next build trusts none of Dir's files.
type Dir struct {
	Dir    string
	Prev   string
	Update bool
}

// WriteFile writes data to name under d.Dir. It refuses, with an EINVALID
// error, a name that is not a clean relative slash-separated path (absolute,
// with "..", "." or empty segments) and, through os.Root, one that would
// leave Dir by a symbolic link; other errors are the file system's.
func (d Dir) WriteFile(name string, data []byte) error {
	root, err := d.openFor(name)
	if err != nil {
		return err
	}
	defer root.Close()
	if d.Update {
		return replaceFile(root, name, data)
	}
	return createFile(root, name, data)
}

// createFile writes data to a new file name in root. A file already there
// is removed first, not written through: it may be a link to the previous
// build's (KeepFile), which is not to change.
func createFile(root *os.Root, name string, data []byte) error {
	f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		if err := root.Remove(name); err != nil {
			return err
		}
		f, err = root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	}
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
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

// openFor checks name (WriteFile) and returns Dir opened as a root, with
// the folder that name goes in made.
func (d Dir) openFor(name string) (*os.Root, error) {
	if !fs.ValidPath(name) || name == "." {
		return nil, lectern.Errorf(lectern.EINVALID, "render: refusing to write %q outside the output folder", name)
	}
	if d.Dir == "" {
		return nil, lectern.Errorf(lectern.EINVALID, "render: the output has no folder")
	}
	if err := os.MkdirAll(d.Dir, 0o755); err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(d.Dir)
	if err != nil {
		return nil, err
	}
	if dir := path.Dir(name); dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			root.Close()
			return nil, err
		}
	}
	return root, nil
}

// RemoveFiles removes the files names (slash-separated, relative) of Dir
// and then the folders they leave empty. It returns the names it could not
// remove (a missing file counts as removed).
func (d Dir) RemoveFiles(names []string) []string {
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
	list := slices.Sorted(maps.Keys(dirs))
	sort.SliceStable(list, func(i, j int) bool { return strings.Count(list[i], "/") > strings.Count(list[j], "/") })
	for _, dir := range list {
		root.Remove(dir)
	}
	return failed
}

// FileInfo describes the file name of Dir (render/cache).
func (d Dir) FileInfo(name string) (FileInfo, bool) {
	if !fs.ValidPath(name) || d.Dir == "" {
		return FileInfo{}, false
	}
	fi, err := os.Lstat(filepath.Join(d.Dir, filepath.FromSlash(name)))
	if err != nil || !fi.Mode().IsRegular() {
		return FileInfo{}, false
	}
	return FileInfo{Size: fi.Size(), ModTime: fi.ModTime().UnixNano()}, true
}

// KeepFile reports whether the file name that f describes is in Dir,
// linking or copying it there from Prev when it is there instead.
func (d Dir) KeepFile(name string, f FileInfo) bool {
	if d.Prev == "" || !fs.ValidPath(name) {
		got, ok := d.FileInfo(name)
		return ok && got == f
	}
	// Prev first: Dir is usually a new folder, where the link is made
	// (and where a file already there is kept only if it is f).
	if got, ok := (Dir{Dir: d.Prev}).FileInfo(name); !ok || got != f {
		got, ok := d.FileInfo(name)
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
		got, ok := d.FileInfo(name)
		return ok && got == f
	}
	return copyFile(from, to, f) == nil
}

// ReadKept returns the content of the file name that f describes, from
// Dir or else from Prev (render/cache: the previous search index's files).
func (d Dir) ReadKept(name string, f FileInfo) (data []byte, ok bool) {
	for _, dir := range []string{d.Dir, d.Prev} {
		if dir == "" {
			continue
		}
		if got, ok := (Dir{Dir: dir}).FileInfo(name); !ok || got != f {
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
func copyFile(from, to string, f FileInfo) error {
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

// Output receives the built site, one file at a time; name is a clean
// slash-separated path relative to the site root. An error stops the build
// and is returned by Build. WriteFile may be called from several
// goroutines at once (the search index's files are written in parallel).
type Output interface {
	WriteFile(name string, data []byte) error
}

// FileInfo identifies an output file as written.
type FileInfo struct {
	Size    int64
	ModTime int64 // Unix nanoseconds
}

// Keeper is implemented by Outputs that can keep a file a previous
// build wrote (Dir).
type Keeper interface {
	// KeepFile reports whether name is (or, from a previous folder, has
	// been made) the file f describes.
	KeepFile(name string, f FileInfo) bool
	// FileInfo describes the file name as just written.
	FileInfo(name string) (FileInfo, bool)
	// ReadKept returns the content of the file name of a previous build
	// when it is still the file f describes.
	ReadKept(name string, f FileInfo) (data []byte, ok bool)
}
