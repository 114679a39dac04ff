package httpapi_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"lectern.dev/lectern"
	"lectern.dev/lectern/blobstore"
	"lectern.dev/lectern/httpapi"
	"lectern.dev/lectern/sites"
	"lectern.dev/lectern/store"
)

// publishSite makes files the live deployment of project p, as the update
// worker does.
func (e *env) publishSite(t *testing.T, projectID string, files map[string]string) {
	t.Helper()
	ctx := context.Background()
	u := &lectern.Update{ProjectID: projectID, Source: "test"}
	if err := e.raw.CreateUpdate(ctx, u); err != nil {
		t.Fatal(err)
	}
	job, lease, err := e.raw.ClaimJob(ctx, store.ClaimParams{Kinds: []string{store.KindUpdate}, Owner: "t", Now: time.Now().Add(time.Second), LeaseFor: time.Minute})
	if err != nil || job == nil || job.ID != u.ID {
		t.Fatalf("claim update: %v %v", job, err)
	}
	dep := lectern.NewID(lectern.PrefixDeployment)
	for name, body := range files {
		if err := e.bucket.WriteAll(ctx, blobstore.SiteKey(projectID, dep, name), []byte(body), nil); err != nil {
			t.Fatal(err)
		}
	}
	commit := lectern.Commit{SHA: "abc", Ref: "main"}
	if err := e.raw.FinishUpdate(ctx, lease, store.UpdateResult{Status: lectern.UpdateSuccess, Summary: "ok", Commit: &commit, EndedAt: time.Now(),
		Deployment: &lectern.Deployment{ID: dep, ProjectID: projectID, UpdateID: u.ID, Commit: commit, PageCount: len(files)}}); err != nil {
		t.Fatal(err)
	}
}

// TestServerHostsAreNeverSites: a project that holds the server's own host
// names (stored before they were refused) cannot answer the API, health or
// metrics there, while its other domain is served.
func TestServerHostsAreNeverSites(t *testing.T) {
	t.Parallel()
	e := newEnv(t, httpapi.Config{}, nil)
	hosts, err := lectern.NewServerHosts(publicURL, "admin.ent.test")
	if err != nil {
		t.Fatal(err)
	}
	// The store takes any domain: these were let through by older versions.
	tenant := &lectern.Project{OrgID: e.ent.ID, Name: "Tenant", RepoURL: "https://git.example/t.git", Branch: "main", DocsRoot: "/",
		Domains: []string{"site.ent.test", "lectern.test", "localhost", "admin.ent.test", "127.0.0.1"}, DeploymentType: lectern.DeploymentCloud}
	if err := e.raw.CreateProject(context.Background(), tenant); err != nil {
		t.Fatal(err)
	}
	fake := "tenant page: not the server"
	e.publishSite(t, tenant.ID, map[string]string{"healthz.html": fake, "readyz.html": fake, "metrics.html": fake,
		"v1/openapi.json": fake, "v1/project/update-status/upd_x.html": fake, "index.html": fake})
	reg := prometheus.NewRegistry()
	log := slog.New(slog.DiscardHandler)
	h := httpapi.NewHandler(log, e.st, nil, e.links, e.links, sites.New(log, e.raw, e.bucket), reg, reg, httpapi.Config{ServerHosts: hosts})

	get := func(host, path string) (int, string) {
		r := req("GET", path, "", nil)
		r.Host = host
		rec := &recorder{h: h}
		return rec.do(r)
	}
	// The tenant's own domain is its site.
	if code, body := get("site.ent.test", "/healthz"); code != 200 || body != fake {
		t.Fatalf("site.ent.test/healthz: %d %q, want the tenant's page", code, body)
	}
	for _, host := range []string{"lectern.test", "LECTERN.test:80", "localhost:8080", "admin.ent.test", "127.0.0.1:8080", "[::1]:8080"} {
		for _, path := range []string{"/healthz", "/readyz", "/metrics", "/v1/openapi.json", "/v1/project/update-status/upd_x", "/"} {
			code, body := get(host, path)
			if strings.Contains(body, "tenant page") {
				t.Errorf("Host %s %s: answered by the tenant's site (%d)", host, path, code)
			}
			if path == "/healthz" && (code != 200 || !strings.Contains(body, `"ok"`)) {
				t.Errorf("Host %s /healthz: %d %q, want the server's health", host, code, body)
			}
			if path == "/v1/project/update-status/upd_x" && code != 401 {
				t.Errorf("Host %s %s: %d, want the API's 401", host, path, code)
			}
		}
	}
}

