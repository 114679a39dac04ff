package beacon

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"lectern.dev/lectern"
)

// TestAddDropsWhenFull: a full queue drops events, counted, at once.
func TestAddDropsWhenFull(t *testing.T) {
	c := NewCollector(nil, nil, 3)
	done := make(chan struct{})
	go func() {
		for i := 0; i < 10; i++ {
			c.Add(lectern.AnalyticsEvent{Path: "/"})
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Add blocked on a full queue")
	}
	if c.Accepted() != 3 || c.Dropped() != 7 {
		t.Errorf("accepted %d, dropped %d; want 3 and 7", c.Accepted(), c.Dropped())
	}
}

// TestRunRecordsInBatches: Run records what is queued, and what is left
// when it stops; a store error drops the batch, counted.
func TestRunRecordsInBatches(t *testing.T) {
	st := &memStore{}
	c := NewCollector(nil, st, 5000)
	for i := 0; i < 2500; i++ {
		c.Add(lectern.AnalyticsEvent{Path: "/"})
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); c.Run(ctx) }()
	cancel()
	<-done
	if st.n != 2500 || st.batches != 3 {
		t.Errorf("recorded %d events in %d batches, want 2500 in 3", st.n, st.batches)
	}
}

type memStore struct{ n, batches int }

func (m *memStore) RecordAnalytics(_ context.Context, evs []lectern.AnalyticsEvent) error {
	m.n += len(evs)
	m.batches++
	return nil
}
func (m *memStore) AnalyticsSalt(context.Context, time.Time) ([]byte, error) {
	return []byte("salt"), nil
}

func TestCountedAndSameSite(t *testing.T) {
	for ua, want := range map[string]bool{
		"Mozilla/5.0 (X11; Linux x86_64) Chrome/156.0 Safari/537.36":               true,
		"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)": false,
		"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 HeadlessChrome/156.0":  false,
		"curl/8.5.0": false,
		"":           false,
	} {
		r := httptest.NewRequest("POST", "/_lectern/analytics", nil)
		r.Header.Set("User-Agent", ua)
		if Counted(r) != want {
			t.Errorf("%q counted: %v", ua, !want)
		}
	}
	r := httptest.NewRequest("POST", "/_lectern/analytics", nil)
	r.Header.Set("User-Agent", "Mozilla/5.0 Firefox/140.0")
	r.Header.Set("Sec-Purpose", "prefetch;prerender")
	if Counted(r) {
		t.Error("a prefetch was counted")
	}
	r.Header.Set("Origin", "https://docs.acme.test")
	if !SameSite(r, "docs.acme.test") || SameSite(r, "other.test") {
		t.Error("SameSite by Origin")
	}
	r.Header.Del("Origin")
	r.Header.Set("Referer", "https://evil.test/x")
	if SameSite(r, "docs.acme.test") {
		t.Error("SameSite by Referer")
	}
}

func TestVisitorHash(t *testing.T) {
	a := VisitorHash([]byte("s1"), "203.0.113.7", "UA", "docs.test")
	if len(a) != lectern.AnalyticsVisitorLen || a != VisitorHash([]byte("s1"), "203.0.113.7", "UA", "docs.test") {
		t.Fatalf("hash %q is not stable or not %d long", a, lectern.AnalyticsVisitorLen)
	}
	for _, b := range []string{VisitorHash([]byte("s2"), "203.0.113.7", "UA", "docs.test"), VisitorHash([]byte("s1"), "203.0.113.8", "UA", "docs.test"),
		VisitorHash([]byte("s1"), "203.0.113.7", "UA", "other.test"), VisitorHash([]byte("s1"), "203.0.113.7U", "A", "docs.test")} {
		if b == a {
			t.Error("two visitors share a hash")
		}
	}
	if strings.Contains(a, "203") {
		t.Error("the hash shows the address")
	}
}

// FuzzParse: any body is an event with a site path, or an error; never
// a panic.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`{"path":"/"}`, `{"type":"search","path":"/a","query":"x","results":2,"clicked":"/b#c"}`,
		`{"type":"feedback","path":"/a","helpful":true,"comment":"ok"}`, `{"path":"//evil.test/x"}`, `{"path":"/../x"}`, "\x00", `{"path":"/` + "\xff" + `"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ev, err := Parse(data, "docs.test")
		if err != nil {
			return
		}
		if !strings.HasPrefix(ev.Path, "/") || strings.HasPrefix(ev.Path, "//") || strings.Contains(ev.Path, "/../") {
			t.Errorf("path %q", ev.Path)
		}
		if ev.Clicked != "" && !strings.HasPrefix(ev.Clicked, "/") {
			t.Errorf("clicked %q", ev.Clicked)
		}
	})
}
