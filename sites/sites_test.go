package sites

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/blob/driver"
	"gocloud.dev/gcerrors"

	"lectern.dev/lectern"
	"lectern.dev/lectern/blobstore"
	"lectern.dev/lectern/blobstore/blobtest"
	"lectern.dev/lectern/render/features"
	"lectern.dev/lectern/store"
	"lectern.dev/lectern/store/sqlite"
)

// ---- fixtures ----

func discardLog() *slog.Logger { return slog.New(slog.DiscardHandler) }

func openStore(t testing.TB) *sqlite.Store {
	t.Helper()
	st, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "lectern.db"))
	if err != nil {
		t.Fatalf("sqlite.Open: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func newProject(t testing.TB, st store.Store, domains ...string) *lectern.Project {
	t.Helper()
	ctx := t.Context()
	o := &lectern.Organization{Name: "Org", Plan: lectern.PlanPro}
	if err := st.CreateOrg(ctx, o); err != nil {
		t.Fatalf("CreateOrg: %v", err)
	}
	p := &lectern.Project{OrgID: o.ID, Name: "Docs", RepoURL: "https://git.example.com/docs.git", Branch: "main",
		DocsRoot: "/", Domains: domains, DeploymentType: lectern.DeploymentCloud}
	if err := st.CreateProject(ctx, p); err != nil {
		t.Fatalf("CreateProject: %v", err)
	}
	return p
}

// publish writes files as a new deployment of p, each under its own key
// (no manifest), and makes it live the way the update worker does
// (deploy).
func publish(t testing.TB, st store.Store, b *blob.Bucket, projectID string, files map[string]string) string {
	t.Helper()
	return deploy(t, st, projectID, len(files), func(dep string) {
		for name, body := range files {
			if err := b.WriteAll(context.Background(), blobstore.SiteKey(projectID, dep, name), []byte(body), nil); err != nil {
				t.Fatalf("write %s: %v", name, err)
			}
		}
	})
}

// deploy makes a new deployment of projectID live as the update worker
// does: CreateUpdate, ClaimJob, write (the deployment's files, given its
// id), FinishUpdate with pages pages. It returns the deployment's id.
func deploy(t testing.TB, st store.Store, projectID string, pages int, write func(dep string)) string {
	t.Helper()
	ctx := context.Background()
	u := &lectern.Update{ProjectID: projectID, Source: "test"}
	if err := st.CreateUpdate(ctx, u); err != nil {
		t.Fatalf("CreateUpdate: %v", err)
	}
	job, lease, err := st.ClaimJob(ctx, store.ClaimParams{Kinds: []string{store.KindUpdate}, Owner: "test",
		Now: time.Now().Add(time.Second), LeaseFor: time.Minute})
	if err != nil || job == nil || job.ID != u.ID {
		t.Fatalf("ClaimJob = %v, %v; want job %s", job, err, u.ID)
	}
	dep := lectern.NewID(lectern.PrefixDeployment)
	write(dep)
	err = st.FinishUpdate(ctx, lease, store.UpdateResult{Status: lectern.UpdateSuccess, Summary: "ok",
		Commit: &lectern.Commit{SHA: "abc", Ref: "main"}, EndedAt: time.Now(),
		Deployment: &lectern.Deployment{ID: dep, ProjectID: projectID, UpdateID: u.ID, Commit: lectern.Commit{SHA: "abc", Ref: "main"}, PageCount: pages}})
	if err != nil {
		t.Fatalf("FinishUpdate: %v", err)
	}
	return dep
}

var pngBytes = "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR-fake-png-body-0123456789"

var siteFiles = map[string]string{
	"index.html":                  "<h1>home page</h1>",
	"guides/x.html":               "<h1>guide x</h1>",
	"guides/index.html":           "<h1>guides index</h1>",
	"404.html":                    "<h1>custom not found page</h1>",
	"_lectern/style.css":          "body{color:red}",
	"_lectern/nav/s.js":           "window.lecternNav={}",
	"_lectern/search/meta.js":     "LECTERN_SEARCH(\"\");\n",
	"_lectern/search/f/0.js":      "LECTERN_SEARCH(\"\");\n",
	"_lectern/search/c/1x2y3z.js": "LECTERN_SEARCH(\"\");\n",
	"images/a.png":                pngBytes,
}

type site struct {
	st     *sqlite.Store
	bucket *blob.Bucket
	srv    *Server
	p      *lectern.Project
	depID  string
}

func newSite(t *testing.T) *site {
	t.Helper()
	st, b := openStore(t), blobtest.Folder(t)
	p := newProject(t, st, "docs.example.com", "help.example.org")
	dep := publish(t, st, b, p.ID, siteFiles)
	return &site{st: st, bucket: b, srv: New(discardLog(), st, b), p: p, depID: dep}
}

func do(h http.Handler, method, host, target string, hdr ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, target, nil)
	r.Host = host
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Set(hdr[i], hdr[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// ---- tests ----

func TestServeFiles(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	for _, tc := range []struct {
		path, body, ctype string
		status            int
	}{
		{"/", siteFiles["index.html"], "text/html; charset=utf-8", 200},
		{"/index.html", siteFiles["index.html"], "text/html; charset=utf-8", 200},
		{"/index", siteFiles["index.html"], "text/html; charset=utf-8", 200},
		{"/guides/x", siteFiles["guides/x.html"], "text/html; charset=utf-8", 200},
		{"/guides/x/", siteFiles["guides/x.html"], "text/html; charset=utf-8", 200},
		{"/guides/x.html", siteFiles["guides/x.html"], "text/html; charset=utf-8", 200},
		{"/guides/x?utm=1", siteFiles["guides/x.html"], "text/html; charset=utf-8", 200},
		{"//guides//x", siteFiles["guides/x.html"], "text/html; charset=utf-8", 200},
		{"/guides/", siteFiles["guides/index.html"], "text/html; charset=utf-8", 200},
		{"/guides", siteFiles["guides/index.html"], "text/html; charset=utf-8", 200},
		{"/images/a.png", pngBytes, "image/png", 200},
		{"/_lectern/style.css", siteFiles["_lectern/style.css"], "text/css; charset=utf-8", 200},
		{"/nope", siteFiles["404.html"], "text/html; charset=utf-8", 404},
		{"/guides/y/", siteFiles["404.html"], "text/html; charset=utf-8", 404},
		{"/images/missing.png", siteFiles["404.html"], "text/html; charset=utf-8", 404},
		{"/404", siteFiles["404.html"], "text/html; charset=utf-8", 200},
	} {
		for _, host := range []string{"docs.example.com", "help.example.org", "DOCS.Example.COM:8443", "Help.Example.Org.", "docs.example.com:80"} {
			w := do(s.srv, "GET", host, tc.path)
			if w.Code != tc.status || w.Body.String() != tc.body {
				t.Errorf("GET %s%s = %d %q, want %d %q", host, tc.path, w.Code, w.Body.String(), tc.status, tc.body)
			}
			if got := w.Header().Get("Content-Type"); got != tc.ctype {
				t.Errorf("GET %s%s Content-Type = %q, want %q", host, tc.path, got, tc.ctype)
			}
			if got := w.Header().Get("X-Content-Type-Options"); got != "nosniff" {
				t.Errorf("GET %s%s X-Content-Type-Options = %q, want nosniff", host, tc.path, got)
			}
			if tc.status == 404 {
				if got := w.Header().Get("Cache-Control"); got != "no-store" {
					t.Errorf("GET %s%s 404 Cache-Control = %q, want no-store", host, tc.path, got)
				}
				if got := w.Header().Get("ETag"); got != "" {
					t.Errorf("GET %s%s 404 has ETag %q", host, tc.path, got)
				}
			}
		}
	}
	for _, host := range []string{"docs.example.com", "DOCS.EXAMPLE.COM:8080", "help.example.org."} {
		if !s.srv.Serves(t.Context(), host) {
			t.Errorf("Serves(%q) = false, want true", host)
		}
	}
}

func TestCacheHeaders(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	for path, want := range map[string]string{
		"/":                   "no-cache",
		"/guides/x":           "no-cache",
		"/images/a.png":       "public, max-age=300",
		"/_lectern/style.css": "no-cache",
		"/_lectern/nav/s.js":  "no-cache", // its name does not change with its content
		// nor the search index's: a meta file kept from the last deployment
		// would name chunks this one does not have.
		"/_lectern/search/meta.js": "no-cache",
		"/_lectern/search/f/0.js":  "no-cache",
		// A chunk is named by its content.
		"/_lectern/search/c/1x2y3z.js": "public, max-age=31536000, immutable",
	} {
		w := do(s.srv, "GET", "docs.example.com", path)
		if w.Code != 200 {
			t.Fatalf("GET %s = %d", path, w.Code)
		}
		if got := w.Header().Get("Cache-Control"); got != want {
			t.Errorf("GET %s Cache-Control = %q, want %q", path, got, want)
		}
	}
}

func TestETag(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	w := do(s.srv, "GET", "docs.example.com", "/guides/x")
	etag := w.Header().Get("ETag")
	if w.Code != 200 || len(etag) < 3 || etag[0] != '"' || etag[len(etag)-1] != '"' {
		t.Fatalf("GET = %d, ETag %q; want 200 and a quoted ETag", w.Code, etag)
	}
	// The same file under another URL has the same ETag; another file not.
	if got := do(s.srv, "GET", "help.example.org", "/guides/x.html").Header().Get("ETag"); got != etag {
		t.Errorf("ETag of /guides/x.html = %q, want %q", got, etag)
	}
	if got := do(s.srv, "GET", "docs.example.com", "/").Header().Get("ETag"); got == etag || got == "" {
		t.Errorf("ETag of / = %q, want a different non-empty ETag than %q", got, etag)
	}
	w = do(s.srv, "GET", "docs.example.com", "/guides/x", "If-None-Match", etag)
	if w.Code != http.StatusNotModified || w.Body.Len() != 0 {
		t.Errorf("If-None-Match current = %d %q, want 304 and no body", w.Code, w.Body.String())
	}
	if got := w.Header().Get("ETag"); got != etag {
		t.Errorf("304 ETag = %q, want %q", got, etag)
	}
	w = do(s.srv, "GET", "docs.example.com", "/guides/x", "If-None-Match", `"stale"`)
	if w.Code != 200 || w.Body.String() != siteFiles["guides/x.html"] {
		t.Errorf("If-None-Match stale = %d %q, want 200 and the page", w.Code, w.Body.String())
	}
	// A new deployment changes the ETag of an unchanged file name, so a
	// browser revalidating gets the new page.
	publish(t, s.st, s.bucket, s.p.ID, map[string]string{"guides/x.html": "<h1>guide x, v2</h1>"})
	w = do(s.srv, "GET", "docs.example.com", "/guides/x", "If-None-Match", etag)
	if w.Code != 200 || w.Body.String() != "<h1>guide x, v2</h1>" || w.Header().Get("ETag") == etag {
		t.Errorf("after redeploy If-None-Match old = %d %q ETag %q, want 200, the new page and a new ETag",
			w.Code, w.Body.String(), w.Header().Get("ETag"))
	}
}

func TestRange(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	w := do(s.srv, "GET", "docs.example.com", "/images/a.png", "Range", "bytes=1-3")
	if w.Code != http.StatusPartialContent || w.Body.String() != pngBytes[1:4] {
		t.Errorf("Range = %d %q, want 206 %q", w.Code, w.Body.String(), pngBytes[1:4])
	}
}

func TestHEAD(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	w := do(s.srv, "HEAD", "docs.example.com", "/")
	if w.Code != 200 || w.Body.Len() != 0 {
		t.Errorf("HEAD / = %d with %d body bytes, want 200 and none", w.Code, w.Body.Len())
	}
	if got, want := w.Header().Get("Content-Length"), "18"; got != want || len(siteFiles["index.html"]) != 18 {
		t.Errorf("HEAD / Content-Length = %q, want %q", got, want)
	}
	if got := w.Header().Get("Content-Type"); got != "text/html; charset=utf-8" {
		t.Errorf("HEAD / Content-Type = %q", got)
	}
	w = do(s.srv, "HEAD", "docs.example.com", "/nope")
	if w.Code != 404 || w.Body.Len() != 0 {
		t.Errorf("HEAD /nope = %d with body %q, want 404 and none", w.Code, w.Body.String())
	}
}

func TestMethodNotAllowed(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	for _, m := range []string{"POST", "PUT", "DELETE", "PATCH", "OPTIONS"} {
		w := do(s.srv, m, "docs.example.com", "/")
		if w.Code != http.StatusMethodNotAllowed {
			t.Errorf("%s / = %d, want 405", m, w.Code)
		}
		if got := w.Header().Get("Allow"); got != "GET, HEAD" {
			t.Errorf("%s / Allow = %q, want %q", m, got, "GET, HEAD")
		}
		if strings.Contains(w.Body.String(), "home page") {
			t.Errorf("%s / served the page", m)
		}
	}
}

func TestUnknownHost(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	for _, host := range []string{"other.example.net", "example.com", "docs.example.com.evil.net", "xdocs.example.com", ""} {
		if s.srv.Serves(t.Context(), host) {
			t.Errorf("Serves(%q) = true, want false", host)
		}
		w := do(s.srv, "GET", host, "/")
		if w.Code != 404 || strings.Contains(w.Body.String(), "custom not found") || strings.Contains(w.Body.String(), "home") {
			t.Errorf("GET %q / = %d %q, want a plain 404", host, w.Code, w.Body.String())
		}
		if w.Body.String() != "404 page not found\n" {
			t.Errorf("GET %q / body = %q, want the plain 404 text", host, w.Body.String())
		}
	}
}

func TestIPHostNeverServed(t *testing.T) {
	t.Parallel()
	st, b := openStore(t), blobtest.Folder(t)
	// The store accepts these as domains; the site server must still never
	// serve a request addressed by IP.
	p := newProject(t, st, "10.1.2.3", "::1", "127.0.0.1", "ip-docs.example.com")
	publish(t, st, b, p.ID, siteFiles)
	srv := New(discardLog(), st, b)
	if !srv.Serves(t.Context(), "ip-docs.example.com") {
		t.Fatal("control: Serves(ip-docs.example.com) = false")
	}
	for _, host := range []string{"10.1.2.3", "10.1.2.3:8080", "127.0.0.1", "[::1]:443", "::1"} {
		if srv.Serves(t.Context(), host) {
			t.Errorf("Serves(%q) = true, want false", host)
		}
		w := do(srv, "GET", host, "/")
		if w.Code != 404 || strings.Contains(w.Body.String(), "home page") {
			t.Errorf("GET %s / = %d %q, want a plain 404", host, w.Code, w.Body.String())
		}
	}
}

func TestNotDeployedYet(t *testing.T) {
	t.Parallel()
	st, b := openStore(t), blobtest.Folder(t)
	newProject(t, st, "new.example.com")
	srv := New(discardLog(), st, b)
	if !srv.Serves(t.Context(), "new.example.com") {
		t.Fatal("Serves(new.example.com) = false, want true")
	}
	for _, path := range []string{"/", "/guides/x", "/404.html"} {
		w := do(srv, "GET", "new.example.com", path)
		if w.Code != 404 || !strings.Contains(w.Body.String(), "not been deployed yet") {
			t.Errorf("GET %s = %d %q, want 404 saying not deployed", path, w.Code, w.Body.String())
		}
		if got := w.Header().Get("Cache-Control"); got != "no-store" {
			t.Errorf("GET %s Cache-Control = %q, want no-store", path, got)
		}
		if got := w.Header().Get("Content-Type"); !strings.HasPrefix(got, "text/plain") {
			t.Errorf("GET %s Content-Type = %q, want text/plain", path, got)
		}
	}
	// Once deployed, the next request is served.
	publish(t, st, b, mustProject(t, st, "new.example.com").ID, siteFiles)
	if w := do(srv, "GET", "new.example.com", "/"); w.Code != 200 || w.Body.String() != siteFiles["index.html"] {
		t.Errorf("after deploy GET / = %d %q", w.Code, w.Body.String())
	}
}

func mustProject(t *testing.T, st store.Projects, domain string) *lectern.Project {
	t.Helper()
	p, err := st.GetProjectByDomain(t.Context(), domain)
	if err != nil {
		t.Fatalf("GetProjectByDomain(%s): %v", domain, err)
	}
	return p
}

func TestNo404Page(t *testing.T) {
	t.Parallel()
	st, b := openStore(t), blobtest.Folder(t)
	p := newProject(t, st, "bare.example.com")
	publish(t, st, b, p.ID, map[string]string{"index.html": "bare"})
	srv := New(discardLog(), st, b)
	w := do(srv, "GET", "bare.example.com", "/missing")
	if w.Code != 404 || w.Body.String() != "404 page not found\n" {
		t.Errorf("GET /missing = %d %q, want the plain 404", w.Code, w.Body.String())
	}
}

// failingProjects is a Resolver whose lookups fail.
type failingProjects struct{}

func (failingProjects) ResolveDomain(context.Context, string) (string, string, error) {
	return "", "", errors.New("database is on fire")
}

func (failingProjects) GetProject(context.Context, string) (*lectern.Project, error) {
	return nil, errors.New("database is on fire")
}

// A host never looked up successfully is not claimed while the store
// fails, and a page request for it answers 503 with Retry-After, without
// the error's text.
func TestStoreErrorIsNotServed(t *testing.T) {
	t.Parallel()
	srv := New(discardLog(), failingProjects{}, blobtest.Folder(t))
	if srv.Serves(t.Context(), "docs.example.com") {
		t.Error("Serves = true on a store error")
	}
	w := do(srv, "GET", "docs.example.com", "/")
	if w.Code != 503 || w.Header().Get("Retry-After") == "" || strings.Contains(w.Body.String(), "fire") {
		t.Errorf("GET on a store error = %d (Retry-After %q) %q, want 503 with Retry-After and without the error text",
			w.Code, w.Header().Get("Retry-After"), w.Body.String())
	}
}

// outage is a Resolver that fails while down is set.
type outage struct {
	Resolver
	down   atomic.Bool
	failed atomic.Int32 // lookups answered with an error
}

func (o *outage) ResolveDomain(ctx context.Context, d string) (string, string, error) {
	if o.down.Load() {
		o.failed.Add(1)
		return "", "", &lectern.Error{Code: lectern.EUNAVAILABLE, Message: "The database is unavailable."}
	}
	return o.Resolver.ResolveDomain(ctx, d)
}

// While the database is down, a site this server has served keeps being
// served from its last known live deployment; a domain it never resolved
// answers 503. When the database is back, lookups are fresh again.
func TestStoreOutageServesLastKnownDeployment(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	res := &outage{Resolver: s.st}
	srv := New(discardLog(), res, s.bucket)
	if w := do(srv, "GET", "docs.example.com", "/guides/x"); w.Code != 200 {
		t.Fatalf("before the outage: %d", w.Code)
	}
	res.down.Store(true)
	time.Sleep(cacheFor + 50*time.Millisecond) // past Serves's memory
	if !srv.Serves(t.Context(), "docs.example.com") {
		t.Error("Serves = false for a known site during the outage")
	}
	for range 20 {
		if w := do(srv, "GET", "docs.example.com", "/guides/x"); w.Code != 200 || w.Body.String() != siteFiles["guides/x.html"] {
			t.Fatalf("known site during the outage = %d %q, want its page", w.Code, w.Body.String())
		}
	}
	// The failing store is asked again only after cacheFor, not per request.
	if n := res.failed.Load(); n != 1 {
		t.Errorf("%d failed lookups for 21 requests within a second, want 1", n)
	}
	if w := do(srv, "GET", "help.example.org", "/"); w.Code != 503 {
		t.Errorf("domain never resolved during the outage = %d, want 503", w.Code)
	}
	// Back: a new deployment is seen once the failure is older than cacheFor.
	res.down.Store(false)
	publish(t, s.st, s.bucket, s.p.ID, map[string]string{"index.html": "new", "guides/x.html": "new x", "404.html": "nf"})
	time.Sleep(cacheFor + 50*time.Millisecond)
	if w := do(srv, "GET", "docs.example.com", "/guides/x"); w.Body.String() != "new x" {
		t.Errorf("after the outage = %q, want the new deployment", w.Body.String())
	}
}

// A bucket that fails (the object store down) answers 503 with Retry-After
// and no detail of the error.
func TestBucketErrorIs503(t *testing.T) {
	t.Parallel()
	st, b := openStore(t), blobtest.Folder(t)
	p := newProject(t, st, "broken.example.com")
	publish(t, st, b, p.ID, siteFiles)
	b.Close() // every read now fails, not with NotFound
	srv := New(discardLog(), st, b)
	w := do(srv, "GET", "broken.example.com", "/")
	if w.Code != 503 || w.Header().Get("Retry-After") == "" || strings.Contains(w.Body.String(), "closed") {
		t.Errorf("GET with a failing bucket = %d (Retry-After %q) %q, want 503 with Retry-After and no details",
			w.Code, w.Header().Get("Retry-After"), w.Body.String())
	}
}

// A URL path that continues below a file (a mistyped link, a crawler
// probing /index.html/, a relative link resolved against a page URL ending
// in .html) names no file and must get the site's 404 page, although the
// file bucket reports ENOTDIR for such keys, which is not NotFound.
func TestPathBelowFileIs404(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	for _, path := range []string{"/index.html/", "/index.html/x", "/guides/x.html/y", "/images/a.png/", "/images/a.png/b.png"} {
		w := do(s.srv, "GET", "docs.example.com", path)
		if w.Code != 404 || w.Body.String() != siteFiles["404.html"] {
			t.Errorf("GET %s = %d %q, want 404 with the site's 404 page", path, w.Code, w.Body.String())
		}
	}
}

// fileblob refuses keys ending in ".attrs" (its metadata side files) with
// an error that is not NotFound; a visitor requesting /any.attrs still gets
// the site's 404 page.
func TestAttrsSuffixIs404(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	for _, path := range []string{"/index.html.attrs", "/x.attrs", "/images/a.png.attrs"} {
		w := do(s.srv, "GET", "docs.example.com", path)
		if w.Code != 404 || w.Body.String() != siteFiles["404.html"] {
			t.Errorf("GET %s = %d %q, want 404 with the site's 404 page", path, w.Code, w.Body.String())
		}
	}
}

// TestReservedNamesServed publishes files whose names the file bucket
// reserves (".attrs") or that look like their escaped form, and serves
// each with its own content.
func TestReservedNamesServed(t *testing.T) {
	t.Parallel()
	st, b := openStore(t), blobtest.Folder(t)
	p := newProject(t, st, "attrs.example.com")
	files := map[string]string{"index.html": "home", "404.html": "missing", "data.attrs": "one",
		"data.attrs.lectern": "two", "data.attrs.lectern.lectern": "three", "x.lectern": "four"}
	publish(t, st, b, p.ID, files)
	srv := New(discardLog(), st, b)
	for name, body := range files {
		if w := do(srv, "GET", "attrs.example.com", "/"+name); w.Code != 200 || w.Body.String() != body {
			t.Errorf("GET /%s = %d %q, want %q", name, w.Code, w.Body.String(), body)
		}
	}
}

// ---- traversal, with a bucket that records every key read ----

// recordingBucket is a driver.Bucket over a real bucket that records the
// keys of every read.
type recordingBucket struct {
	b    *blob.Bucket
	mu   sync.Mutex
	keys []string
}

func (r *recordingBucket) record(key string) {
	r.mu.Lock()
	r.keys = append(r.keys, key)
	r.mu.Unlock()
}

func (r *recordingBucket) read() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.keys)
}

func (r *recordingBucket) ErrorCode(err error) gcerrors.ErrorCode { return gcerrors.Code(err) }
func (r *recordingBucket) As(any) bool                            { return false }
func (r *recordingBucket) ErrorAs(error, any) bool                { return false }
func (r *recordingBucket) Attributes(ctx context.Context, key string) (*driver.Attributes, error) {
	r.record(key)
	a, err := r.b.Attributes(ctx, key)
	if err != nil {
		return nil, err
	}
	return &driver.Attributes{ContentType: a.ContentType, ModTime: a.ModTime, Size: a.Size, ETag: a.ETag}, nil
}
func (r *recordingBucket) ListPaged(context.Context, *driver.ListOptions) (*driver.ListPage, error) {
	return &driver.ListPage{}, nil
}
func (r *recordingBucket) NewRangeReader(ctx context.Context, key string, offset, length int64, _ *driver.ReaderOptions) (driver.Reader, error) {
	r.record(key)
	rd, err := r.b.NewRangeReader(ctx, key, offset, length, nil)
	if err != nil {
		return nil, err
	}
	return &recReader{rd}, nil
}
func (r *recordingBucket) NewTypedWriter(context.Context, string, string, *driver.WriterOptions) (driver.Writer, error) {
	return nil, errors.New("read-only")
}
func (r *recordingBucket) Copy(context.Context, string, string, *driver.CopyOptions) error {
	return errors.New("read-only")
}
func (r *recordingBucket) Delete(context.Context, string, *driver.DeleteOptions) error {
	return errors.New("read-only")
}
func (r *recordingBucket) SignedURL(context.Context, string, *driver.SignedURLOptions) (string, error) {
	return "", errors.New("unsupported")
}
func (r *recordingBucket) Close() error { return nil }

type recReader struct{ rd *blob.Reader }

func (r *recReader) Read(p []byte) (int, error) { return r.rd.Read(p) }
func (r *recReader) Close() error               { return r.rd.Close() }
func (r *recReader) As(any) bool                { return false }
func (r *recReader) Attributes() *driver.ReaderAttributes {
	return &driver.ReaderAttributes{ContentType: r.rd.ContentType(), ModTime: r.rd.ModTime(), Size: r.rd.Size()}
}

func TestTraversalStaysInDeployment(t *testing.T) {
	t.Parallel()
	st, under := openStore(t), blobtest.Folder(t)
	p := newProject(t, st, "docs.example.com")
	other := newProject(t, st, "other.example.com")
	dep := publish(t, st, under, p.ID, siteFiles)
	otherDep := publish(t, st, under, other.ID, map[string]string{"secret.html": "POISON other project"})
	ctx := t.Context()
	for _, key := range []string{"etc/passwd", "x", "sites/etc/passwd", "sites/" + p.ID + "/etc/passwd",
		"sites/" + p.ID + "/" + dep + "/etc/passwd", "sites/" + p.ID + "/" + dep + "/x",
		blobstore.SiteKey(p.ID, "dep_older", "secret.html"), blobstore.SourceKey(p.ID, dep)} {
		if err := under.WriteAll(ctx, key, []byte("POISON "+key), nil); err != nil {
			t.Fatal(err)
		}
	}
	rec := &recordingBucket{b: under}
	srv := New(discardLog(), st, blob.NewBucket(rec))
	// The control: the recording bucket serves the site.
	if w := do(srv, "GET", "docs.example.com", "/guides/x"); w.Code != 200 || w.Body.String() != siteFiles["guides/x.html"] {
		t.Fatalf("control GET /guides/x = %d %q", w.Code, w.Body.String())
	}
	paths := []string{
		"/../../etc/passwd", "/%2e%2e/x", "/%2e%2e/%2e%2e/etc/passwd", "/..%2f..%2f..%2fetc/passwd",
		"/guides/../../../../etc/passwd", "/../source.tar.gz", "/../../" + otherDep + "/site/secret.html",
		"/../../../" + other.ID + "/" + otherDep + "/site/secret.html", "/../../dep_older/site/secret.html",
		"/%2E%2E%2F%2E%2E%2Fx", "/..\\..\\etc\\passwd", "/./../x", "/...//../etc/passwd",
		"/%2e%2e/%2e%2e/%2e%2e/%2e%2e/" + blobstore.SiteKey(other.ID, otherDep, "secret.html"),
	}
	prefix := blobstore.SitePrefix(p.ID, dep)
	for _, path := range paths {
		w := do(srv, "GET", "docs.example.com", path)
		if strings.Contains(w.Body.String(), "POISON") {
			t.Errorf("GET %s served a blob outside the deployment: %d %q", path, w.Code, w.Body.String())
		}
		if w.Code != 404 || w.Body.String() != siteFiles["404.html"] {
			t.Errorf("GET %s = %d %q, want the 404 page", path, w.Code, w.Body.String())
		}
	}
	keys := rec.read()
	if len(keys) < len(paths) {
		t.Fatalf("recorded %d reads for %d requests", len(keys), len(paths))
	}
	for _, k := range keys {
		if !strings.HasPrefix(k, prefix) || slices.Contains(strings.Split(k, "/"), "..") || slices.Contains(strings.Split(k, "/"), ".") {
			t.Errorf("read key %q outside the deployment prefix %q", k, prefix)
		}
	}
}

// ---- atomic switch ----

const linesPerPage = 2000

// versionFiles returns the files of a deployment in which every page is
// made only of lines naming one version and its generation. Versions A and
// B lay out /guides/x differently (guides/x.html against
// guides/x/index.html), so a server that looked up different candidates
// in different deployments would answer 404 during a switch.
func versionFiles(v string, gen int) map[string]string {
	page := func(name string) string {
		line := fmt.Sprintf("version %s gen %d %s\n", v, gen, name)
		return strings.Repeat(line, linesPerPage) // ~60 KB: many reads per response
	}
	files := map[string]string{
		"index.html":        page("index"),
		"guides/index.html": page("guides"),
		"404.html":          page("404"),
		"big/y.html":        page("y"),
	}
	if v == "A" {
		files["guides/x.html"] = page("x")
	} else {
		files["guides/x/index.html"] = page("x")
	}
	return files
}

// pageVersion returns the version and generation of a page body, or an
// error when the body mixes versions or is truncated.
func pageVersion(body string) (string, int, error) {
	first, _, ok := strings.Cut(body, "\n")
	var v, name string
	var gen int
	if !ok {
		return "", 0, fmt.Errorf("no complete line in %d bytes", len(body))
	}
	if _, err := fmt.Sscanf(first, "version %s gen %d %s", &v, &gen, &name); err != nil {
		return "", 0, fmt.Errorf("unexpected first line %q", first)
	}
	if body != strings.Repeat(first+"\n", linesPerPage) {
		return "", 0, fmt.Errorf("body of %d bytes mixes versions or is truncated (first line %q, %d A lines, %d B lines)",
			len(body), first, strings.Count(body, "version A"), strings.Count(body, "version B"))
	}
	return v, gen, nil
}

func TestAtomicSwitch(t *testing.T) {
	t.Parallel()
	st, b := openStore(t), blobtest.Folder(t)
	p := newProject(t, st, "live.example.com")
	publish(t, st, b, p.ID, versionFiles("A", 0))
	switchUnderLoad(t, New(discardLog(), st, b), "live.example.com", func(v string, gen int) {
		publish(t, st, b, p.ID, versionFiles(v, gen))
	})
}

// TestAtomicPromote: promoting kept deployments back and forth under load
// is as atomic as publishing: no request fails or mixes deployments.
func TestAtomicPromote(t *testing.T) {
	t.Parallel()
	st, b := openStore(t), blobtest.Folder(t)
	p := newProject(t, st, "promote.example.com")
	// Deployments are immutable, so each generation is one of its own,
	// published ahead; the switches promote them in turn.
	deps := map[int]string{}
	for gen := range switchCount + 1 {
		v := "B"
		if gen%2 == 0 {
			v = "A"
		}
		deps[gen] = publish(t, st, b, p.ID, versionFiles(v, gen))
	}
	promote := func(gen int) {
		u := &lectern.Update{Source: "promote"}
		if err := st.PromoteDeployment(context.Background(), p.ID, deps[gen], u, time.Now()); err != nil {
			t.Fatalf("PromoteDeployment: %v", err)
		}
	}
	promote(0)
	switchUnderLoad(t, New(discardLog(), st, b), "promote.example.com", func(_ string, gen int) { promote(gen) })
}

// switchCount is how many switches switchUnderLoad makes.
const switchCount = 30

// switchUnderLoad serves srv's site at host to eight clients asking for
// its pages in a loop while doSwitch switches it switchCount times to
// versionFiles(v, gen), gen 1, 2, ..., half of them back from B's layout
// to A's; it fails the test if a request fails, mixes versions, goes back
// a generation, or the first request after a switch is not served from it.
func switchUnderLoad(t *testing.T, srv *Server, host string, doSwitch func(v string, gen int)) {
	ts := httptest.NewServer(srv)
	defer ts.Close()
	get := func(c *http.Client, path string) (int, string, error) {
		req, err := http.NewRequest("GET", ts.URL+path, nil)
		if err != nil {
			return 0, "", err
		}
		req.Host = host
		res, err := c.Do(req)
		if err != nil {
			return 0, "", err
		}
		defer res.Body.Close()
		body, err := io.ReadAll(res.Body)
		return res.StatusCode, string(body), err
	}

	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failures []string
	counts := map[string]int{}
	fail := func(s string) {
		mu.Lock()
		if len(failures) < 20 {
			failures = append(failures, s)
		}
		mu.Unlock()
	}
	paths := []string{"/", "/guides/x", "/guides/x/", "/guides/", "/big/y", "/missing"}
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := ts.Client()
			lastGen := 0
			for n := i; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				path := paths[n%len(paths)]
				code, body, err := get(c, path)
				want := 200
				if path == "/missing" {
					want = 404
				}
				if err != nil || code != want {
					fail(fmt.Sprintf("%s: status %d, err %v", path, code, err))
					continue
				}
				v, gen, err := pageVersion(body)
				if err != nil {
					fail(path + ": " + err.Error())
					continue
				}
				// Requests of one goroutine are sequential: once a
				// generation is seen, no older one may come back.
				if gen < lastGen {
					fail(fmt.Sprintf("%s: generation %d served after %d", path, gen, lastGen))
				}
				lastGen = gen
				mu.Lock()
				counts[v]++
				mu.Unlock()
			}
		}()
	}

	// Many switches, half of them back from B's layout to A's, so that a
	// server mixing deployments within one request is likely to be caught.
	for i := range switchCount {
		gen, v := i+1, "B"
		if gen%2 == 0 {
			v = "A"
		}
		time.Sleep(10 * time.Millisecond)
		doSwitch(v, gen)
		// The very first request after the switch sees the new version.
		for _, path := range []string{"/guides/x", "/"} {
			code, body, err := get(ts.Client(), path)
			gotV, gotGen, perr := pageVersion(body)
			if err != nil || code != 200 || perr != nil || gotV != v || gotGen != gen {
				t.Errorf("first GET %s after publishing %s gen %d = %d, %s gen %d (%v, %v)", path, v, gen, code, gotV, gotGen, err, perr)
			}
		}
	}
	time.Sleep(10 * time.Millisecond)
	close(stop)
	wg.Wait()
	for _, f := range failures {
		t.Errorf("request failed during switches: %s", f)
	}
	if counts["A"] < 10 || counts["B"] < 10 {
		t.Errorf("versions served = %v, want many of both A and B", counts)
	}
	t.Logf("served %v", counts)
}