// recorder runs a request through a handler and returns status and body.
type recorder struct{ h http.Handler }

func (rc *recorder) do(r *http.Request) (int, string) {
	w := httptest.NewRecorder()
	rc.h.ServeHTTP(w, r)
	resp := w.Result()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestMetricsMethodLabels: made-up methods are counted as "other" and
// cannot grow /metrics.
func TestMetricsMethodLabels(t *testing.T) {
	t.Parallel()
	e := newEnv(t, httpapi.Config{}, nil)
	metrics := func() string {
		resp, body := e.doUnchecked(t, req("GET", "/metrics", "", nil))
		if resp.StatusCode != 200 {
			t.Fatalf("GET /metrics: %d", resp.StatusCode)
		}
		return string(body)
	}
	// One request of each kind first: the series they make exist before.
	for _, path := range []string{"/healthz", "/v1/project/update/prj_x", "/nowhere"} {
		e.doUnchecked(t, req("FOO", path, "", nil))
	}
	metrics() // the scrape's own series
	before := metrics()
	for i := range 20 {
		m := strings.Repeat("X", 4000) + strconv.Itoa(i)
		e.doUnchecked(t, req(m, "/healthz", "", nil))
		e.doUnchecked(t, req(m, "/v1/project/update/prj_x", "", nil))
		e.doUnchecked(t, req(m, "/nowhere/"+m, "", nil))
	}
	after := metrics()
	if strings.Contains(after, "XXXX") {
		t.Fatalf("/metrics holds a made-up method")
	}
	if len(after) > len(before)+100 { // counters and sums take a few more digits
		t.Errorf("/metrics grew from %d to %d bytes:\n%s", len(before), len(after), after)
	}
	if !strings.Contains(after, `lectern_http_requests_total{code="405",method="other",route="/healthz"} 21`) {
		t.Errorf("/metrics does not count made-up methods as other:\n%s", after)
	}
	if strings.Contains(after, "/nowhere") {
		t.Errorf("/metrics has a raw path")
	}
}

func TestNoMetrics(t *testing.T) {
	t.Parallel()
	e := newEnv(t, httpapi.Config{NoMetrics: true}, nil)
	if resp, _ := e.doUnchecked(t, req("GET", "/metrics", "", nil)); resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /metrics with NoMetrics: %d, want 404", resp.StatusCode)
	}
}

