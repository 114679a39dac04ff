//go:build linux

package render

import (
	"io/fs"
	"syscall"
)

// stampOf returns the stamp of a file (cache.go); OK only when the file
// system reports a change time (else only Size and ModTime are set).
func stampOf(fi fs.FileInfo) fileStamp {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || st == nil {
		return fileStamp{Size: fi.Size(), ModTime: fi.ModTime().UnixNano()}
	}
	return fileStamp{OK: true, Size: fi.Size(), ModTime: fi.ModTime().UnixNano(), CTime: st.Ctim.Nano(),
		Dev: uint64(st.Dev), Ino: uint64(st.Ino)}
}
