package httpapi

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"

	"lectern.dev/lectern"
)

// StatusOf maps an error code to its HTTP status (the dashboard answers
// with the same statuses).
func StatusOf(code string) int { return statusOf(code) }

// statusOf maps an error code to its HTTP status. This is the only place
// that does so.
func statusOf(code string) int {
	switch code {
	case lectern.EINVALID:
		return http.StatusBadRequest
	case lectern.EUNAUTHORIZED, lectern.EINVALIDKEY:
		return http.StatusUnauthorized
	case lectern.EORIGIN, lectern.EPLAN, lectern.EFORBIDDEN:
		return http.StatusForbidden
	case lectern.ENOTFOUND:
		return http.StatusNotFound
	case lectern.EMETHOD:
		return http.StatusMethodNotAllowed
	case lectern.ENOTCOMPLETED, lectern.EJOBFAILED, lectern.EEXPORTINPROGRESS, lectern.EIDEMPOTENCYBUSY, lectern.ECONFLICT:
		return http.StatusConflict
	case lectern.ETOOLARGE:
		return http.StatusRequestEntityTooLarge
	case lectern.EMEDIATYPE:
		return http.StatusUnsupportedMediaType
	case lectern.EIDEMPOTENCYREUSED:
		return http.StatusUnprocessableEntity
	case lectern.ERATELIMITED:
		return http.StatusTooManyRequests
	case lectern.EUNAVAILABLE:
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

// problem is an RFC 9457 problem details body.
type problem struct {
	Type      string               `json:"type"`
	Title     string               `json:"title"`
	Status    int                  `json:"status"`
	Detail    string               `json:"detail"`
	Code      string               `json:"code"`
	RequestID string               `json:"requestId,omitempty"`
	Errors    []lectern.FieldError `json:"errors,omitempty"`
	JobID     string               `json:"jobId,omitempty"`
}

// writeError writes err as problem+json. Errors without a code are logged
// with the request id and answered with a generic 500: their text may hold
// internal detail.
func writeError(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	code := lectern.ErrorCode(err)
	status := statusOf(code)
	p := problem{Type: "urn:lectern:problem:" + code, Title: http.StatusText(status), Status: status, Code: code, RequestID: requestID(r)}
	e := lectern.AsError(err)
	if status == http.StatusInternalServerError || e == nil {
		log.Error("request failed", "request_id", p.RequestID, "method", r.Method, "path", r.URL.Path, "err", err)
		p.Code, p.Type = lectern.EINTERNAL, "urn:lectern:problem:internal"
		p.Detail = "An internal error occurred. Quote request id " + p.RequestID + " when reporting it."
	} else {
		p.Detail, p.Errors, p.JobID = e.Message, e.Fields, e.JobID
		if code == lectern.EINVALID && len(p.Errors) == 0 {
			p.Errors = []lectern.FieldError{{Field: "body", Message: e.Message}}
		}
	}
	h := w.Header()
	switch status {
	case http.StatusUnauthorized:
		if code == lectern.EINVALIDKEY {
			h.Set("WWW-Authenticate", `Bearer realm="lectern", error="invalid_token"`)
		} else {
			h.Set("WWW-Authenticate", `Bearer realm="lectern"`)
		}
	}
	if e != nil && e.RetryAfterSeconds > 0 || status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable {
		secs := 1
		if e != nil && e.RetryAfterSeconds > 0 {
			secs = e.RetryAfterSeconds
		}
		h.Set("Retry-After", strconv.Itoa(secs))
	}
	h.Set("Content-Type", "application/problem+json")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(p)
}

// writeJSON writes v as JSON with the given status. It does not escape
// &, < and > as \u0026 and the like: the body is not HTML, and bundle
// links must stay copyable from a terminal as they are.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
}
