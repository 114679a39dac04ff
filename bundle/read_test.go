package bundle

import (
	"archive/tar"
	"bytes"
	stdgzip "compress/gzip"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
)

// rawEntry is one tar entry for craft; body is written for regular files.
type rawEntry struct {
	hdr  tar.Header
	body string
}

func reg(name, body string) rawEntry {
	return rawEntry{hdr: tar.Header{Typeflag: tar.TypeReg, Name: name, Size: int64(len(body)), Mode: 0o644}, body: body}
}

func special(typ byte, name, link string) rawEntry {
	return rawEntry{hdr: tar.Header{Typeflag: typ, Name: name, Linkname: link, Mode: 0o644}}
}

// listing returns the manifest files for the regular entries given.
func listing(ents ...rawEntry) []File {
	files := []File{}
	for _, e := range ents {
		files = append(files, File{Path: e.hdr.Name, Size: int64(len(e.body)), SHA256: sum([]byte(e.body))})
	}
	slices.SortFunc(files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	return files
}

// craft builds a tar.gz by hand with the standard library: the manifest
// listing files (unless files is nil, which leaves the manifest out),
// then ents.
func craft(t testing.TB, files []File, ents ...rawEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := stdgzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	if files != nil {
		mj, err := json.Marshal(Manifest{Version: "1", Domain: "x.dev", Files: files})
		if err != nil {
			t.Fatal(err)
		}
		ents = append([]rawEntry{reg(ManifestName, string(mj))}, ents...)
	}
	for _, e := range ents {
		if err := tw.WriteHeader(&e.hdr); err != nil {
			t.Fatalf("crafting %q: %v", e.hdr.Name, err)
		}
		if _, err := io.WriteString(tw, e.body); err != nil {
			t.Fatalf("crafting %q: %v", e.hdr.Name, err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// hugeHeader returns a tar.gz whose manifest lists big.bin with listedSize
// and whose big.bin header claims 10 GB, followed by no content at all.
func hugeHeader(t testing.TB, listedSize int64) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := stdgzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	mj, _ := json.Marshal(Manifest{Files: []File{{Path: "big.bin", Size: listedSize, SHA256: strings.Repeat("0", 64)}}})
	tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: ManifestName, Size: int64(len(mj))})
	tw.Write(mj)
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: "big.bin", Size: 10 << 30}); err != nil {
		t.Fatal(err)
	}
	zw.Close() // the tar writer is left unclosed: 10 GB are claimed, none follow
	return buf.Bytes()
}

