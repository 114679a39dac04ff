//go:build !linux

package cache

import "io/fs"

// StampOf returns the stamp of a file (doc.go: Stamps). Without a change time
// (other systems than Linux) stamps are never trusted: files are read and
// hashed. Size and ModTime are set.
func StampOf(fi fs.FileInfo) Stamp {
	return Stamp{Size: fi.Size(), ModTime: fi.ModTime().UnixNano()}
}

// dirIDOf is not implemented on other systems than Linux: a build with
// output.Dir.Update never removes the files of a previous build there, and
// UpdateReady is false.
func dirIDOf(dir string) (id fileID, ok bool) { return fileID{}, false }
