package sites

import (
	"context"
	"maps"
	"time"

	"lectern.dev/lectern/store"
)

// followTTL is how long a host's answer is kept while the store's watch
// tells of every change (Follow): the watch empties it when the answer
// changes, so the time only bounds what a missed change could cost.
const followTTL = 5 * time.Minute

// Follow keeps what each host resolves to for as long as w's WatchSites
// says nothing about it changed, until ctx ends: the project and live
// deployment of a host are then read from the store once, not on every
// request, and every process sharing the database drops them at once
// when a deployment goes live, a project's domains change or a project
// is deleted, whichever process did it. While the watch is down (the
// database unreachable), every request asks the store again, as without
// Follow.
func (s *Server) Follow(ctx context.Context, w store.SiteWatch) {
	for ctx.Err() == nil {
		_ = w.WatchSites(ctx, s.siteChanged) // returns only once ctx ends
	}
	s.siteChanged(store.SiteChange{})
}

// siteChanged is Follow's answer to one call of the watch.
func (s *Server) siteChanged(c store.SiteChange) {
	if c.ProjectID != "" {
		s.forget(c.ProjectID)
		return
	}
	// The watch started or stopped: whatever was kept may be stale.
	s.resolved.mu.Lock()
	s.resolved.following = c.Watching
	s.resolved.mu.Unlock()
	s.forgetAll()
}

// forget drops what this server keeps of project id's hosts, and every
// host that resolved to no project (the project may now have it): their
// next request asks the store. Lookups in progress are not kept either.
// The project's files stay cached: they are stored by content, and the
// deployment that replaced the live one shares most of them.
func (s *Server) forget(id string) {
	stale := func(e hostEntry) bool { return !e.found || e.projectID == id }
	s.resolved.mu.Lock()
	s.resolved.gen++
	maps.DeleteFunc(s.resolved.by, func(_ string, e hostEntry) bool { return stale(e) })
	s.resolved.mu.Unlock()
	s.mu.Lock()
	maps.DeleteFunc(s.hosts, func(_ string, e hostEntry) bool { return stale(e) })
	s.mu.Unlock()
	s.lastMu.Lock()
	maps.DeleteFunc(s.last, func(_ string, l lookup) bool { return l.good.projectID == id })
	s.lastMu.Unlock()
}
