package readcache_test

import (
	"context"
	"errors"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
	"lectern.dev/lectern/store/readcache"
	"lectern.dev/lectern/store/sqlite"
	"lectern.dev/lectern/store/storetest"
)

// The wrapper with caching disabled must still be a conforming store.
func TestConformanceUncached(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return readcache.New(st, -1, -1)
	})
}

func TestCacheBounds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	c := readcache.New(st, 200*time.Millisecond, 200*time.Millisecond)
	org := &lectern.Organization{Name: "o", Plan: lectern.PlanEnterprise}
	st.CreateOrg(ctx, org)
	p := &lectern.Project{OrgID: org.ID, Name: "p", RepoURL: "r", Branch: "main", DocsRoot: "/", Domains: []string{"a.test"}, DeploymentType: lectern.DeploymentCloud}
	if err := st.CreateProject(ctx, p); err != nil {
		t.Fatal(err)
	}
	secret := lectern.NewAPIKey()
	hash := lectern.HashAPIKey(secret)

	// A miss is not cached: a key created after a failed lookup is found at once.
	if _, err := c.GetAPIKeyByHash(ctx, hash); lectern.ErrorCode(err) != lectern.ENOTFOUND {
		t.Fatalf("want not found, got %v", err)
	}
	k := &lectern.APIKey{OrgID: org.ID, Name: "k", Hint: "h", Hash: hash}
	if err := st.CreateAPIKey(ctx, k); err != nil {
		t.Fatal(err)
	}
	got, err := c.GetAPIKeyByHash(ctx, hash)
	if err != nil || got.RevokedAt != nil {
		t.Fatalf("new key: %v %v", got, err)
	}
	// A revocation is seen within the TTL, not before the cached copy ages.
	st.RevokeAPIKey(ctx, k.ID, time.Now())
	if got, _ := c.GetAPIKeyByHash(ctx, hash); got.RevokedAt != nil {
		t.Fatal("cached copy should still be the one read before the revocation")
	}
	time.Sleep(250 * time.Millisecond)
	if got, _ := c.GetAPIKeyByHash(ctx, hash); got.RevokedAt == nil {
		t.Fatal("revocation not seen after the TTL")
	}

	// Callers get copies: changing one does not change the cache.
	e := &lectern.ExportJob{OrgID: org.ID, ProjectID: p.ID, Domain: "a.test"}
	if err := st.CreateExport(ctx, e, store.ExportQuota{}); err != nil {
		t.Fatal(err)
	}
	a, _ := c.GetExport(ctx, e.ID)
	a.Status = "mangled"
	if b, _ := c.GetExport(ctx, e.ID); b.Status != lectern.ExportQueued {
		t.Fatalf("cache shared its value: %q", b.Status)
	}
}

// gatedStore counts GetExport loads and holds each until released; the
// n-th load reports progress n.
type gatedStore struct {
	store.Store
	loads   atomic.Int32
	entered chan int32
	release chan struct{}
	status  lectern.ExportStatus
}

func (g *gatedStore) GetExport(ctx context.Context, id string) (*lectern.ExportJob, error) {
	n := g.loads.Add(1)
	g.entered <- n
	<-g.release
	return &lectern.ExportJob{ID: id, Status: g.status, Progress: int(n)}, nil
}

