package client_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"lectern.dev/lectern/client"
)

// newClient returns a client of the test server with fast retries.
func newClient(t *testing.T, base, key string, opts ...client.Option) *client.Client {
	t.Helper()
	opts = append([]client.Option{client.WithBackoff(10*time.Millisecond, 50*time.Millisecond),
		client.WithPollInterval(200 * time.Millisecond)}, opts...)
	c, err := client.New(base, key, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestUpdateSucceeds(t *testing.T) {
	t.Parallel()
	f := startServer(t)
	tn := f.tenant(t, "pro", f.good, false, "ok")
	c := newClient(t, f.url, tn.key)
	ctx := testContext(t)
	acc, err := c.TriggerUpdate(ctx, tn.project)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(acc.StatusID, "upd_") {
		t.Fatalf("statusId %q", acc.StatusID)
	}
	var streamed []string
	var states []client.UpdateState
	st, err := c.WaitUpdate(ctx, acc.StatusID, func(st *client.UpdateStatus, fresh []string) {
		streamed = append(streamed, fresh...)
		states = append(states, st.Status)
	})
	if err != nil {
		t.Fatal(err)
	}
	if st.Status != client.UpdateSuccess || st.StatusID != acc.StatusID || st.ProjectID != tn.project || st.Source != "api" {
		t.Fatalf("final status %+v", st)
	}
	if st.Commit == nil || st.Commit.SHA != f.sha || st.Commit.Ref != "refs/heads/main" || st.Commit.Message != "Initial docs" {
		t.Fatalf("commit %+v, want %s on refs/heads/main", st.Commit, f.sha)
	}
	if st.CreatedAt.IsZero() || st.StartedAt == nil || st.EndedAt == nil || st.EndedAt.Before(*st.StartedAt) ||
		st.StartedAt.Before(st.CreatedAt) || st.CreatedAt.Location() != time.UTC {
		t.Fatalf("times: created %v started %v ended %v", st.CreatedAt, st.StartedAt, st.EndedAt)
	}
	if !strings.Contains(st.Summary, "Deployed 2 pages") {
		t.Fatalf("summary %q", st.Summary)
	}
	// Every log line reached the callback once, in order.
	if len(st.Logs) == 0 || strings.Join(streamed, "\n") != strings.Join(st.Logs, "\n") {
		t.Fatalf("streamed log lines\n%q\nbut the status holds\n%q", streamed, st.Logs)
	}
	if states[len(states)-1] != client.UpdateSuccess {
		t.Fatalf("states seen %v", states)
	}
	// UpdateStatus reads the same record.
	again, err := c.UpdateStatus(ctx, acc.StatusID)
	if err != nil || again.Status != client.UpdateSuccess || !again.EndedAt.Equal(*st.EndedAt) {
		t.Fatalf("UpdateStatus: %+v, %v", again, err)
	}
}

func TestUpdateFailsWithSummary(t *testing.T) {
	t.Parallel()
	f := startServer(t)
	tn := f.tenant(t, "free", f.broken, false, "broken")
	c := newClient(t, f.url, tn.key)
	ctx := testContext(t)
	acc, err := c.TriggerUpdate(ctx, tn.project)
	if err != nil {
		t.Fatal(err)
	}
	st, err := c.WaitUpdate(ctx, acc.StatusID, nil)
	if err != nil {
		t.Fatalf("a failed update is a status, not an error: %v", err)
	}
	if st.Status != client.UpdateFailure || !strings.Contains(st.Summary, "docs.json") || st.EndedAt == nil {
		t.Fatalf("final status %+v", st)
	}
}

func TestWaitEndsWithContext(t *testing.T) {
	t.Parallel()
	f := startServer(t)
	tn := f.tenant(t, "free", f.good, false, "wait")
	c := newClient(t, f.url, tn.key)
	acc, err := c.TriggerUpdate(testContext(t), tn.project)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	st, err := c.WaitUpdate(ctx, acc.StatusID, nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v, want one wrapping context.DeadlineExceeded", err)
	}
	if st != nil && st.Status.Final() {
		t.Fatalf("status %v", st.Status)
	}
}

func TestErrorsAreTyped(t *testing.T) {
	t.Parallel()
	f := startServer(t)
	ctx := testContext(t)
	tn := f.tenant(t, "enterprise", f.good, false, "typed")
	c := newClient(t, f.url, tn.key)

	_, err := c.UpdateStatus(ctx, "upd_00000000000000000000000000")
	var ae *client.Error
	if !errors.As(err, &ae) || ae.Status != 404 || ae.Code != client.CodeNotFound || ae.RequestID == "" || ae.Detail == "" {
		t.Fatalf("unknown status: %#v", err)
	}
	if !client.IsCode(err, client.CodeNotFound) || !errors.Is(err, &client.Error{Code: client.CodeNotFound}) ||
		errors.Is(err, &client.Error{Code: client.CodeNotFound, Status: 400}) || client.IsCode(err, client.CodeInvalidRequest) {
		t.Fatal("IsCode / errors.Is do not match the code")
	}

	pro := f.tenant(t, "pro", f.good, false, "pro")
	_, err = newClient(t, f.url, pro.key).StartExport(ctx, pro.domains[0], "")
	if !errors.As(err, &ae) || ae.Status != 403 || ae.Code != client.CodePlanRequired || !strings.Contains(ae.Detail, "enterprise") {
		t.Fatalf("pro plan export: %v", err)
	}

	_, err = c.StartExport(ctx, "https://"+tn.domains[0]+"/", "")
	if !errors.As(err, &ae) || ae.Status != 400 || ae.Code != client.CodeInvalidRequest || len(ae.Fields) != 1 || ae.Fields[0].Field != "domain" {
		t.Fatalf("invalid domain: %#v", err)
	}
	_, err = c.StartExport(ctx, tn.domains[0], "docs")
	if !errors.As(err, &ae) || ae.Code != client.CodeInvalidRequest || ae.Fields[0].Field != "basePath" {
		t.Fatalf("invalid base path: %#v", err)
	}

	_, err = c.TriggerUpdate(ctx, "prj_00000000000000000000000000")
	if !client.IsCode(err, client.CodeNotFound) {
		t.Fatalf("unknown project: %v", err)
	}
	if _, err := c.StartExport(ctx, " ", ""); err == nil || client.IsCode(err, client.CodeInvalidRequest) {
		t.Fatalf("an empty domain is refused before any request: %v", err)
	}
}

func TestWrongKeyNeverShown(t *testing.T) {
	t.Parallel()
	f := startServer(t)
	key := "lct_" + strings.Repeat("Q", 32) + "000000"
	c := newClient(t, f.url, key)
	_, err := c.TriggerUpdate(testContext(t), "prj_00000000000000000000000000")
	var ae *client.Error
	if !errors.As(err, &ae) || ae.Status != 401 || ae.Code != client.CodeInvalidAPIKey {
		t.Fatalf("wrong key: %v", err)
	}
	shown := fmt.Sprintf("%v %+v %#v %s %v %+v %#v", err, err, err, c, c, *c, c)
	if strings.Contains(shown, strings.Repeat("Q", 8)) {
		t.Fatalf("the key is shown: %s", shown)
	}
	if !strings.Contains(c.String(), f.url+"/v1") {
		t.Fatalf("String() = %q", c.String())
	}
	_, err = client.New(f.url, "lct_bad\nkey")
	if err == nil || strings.Contains(err.Error(), "lct_bad") {
		t.Fatalf("a key with a line break: %v", err)
	}
}

func TestExportToDownload(t *testing.T) {
	t.Parallel()
	f := startServer(t)
	tn := f.tenant(t, "enterprise", f.good, true, "flow")
	c := newClient(t, f.url, tn.key)
	ctx := testContext(t)
	job, err := c.StartExport(ctx, strings.ToUpper(tn.domains[0]), "")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(job.JobID, "exp_") || job.Domain != tn.domains[0] || job.Status != client.ExportQueued ||
		job.CompletedAt != nil || job.Error != nil || job.CreatedAt.IsZero() {
		t.Fatalf("started job %+v", job)
	}
	// The job is slowed down per page: a bundle is refused until it is done.
	_, err = c.Bundle(ctx, job.JobID)
	var ae *client.Error
	if !errors.As(err, &ae) || ae.Status != 409 || ae.Code != client.CodeJobNotCompleted {
		t.Fatalf("bundle of a running job: %v", err)
	}
	last := -1
	final, err := c.WaitExport(ctx, job.JobID, func(j *client.ExportJob) {
		if j.Progress < last {
			t.Errorf("progress went from %d to %d", last, j.Progress)
		}
		last = j.Progress
	})
	if err != nil {
		t.Fatal(err)
	}
	if final.Status != client.ExportCompleted || final.Progress != 100 || final.PageCount != 2 || final.CompletedAt == nil {
		t.Fatalf("final job %+v", final)
	}
	b, err := c.Bundle(ctx, job.JobID)
	if err != nil {
		t.Fatal(err)
	}
	if b.JobID != job.JobID || b.SizeBytes <= 0 || len(b.SHA256) != 64 || !b.ExpiresAt.After(time.Now()) ||
		!strings.HasPrefix(b.BundleURL, f.url+"/_lectern/download/") {
		t.Fatalf("bundle %+v", b)
	}
	b2, err := c.Bundle(ctx, job.JobID)
	if err != nil || b2.BundleURL == b.BundleURL || b2.SHA256 != b.SHA256 {
		t.Fatalf("a second bundle call gives a fresh link to the same archive: %+v, %v", b2, err)
	}

	var buf bytes.Buffer
	var calls int
	var seen int64
	if err := c.Download(ctx, b, &buf, func(done, total int64) {
		calls++
		if done < seen || total != b.SizeBytes {
			t.Errorf("progress %d of %d after %d", done, total, seen)
		}
		seen = done
	}); err != nil {
		t.Fatal(err)
	}
	if int64(buf.Len()) != b.SizeBytes || calls == 0 || seen != b.SizeBytes {
		t.Fatalf("downloaded %d bytes (progress %d in %d calls), want %d", buf.Len(), seen, calls, b.SizeBytes)
	}
	manifest := readManifest(t, buf.Bytes())
	if manifest["jobId"] != job.JobID || manifest["domain"] != tn.domains[0] {
		t.Fatalf("manifest %v", manifest)
	}

	// A bundle whose checksum or size is not the announced one is refused.
	for _, bad := range []client.Bundle{
		{BundleURL: b.BundleURL, SizeBytes: b.SizeBytes, SHA256: strings.Repeat("0", 64)},
		{BundleURL: b.BundleURL, SizeBytes: b.SizeBytes - 1, SHA256: b.SHA256},
		{BundleURL: b.BundleURL, SizeBytes: b.SizeBytes + 1, SHA256: b.SHA256},
	} {
		if err := c.Download(ctx, &bad, io.Discard, nil); !errors.Is(err, client.ErrIntegrity) {
			t.Errorf("size %d, sha %.8s: %v, want ErrIntegrity", bad.SizeBytes, bad.SHA256, err)
		}
	}
	// A tampered link is refused by the server, as a typed error.
	tampered := *b
	tampered.BundleURL = strings.Replace(b.BundleURL, "signature=", "signature=x", 1)
	if err := c.Download(ctx, &tampered, io.Discard, nil); !client.IsCode(err, client.CodeForbidden) {
		t.Fatalf("tampered link: %v", err)
	}
}

func readManifest(t *testing.T, archive []byte) map[string]any {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(archive))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err != nil {
			t.Fatalf("no lectern-manifest.json in the bundle: %v", err)
		}
		if h.Name == "lectern-manifest.json" {
			var m map[string]any
			if err := json.NewDecoder(tr).Decode(&m); err != nil {
				t.Fatal(err)
			}
			return m
		}
	}
}

