package bundle

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/klauspost/compress/gzip"
)

var longName = "guides/" + strings.Repeat("very-long-segment-", 8) + "page.html" // over 100 bytes: needs PAX

// sampleFS returns a small site whose sorted order differs from WalkDir's
// ("a-b.html" sorts before "a/"), with an empty directory, an empty file, a
// nested file named like the manifest, a long name and a non-ASCII one.
func sampleFS() fstest.MapFS {
	return fstest.MapFS{
		"index.html":                 {Data: []byte("<h1>Home</h1>\n")},
		"a/b.html":                   {Data: []byte("<p>b</p>")},
		"a-b.html":                   {Data: []byte("<p>a-b</p>")},
		"assets/site.css":            {Data: []byte("body{margin:0}")},
		"assets/empty.txt":           {Data: nil},
		"docs/lectern-manifest.json": {Data: []byte(`{"not":"the manifest"}`)},
		"empty":                      {Mode: fs.ModeDir | 0o755},
		"café/menu.html":             {Data: []byte("<p>crème</p>")},
		longName:                     {Data: []byte("long")},
	}
}

func sampleManifest() Manifest {
	return Manifest{
		Version:   "1",
		JobID:     "job_01HZX",
		Domain:    "docs.example.com",
		CreatedAt: time.Date(2025, 3, 14, 15, 9, 26, 535897932, time.FixedZone("CET", 3600)),
		PageCount: 4,
		Files:     []File{{Path: "ignored", Size: 1, SHA256: "nope"}},
	}
}

func write(t testing.TB, src fs.FS, m Manifest) ([]byte, Result) {
	t.Helper()
	var buf bytes.Buffer
	res, err := Write(context.Background(), &buf, src, m)
	if err != nil {
		t.Fatalf("Write: %v", err)
	}
	return buf.Bytes(), res
}

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func TestWriteReproducible(t *testing.T) {
	t.Parallel()
	a, ra := write(t, sampleFS(), sampleManifest())
	b, rb := write(t, sampleFS(), sampleManifest())
	if !bytes.Equal(a, b) {
		t.Fatal("two writes of the same input differ")
	}
	if ra.SHA256 != rb.SHA256 || ra.Size != rb.Size {
		t.Fatalf("results differ: %+v vs %+v", ra, rb)
	}
	if ra.SHA256 != sum(a) || ra.Size != int64(len(a)) {
		t.Fatalf("Result = %d bytes %s, archive is %d bytes %s", ra.Size, ra.SHA256, len(a), sum(a))
	}

	changed := sampleFS()
	changed["a/b.html"] = &fstest.MapFile{Data: []byte("<p>B</p>")}
	c, rc := write(t, changed, sampleManifest())
	if bytes.Equal(a, c) || rc.SHA256 == ra.SHA256 {
		t.Fatal("changing one file's content did not change the archive")
	}

	m := sampleManifest()
	m.CreatedAt = m.CreatedAt.Add(time.Second)
	if _, rm := write(t, sampleFS(), m); rm.SHA256 == ra.SHA256 {
		t.Fatal("changing CreatedAt did not change the archive")
	}

	// Source file times and modes do not leak into the archive.
	touched := sampleFS()
	for _, f := range touched {
		f.ModTime = time.Now()
		f.Mode |= 0o070
	}
	if _, rt := write(t, touched, sampleManifest()); rt.SHA256 != ra.SHA256 {
		t.Fatal("source mtimes or modes changed the archive")
	}
}

func TestWriteGzipHeader(t *testing.T) {
	t.Parallel()
	a, _ := write(t, sampleFS(), sampleManifest())
	if len(a) < 10 || a[0] != 0x1f || a[1] != 0x8b {
		t.Fatalf("not gzip: % x", a[:min(len(a), 10)])
	}
	if flg := a[3]; flg != 0 {
		t.Errorf("gzip FLG = %#x, want 0 (no name, comment or extra)", flg)
	}
	if mtime := a[4:8]; !bytes.Equal(mtime, []byte{0, 0, 0, 0}) {
		t.Errorf("gzip MTIME = % x, want zero", mtime)
	}
	if a[9] != gzipOS {
		t.Errorf("gzip OS = %d, want %d", a[9], gzipOS)
	}
}

