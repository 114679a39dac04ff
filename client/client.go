// Package client is a Go client for Lectern's HTTP API: trigger and follow
// deployment updates, run static exports, and download their bundles.
//
// Every call takes a context. Calls that only read (GET) are retried on
// 429 (after Retry-After), on 502, 503 and 504, and on network errors, with
// capped exponential backoff and jitter; so are POSTs, because each logical
// POST carries one Idempotency-Key, reused across its retries, so that the
// server replays its first answer instead of acting twice. Other 4xx
// answers are never retried. An error answer comes back as an *Error
// carrying the problem's stable code (see IsCode). The API key is sent only
// in the Authorization header of API requests: it never appears in errors,
// in String, or in requests to bundle download links.
package client

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// maxResponseBytes bounds the body of an API response.
const maxResponseBytes = 8 << 20

// Client calls one Lectern server with one API key. It is safe for
// concurrent use.
type Client struct {
	base           *url.URL // absolute, path ending in /v1
	key            string
	hc             *http.Client
	userAgent      string
	maxAttempts    int
	minBackoff     time.Duration
	maxBackoff     time.Duration
	maxRetryAfter  time.Duration
	pollInterval   time.Duration
	attemptTimeout time.Duration
	sleep          func(ctx context.Context, d time.Duration) error
}

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient sends requests with hc instead of a default client.
func WithHTTPClient(hc *http.Client) Option { return func(c *Client) { c.hc = hc } }

// WithUserAgent sets the User-Agent header of every request.
func WithUserAgent(ua string) Option { return func(c *Client) { c.userAgent = ua } }

// WithMaxAttempts sets how many times one call is tried in all (default
// 5); 1 turns retries off.
func WithMaxAttempts(n int) Option {
	return func(c *Client) { c.maxAttempts = max(1, n) }
}

// WithBackoff sets the first retry delay and its cap (defaults 250ms and
// 8s). The delay doubles per attempt; each one is then jittered between
// half and all of it.
func WithBackoff(first, limit time.Duration) Option {
	return func(c *Client) { c.minBackoff, c.maxBackoff = first, max(first, limit) }
}

// WithMaxRetryAfter sets the longest Retry-After the client waits for
// before retrying (default 1 minute). An answer asking for a longer wait
// is returned as an *Error with RetryAfter set.
func WithMaxRetryAfter(d time.Duration) Option { return func(c *Client) { c.maxRetryAfter = d } }

// WithPollInterval sets the longest interval between two polls of
// WaitUpdate and WaitExport (default 1s). Polls start at a tenth of it
// and slow down to it, so short jobs are seen to end soon.
func WithPollInterval(d time.Duration) Option {
	return func(c *Client) { c.pollInterval = max(d, time.Millisecond) }
}

// WithRequestTimeout bounds each attempt of an API call (default 30s);
// zero leaves attempts bounded by the call's context only. Downloads are
// bounded by their context only.
func WithRequestTimeout(d time.Duration) Option { return func(c *Client) { c.attemptTimeout = d } }

// New returns a client of the server at baseURL, which is the server's
// address ("https://lectern.example.com") or its API base ending in /v1,
// authenticating with apiKey (an admin key, lct_...). It returns an error
// when baseURL is not an absolute http or https URL or apiKey is empty or
// cannot be sent in a header; the error never repeats the key.
func New(baseURL, apiKey string, opts ...Option) (*Client, error) {
	base, err := parseBaseURL(baseURL)
	if err != nil {
		return nil, err
	}
	if apiKey == "" {
		return nil, errors.New("no API key given")
	}
	for i := 0; i < len(apiKey); i++ {
		if apiKey[i] <= ' ' || apiKey[i] > '~' {
			return nil, errors.New("the API key has a space, line break or other character that cannot be sent in a header")
		}
	}
	c := &Client{base: base, key: apiKey, hc: http.DefaultClient, userAgent: "lectern-go-client",
		maxAttempts: 5, minBackoff: 250 * time.Millisecond, maxBackoff: 8 * time.Second,
		maxRetryAfter: time.Minute, pollInterval: time.Second, attemptTimeout: 30 * time.Second, sleep: sleepCtx}
	for _, o := range opts {
		o(c)
	}
	return c, nil
}

