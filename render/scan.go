package render

import (
	"io/fs"
	"path"
	"runtime"
	"strings"

	"lectern.dev/lectern/render/cache"
	"lectern.dev/lectern/render/links"
)

// scanFolder is a folder of the source as scan reads it.
type scanFolder struct {
	path    string
	entries []fs.DirEntry
	infos   []fs.FileInfo // of the regular files
	subs    []*scanFolder // in the order of entries
	err     error
	done    chan struct{}
}

// scanList is what scan gathers: the page files and the size of the
// files so far.
type scanList struct {
	pageFiles []string
	size      int64
}

// scan lists the source: it sets s.files and s.fileList (and, with a
// cache, s.stamps)
// and returns the page files, in the order of fs.WalkDir. Dot-files and
// dot-folders are left out, and symbolic links are not followed (with a
// warning). The folders are read in parallel, which matters for large
// sources: reading a folder of an os.Root stats each of its entries.
func (s *site) scan() ([]string, error) {
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	root := &scanFolder{path: ".", done: make(chan struct{})}
	if _, err := fs.Stat(s.src, "."); err != nil {
		return nil, err
	}
	s.loadIgnore() // ignore.go
	go s.readFolder(root, sem)
	// In the order of fs.WalkDir: each folder's entries sorted by name,
	// a sub-folder's content at its place.
	var l scanList
	err := s.visitFolder(root, &l)
	if err != nil {
		// Let the readers still running finish.
		root.wait()
	}
	return l.pageFiles, err
}

// readFolder reads folder f, holding a token of sem meanwhile, then
// starts reading each of its sub-folders (but the dot-folders, symbolic
// links and Options.Exclude) on a goroutine of its own. It closes f.done
// when f is read.
func (s *site) readFolder(f *scanFolder, sem chan struct{}) {
	defer close(f.done)
	sem <- struct{}{}
	f.read(s.src)
	<-sem
	if f.err != nil {
		return
	}
	for _, d := range f.entries {
		if d.IsDir() && d.Type()&fs.ModeSymlink == 0 && !strings.HasPrefix(d.Name(), ".") {
			sub := &scanFolder{path: path.Join(f.path, d.Name()), done: make(chan struct{})}
			if f.path == "." {
				sub.path = d.Name()
			}
			if s.opts.excluded(sub.path) || s.ignored(sub.path, true) {
				continue
			}
			f.subs = append(f.subs, sub)
			go s.readFolder(sub, sem)
		}
	}
}

// read sets f.entries, or f.err, from src, and f.infos.
func (f *scanFolder) read(src fs.FS) {
	f.entries, f.err = fs.ReadDir(src, f.path)
	if f.err == nil {
		f.infos = make([]fs.FileInfo, len(f.entries))
		for i, d := range f.entries {
			if d.Type().IsRegular() && !strings.HasPrefix(d.Name(), ".") {
				// From the directory entry, which costs less than a
				// Stat of the path later (with os.Root, ReadDir has
				// it already).
				if fi, err := d.Info(); err == nil && fi.Mode().IsRegular() {
					f.infos[i] = fi
				}
			}
		}
	}
}

// wait returns once f and every sub-folder of f are read.
func (f *scanFolder) wait() {
	<-f.done
	for _, sub := range f.subs {
		sub.wait()
	}
}

// visitFolder waits for folder f to be read and adds its files, and those
// of its sub-folders at their place, to s.files, s.fileList and l. It
// returns the error of reading a folder, or that of a limit exceeded.
func (s *site) visitFolder(f *scanFolder, l *scanList) error {
	<-f.done
	if f.err != nil {
		return f.err
	}
	sub := 0
	for i, d := range f.entries {
		p := path.Join(f.path, d.Name())
		if f.path == "." {
			p = d.Name()
		}
		if strings.HasPrefix(d.Name(), ".") {
			continue
		}
		if d.Type()&fs.ModeSymlink != 0 {
			// Never followed: a link could leave the source tree.
			s.w.Add(p, 0, "symbolic link not followed (links can point outside the docs folder); copy the file in instead")
			continue
		}
		if d.IsDir() {
			if s.opts.excluded(p) || s.ignored(p, true) {
				continue
			}
			if err := s.visitFolder(f.subs[sub], l); err != nil {
				return err
			}
			sub++
			continue
		}
		if !d.Type().IsRegular() || s.ignored(p, false) {
			continue
		}
		s.addSourceFile(p, f.infos[i], l)
		if err := s.checkSource(l.size); err != nil {
			return err
		}
		if links.IsPageFile(p) {
			l.pageFiles = append(l.pageFiles, p)
		}
	}
	return nil
}

// addSourceFile adds the regular file p to s.files and s.fileList, its
// size (from fi, when known) to l and, with a cache, its stamp to
// s.stamps.
func (s *site) addSourceFile(p string, fi fs.FileInfo, l *scanList) {
	s.files[p] = true
	s.fileList = append(s.fileList, p)
	if fi != nil {
		l.size += fi.Size()
		if s.stamps != nil {
			s.stamps[p] = cache.StampOf(fi)
		}
	}
}
