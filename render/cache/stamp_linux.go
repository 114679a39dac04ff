//go:build linux

package cache

import (
	"io/fs"
	"os"
	"syscall"
)

// StampOf returns the stamp of a file (doc.go: Stamps); OK only when the file
// system reports a change time (else only Size and ModTime are set).
func StampOf(fi fs.FileInfo) Stamp {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || st == nil {
		return Stamp{Size: fi.Size(), ModTime: fi.ModTime().UnixNano()}
	}
	return Stamp{OK: true, Size: fi.Size(), ModTime: fi.ModTime().UnixNano(), CTime: st.Ctim.Nano(),
		Dev: uint64(st.Dev), Ino: uint64(st.Ino)}
}

// dirIDOf identifies the folder dir by its device and inode numbers, which
// a rename keeps; ok is false when it cannot be stat'ed.
func dirIDOf(dir string) (id fileID, ok bool) {
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		return fileID{}, false
	}
	st, isStat := fi.Sys().(*syscall.Stat_t)
	if !isStat || st == nil {
		return fileID{}, false
	}
	return fileID{Dev: uint64(st.Dev), Ino: uint64(st.Ino)}, true
}
