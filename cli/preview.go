package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/blobstore"
	"lectern.dev/lectern/render/features"
	"lectern.dev/lectern/sites"
)

// previewHandler serves a built site from its output folder, for
// lectern build --serve: paths map to files as on a live site
// (lectern.SiteFiles), under the base path when there is one, and a
// missing path gets the site's 404.html. Files have the headers of a live
// site (features.ServeHeaders): pages its Content-Security-Policy, other
// files a sandbox, the repository's JavaScript text/plain. Nothing is cached, by the server
// or the browser, so a reload shows the last rebuild. The folder is
// opened for each request, as a build may replace it, and read through
// os.Root, so no path or link leads outside it.
type previewHandler struct {
	dir  string
	base string // "" or like "/docs"
}

func (h previewHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	root, err := os.OpenRoot(h.dir)
	if err != nil {
		w.Header().Set("Retry-After", "1")
		http.Error(w, "The site has not been built yet.", http.StatusServiceUnavailable)
		return
	}
	defer root.Close()
	p := r.URL.Path
	if h.base != "" {
		rest, ok := strings.CutPrefix(p, h.base)
		switch {
		case p == "/":
			http.Redirect(w, r, h.base+"/", http.StatusFound)
			return
		case !ok || rest != "" && !strings.HasPrefix(rest, "/"):
			h.notFound(w, r, root)
			return
		}
		p = "/" + strings.TrimPrefix(rest, "/")
	}
	for _, name := range lectern.SiteFiles(p) {
		if h.serveFile(w, r, root, name, http.StatusOK) {
			return
		}
	}
	h.notFound(w, r, root)
}

func (h previewHandler) notFound(w http.ResponseWriter, r *http.Request, root *os.Root) {
	if !h.serveFile(w, r, root, "404.html", http.StatusNotFound) {
		http.NotFound(w, r)
	}
}

// serveFile serves the file name of the folder; false when there is none.
func (h previewHandler) serveFile(w http.ResponseWriter, r *http.Request, root *os.Root, name string, status int) bool {
	f, err := root.Open(name)
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	var content io.ReadSeeker = f
	pageCSP := ""
	if features.IsPage(name) {
		// The policy of a page names the API servers of its "Try it"
		// forms, as on a live site.
		data, err := io.ReadAll(f)
		if err != nil {
			return false
		}
		content, pageCSP = bytes.NewReader(data), sites.PageCSP(data)
	}
	ctype, csp := features.ServeHeaders(name, blobstore.ContentType(name), pageCSP)
	hd := w.Header()
	hd.Set("Content-Type", ctype)
	hd.Set("Content-Security-Policy", csp)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Cache-Control", "no-store")
	if status != http.StatusOK {
		w.WriteHeader(status)
		if r.Method != http.MethodHead {
			io.Copy(w, content)
		}
		return true
	}
	http.ServeContent(w, r, "", fi.ModTime(), content)
	return true
}

// previewAddress is the URL lectern build --serve prints for the listener
// and base path.
func previewAddress(ln net.Listener, base string) string {
	addr := ln.Addr().String()
	if host, port, err := net.SplitHostPort(addr); err == nil {
		if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
			addr = net.JoinHostPort("localhost", port)
		}
	}
	return "http://" + addr + base + "/"
}

// servePreview serves the output folder dir on the listener until ctx
// ends.
func servePreview(ctx context.Context, ln net.Listener, dir, base string) error {
	srv := &http.Server{Handler: previewHandler{dir: dir, base: base}, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(shutdown)
		if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}
}

// basePathOf is --base-path as the site uses it: "" or "/docs" (a
// leading slash added, trailing ones dropped).
func basePathOf(b string) string {
	b = strings.Trim(b, "/")
	if b == "" {
		return ""
	}
	return "/" + b
}