// TestActiveContentHeaders: pages are served under the site's policy;
// every other file is sandboxed, and the repository's JavaScript is sent
// as text/plain, which browsers refuse to run under nosniff.
func TestActiveContentHeaders(t *testing.T) {
	t.Parallel()
	st, b := openStore(t), blobtest.Folder(t)
	p := newProject(t, st, "docs.example.com")
	page := `<select class="lc-pg-input" data-pg-server><option value="https://api.example.com/v1">x</option></select>`
	publish(t, st, b, p.ID, map[string]string{
		"index.html": "<p>home</p>", "api.html": page, "evil.js": "window.__pwned=1", "lib/x.mjs": "export {}",
		"_lectern/site.js": "// site", "logo.svg": "<svg/>", "raw.html": "<script>1</script>", "404.html": "<p>missing</p>",
		"_lectern/playground.js": "// the build writes it with a page that has a Try it form",
	})
	srv := New(discardLog(), st, b)
	pageCSP := PageCSP(nil)
	for _, tc := range []struct{ path, ctype, csp string }{
		{"/", "text/html; charset=utf-8", pageCSP},
		{"/raw.html", "text/html; charset=utf-8", pageCSP},
		{"/api", "text/html; charset=utf-8", PageCSP([]byte(page))},
		{"/nope", "text/html; charset=utf-8", pageCSP},
		{"/evil.js", "text/plain; charset=utf-8", features.FileCSP},
		{"/lib/x.mjs", "text/plain; charset=utf-8", features.FileCSP},
		{"/_lectern/site.js", "text/javascript; charset=utf-8", features.FileCSP},
		{"/logo.svg", "image/svg+xml", features.FileCSP},
	} {
		w := do(srv, "GET", "docs.example.com", tc.path)
		if got := w.Header().Get("Content-Type"); got != tc.ctype {
			t.Errorf("GET %s Content-Type = %q, want %q", tc.path, got, tc.ctype)
		}
		if got := w.Header().Get("Content-Security-Policy"); got != tc.csp {
			t.Errorf("GET %s Content-Security-Policy = %q, want %q", tc.path, got, tc.csp)
		}
	}
	// A page served again streams, with the policy remembered for it.
	for range 2 {
		w := do(srv, "GET", "docs.example.com", "/api")
		if got := w.Header().Get("Content-Security-Policy"); got != PageCSP([]byte(page)) || w.Body.String() != page {
			t.Errorf("GET /api again: policy %q, body %q", got, w.Body.String())
		}
	}
	if !strings.Contains(pageCSP, "script-src 'self';") {
		t.Errorf("the page policy %q does not keep scripts to the site's own", pageCSP)
	}
	if api := PageCSP([]byte(page)); !strings.Contains(api, "connect-src 'self' https://api.example.com") {
		t.Errorf("the policy of a page with a Try it form does not let it reach its server: %q", api)
	}
	// A deployment without playground.js has no Try it form: its pages are
	// not looked into, and markup that looks like one opens nothing.
	q := newProject(t, st, "plain.example.com")
	publish(t, st, b, q.ID, map[string]string{"index.html": page})
	if got := do(srv, "GET", "plain.example.com", "/").Header().Get("Content-Security-Policy"); got != pageCSP {
		t.Errorf("GET / of a deployment without a playground: policy %q, want the default %q", got, pageCSP)
	}
}

