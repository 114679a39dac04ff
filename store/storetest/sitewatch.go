package storetest

import (
	"context"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

// RunSiteWatch checks WatchSites with two handles on one fresh database,
// as two processes would hold them (newPair returns both: two Open calls
// on the same SQLite file or PostgreSQL schema). Each change to what a
// domain resolves to, made through either handle, is told to a watch on
// the first: a project created, its domains changed, a deployment
// published, another promoted, the project deleted and purged. The watch
// first says it is watching, and returns once its context ends.
func RunSiteWatch(t *testing.T, newPair func(t *testing.T) (a, b store.Store)) {
	t.Helper()
	a, b := newPair(t)
	ctx, cancel := context.WithCancel(t.Context())
	events := make(chan store.SiteChange, 1000)
	done := make(chan error, 1)
	go func() {
		done <- a.WatchSites(ctx, func(c store.SiteChange) { events <- c })
	}()
	first := next(t, events, "the watch's first call")
	if !first.Watching || first.ProjectID != "" {
		t.Fatalf("first call %+v, want Watching true and no project", first)
	}

	for _, via := range []struct {
		name string
		s    store.Store
	}{{"the other handle", b}, {"the watching handle", a}} {
		s := via.s
		o := newOrg(t, s)
		p := newProject(t, s, o.ID)
		told(t, events, p.ID, "CreateProject through "+via.name)

		other := newProject(t, s, o.ID) // never changed: told only when created
		told(t, events, other.ID, "CreateProject of a second project through "+via.name)

		_, err := s.UpdateProject(t.Context(), p.ID, store.ProjectChange{Domains: []string{domain()}})
		must(t, err, "UpdateProject")
		told(t, events, p.ID, "UpdateProject of its domains through "+via.name)

		first := publish(t, s, p, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")
		told(t, events, p.ID, "a first deployment published through "+via.name)
		publish(t, s, p, "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb")
		told(t, events, p.ID, "a second deployment published through "+via.name)

		must(t, s.PromoteDeployment(t.Context(), p.ID, first.ID, &lectern.Update{Source: "api", Summary: "Promoted"}, promoteAt()), "PromoteDeployment")
		told(t, events, p.ID, "PromoteDeployment through "+via.name)

		must(t, s.DeleteProject(t.Context(), p.ID, time.Now().UTC()), "DeleteProject")
		told(t, events, p.ID, "DeleteProject through "+via.name)
		must(t, s.PurgeProject(t.Context(), p.ID), "PurgeProject")
		told(t, events, p.ID, "PurgeProject through "+via.name)

		// A write that changes no domain's answer need not be told;
		// nothing here checks that it is not.
		newKey(t, s, o.ID)
	}

	cancel()
	select {
	case err := <-done:
		if err == nil {
			t.Error("WatchSites returned nil once its context ended, want the context's error")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("WatchSites did not return within 10 s of its context ending")
	}
}

// next returns the watch's next call, failing the test after 10 s.
func next(t *testing.T, events <-chan store.SiteChange, what string) store.SiteChange {
	t.Helper()
	select {
	case c := <-events:
		return c
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: no call of WatchSites's fn within 10 s", what)
	}
	return store.SiteChange{}
}

// told waits for the watch to tell of project id: a call naming it, or one
// saying the watch started again (which tells of every project). Calls
// naming other projects (earlier changes told late, or again) are passed.
func told(t *testing.T, events <-chan store.SiteChange, id, what string) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case c := <-events:
			if c.ProjectID == id || c.ProjectID == "" && c.Watching {
				quiet(events)
				return
			}
			if c.ProjectID == "" && !c.Watching {
				t.Fatalf("%s: the watch stopped (%+v)", what, c)
			}
		case <-deadline:
			t.Fatalf("%s: not told to the watch within 10 s", what)
		}
	}
}

// quiet drops the calls that come within 100 ms, so that a change told
// twice cannot stand for the next one.
func quiet(events <-chan store.SiteChange) {
	for {
		select {
		case <-events:
		case <-time.After(100 * time.Millisecond):
			return
		}
	}
}
