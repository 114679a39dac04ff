package httpapi_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"lectern.dev/lectern"
	"lectern.dev/lectern/httpapi"
	"lectern.dev/lectern/sites"
)

// browserAccept is what a browser sends for a page.
const browserAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"

// rootEnv is an env whose handler knows the server's hosts (publicURL's
// and the loopback names) and serves the env's projects' sites.
func rootEnv(t *testing.T, resolver sites.Resolver) *httpapi.Handler {
	t.Helper()
	hosts, err := lectern.NewServerHosts(publicURL)
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, httpapi.Config{ServerHosts: hosts}, nil)
	if resolver == nil {
		resolver = e.raw
	}
	reg := prometheus.NewRegistry()
	log := slog.New(slog.DiscardHandler)
	h := httpapi.NewHandler(log, e.st, nil, e.links, e.links, sites.New(log, resolver, e.bucket), reg, reg,
		httpapi.Config{ServerHosts: hosts, Version: "9.8.7-test"})
	return h
}

// hostGet sends method path to h with Host host and Accept accept ("" for
// none), and returns the response and its body.
func hostGet(h http.Handler, method, host, path, accept string) (*http.Response, []byte) {
	r := req(method, path, "", nil)
	r.Host = host
	if accept != "" {
		r.Header.Set("Accept", accept)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	resp := rec.Result()
	body, _ := io.ReadAll(resp.Body)
	return resp, body
}

// checkPage fails unless resp is a self-contained HTML page of status: a
// strict policy whose one style hash is the page's one <style>, no script,
// nothing loaded from anywhere.
func checkPage(t *testing.T, what string, resp *http.Response, body []byte, status int) string {
	t.Helper()
	page := string(body)
	if resp.StatusCode != status || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("%s: %d %q, want %d text/html\n%s", what, resp.StatusCode, resp.Header.Get("Content-Type"), status, page)
	}
	csp := resp.Header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "frame-ancestors 'none'") || strings.Contains(csp, "unsafe") {
		t.Errorf("%s: Content-Security-Policy %q is not strict", what, csp)
	}
	start, end := strings.Index(page, "<style>"), strings.Index(page, "</style>")
	if start < 0 || end < start || strings.Count(page, "<style") != 1 {
		t.Fatalf("%s: want one <style> element:\n%s", what, page)
	}
	sum := sha256.Sum256([]byte(page[start+len("<style>") : end]))
	if want := "style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"; !strings.Contains(csp, want) {
		t.Errorf("%s: the policy %q does not allow the page's style (%s): it would be unstyled", what, csp, want)
	}
	for _, bad := range []string{"<script", "<img", "<link", "<iframe", "<object", "url(", "@import", "http://", "https://", "style="} {
		if strings.Contains(page, bad) {
			t.Errorf("%s: the page holds %q: it must load nothing and run nothing", what, bad)
		}
	}
	if resp.Header.Get("X-Content-Type-Options") != "nosniff" || resp.Header.Get("Vary") != "Accept" {
		t.Errorf("%s: headers %v, want nosniff and Vary: Accept", what, resp.Header)
	}
	return page
}