func TestWriteLayout(t *testing.T) {
	t.Parallel()
	a, _ := write(t, sampleFS(), sampleManifest())
	zr, err := gzip.NewReader(bytes.NewReader(a))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	wantTime := time.Date(2025, 3, 14, 14, 9, 26, 0, time.UTC)
	var names []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, h.Name)
		if h.Uid != 0 || h.Gid != 0 || h.Uname != "" || h.Gname != "" {
			t.Errorf("%s: owner %d:%d %q:%q, want 0:0 and empty names", h.Name, h.Uid, h.Gid, h.Uname, h.Gname)
		}
		if !h.ModTime.Equal(wantTime) {
			t.Errorf("%s: ModTime %v, want %v", h.Name, h.ModTime, wantTime)
		}
		if !h.AccessTime.IsZero() || !h.ChangeTime.IsZero() || len(h.Xattrs) > 0 {
			t.Errorf("%s: unexpected atime/ctime/xattrs", h.Name)
		}
		wantMode, wantType := int64(0o644), byte(tar.TypeReg)
		if strings.HasSuffix(h.Name, "/") {
			wantMode, wantType = 0o755, tar.TypeDir
		}
		if h.Mode != wantMode || h.Typeflag != wantType {
			t.Errorf("%s: mode %o type %q, want %o %q", h.Name, h.Mode, h.Typeflag, wantMode, wantType)
		}
		wantFormat := tar.FormatUSTAR
		if h.Name == longName || strings.HasPrefix(h.Name, "café") {
			wantFormat = tar.FormatPAX
		}
		if h.Format != wantFormat {
			t.Errorf("%s: format %v, want %v", h.Name, h.Format, wantFormat)
		}
	}
	want := []string{
		ManifestName,
		"a-b.html", "a/", "a/b.html",
		"assets/", "assets/empty.txt", "assets/site.css",
		"café/", "café/menu.html",
		"docs/", "docs/lectern-manifest.json",
		"empty/",
		"guides/", longName,
		"index.html",
	}
	if !slices.Equal(names, want) {
		t.Fatalf("entries:\n got %q\nwant %q", names, want)
	}
}

func TestWriteManifest(t *testing.T) {
	t.Parallel()
	src := sampleFS()
	a, res := write(t, src, sampleManifest())

	var want []File
	for p, f := range src {
		if !f.Mode.IsDir() {
			want = append(want, File{Path: p, Size: int64(len(f.Data)), SHA256: sum(f.Data)})
		}
	}
	slices.SortFunc(want, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	if !reflect.DeepEqual(res.Manifest.Files, want) {
		t.Fatalf("manifest files:\n got %+v\nwant %+v", res.Manifest.Files, want)
	}

	// The manifest entry is the first one and says exactly that, with
	// createdAt in UTC.
	zr, _ := gzip.NewReader(bytes.NewReader(a))
	tr := tar.NewReader(zr)
	if _, err := tr.Next(); err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(tr)
	if !bytes.Contains(raw, []byte(`"createdAt": "2025-03-14T14:09:26.535897932Z"`)) {
		t.Errorf("manifest createdAt not RFC 3339 UTC:\n%s", raw)
	}
	var got Manifest
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, res.Manifest) {
		t.Errorf("archived manifest %+v\n differs from Result.Manifest %+v", got, res.Manifest)
	}
	if got.JobID != "job_01HZX" || got.Domain != "docs.example.com" || got.PageCount != 4 || got.Version != "1" {
		t.Errorf("caller fields not kept: %+v", got)
	}
}

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	src := sampleFS()
	a, res := write(t, src, sampleManifest())
	var order []string
	got := map[string]string{}
	m, err := Read(bytes.NewReader(a), Limits{}, func(p string, r io.Reader) error {
		b, err := io.ReadAll(r)
		if err != nil {
			return err
		}
		order = append(order, p)
		got[p] = string(b)
		return nil
	})
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if !reflect.DeepEqual(m, res.Manifest) {
		t.Errorf("Read manifest %+v\nwant %+v", m, res.Manifest)
	}
	for _, f := range res.Manifest.Files {
		if got[f.Path] != string(src[f.Path].Data) {
			t.Errorf("fn saw %q = %q, want %q", f.Path, got[f.Path], src[f.Path].Data)
		}
	}
	if len(got) != len(res.Manifest.Files) || !slices.IsSorted(order) {
		t.Errorf("fn calls %q, want each of the %d files once in order", order, len(res.Manifest.Files))
	}

	// fn may read nothing, or be nil; Read still verifies everything.
	if _, err := Read(bytes.NewReader(a), Limits{}, func(string, io.Reader) error { return nil }); err != nil {
		t.Errorf("Read with lazy fn: %v", err)
	}
	if _, err := Read(bytes.NewReader(a), Limits{}, nil); err != nil {
		t.Errorf("Read with nil fn: %v", err)
	}
}

