package selfhost

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"lectern.dev/lectern"
)

// logBuffer collects log output safely.
type logBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// rig is a Runtime on a loopback server, with its configuration file and
// bundle origin.
type rig struct {
	t       *testing.T
	origin  *origin
	cache   *Cache
	handler *Handler
	rt      *Runtime
	srv     *httptest.Server
	cfgFile string
	logs    *logBuffer
}

func newRig(t *testing.T) *rig {
	t.Helper()
	r := &rig{t: t, origin: newOrigin(t), logs: &logBuffer{}}
	r.cache, _ = newTestCache(t)
	log := slog.New(slog.NewTextHandler(r.logs, nil))
	r.handler = NewHandler(log)
	r.cfgFile = filepath.Join(t.TempDir(), "lectern.yaml")
	rt, err := NewRuntime(log, r.cache, r.handler, r.cfgFile, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	r.rt = rt
	r.srv = httptest.NewServer(r.handler)
	t.Cleanup(r.srv.Close)
	t.Cleanup(rt.Stop)
	return r
}

// publish serves a bundle of version v and returns its link.
func (r *rig) publish(v string) string {
	return r.origin.put("/"+v+".tar.gz", makeBundle(r.t, testSite(v), v))
}

// configure writes the configuration file.
func (r *rig) configure(link, version, features string) *Config {
	r.t.Helper()
	y := fmt.Sprintf("deployment: {type: client-hosted}\nstaticExport: {enabled: true, bundleUrl: %q}\n", link)
	if version != "" {
		y = fmt.Sprintf("deployment: {type: client-hosted}\nstaticExport: {enabled: true, bundleUrl: %q, version: %q}\n", link, version)
	}
	if features != "" {
		y += "features: {" + features + "}\n"
	}
	if err := os.WriteFile(r.cfgFile, []byte(y), 0o644); err != nil {
		r.t.Fatal(err)
	}
	c, err := LoadConfig(r.cfgFile, func(string) string { return "" })
	if err != nil {
		r.t.Fatal(err)
	}
	return c
}

// version returns the version the home page shows.
func (r *rig) version() string {
	r.t.Helper()
	_, body := get(r.t, "GET", r.srv.URL+"/")
	return pageVersion(r.t, body)
}

var versionRE = regexp.MustCompile(`<title>Home (\S+)</title>.*<p>version (\S+)</p>`)

// pageVersion returns the version of a home page, failing on a page that
// mixes two versions.
func pageVersion(t testing.TB, body string) string {
	m := versionRE.FindStringSubmatch(strings.ReplaceAll(body, "\n", " "))
	if m == nil || m[1] != m[2] {
		t.Errorf("not a whole page of one version: %v %.200q", m, body)
		return ""
	}
	return m[1]
}

func TestApplyPinnedCachedSkipsDownload(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	link := r.publish("v1")
	if err := r.rt.Apply(context.Background(), r.configure(link, "v1", "")); err != nil {
		t.Fatal(err)
	}
	hits := r.origin.hits.Load()
	r.handler.Swap(nil)
	if err := r.rt.Apply(context.Background(), r.configure(link, "v1", "search: true")); err != nil {
		t.Fatal(err)
	}
	if r.origin.hits.Load() != hits || r.version() != "v1" {
		t.Fatalf("pinned cached version downloaded again (%d requests) or not served", r.origin.hits.Load()-hits)
	}
}

// Re-applying an unpinned configuration with only a feature changed uses
// the bundle being served: no download, even once the link stops working.
func TestReapplyUnpinnedFeatureSkipsDownload(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	link := r.publish("v1")
	if err := r.rt.Apply(context.Background(), r.configure(link, "", "")); err != nil {
		t.Fatal(err)
	}
	hits := r.origin.hits.Load()
	r.origin.fail("/v1.tar.gz", 403, 403, 403, 403)
	r.configure(link, "", "search: true")
	r.rt.reapply(context.Background())
	if n := r.origin.hits.Load() - hits; n != 0 {
		t.Fatalf("bundle downloaded again (%d requests)", n)
	}
	if cur := r.handler.Current(); cur == nil || !cur.Features.Search || r.version() != "v1" {
		t.Fatalf("feature switch not applied:\n%s", r.logs.String())
	}
	if logs := r.logs.String(); strings.Contains(logs, "level=WARN") || strings.Contains(logs, "not applied") {
		t.Fatalf("re-apply warned:\n%s", logs)
	}
}

func TestApplyExpiredLink(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	if err := r.rt.Apply(context.Background(), r.configure(r.publish("v1"), "", "")); err != nil {
		t.Fatal(err)
	}
	expired := fmt.Sprintf("%s/v2.tar.gz?expires=1700000000&signature=s3cr3tsig", r.origin.URL)
	r.origin.fail("/v2.tar.gz", 403, 403)

	t.Log("unpinned: the last served version is served, with a warning")
	r.handler.Swap(nil)
	if err := r.rt.Apply(context.Background(), r.configure(expired, "", "")); err != nil {
		t.Fatal(err)
	}
	if r.version() != "v1" {
		t.Fatal("last served version not served")
	}
	logs := r.logs.String()
	if !strings.Contains(logs, "level=WARN") || !strings.Contains(logs, "the bundle link expired at 2023-11-14T22:13:20Z") ||
		!strings.Contains(logs, "link_expires_at=2023-11-14T22:13:20Z") || strings.Contains(logs, "s3cr3tsig") {
		t.Fatalf("warning:\n%s", logs)
	}

	t.Log("pinned to a version not in the cache: a clear error")
	err := r.rt.Apply(context.Background(), r.configure(expired, "v2", ""))
	var se *StartError
	if !errors.As(err, &se) || lectern.ErrorCode(err) != lectern.EUNAVAILABLE || err.Error() != "the bundle link expired at 2023-11-14T22:13:20Z (the server answered 403 Forbidden), and version v2 is not in the cache: "+
		"generate a new bundle (POST /v1/static-export/jobs/{jobId}/bundle) and re-apply the configuration with its bundleUrl" {
		t.Fatalf("err %v", err)
	}

	t.Log("an empty cache: the same")
	r2 := newRig(t)
	r2.origin.fail("/v2.tar.gz", 403)
	err = r2.rt.Apply(context.Background(), r2.configure(strings.Replace(expired, r.origin.URL, r2.origin.URL, 1), "", ""))
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "expired at 2023-11-14T22:13:20Z") || !strings.Contains(err.Error(), "the cache holds no version") {
		t.Fatalf("empty cache: %v", err)
	}
}