func parseBaseURL(s string) (*url.URL, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, errors.New("no API URL given")
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("the API URL %q is not an http:// or https:// URL like https://lectern.example.com", redactURL(s))
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("the API URL %s must not have a query or fragment", u.Redacted())
	}
	p := strings.TrimRight(u.Path, "/")
	if !strings.HasSuffix(p, "/v1") {
		p += "/v1"
	}
	u.Path, u.RawPath = p, ""
	return u, nil
}

// redactURL hides the password of a URL that may not parse.
func redactURL(s string) string {
	if u, err := url.Parse(s); err == nil {
		return u.Redacted()
	}
	if i := strings.LastIndex(s, "@"); i >= 0 {
		return "…" + s[i:]
	}
	return s
}

// BaseURL returns the API base the client calls, ending in /v1, with any
// password hidden.
func (c *Client) BaseURL() string { return c.base.Redacted() }

// String describes the client without its API key. It has a value
// receiver so that printing a Client value cannot show the key either.
func (c Client) String() string {
	if c.base == nil {
		return "lectern client (not configured)"
	}
	return "lectern client for " + c.base.Redacted()
}

// GoString is String, for %#v.
func (c Client) GoString() string { return c.String() }

// request is one logical API call.
type request struct {
	method string
	path   string // below the base, escaped
	body   []byte // nil for none
	out    any    // decoded from a success body
}

// TriggerUpdate queues a deployment update of the project
// (POST /project/update/{projectId}). A project that does not exist, or
// belongs to another organization, is a not_found *Error.
func (c *Client) TriggerUpdate(ctx context.Context, projectID string) (*UpdateAccepted, error) {
	if projectID == "" {
		return nil, errors.New("trigger update: no project ID given")
	}
	var out UpdateAccepted
	if err := c.do(ctx, request{method: http.MethodPost, path: "/project/update/" + url.PathEscape(projectID), out: &out}); err != nil {
		return nil, err
	}
	return &out, nil
}

// UpdateStatus returns the state, commit and logs of an update
// (GET /project/update-status/{statusId}). An unknown ID is a not_found
// *Error.
func (c *Client) UpdateStatus(ctx context.Context, statusID string) (*UpdateStatus, error) {
	if statusID == "" {
		return nil, errors.New("update status: no status ID given")
	}
	var out UpdateStatus
	if err := c.do(ctx, request{method: http.MethodGet, path: "/project/update-status/" + url.PathEscape(statusID), out: &out}); err != nil {
		return nil, err
	}
	return &out, nil
}

// StartExport starts a static export of the live deployment serving domain
// (POST /static-export/jobs), under basePath ("" for "/"). The server
// checks both: an invalid one is an invalid_request *Error with Fields; a
// plan below enterprise is plan_required; another export of the domain
// still running is export_in_progress with JobID naming it.
func (c *Client) StartExport(ctx context.Context, domain, basePath string) (*ExportJob, error) {
	if strings.TrimSpace(domain) == "" {
		return nil, errors.New("start export: no domain given")
	}
	body, err := json.Marshal(ExportRequest{Domain: domain, BasePath: basePath})
	if err != nil {
		return nil, err
	}
	var out ExportJob
	if err := c.do(ctx, request{method: http.MethodPost, path: "/static-export/jobs", body: body, out: &out}); err != nil {
		return nil, err
	}
	return &out, nil
}

// Export returns the state and progress of an export job
// (GET /static-export/jobs/{jobId}). An unknown ID is a not_found *Error.
func (c *Client) Export(ctx context.Context, jobID string) (*ExportJob, error) {
	if jobID == "" {
		return nil, errors.New("export: no job ID given")
	}
	var out ExportJob
	if err := c.do(ctx, request{method: http.MethodGet, path: "/static-export/jobs/" + url.PathEscape(jobID), out: &out}); err != nil {
		return nil, err
	}
	return &out, nil
}

// Bundle returns a fresh download link for a completed job's archive
// (POST /static-export/jobs/{jobId}/bundle), with its size and SHA-256. A
// job still running is a job_not_completed *Error; a failed one,
// job_failed.
func (c *Client) Bundle(ctx context.Context, jobID string) (*Bundle, error) {
	if jobID == "" {
		return nil, errors.New("bundle: no job ID given")
	}
	var out Bundle
	if err := c.do(ctx, request{method: http.MethodPost, path: "/static-export/jobs/" + url.PathEscape(jobID) + "/bundle", out: &out}); err != nil {
		return nil, err
	}
	return &out, nil
}