func TestWriteEmptySource(t *testing.T) {
	t.Parallel()
	a, res := write(t, fstest.MapFS{}, Manifest{Domain: "x.dev"})
	if res.Manifest.Files == nil || len(res.Manifest.Files) != 0 {
		t.Fatalf("Files = %#v, want empty non-nil", res.Manifest.Files)
	}
	m, err := Read(bytes.NewReader(a), Limits{}, nil)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if m.Domain != "x.dev" || len(m.Files) != 0 || !m.CreatedAt.IsZero() {
		t.Fatalf("manifest = %+v", m)
	}
}

func TestWriteRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		src  fstest.MapFS
		want string
	}{
		{"manifest at root", fstest.MapFS{ManifestName: {Data: []byte("{}")}}, "clashes with the bundle manifest"},
		{"manifest dir at root", fstest.MapFS{ManifestName + "/x": {}}, "clashes with the bundle manifest"},
		{"backslash", fstest.MapFS{`a\b.html`: {}}, "backslash"},
		{"dot dot", fstest.MapFS{"../x.html": {}}, "path escapes the archive root"},
		{"symlink", fstest.MapFS{"link": {Data: []byte("index.html"), Mode: fs.ModeSymlink}}, "not a regular file"},
		{"invalid utf-8", fstest.MapFS{"bad\xff.html": {}}, "not clean"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := Write(context.Background(), io.Discard, tt.src, Manifest{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Write error = %v, want one mentioning %q", err, tt.want)
			}
			if res.Size != 0 || res.SHA256 != "" {
				t.Errorf("Result = %+v on error, want zero", res)
			}
		})
	}
}

func TestWriteCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Write(ctx, io.Discard, sampleFS(), sampleManifest())
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Write error = %v, want context.Canceled", err)
	}
}

// flakyFS serves a different content for "page.html" on every open: longer
// each time if grow, else of the same size.
type flakyFS struct {
	fstest.MapFS
	grow  bool
	opens int
}

func (f *flakyFS) Open(name string) (fs.File, error) {
	if name == "page.html" {
		f.opens++
		data := bytes.Repeat([]byte{byte('0' + f.opens)}, 4)
		if f.grow {
			data = bytes.Repeat([]byte("x"), f.opens)
		}
		f.MapFS[name] = &fstest.MapFile{Data: data}
	}
	return f.MapFS.Open(name)
}

func TestWriteSourceChanges(t *testing.T) {
	t.Parallel()
	for _, grow := range []bool{false, true} {
		src := &flakyFS{MapFS: fstest.MapFS{"page.html": {}}, grow: grow}
		_, err := Write(context.Background(), io.Discard, src, Manifest{})
		if err == nil || !strings.Contains(err.Error(), `"page.html" changed while the archive was written`) {
			t.Errorf("grow=%v: Write error = %v, want a changed-file error", grow, err)
		}
	}
}

type failWriter struct{ n int }

func (w *failWriter) Write(p []byte) (int, error) {
	if w.n -= len(p); w.n < 0 {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}

func TestWriteWriterError(t *testing.T) {
	t.Parallel()
	_, err := Write(context.Background(), &failWriter{n: 10}, sampleFS(), sampleManifest())
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("Write error = %v, want the writer's error", err)
	}
}

func TestPathProblem(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"a", "a/b", "a..b", "..a", "a/.b", "café/x", "x:y"} {
		if msg := PathProblem(ok); msg != "" {
			t.Errorf("PathProblem(%q) = %q, want clean", ok, msg)
		}
	}
	for bad, want := range map[string]string{
		"": "empty", ".": "root", "..": "escapes", "../a": "escapes", "a/../b": "escapes", "a/..": "escapes",
		"/a": "absolute", `a\b`: "backslash", "a\x00b": "NUL", "a//b": "not clean", "./a": "not clean",
		"a/": "not clean", "a/./b": "not clean", "\xff": "not clean",
	} {
		if msg := PathProblem(bad); !strings.Contains(msg, want) {
			t.Errorf("PathProblem(%q) = %q, want it to mention %q", bad, msg, want)
		}
	}
}

func TestFileName(t *testing.T) {
	t.Parallel()
	late := time.Date(2025, 12, 31, 23, 30, 0, 0, time.FixedZone("EST", -5*3600))
	if got, want := FileName("docs.acme.io", late), "docs.acme.io-export-2026-01-01.tar.gz"; got != want {
		t.Errorf("FileName = %q, want %q (UTC date)", got, want)
	}
}
