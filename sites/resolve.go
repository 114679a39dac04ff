package sites

import (
	"context"
	"net"
	"sync"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

// resolutions keeps, per host, what the store last answered (project and
// live deployment, or no project): the store is not asked on every
// request. While the store's watch tells of every change (Follow), an
// answer is kept until its project changes (Server.forget), or followTTL.
// Otherwise it is kept for ttl: a switch made by this process empties it
// at once (Watch); one made by another process is seen within ttl. ttl 0
// (the default, without Watch) asks the store on every request. Safe for
// concurrent use.
type resolutions struct {
	mu  sync.RWMutex
	ttl time.Duration
	// following is set while the store's watch tells of every change
	// (Follow): answers are then kept for followTTL.
	following bool
	gen       uint64 // counts the changes: a lookup begun before one is not kept
	by        map[string]hostEntry
}

// keep returns how long an answer is kept; c.mu held.
func (c *resolutions) keep() time.Duration {
	if c.following {
		return followTTL
	}
	return c.ttl
}

// get returns the host's answer when it is fresh, and the generation to
// put a new one with.
func (c *resolutions) get(h string, now time.Time) (hostEntry, uint64, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	e, ok := c.by[h]
	if ttl := c.keep(); ok && ttl > 0 && now.Sub(e.at) < ttl {
		return e, c.gen, true
	}
	return hostEntry{}, c.gen, false
}

// put keeps the host's answer read at generation gen, unless a change was
// made since: the answer may be from before it.
func (c *resolutions) put(h string, e hostEntry, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.keep() <= 0 || gen != c.gen {
		return
	}
	if c.by == nil || len(c.by) >= 100_000 {
		c.by = map[string]hostEntry{}
	}
	c.by[h] = e
}

// clear forgets every answer, and any lookup in progress.
func (c *resolutions) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	clear(c.by)
}

// Watch returns st, whose writes that change what a domain resolves to
// (a deployment published or promoted, a project created, changed or
// deleted) tell s at once (Tell); and from then on s keeps each host's
// answer for up to a second instead of asking the store on every request,
// even while Follow's watch is down. Other processes' switches are then
// seen within that second, each process at its own moment: use it only
// where this process makes all the switches (lectern serve on SQLite with
// --role all), not beside other API processes.
func (s *Server) Watch(st store.Store) store.Store {
	s.resolved.mu.Lock()
	if s.resolved.ttl == 0 {
		s.resolved.ttl = cacheFor
	}
	s.resolved.mu.Unlock()
	return s.Tell(st)
}

// Tell returns st, whose writes that change what a domain resolves to tell
// s as soon as they return, before Follow's watch would: give it to
// everything in this process that writes (the update jobs, the API, the
// dashboard).
func (s *Server) Tell(st store.Store) store.Store {
	return &watched{Store: st, s: s}
}

// forgetAll forgets what every host resolved to, and any lookup in
// progress: the watch of the store started or stopped, and anything may
// have changed meanwhile.
func (s *Server) forgetAll() {
	s.resolved.clear()
	s.mu.Lock()
	clear(s.hosts)
	s.mu.Unlock()
}

// dropFiles removes a deleted project's files from the memory and disk
// caches at once. (A project switched to another deployment keeps them:
// files are stored by content, and the new deployment shares most.)
func (s *Server) dropFiles(project string) {
	s.hot.dropSite(project)
	if s.disk != nil {
		s.disk.dropSite(project)
	}
}

// watched is a store.Store that tells its Server of the writes that
// change what a domain resolves to. It tells even when the write failed:
// a write may have committed before its error (a connection lost after
// COMMIT), and forgetting costs one lookup per host.
type watched struct {
	store.Store
	s *Server
}

func (w *watched) CreateProject(ctx context.Context, p *lectern.Project) error {
	defer func() { w.s.forget(p.ID) }() // ID set by the store
	return w.Store.CreateProject(ctx, p)
}

func (w *watched) UpdateProject(ctx context.Context, id string, ch store.ProjectChange) (*lectern.Project, error) {
	defer w.s.forget(id)
	return w.Store.UpdateProject(ctx, id, ch)
}

func (w *watched) DeleteProject(ctx context.Context, id string, at time.Time) error {
	defer func() {
		w.s.forget(id)
		w.s.dropFiles(id)
	}()
	return w.Store.DeleteProject(ctx, id, at)
}

