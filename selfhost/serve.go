package selfhost

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Handler serves the current Site. Switching sites (Swap) is atomic: every
// request is served entirely by the site that was current when it
// started, and a replaced site's folder is removed once its last request
// ends.
//
// Besides the site's files it answers /healthz (200 while the process
// runs) and /readyz (200 with the served version and bundle time, 503
// before the first site), and, for a site with selfhost's own analytics,
// their events and read API (analytics_serve.go). Every response carries
// the security headers, with the site's Content-Security-Policy (the
// analytics' with a policy of their own).
type Handler struct {
	log *slog.Logger
	cur atomic.Pointer[Site]
}

// NewHandler returns a Handler serving nothing yet (503) until Swap. It
// logs files of the served tree that cannot be read.
func NewHandler(log *slog.Logger) *Handler {
	return &Handler{log: log}
}

// Swap makes s the current site and retires the previous one, which it
// returns (nil if none).
func (h *Handler) Swap(s *Site) *Site {
	old := h.cur.Swap(s)
	if old != nil {
		old.Retire()
	}
	return old
}

// Current returns the current site, or nil.
func (h *Handler) Current() *Site { return h.cur.Load() }

// acquire returns the current site with a request counted on it, or nil.
func (h *Handler) acquire() *Site {
	for {
		s := h.cur.Load()
		if s == nil {
			return nil
		}
		s.acquire()
		if h.cur.Load() == s {
			return s
		}
		s.release() // switched meanwhile: use the new one
	}
}

// Security headers of every response but the CSP, which is per site.
var securityHeaders = []struct {
	key string
	val []string
}{
	{"X-Content-Type-Options", []string{"nosniff"}},
	{"Referrer-Policy", []string{"same-origin"}},
	{"X-Frame-Options", []string{"SAMEORIGIN"}},
	{"Cross-Origin-Opener-Policy", []string{"same-origin"}},
	{"Cross-Origin-Resource-Policy", []string{"same-origin"}},
	{"Permissions-Policy", []string{"camera=(), microphone=(), geolocation=(), payment=(), usb=()"}},
}

// fallbackCSP is the policy of responses given before any site is served.
const fallbackCSP = "default-src 'none'; frame-ancestors 'none'"

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hdr := w.Header()
	for _, kv := range securityHeaders {
		hdr[kv.key] = kv.val
	}
	switch r.URL.Path {
	case "/healthz":
		hdr.Set("Cache-Control", "no-store")
		hdr.Set("Content-Security-Policy", fallbackCSP)
		hdr.Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, "ok\n")
		return
	case "/readyz":
		h.ready(w)
		return
	}
	s := h.acquire()
	if s == nil {
		hdr.Set("Content-Security-Policy", fallbackCSP)
		hdr.Set("Retry-After", "5")
		http.Error(w, "The documentation site is starting: its bundle is being loaded.", http.StatusServiceUnavailable)
		return
	}
	defer s.release()
	if s.analytics != nil && s.analytics.serve(w, r, s) {
		return
	}
	hdr["Content-Security-Policy"] = s.csp
	if s.ownAssistant(r.URL.Path) {
		s.serveAssistant(w, r)
		return
	}
	if s.analytics != nil && s.assistant.Load() != nil && path.Clean(r.URL.Path) == feedbackPath {
		s.serveFeedback(w, r)
		return
	}
	if r.URL.Path == mcpPath && r.Method == http.MethodPost && s.mcp != nil {
		// The page of that name, if any, is still GET /mcp.
		s.serveMCP(w, r)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		hdr.Set("Allow", "GET, HEAD")
		http.Error(w, "Method not allowed: this site is read-only.", http.StatusMethodNotAllowed)
		return
	}
	f := s.resolve(r.URL.Path)
	if f == nil {
		s.notFound(w, r)
		return
	}
	h.serve(w, r, s, f)
}

// Cache-Control values.
var (
	cacheImmutable  = []string{"public, max-age=31536000, immutable"}
	cacheRevalidate = []string{"no-cache"} // revalidate with the ETag: a switch shows at once
	varyEncoding    = []string{"Accept-Encoding"}
	acceptRanges    = []string{"bytes"}
)

// plain reports whether r is neither conditional nor a range request.
func plain(r *http.Request) bool {
	for k := range r.Header {
		if k == "Range" || strings.HasPrefix(k, "If-") {
			return false
		}
	}
	return true
}

