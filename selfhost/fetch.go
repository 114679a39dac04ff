package selfhost

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"lectern.dev/lectern"
)

// Fetcher downloads bundles. The zero value is not usable: Client is
// required; zero limits and delays take the defaults below.
type Fetcher struct {
	// Client sends the requests. It should not follow redirects to other
	// schemes; http.Client never does.
	Client *http.Client
	// MaxSize bounds the download, in bytes (default 2 GiB).
	MaxSize int64
	// Attempts is the number of tries for a download that fails with a
	// network error, 408, 429 or 5xx (default 4).
	Attempts int
	// Backoff is the wait after the first failed try; it doubles after
	// each, up to 8 times Backoff (default 500 ms). A Retry-After of up to
	// a minute is honoured instead.
	Backoff time.Duration
	// StallTimeout ends a try that receives no data for that long (default
	// one minute).
	StallTimeout time.Duration
	// Log receives a line per retry; nil logs nothing.
	Log interface {
		Warn(msg string, args ...any)
	}
}

// Download results.
type download struct {
	size   int64
	sha256 string
}

// DownloadError is a bundle download that failed for good. Its message
// never holds the link's query string.
type DownloadError struct {
	// Link is the redacted link.
	Link string
	// Status is the last HTTP status, 0 for a network error.
	Status int
	// Detail is the server's explanation (a problem+json detail), if any.
	Detail string
	// Expired is when the link expired, if it says and that is past.
	Expired time.Time
	// Attempts is the number of tries made.
	Attempts int
	// Err is the network error, if any.
	Err error
}

func (e *DownloadError) Error() string {
	var b strings.Builder
	switch {
	case !e.Expired.IsZero():
		fmt.Fprintf(&b, "the bundle link expired at %s", e.Expired.UTC().Format(time.RFC3339))
		if e.Status != 0 {
			fmt.Fprintf(&b, " (the server answered %d %s)", e.Status, http.StatusText(e.Status))
		}
	case e.Status != 0:
		fmt.Fprintf(&b, "the bundle download failed: the server answered %d %s", e.Status, http.StatusText(e.Status))
	default:
		fmt.Fprintf(&b, "the bundle download failed: %v", e.Err)
	}
	if e.Detail != "" && e.Expired.IsZero() {
		fmt.Fprintf(&b, ": %s", e.Detail)
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " (after %d attempts)", e.Attempts)
	}
	return b.String()
}

func (e *DownloadError) Unwrap() error { return e.Err }

// errTooLarge marks a download over MaxSize.
var errTooLarge = errors.New("bundle too large")

// fetch downloads link into dst (truncated before each try) and returns
// its size and SHA-256. It retries network errors, 408, 429 and 5xx with
// backoff, never other statuses. Errors are an EUNAVAILABLE error wrapping
// a *DownloadError, an EINVALID error for a download over the size limit,
// or ctx's error.
func (f *Fetcher) fetch(ctx context.Context, link string, dst *os.File) (download, error) {
	if path, ok, problem := localBundle(link); ok {
		if problem != "" {
			return download{}, lectern.Errorf(lectern.EINVALID, "staticExport.bundleUrl %s", problem)
		}
		d, err := readLocal(path, dst, f.maxSize())
		var de *DownloadError
		if errors.As(err, &de) {
			return download{}, &lectern.Error{Code: lectern.EUNAVAILABLE, Message: de.Error(), Err: de}
		}
		return d, err
	}
	attempts, backoff := f.Attempts, f.Backoff
	if attempts <= 0 {
		attempts = 4
	}
	if backoff <= 0 {
		backoff = 500 * time.Millisecond
	}
	var last *DownloadError
	for i := 1; ; i++ {
		d, wait, err := f.try(ctx, link, dst)
		if err == nil {
			return d, nil
		}
		if ctx.Err() != nil {
			return download{}, fmt.Errorf("bundle download canceled: %w", ctx.Err())
		}
		var de *DownloadError
		if !errors.As(err, &de) {
			return download{}, err
		}
		de.Attempts, last = i, de
		if !retryable(de) || i >= attempts {
			break
		}
		if wait <= 0 || wait > time.Minute {
			wait = min(backoff<<(i-1), 8*backoff)
		}
		if f.Log != nil {
			f.Log.Warn("bundle download failed, retrying", "link", RedactLink(link), "attempt", i, "retry_in", wait.String(), "err", de.Error())
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return download{}, fmt.Errorf("bundle download canceled: %w", ctx.Err())
		case <-t.C:
		}
	}
	if exp, ok := LinkExpiry(link); ok && time.Now().After(exp) && (last.Status == http.StatusForbidden || last.Status == http.StatusUnauthorized || last.Status == http.StatusGone || last.Status == http.StatusBadRequest) {
		last.Expired = exp
	}
	return download{}, &lectern.Error{Code: lectern.EUNAVAILABLE, Message: last.Error(), Err: last}
}

