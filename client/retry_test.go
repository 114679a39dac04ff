package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// These tests drive the retry rules against scripted answers; the
// package's other tests run against a real lectern serve.

// script is a fake server answering requests in turn with its steps; the
// last step repeats.
type script struct {
	mu    sync.Mutex
	steps []func(w http.ResponseWriter, r *http.Request)
	reqs  []*http.Request
}

func (s *script) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	n := len(s.reqs)
	s.reqs = append(s.reqs, r.Clone(context.Background()))
	step := s.steps[min(n, len(s.steps)-1)]
	s.mu.Unlock()
	step(w, r)
}

func (s *script) requests() []*http.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*http.Request(nil), s.reqs...)
}

func problemStep(status int, code string, headers ...string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(headers); i += 2 {
			w.Header().Set(headers[i], headers[i+1])
		}
		w.Header().Set("Content-Type", "application/problem+json")
		w.Header().Set("X-Request-Id", "req_test")
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"type":"urn:lectern:problem:%s","title":"t","status":%d,"detail":"d","code":"%s"}`, code, status, code)
	}
}

func okStep(status int, body string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write([]byte(body))
	}
}

// hangUp closes the connection without an answer.
func hangUp(w http.ResponseWriter, r *http.Request) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err == nil {
		conn.Close()
	}
}

// fakeClient returns a client of s whose waits are recorded, not slept.
func fakeClient(t *testing.T, s *script, opts ...Option) (*Client, *[]time.Duration) {
	t.Helper()
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	c, err := New(srv.URL, "lct_test", opts...)
	if err != nil {
		t.Fatal(err)
	}
	var waits []time.Duration
	c.sleep = func(ctx context.Context, d time.Duration) error {
		waits = append(waits, d)
		return ctx.Err()
	}
	return c, &waits
}

func TestRetryAfterIsHonoured(t *testing.T) {
	t.Parallel()
	s := &script{steps: []func(http.ResponseWriter, *http.Request){
		problemStep(429, CodeRateLimited, "Retry-After", "2"),
		problemStep(503, CodeUnavailable, "Retry-After", "3"),
		okStep(202, `{"statusId":"upd_1"}`),
	}}
	c, waits := fakeClient(t, s)
	acc, err := c.TriggerUpdate(context.Background(), "prj_1")
	if err != nil || acc.StatusID != "upd_1" {
		t.Fatalf("%+v, %v", acc, err)
	}
	if len(*waits) != 2 || (*waits)[0] < 2*time.Second || (*waits)[0] > 2200*time.Millisecond ||
		(*waits)[1] < 3*time.Second || (*waits)[1] > 3300*time.Millisecond {
		t.Fatalf("waits %v, want 2s and 3s (plus at most a tenth)", *waits)
	}
	reqs := s.requests()
	key := reqs[0].Header.Get("Idempotency-Key")
	for _, r := range reqs {
		if r.Header.Get("Idempotency-Key") != key || key == "" {
			t.Fatalf("attempts carry Idempotency-Keys %q and %q", key, r.Header.Get("Idempotency-Key"))
		}
		if r.Header.Get("Authorization") != "Bearer lct_test" {
			t.Fatalf("Authorization %q", r.Header.Get("Authorization"))
		}
	}
}

func TestRetryAfterDate(t *testing.T) {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	if d := parseRetryAfter(now.Add(90*time.Second).Format(http.TimeFormat), now); d != 90*time.Second {
		t.Fatalf("date: %v", d)
	}
	for v, want := range map[string]time.Duration{"": 0, "7": 7 * time.Second, "-1": 0, "soon": 0,
		now.Add(-time.Minute).Format(http.TimeFormat): 0} {
		if d := parseRetryAfter(v, now); d != want {
			t.Errorf("Retry-After %q: %v, want %v", v, d, want)
		}
	}
}

func TestBackoffGrowsCappedWithJitter(t *testing.T) {
	c, _ := New("http://127.0.0.1:1", "lct_test", WithBackoff(100*time.Millisecond, time.Second))
	for n := 1; n <= 8; n++ {
		full := min(time.Second, 100*time.Millisecond<<(n-1))
		lo, hi := time.Duration(1<<62), time.Duration(0)
		for range 200 {
			d := c.backoff(n)
			lo, hi = min(lo, d), max(hi, d)
		}
		if lo < full/2 || hi > full || hi-lo < full/10 {
			t.Errorf("attempt %d: backoff in [%v, %v], want jittered within [%v, %v]", n, lo, hi, full/2, full)
		}
	}
}

func TestClientErrorsAreNotRetried(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		status int
		code   string
	}{{400, CodeInvalidRequest}, {401, CodeInvalidAPIKey}, {403, CodePlanRequired}, {404, CodeNotFound},
		{409, CodeExportInProgress}, {409, CodeIdempotencyInUse}, {413, CodeRequestTooLarge}, {422, CodeIdempotencyReused}, {500, CodeInternal}} {
		s := &script{steps: []func(http.ResponseWriter, *http.Request){problemStep(tc.status, tc.code, "Retry-After", "1")}}
		c, waits := fakeClient(t, s)
		_, err := c.StartExport(context.Background(), "docs.acme.test", "")
		var e *Error
		if !errors.As(err, &e) || e.Status != tc.status || e.Code != tc.code || e.RequestID != "req_test" || e.RetryAfter != time.Second {
			t.Errorf("%d %s: %#v", tc.status, tc.code, err)
		}
		if n := len(s.requests()); n != 1 || len(*waits) != 0 {
			t.Errorf("%d %s: %d attempts, want 1", tc.status, tc.code, n)
		}
	}
}

// An idempotency_key_in_use answer to a retry means the call's own first
// attempt is still being processed: it is retried until it is replayed.
func TestOwnKeyInUseIsRetried(t *testing.T) {
	t.Parallel()
	s := &script{steps: []func(http.ResponseWriter, *http.Request){
		hangUp,
		problemStep(409, CodeIdempotencyInUse, "Retry-After", "1"),
		okStep(200, `{"jobId":"exp_1","bundleUrl":"http://x/b","expiresAt":"2025-01-02T03:04:05Z","sizeBytes":1,"sha256":"00"}`),
	}}
	c, waits := fakeClient(t, s)
	b, err := c.Bundle(context.Background(), "exp_1")
	if err != nil || b.JobID != "exp_1" || !b.ExpiresAt.Equal(time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)) {
		t.Fatalf("%+v, %v", b, err)
	}
	if n := len(s.requests()); n != 3 || len(*waits) != 2 {
		t.Fatalf("%d attempts, waits %v", n, *waits)
	}
}

func TestNetworkErrorsAreRetriedUpToTheLimit(t *testing.T) {
	t.Parallel()
	s := &script{steps: []func(http.ResponseWriter, *http.Request){hangUp}}
	c, waits := fakeClient(t, s, WithMaxAttempts(3), WithBackoff(time.Second, 4*time.Second))
	_, err := c.Export(context.Background(), "exp_1")
	if err == nil || !strings.Contains(err.Error(), "after 3 attempts") || strings.Contains(err.Error(), "lct_test") {
		t.Fatalf("err %v", err)
	}
	if n := len(s.requests()); n != 3 || len(*waits) != 2 || (*waits)[1] < time.Second {
		t.Fatalf("%d attempts, waits %v", n, *waits)
	}
	for _, r := range s.requests() {
		if r.Header.Get("Idempotency-Key") != "" {
			t.Fatal("a GET carries an Idempotency-Key")
		}
	}
}

func TestWaitsThatCannotFitAreNotStarted(t *testing.T) {
	t.Parallel()
	// A Retry-After beyond WithMaxRetryAfter comes back at once.
	s := &script{steps: []func(http.ResponseWriter, *http.Request){problemStep(429, CodeRateLimited, "Retry-After", "3600")}}
	c, waits := fakeClient(t, s)
	_, err := c.StartExport(context.Background(), "docs.acme.test", "")
	var e *Error
	if !errors.As(err, &e) || e.RetryAfter != time.Hour || len(*waits) != 0 || len(s.requests()) != 1 {
		t.Fatalf("err %v, waits %v", err, *waits)
	}
	// So does one that would outlast the context's deadline.
	s = &script{steps: []func(http.ResponseWriter, *http.Request){problemStep(503, CodeUnavailable, "Retry-After", "30")}}
	c, waits = fakeClient(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.UpdateStatus(ctx, "upd_1"); !IsCode(err, CodeUnavailable) || len(*waits) != 0 {
		t.Fatalf("err %v, waits %v", err, *waits)
	}
}

func TestBaseURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:8080":          "http://127.0.0.1:8080/v1",
		"https://lectern.example.com/":   "https://lectern.example.com/v1",
		"https://lectern.example.com/v1": "https://lectern.example.com/v1",
		" https://example.com/lectern/ ": "https://example.com/lectern/v1",
		"https://u:secret@example.com":   "https://u:xxxxx@example.com/v1",
	} {
		c, err := New(in, "lct_test")
		if err != nil || c.BaseURL() != want {
			t.Errorf("New(%q): %v, %v; want %s", in, c, err, want)
		}
	}
	for _, in := range []string{"", "lectern.example.com", "localhost:8080", "ftp://example.com", "http://", "http://h/?a=1", "https://u:secret@/x"} {
		if _, err := New(in, "lct_test"); err == nil || strings.Contains(err.Error(), "secret") {
			t.Errorf("New(%q): %v, want an error without the password", in, err)
		}
	}
	if _, err := New("http://h", ""); err == nil {
		t.Error("an empty key is accepted")
	}
}
