package output

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWriteFileOverKeptFile checks that a file kept from the previous
// build's folder (a hard link when the file system allows one) and then
// written again in the new folder leaves the previous build's file as it
// was.
func TestWriteFileOverKeptFile(t *testing.T) {
	prev, dir := t.TempDir(), filepath.Join(t.TempDir(), "site")
	old := Dir{Dir: prev}
	if err := old.WriteFile("a/f.js", []byte("old content")); err != nil {
		t.Fatal(err)
	}
	info, ok := old.FileInfo("a/f.js")
	if !ok {
		t.Fatal("no FileInfo of a file just written")
	}
	d := Dir{Dir: dir, Prev: prev}
	if !d.KeepFile("a/f.js", info) {
		t.Fatal("the previous build's file is not kept")
	}
	if err := d.WriteFile("a/f.js", []byte("new")); err != nil {
		t.Fatal(err)
	}
	for folder, want := range map[string]string{prev: "old content", dir: "new"} {
		got, err := os.ReadFile(filepath.Join(folder, "a", "f.js"))
		if err != nil || string(got) != want {
			t.Errorf("%s holds %q (%v), want %q", folder, got, err, want)
		}
	}
	// Written twice in the same build: the last write wins.
	if err := d.WriteFile("a/f.js", []byte("newer")); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "a", "f.js")); string(got) != "newer" {
		t.Errorf("a file written twice holds %q, want \"newer\"", got)
	}
}
