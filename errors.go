package lectern

import (
	"errors"
	"fmt"
	"unicode/utf8"
)

// Error codes. Each is a stable snake_case identifier that the HTTP layer
// maps to a status; other layers only choose the code.
const (
	EINTERNAL          = "internal"
	EINVALID           = "invalid_request"
	EUNAUTHORIZED      = "unauthorized"
	EINVALIDKEY        = "invalid_api_key"
	EORIGIN            = "browser_origin_forbidden"
	EPLAN              = "plan_required"
	EMEDIATYPE         = "unsupported_media_type"
	ETOOLARGE          = "request_too_large"
	ENOTFOUND          = "not_found"
	ENOTCOMPLETED      = "job_not_completed"
	EJOBFAILED         = "job_failed"
	EEXPORTINPROGRESS  = "export_in_progress"
	ERATELIMITED       = "rate_limited"
	EIDEMPOTENCYREUSED = "idempotency_key_reused"
	EIDEMPOTENCYBUSY   = "idempotency_key_in_use"
	ECONFLICT          = "conflict"
	EUNAVAILABLE       = "unavailable"
	EMETHOD            = "method_not_allowed"
	EFORBIDDEN         = "forbidden"
)

// FieldError names one invalid field of a request.
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// Error is a domain error: a code for programs and a message for people.
// Message must never contain a secret.
type Error struct {
	Code    string
	Message string
	// Fields lists per-field problems of an EINVALID error.
	Fields []FieldError
	// JobID names the conflicting job of an EEXPORTINPROGRESS error.
	JobID string
	// RetryAfterSeconds is set on ERATELIMITED and EUNAVAILABLE errors.
	RetryAfterSeconds int
	// Err is the underlying cause, kept for logs and errors.Is.
	Err error
}

func (e *Error) Error() string {
	if e.Err != nil && e.Message == "" {
		return e.Code + ": " + e.Err.Error()
	}
	return e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error with the code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of the first *Error in err's chain, "" for nil,
// and EINTERNAL for any other error.
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EINTERNAL
}

// ErrorMessage returns the message of the first *Error in err's chain, or a
// generic message for other errors (their text may hold internal detail).
func ErrorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) && e.Message != "" {
		return e.Message
	}
	return "An internal error occurred."
}

// AsError returns the first *Error in err's chain, or nil.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return nil
}

// Truncate shortens s to at most n bytes, on a UTF-8 boundary, with "…"
// after the cut: for text from outside (a repository, a command's output)
// that goes into messages, logs and records.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
