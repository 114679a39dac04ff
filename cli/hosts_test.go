package cli_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	lecternpkg "lectern.dev/lectern"
	"lectern.dev/lectern/cli"
	"lectern.dev/lectern/store/sqlite"
)

// TestProjectDomainsAreNotServerHosts: admin project create refuses the
// names the server answers on itself, with a message that says why, and
// creates nothing.
func TestProjectDomainsAreNotServerHosts(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	org := lastLine(lectern(t, "admin", "--data-dir", data, "org", "create", "--name", "Acme"))
	create := func(env map[string]string, extra ...string) (string, error) {
		args := append([]string{"admin", "--data-dir", data, "project", "create", "--org", org, "--name", "Docs", "--repo", "/r"}, extra...)
		var out, errb bytes.Buffer
		err := cli.Run(context.Background(), args, func(k string) string { return env[k] }, strings.NewReader(""), &out, &errb)
		return out.String(), err
	}
	server := []string{"--public-url", "https://Lectern.Acme.Test:8443/", "--reserved-hosts", "status.acme.test, *.internal.acme.test"}
	for domain, want := range map[string]string{
		"localhost":               "loopback host",
		"LOCALHOST":               "loopback host",
		"127.0.0.1":               "is an IP address",
		"[::1]":                   "is an IP address",
		"10.0.0.1":                "is an IP address",
		"lectern.acme.test":       "server's own host names",
		"status.acme.test":        "server's own host names",
		"wiki.internal.acme.test": "server's own host names",
	} {
		out, err := create(nil, append(server, "--domain", "docs.acme.test", "--domain", domain)...)
		if err == nil || !strings.Contains(err.Error(), "--domain") || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "domain") {
			t.Errorf("--domain %s: %v (out %q), want an error saying %q", domain, err, out, want)
		}
	}
	// The same settings from the environment, as serve reads them.
	env := map[string]string{"LECTERN_PUBLIC_URL": "https://lectern.acme.test", "LECTERN_RESERVED_HOSTS": "status.acme.test"}
	for _, domain := range []string{"lectern.acme.test", "status.acme.test"} {
		if _, err := create(env, "--domain", domain); err == nil || !strings.Contains(err.Error(), "server's own host names") {
			t.Errorf("--domain %s with LECTERN_PUBLIC_URL and LECTERN_RESERVED_HOSTS: %v", domain, err)
		}
	}
	if _, err := create(nil, "--reserved-hosts", "bad host", "--domain", "docs.acme.test"); err == nil || !strings.Contains(err.Error(), "--reserved-hosts") {
		t.Errorf("a bad --reserved-hosts: %v", err)
	}
	if list := lectern(t, "admin", "--data-dir", data, "--json", "project", "list"); strings.TrimSpace(list) != "[]" {
		t.Fatalf("refused creates left projects: %s", list)
	}
	// A DNS name that is not the server's, and a subdomain of localhost, are fine.
	for _, domain := range []string{"docs.acme.test", "docs.localhost"} {
		if _, err := create(nil, append(server, "--domain", domain)...); err != nil {
			t.Errorf("--domain %s: %v", domain, err)
		}
	}
}

