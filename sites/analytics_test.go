package sites

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/blobstore/blobtest"
	"lectern.dev/lectern/store"
)

const browserUA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0 Safari/537.36"

// beaconRig is a cloud project's site with the collector running.
func beaconRig(t *testing.T) (*Server, *lectern.Project, func() []lectern.AnalyticsDay, func(kind lectern.AnalyticsKind) []lectern.AnalyticsKey) {
	t.Helper()
	st, b := openStore(t), blobtest.Folder(t)
	p := newProject(t, st, "cloud.example.com")
	publish(t, st, b, p.ID, builtFiles(t))
	srv := New(discardLog(), st, b)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); srv.RunAnalytics(ctx) }()
	for !srv.analytics.c.Running() {
		time.Sleep(time.Millisecond)
	}
	stop := func() { cancel(); <-done }
	t.Cleanup(stop)
	day := time.Now().UTC()
	// flushed stops the collector (recording what is queued) and restarts it.
	flushed := func() {
		cancel()
		<-done
		ctx, cancel = context.WithCancel(context.Background())
		done = make(chan struct{})
		go func() { defer close(done); srv.RunAnalytics(ctx) }()
		for !srv.analytics.c.Running() {
			time.Sleep(time.Millisecond)
		}
	}
	daily := func() []lectern.AnalyticsDay {
		flushed()
		ds, err := st.AnalyticsDaily(context.Background(), p.ID, lectern.AnalyticsVisit, day.Add(-24*time.Hour), day.Add(24*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		return ds
	}
	top := func(kind lectern.AnalyticsKind) []lectern.AnalyticsKey {
		flushed()
		ks, err := st.AnalyticsTop(context.Background(), p.ID, kind, day.Add(-24*time.Hour), day.Add(24*time.Hour), store.AnalyticsTopFilter{})
		if err != nil {
			t.Fatal(err)
		}
		return ks
	}
	return srv, p, daily, top
}

func sendBeacon(srv http.Handler, body string, hdr ...string) int {
	r := httptest.NewRequest("POST", AnalyticsPath, strings.NewReader(body))
	r.Host = "cloud.example.com"
	r.RemoteAddr = "203.0.113.7:5555"
	r.Header.Set("Content-Type", "text/plain;charset=UTF-8")
	r.Header.Set("User-Agent", browserUA)
	r.Header.Set("Origin", "http://cloud.example.com")
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Set(hdr[i], hdr[i+1])
	}
	w := httptest.NewRecorder()
	srv.ServeHTTP(w, r)
	return w.Code
}

