package cli_test

import (
	"context"
	"io"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"lectern.dev/lectern/cli"
)

// s3URL returns the S3 bucket URL of TEST_S3_URL; it skips without one,
// except in CI, where the S3 server is required.
func s3URL(t *testing.T) string {
	t.Helper()
	u := os.Getenv("TEST_S3_URL")
	if u == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("TEST_S3_URL is not set: CI must run the S3 tests (.ci/run starts versitygw)")
		}
		t.Skip("TEST_S3_URL not set")
	}
	return u
}

// TestServeOnS3 runs serve with its blobs in a real S3 server: the live
// site is served from S3, and the bundle link is the S3 server's own SigV4
// presigned URL, downloaded without Lectern in the path and refused by
// the S3 server once expired.
func TestServeOnS3(t *testing.T) {
	t.Parallel()
	bucketURL := s3URL(t)
	endpoint, _ := url.Parse(bucketURL)
	s3Host, _ := url.Parse(endpoint.Query().Get("endpoint"))
	data := t.TempDir()
	srv := startServe(t, data, "--blob-url", bucketURL, "--bundle-url-ttl", "3s")
	base := srv.url

	org := lastLine(lectern(t, "admin", "--data-dir", data, "org", "create", "--name", "Acme", "--plan", "enterprise"))
	repo, _ := newRepo(t, smallSite("Stored in **S3**."))
	prj := lastLine(lectern(t, "admin", "--data-dir", data, "project", "create", "--org", org, "--name", "Docs",
		"--repo", repo, "--domain", "s3docs.acme.test"))
	key := lastLine(lectern(t, "admin", "--data-dir", data, "key", "create", "--org", org, "--name", "ci"))

	if st := waitUpdate(t, base, key, trigger(t, base, key, prj)); st["status"] != "success" {
		t.Fatalf("update: %v", st)
	}
	if code, body := page(t, base, "s3docs.acme.test", "/quickstart"); code != 200 || !strings.Contains(body, "<strong>S3</strong>") {
		t.Fatalf("live page from S3: %d %.300s", code, body)
	}

	code, job, _ := call(t, "POST", base+"/v1/static-export/jobs", key, map[string]any{"domain": "s3docs.acme.test"})
	if code != 202 {
		t.Fatalf("start export: %d %v", code, job)
	}
	jobID := job["jobId"].(string)
	if final := pollExport(t, base, key, jobID, false); final["status"] != "completed" {
		t.Fatalf("export: %v", final)
	}
	link := bundleLink(t, base, key, jobID)
	u, err := url.Parse(link["bundleUrl"].(string))
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	if u.Host != s3Host.Host || q.Get("X-Amz-Signature") == "" || q.Get("X-Amz-Expires") != "3" ||
		q.Get("X-Amz-Algorithm") != "AWS4-HMAC-SHA256" || !strings.Contains(u.Path, "/exports/"+jobID+"/") {
		t.Fatalf("bundleUrl is not a 3-second SigV4 link to the S3 server %s: %s", s3Host.Host, u.Redacted())
	}
	exp, _ := time.Parse(time.RFC3339, link["expiresAt"].(string))
	if d := time.Until(exp); d <= 0 || d > 4*time.Second {
		t.Errorf("expiresAt %v is not about 3s away", exp)
	}
	m := download(t, link, "s3docs.acme.test-export-")
	if m.JobID != jobID || m.PageCount != 2 {
		t.Fatalf("manifest %+v", m)
	}
	time.Sleep(time.Until(exp) + 1500*time.Millisecond)
	if code := getStatus(t, link["bundleUrl"].(string)); code != 403 {
		t.Fatalf("expired S3 link: %d, want 403 from the S3 server", code)
	}
	// A fresh link to the same archive works again.
	download(t, bundleLink(t, base, key, jobID), "s3docs.acme.test-export-")

	if secret := os.Getenv("AWS_SECRET_ACCESS_KEY"); secret != "" && strings.Contains(srv.logs.String(), secret) {
		t.Fatal("the S3 secret appears in the server log")
	}
}

// TestServeS3WrongCredentials: serve refuses to start, naming the blob
// setting and the credentials, without printing the secret.
func TestServeS3WrongCredentials(t *testing.T) {
	bucketURL := s3URL(t)
	const secret = "not-the-secret-9876543210"
	t.Setenv("AWS_SECRET_ACCESS_KEY", secret)
	var stderr syncBuffer
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := cli.Run(ctx, []string{"serve", "--addr", freeAddr(t), "--data-dir", t.TempDir(), "--blob-url", bucketURL},
		noEnv, strings.NewReader(""), io.Discard, &stderr)
	if err == nil {
		t.Fatal("serve started with wrong S3 credentials")
	}
	msg := err.Error() + stderr.String()
	if !strings.Contains(msg, "refused the credentials") || !strings.Contains(msg, "blob store s3://") {
		t.Errorf("error does not name the problem: %s", msg)
	}
	if strings.Contains(msg, secret) {
		t.Errorf("error repeats the secret: %s", msg)
	}
}
