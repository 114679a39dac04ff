package httpapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

// idempotencyWindow is how long a key's first response is replayed.
const idempotencyWindow = 24 * time.Hour

// idempotencyAbandoned is how long a key may stay pending before a retry
// takes it over: longer than any request runs, so the process that took
// the first request died before it could store the response.
const idempotencyAbandoned = 2 * time.Minute

// replayedHeaders are the response headers stored and replayed.
var replayedHeaders = []string{"Content-Type", "Location"}

// recorder captures a response so it can be stored.
type recorder struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (c *recorder) WriteHeader(code int) {
	if c.status == 0 {
		c.status = code
	}
	c.ResponseWriter.WriteHeader(code)
}

func (c *recorder) Write(b []byte) (int, error) {
	if c.status == 0 {
		c.status = http.StatusOK
	}
	c.body.Write(b)
	return c.ResponseWriter.Write(b)
}

// validIdempotencyKey accepts 1 to 255 printable ASCII characters.
func validIdempotencyKey(k string) bool {
	if k == "" || len(k) > 255 {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x20 || k[i] > 0x7e {
			return false
		}
	}
	return true
}

// idempotent replays the first response to a POST sent again with the same
// Idempotency-Key and body within 24 hours, per organization. The body
// must already be read into body.
func (a *api) idempotent(w http.ResponseWriter, r *http.Request, body []byte, next func(http.ResponseWriter)) {
	a.idempotentAs(w, r, body, nil, next)
}

// replayAs turns a response into the one stored for replays: for an
// answer holding a secret shown once, a problem that says where it went.
type replayAs func(status int, body []byte) (int, []byte)

// idempotentAs is idempotent whose stored response is what stored makes
// of the first one (nil: the first one itself).
func (a *api) idempotentAs(w http.ResponseWriter, r *http.Request, body []byte, stored replayAs, next func(http.ResponseWriter)) {
	vals := r.Header.Values("Idempotency-Key")
	if len(vals) == 0 {
		next(w)
		return
	}
	key := vals[0]
	if len(vals) > 1 || !validIdempotencyKey(key) {
		writeError(w, r, a.log, &lectern.Error{Code: lectern.EINVALID, Message: "Idempotency-Key must be one header of 1 to 255 printable ASCII characters.",
			Fields: []lectern.FieldError{{Field: "Idempotency-Key", Message: "1 to 255 printable ASCII characters"}}})
		return
	}
	h := sha256.New()
	h.Write([]byte(r.Method + " " + r.URL.Path + "\n"))
	h.Write(body)
	rec := &store.IdempotencyRecord{Scope: principalOf(r.Context()).OrgID, Key: key, RequestHash: hex.EncodeToString(h.Sum(nil))}
	existing, err := a.store.ReserveIdempotency(r.Context(), rec, time.Now().Add(-idempotencyWindow))
	if err == nil && existing != nil && existing.Status == 0 && existing.RequestHash == rec.RequestHash &&
		time.Since(existing.CreatedAt) > idempotencyAbandoned {
		// Replace the abandoned record, and only it: of retries racing
		// here, one takes the key and the others find it pending.
		existing, err = a.store.ReserveIdempotency(r.Context(), rec, existing.CreatedAt.Add(time.Microsecond))
	}
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	if existing != nil {
		switch {
		case existing.RequestHash != rec.RequestHash:
			writeError(w, r, a.log, lectern.Errorf(lectern.EIDEMPOTENCYREUSED,
				"This Idempotency-Key was already used with a different request; use a new key for a new request."))
		case existing.Status == 0:
			writeError(w, r, a.log, &lectern.Error{Code: lectern.EIDEMPOTENCYBUSY, RetryAfterSeconds: 1,
				Message: "A request with this Idempotency-Key is still being processed; retry shortly."})
		default:
			for k, v := range existing.Headers {
				w.Header().Set(k, v)
			}
			w.Header().Set("Idempotent-Replayed", "true")
			w.WriteHeader(existing.Status)
			w.Write(existing.Body)
		}
		return
	}
	cw := &recorder{ResponseWriter: w}
	defer func() {
		// Server errors and rate limits are not final: let a retry run again.
		ctx := r.Context()
		if cw.status >= 500 || cw.status == http.StatusTooManyRequests || cw.status == 0 {
			if err := a.store.DeleteIdempotency(context.WithoutCancel(ctx), rec.Scope, rec.Key); err != nil {
				a.log.Warn("could not release idempotency key", "request_id", requestID(r), "err", err)
			}
			return
		}
		hdrs := map[string]string{}
		for _, k := range replayedHeaders {
			if v := cw.Header().Get(k); v != "" {
				hdrs[k] = v
			}
		}
		status, saved := cw.status, cw.body.Bytes()
		if stored != nil {
			if st, b := stored(status, saved); st != status {
				status, saved = st, b
				hdrs = map[string]string{"Content-Type": "application/problem+json"}
			}
		}
		if err := a.store.CompleteIdempotency(context.WithoutCancel(ctx), rec.Scope, rec.Key, status, hdrs, saved); err != nil {
			a.log.Warn("could not store idempotent response", "request_id", requestID(r), "status", strconv.Itoa(cw.status), "err", err)
		}
	}()
	next(cw)
}