// A job still running is never answered from a load that began before the
// request arrived, so answers are never older than the request; requests
// arriving during one load share the next.
func TestRunningJobIsReadAfterArrival(t *testing.T) {
	t.Parallel()
	g := &gatedStore{entered: make(chan int32, 8), release: make(chan struct{}), status: lectern.ExportRunning}
	c := readcache.New(g, time.Minute, time.Minute) // long TTLs: only finality may allow the cache
	results := make(chan int, 8)
	get := func() {
		e, err := c.GetExport(context.Background(), "exp_1")
		if err != nil {
			t.Error(err)
			results <- -1
			return
		}
		results <- e.Progress
	}
	go get()
	if n := <-g.entered; n != 1 {
		t.Fatalf("first load is number %d", n)
	}
	// Three requests arrive while load 1 is in progress.
	for range 3 {
		go get()
	}
	time.Sleep(50 * time.Millisecond)
	if n := g.loads.Load(); n != 1 {
		t.Fatalf("%d loads started while the first was in progress, want 1", n)
	}
	g.release <- struct{}{}
	if p := <-results; p != 1 {
		t.Fatalf("first request got load %d", p)
	}
	if n := <-g.entered; n != 2 {
		t.Fatalf("second load is number %d", n)
	}
	g.release <- struct{}{}
	for range 3 {
		if p := <-results; p != 2 {
			t.Errorf("a request that arrived during load 1 got load %d, want 2", p)
		}
	}
	if n := g.loads.Load(); n != 2 {
		t.Errorf("%d loads, want 2 (the three later requests share one)", n)
	}
	// Running: even within the TTL, the next request loads again.
	go get()
	<-g.entered
	g.release <- struct{}{}
	if p := <-results; p != 3 {
		t.Errorf("a later request got load %d, want a new load 3", p)
	}
}

// A job in a final state is served from the cache within StatusTTL.
func TestFinalJobIsCached(t *testing.T) {
	t.Parallel()
	g := &gatedStore{entered: make(chan int32, 8), release: make(chan struct{}), status: lectern.ExportCompleted}
	c := readcache.New(g, time.Minute, time.Minute)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 5 {
			if e, err := c.GetExport(context.Background(), "exp_1"); err != nil || e.Progress != 1 {
				t.Errorf("GetExport = %+v, %v; want the first load's answer", e, err)
			}
		}
	}()
	<-g.entered
	g.release <- struct{}{}
	<-done
	if n := g.loads.Load(); n != 1 {
		t.Errorf("%d loads of a completed job, want 1", n)
	}
}

// gatedKeys holds each GetAPIKeyByHash load until released, and records
// whether the load's context had ended when it returned.
type gatedKeys struct {
	store.Store
	loads    atomic.Int32
	entered  chan struct{}
	release  chan struct{}
	ctxEnded atomic.Bool
}

func (g *gatedKeys) GetAPIKeyByHash(ctx context.Context, hash []byte) (*lectern.APIKey, error) {
	g.loads.Add(1)
	g.entered <- struct{}{}
	<-g.release
	g.ctxEnded.Store(ctx.Err() != nil)
	return &lectern.APIKey{ID: "key_1"}, nil
}

// API keys share the load in progress (they need no arrival order), and a
// caller that goes away neither cancels the shared load nor fails the
// others waiting for it.
func TestKeyLoadSharedAndDetached(t *testing.T) {
	t.Parallel()
	g := &gatedKeys{entered: make(chan struct{}, 4), release: make(chan struct{})}
	c := readcache.New(g, time.Minute, time.Minute)
	leaderCtx, cancel := context.WithCancel(context.Background())
	leader := make(chan error, 1)
	go func() {
		_, err := c.GetAPIKeyByHash(leaderCtx, []byte("h"))
		leader <- err
	}()
	<-g.entered
	other := make(chan error, 1)
	go func() {
		k, err := c.GetAPIKeyByHash(context.Background(), []byte("h"))
		if err == nil && k.ID != "key_1" {
			err = errors.New("wrong key " + k.ID)
		}
		other <- err
	}()
	time.Sleep(50 * time.Millisecond)
	cancel()
	if err := <-leader; !errors.Is(err, context.Canceled) {
		t.Errorf("the caller that went away got %v, want context.Canceled at once", err)
	}
	close(g.release)
	if err := <-other; err != nil {
		t.Errorf("the other caller: %v", err)
	}
	if n := g.loads.Load(); n != 1 {
		t.Errorf("%d loads, want 1 shared", n)
	}
	if g.ctxEnded.Load() {
		t.Error("the shared load ran with the departed caller's cancelled context")
	}
}
