package client

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"net/url"
	"time"
)

// ErrIntegrity is wrapped by the error of a download whose size or SHA-256
// is not the one the bundle link announced.
var ErrIntegrity = errors.New("the downloaded bundle does not match its announced size and SHA-256")

// Download fetches the archive behind a bundle link and writes it to w,
// checking that its size and SHA-256 are b.SizeBytes and b.SHA256.
// progress, when not nil, is called as bytes arrive with the count so far
// and b.SizeBytes.
//
// The link is pre-signed, so the API key is not sent with it. A refused
// link (expired, say) is an *Error; a size or checksum that does not match
// is an error wrapping ErrIntegrity, and w has then received bytes that
// must not be used: write to a temporary file and keep it only when
// Download returns nil. The request is retried as API calls are until the
// first byte reaches w; an error after that is returned as it is.
func (c *Client) Download(ctx context.Context, b *Bundle, w io.Writer, progress func(done, total int64)) error {
	if b == nil || b.BundleURL == "" {
		return errors.New("download: the bundle has no bundleUrl")
	}
	if len(b.SHA256) != 64 {
		return errors.New("download: the bundle has no SHA-256 to check against")
	}
	u, err := c.base.Parse(b.BundleURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return errors.New("download: the bundleUrl is not an http or https URL")
	}
	for attempt := 1; ; attempt++ {
		started, wait, retry, err := c.download(ctx, u, b, w, progress, attempt)
		if err == nil || started || !retry || attempt >= c.maxAttempts {
			return err
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			return err
		}
		if serr := c.sleep(ctx, wait); serr != nil {
			return fmt.Errorf("%w, while waiting to retry after: %w", serr, err)
		}
	}
}

// download fetches once; started reports whether w received bytes.
func (c *Client) download(ctx context.Context, u *url.URL, b *Bundle, w io.Writer, progress func(done, total int64), n int) (started bool, wait time.Duration, retry bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return false, 0, false, err
	}
	req.Header.Set("User-Agent", c.userAgent)
	// The archive's bytes as stored: no transparent decompression.
	req.Header.Set("Accept-Encoding", "identity")
	resp, err := c.hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return false, 0, false, fmt.Errorf("download: %w", ctx.Err())
		}
		// The URL's query is its signature: keep it out of the error.
		return false, c.backoff(n), true, fmt.Errorf("download from %s: %w", u.Host, unwrapURLError(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		e := errorFromResponse(resp, raw)
		wait, retry := c.retryable(e, n)
		return false, wait, retry, e
	}
	cw := &checkWriter{w: w, h: sha256.New(), limit: b.SizeBytes, total: b.SizeBytes, progress: progress}
	_, err = io.Copy(cw, resp.Body)
	if err != nil {
		if errors.Is(err, errTooLong) {
			return true, 0, false, fmt.Errorf("%w: it is larger than %d bytes", ErrIntegrity, b.SizeBytes)
		}
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return cw.n > 0, c.backoff(n), cw.n == 0, fmt.Errorf("download: %w", unwrapURLError(err))
	}
	if cw.n != b.SizeBytes {
		return true, 0, false, fmt.Errorf("%w: got %d bytes, want %d", ErrIntegrity, cw.n, b.SizeBytes)
	}
	if sum := hex.EncodeToString(cw.h.Sum(nil)); sum != b.SHA256 {
		return true, 0, false, fmt.Errorf("%w: SHA-256 %s, want %s", ErrIntegrity, sum, b.SHA256)
	}
	return true, 0, false, nil
}

var errTooLong = errors.New("more bytes than announced")

// checkWriter hashes, counts and bounds what it passes on.
type checkWriter struct {
	w        io.Writer
	h        hash.Hash
	n, limit int64
	total    int64
	progress func(done, total int64)
}

func (c *checkWriter) Write(p []byte) (int, error) {
	if c.n+int64(len(p)) > c.limit {
		return 0, errTooLong
	}
	n, err := c.w.Write(p)
	c.h.Write(p[:n])
	c.n += int64(n)
	if c.progress != nil && n > 0 {
		c.progress(c.n, c.total)
	}
	return n, err
}

// unwrapURLError drops the *url.Error around err, whose text holds the
// full URL (and so a download link's signature).
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