// TestClientRateLimit: requests are limited per client address before the
// key is checked, so a flood of bad keys is refused too; X-Forwarded-For
// counts only from trusted proxies.
func TestClientRateLimit(t *testing.T) {
	t.Parallel()
	proxies, err := httpapi.ParseTrustedProxies("10.0.0.0/8, 192.0.2.50")
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, httpapi.Config{ClientRateLimit: httpapi.RateLimit{Rate: 0.01, Burst: 3}, TrustedProxies: proxies}, nil)
	bad := lectern.NewAPIKey()
	e.remember(bad)
	from := func(addr, xff, key string) (*http.Response, []byte) {
		r := req("GET", "/v1/project/update-status/upd_x", key, nil)
		r.RemoteAddr = addr
		if xff != "" {
			r.Header.Set("X-Forwarded-For", xff)
		}
		return e.do(t, r)
	}
	for i := range 3 {
		if resp, body := from("198.51.100.7:1000", "", bad); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("bad key %d: %d %s, want 401", i, resp.StatusCode, body)
		}
	}
	resp, body := from("198.51.100.7:2000", "", bad)
	wantProblem(t, resp, body, http.StatusTooManyRequests, lectern.ERATELIMITED)
	if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err != nil || s < 1 {
		t.Errorf("Retry-After %q", resp.Header.Get("Retry-After"))
	}
	// A good key from the same address is limited too; another address is not.
	if resp, _ := from("198.51.100.7:3000", "", e.entKey); resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("good key from the limited address: %d, want 429", resp.StatusCode)
	}
	if resp, body := from("198.51.100.8:1000", "", e.entKey); resp.StatusCode != http.StatusNotFound {
		t.Errorf("another address: %d %s, want 404", resp.StatusCode, body)
	}
	// An untrusted peer's X-Forwarded-For is ignored.
	if resp, _ := from("198.51.100.7:1000", "203.0.113.1", bad); resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("X-Forwarded-For from an untrusted peer changed the client: %d", resp.StatusCode)
	}
	// Behind a trusted proxy, the client is the last untrusted hop.
	for i := range 3 {
		if resp, _ := from("10.1.2.3:1000", "203.0.113.9, 192.0.2.50", bad); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("via proxy %d: %d, want 401", i, resp.StatusCode)
		}
	}
	if resp, _ := from("10.1.2.3:1000", "1.1.1.1, 203.0.113.9", bad); resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("the proxied client was not limited")
	}
	if resp, _ := from("10.1.2.3:1000", "203.0.113.10", bad); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("another proxied client was limited")
	}
	// IPv6 clients are counted by their /64.
	for i := range 3 {
		from("[2001:db8:1:2::1]:1000", "", bad)
		_ = i
	}
	if resp, _ := from("[2001:db8:1:2::ffff]:1000", "", bad); resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("another address of the same /64 was not limited")
	}
	for _, s := range []string{"nope", "10.0.0.0/33", "1.2.3"} {
		if _, err := httpapi.ParseTrustedProxies(s); lectern.ErrorCode(err) != lectern.EINVALID {
			t.Errorf("ParseTrustedProxies(%q): %v", s, err)
		}
	}
}

// TestOrgRateLimit: an organization's keys share its budget; another
// organization's is its own.
func TestOrgRateLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, httpapi.Config{RateLimit: httpapi.RateLimit{Rate: 1000, Burst: 1000}, OrgRateLimit: httpapi.RateLimit{Rate: 0.01, Burst: 4}}, nil)
	k2, _ := e.newKey(e.ent.ID)
	path := "/v1/project/update-status/upd_x"
	for i, k := range []string{e.entKey, k2, e.entKey, k2} {
		resp, body := e.do(t, req("GET", path, k, nil))
		if resp.StatusCode != http.StatusNotFound {
			t.Fatalf("request %d: %d %s", i, resp.StatusCode, body)
		}
		if got, want := resp.Header.Get("RateLimit-Remaining"), strconv.Itoa(3-i); got != want || resp.Header.Get("RateLimit-Limit") != "4" {
			t.Errorf("request %d: RateLimit-Limit %q Remaining %q, want 4 and %s", i, resp.Header.Get("RateLimit-Limit"), got, want)
		}
	}
	k3, _ := e.newKey(e.ent.ID)
	resp, body := e.do(t, req("GET", path, k3, nil))
	p := wantProblem(t, resp, body, http.StatusTooManyRequests, lectern.ERATELIMITED)
	if !strings.Contains(p.Detail, "organization") || resp.Header.Get("Retry-After") == "" {
		t.Errorf("org limit: detail %q, Retry-After %q", p.Detail, resp.Header.Get("Retry-After"))
	}
	if resp, body := e.do(t, req("GET", path, e.freeKey, nil)); resp.StatusCode != http.StatusNotFound {
		t.Errorf("another organization: %d %s", resp.StatusCode, body)
	}
}