// A failing re-apply (bad bundle, bad configuration, pin mismatch, dead
// link) keeps the current site; a good one switches.
func TestReapplyFailuresKeepServing(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	if err := r.rt.Apply(context.Background(), r.configure(r.publish("v1"), "", "")); err != nil {
		t.Fatal(err)
	}
	bad := r.origin.put("/bad.tar.gz", craft(t, nil, regEntry("../evil", "x")))
	steps := []struct {
		write func()
		want  string
	}{
		{func() { r.configure(bad, "", "") }, "the bundle is refused"},
		{func() { os.WriteFile(r.cfgFile, []byte("deployment: [\n"), 0o644) }, "is not valid YAML"},
		{func() { r.configure(r.publish("v2"), "v3", "") }, "staticExport.version pins"},
		{func() { r.configure(r.origin.URL+"/missing.tar.gz", "", "") }, "404 Not Found"},
	}
	for _, s := range steps {
		s.write()
		r.rt.reapply(context.Background())
		if got := r.version(); got != "v1" {
			t.Fatalf("after a failed re-apply (%s) serving %s", s.want, got)
		}
		if logs := r.logs.String(); !strings.Contains(logs, "configuration not applied; still serving version v1") || !strings.Contains(logs, s.want) {
			t.Fatalf("log lacks %q:\n%s", s.want, logs)
		}
	}
	r.configure(r.publish("v2"), "", "")
	r.rt.reapply(context.Background())
	if got := r.version(); got != "v2" {
		t.Fatalf("good re-apply serves %s", got)
	}
	if ents, _ := os.ReadDir(filepath.Join(r.cache.Dir(), "sites")); len(ents) != 1 {
		t.Fatalf("old served trees left: %v", ents)
	}
}

// Re-applying while clients keep requesting pages: no request fails, no
// response mixes versions, and once a client sees the new version it never
// sees the old one again. The switch is driven both by Reload (SIGHUP)
// and by a change of the file.
func TestReapplyNoFailedRequest(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.rt.WatchInterval = 20 * time.Millisecond
	if err := r.rt.Apply(context.Background(), r.configure(r.publish("v1"), "", "")); err != nil {
		t.Fatal(err)
	}
	r.rt.Start(context.Background())
	links := map[string]string{"v2": r.publish("v2"), "v3": r.publish("v3")}

	var stop atomic.Bool
	var requests, failures atomic.Int64
	var wg sync.WaitGroup
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			seen := 1
			for !stop.Load() {
				for _, p := range []string{"/", "/guides/x", "/_lectern/style.css"} {
					resp, err := client.Get(r.srv.URL + p)
					if err != nil {
						failures.Add(1)
						t.Errorf("GET %s: %v", p, err)
						return
					}
					body, err := io.ReadAll(resp.Body)
					resp.Body.Close()
					requests.Add(1)
					if err != nil || resp.StatusCode != 200 {
						failures.Add(1)
						t.Errorf("GET %s: %d %v", p, resp.StatusCode, err)
						return
					}
					if p == "/" {
						v := pageVersion(t, string(body))
						n := int(v[1] - '0')
						if n < seen {
							t.Errorf("saw v%d after v%d", n, seen)
						}
						seen = n
					}
				}
			}
		}()
	}
	waitVersion := func(v string) {
		deadline := time.Now().Add(10 * time.Second)
		for r.version() != v {
			if time.Now().After(deadline) {
				t.Fatalf("%s not served after 10s:\n%s", v, r.logs.String())
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	time.Sleep(50 * time.Millisecond)
	t.Log("switch by Reload")
	r.configure(links["v2"], "", "search: true")
	r.rt.Reload()
	waitVersion("v2")
	time.Sleep(50 * time.Millisecond)
	t.Log("switch by a file change")
	r.configure(links["v3"], "", "")
	waitVersion("v3")
	t.Log("many switches of features")
	for i := range 10 {
		search := i%2 == 0
		r.configure(links["v3"], "", fmt.Sprintf("search: %v", search))
		r.rt.Reload()
		for deadline := time.Now().Add(10 * time.Second); r.handler.Current().Features.Search != search; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("switch %d not applied:\n%s", i, r.logs.String())
			}
		}
	}
	time.Sleep(20 * time.Millisecond)
	stop.Store(true)
	wg.Wait()
	if failures.Load() > 0 || requests.Load() < 50 {
		t.Fatalf("%d failures in %d requests", failures.Load(), requests.Load())
	}
	t.Logf("%d requests during 12 switches", requests.Load())
}
