//go:build !linux

package render

import "io/fs"

// stampOf returns the stamp of a file (cache.go). Without a change time
// (other systems than Linux) stamps are never trusted: files are read and
// hashed. Size and ModTime are set.
func stampOf(fi fs.FileInfo) fileStamp {
	return fileStamp{Size: fi.Size(), ModTime: fi.ModTime().UnixNano()}
}

// dirIDOf is not implemented on other systems than Linux: a build with
// output.Dir.Update never removes the files of a previous build there, and
// UpdateReady is false.
func dirIDOf(dir string) (id fileID, ok bool) { return fileID{}, false }
