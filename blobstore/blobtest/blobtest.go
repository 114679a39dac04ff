// Package blobtest is the conformance suite of Lectern's blob stores: the
// behaviour the jobs, the live sites and the download links rely on, run
// against every kind of bucket (a local folder with LocalLinks, an S3
// server with BucketLinks).
package blobtest

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"

	"lectern.dev/lectern/blobstore"
)

// EnvURL is the environment variable naming the S3 bucket of the tests
// (credentials from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY).
const EnvURL = "TEST_S3_URL"

// Folder opens a bucket in a new folder of t's, closed when t ends: for
// tests of what stores blobs, not of the stores.
func Folder(t testing.TB) *blob.Bucket {
	t.Helper()
	u, err := blobstore.FileURL(t.TempDir())
	if err != nil {
		t.Fatalf("blobstore.FileURL: %v", err)
	}
	b, err := blobstore.Open(t.Context(), u)
	if err != nil {
		t.Fatalf("blobstore.Open: %v", err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// S3URL returns TEST_S3_URL, skipping the test when it is unset outside CI
// and failing it in CI, where .ci/run starts an S3 server (versitygw).
func S3URL(t testing.TB) string {
	t.Helper()
	u := os.Getenv(EnvURL)
	if u == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set: CI must run the S3 tests (.ci/run starts versitygw)", EnvURL)
		}
		// go test ./... shows nothing of a passing package, so this reaches
		// -v runs only: README.md's test line says it too.
		t.Skipf("%s is not set: skipping the S3 tests. To run them, start an S3 server and name a bucket of it, "+
			"e.g. s3://lectern-test?endpoint=http://127.0.0.1:7070&region=us-east-1&use_path_style=true "+
			"(CONTRIBUTING.md shows versitygw; bash .ci/run starts it and runs every test)", EnvURL)
	}
	return u
}

// Harness opens a fresh, empty bucket for one test (a new folder, or a
// new prefix of a shared S3 bucket) and the Linker that signs links to its
// blobs. Links must be downloadable with a plain HTTP GET from the test.
type Harness func(t *testing.T) (*blob.Bucket, blobstore.Linker)

// Run runs the suite.
func Run(t *testing.T, open Harness) {
	t.Run("ReadWriteList", func(t *testing.T) { t.Parallel(); testReadWriteList(t, open) })
	t.Run("SiteKeys", func(t *testing.T) { t.Parallel(); testSiteKeys(t, open) })
	t.Run("Overwrite", func(t *testing.T) { t.Parallel(); testOverwrite(t, open) })
	t.Run("LargeStream", func(t *testing.T) { t.Parallel(); testLargeStream(t, open) })
	t.Run("DeletePrefix", func(t *testing.T) { t.Parallel(); testDeletePrefix(t, open) })
	t.Run("MissingIsNotFound", func(t *testing.T) { t.Parallel(); testMissing(t, open) })
	t.Run("SignedLink", func(t *testing.T) { t.Parallel(); testSignedLink(t, open) })
	t.Run("SignedLinkTampered", func(t *testing.T) { t.Parallel(); testSignedLinkTampered(t, open) })
	t.Run("SignedLinkExpires", func(t *testing.T) { t.Parallel(); testSignedLinkExpires(t, open) })
}

func keys(t *testing.T, b *blob.Bucket, prefix string) []string {
	t.Helper()
	var out []string
	it := b.List(&blob.ListOptions{Prefix: prefix})
	for {
		obj, err := it.Next(t.Context())
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("List(%q): %v", prefix, err)
		}
		out = append(out, obj.Key)
	}
	slices.Sort(out)
	return out
}

func testReadWriteList(t *testing.T, open Harness) {
	b, _ := open(t)
	ctx := t.Context()
	files := map[string]string{
		"exports/exp_1/site.tar.gz": "archive",
		"exports/exp_1/other":       "x",
		"exports/exp_2/site.tar.gz": "second",
		"top":                       "t",
	}
	for k, v := range files {
		if err := b.WriteAll(ctx, k, []byte(v), &blob.WriterOptions{ContentType: blobstore.ContentType(k)}); err != nil {
			t.Fatalf("WriteAll(%s): %v", k, err)
		}
	}
	for k, v := range files {
		got, err := b.ReadAll(ctx, k)
		if err != nil || string(got) != v {
			t.Errorf("ReadAll(%s) = %q, %v; want %q", k, got, err, v)
		}
	}
	if got, want := keys(t, b, "exports/exp_1/"), []string{"exports/exp_1/other", "exports/exp_1/site.tar.gz"}; !slices.Equal(got, want) {
		t.Errorf("List(exports/exp_1/) = %v, want %v", got, want)
	}
	attrs, err := b.Attributes(ctx, "exports/exp_1/site.tar.gz")
	if err != nil || attrs.Size != int64(len("archive")) {
		t.Errorf("Attributes = %+v, %v", attrs, err)
	}
}