func TestReadRefuses(t *testing.T) {
	t.Parallel()
	index := reg("index.html", "<h1>hi</h1>")
	other := reg("other.html", "<p>other</p>")
	valid, _ := write(t, sampleFS(), sampleManifest())
	badSum := listing(index)
	badSum[0].SHA256 = sum([]byte("something else"))
	longer := listing(index)
	longer[0].Size++
	flipped := bytes.Clone(valid)
	flipped[len(flipped)/2] ^= 0xff
	badCRC := bytes.Clone(valid)
	badCRC[len(badCRC)-8] ^= 0xff
	// PAX records are not content: only the stream budget bounds them.
	bloated := index
	bloated.hdr.PAXRecords = map[string]string{"comment": strings.Repeat("z", 200<<10)}
	withTrailer := craft(t, listing(index), index)
	// Rebuild withTrailer with junk after the tar end, inside the gzip stream.
	{
		var tarBuf bytes.Buffer
		zr, _ := stdgzip.NewReader(bytes.NewReader(withTrailer))
		io.Copy(&tarBuf, zr)
		tarBuf.WriteString("junk")
		var out bytes.Buffer
		zw := stdgzip.NewWriter(&out)
		zw.Write(tarBuf.Bytes())
		zw.Close()
		withTrailer = out.Bytes()
	}

	tests := []struct {
		name string
		in   []byte
		lim  Limits
		want string
	}{
		{"not gzip", []byte("<html>this is not gzip</html>"), Limits{}, "not a gzip stream"},
		{"empty input", nil, Limits{}, "not a gzip stream"},
		{"truncated in the middle", valid[:len(valid)/2], Limits{}, "archive truncated"},
		{"truncated gzip trailer", valid[:len(valid)-3], Limits{}, "archive truncated"},
		{"truncated gzip header", valid[:5], Limits{}, "not a gzip stream"},
		{"flipped byte", flipped, Limits{}, "bundle: "}, // the error depends on what the byte breaks first
		{"bad gzip crc", badCRC, Limits{}, "archive corrupt: gzip checksum mismatch"},
		{"wrong checksum", craft(t, badSum, index), Limits{}, `entry "index.html": sha256 mismatch`},
		{"wrong size", craft(t, longer, index), Limits{}, `entry "index.html": size 11 does not match the manifest's 12`},
		{"missing file", craft(t, listing(index, other), index), Limits{}, `entry "other.html": listed in the manifest but missing`},
		{"extra file", craft(t, listing(index), index, other), Limits{}, `entry "other.html": file not listed in the manifest`},
		{"dot dot", craft(t, listing(index), reg("../x", "x")), Limits{}, `bundle: entry "../x": path escapes the archive root`},
		{"dot dot inside", craft(t, listing(index), reg("a/../../x", "x")), Limits{}, "path escapes the archive root"},
		{"absolute", craft(t, listing(index), reg("/etc/passwd", "x")), Limits{}, `entry "/etc/passwd": absolute path`},
		{"backslash", craft(t, listing(index), reg(`..\x`, "x")), Limits{}, "backslash"},
		{"not clean", craft(t, listing(index), reg("./index.html", "x")), Limits{}, "not clean"},
		{"symlink", craft(t, listing(index), special(tar.TypeSymlink, "link", "/etc/passwd")), Limits{}, `entry "link": symbolic link (to "/etc/passwd") not allowed`},
		{"hard link", craft(t, listing(index), index, special(tar.TypeLink, "hard", "index.html")), Limits{}, `entry "hard": hard link`},
		{"char device", craft(t, listing(index), special(tar.TypeChar, "tty", "")), Limits{}, `entry "tty": device file not allowed`},
		{"block device", craft(t, listing(index), special(tar.TypeBlock, "sda", "")), Limits{}, "device file not allowed"},
		{"fifo", craft(t, listing(index), special(tar.TypeFifo, "pipe", "")), Limits{}, "named pipe (FIFO) not allowed"},
		{"duplicate file", craft(t, listing(index), index, index), Limits{}, `entry "index.html": duplicate entry`},
		{"duplicate manifest", craft(t, listing(index), index, reg(ManifestName, "{}")), Limits{}, "duplicate entry"},
		{"dir named like a file", craft(t, listing(index), index, special(tar.TypeDir, "index.html/", "")), Limits{}, "duplicate entry"},
		{"entry inside a file", craft(t, listing(index), index, special(tar.TypeDir, "index.html/x/", "")), Limits{}, `inside "index.html", which is a file`},
		{"10 GB header", hugeHeader(t, 5), Limits{MaxTotal: 1 << 20}, `entry "big.bin": header claims 10737418240 bytes, over the limit`},
		{"10 GB header, default limits", hugeHeader(t, 5), Limits{}, "over the limit"},
		{"10 GB listed", hugeHeader(t, 10<<30), Limits{MaxTotal: 1 << 20}, "manifest lists more than 1048576 bytes of files, over the limit"},
		{"bloated headers", craft(t, listing(index), bloated), Limits{MaxTotal: 1000, MaxFiles: 5}, "decompresses to more tar data than its limits allow"},
		{"too many entries", craft(t, listing(index), index, special(tar.TypeDir, "d/", ""), special(tar.TypeDir, "e/", "")), Limits{MaxFiles: 3}, "more than 3 entries"},
		{"missing manifest", craft(t, nil, index), Limits{}, `entry "index.html": manifest missing: the first entry must be "lectern-manifest.json"`},
		{"no entries", craft(t, nil), Limits{}, "manifest missing"},
		{"manifest not JSON", craft(t, nil, reg(ManifestName, "{files:")), Limits{}, "manifest is not valid JSON"},
		{"manifest null", craft(t, nil, reg(ManifestName, "null")), Limits{}, `manifest has no "files" list`},
		{"manifest unsorted", craft(t, []File{listing(other)[0], listing(index)[0]}, index, other), Limits{}, "must be sorted"},
		{"manifest bad path", craft(t, []File{{Path: "../x", SHA256: sum(nil)}}), Limits{}, `manifest lists "../x": path escapes the archive root`},
		{"manifest lists itself", craft(t, []File{{Path: ManifestName, SHA256: sum(nil)}}), Limits{}, "manifest lists itself"},
		{"manifest upper-case sum", craft(t, []File{{Path: "x", SHA256: strings.ToUpper(sum(nil))}}), Limits{}, "lower-case hex"},
		{"data after tar end", withTrailer, Limits{}, "data after the end of the tar archive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Read(bytes.NewReader(tt.in), tt.lim, func(p string, r io.Reader) error {
				_, err := io.Copy(io.Discard, r)
				return err
			})
			if err == nil {
				t.Fatalf("Read accepted the archive, want an error mentioning %q", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Read error = %q, want it to mention %q", err, tt.want)
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("Read error %q does not match ErrInvalid", err)
			}
		})
	}
}

