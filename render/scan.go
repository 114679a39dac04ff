package render

import (
	"io/fs"
	"path"
	"runtime"
	"strings"

	"lectern.dev/lectern/render/cache"
	"lectern.dev/lectern/render/limits"
	"lectern.dev/lectern/render/links"
)

// scan lists the source: it sets s.files and s.fileList (and, with a
// cache, s.stamps)
// and returns the page files, in the order of fs.WalkDir. Dot-files and
// dot-folders are left out, and symbolic links are not followed (with a
// warning). The folders are read in parallel, which matters for large
// sources: reading a folder of an os.Root stats each of its entries.
func (s *site) scan() ([]string, error) {
	type folder struct {
		path    string
		entries []fs.DirEntry
		infos   []fs.FileInfo // of the regular files
		subs    []*folder     // in the order of entries
		err     error
		done    chan struct{}
	}
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var read func(f *folder)
	read = func(f *folder) {
		defer close(f.done)
		sem <- struct{}{}
		f.entries, f.err = fs.ReadDir(s.src, f.path)
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
		<-sem
		if f.err != nil {
			return
		}
		for _, d := range f.entries {
			if d.IsDir() && d.Type()&fs.ModeSymlink == 0 && !strings.HasPrefix(d.Name(), ".") {
				sub := &folder{path: path.Join(f.path, d.Name()), done: make(chan struct{})}
				if f.path == "." {
					sub.path = d.Name()
				}
				if s.opts.excluded(sub.path) {
					continue
				}
				f.subs = append(f.subs, sub)
				go read(sub)
			}
		}
	}
	root := &folder{path: ".", done: make(chan struct{})}
	if _, err := fs.Stat(s.src, "."); err != nil {
		return nil, err
	}
	go read(root)
	// In the order of fs.WalkDir: each folder's entries sorted by name,
	// a sub-folder's content at its place.
	var pageFiles []string
	var size int64
	var visit func(f *folder) error
	visit = func(f *folder) error {
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
				if s.opts.excluded(p) {
					continue
				}
				if err := visit(f.subs[sub]); err != nil {
					return err
				}
				sub++
				continue
			}
			if !d.Type().IsRegular() {
				continue
			}
			s.files[p] = true
			s.fileList = append(s.fileList, p)
			if fi := f.infos[i]; fi != nil {
				size += fi.Size()
				if s.stamps != nil {
					s.stamps[p] = cache.StampOf(fi)
				}
			}
			if limits.Over(len(s.fileList), s.opts.Limits.MaxFiles) || limits.Over(size, s.opts.Limits.MaxSourceBytes) {
				return s.checkSource(size)
			}
			if links.IsPageFile(p) {
				pageFiles = append(pageFiles, p)
			}
		}
		return nil
	}
	err := visit(root)
	if err != nil {
		// Let the readers still running finish.
		var wait func(f *folder)
		wait = func(f *folder) {
			<-f.done
			for _, sub := range f.subs {
				wait(sub)
			}
		}
		wait(root)
	}
	return pageFiles, err
}
