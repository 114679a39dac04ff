package jobs

import (
	"bytes"
	"compress/gzip"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
	"gocloud.dev/blob"

	"lectern.dev/lectern/blobstore"
	"lectern.dev/lectern/blobstore/blobtest"
	"lectern.dev/lectern/internal/precompress"
)

// publishSite stores every file by its content, a brotli and a gzip copy
// of the text files worth compressing and of no other, and last a
// manifest with each file's content hash and the deployment's time.
func TestPublishSiteCompressesTextFiles(t *testing.T) {
	ctx := t.Context()
	noise := make([]byte, 4096)
	rand.Read(noise)
	files := map[string][]byte{
		"index.html":              []byte(strings.Repeat("<p>Lectern serves docs.</p>\n", 100)),
		"guide.md":                []byte(strings.Repeat("Install the `acme` CLI.\n", 100)),
		"_lectern/style.css":      []byte(strings.Repeat("body{color:red}\n", 100)),
		"_lectern/search/meta.js": []byte("LECTERN_SEARCH(" + strings.Repeat(`"word",`, 200) + ");\n"),
		"sitemap.xml":             []byte(strings.Repeat("<url><loc>https://docs/x</loc></url>\n", 50)),
		"logo.svg":                []byte("<svg>" + strings.Repeat("<path d='M0 0L10 10'/>", 50) + "</svg>"),
		"llms.txt":                []byte(strings.Repeat("- [Quickstart](/quickstart.md)\n", 50)),
		"small.css":               []byte("a{}"),                                              // too small
		"images/a.png":            append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 4096)...), // not text
		"noise.txt":               noise,                                                      // text that does not shrink
	}
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b := blobtest.Folder(t)
	created := time.Date(2024, 3, 4, 5, 6, 7, 0, time.UTC)
	pub, err := publishSite(ctx, b, dir, "prj_1", "dep_1", created, nil, nil)
	if err != nil || pub.files != len(files) || pub.newFiles != len(files) {
		t.Fatalf("publishSite = %+v, %v; want %d files, all new", pub, err, len(files))
	}
	data, err := b.ReadAll(ctx, precompress.ManifestKey(blobstore.SitePrefix("prj_1", "dep_1")))
	if err != nil {
		t.Fatalf("manifest: %v", err)
	}
	m, err := precompress.ParseManifest(data)
	if err != nil {
		t.Fatal(err)
	}
	if !m.CreatedAt.Equal(created) || len(m.Files) != len(files) || !m.Shared() {
		t.Errorf("manifest: %v, %d files; want %v, %d", m.CreatedAt, len(m.Files), created, len(files))
	}
	projectPrefix := blobstore.ProjectPrefix("prj_1")
	for name, body := range files {
		got, err := b.ReadAll(ctx, precompress.ObjectKey(projectPrefix, m.Files[name].Hash))
		if err != nil || !bytes.Equal(got, body) {
			t.Errorf("%s: stored %d bytes, %v", name, len(got), err)
		}
		f := m.Files[name]
		sum := sha256.Sum256(body)
		if f.Hash != hex.EncodeToString(sum[:])[:32] || f.Size != int64(len(body)) {
			t.Errorf("%s: manifest %+v, want its hash and size %d", name, f, len(body))
		}
		text := !strings.HasPrefix(name, "small") && !strings.HasPrefix(name, "images/") && name != "noise.txt"
		for enc := range precompress.NumEncodings {
			key := precompress.ObjectVariantKey(precompress.ObjectKey(projectPrefix, f.Hash), enc)
			z, err := b.ReadAll(ctx, key)
			if !text {
				if err == nil || f.Variant(enc) != 0 {
					t.Errorf("%s: has a %s copy, want none", name, precompress.Names[enc])
				}
				continue
			}
			if err != nil || f.Variant(enc) != int64(len(z)) || len(z) >= len(body) {
				t.Errorf("%s: %s copy of %d bytes (manifest %d), %v; want one smaller than %d", name, precompress.Names[enc], len(z), f.Variant(enc), err, len(body))
				continue
			}
			var r io.Reader = brotli.NewReader(bytes.NewReader(z))
			if enc == precompress.Gzip {
				if r, err = gzip.NewReader(bytes.NewReader(z)); err != nil {
					t.Fatal(err)
				}
			}
			if plain, err := io.ReadAll(r); err != nil || !bytes.Equal(plain, body) {
				t.Errorf("%s: %s copy decodes to %d bytes, %v; want the file", name, precompress.Names[enc], len(plain), err)
			}
		}
	}
	// Nothing else was written but the files, their copies and the manifest.
	it := b.List(&blob.ListOptions{Prefix: projectPrefix})
	count := 0
	for {
		o, err := it.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		count++
		if !strings.HasPrefix(o.Key, projectPrefix+"objects/") && o.Key != precompress.ManifestKey(blobstore.SitePrefix("prj_1", "dep_1")) {
			t.Errorf("unexpected blob %s", o.Key)
		}
	}
	if want := len(files) + 2*7 + 1; count != want {
		t.Errorf("%d blobs, want %d", count, want)
	}
}