// serve sends file f with its validators, caching rules and, when the
// client accepts it, a compressed encoding. Conditional and range
// requests are answered by http.ServeContent.
func (h *Handler) serve(w http.ResponseWriter, r *http.Request, s *Site, f *siteFile) {
	hdr := w.Header()
	hdr["Content-Type"] = f.ctype
	hdr["Content-Security-Policy"] = f.csp
	if f.immutable {
		hdr["Cache-Control"] = cacheImmutable
	} else {
		hdr["Cache-Control"] = cacheRevalidate
	}
	name, data, length, etag := f.file, f.data, f.length, f.etag
	if f.compress {
		hdr["Vary"] = varyEncoding
		if enc := negotiate(r.Header.Get("Accept-Encoding")); enc >= 0 {
			if v := s.variant(f, enc); v != nil {
				name, data, length, etag = v.name, v.data, v.length, v.etag
				hdr["Content-Encoding"] = v.encoding
			}
		}
	}
	hdr["Etag"] = etag
	if data != nil {
		if plain(r) {
			// The common case, answered without ServeContent's copy
			// (whose buffer costs an allocation per request).
			hdr["Accept-Ranges"] = acceptRanges
			hdr["Content-Length"] = length
			w.WriteHeader(http.StatusOK)
			if r.Method != http.MethodHead {
				w.Write(data)
			}
			return
		}
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(data))
		return
	}
	fh, err := s.root.Open(name)
	if err != nil {
		h.log.Error("a file of the served tree cannot be read", "version", s.Version, "file", name, "err", err)
		http.Error(w, "The file could not be read.", http.StatusInternalServerError)
		return
	}
	defer fh.Close()
	http.ServeContent(w, r, "", time.Time{}, fh)
}

// notFoundPage is sent when the bundle has no 404.html.
const notFoundPage = "<!doctype html><meta charset=utf-8><title>Page not found</title><h1>Page not found</h1><p><a href=\"/\">Go to the home page</a></p>\n"

// notFound answers 404 with the site's 404.html.
func (s *Site) notFound(w http.ResponseWriter, r *http.Request) {
	hdr := w.Header()
	hdr.Set("Content-Type", "text/html; charset=utf-8")
	hdr.Set("Cache-Control", "no-cache")
	var body io.Reader
	if f := s.index["404.html"]; f != nil && f.data != nil {
		body = bytes.NewReader(f.data)
		hdr.Set("Content-Length", strconv.FormatInt(f.size, 10))
	} else if f != nil {
		if fh, err := s.root.Open(f.file); err == nil {
			defer fh.Close()
			body = fh
			hdr.Set("Content-Length", strconv.FormatInt(f.size, 10))
		}
	}
	if body == nil {
		hdr.Set("Content-Length", strconv.Itoa(len(notFoundPage)))
		body = strings.NewReader(notFoundPage)
	}
	w.WriteHeader(http.StatusNotFound)
	if r.Method != http.MethodHead {
		io.Copy(w, body)
	}
}

// readiness is the body of /readyz.
type readiness struct {
	Status string `json:"status"`
	// Version and BundleCreatedAt describe the served bundle.
	Version         string          `json:"version,omitempty"`
	BundleCreatedAt *time.Time      `json:"bundleCreatedAt,omitempty"`
	ServingSince    *time.Time      `json:"servingSince,omitempty"`
	Features        map[string]bool `json:"features,omitempty"`
	// AnalyticsProject is the project of selfhost's own analytics, in
	// the read API's paths.
	AnalyticsProject string `json:"analyticsProject,omitempty"`
}

func (h *Handler) ready(w http.ResponseWriter) {
	hdr := w.Header()
	hdr.Set("Cache-Control", "no-store")
	hdr.Set("Content-Security-Policy", fallbackCSP)
	hdr.Set("Content-Type", "application/json")
	s := h.cur.Load()
	if s == nil {
		w.WriteHeader(http.StatusServiceUnavailable)
		json.NewEncoder(w).Encode(readiness{Status: "starting"})
		return
	}
	created, built := s.CreatedAt, s.BuiltAt
	body := readiness{Status: "ready", Version: s.Version, BundleCreatedAt: &created, ServingSince: &built,
		Features: map[string]bool{"search": s.Features.Search, "assistant": s.Features.Assistant,
			"analytics": s.Features.Analytics, "playground": s.Features.Playground}}
	if s.analytics != nil {
		body.AnalyticsProject = s.analytics.ProjectID
	}
	json.NewEncoder(w).Encode(body)
}