func TestExportInProgressNamesTheJob(t *testing.T) {
	t.Parallel()
	f := startServer(t)
	tn := f.tenant(t, "enterprise", f.good, true, "busy")
	c := newClient(t, f.url, tn.key)
	ctx := testContext(t)
	first, err := c.StartExport(ctx, tn.domains[0], "/docs")
	if err != nil {
		t.Fatal(err)
	}
	if first.BasePath != "/docs" {
		t.Fatalf("basePath %q", first.BasePath)
	}
	_, err = c.StartExport(ctx, tn.domains[0], "")
	var ae *client.Error
	if !errors.As(err, &ae) || ae.Status != 409 || ae.Code != client.CodeExportInProgress || ae.JobID != first.JobID {
		t.Fatalf("second export: %#v, want export_in_progress naming %s", err, first.JobID)
	}
	if _, err := c.WaitExport(ctx, first.JobID, nil); err != nil {
		t.Fatal(err)
	}
}

// The hourly export quota answers 429 with a Retry-After of up to an hour:
// longer than the client waits, so the error comes back at once with it.
func TestLongRetryAfterIsReturned(t *testing.T) {
	t.Parallel()
	f := startServer(t)
	tn := f.tenant(t, "enterprise", f.good, false, "q1", "q2", "q3", "q4")
	c := newClient(t, f.url, tn.key)
	ctx := testContext(t)
	for _, d := range tn.domains[:3] {
		if _, err := c.StartExport(ctx, d, ""); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	_, err := c.StartExport(ctx, tn.domains[3], "")
	var ae *client.Error
	if !errors.As(err, &ae) || ae.Status != 429 || ae.Code != client.CodeRateLimited || ae.RetryAfter < 30*time.Minute {
		t.Fatalf("fourth export in the hour: %#v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("the client waited %s for a Retry-After of %s", d, ae.RetryAfter)
	}
}

// proxy forwards to the server and, for the requests fail picks, swaps the
// server's answer for a 502 after the server has acted: the answer is lost.
type proxy struct {
	mu   sync.Mutex
	reqs []seen
}

type seen struct {
	method, path, idemKey string
	status                int
	replayed              bool
	body                  string
}

func newProxy(t *testing.T, target string, fail func(n int, r *http.Request) bool) (*proxy, string) {
	u, _ := url.Parse(target)
	p := &proxy{}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.ModifyResponse = func(resp *http.Response) error {
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		p.mu.Lock()
		n := len(p.reqs) + 1
		p.reqs = append(p.reqs, seen{method: resp.Request.Method, path: resp.Request.URL.Path, idemKey: resp.Request.Header.Get("Idempotency-Key"),
			status: resp.StatusCode, replayed: resp.Header.Get("Idempotent-Replayed") == "true", body: string(body)})
		p.mu.Unlock()
		if fail(n, resp.Request) {
			body = []byte("<html>bad gateway</html>")
			resp.StatusCode, resp.Status = http.StatusBadGateway, "502 Bad Gateway"
			resp.Header = http.Header{"Content-Type": {"text/html"}}
		}
		resp.Body = io.NopCloser(bytes.NewReader(body))
		resp.ContentLength = int64(len(body))
		resp.Header.Del("Content-Length")
		return nil
	}
	srv := httptest.NewServer(rp)
	t.Cleanup(srv.Close)
	return p, srv.URL
}

func (p *proxy) seen() []seen {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]seen(nil), p.reqs...)
}