// The server's own root says what this is and where to go: a page to a
// browser, JSON to anything else, with the same links, which all work.
func TestServerRoot(t *testing.T) {
	t.Parallel()
	h := rootEnv(t, nil)
	for _, host := range []string{"lectern.test", "127.0.0.1:8080", "localhost", "[::1]:8080"} {
		resp, body := hostGet(h, "GET", host, "/", browserAccept)
		page := checkPage(t, host+" GET / as a browser", resp, body, http.StatusOK)
		for _, want := range []string{"Lectern", "9.8.7-test", `href="/dashboard/"`, `href="/v1/openapi.json"`, `href="/healthz"`} {
			if !strings.Contains(page, want) {
				t.Errorf("Host %s: the root page does not hold %q:\n%s", host, want, page)
			}
		}
		if strings.Contains(page, "No API route") {
			t.Errorf("Host %s: the root page says %q", host, "No API route")
		}

		for _, accept := range []string{"", "*/*", "application/json", "text/html;q=0.5, application/json"} {
			resp, body := hostGet(h, "GET", host, "/", accept)
			if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
				t.Fatalf("Host %s, Accept %q: %d %q, want 200 JSON: %s", host, accept, resp.StatusCode, resp.Header.Get("Content-Type"), body)
			}
			var doc struct {
				Name, Version, Description string
				Links                      map[string]string
			}
			if err := json.Unmarshal(body, &doc); err != nil {
				t.Fatalf("Host %s: %v: %s", host, err, body)
			}
			want := map[string]string{"dashboard": "/dashboard/", "openapi": "/v1/openapi.json", "health": "/healthz"}
			if doc.Name != "Lectern" || doc.Version != "9.8.7-test" || doc.Description == "" || len(doc.Links) != len(want) {
				t.Errorf("Host %s, Accept %q: %s", host, accept, body)
			}
			for k, v := range want {
				if doc.Links[k] != v {
					t.Errorf("Host %s: links.%s = %q, want %q", host, k, doc.Links[k], v)
				}
			}
		}
	}
	// The API's links answer there.
	for _, path := range []string{"/v1/openapi.json", "/healthz"} {
		if resp, body := hostGet(h, "GET", "lectern.test", path, ""); resp.StatusCode != 200 {
			t.Errorf("GET %s linked from the root: %d %s", path, resp.StatusCode, body)
		}
	}
	if resp, _ := hostGet(h, "HEAD", "lectern.test", "/", browserAccept); resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Errorf("HEAD /: %d %q, want the page's 200", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	resp, body := hostGet(h, "POST", "lectern.test", "/", "")
	wantProblem(t, resp, body, http.StatusMethodNotAllowed, lectern.EMETHOD)
	if resp.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("POST /: Allow %q, want GET, HEAD", resp.Header.Get("Allow"))
	}
}

// A host that is neither the server's nor a project's domain says that no
// site is published for it, to browsers and API clients, at any path
// outside /v1; a project's domain is still its site's.
func TestUnknownHostHasNoSite(t *testing.T) {
	t.Parallel()
	h := rootEnv(t, nil)
	for _, path := range []string{"/", "/guides/install", "/favicon.ico"} {
		resp, body := hostGet(h, "GET", "nosuch.example.com:8080", path, browserAccept)
		page := checkPage(t, "unknown host "+path, resp, body, http.StatusNotFound)
		if !strings.Contains(page, "No site is published for host <code>nosuch.example.com</code>") || strings.Contains(page, "API route") {
			t.Errorf("unknown host %s as a browser:\n%s", path, page)
		}

		resp, body = hostGet(h, "GET", "nosuch.example.com", path, "application/json")
		p := wantProblem(t, resp, body, http.StatusNotFound, lectern.ENOTFOUND)
		if !strings.Contains(p.Detail, `No site is published for host "nosuch.example.com"`) || strings.Contains(p.Detail, "API route") {
			t.Errorf("unknown host %s as an API client: detail %q", path, p.Detail)
		}
	}
	// Any method: there is no site to take it.
	resp, body := hostGet(h, "POST", "nosuch.example.com", "/search", "")
	if p := wantProblem(t, resp, body, http.StatusNotFound, lectern.ENOTFOUND); !strings.Contains(p.Detail, "No site is published") {
		t.Errorf("POST on an unknown host: %q", p.Detail)
	}
	// The project's domain is its site's (not deployed yet), not this answer.
	resp, body = hostGet(h, "GET", entDomain, "/", browserAccept)
	if resp.StatusCode != 404 || strings.Contains(string(body), "No site is published") || !strings.Contains(string(body), "not been deployed") {
		t.Errorf("a project's domain: %d %s, want its site's answer", resp.StatusCode, body)
	}
}