// TestServerHostsNotTakenOver: a project that holds the server's own host
// names (written to the store directly, as an older version allowed) gets
// a warning at start, and its site never answers there: the API, health
// and metrics do.
func TestServerHostsNotTakenOver(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	org := lastLine(lectern(t, "admin", "--data-dir", data, "org", "create", "--name", "Acme", "--plan", "enterprise"))
	key := lastLine(lectern(t, "admin", "--data-dir", data, "key", "create", "--org", org, "--name", "ci"))
	repo, _ := newRepo(t, map[string]string{
		"docs.json":   `{"name": "Tenant", "navigation": {"pages": ["index", "healthz", "metrics", "readyz"]}}`,
		"index.mdx":   "---\ntitle: Home\n---\nTenant home.\n",
		"healthz.mdx": "---\ntitle: Health\n---\nTenant healthz page.\n",
		"metrics.mdx": "---\ntitle: Metrics\n---\nTenant metrics page.\n",
		"readyz.mdx":  "---\ntitle: Ready\n---\nTenant readyz page.\n",
	})
	st, err := sqlite.Open(context.Background(), filepath.Join(data, "lectern.db"))
	if err != nil {
		t.Fatal(err)
	}
	p := &lecternpkg.Project{OrgID: org, Name: "Tenant", RepoURL: repo, Branch: "main", DocsRoot: "/", DeploymentType: lecternpkg.DeploymentCloud,
		Domains: []string{"tenant.acme.test", "lectern.acme.test", "localhost", "reserved.acme.test"}}
	if err := st.CreateProject(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	st.Close()

	srv := startServe(t, data, "--public-url", "https://lectern.acme.test", "--reserved-hosts", "reserved.acme.test")
	if st := waitUpdate(t, srv.url, key, trigger(t, srv.url, key, p.ID)); st["status"] != "success" {
		t.Fatalf("update: %v", st)
	}
	if code, body := page(t, srv.url, "tenant.acme.test", "/healthz"); code != 200 || !strings.Contains(body, "Tenant healthz page") {
		t.Fatalf("the tenant's own domain: %d %.200s", code, body)
	}
	for _, host := range []string{"lectern.acme.test", "LECTERN.acme.test:443", "localhost", "reserved.acme.test", "127.0.0.1"} {
		for _, path := range []string{"/healthz", "/readyz", "/metrics", "/"} {
			code, body := page(t, srv.url, host, path)
			if strings.Contains(body, "Tenant") {
				t.Errorf("Host %s %s: the tenant's site answered (%d)", host, path, code)
			}
			if path == "/healthz" && (code != 200 || !strings.Contains(body, `"ok"`)) {
				t.Errorf("Host %s /healthz: %d %.100s, want the server's health", host, code, body)
			}
		}
		req, _ := http.NewRequest("GET", srv.url+"/v1/project/update-status/upd_01J00000000000000000000000", nil)
		req.Host = host
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 404 || resp.Header.Get("Content-Type") != "application/problem+json" {
			t.Errorf("Host %s /v1/...: %d %s, want the API's 404 problem", host, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
	}
	logs := srv.logs.String()
	for _, d := range []string{"lectern.acme.test", "localhost", "reserved.acme.test"} {
		if !regexp.MustCompile(`level=WARN msg=".*server's own hosts.*domain=` + regexp.QuoteMeta(d) + `(\s|$)`).MatchString(logs) {
			t.Errorf("no start-up warning for domain %s:\n%s", d, logs)
		}
	}
	if strings.Contains(logs, "domain=tenant.acme.test") {
		t.Errorf("a warning for the tenant's good domain")
	}
}

// TestMetricsAddrAndMethods: --metrics-addr serves /metrics on its own
// listener (and the main one no longer does), and made-up methods do not
// grow it.
func TestMetricsAddrAndMethods(t *testing.T) {
	t.Parallel()
	maddr := freeAddr(t)
	srv := startServe(t, t.TempDir(), "--metrics-addr", maddr)
	if code := getStatus(t, srv.url+"/metrics"); code != 404 {
		t.Errorf("/metrics on --addr with --metrics-addr: %d, want 404", code)
	}
	scrape := func() string {
		resp, err := http.Get("http://" + maddr + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("/metrics on --metrics-addr: %d", resp.StatusCode)
		}
		return string(b)
	}
	send := func(method, path string) {
		req, _ := http.NewRequest(method, srv.url+path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	for _, path := range []string{"/healthz", "/v1/project/update/prj_x", "/nowhere"} {
		send("BREW", path)
	}
	before := scrape()
	for i := range 20 {
		m := strings.Repeat("M", 8000) + strconv.Itoa(i)
		for _, path := range []string{"/healthz", "/v1/project/update/prj_x", "/nowhere"} {
			send(m, path)
		}
	}
	after := scrape()
	if strings.Contains(after, "MMMM") || !strings.Contains(after, `method="other"`) {
		t.Errorf("made-up methods are not counted as other")
	}
	if len(after) > len(before)+2000 { // counters and process figures take a few more digits
		t.Errorf("/metrics grew from %d to %d bytes", len(before), len(after))
	}
}

// TestRateLimitsBeforeAuthAndPerOrg: a flood of bad keys from one address
// is refused before the keys are checked, and an organization's keys share
// its budget while another organization keeps its own.
func TestRateLimitsBeforeAuthAndPerOrg(t *testing.T) {
	t.Parallel()
	srv := startServe(t, t.TempDir(), "--client-rate-limit", "0.01", "--client-rate-burst", "5")
	unauthorized, limited := 0, 0
	for range 20 {
		code, _, hdr := call(t, "GET", srv.url+"/v1/project/update-status/upd_01J00000000000000000000000", "lct_"+strings.Repeat("x", 40), nil)
		switch code {
		case 401:
			unauthorized++
		case 429:
			limited++
			if hdr.Get("Retry-After") == "" {
				t.Errorf("429 without Retry-After")
			}
		default:
			t.Fatalf("status %d", code)
		}
	}
	if unauthorized != 5 || limited != 15 {
		t.Errorf("20 bad-key requests: %d answered 401 and %d 429, want 5 and 15", unauthorized, limited)
	}

	data := t.TempDir()
	srv = startServe(t, data, "--org-rate-limit", "0.01", "--org-rate-burst", "6")
	orgA := lastLine(lectern(t, "admin", "--data-dir", data, "org", "create", "--name", "A"))
	orgB := lastLine(lectern(t, "admin", "--data-dir", data, "org", "create", "--name", "B"))
	a1 := lastLine(lectern(t, "admin", "--data-dir", data, "key", "create", "--org", orgA, "--name", "one"))
	a2 := lastLine(lectern(t, "admin", "--data-dir", data, "key", "create", "--org", orgA, "--name", "two"))
	b1 := lastLine(lectern(t, "admin", "--data-dir", data, "key", "create", "--org", orgB, "--name", "one"))
	status := func(key string) int {
		code, _, _ := call(t, "GET", srv.url+"/v1/project/update-status/upd_01J00000000000000000000000", key, nil)
		return code
	}
	for i := range 3 {
		if c1, c2 := status(a1), status(a2); c1 != 404 || c2 != 404 {
			t.Fatalf("round %d within the organization's budget: %d %d", i, c1, c2)
		}
	}
	if c1, c2 := status(a1), status(a2); c1 != 429 || c2 != 429 {
		t.Errorf("both keys past the organization's budget of 6: %d %d, want 429", c1, c2)
	}
	if c := status(b1); c != 404 {
		t.Errorf("another organization: %d, want 404", c)
	}
}

// TestServeHostSettingsRefused: bad host and proxy settings stop serve at
// once with a message naming the setting.
func TestServeHostSettingsRefused(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		args []string
		want string
	}{
		"demo domain reserved": {[]string{"--demo", "--reserved-hosts", "*.localhost"}, "docs.localhost"},
		"bad reserved host":    {[]string{"--reserved-hosts", "ok.test,bad host"}, "--reserved-hosts"},
		"bad proxy":            {[]string{"--trusted-proxies", "10.0.0.0/99"}, "--trusted-proxies"},
	} {
		args := append([]string{"serve", "--addr", "127.0.0.1:0", "--data-dir", t.TempDir()}, c.args...)
		err := cli.Run(context.Background(), args, noEnv, strings.NewReader(""), io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming %s", name, err, c.want)
		}
	}
}
