package bundle

import (
	"archive/tar"
	"bytes"
	"errors"
	"io"
	"io/fs"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
)

// gz compresses data, so that the fuzzer can work on the tar layer too.
func gz(data []byte) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	zw.Write(data)
	zw.Close()
	return buf.Bytes()
}

// gunzip returns the tar stream of a valid archive.
func gunzip(t testing.TB, data []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func FuzzRead(f *testing.F) {
	valid, _ := write(f, sampleFS(), sampleManifest())
	index := reg("index.html", "<h1>hi</h1>")
	seeds := [][]byte{
		valid,
		valid[:len(valid)/2],
		craft(f, listing(index), index),
		craft(f, listing(index), index, index),
		craft(f, listing(index), reg("../x", "x")),
		craft(f, listing(index), special(tar.TypeSymlink, "link", "/etc/passwd")),
		craft(f, nil, index),
		hugeHeader(f, 5),
		[]byte("not gzip"),
	}
	for _, s := range seeds {
		f.Add(s)
		if zr, err := gzip.NewReader(bytes.NewReader(s)); err == nil {
			if tr, err := io.ReadAll(zr); err == nil {
				f.Add(tr) // the tar stream, which the target compresses itself
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		check(t, data)
		check(t, gz(data))
	})
}

// check reads in and asserts the invariants: fn only ever sees clean paths
// listed in the manifest, at most once each; a nil error means fn saw every
// listed file; any error is ErrInvalid (the source and fn never fail).
func check(t *testing.T, in []byte) {
	var seen []string
	m, err := Read(bytes.NewReader(in), Limits{MaxTotal: 1 << 20, MaxFiles: 1000}, func(p string, r io.Reader) error {
		if !fs.ValidPath(p) || p == "." || p == ManifestName || strings.ContainsAny(p, "\\\x00") || strings.HasPrefix(p, "/") {
			t.Fatalf("fn called with unclean path %q", p)
		}
		if slices.Contains(seen, p) {
			t.Fatalf("fn called twice for %q", p)
		}
		seen = append(seen, p)
		// Read only part of some files: Read must still verify the rest.
		if len(p)%2 == 0 {
			_, err := io.CopyN(io.Discard, r, 3)
			if err == io.EOF {
				err = nil
			}
			return err
		}
		_, err := io.Copy(io.Discard, r)
		return err
	})
	if err != nil {
		if !errors.Is(err, ErrInvalid) {
			t.Fatalf("Read error %q does not match ErrInvalid", err)
		}
		return
	}
	if len(seen) != len(m.Files) {
		t.Fatalf("Read succeeded but fn saw %q for manifest %+v", seen, m.Files)
	}
	for _, f := range m.Files {
		if !slices.Contains(seen, f.Path) {
			t.Fatalf("Read succeeded but fn never saw %q", f.Path)
		}
	}
}

func TestFuzzSeedsTar(t *testing.T) {
	t.Parallel()
	// The fuzz target compresses its input as well: a raw tar of a valid
	// archive must verify once compressed.
	valid, _ := write(t, sampleFS(), sampleManifest())
	if _, err := Read(bytes.NewReader(gz(gunzip(t, valid))), Limits{}, nil); err != nil {
		t.Fatalf("recompressed archive: %v", err)
	}
}