// The API's answers are as they were: unknown routes on the server's hosts
// (and /v1 routes on any host) are "No API route matches", and the routes
// answer on any host that is not a site.
func TestAPIRoutesUnchangedBesideTheRoot(t *testing.T) {
	t.Parallel()
	h := rootEnv(t, nil)
	for _, c := range []struct{ host, path string }{
		{"lectern.test", "/v1/nope"}, {"lectern.test", "/nowhere"}, {"127.0.0.1", "/index.html"},
		{"nosuch.example.com", "/v1/nope"}, {"nosuch.example.com", "/v1"},
	} {
		for _, accept := range []string{"", browserAccept} {
			resp, body := hostGet(h, "GET", c.host, c.path, accept)
			p := wantProblem(t, resp, body, http.StatusNotFound, lectern.ENOTFOUND)
			if want := "No API route matches GET " + c.path + "."; p.Detail != want {
				t.Errorf("Host %s %s: detail %q, want %q", c.host, c.path, p.Detail, want)
			}
		}
	}
	for _, host := range []string{"lectern.test", "nosuch.example.com"} {
		resp, body := hostGet(h, "GET", host, "/v1/project/update-status/upd_x", browserAccept)
		wantProblem(t, resp, body, http.StatusUnauthorized, lectern.EUNAUTHORIZED)
		if resp, body := hostGet(h, "GET", host, "/healthz", browserAccept); resp.StatusCode != 200 || !strings.Contains(string(body), `"ok"`) {
			t.Errorf("Host %s /healthz: %d %s", host, resp.StatusCode, body)
		}
		resp, body = hostGet(h, "DELETE", host, "/v1/openapi.json", "")
		wantProblem(t, resp, body, http.StatusMethodNotAllowed, lectern.EMETHOD)
	}
}

// The Host is the client's: it is shown escaped, and cut short.
func TestHostileHostIsEscaped(t *testing.T) {
	t.Parallel()
	h := rootEnv(t, nil)
	for _, host := range []string{`<script>alert(1)</script>.example`, `x"><img src=x onerror=alert(1)>`, `a'b&c`} {
		resp, body := hostGet(h, "GET", host, "/", browserAccept)
		page := checkPage(t, "hostile host", resp, body, http.StatusNotFound)
		for _, bad := range []string{"<script", "<img", `"><`, "a'b&c"} {
			if strings.Contains(page, bad) {
				t.Errorf("Host %q: the page holds %q unescaped:\n%s", host, bad, page)
			}
		}
		resp, body = hostGet(h, "GET", host, "/", "")
		if strings.Contains(string(body), "<") || strings.Contains(string(body), ">") {
			t.Errorf("Host %q: the problem holds < or > unescaped: %s", host, body)
		}
		p := wantProblem(t, resp, body, http.StatusNotFound, lectern.ENOTFOUND)
		if !strings.Contains(p.Detail, strconv.Quote(lectern.HostName(host))) {
			t.Errorf("Host %q: detail %q does not name it", host, p.Detail)
		}
	}
	long := strings.Repeat("a", 64<<10) + ".example"
	for _, accept := range []string{browserAccept, ""} {
		resp, body := hostGet(h, "GET", long, "/", accept)
		if resp.StatusCode != 404 || len(body) > 4<<10 || !strings.Contains(string(body), "…") {
			t.Errorf("a 64 KiB Host, Accept %q: %d with %d bytes, want 404, shortened", accept, resp.StatusCode, len(body))
		}
	}
}

// failingResolver is a store that cannot be reached.
type failingResolver struct{}

func (failingResolver) ResolveDomain(context.Context, string) (string, string, error) {
	return "", "", errors.New("connection refused")
}

func (failingResolver) GetProject(context.Context, string) (*lectern.Project, error) {
	return nil, errors.New("connection refused")
}

// While domains cannot be looked up, an unknown host is told to try again,
// not that no site is published there.
func TestUnknownHostWhileLookupsFail(t *testing.T) {
	t.Parallel()
	h := rootEnv(t, failingResolver{})
	resp, body := hostGet(h, "GET", "docs.example.com", "/", browserAccept)
	page := checkPage(t, "lookup failing", resp, body, http.StatusServiceUnavailable)
	if resp.Header.Get("Retry-After") == "" || strings.Contains(page, "No site is published") || strings.Contains(page, "refused") {
		t.Errorf("as a browser: Retry-After %q\n%s", resp.Header.Get("Retry-After"), page)
	}
	resp, body = hostGet(h, "GET", "docs.example.com", "/", "")
	p := wantProblem(t, resp, body, http.StatusServiceUnavailable, lectern.EUNAVAILABLE)
	if resp.Header.Get("Retry-After") == "" || strings.Contains(p.Detail, "refused") || !strings.Contains(p.Detail, "docs.example.com") {
		t.Errorf("as an API client: Retry-After %q, detail %q", resp.Header.Get("Retry-After"), p.Detail)
	}
}