// TestEmbedHostsPolicy: with embed hosts, every page's policy lets them be
// framed, those of pages with "Try it" forms too; other files stay
// sandboxed.
func TestEmbedHostsPolicy(t *testing.T) {
	t.Parallel()
	st, b := openStore(t), blobtest.Folder(t)
	p := newProject(t, st, "embeds.example.com")
	page := `<select class="lc-pg-input" data-pg-server><option value="https://api.example.com/v1">x</option></select>`
	publish(t, st, b, p.ID, map[string]string{"index.html": "<p>home</p>", "api.html": page, "logo.svg": "<svg/>", "404.html": "<p>missing</p>",
		"_lectern/playground.js": "// with a Try it form"})
	srv := New(discardLog(), st, b)
	srv.EmbedHosts = []string{"www.youtube.com", "player.vimeo.com"}
	const frames = "; frame-src 'self' https://www.youtube.com https://player.vimeo.com; "
	for _, path := range []string{"/", "/api", "/nope"} {
		csp := do(srv, "GET", "embeds.example.com", path).Header().Get("Content-Security-Policy")
		if !strings.Contains(csp, frames) || !strings.Contains(csp, "script-src 'self';") {
			t.Errorf("GET %s: policy %q lacks %q", path, csp, frames)
		}
		if path == "/api" && !strings.Contains(csp, "connect-src 'self' https://api.example.com") {
			t.Errorf("GET /api: policy %q does not reach the API", csp)
		}
	}
	if csp := do(srv, "GET", "embeds.example.com", "/logo.svg").Header().Get("Content-Security-Policy"); csp != features.FileCSP {
		t.Errorf("GET /logo.svg: policy %q", csp)
	}
	if strings.Contains(PageCSP(nil), "frame-src") {
		t.Errorf("PageCSP without embed hosts frames other hosts: %s", PageCSP(nil))
	}
}
