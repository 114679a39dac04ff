//go:build unix

package blobstore

import (
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

func device(t *testing.T, path string) (uint64, bool) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		return 0, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return uint64(st.Dev), true
}

// A file bucket on another filesystem than os.TempDir() (a data volume,
// with /tmp on tmpfs or the container's overlay: a common layout) must
// accept writes. BUG: Open does not set fileblob's no_tmp_dir option, so
// fileblob writes each blob to a temporary file in os.TempDir() and then
// os.Rename()s it into the bucket, which fails with "invalid cross-device
// link" (EXDEV): every upload of a deployment or export fails.
func TestOpenFileWritesAcrossFilesystems(t *testing.T) {
	t.Parallel()
	tmpDev, ok := device(t, os.TempDir())
	if !ok {
		t.Skip("cannot stat os.TempDir()")
	}
	var base string
	for _, cand := range []string{"/dev/shm", "/run/user/" + strconv.Itoa(os.Getuid()), "/var/tmp"} {
		if dev, ok := device(t, cand); ok && dev != tmpDev {
			if dir, err := os.MkdirTemp(cand, "lectern-blobstore-test-"); err == nil {
				base = dir
				break
			}
		}
	}
	if base == "" {
		t.Skip("no writable folder on another filesystem than os.TempDir()")
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	u, err := FileURL(filepath.Join(base, "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Open(t.Context(), u)
	if err != nil {
		t.Fatalf("Open(%s): %v", u, err)
	}
	defer b.Close()
	if err := b.WriteAll(t.Context(), "sites/prj_1/dep_1/site/index.html", []byte("<h1>hi</h1>"), nil); err != nil {
		t.Errorf("WriteAll to a bucket on %s (os.TempDir() is %s, another filesystem): %v", base, os.TempDir(), err)
	}
}
