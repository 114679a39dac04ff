package sites

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"lectern.dev/lectern/blobstore/blobtest"
)

// BenchmarkBeacon: analytics events accepted per second by one process
// (16 senders over HTTP, each event from its own address, recorded into
// SQLite in batches as they come); then the page requests per second of
// 16 readers alone, while events flow at a busy site's 1,000 a second,
// and while they flow flat out, in the same run (go test ./sites -run
// '^$' -bench Beacon -benchtime 20000x). Client and server share the
// machine's cores.
func BenchmarkBeacon(b *testing.B) {
	st, bk := openStore(b), blobtest.Folder(b)
	files := builtFiles(b)
	p := newProject(b, st, "bench.example.com")
	publish(b, st, bk, p.ID, files)
	s := New(discardLog(), st, bk)
	s.ClientAddr = func(r *http.Request) string { return r.Header.Get("X-Bench-Addr") }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); s.RunAnalytics(ctx) }()
	defer func() { cancel(); <-done }()
	for !s.analytics.c.Running() {
		time.Sleep(time.Millisecond)
	}
	srv := httptest.NewServer(s)
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	var seq atomic.Int64
	page := func() error {
		req, _ := http.NewRequest("GET", srv.URL+"/deploy", nil)
		req.Host = "bench.example.com"
		return send(client, req, 200)
	}
	event := func() error {
		n := seq.Add(1)
		req, _ := http.NewRequest("POST", srv.URL+AnalyticsPath, strings.NewReader(`{"path":"/deploy","referrer":"https://www.google.com/"}`))
		req.Host = "bench.example.com"
		req.Header.Set("User-Agent", browserUA)
		req.Header.Set("X-Bench-Addr", fmt.Sprintf("10.%d.%d.%d", n>>16&255, n>>8&255, n&255))
		return send(client, req, 204)
	}
	// run sends n requests of do from 16 clients and returns them per second.
	run := func(n int, do func() error, stop *atomic.Bool) float64 {
		var wg sync.WaitGroup
		var left atomic.Int64
		left.Store(int64(n))
		start := time.Now()
		for c := 0; c < 16; c++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for left.Add(-1) >= 0 && (stop == nil || !stop.Load()) {
					if err := do(); err != nil {
						b.Error(err)
						return
					}
				}
			}()
		}
		wg.Wait()
		return float64(n) / time.Since(start).Seconds()
	}
	// steady sends events at perSecond until stop is set.
	steady := func(perSecond int, stop *atomic.Bool, done chan<- struct{}) {
		defer close(done)
		tick := time.NewTicker(time.Second / time.Duration(perSecond))
		defer tick.Stop()
		for !stop.Load() {
			<-tick.C
			go event()
		}
	}
	b.ResetTimer()
	events := run(b.N, event, nil)
	alone := run(b.N, page, nil)
	var stop atomic.Bool
	flowing := make(chan struct{})
	go steady(1000, &stop, flowing)
	withSteady := run(b.N, page, nil)
	stop.Store(true)
	<-flowing
	var pagesFlat float64
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); run(b.N, event, nil) }()
	go func() { defer wg.Done(); pagesFlat = run(b.N, page, nil) }()
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(events, "events/s")
	b.ReportMetric(alone, "pages/s")
	b.ReportMetric(withSteady, "pages/s-1k-events/s")
	b.ReportMetric(100*(1-withSteady/alone), "%-slower-1k-events/s")
	b.ReportMetric(pagesFlat, "pages/s-events-flat-out")
	b.ReportMetric(float64(s.AnalyticsDropped()), "dropped")
}

func send(c *http.Client, req *http.Request, want int) error {
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != want {
		return fmt.Errorf("%s %s: %d", req.Method, req.URL.Path, resp.StatusCode)
	}
	return nil
}