// do runs a call, retrying it as the package documentation says.
func (c *Client) do(ctx context.Context, r request) error {
	idemKey := ""
	if r.method == http.MethodPost || r.method == http.MethodPatch || r.method == http.MethodDelete {
		idemKey = newIdempotencyKey()
	}
	for attempt := 1; ; attempt++ {
		wait, retry, err := c.attempt(ctx, r, idemKey, attempt)
		if err == nil {
			return nil
		}
		if !retry || attempt >= c.maxAttempts {
			if attempt > 1 {
				return fmt.Errorf("%w (after %d attempts)", err, attempt)
			}
			return err
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			return err // the wait would outlast the caller's deadline
		}
		if serr := c.sleep(ctx, wait); serr != nil {
			return fmt.Errorf("%w, while waiting to retry after: %w", serr, err)
		}
	}
}

// attempt sends a call once. It returns how long to wait before a retry
// and whether one may help.
func (c *Client) attempt(ctx context.Context, r request, idemKey string, n int) (time.Duration, bool, error) {
	actx := ctx
	if c.attemptTimeout > 0 {
		var cancel context.CancelFunc
		actx, cancel = context.WithTimeout(ctx, c.attemptTimeout)
		defer cancel()
	}
	var body io.Reader
	if r.body != nil {
		body = bytes.NewReader(r.body)
	}
	req, err := http.NewRequestWithContext(actx, r.method, c.base.String()+r.path, body)
	if err != nil {
		return 0, false, err
	}
	h := req.Header
	h.Set("Authorization", "Bearer "+c.key)
	h.Set("Accept", "application/json, application/problem+json")
	h.Set("User-Agent", c.userAgent)
	if r.body != nil {
		h.Set("Content-Type", "application/json")
	}
	if idemKey != "" {
		h.Set("Idempotency-Key", idemKey)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return 0, false, fmt.Errorf("%s %s: %w", r.method, c.base.Path+r.path, ctx.Err())
		}
		return c.backoff(n), true, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		if ctx.Err() != nil {
			return 0, false, fmt.Errorf("%s %s: %w", r.method, c.base.Path+r.path, ctx.Err())
		}
		return c.backoff(n), true, fmt.Errorf("%s %s: reading the response: %w", r.method, c.base.Path+r.path, err)
	}
	if len(raw) > maxResponseBytes {
		return 0, false, fmt.Errorf("%s %s: the response is larger than %d bytes", r.method, c.base.Path+r.path, maxResponseBytes)
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		if r.out != nil {
			if err := json.Unmarshal(raw, r.out); err != nil {
				return 0, false, fmt.Errorf("%s %s: the response is not the expected JSON: %w", r.method, c.base.Path+r.path, err)
			}
		}
		return 0, false, nil
	}
	e := errorFromResponse(resp, raw)
	wait, retry := c.retryable(e, n)
	return wait, retry, e
}

// retryable decides whether an error answer is worth another attempt.
func (c *Client) retryable(e *Error, attempt int) (time.Duration, bool) {
	switch {
	case e.Status == http.StatusTooManyRequests,
		e.Status == http.StatusBadGateway, e.Status == http.StatusServiceUnavailable, e.Status == http.StatusGatewayTimeout,
		// Our own earlier attempt of this call is still being processed
		// (its answer was lost): the key will soon replay it.
		e.Code == CodeIdempotencyInUse && attempt > 1:
	default:
		return 0, false
	}
	if e.RetryAfter > 0 {
		if e.RetryAfter > c.maxRetryAfter {
			return 0, false
		}
		return e.RetryAfter + mrand.N(e.RetryAfter/10+1), true
	}
	return c.backoff(attempt), true
}

// backoff is the jittered delay before attempt n+1.
func (c *Client) backoff(n int) time.Duration {
	d := c.minBackoff
	for i := 1; i < n && d < c.maxBackoff; i++ {
		d *= 2
	}
	d = min(d, c.maxBackoff)
	if d <= 0 {
		return 0
	}
	return d/2 + mrand.N(d/2+1)
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// newIdempotencyKey returns 128 random bits in hex.
func newIdempotencyKey() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}
