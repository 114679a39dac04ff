package blobstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gocloud.dev/blob"
)

func openTemp(t testing.TB) *blob.Bucket {
	t.Helper()
	u, err := FileURL(t.TempDir())
	if err != nil {
		t.Fatalf("FileURL: %v", err)
	}
	b, err := Open(context.Background(), u)
	if err != nil {
		t.Fatalf("Open(%s): %v", u, err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

func listKeys(t *testing.T, b *blob.Bucket) []string {
	t.Helper()
	var keys []string
	it := b.List(nil)
	for {
		obj, err := it.Next(t.Context())
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("List: %v", err)
		}
		keys = append(keys, obj.Key)
	}
	slices.Sort(keys)
	return keys
}

func TestOpenFileCreatesFolder(t *testing.T) {
	t.Parallel()
	// Characters that must be escaped in a URL survive FileURL and Open.
	dir := filepath.Join(t.TempDir(), "a b", "50%", "c#d", "e")
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("folder exists before Open: %v", err)
	}
	u, err := FileURL(dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Open(t.Context(), u)
	if err != nil {
		t.Fatalf("Open(%s): %v", u, err)
	}
	defer b.Close()
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Fatalf("Open did not create %s: %v", dir, err)
	}
	if err := b.WriteAll(t.Context(), "exports/exp_1/x.txt", []byte("hello"), nil); err != nil {
		t.Fatalf("WriteAll: %v", err)
	}
	// The blob lands inside the folder that was asked for.
	got, err := os.ReadFile(filepath.Join(dir, "exports", "exp_1", "x.txt"))
	if err != nil || string(got) != "hello" {
		t.Errorf("blob file = %q, %v; want hello in %s", got, err, dir)
	}
	if data, err := b.ReadAll(t.Context(), "exports/exp_1/x.txt"); err != nil || string(data) != "hello" {
		t.Errorf("ReadAll = %q, %v", data, err)
	}
	// Opening again (the folder now exists) works and sees the blob.
	b2, err := Open(t.Context(), u)
	if err != nil {
		t.Fatalf("second Open: %v", err)
	}
	defer b2.Close()
	if ok, err := b2.Exists(t.Context(), "exports/exp_1/x.txt"); !ok || err != nil {
		t.Errorf("second Open: Exists = %v, %v", ok, err)
	}
}

func TestOpenFileOverAFileFails(t *testing.T) {
	t.Parallel()
	f := filepath.Join(t.TempDir(), "plain-file")
	if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	u, _ := FileURL(filepath.Join(f, "sub"))
	if b, err := Open(t.Context(), u); err == nil {
		b.Close()
		t.Errorf("Open under a regular file succeeded")
	}
}

func TestOpenErrorHasNoCredentials(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{
		"s3://AKIDUSER:pw-s3cr3t-1@bucket.example.com/b?secret=qs-s3cr3t-2&region=us-east-1",
		"nosuchscheme://bucket?access_key=qs-s3cr3t-3&token=qs-s3cr3t-4",
		// An unparseable URL: its credentials must not be echoed either.
		"s3://AKIDUSER:pw-s3cr3t-5@bucket/%zz?secret=qs-s3cr3t-6",
	} {
		_, err := Open(t.Context(), raw)
		if err == nil {
			t.Errorf("Open(%q) succeeded", raw)
			continue
		}
		if strings.Contains(err.Error(), "s3cr3t") {
			t.Errorf("Open error leaks credentials: %v", err)
		}
	}
}

func TestRedact(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in           string
		hidden, kept []string
	}{
		{"s3://AKIDUSER:pw-s3cr3t@bucket/prefix?region=eu-west-1&endpoint=minio.local",
			[]string{"pw-s3cr3t", "AKIDUSER"}, []string{"s3://", "bucket", "region=eu-west-1", "endpoint=minio.local"}},
		{"s3://onlyuser@bucket", []string{"onlyuser"}, []string{"bucket"}},
		{"s3://bucket?secret=a-s3cr3t&Secret_Access_Key=b-s3cr3t&SESSION_TOKEN=c-s3cr3t&password=d-s3cr3t&accessKey=e-s3cr3t&region=x1",
			[]string{"a-s3cr3t", "b-s3cr3t", "c-s3cr3t", "d-s3cr3t", "e-s3cr3t"}, []string{"region=x1", "bucket"}},
		{"file:///var/lib/lectern/blobs?secret_key_path=/etc/k-s3cr3t", []string{"k-s3cr3t"}, []string{"/var/lib/lectern/blobs"}},
		{"file:///var/lib/lectern/blobs", nil, []string{"file:///var/lib/lectern/blobs"}},
	} {
		got := Redact(tc.in)
		for _, h := range tc.hidden {
			if strings.Contains(got, h) {
				t.Errorf("Redact(%q) = %q, still shows %q", tc.in, got, h)
			}
		}
		for _, k := range tc.kept {
			if !strings.Contains(got, k) {
				t.Errorf("Redact(%q) = %q, lost %q", tc.in, got, k)
			}
		}
		if u, err := url.Parse(got); err != nil || u.Scheme == "" {
			t.Errorf("Redact(%q) = %q is not a URL: %v", tc.in, got, err)
		}
	}
	if got := Redact("s3://us er:pw-s3cr3t@bucket/%zz"); strings.Contains(got, "s3cr3t") {
		t.Errorf("Redact of an unparseable URL = %q, shows the password", got)
	}
}

