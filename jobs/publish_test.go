package jobs

import (
	"io/fs"
	"slices"
	"testing"
	"testing/fstest"
)

// The source snapshot, which an export builds from, holds what the render
// reads: no dot-files or dot-folders but the root's .mintignore, whose
// rules the export must follow as the live site did.
func TestSnapshotFiles(t *testing.T) {
	src := fstest.MapFS{
		"docs.json":         {Data: []byte("{}")},
		".mintignore":       {Data: []byte("drafts/\n")},
		".git/config":       {Data: []byte("x")},
		"guide/.mintignore": {Data: []byte("x")},
		"guide/.cache":      {Data: []byte("x")},
		"guide/a.mdx":       {Data: []byte("# A")},
		"drafts/b.mdx":      {Data: []byte("# B")},
	}
	var got []string
	err := fs.WalkDir(regularFiles{src}, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			got = append(got, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".mintignore", "docs.json", "drafts/b.mdx", "guide/a.mdx"}
	if !slices.Equal(got, want) {
		t.Errorf("snapshot files %q, want %q", got, want)
	}
}
