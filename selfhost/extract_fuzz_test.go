package selfhost

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"lectern.dev/lectern/bundle"
)

// FuzzExtract feeds arbitrary archives (and, compressed, arbitrary tar
// streams) to Extract. Invariants: nothing is ever written outside the
// target folder; only regular files and folders are created; an error is
// bundle.ErrInvalid; a success leaves exactly the manifest's files, with
// the manifest's sizes.
func FuzzExtract(f *testing.F) {
	idx := regEntry("index.html", "<h1>hi</h1>")
	seeds := [][]byte{
		makeBundle(f, testSite("v1"), "v1"),
		craft(f, []bundle.File{listed(idx)}, idx),
		craft(f, []bundle.File{listed(idx)}, idx, regEntry("../x", "x")),
		craft(f, []bundle.File{listed(idx)}, idx, regEntry("/abs", "x")),
		craft(f, []bundle.File{listed(idx)}, idx, tarEntry{hdr: tar.Header{Typeflag: tar.TypeSymlink, Name: "l", Linkname: "../../etc"}}),
		craft(f, []bundle.File{listed(idx)}, idx, tarEntry{hdr: tar.Header{Typeflag: tar.TypeLink, Name: "h", Linkname: "index.html"}}),
		craft(f, []bundle.File{listed(idx), listed(regEntry("a/b.html", "b"))}, tarEntry{hdr: tar.Header{Typeflag: tar.TypeDir, Name: "a/", Mode: 0o755}},
			regEntry("a/b.html", "b"), idx),
		craft(f, []bundle.File{listed(idx)}, idx, idx),
		[]byte("not gzip"),
	}
	for _, s := range seeds {
		f.Add(s)
		if zr, err := gzip.NewReader(bytes.NewReader(s)); err == nil {
			if raw, err := io.ReadAll(zr); err == nil {
				f.Add(raw)
			}
		}
	}
	base := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzCheck(t, base, data)
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
		zw.Write(data)
		zw.Close()
		fuzzCheck(t, base, buf.Bytes())
	})
}

func fuzzCheck(t *testing.T, base string, data []byte) {
	parent, err := os.MkdirTemp(base, "")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(parent)
	dst := filepath.Join(parent, "dst")
	if err := os.Mkdir(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	m, err := Extract(context.Background(), bytes.NewReader(data), dst, bundle.Limits{MaxTotal: 1 << 20, MaxFiles: 200})
	if ents, _ := os.ReadDir(parent); len(ents) != 1 {
		t.Fatalf("written beside the target: %v", ents)
	}
	files := map[string]int64{}
	filepath.WalkDir(dst, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		if !d.Type().IsRegular() && !d.IsDir() {
			t.Fatalf("created %s of type %v", p, d.Type())
		}
		if d.Type().IsRegular() {
			info, _ := d.Info()
			rel, _ := filepath.Rel(dst, p)
			files[filepath.ToSlash(rel)] = info.Size()
		}
		return nil
	})
	if err != nil {
		if !errors.Is(err, bundle.ErrInvalid) {
			t.Fatalf("error %q does not match bundle.ErrInvalid", err)
		}
		return
	}
	if len(files) != len(m.Files) {
		t.Fatalf("extracted %v, manifest lists %d files", files, len(m.Files))
	}
	for _, f := range m.Files {
		if size, ok := files[f.Path]; !ok || size != f.Size || strings.HasPrefix(f.Path, "/") {
			t.Fatalf("manifest file %+v extracted as %v %v", f, size, ok)
		}
	}
}