// A POST whose answer is lost is sent again with the same Idempotency-Key,
// and the server replays its first answer: one update, not two.
func TestLostAnswerIsReplayed(t *testing.T) {
	t.Parallel()
	f := startServer(t)
	tn := f.tenant(t, "free", f.good, false, "lost")
	p, base := newProxy(t, f.url, func(n int, r *http.Request) bool { return n == 1 })
	c := newClient(t, base, tn.key)
	ctx := testContext(t)
	acc, err := c.TriggerUpdate(ctx, tn.project)
	if err != nil {
		t.Fatal(err)
	}
	reqs := p.seen()
	if len(reqs) != 2 || reqs[0].status != 202 || reqs[1].status != 202 || !reqs[1].replayed {
		t.Fatalf("requests %+v, want a 202 (lost) then its replay", reqs)
	}
	if reqs[0].idemKey == "" || reqs[0].idemKey != reqs[1].idemKey {
		t.Fatalf("Idempotency-Keys %q and %q, want one key for both attempts", reqs[0].idemKey, reqs[1].idemKey)
	}
	if !strings.Contains(reqs[0].body, acc.StatusID) {
		t.Fatalf("the client got %s, the server first created %s", acc.StatusID, reqs[0].body)
	}
	// Each logical call has a key of its own.
	if _, err := c.TriggerUpdate(ctx, tn.project); err != nil {
		t.Fatal(err)
	}
	if reqs = p.seen(); len(reqs) != 3 || reqs[2].idemKey == reqs[0].idemKey || reqs[2].replayed {
		t.Fatalf("second call %+v", reqs[2:])
	}
	if _, err := c.WaitUpdate(ctx, acc.StatusID, nil); err != nil {
		t.Fatal(err)
	}
}