// TestBeacon: a cloud site's page views, searches and votes are counted,
// one visitor per address and browser; bots, prefetches, other origins,
// paths that are no page of the site and malformed events are not.
func TestBeacon(t *testing.T) {
	t.Parallel()
	srv, _, daily, top := beaconRig(t)
	for _, body := range []string{
		`{"type":"pageview","path":"/deploy","referrer":"https://www.google.com/search?q=x","title":"Deploying","ts":"2026-01-01T00:00:00Z"}`,
		`{"path":"/deploy","referrer":"http://cloud.example.com/"}`,
		`{"type":"pageview","path":"/"}`,
	} {
		if c := sendBeacon(srv, body); c != 204 {
			t.Fatalf("%s: %d", body, c)
		}
	}
	if c := sendBeacon(srv, `{"path":"/"}`, "User-Agent", "Mozilla/5.0 Firefox/140.0"); c != 204 {
		t.Fatal(c)
	}
	// Not counted: 204 all the same, or refused.
	for _, c := range []struct {
		body   string
		status int
		hdr    []string
	}{
		{`{"path":"/deploy"}`, 204, []string{"User-Agent", "Googlebot/2.1"}},
		{`{"path":"/deploy"}`, 204, []string{"User-Agent", ""}},
		{`{"path":"/deploy"}`, 204, []string{"Sec-Purpose", "prefetch"}},
		{`{"path":"/deploy"}`, 403, []string{"Origin", "https://evil.example"}},
		{`{"path":"/nope"}`, 400, nil},
		{`{"path":"https://evil.example/deploy"}`, 400, nil},
		{`{"type":"click","path":"/"}`, 400, nil},
		{`{"path":"/","extra":1}`, 400, nil},
		{`{"type":"search","path":"/","query":"x"}`, 400, nil},
		{`{"type":"feedback","path":"/"}`, 400, nil},
		{`{"type":"search","path":"/","query":"x","results":1,"clicked":"/nope"}`, 400, nil},
		{`not json`, 400, nil},
		{`{"path":"/"}` + strings.Repeat(" ", 13<<10), 413, nil},
	} {
		if got := sendBeacon(srv, c.body, c.hdr...); got != c.status {
			t.Errorf("%.60s %v: %d, want %d", c.body, c.hdr, got, c.status)
		}
	}
	r := httptest.NewRequest("GET", AnalyticsPath, nil)
	r.Host = "cloud.example.com"
	w := httptest.NewRecorder()
	srv.ServeHTTP(w, r)
	if w.Code != 405 {
		t.Errorf("GET: %d", w.Code)
	}

	days := daily()
	if len(days) != 1 || days[0].N != 4 || days[0].Visitors != 2 {
		t.Fatalf("visits %+v, want 4 views by 2 visitors", days)
	}
	if refs := top(lectern.AnalyticsReferrer); len(refs) != 1 || refs[0].Key != "www.google.com" || refs[0].N != 1 {
		t.Errorf("referrers %+v", refs)
	}
	if pages := top(lectern.AnalyticsPageview); len(pages) != 2 || pages[0].Key != "/" || pages[0].N != 2 || pages[0].Visitors != 2 {
		t.Errorf("pages %+v", pages)
	}

	sendBeacon(srv, `{"type":"search","path":"/","query":"  Roll   BACK ","results":2,"clicked":"/deploy#rolling-back"}`)
	sendBeacon(srv, `{"type":"search","path":"/","query":"kubernetes","results":0}`)
	sendBeacon(srv, `{"type":"feedback","path":"/deploy","helpful":false,"comment":"missing a step"}`)
	// A comment of 2,000 characters of a script of 3 bytes each fits.
	if c := sendBeacon(srv, `{"type":"feedback","path":"/deploy","helpful":true,"comment":"`+strings.Repeat("文", 2000)+`"}`); c != 204 {
		t.Errorf("a long CJK comment: %d", c)
	}
	ss := top(lectern.AnalyticsSearch)
	if len(ss) != 2 || ss[0].Key != "kubernetes" && ss[0].Key != "roll back" {
		t.Fatalf("searches %+v", ss)
	}
	for _, k := range ss {
		if (k.Key == "roll back" && (k.Clicks != 1 || k.Zero != 0)) || (k.Key == "kubernetes" && k.Zero != 1) {
			t.Errorf("search %+v", k)
		}
	}
	if fb := top(lectern.AnalyticsFeedback); len(fb) != 1 || fb[0].Key != "/deploy" || fb[0].No != 1 || fb[0].Yes != 1 {
		t.Errorf("feedback %+v", fb)
	}
}

// TestBeaconRate: an address over its rate is refused, another is not.
func TestBeaconRate(t *testing.T) {
	t.Parallel()
	srv, _, _, _ := beaconRig(t)
	limited := 0
	for i := 0; i < 100; i++ {
		if sendBeacon(srv, `{"path":"/"}`) == 429 {
			limited++
		}
	}
	if limited == 0 {
		t.Error("100 events at once from one address were not limited")
	}
	r := httptest.NewRequest("POST", AnalyticsPath, strings.NewReader(`{"path":"/"}`))
	r.Host, r.RemoteAddr = "cloud.example.com", "198.51.100.9:1"
	r.Header.Set("User-Agent", browserUA)
	w := httptest.NewRecorder()
	srv.ServeHTTP(w, r)
	if w.Code != 204 {
		t.Errorf("another address: %d", w.Code)
	}
}

// TestBeaconWithoutCollector: a process whose collector does not run
// drops events, counted, and answers the page quietly (no console error).
func TestBeaconWithoutCollector(t *testing.T) {
	t.Parallel()
	st, b := openStore(t), blobtest.Folder(t)
	p := newProject(t, st, "cloud.example.com")
	publish(t, st, b, p.ID, builtFiles(t))
	srv := New(discardLog(), st, b)
	if c := sendBeacon(srv, `{"path":"/"}`); c != 204 || srv.AnalyticsDropped() != 1 {
		t.Errorf("%d, dropped %d", c, srv.AnalyticsDropped())
	}
}
