package sites

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/blobstore/blobtest"
)

// countingResolver counts the lookups of domains.
type countingResolver struct {
	Resolver
	n atomic.Int32
}

func (c *countingResolver) ResolveDomain(ctx context.Context, d string) (string, string, error) {
	c.n.Add(1)
	return c.Resolver.ResolveDomain(ctx, d)
}

// TestWatchedAtomicSwitch is TestAtomicSwitch with the caches of lectern
// serve: resolutions kept for a second and files in memory, the switches
// published through the watched store as the update job does. The first
// request after each switch is served from the new deployment, and no
// request mixes deployments.
func TestWatchedAtomicSwitch(t *testing.T) {
	t.Parallel()
	st, b := openStore(t), blobtest.Folder(t)
	p := newProject(t, st, "watched.example.com")
	publishLive(t, st, b, p.ID, versionFiles("A", 0))
	srv := New(discardLog(), st, b)
	ws := srv.Watch(st)
	switchUnderLoad(t, srv, "watched.example.com", func(v string, gen int) {
		publishLive(t, ws, b, p.ID, versionFiles(v, gen))
	})
	if used, _ := srv.hot.stats(); used == 0 {
		t.Error("the pages were not kept in memory")
	}
}

// TestWatchedPromote: promoting through the watched store is seen by the
// next request.
func TestWatchedPromote(t *testing.T) {
	t.Parallel()
	st, b := openStore(t), blobtest.Folder(t)
	p := newProject(t, st, "promote.example.com")
	srv := New(discardLog(), st, b)
	ws := srv.Watch(st)
	depA := publishLive(t, ws, b, p.ID, map[string]string{"index.html": "A"})
	publishLive(t, ws, b, p.ID, map[string]string{"index.html": "B"})
	if w := do(srv, "GET", "promote.example.com", "/"); w.Body.String() != "B" {
		t.Fatalf("GET / = %q, want B", w.Body.String())
	}
	if err := ws.PromoteDeployment(t.Context(), p.ID, depA, &lectern.Update{Source: "promote"}, time.Now()); err != nil {
		t.Fatal(err)
	}
	if w := do(srv, "GET", "promote.example.com", "/"); w.Body.String() != "A" {
		t.Errorf("GET / right after promoting A = %q, want A", w.Body.String())
	}
}

// A project deleted through the watched store stops being served at once,
// and its files leave the cache.
func TestWatchedDeleteStopsServing(t *testing.T) {
	t.Parallel()
	st, b := openStore(t), blobtest.Folder(t)
	p := newProject(t, st, "gone.example.com")
	srv := New(discardLog(), st, b)
	ws := srv.Watch(st)
	publishLive(t, ws, b, p.ID, bigFiles)
	for range 3 {
		if w := do(srv, "GET", "gone.example.com", "/"); w.Code != 200 {
			t.Fatalf("GET / before the delete = %d", w.Code)
		}
	}
	if !srv.Serves(t.Context(), "gone.example.com") {
		t.Fatal("Serves = false before the delete")
	}
	if _, by := srv.hot.stats(); by[p.ID] == 0 {
		t.Fatal("the site's page is not in the cache before the delete")
	}
	if err := ws.DeleteProject(t.Context(), p.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	if w := do(srv, "GET", "gone.example.com", "/"); w.Code != 404 || strings.Contains(w.Body.String(), "Lectern serves docs") {
		t.Errorf("GET / right after the delete = %d %q, want 404", w.Code, w.Body.String())
	}
	if srv.Serves(t.Context(), "gone.example.com") {
		t.Error("Serves = true right after the delete")
	}
	if _, by := srv.hot.stats(); by[p.ID] != 0 {
		t.Errorf("the deleted site still has %d bytes in the cache", by[p.ID])
	}
}

// A switch made by another process (the store changed directly, without
// the hook) is seen within the resolution's time to live, and within it
// the store is asked once, not per request.
func TestResolutionFromAnotherProcess(t *testing.T) {
	t.Parallel()
	st, b := openStore(t), blobtest.Folder(t)
	p := newProject(t, st, "other.example.com")
	publishLive(t, st, b, p.ID, map[string]string{"index.html": "v1"})
	res := &countingResolver{Resolver: st}
	srv := New(discardLog(), res, b)
	srv.Watch(st)
	const ttl = 300 * time.Millisecond
	srv.resolved.ttl = ttl
	start := time.Now()
	for range 20 {
		if w := do(srv, "GET", "other.example.com", "/"); w.Body.String() != "v1" {
			t.Fatalf("GET / = %q, want v1", w.Body.String())
		}
	}
	if n := res.n.Load(); n != 1 && time.Since(start) < ttl {
		t.Errorf("%d lookups for 20 requests within %s, want 1", n, ttl)
	}
	publishLive(t, st, b, p.ID, map[string]string{"index.html": "v2"}) // as another process would
	switched := time.Now()
	for {
		w := do(srv, "GET", "other.example.com", "/")
		if w.Body.String() == "v2" {
			break
		}
		if time.Since(switched) > ttl+200*time.Millisecond {
			t.Fatalf("still %q %s after another process's switch, want v2 within %s", w.Body.String(), time.Since(switched), ttl)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Without Watch, every request asks the store: a server that is not told
// of the switches must not keep an answer.
func TestNoResolutionCacheWithoutWatch(t *testing.T) {
	t.Parallel()
	st, b := openStore(t), blobtest.Folder(t)
	p := newProject(t, st, "plain.example.com")
	publishLive(t, st, b, p.ID, map[string]string{"index.html": "v1"})
	res := &countingResolver{Resolver: st}
	srv := New(discardLog(), res, b)
	for range 5 {
		do(srv, "GET", "plain.example.com", "/")
	}
	if n := res.n.Load(); n != 5 {
		t.Errorf("%d lookups for 5 requests, want 5", n)
	}
}

// A lookup that began before a change is not kept: it may hold the live
// deployment from before the switch.
func TestResolutionBeforeChangeNotKept(t *testing.T) {
	t.Parallel()
	var c resolutions
	c.ttl = time.Second
	_, gen, _ := c.get("h", time.Now())
	c.clear() // the switch, while the lookup was in progress
	c.put("h", hostEntry{found: true, deploymentID: "old", at: time.Now()}, gen)
	if _, _, ok := c.get("h", time.Now()); ok {
		t.Error("an answer read before a change was kept")
	}
	_, gen, _ = c.get("h", time.Now())
	c.put("h", hostEntry{found: true, deploymentID: "new", at: time.Now()}, gen)
	if e, _, ok := c.get("h", time.Now()); !ok || e.deploymentID != "new" {
		t.Errorf("get = %+v, %v; want the new answer", e, ok)
	}
}