func TestGatewayErrorsAreRetriedOthersNot(t *testing.T) {
	t.Parallel()
	f := startServer(t)
	tn := f.tenant(t, "free", f.good, false, "gateway")
	p, base := newProxy(t, f.url, func(n int, r *http.Request) bool { return n <= 2 })
	c := newClient(t, base, tn.key, client.WithMaxAttempts(3))
	ctx := testContext(t)
	// Two lost answers, then the third attempt gets through.
	if _, err := c.UpdateStatus(ctx, "upd_00000000000000000000000000"); !client.IsCode(err, client.CodeNotFound) {
		t.Fatalf("err %v, want the server's not_found", err)
	}
	if n := len(p.seen()); n != 3 {
		t.Fatalf("%d attempts, want 3", n)
	}
	// A 404 is not retried.
	if _, err := c.Export(ctx, "exp_00000000000000000000000000"); !client.IsCode(err, client.CodeNotFound) {
		t.Fatal(err)
	}
	if n := len(p.seen()); n != 4 {
		t.Fatalf("%d requests, want 4: a 404 is not retried", n)
	}

	// Gateway errors that go on are returned after the last attempt.
	p2, base2 := newProxy(t, f.url, func(int, *http.Request) bool { return true })
	c2 := newClient(t, base2, tn.key, client.WithMaxAttempts(3))
	_, err := c2.TriggerUpdate(ctx, "prj_00000000000000000000000000")
	var ae *client.Error
	if !errors.As(err, &ae) || ae.Status != 502 || ae.Code != "" || !strings.Contains(err.Error(), "after 3 attempts") {
		t.Fatalf("err %v", err)
	}
	if reqs := p2.seen(); len(reqs) != 3 || reqs[0].idemKey != reqs[2].idemKey {
		t.Fatalf("requests %+v", reqs)
	}
}
