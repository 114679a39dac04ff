//go:build linux

package output

import (
	"errors"
	"os"
	"sync"
	"syscall"
)

// mapFile maps the file name, of size bytes, into memory read-only, and
// returns it open as well (to copy parts of it without reading them);
// release unmaps and closes it (once, whoever calls it). Nothing may read
// data or file after release,
// and the file must not be truncated while it is mapped (a read past its
// end would fault): it is used only for files a build replaces by renaming
// another over them, or does not write (render/cache: the previous search
// index).
func mapFile(name string, size int64) (data []byte, file *os.File, release func(), err error) {
	if size <= 0 || int64(int(size)) != size {
		return nil, nil, nil, errors.New("render: cannot map a file of this size")
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, nil, nil, err
	}
	fi, err := f.Stat()
	if err == nil && fi.Size() != size {
		err = errors.New("render: the file changed")
	}
	if err == nil {
		data, err = syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	}
	if err != nil {
		f.Close()
		return nil, nil, nil, err
	}
	var once sync.Once
	return data, f, func() {
		once.Do(func() {
			syscall.Munmap(data)
			f.Close()
		})
	}, nil
}
