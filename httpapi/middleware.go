package httpapi

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

type ctxKey int

const stateKey ctxKey = 0

// requestState is what the middleware learns about a request: its id, and
// once authenticated, its caller. One value per request, set once.
type requestState struct {
	id        string
	principal principal
}

func stateOf(ctx context.Context) *requestState {
	st, _ := ctx.Value(stateKey).(*requestState)
	if st == nil {
		return &requestState{}
	}
	return st
}

// requestID returns the id given to the request by withRequestID.
func requestID(r *http.Request) string { return stateOf(r.Context()).id }

// requestIDPrefix is random per process; a counter follows it, so ids are
// unique without a random read per request.
var (
	requestIDPrefix = func() string {
		var b [8]byte
		rand.Read(b[:])
		return "req_" + hex.EncodeToString(b[:])
	}()
	requestIDSeq atomic.Uint64
)

func newRequestID() string {
	return requestIDPrefix + strconv.FormatUint(requestIDSeq.Add(1), 36)
}

// validRequestID accepts a caller's X-Request-Id when it is short and plain.
func validRequestID(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x21 || c > 0x7e {
			return false
		}
	}
	return true
}

// withRequestID gives every request an id, echoed in X-Request-Id.
func withRequestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("X-Request-Id")
		if !validRequestID(id) {
			id = newRequestID()
		}
		w.Header().Set("X-Request-Id", id)
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), stateKey, &requestState{id: id})))
	})
}

// statusWriter records the status and size of a response.
type statusWriter struct {
	http.ResponseWriter
	status int
	size   int64
}

func (s *statusWriter) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	n, err := s.ResponseWriter.Write(b)
	s.size += int64(n)
	return n, err
}

func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

func (s *statusWriter) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (s *statusWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	if h, ok := s.ResponseWriter.(http.Hijacker); ok {
		return h.Hijack()
	}
	return nil, nil, errors.New("hijack not supported")
}

// httpMetrics are request counts and latencies per route.
type httpMetrics struct {
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
}

func newHTTPMetrics(reg prometheus.Registerer) *httpMetrics {
	m := &httpMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "lectern_http_requests_total",
			Help: "HTTP requests by route, method and status code."}, []string{"route", "method", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "lectern_http_request_duration_seconds",
			Help: "HTTP request latencies by route and method.", Buckets: prometheus.ExponentialBuckets(0.0005, 2.5, 12)}, []string{"route", "method"}),
	}
	reg.MustRegister(m.requests, m.latency)
	return m
}

// instrument records metrics and a log line for each request of a route.
// Only the route pattern is logged, never headers (they carry keys).
func (a *api) instrument(route string, next http.Handler) http.Handler {
	requests := a.metrics.requests.MustCurryWith(prometheus.Labels{"route": route})
	latency := a.metrics.latency.MustCurryWith(prometheus.Labels{"route": route})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				a.log.Error("handler panicked", "request_id", requestID(r), "route", route, "panic", fmt.Sprint(p))
				if sw.status == 0 {
					writeError(sw, r, a.log, fmt.Errorf("panic: %v", p))
				}
			}
			d := time.Since(start)
			method := methodLabel(r.Method)
			requests.WithLabelValues(method, statusCode(sw.status)).Inc()
			latency.WithLabelValues(method).Observe(d.Seconds())
			if a.cfg.LogRequests || sw.status >= 500 {
				a.log.LogAttrs(r.Context(), slog.LevelInfo, "request", slog.String("request_id", requestID(r)),
					slog.String("method", method), slog.String("route", route), slog.Int("status", sw.status),
					slog.Int64("bytes", sw.size), slog.Duration("duration", d))
			}
		}()
		next.ServeHTTP(sw, r)
	})
}

// methodLabel returns the method's name for metrics and logs: one of a
// fixed set, "other" for any method the API does not know, so made-up
// methods cannot grow the metrics.
func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions:
		return m
	}
	return "other"
}

// statusCodes holds the decimal text of every HTTP status, so metrics do
// not format one per request.
var statusCodes = func() (t [600]string) {
	for i := range t {
		t[i] = strconv.Itoa(i)
	}
	return t
}()

func statusCode(c int) string {
	if c >= 0 && c < len(statusCodes) {
		return statusCodes[c]
	}
	return strconv.Itoa(c)
}
