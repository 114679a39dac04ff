package client

import (
	"encoding/json"
	"errors"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The stable error codes of the API's problem responses (the `code` member).
const (
	CodeUnauthorized         = "unauthorized"
	CodeInvalidAPIKey        = "invalid_api_key"
	CodeBrowserOrigin        = "browser_origin_forbidden"
	CodePlanRequired         = "plan_required"
	CodeInvalidRequest       = "invalid_request"
	CodeUnsupportedMediaType = "unsupported_media_type"
	CodeRequestTooLarge      = "request_too_large"
	CodeNotFound             = "not_found"
	CodeJobNotCompleted      = "job_not_completed"
	CodeJobFailed            = "job_failed"
	CodeExportInProgress     = "export_in_progress"
	CodeRateLimited          = "rate_limited"
	CodeInternal             = "internal"
	CodeIdempotencyReused    = "idempotency_key_reused"
	CodeIdempotencyInUse     = "idempotency_key_in_use"
	CodeMethodNotAllowed     = "method_not_allowed"
	CodeUnavailable          = "unavailable"
	CodeConflict             = "conflict"
	// CodeForbidden is sent by the server's own download links when a
	// link's signature is invalid or it has expired.
	CodeForbidden = "forbidden"
)

// Error is an error response of the API: its RFC 9457 problem details, or,
// for a response that is not a problem (from a proxy, say), the status and
// an empty Code. It never holds the API key.
type Error struct {
	// Status is the HTTP status code.
	Status int
	// Code is the problem's stable code, like "plan_required"; empty when
	// the response was not a problem document.
	Code string
	// Title and Detail are the problem's human-readable summary and
	// explanation.
	Title, Detail string
	// RequestID identifies the request in the server's logs.
	RequestID string
	// RetryAfter is the Retry-After header's delay, zero when absent.
	RetryAfter time.Duration
	// JobID names the export already queued or running, on an
	// export_in_progress error (and the job, on job_not_completed or
	// job_failed).
	JobID string
	// Fields lists the invalid fields of an invalid_request error.
	Fields []FieldError
}

// Error returns the detail, the code and the status, and the request id
// when there is one.
func (e *Error) Error() string {
	var b strings.Builder
	msg := e.Detail
	if msg == "" {
		msg = e.Title
	}
	if msg == "" {
		msg = http.StatusText(e.Status)
	}
	b.WriteString(strings.TrimSpace(msg))
	b.WriteString(" (")
	if e.Code != "" {
		b.WriteString(e.Code + ", ")
	}
	b.WriteString("HTTP " + strconv.Itoa(e.Status))
	if e.RequestID != "" {
		b.WriteString(", request id " + e.RequestID)
	}
	b.WriteString(")")
	return b.String()
}

// Is reports whether target is an *Error with the same Code (and, when
// target's Status is set, the same Status), so that
// errors.Is(err, &client.Error{Code: client.CodeNotFound}) works.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	if !ok || t.Code == "" {
		return false
	}
	return t.Code == e.Code && (t.Status == 0 || t.Status == e.Status)
}

// IsCode reports whether err, or an error it wraps, is an *Error with the
// given code.
func IsCode(err error, code string) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == code
}

// problem is the JSON body of an error response.
type problem struct {
	Type      string       `json:"type"`
	Title     string       `json:"title"`
	Status    int          `json:"status"`
	Detail    string       `json:"detail"`
	Code      string       `json:"code"`
	RequestID string       `json:"requestId"`
	Errors    []FieldError `json:"errors"`
	JobID     string       `json:"jobId"`
}

// errorFromResponse builds the *Error of a response whose status is not a
// success, from its headers and (already read) body.
func errorFromResponse(resp *http.Response, body []byte) *Error {
	e := &Error{Status: resp.StatusCode, RequestID: resp.Header.Get("X-Request-Id"),
		RetryAfter: parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	var p problem
	if (mt == "application/problem+json" || mt == "application/json") && json.Unmarshal(body, &p) == nil && p.Code != "" {
		e.Code, e.Title, e.Detail, e.JobID, e.Fields = p.Code, p.Title, p.Detail, p.JobID, p.Errors
		if e.RequestID == "" {
			e.RequestID = p.RequestID
		}
		return e
	}
	e.Title = http.StatusText(resp.StatusCode)
	e.Detail = "The server answered " + strconv.Itoa(resp.StatusCode) + " " + e.Title
	if mt != "" {
		e.Detail += " with " + mt
	}
	e.Detail += ", not a Lectern problem document."
	return e
}

// parseRetryAfter reads a Retry-After value: delay seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(v); err == nil {
		if n < 0 {
			return 0
		}
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}
