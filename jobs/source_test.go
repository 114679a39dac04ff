package jobs

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"lectern.dev/lectern"
	"lectern.dev/lectern/blobstore"
	"lectern.dev/lectern/blobstore/blobtest"
	"lectern.dev/lectern/render/limits"
)

// The snapshot of the docs is stored file by file: a second deployment
// that changes one source stores that file only, and an export writes
// back exactly the files the render could read (no symbolic links, no
// dot-files but the root's .mintignore).
func TestSourceSnapshotShares(t *testing.T) {
	ctx := t.Context()
	src := t.TempDir()
	files := map[string]string{
		"docs.json":          `{"name":"x"}`,
		"index.mdx":          "# Home",
		"guide/a.mdx":        "# A",
		"guide/b.mdx":        "# B",
		"guide/copy-of-a.md": "# A",
		".mintignore":        "drafts/",
	}
	for name, body := range files {
		p := filepath.Join(src, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(filepath.Join(src, ".git"), 0o755)
	os.WriteFile(filepath.Join(src, ".git", "config"), []byte("[core]"), 0o644)
	os.WriteFile(filepath.Join(src, "guide", ".hidden"), []byte("x"), 0o644)
	os.Symlink("/etc/passwd", filepath.Join(src, "link.mdx"))
	b := blobtest.Folder(t)
	stamps := map[string]fileStamp{}
	n, err := storeSource(ctx, b, src, "prj_1", "dep_1", nil, stamps, limits.Limits{})
	if err != nil || n != 5 {
		t.Fatalf("first snapshot: %d stored, %v; want 5 (two files share their content)", n, err)
	}
	first, err := readSourceList(ctx, b, "prj_1", "dep_1")
	if err != nil || first == nil || len(first.Files) != len(files) {
		t.Fatalf("source list: %v, %v; want %d files", first, err, len(files))
	}
	if len(stamps) != len(files) {
		t.Errorf("%d stamps after the first snapshot, want %d", len(stamps), len(files))
	}
	os.WriteFile(filepath.Join(src, "guide", "b.mdx"), []byte("# B, edited"), 0o644)
	if n, err := storeSource(ctx, b, src, "prj_1", "dep_2", first, stamps, limits.Limits{}); err != nil || n != 1 {
		t.Fatalf("one source changed: %d stored, %v; want 1", n, err)
	}
	second, err := readSourceList(ctx, b, "prj_1", "dep_2")
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if err := writeSource(ctx, b, "prj_1", second, out); err != nil {
		t.Fatal(err)
	}
	files["guide/b.mdx"] = "# B, edited"
	got := map[string]string{}
	filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(out, p)
			data, _ := os.ReadFile(p)
			got[filepath.ToSlash(rel)] = string(data)
		}
		return nil
	})
	if len(got) != len(files) {
		t.Errorf("the export's source holds %d files, want %d: %v", len(got), len(files), got)
	}
	for name, body := range files {
		if got[name] != body {
			t.Errorf("%s = %q, want %q", name, got[name], body)
		}
	}

	// A name the snapshot cannot keep is the repository's to fix.
	os.WriteFile(filepath.Join(src, `back\slash.mdx`), []byte("x"), 0o644)
	if _, err := storeSource(ctx, b, src, "prj_1", "dep_3", second, nil, limits.Limits{}); lectern.ErrorCode(err) != lectern.EINVALID || !strings.Contains(err.Error(), "backslash") {
		t.Errorf("a name with a backslash: %v, want EINVALID naming it", err)
	}
}

// A source list that names a path out of the folder, or a hash that is
// not one, is refused before anything is written.
func TestSourceListRefusesBadNames(t *testing.T) {
	ctx := t.Context()
	b := blobtest.Folder(t)
	for i, files := range []map[string]sourceFile{
		{"../escape.mdx": {Hash: strings.Repeat("a", 32), Size: 1}},
		{"/abs.mdx": {Hash: strings.Repeat("a", 32), Size: 1}},
		{"ok.mdx": {Hash: "../../other", Size: 1}},
		{"ok.mdx": {Hash: strings.Repeat("a", 32), Size: -1}},
	} {
		data, _ := json.Marshal(sourceList{Version: sourceVersion, Files: files})
		dep := "dep_" + string(rune('a'+i))
		if err := b.WriteAll(ctx, blobstore.SourceFilesKey("prj_1", dep), data, nil); err != nil {
			t.Fatal(err)
		}
		if l, err := readSourceList(ctx, b, "prj_1", dep); err == nil {
			t.Errorf("source list %v read as %v, want refused", files, l)
		}
	}
}

// The snapshot runs beside the render, before its limits are known to
// hold: it applies them itself, and a repository past one stores nothing.
func TestSourceSnapshotLimits(t *testing.T) {
	ctx := t.Context()
	src := t.TempDir()
	for name, size := range map[string]int{"a.mdx": 10, "b.mdx": 10, "big.bin": 5000} {
		if err := os.WriteFile(filepath.Join(src, name), make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b := blobtest.Folder(t)
	for _, tc := range []struct {
		lim   limits.Limits
		limit string
	}{
		{limits.Limits{MaxFileBytes: 4096}, limits.MaxFileSize},
		{limits.Limits{MaxSourceBytes: 4096}, limits.MaxSourceSize},
		{limits.Limits{MaxFiles: 2}, limits.MaxFiles},
	} {
		_, err := storeSource(ctx, b, src, "prj_1", "dep_1", nil, nil, tc.lim)
		if le := limits.AsError(err); le == nil || le.Limit != tc.limit || lectern.ErrorCode(err) != lectern.EINVALID {
			t.Errorf("limits %+v: %v, want the %s limit (EINVALID)", tc.lim, err, tc.limit)
		}
	}
	if ok, _ := b.Exists(ctx, blobstore.SourceFilesKey("prj_1", "dep_1")); ok {
		t.Error("a snapshot past a limit stored its list")
	}
	it := b.List(nil)
	if obj, err := it.Next(ctx); err == nil {
		t.Errorf("a snapshot past a limit stored %s", obj.Key)
	}
}
