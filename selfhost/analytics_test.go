package selfhost

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/bundle"
)

// browserUA is a reader's user agent: its events are counted.
const browserUA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/156.0 Safari/537.36"

// analyticsRun is one lectern selfhost serving a bundle of exportedSite
// with its own analytics, on a cache folder that outlives it.
type analyticsRun struct {
	once  sync.Once
	t     *testing.T
	srv   *httptest.Server
	rt    *Runtime
	cache *Cache
	logs  *logBuffer
}

// startAnalytics applies the configuration yaml (the bundle's path as its
// one %q) with the cache folder dir and serves it; stop ends it as lectern
// selfhost does (server, then runtime, then cache).
func startAnalytics(t *testing.T, dir, yaml, bundlePath string) (*analyticsRun, error) {
	t.Helper()
	c, err := OpenCache(dir, testFetcher(), bundle.Limits{MaxTotal: 1 << 20, MaxFiles: 1000})
	if err != nil {
		t.Fatal(err)
	}
	cfgFile := filepath.Join(t.TempDir(), "lectern.yaml")
	os.WriteFile(cfgFile, []byte(fmt.Sprintf(yaml, bundlePath)), 0o644)
	cfg, err := LoadConfig(cfgFile, envOf(nil))
	if err != nil {
		t.Fatal(err)
	}
	logs := &logBuffer{}
	log := slog.New(slog.NewTextHandler(logs, nil))
	h := NewHandler(log)
	rt, err := NewRuntime(log, c, h, cfgFile, envOf(nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := rt.Apply(context.Background(), cfg); err != nil {
		rt.Close()
		c.Close()
		return nil, err
	}
	r := &analyticsRun{t: t, srv: httptest.NewServer(h), rt: rt, cache: c, logs: logs}
	t.Cleanup(r.stop)
	return r, nil
}

func (r *analyticsRun) stop() {
	r.once.Do(func() {
		r.srv.Close()
		if err := r.rt.Close(); err != nil {
			r.t.Error(err)
		}
		r.cache.Close()
	})
}

// post sends body to path with a reader's headers (and hdr's: name,
// value, ...), and returns the status and body.
func (r *analyticsRun) post(p, body string, hdr ...string) (int, string) {
	r.t.Helper()
	req, _ := http.NewRequest("POST", r.srv.URL+p, strings.NewReader(body))
	req.Header.Set("User-Agent", browserUA)
	req.Header.Set("Origin", r.srv.URL)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	return resp.StatusCode, readAll(r.t, resp)
}

// report reads GET path with the bearer key ("" for none) and decodes a
// 200's JSON into out; it returns the response and its body.
func (r *analyticsRun) report(p, key string, out any) (*http.Response, string) {
	r.t.Helper()
	req, _ := http.NewRequest("GET", r.srv.URL+p, nil)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	body := readAll(r.t, resp)
	if resp.StatusCode == 200 && out != nil {
		if err := json.Unmarshal([]byte(body), out); err != nil {
			r.t.Fatalf("%s: %v\n%s", p, err, body)
		}
	}
	return resp, body
}

// project returns the analytics project /readyz names.
func (r *analyticsRun) project() string {
	r.t.Helper()
	var ready struct{ AnalyticsProject string }
	_, body := get(r.t, "GET", r.srv.URL+"/readyz")
	json.Unmarshal([]byte(body), &ready)
	return ready.AnalyticsProject
}

type viewsBody struct {
	Totals struct{ Views, Visitors int64 }
	Pages  []struct {
		Path  string
		Views int64
	}
}

// views waits until the views report counts want views (the collector
// records every second), then returns it.
func (r *analyticsRun) views(id, key string, want int64) viewsBody {
	r.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		var v viewsBody
		resp, body := r.report("/v1/analytics/"+id+"/views", key, &v)
		if resp.StatusCode != 200 {
			r.t.Fatalf("views: %d %s", resp.StatusCode, body)
		}
		if v.Totals.Views >= want || time.Now().After(deadline) {
			return v
		}
		time.Sleep(50 * time.Millisecond)
	}
}

const analyticsYAML = "deployment: {type: client-hosted}\nstaticExport: {enabled: true, bundleUrl: %q}\n" +
	"features: {assistant: true, analytics: true}\n"

// TestOwnAnalytics: a client-hosted site with analytics and no endpoint
// counts its readers' page views, searches, votes and assistant questions
// in the cache folder, and serves the reports to its key alone; the
// project and the counts survive a restart; without a key the reports are
// off and the events still counted; a replaced key is revoked.
func TestOwnAnalytics(t *testing.T) {
	t.Parallel()
	bundlePath := filepath.Join(t.TempDir(), "docs.tar.gz")
	os.WriteFile(bundlePath, makeBundle(t, exportedSite(t), "v1"), 0o644)
	dir := filepath.Join(t.TempDir(), "cache")
	key, keyFile := lectern.NewAPIKey(), filepath.Join(t.TempDir(), "key")
	os.WriteFile(keyFile, []byte(key+"\n"), 0o600)
	withKey := analyticsYAML + "analytics: {apiKeyFile: " + keyFile + "}\n"
	a, err := startAnalytics(t, dir, withKey, bundlePath)
	if err != nil {
		t.Fatal(err)
	}
	id := a.project()
	if !strings.HasPrefix(id, lectern.PrefixProject) || !strings.Contains(a.logs.String(), "analytics_project="+id) {
		t.Fatalf("project %q; logs:\n%s", id, a.logs.String())
	}
	if _, page := get(t, "GET", a.srv.URL+"/deploy"); !strings.Contains(page, `<meta name="lectern-analytics-url" content="/_lectern/analytics">`) {
		t.Fatal("the pages do not send their events to selfhost")
	}
	if fi, err := os.Stat(filepath.Join(dir, AnalyticsDB)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("database: %v %v", fi, err)
	}

	t.Log("events: readers' counted; robots, other origins, other paths not")
	for _, c := range []struct {
		body string
		hdr  []string
		want int
	}{
		// What is not counted, then searches and votes, first: once the
		// views are counted, everything before them is recorded (the queue
		// is recorded in order).
		{`{"path":"/deploy"}`, []string{"User-Agent", "curl/8.5.0"}, 204},
		{`{"path":"/deploy"}`, []string{"Sec-Purpose", "prefetch"}, 204},
		{`{"path":"/deploy"}`, []string{"Origin", "https://evil.test"}, 403},
		{`{"path":"/no/such/page"}`, nil, 400},
		{`{"path":"/deploy","extra":1}`, nil, 400},
		{`{"type":"search","path":"/","query":"Roll back","results":2,"clicked":"/deploy"}`, nil, 204},
		{`{"type":"feedback","path":"/deploy","helpful":false,"comment":"more examples"}`, nil, 204},
		{`{"path":"/deploy","referrer":"https://www.example.org/x"}`, nil, 204},
		{`{"path":"/deploy"}`, nil, 204},
		{`{"path":"/deploy?from=nav#rolling-back"}`, nil, 204},
		{`{"path":"/"}`, nil, 204},
	} {
		if code, body := a.post("/_lectern/analytics", c.body, c.hdr...); code != c.want {
			t.Errorf("%s %v: %d %s, want %d", c.body, c.hdr, code, body, c.want)
		}
	}
	if r, _ := get(t, "GET", a.srv.URL+"/_lectern/analytics"); r.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET the beacon: %d", r.StatusCode)
	}

	t.Log("the own assistant's question, rated")
	_, stream := a.post("/_lectern/assistant", `{"messages":[{"role":"user","content":"How do I roll back a release?"}]}`)
	m := regexp.MustCompile(`"id":"([^"]+)"`).FindStringSubmatch(stream)
	if m == nil {
		t.Fatalf("the answer has no id to rate it by:\n%s", stream)
	}
	if code, body := a.post(feedbackPath, `{"id":"`+m[1]+`","helpful":true}`); code != 204 {
		t.Fatalf("feedback: %d %s", code, body)
	}
	if code, _ := a.post(feedbackPath, `{"id":"amsg_unknown","helpful":true}`); code != 404 {
		t.Errorf("feedback on no answer: %d", code)
	}

	t.Log("the reports, exactly")
	v := a.views(id, key, 4)
	if v.Totals.Views != 4 || v.Totals.Visitors != 1 || len(v.Pages) != 2 || v.Pages[0].Path != "/deploy" || v.Pages[0].Views != 3 ||
		v.Pages[1].Path != "/" || v.Pages[1].Views != 1 {
		t.Fatalf("views %+v", v)
	}
	var s struct {
		Totals struct{ Searches, Clicks int64 }
	}
	var f struct {
		Totals   struct{ Helpful, NotHelpful int64 }
		Comments []struct{ Comment string }
	}
	var q struct {
		Totals    struct{ Questions, Answered, Helpful int64 }
		Questions []struct{ Question, Source string }
	}
	a.report("/v1/analytics/"+id+"/searches", key, &s)
	a.report("/v1/analytics/"+id+"/feedback", key, &f)
	a.report("/v1/analytics/"+id+"/assistant", key, &q)
	if s.Totals.Searches != 1 || s.Totals.Clicks != 1 || f.Totals.Helpful != 0 || f.Totals.NotHelpful != 1 || len(f.Comments) != 1 ||
		f.Comments[0].Comment != "more examples" {
		t.Errorf("searches %+v, feedback %+v", s, f)
	}
	if q.Totals.Questions != 1 || q.Totals.Answered != 1 || q.Totals.Helpful != 1 || len(q.Questions) != 1 ||
		q.Questions[0].Question != "How do I roll back a release?" || q.Questions[0].Source != "site" {
		t.Errorf("assistant %+v", q)
	}

	t.Log("the key alone opens the reports; no other API path is served")
	for _, k := range []string{"", lectern.NewAPIKey(), "not-a-key"} {
		if r, body := a.report("/v1/analytics/"+id+"/views", k, nil); r.StatusCode != 401 || !strings.Contains(body, `"code"`) {
			t.Errorf("key %q: %d %s", k, r.StatusCode, body)
		}
	}
	r, body := a.report("/v1/analytics/"+id+"/views", key, nil)
	if r.Header.Get("Content-Security-Policy") != fallbackCSP || r.Header.Get("X-Content-Type-Options") != "nosniff" || strings.Contains(body, "<") {
		t.Errorf("report headers %v", r.Header)
	}
	if r, _ := a.report("/v1/analytics/prj_other/views", key, nil); r.StatusCode != 404 {
		t.Errorf("another project: %d", r.StatusCode)
	}
	for _, p := range []string{"/v1/projects", "/v1/analytics/" + id, "/v1/openapi.json", "/metrics"} {
		if r, body := a.report(p, key, nil); r.StatusCode != 404 || !strings.Contains(body, "<html") {
			t.Errorf("%s: %d %.100s, want the site's 404", p, r.StatusCode, body)
		}
	}

	t.Log("a restart keeps the project and the counts")
	a.stop()
	a, err = startAnalytics(t, dir, withKey, bundlePath)
	if err != nil {
		t.Fatal(err)
	}
	if got := a.project(); got != id {
		t.Fatalf("project after a restart %q, want %q", got, id)
	}
	if v := a.views(id, key, 0); v.Totals.Views != 4 {
		t.Fatalf("views after a restart: %+v", v)
	}

	t.Log("without a key: the reports are off, the events still counted")
	a.stop()
	a, err = startAnalytics(t, dir, analyticsYAML, bundlePath)
	if err != nil {
		t.Fatal(err)
	}
	if r, body := a.report("/v1/analytics/"+id+"/views", key, nil); r.StatusCode != 404 || !strings.Contains(body, "lectern selfhost keygen") ||
		!strings.Contains(body, "analytics.apiKeyFile") {
		t.Errorf("reports without a key: %d %s", r.StatusCode, body)
	}
	if code, _ := a.post("/_lectern/analytics", `{"path":"/deploy"}`); code != 204 {
		t.Fatalf("beacon without a key: %d", code)
	}

	t.Log("a new key replaces the old one, which stays revoked")
	a.stop()
	key2 := lectern.NewAPIKey()
	os.WriteFile(keyFile, []byte(key2), 0o600)
	a, err = startAnalytics(t, dir, withKey, bundlePath)
	if err != nil {
		t.Fatal(err)
	}
	if v := a.views(id, key2, 0); v.Totals.Views != 5 {
		t.Errorf("views with the new key: %+v", v)
	}
	if r, _ := a.report("/v1/analytics/"+id+"/views", key, nil); r.StatusCode != 401 {
		t.Errorf("the replaced key: %d", r.StatusCode)
	}
	a.stop()
	os.WriteFile(keyFile, []byte(key), 0o600)
	if _, err := startAnalytics(t, dir, withKey, bundlePath); err == nil || !strings.Contains(err.Error(), "revoked") {
		t.Errorf("a revoked key given again: %v", err)
	}
}