func TestReadLimitBeforeContent(t *testing.T) {
	t.Parallel()
	// A 10 MB file passes a 100 MB limit.
	big := reg("big.bin", strings.Repeat("x", 10<<20))
	_, err := Read(bytes.NewReader(craft(t, listing(big), big)), Limits{MaxTotal: 100 << 20}, nil)
	if err != nil {
		t.Fatalf("Read within limits: %v", err)
	}
	// Two files, each within the limit alone, not together: the second
	// header is refused before any of its content is shown to fn. (The
	// manifest understates b.bin, or Read would refuse the manifest.)
	a, b := reg("a.bin", strings.Repeat("a", 600)), reg("b.bin", strings.Repeat("b", 600))
	var seen []string
	_, err = Read(bytes.NewReader(craft(t, listing(a, reg("b.bin", "short")), a, b)), Limits{MaxTotal: 1000}, func(p string, r io.Reader) error {
		seen = append(seen, p)
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), `entry "b.bin": header claims 600 bytes, over the limit of 1000`) {
		t.Fatalf("Read error = %v, want b.bin over the limit", err)
	}
	if !slices.Equal(seen, []string{"a.bin"}) {
		t.Errorf("fn saw %q, want only a.bin", seen)
	}
	// Unlisted and over the limit: the limit is checked first.
	_, err = Read(bytes.NewReader(craft(t, []File{}, a)), Limits{MaxTotal: 500}, nil)
	if err == nil || !strings.Contains(err.Error(), "over the limit") {
		t.Errorf("Read error = %v, want the limit", err)
	}
}

func TestReadFnSeesVerificationError(t *testing.T) {
	t.Parallel()
	index := reg("index.html", "<h1>hi</h1>")
	files := listing(index)
	files[0].SHA256 = sum([]byte("tampered"))
	var fnErr error
	_, err := Read(bytes.NewReader(craft(t, files, index)), Limits{}, func(p string, r io.Reader) error {
		_, fnErr = io.ReadAll(r)
		return fnErr
	})
	if fnErr == nil || !strings.Contains(fnErr.Error(), "sha256 mismatch") {
		t.Errorf("fn's reader ended with %v, want the sha256 mismatch instead of EOF", fnErr)
	}
	if err == nil || !strings.Contains(err.Error(), "sha256 mismatch") || strings.Count(err.Error(), "bundle:") != 1 {
		t.Errorf("Read error = %v, want the sha256 mismatch once", err)
	}
}

func TestReadFnError(t *testing.T) {
	t.Parallel()
	valid, _ := write(t, sampleFS(), sampleManifest())
	boom := errors.New("boom")
	_, err := Read(bytes.NewReader(valid), Limits{}, func(p string, r io.Reader) error {
		if p == "index.html" {
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) || errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), `entry "index.html"`) {
		t.Fatalf("Read error = %v, want fn's error for index.html, not ErrInvalid", err)
	}
}

type brokenReader struct {
	r   io.Reader
	n   int
	err error
}

func (b *brokenReader) Read(p []byte) (int, error) {
	if b.n <= 0 {
		return 0, b.err
	}
	p = p[:min(len(p), b.n)]
	n, err := b.r.Read(p)
	b.n -= n
	return n, err
}

func TestReadSourceError(t *testing.T) {
	t.Parallel()
	valid, _ := write(t, sampleFS(), sampleManifest())
	netErr := errors.New("connection reset")
	for _, n := range []int{0, 5, 100, len(valid) / 2} {
		_, err := Read(&brokenReader{r: bytes.NewReader(valid), n: n, err: netErr}, Limits{}, nil)
		if !errors.Is(err, netErr) || errors.Is(err, ErrInvalid) {
			t.Errorf("after %d bytes: Read error = %v, want the source's error, not ErrInvalid", n, err)
		}
	}
}

func TestReadAcceptsForeignTar(t *testing.T) {
	t.Parallel()
	// Unsorted entries, explicit directories and other modes are fine.
	index, sub := reg("index.html", "<h1>hi</h1>"), reg("sub/page.html", "page")
	in := craft(t, listing(index, sub), sub, special(tar.TypeDir, "sub/", ""), index)
	m, err := Read(bytes.NewReader(in), Limits{MaxFiles: 4, MaxTotal: 1 << 10}, nil)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if len(m.Files) != 2 {
		t.Fatalf("manifest files = %+v", m.Files)
	}
}
