package sites

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/blobstore/blobtest"
	"lectern.dev/lectern/store"
	"lectern.dev/lectern/store/postgres"
	"lectern.dev/lectern/store/postgres/pgtest"
	"lectern.dev/lectern/store/sqlite"
)

// TestFollowOtherProcess: two servers, each on its own handle of one
// database as two processes hold them, follow the store's watch. Between
// switches each asks the store once for 20 requests; a switch made
// through the other handle (another process's update job), a promotion,
// a domain moved to another project and a deletion are each served by
// both soon after, never the old answer for long. Run on SQLite and, when
// it answers, PostgreSQL.
func TestFollowOtherProcess(t *testing.T) {
	t.Parallel()
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "lectern.db")
		followPair(t, func() store.Store {
			st, err := sqlite.Open(t.Context(), path)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st
		})
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		pgtest.BaseURL(t)
		url := pgtest.URL(t)
		followPair(t, func() store.Store {
			st, err := postgres.Open(t.Context(), url)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st
		})
	})
}

func followPair(t *testing.T, open func() store.Store) {
	stA, stB := open(), open()
	b := blobtest.Folder(t)
	p := newProject(t, stB, "follow.example.com")
	depA := publishLive(t, stB, b, p.ID, map[string]string{"index.html": "v1"})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	type server struct {
		name string
		srv  *Server
		res  *countingResolver
	}
	var servers []server
	for _, s := range []struct {
		name string
		st   store.Store
	}{{"server on the writing handle", stB}, {"server on the other handle", stA}} {
		res := &countingResolver{Resolver: s.st}
		srv := New(discardLog(), res, b)
		go srv.Follow(ctx, s.st)
		servers = append(servers, server{s.name, srv, res})
	}
	// Both watches are on once a change made now is seen: until then
	// every request asks the store.
	serves := func(host, want string, what string) {
		t.Helper()
		for _, s := range servers {
			deadline := time.Now().Add(5 * time.Second)
			for {
				w := do(s.srv, "GET", host, "/")
				got := w.Body.String()
				if w.Code != 200 {
					got = "status " + w.Result().Status
				}
				if got == want {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("%s: %s serves %q 5 s after the change, want %q", what, s.name, got, want)
				}
				time.Sleep(5 * time.Millisecond)
			}
		}
	}
	waitFollowing := func() {
		for _, s := range servers {
			deadline := time.Now().Add(5 * time.Second)
			for {
				s.srv.resolved.mu.RLock()
				on := s.srv.resolved.following
				s.srv.resolved.mu.RUnlock()
				if on {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("%s: not following the store's watch after 5 s", s.name)
				}
				time.Sleep(5 * time.Millisecond)
			}
		}
	}
	waitFollowing()
	serves("follow.example.com", "v1", "first deployment")
	onceEach := func(what string) {
		t.Helper()
		for _, s := range servers {
			before := s.res.n.Load()
			for range 20 {
				do(s.srv, "GET", "follow.example.com", "/")
			}
			if n := s.res.n.Load() - before; n > 1 {
				t.Errorf("%s: %s asked the store %d times for 20 requests, want at most once", what, s.name, n)
			}
		}
	}
	onceEach("after the first deployment")

	publishLive(t, stB, b, p.ID, map[string]string{"index.html": "v2"})
	serves("follow.example.com", "v2", "a new deployment published through one handle")
	onceEach("after the new deployment")

	if err := stB.PromoteDeployment(t.Context(), p.ID, depA, &lectern.Update{Source: "promote"}, time.Now()); err != nil {
		t.Fatal(err)
	}
	serves("follow.example.com", "v1", "the first deployment promoted")

	// The domain moves to another project: a host answered with "no
	// project" (the new domain) and the old one both change.
	q := newProject(t, stB, "other.example.com")
	publishLive(t, stB, b, q.ID, map[string]string{"index.html": "q"})
	if w := do(servers[1].srv, "GET", "moved.example.com", "/"); w.Code != 404 {
		t.Fatalf("GET on a domain no project has = %d, want 404", w.Code)
	}
	if _, err := stB.UpdateProject(t.Context(), p.ID, store.ProjectChange{Domains: []string{"follow2.example.com"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := stB.UpdateProject(t.Context(), q.ID, store.ProjectChange{Domains: []string{"moved.example.com", "follow.example.com"}}); err != nil {
		t.Fatal(err)
	}
	serves("follow.example.com", "q", "the domain moved to another project")
	serves("moved.example.com", "q", "a domain that had no project added to one")

	if err := stB.DeleteProject(t.Context(), q.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	serves("follow.example.com", "status 404 Not Found", "the project deleted")
}