// Every name a docs site may hold becomes a key that round-trips.
func testSiteKeys(t *testing.T, open Harness) {
	b, _ := open(t)
	ctx := t.Context()
	names := []string{"index.html", "guides/a b.html", "img/ünï©ødé.png", "x/settings.attrs", "50%/#hash?.html", "_lectern/site.js"}
	for _, n := range names {
		k := blobstore.SiteKey("prj_1", "dep_1", n)
		if err := b.WriteAll(ctx, k, []byte(n), nil); err != nil {
			t.Fatalf("WriteAll(%q): %v", k, err)
		}
	}
	for _, n := range names {
		got, err := b.ReadAll(ctx, blobstore.SiteKey("prj_1", "dep_1", n))
		if err != nil || string(got) != n {
			t.Errorf("site file %q read back as %q, %v", n, got, err)
		}
	}
	if got := keys(t, b, blobstore.SitePrefix("prj_1", "dep_1")); len(got) != len(names) {
		t.Errorf("site prefix lists %d keys, want %d: %v", len(got), len(names), got)
	}
}

// A reader sees the old or the new content of an overwritten blob, never
// a mix or a partial write.
func testOverwrite(t *testing.T, open Harness) {
	b, _ := open(t)
	ctx := t.Context()
	old, next := bytes.Repeat([]byte("a"), 256<<10), bytes.Repeat([]byte("b"), 256<<10)
	if err := b.WriteAll(ctx, "k", old, nil); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := b.WriteAll(ctx, "k", next, nil); err != nil {
			t.Errorf("overwrite: %v", err)
		}
	}()
	var failed string
	for i := 0; i < 20 && failed == ""; i++ {
		got, err := b.ReadAll(ctx, "k")
		switch {
		case err != nil:
			failed = fmt.Sprintf("ReadAll during overwrite: %v", err)
		case !bytes.Equal(got, old) && !bytes.Equal(got, next):
			failed = fmt.Sprintf("read %d bytes that are neither the old nor the new content", len(got))
		}
	}
	wg.Wait() // before failing: the writer reports into t too
	if failed != "" {
		t.Fatal(failed)
	}
	if got, _ := b.ReadAll(ctx, "k"); !bytes.Equal(got, next) {
		t.Error("the overwrite did not take")
	}
}

