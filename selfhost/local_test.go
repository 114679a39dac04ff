package selfhost

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"lectern.dev/lectern"
)

// TestLocalBundle: an air-gapped installation names a bundle carried in,
// as a path or a file:// URL; it is verified as a download is (a damaged
// file is refused and the served version stays), and a file replaced at
// the same path is read again when the configuration is re-applied.
func TestLocalBundle(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "docs.tar.gz")
	write := func(v string) {
		t.Helper()
		if err := os.WriteFile(file, makeBundle(t, testSite(v), v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("v1")
	ctx := context.Background()
	for _, link := range []string{file, "file://" + filepath.ToSlash(file), "file://localhost" + filepath.ToSlash(file)} {
		r.handler.Swap(nil)
		r.rt.cfg = nil
		if err := r.rt.Apply(ctx, r.configure(link, "", "")); err != nil {
			t.Fatalf("%s: %v", link, err)
		}
		if v := r.version(); v != "v1" {
			t.Fatalf("%s: serving %q", link, v)
		}
	}

	t.Log("a new bundle carried in at the same path is served once re-applied")
	write("v2")
	later := time.Now().Add(2 * time.Second)
	os.Chtimes(file, later, later) // a stamp apart from v1's on coarse clocks
	if err := r.rt.Apply(ctx, r.configure(file, "", "")); err != nil || r.version() != "v2" {
		t.Fatalf("after replacing the file: %v, serving %q", err, r.version())
	}

	t.Log("a damaged file is refused as a download is; v2 stays")
	data, _ := os.ReadFile(file)
	if err := os.WriteFile(file, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	if err := r.rt.Apply(ctx, r.configure(file, "", "")); err == nil || r.version() != "v2" {
		t.Fatalf("a truncated bundle: %v, serving %q", err, r.version())
	}

	t.Log("a missing file says so; with no cache to fall back on, it is an error")
	r2 := newRig(t)
	err := r2.rt.Apply(ctx, r2.configure(filepath.Join(dir, "nope.tar.gz"), "", ""))
	if lectern.ErrorCode(err) != lectern.EUNAVAILABLE || !strings.Contains(err.Error(), "there is no such file") {
		t.Fatalf("missing file: %v", err)
	}
	if err := r2.rt.Apply(ctx, r2.configure(dir, "", "")); err == nil || !strings.Contains(err.Error(), "not a file") {
		t.Fatalf("a folder: %v", err)
	}
}
