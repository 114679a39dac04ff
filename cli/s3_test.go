package cli_test

import (
	"context"
	"io"
	"io/fs"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"lectern.dev/lectern/blobstore/blobtest"
	"lectern.dev/lectern/cli"
)

// s3URL returns the S3 bucket URL of the tests (blobtest.S3URL).
func s3URL(t *testing.T) string { t.Helper(); return blobtest.S3URL(t) }

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
	// Served through the disk cache of live sites: the page is kept in
	// DATA_DIR/site-cache, a folder only the server can read.
	cached := 0
	filepath.WalkDir(filepath.Join(data, "site-cache"), func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			cached++
		}
		return nil
	})
	if info, err := os.Stat(filepath.Join(data, "site-cache")); err != nil || info.Mode().Perm() != 0o700 || cached == 0 {
		t.Errorf("site-cache: %v, %d files; want a 0700 folder holding the page read from S3", info, cached)
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

// versitygw is a private S3 server for one test, which the test can stop
// and start again on the same port and folder.
type versitygw struct {
	bin, root, addr, access, secret string
	cmd                             *exec.Cmd
}

func startVersitygw(t *testing.T) *versitygw {
	t.Helper()
	bin, err := exec.LookPath("versitygw")
	if err != nil {
		if gopath, gerr := exec.Command("go", "env", "GOPATH").Output(); gerr == nil {
			bin = filepath.Join(strings.TrimSpace(string(gopath)), "bin", "versitygw")
		}
	}
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("versitygw is required in CI: %v", err)
		}
		t.Skip("versitygw not installed (go install github.com/versity/versitygw/cmd/versitygw@v1.8.0)")
	}
	g := &versitygw{bin: bin, root: t.TempDir(), addr: freeAddr(t), access: "lectern-test", secret: "private-secret-0123456789"}
	if err := os.Mkdir(filepath.Join(g.root, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	g.start(t)
	t.Cleanup(g.stop)
	return g
}

func (g *versitygw) url() string {
	return "s3://docs?endpoint=http://" + g.addr + "&region=us-east-1&use_path_style=true"
}

func (g *versitygw) start(t *testing.T) {
	t.Helper()
	g.cmd = exec.Command(g.bin, "--port", g.addr, "--access", g.access, "--secret", g.secret, "--quiet", "posix", g.root)
	if err := g.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.Dial("tcp", g.addr); err == nil {
			c.Close()
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("versitygw did not start")
}

func (g *versitygw) stop() {
	if g.cmd != nil && g.cmd.Process != nil {
		_ = g.cmd.Process.Kill()
		_ = g.cmd.Wait()
		g.cmd = nil
	}
}

// TestExportWhileS3Down: the S3 server goes away while an export runs. The
// job is retried with backoff and then fails with a clear, coded error,
// not an internal one; once the S3 server is back, an export completes.
func TestExportWhileS3Down(t *testing.T) {
	g := startVersitygw(t)
	t.Setenv("AWS_ACCESS_KEY_ID", g.access)
	t.Setenv("AWS_SECRET_ACCESS_KEY", g.secret)
	data := t.TempDir()
	srv := startServe(t, data, "--blob-url", g.url(), "--render-page-delay", "400ms")
	base := srv.url
	org := lastLine(lectern(t, "admin", "--data-dir", data, "org", "create", "--name", "Acme", "--plan", "enterprise"))
	repo, _ := newRepo(t, smallSite("Fragile storage."))
	prj := lastLine(lectern(t, "admin", "--data-dir", data, "project", "create", "--org", org, "--name", "Docs",
		"--repo", repo, "--domain", "down.acme.test"))
	key := lastLine(lectern(t, "admin", "--data-dir", data, "key", "create", "--org", org, "--name", "ci"))
	if st := waitUpdate(t, base, key, trigger(t, base, key, prj)); st["status"] != "success" {
		t.Fatalf("update: %v", st)
	}

	code, job, _ := call(t, "POST", base+"/v1/static-export/jobs", key, map[string]any{"domain": "down.acme.test"})
	if code != 202 {
		t.Fatalf("start export: %d %v", code, job)
	}
	jobID := job["jobId"].(string)
	// Stop the S3 server once rendering has started: the bundle upload
	// fails, and so do the retries.
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, j, _ := call(t, "GET", base+"/v1/static-export/jobs/"+jobID, key, nil)
		if j["status"] == "running" && j["progress"].(float64) > 0 {
			break
		}
		if time.Now().After(deadline) || j["status"] == "completed" || j["status"] == "failed" {
			t.Fatalf("export never seen rendering: %v", j)
		}
		time.Sleep(20 * time.Millisecond)
	}
	g.stop()
	final := pollExport(t, base, key, jobID, false)
	jerr, _ := final["error"].(map[string]any)
	if final["status"] != "failed" || jerr["code"] != "unavailable" || !strings.Contains(jerr["message"].(string), "object store could not be reached") {
		t.Fatalf("export with S3 down: %v", final)
	}
	if !strings.Contains(srv.logs.String(), "retrying") {
		t.Error("the export was not retried")
	}

	g.start(t)
	code, job, _ = call(t, "POST", base+"/v1/static-export/jobs", key, map[string]any{"domain": "down.acme.test"})
	if code != 202 {
		t.Fatalf("start export after recovery: %d %v", code, job)
	}
	if final := pollExport(t, base, key, job["jobId"].(string), false); final["status"] != "completed" {
		t.Fatalf("export after the S3 server came back: %v", final)
	}
	if strings.Contains(srv.logs.String(), g.secret) {
		t.Fatal("the S3 secret appears in the server log")
	}
}