// A blob larger than one upload part streams in and out intact.
func testLargeStream(t *testing.T, open Harness) {
	b, _ := open(t)
	ctx := t.Context()
	data := make([]byte, 12<<20+12345)
	_, _ = rand.Read(data)
	w, err := b.NewWriter(ctx, "big.bin", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(w, bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	r, err := b.NewReader(ctx, "big.bin", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, err := io.ReadAll(r)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("read back %d bytes (%v), want the %d written", len(got), err, len(data))
	}
}

func testDeletePrefix(t *testing.T, open Harness) {
	b, _ := open(t)
	ctx := t.Context()
	for _, k := range []string{"exports/exp_1/a", "exports/exp_1/b/c", "exports/exp_10/a", "sites/x"} {
		if err := b.WriteAll(ctx, k, []byte("x"), nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := blobstore.DeletePrefix(ctx, b, blobstore.ExportPrefix("exp_1")); err != nil {
		t.Fatalf("DeletePrefix: %v", err)
	}
	if got, want := keys(t, b, ""), []string{"exports/exp_10/a", "sites/x"}; !slices.Equal(got, want) {
		t.Errorf("after DeletePrefix: %v, want %v", got, want)
	}
	// Deleting what is already gone is not an error.
	if err := blobstore.DeletePrefix(ctx, b, blobstore.ExportPrefix("exp_1")); err != nil {
		t.Errorf("DeletePrefix again: %v", err)
	}
}

func testMissing(t *testing.T, open Harness) {
	b, _ := open(t)
	_, err := b.ReadAll(t.Context(), "no/such/blob")
	if gcerrors.Code(err) != gcerrors.NotFound {
		t.Errorf("ReadAll(missing) error code = %v (%v), want NotFound", gcerrors.Code(err), err)
	}
}

func get(t *testing.T, link string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, link, nil)
	if err != nil {
		t.Fatalf("link %q: %v", link, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET link: %v", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, body
}

const bundleKey = "exports/exp_1/docs.acme.test-export-2026-11-23.tar.gz"

// A signed link downloads the blob with no credentials, states when it
// expires, and each call gives a fresh link.
func testSignedLink(t *testing.T, open Harness) {
	b, links := open(t)
	ctx := t.Context()
	data := bytes.Repeat([]byte("bundle"), 1000)
	if err := b.WriteAll(ctx, bundleKey, data, nil); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	link, exp, err := links.SignedURL(ctx, bundleKey, time.Hour)
	if err != nil {
		t.Fatalf("SignedURL: %v", err)
	}
	if exp.Before(start.Add(time.Hour-2*time.Second)) || exp.After(start.Add(time.Hour+2*time.Second)) {
		t.Errorf("expiry %v is not an hour after %v", exp, start)
	}
	if exp.Location() != time.UTC {
		t.Errorf("expiry %v is not in UTC", exp)
	}
	status, body := get(t, link)
	if status != http.StatusOK || !bytes.Equal(body, data) {
		t.Fatalf("GET link = %d with %d bytes, want 200 with the %d stored", status, len(body), len(data))
	}
	time.Sleep(1100 * time.Millisecond)
	link2, _, err := links.SignedURL(ctx, bundleKey, time.Hour)
	if err != nil || link2 == link {
		t.Errorf("second link %q (%v) is not fresh", link2, err)
	}
	if status, _ := get(t, link2); status != http.StatusOK {
		t.Errorf("second link: %d", status)
	}
}

// A link whose key or signature is altered is refused.
func testSignedLinkTampered(t *testing.T, open Harness) {
	b, links := open(t)
	ctx := t.Context()
	other := "exports/exp_2/secret.tar.gz"
	for _, k := range []string{bundleKey, other} {
		if err := b.WriteAll(ctx, k, []byte(k), nil); err != nil {
			t.Fatal(err)
		}
	}
	link, _, err := links.SignedURL(ctx, bundleKey, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	// Another key under the same signature.
	moved := *u
	moved.Path = strings.Replace(u.Path, "exp_1", "exp_2", 1)
	moved.RawPath = ""
	// The signature changed.
	q := u.Query()
	for name, vals := range q {
		if strings.Contains(strings.ToLower(name), "signature") {
			v := []byte(vals[0])
			v[len(v)-1] ^= 1
			if v[len(v)-1] == '=' || v[len(v)-1] == '&' {
				v[len(v)-1] = 'A'
			}
			q.Set(name, string(v))
		}
	}
	resigned := *u
	resigned.RawQuery = q.Encode()
	for name, bad := range map[string]string{"other key": moved.String(), "altered signature": resigned.String()} {
		status, body := get(t, bad)
		if status != http.StatusForbidden {
			t.Errorf("%s: GET = %d (%s), want 403", name, status, firstLine(body))
		}
		if bytes.Contains(body, []byte(other)) {
			t.Errorf("%s: the other blob's content was served", name)
		}
	}
}

// Once expired, a link is refused by whoever serves it.
func testSignedLinkExpires(t *testing.T, open Harness) {
	b, links := open(t)
	ctx := t.Context()
	if err := b.WriteAll(ctx, bundleKey, []byte("soon gone"), nil); err != nil {
		t.Fatal(err)
	}
	link, exp, err := links.SignedURL(ctx, bundleKey, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if status, _ := get(t, link); status != http.StatusOK {
		t.Fatalf("fresh one-second link: %d", status)
	}
	wait := time.Until(exp) + 1500*time.Millisecond
	select {
	case <-time.After(wait):
	case <-ctx.Done():
		t.Fatal(ctx.Err())
	}
	if status, body := get(t, link); status != http.StatusForbidden {
		t.Errorf("GET after expiry = %d (%s), want 403", status, firstLine(body))
	}
}

func firstLine(b []byte) string {
	s := string(b)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}