func TestFileURL(t *testing.T) {
	t.Parallel()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"data/blobs", "./x", "../y/z", "."} {
		got, err := FileURL(rel)
		if err != nil {
			t.Fatalf("FileURL(%q): %v", rel, err)
		}
		u, err := url.Parse(got)
		if err != nil || u.Scheme != "file" || u.Host != "" {
			t.Fatalf("FileURL(%q) = %q: not a file URL (%v)", rel, got, err)
		}
		want := filepath.ToSlash(filepath.Join(wd, rel))
		if !filepath.IsAbs(filepath.FromSlash(u.Path)) || u.Path != want {
			t.Errorf("FileURL(%q) path = %q, want absolute %q", rel, u.Path, want)
		}
	}
	got, _ := FileURL("/srv/blobs")
	if got != "file:///srv/blobs" {
		t.Errorf("FileURL(/srv/blobs) = %q", got)
	}
}

func TestContentType(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{
		"index.html":           "text/html; charset=utf-8",
		"a/b/PAGE.HTML":        "text/html; charset=utf-8",
		"old.htm":              "text/html; charset=utf-8",
		"_lectern/style.css":   "text/css; charset=utf-8",
		"app.js":               "text/javascript; charset=utf-8",
		"mod.mjs":              "text/javascript; charset=utf-8",
		"search.json":          "application/json",
		"logo.svg":             "image/svg+xml",
		"images/a.png":         "image/png",
		"images/B.PNG":         "image/png",
		"fonts/inter.woff2":    "font/woff2",
		"feed.xml":             "application/xml",
		"robots.txt":           "text/plain; charset=utf-8",
		"bundle.tar.gz":        "application/gzip",
		"bundle.tgz":           "application/gzip",
		"pic.webp":             "image/webp",
		"data.zzzunknown":      "application/octet-stream",
		"Makefile":             "application/octet-stream",
		"dir.with.dots/noext":  "application/octet-stream",
		"exports/exp_1/x.json": "application/json",
	} {
		if got := ContentType(name); got != want {
			t.Errorf("ContentType(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestKeys(t *testing.T) {
	t.Parallel()
	if got, want := SiteKey("prj_1", "dep_2", "guides/x.html"), "sites/prj_1/dep_2/site/guides/x.html"; got != want {
		t.Errorf("SiteKey = %q, want %q", got, want)
	}
	if got := SiteKey("prj_1", "dep_2", "a"); !strings.HasPrefix(got, SitePrefix("prj_1", "dep_2")) {
		t.Errorf("SiteKey %q is not under SitePrefix", got)
	}
	if got, want := SourceKey("prj_1", "dep_2"), "sites/prj_1/dep_2/source.tar.gz"; got != want {
		t.Errorf("SourceKey = %q, want %q", got, want)
	}
	if got, want := BundleKey("exp_1", 3, "docs.tar.gz"), "exports/exp_1/3/docs.tar.gz"; got != want {
		t.Errorf("BundleKey = %q, want %q", got, want)
	}
	if !strings.HasPrefix(BundleKey("exp_1", 1, "f"), ExportPrefix("exp_1")) || strings.HasPrefix(BundleKey("exp_10", 1, "f"), ExportPrefix("exp_1")) {
		t.Errorf("ExportPrefix does not separate exp_1 from exp_10")
	}
}

func TestDeletePrefix(t *testing.T) {
	t.Parallel()
	b := openTemp(t)
	ctx := t.Context()
	doomed := []string{"exports/exp_1/bundle.tar.gz", "exports/exp_1/sub/deep/x.bin", "exports/exp_1/a b.txt"}
	kept := []string{"exports/exp_10/bundle.tar.gz", "exports/exp_1x/y", "exports/exp_1.tar.gz", "exports/exp_0/z", "sites/exp_1/q", "exports_exp_1/w"}
	for _, k := range append(slices.Clone(doomed), kept...) {
		if err := b.WriteAll(ctx, k, []byte(k), nil); err != nil {
			t.Fatalf("WriteAll %s: %v", k, err)
		}
	}
	if err := DeletePrefix(ctx, b, ExportPrefix("exp_1")); err != nil {
		t.Fatalf("DeletePrefix: %v", err)
	}
	want := slices.Clone(kept)
	slices.Sort(want)
	if got := listKeys(t, b); !slices.Equal(got, want) {
		t.Errorf("after DeletePrefix keys = %q, want %q", got, want)
	}
	// Nothing left under the prefix: a second call is a no-op.
	if err := DeletePrefix(ctx, b, ExportPrefix("exp_1")); err != nil {
		t.Errorf("second DeletePrefix: %v", err)
	}
	if got := listKeys(t, b); !slices.Equal(got, want) {
		t.Errorf("after second DeletePrefix keys = %q, want %q", got, want)
	}
}

// More blobs than one List page (1000 for file buckets): deleting while
// listing must not skip any.
func TestDeletePrefixManyPages(t *testing.T) {
	t.Parallel()
	b := openTemp(t)
	ctx := t.Context()
	const n = 1203
	for i := range n {
		if err := b.WriteAll(ctx, fmt.Sprintf("sites/prj_1/dep_1/site/p%04d.html", i), []byte("x"), nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.WriteAll(ctx, "sites/prj_1/dep_10/site/index.html", []byte("keep"), nil); err != nil {
		t.Fatal(err)
	}
	if err := DeletePrefix(ctx, b, SitePrefix("prj_1", "dep_1")); err != nil {
		t.Fatalf("DeletePrefix: %v", err)
	}
	if got := listKeys(t, b); !slices.Equal(got, []string{"sites/prj_1/dep_10/site/index.html"}) {
		t.Errorf("after DeletePrefix %d keys remain (first %q), want only dep_10's", len(got), got[:min(len(got), 3)])
	}
}
