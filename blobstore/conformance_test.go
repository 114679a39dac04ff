package blobstore_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"gocloud.dev/blob"

	"lectern.dev/lectern/blobstore"
	"lectern.dev/lectern/blobstore/blobtest"
)

// The local folder with Lectern's own signed links, served by a real
// HTTP server on loopback.
func TestConformanceFile(t *testing.T) {
	t.Parallel()
	blobtest.Run(t, func(t *testing.T) (*blob.Bucket, blobstore.Linker) {
		u, err := blobstore.FileURL(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		b, err := blobstore.Open(t.Context(), u)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { b.Close() })
		key := make([]byte, 32)
		_, _ = rand.Read(key)
		links := &blobstore.LocalLinks{Bucket: b, Key: key}
		srv := httptest.NewServer(links)
		t.Cleanup(srv.Close)
		links.PublicURL = srv.URL
		return b, links
	})
}

// s3Bucket opens the S3 bucket of TEST_S3_URL (credentials from
// AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY) under a fresh prefix. It
// skips when the variable is unset, except in CI, where the S3 server is
// required.
func s3Bucket(t *testing.T) *blob.Bucket {
	t.Helper()
	u := blobtest.S3URL(t)
	b, err := blobstore.Open(context.Background(), u)
	if err != nil {
		t.Fatalf("open %s: %v", blobstore.Redact(u), err)
	}
	var p [6]byte
	_, _ = rand.Read(p[:])
	prefix := "test-" + hex.EncodeToString(p[:]) + "/"
	pb := blob.PrefixedBucket(b, prefix)
	t.Cleanup(func() {
		_ = blobstore.DeletePrefix(context.Background(), pb, "")
		pb.Close()
	})
	return pb
}

// A real S3 server (versitygw in CI) with presigned SigV4 links, which the
// server itself checks for expiry and tampering.
func TestConformanceS3(t *testing.T) {
	t.Parallel()
	blobtest.Run(t, func(t *testing.T) (*blob.Bucket, blobstore.Linker) {
		b := s3Bucket(t)
		return b, &blobstore.BucketLinks{Bucket: b}
	})
}

// Opening an S3 bucket with wrong credentials fails at once with a message
// that names the problem and holds neither secret.
func TestOpenS3WrongCredentials(t *testing.T) {
	u := os.Getenv("TEST_S3_URL")
	s3Bucket(t) // skips or fails as the other S3 tests do
	const secret = "wrong-secret-0123456789abcdefghij"
	realKey := os.Getenv("AWS_ACCESS_KEY_ID")
	for name, keyID := range map[string]string{"unknown key": "LECTERNWRONGKEY", "wrong secret": realKey} {
		t.Setenv("AWS_ACCESS_KEY_ID", keyID)
		t.Setenv("AWS_SECRET_ACCESS_KEY", secret)
		_, err := blobstore.Open(context.Background(), u)
		if err == nil {
			t.Fatalf("%s: Open succeeded", name)
		}
		msg := err.Error()
		if !strings.Contains(msg, "refused the credentials") || !strings.Contains(msg, "AWS_SECRET_ACCESS_KEY") {
			t.Errorf("%s: error does not explain the credentials problem: %s", name, msg)
		}
		if strings.Contains(msg, secret) {
			t.Errorf("%s: error repeats the secret: %s", name, msg)
		}
	}
}

// A bucket that does not exist and an endpoint where nothing listens are
// startup errors that say so.
func TestOpenS3Misconfigured(t *testing.T) {
	u := os.Getenv("TEST_S3_URL")
	s3Bucket(t)
	noBucket := strings.Replace(u, "s3://", "s3://no-such-bucket-", 1)
	if _, err := blobstore.Open(context.Background(), noBucket); err == nil || !strings.Contains(err.Error(), "bucket does not exist") {
		t.Errorf("missing bucket: %v", err)
	}
	l, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := l.Addr().String()
	l.Close()
	i := strings.Index(u, "endpoint=")
	j := strings.IndexByte(u[i:], '&')
	if j < 0 {
		j = len(u) - i
	}
	noServer := u[:i] + "endpoint=http://" + dead + u[i+j:]
	if _, err := blobstore.Open(context.Background(), noServer); err == nil || !strings.Contains(err.Error(), "could not be reached") {
		t.Errorf("endpoint with no server: %v", err)
	}
}

// Processes that start at once on one bucket all open it: each start-up
// probe writes and deletes an object of its own.
func TestOpenS3Concurrently(t *testing.T) {
	t.Parallel()
	u := os.Getenv("TEST_S3_URL")
	s3Bucket(t) // skips or fails as the other S3 tests do
	errs := make(chan error, 8)
	for range cap(errs) {
		go func() {
			b, err := blobstore.Open(context.Background(), u)
			if err == nil {
				b.Close()
			}
			errs <- err
		}()
	}
	for range cap(errs) {
		if err := <-errs; err != nil {
			t.Errorf("open while others open: %v", err)
		}
	}
}
