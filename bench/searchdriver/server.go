package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io/fs"
	"mime"
	"net"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// blankPath is the empty page of the site's origin that Pagefind is driven
// in: the server answers it itself.
const blankPath = "/__searchbench/blank.html"

// server serves a built site on loopback the way a plain static host does
// (index.html for folders, 404 for the rest), gzip-compressing text files
// for clients that accept it, as most static hosts do, and with
// Cache-Control: no-store, so that every measurement starts from an empty
// browser cache and every byte the page (or a worker it starts) loads
// goes through here. It records each request: when it came and ended and
// the body bytes sent (compressed) and those of the file (raw).
type server struct {
	root string
	addr string

	mu       sync.Mutex
	files    map[string][]byte // raw, by clean path
	gz       map[string][]byte // gzip-compressed, by clean path
	reqs     []request
	inflight int
	last     time.Time // when the last request ended
}

type request struct {
	path       string
	start, end time.Time
	wire, raw  int64
	status     int
}

// serve starts the server on 127.0.0.1 (a free port) and returns it.
func serve(root string) (*server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &server{root: root, addr: "http://" + ln.Addr().String(), files: map[string][]byte{}, gz: map[string][]byte{}}
	go func() { _ = http.Serve(ln, s) }() // ends with the process
	return s, nil
}

// compressible reports whether a file of this name is served gzip-encoded
// to clients that accept it.
func compressible(name string) bool {
	switch strings.ToLower(path.Ext(name)) {
	case ".html", ".js", ".mjs", ".css", ".json", ".xml", ".txt", ".svg", ".map":
		return true
	}
	return false
}

// content returns the body to send for the clean path p and whether it is
// gzip-encoded; nil when there is no such file.
func (s *server) content(p string, gzipOK bool) (body []byte, raw int64, encoded bool, err error) {
	s.mu.Lock()
	data, ok := s.files[p]
	s.mu.Unlock()
	if !ok {
		name := filepath.Join(s.root, filepath.FromSlash(strings.TrimPrefix(p, "/")))
		if st, err := os.Stat(name); err == nil && st.IsDir() {
			name = filepath.Join(name, "index.html")
		}
		data, err = os.ReadFile(name)
		if err != nil {
			return nil, 0, false, err
		}
		s.mu.Lock()
		s.files[p] = data
		s.mu.Unlock()
	}
	if !gzipOK || !compressible(p) || len(data) < 256 {
		return data, int64(len(data)), false, nil
	}
	s.mu.Lock()
	z, ok := s.gz[p]
	s.mu.Unlock()
	if !ok {
		var b bytes.Buffer
		w, _ := gzip.NewWriterLevel(&b, gzip.DefaultCompression)
		_, _ = w.Write(data)
		_ = w.Close()
		z = b.Bytes()
		s.mu.Lock()
		s.gz[p] = z
		s.mu.Unlock()
	}
	return z, int64(len(data)), true, nil
}

// precompress reads and compresses the text files under the site's
// folders dirs ahead of the measurements, so that no measured request
// waits for compression.
func (s *server) precompress(dirs ...string) {
	for _, d := range dirs {
		_ = filepath.WalkDir(filepath.Join(s.root, d), func(name string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return nil
			}
			rel, err := filepath.Rel(s.root, name)
			if err == nil && compressible(name) {
				_, _, _, _ = s.content("/"+filepath.ToSlash(rel), true)
			}
			return nil
		})
	}
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec := request{path: r.URL.Path, start: time.Now()}
	s.mu.Lock()
	s.inflight++
	s.mu.Unlock()
	defer func() {
		rec.end = time.Now()
		s.mu.Lock()
		s.inflight--
		s.reqs = append(s.reqs, rec)
		s.last = rec.end
		s.mu.Unlock()
	}()

	h := w.Header()
	h.Set("Cache-Control", "no-store")
	p := path.Clean("/" + r.URL.Path)
	if p == blankPath {
		body := []byte("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>blank</title></head><body></body></html>\n")
		h.Set("Content-Type", "text/html; charset=utf-8")
		n, _ := w.Write(body)
		rec.wire, rec.raw, rec.status = int64(n), int64(n), 200
		return
	}
	body, raw, encoded, err := s.content(p, strings.Contains(r.Header.Get("Accept-Encoding"), "gzip"))
	if err != nil {
		rec.status = http.StatusNotFound
		http.Error(w, "404 not found", http.StatusNotFound)
		return
	}
	name := p
	if strings.HasSuffix(name, "/") || path.Ext(name) == "" {
		name = path.Join(name, "index.html")
	}
	ctype := mime.TypeByExtension(path.Ext(name))
	if ctype == "" {
		ctype = "application/octet-stream"
	}
	h.Set("Content-Type", ctype)
	if encoded {
		h.Set("Content-Encoding", "gzip")
		h.Set("Vary", "Accept-Encoding")
	}
	h.Set("Content-Length", fmt.Sprint(len(body)))
	rec.status = 200
	if r.Method == http.MethodHead {
		return
	}
	n, _ := w.Write(body)
	rec.wire, rec.raw = int64(n), raw
}

// mark returns the number of requests recorded so far, the start of a
// window of them.
func (s *server) mark() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.reqs)
}

// window sums the requests recorded since mark that ended by until (zero:
// all of them): body bytes sent and file bytes, and the number of requests.
func (s *server) window(mark int, until time.Time) (wire, raw int64, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.reqs[mark:] {
		if !until.IsZero() && r.end.After(until) {
			continue
		}
		wire += r.wire
		raw += r.raw
		n++
	}
	return wire, raw, n
}

// paths lists the paths requested since mark, for the log.
func (s *server) paths(mark int) []string {
	in, out := s.requests(mark, time.Time{})
	return append(in, out...)
}

// requests lists the requests since mark, as path and KB sent: those that
// ended by until (zero: all) and the others.
func (s *server) requests(mark int, until time.Time) (in, out []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.reqs[mark:] {
		p := fmt.Sprintf("%s(%.1f)", r.path, float64(r.wire)/1024)
		if r.status != 200 {
			p += fmt.Sprintf("[%d]", r.status)
		}
		if until.IsZero() || !r.end.After(until) {
			in = append(in, p)
		} else {
			out = append(out, p)
		}
	}
	return in, out
}

// idle waits until no request has been in flight or has ended for quiet,
// or max has passed.
func (s *server) idle(quiet, max time.Duration) {
	deadline := time.Now().Add(max)
	for time.Now().Before(deadline) {
		s.mu.Lock()
		ok := s.inflight == 0 && time.Since(s.last) >= quiet
		s.mu.Unlock()
		if ok {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}