// maxSize is MaxSize, or its default, 2 GiB.
func (f *Fetcher) maxSize() int64 {
	if f.MaxSize > 0 {
		return f.MaxSize
	}
	return 2 << 30
}

func retryable(e *DownloadError) bool {
	return e.Status == 0 || e.Status == http.StatusRequestTimeout || e.Status == http.StatusTooManyRequests || e.Status >= 500
}

// try makes one download attempt. It returns the wait a Retry-After asks
// for with a failed try.
func (f *Fetcher) try(ctx context.Context, link string, dst *os.File) (download, time.Duration, error) {
	maxSize := f.maxSize()
	stall := f.StallTimeout
	if stall <= 0 {
		stall = time.Minute
	}
	if _, err := dst.Seek(0, io.SeekStart); err != nil {
		return download{}, 0, err
	}
	if err := dst.Truncate(0); err != nil {
		return download{}, 0, err
	}
	tctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	req, err := http.NewRequestWithContext(tctx, http.MethodGet, link, nil)
	if err != nil {
		return download{}, 0, lectern.Errorf(lectern.EINVALID, "staticExport.bundleUrl is not a valid URL")
	}
	req.Header.Set("Accept", "application/gzip, application/octet-stream;q=0.9, */*;q=0.1")
	// Stop a try that stalls: the timer is reset by every read.
	errStalled := fmt.Errorf("no data received for %s", stall)
	watchdog := time.AfterFunc(stall, func() { cancel(errStalled) })
	defer watchdog.Stop()
	resp, err := f.Client.Do(req)
	if err != nil {
		return download{}, 0, &DownloadError{Link: RedactLink(link), Err: netError(tctx, err)}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		wait := retryAfter(resp.Header.Get("Retry-After"))
		return download{}, wait, &DownloadError{Link: RedactLink(link), Status: resp.StatusCode, Detail: problemDetail(resp)}
	}
	if resp.ContentLength > maxSize {
		return download{}, 0, lectern.Errorf(lectern.EINVALID, "the bundle is %d bytes, over the limit of %d (--max-bundle-size)", resp.ContentLength, maxSize)
	}
	h := sha256.New()
	buf := make([]byte, 256<<10)
	var n int64
	for {
		k, rerr := resp.Body.Read(buf)
		if k > 0 {
			watchdog.Reset(stall)
			if n += int64(k); n > maxSize {
				return download{}, 0, lectern.Errorf(lectern.EINVALID, "the bundle is more than %d bytes, over the limit (--max-bundle-size)", maxSize)
			}
			h.Write(buf[:k])
			if _, err := dst.Write(buf[:k]); err != nil {
				return download{}, 0, fmt.Errorf("writing the download to the cache: %w", err)
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return download{}, 0, &DownloadError{Link: RedactLink(link), Err: netError(tctx, rerr)}
		}
	}
	if resp.ContentLength >= 0 && n != resp.ContentLength {
		return download{}, 0, &DownloadError{Link: RedactLink(link), Err: fmt.Errorf("connection closed after %d of %d bytes", n, resp.ContentLength)}
	}
	return download{size: n, sha256: hex.EncodeToString(h.Sum(nil))}, 0, nil
}

// netError returns the cause of a failed request without the URL (which
// url.Error repeats in full, signature included).
func netError(ctx context.Context, err error) error {
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		return cause
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// retryAfter reads a Retry-After header in seconds or as an HTTP date.
func retryAfter(h string) time.Duration {
	if h == "" {
		return 0
	}
	if n, err := strconv.Atoi(h); err == nil && n >= 0 {
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(h); err == nil {
		return time.Until(t)
	}
	return 0
}

// problemDetail returns the detail of an RFC 9457 problem body, or "".
func problemDetail(resp *http.Response) string {
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/problem+json") {
		return ""
	}
	var p struct {
		Detail string `json:"detail"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 4<<10)).Decode(&p); err != nil {
		return ""
	}
	return strings.Map(func(r rune) rune {
		if r < ' ' {
			return -1
		}
		return r
	}, p.Detail)
}