func (w *watched) PromoteDeployment(ctx context.Context, projectID, deploymentID string, u *lectern.Update, at time.Time) error {
	defer w.s.forget(projectID)
	return w.Store.PromoteDeployment(ctx, projectID, deploymentID, u, at)
}

func (w *watched) FinishUpdate(ctx context.Context, lease store.Lease, r store.UpdateResult) error {
	if r.Deployment != nil {
		defer w.s.forget(r.Deployment.ProjectID)
	}
	return w.Store.FinishUpdate(ctx, lease, r)
}

// resolve reads the host's project and live deployment from the store.
// When the store fails (not ENOTFOUND), it answers with the host's last
// successful lookup, if any, and otherwise returns the error; for cacheFor
// after a failure it answers so without asking the store. A failing host
// is logged once, and again when its lookups work.
func (s *Server) resolve(ctx context.Context, h string) (hostEntry, error) {
	now := time.Now()
	if h == "" || net.ParseIP(h) != nil {
		return hostEntry{at: now}, nil
	}
	e, gen, ok := s.resolved.get(h, now)
	if ok {
		return e, nil
	}
	e, err := s.lookup(ctx, h, now)
	if err == nil {
		s.resolved.put(h, e, gen)
	}
	return e, err
}

// lookup is resolve's read of the store, with its fallback.
func (s *Server) lookup(ctx context.Context, h string, now time.Time) (hostEntry, error) {
	s.lastMu.RLock()
	l := s.last[h]
	s.lastMu.RUnlock()
	if !l.failedAt.IsZero() && now.Sub(l.failedAt) < cacheFor {
		return l.fallback(now)
	}
	pid, live, err := s.store.ResolveDomain(ctx, h)
	switch {
	case err == nil:
		e := hostEntry{projectID: pid, deploymentID: live, found: true, at: now}
		if !l.failedAt.IsZero() {
			s.log.Info("site lookup works again", "host", h)
		}
		if !l.failedAt.IsZero() || l.good.projectID != pid || l.good.deploymentID != live {
			s.remember(h, lookup{good: e})
		}
		return e, nil
	case lectern.ErrorCode(err) == lectern.ENOTFOUND:
		if l.good.found || !l.failedAt.IsZero() {
			s.remember(h, lookup{})
		}
		return hostEntry{at: now}, nil
	}
	if l.failedAt.IsZero() {
		if l.good.found {
			s.log.Warn("site lookup failed; serving the last known deployment until it works", "host", h, "deployment", l.good.deploymentID, "err", err)
		} else {
			s.log.Warn("site lookup failed", "host", h, "err", err)
		}
	}
	l.failedAt = now
	s.remember(h, l)
	return l.fallback(now)
}

// fallback answers for a host whose lookup failed: its last good entry,
// or an error.
func (l lookup) fallback(now time.Time) (hostEntry, error) {
	if !l.good.found {
		return hostEntry{at: now}, lectern.Errorf(lectern.EUNAVAILABLE, "the site's domain cannot be looked up")
	}
	e := l.good
	e.at = now
	return e, nil
}

// remember records a host's lookup, bounding the map.
func (s *Server) remember(h string, l lookup) {
	s.lastMu.Lock()
	if len(s.last) > 10000 {
		clear(s.last)
	}
	if !l.good.found && l.failedAt.IsZero() {
		delete(s.last, h)
	} else {
		s.last[h] = l
	}
	s.lastMu.Unlock()
}

// Serves reports whether host is a project's domain, remembering the
// answer for a second so API requests cost no lookup. A host that cannot
// be looked up and was never seen is not served here: its requests go to
// the API, which answers them as it answers any unknown path.
func (s *Server) Serves(ctx context.Context, host string) bool {
	h := lectern.HostName(host)
	s.mu.Lock()
	e, ok := s.hosts[h]
	s.mu.Unlock()
	if ok && time.Since(e.at) < cacheFor {
		return e.found
	}
	e, _ = s.resolve(ctx, h)
	s.mu.Lock()
	if len(s.hosts) > 10000 {
		clear(s.hosts)
	}
	s.hosts[h] = e
	s.mu.Unlock()
	return e.found
}

// LookupFailed reports whether Serves said false for host because its
// last lookup failed (the store could not answer) and no earlier answer
// stood in, rather than because no project has the domain: the API then
// answers "try again", not "no site is published for this host".
func (s *Server) LookupFailed(host string) bool {
	s.lastMu.RLock()
	l := s.last[lectern.HostName(host)]
	s.lastMu.RUnlock()
	return !l.failedAt.IsZero() && !l.good.found
}
