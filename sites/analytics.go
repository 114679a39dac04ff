package sites

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/beacon"
	"lectern.dev/lectern/blobstore"
	"lectern.dev/lectern/render/features"
)

// AnalyticsPath is where a live site's pages send their analytics events.
const AnalyticsPath = features.OwnAnalytics

// analytics is the live sites' part of web analytics: the collector
// (package beacon), and what it knows of deployments and projects.
type analytics struct {
	c     *beacon.Collector    // nil: the store keeps no analytics
	pages boundedCache[bool]   // page paths of deployments known to exist
	types boundedCache[typeAt] // whether projects are cloud ones
}

// typeAt is whether a project is a cloud one, as last read.
type typeAt struct {
	cloud bool
	at    time.Time
}

// AnalyticsDropped returns the events dropped so far: the queue was
// full, or the store failed to record their batch.
func (s *Server) AnalyticsDropped() int64 {
	if s.analytics.c == nil {
		return 0
	}
	return s.analytics.c.Dropped()
}

// RunAnalytics records the queued analytics events in batches until ctx
// ends, then records what is left. Without it, events are dropped
// (counted).
func (s *Server) RunAnalytics(ctx context.Context) {
	if s.analytics.c != nil {
		s.analytics.c.Run(ctx)
	}
}

// serveBeacon answers POST /_lectern/analytics on a cloud project's
// domain: 204 at once, the event queued (or not counted: robots,
// prefetches, a full queue); 400 for a body that is not an event of this
// site's pages; 403 from another origin; 429 over the address's rate.
func (s *Server) serveBeacon(w http.ResponseWriter, r *http.Request, e hostEntry) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		http.Error(w, "the analytics beacon takes POST", http.StatusMethodNotAllowed)
		return
	}
	c := s.analytics.c
	if e.deploymentID == "" {
		http.NotFound(w, r)
		return
	}
	if c == nil || !c.Running() {
		// No collector in this process (a store without analytics, or
		// RunAnalytics not started): the event is dropped, quietly for
		// the reader's page.
		if c != nil {
			c.Drop()
		}
		w.WriteHeader(http.StatusNoContent)
		return
	}
	host := lectern.HostName(r.Host)
	if !beacon.SameSite(r, host) {
		http.Error(w, "events are taken from the site's own pages only", http.StatusForbidden)
		return
	}
	addr := s.clientAddr(r)
	if !c.Allow(addr) {
		w.Header().Set("Retry-After", "1")
		http.Error(w, "too many events from this address", http.StatusTooManyRequests)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, beacon.MaxBody))
	if err != nil {
		http.Error(w, "the event is larger than 12 KiB", http.StatusRequestEntityTooLarge)
		return
	}
	ev, err := beacon.Parse(body, host)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if !beacon.Counted(r) {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if !s.cloudProject(r.Context(), e.projectID) {
		http.NotFound(w, r)
		return
	}
	if !s.isPage(r.Context(), e, ev.Path) || (ev.Clicked != "" && !s.isPage(r.Context(), e, ev.Clicked)) {
		http.Error(w, "the path is not a page of this site", http.StatusBadRequest)
		return
	}
	salt, err := c.Salt(r.Context())
	if err != nil {
		s.log.Warn("analytics: the day's salt cannot be read", "err", err)
		unavailable(w)
		return
	}
	ev.ProjectID, ev.At = e.projectID, time.Now().UTC()
	ev.Visitor = beacon.VisitorHash(salt, addr, r.Header.Get("User-Agent"), host)
	c.Add(ev)
	w.WriteHeader(http.StatusNoContent)
}

// cloudProject reports whether the project is a cloud one (which has
// analytics), remembering the answer for cacheFor.
func (s *Server) cloudProject(ctx context.Context, projectID string) bool {
	if v, ok := s.analytics.types.get(projectID); ok && time.Since(v.at) < cacheFor {
		return v.cloud
	}
	p, err := s.store.GetProject(ctx, projectID)
	if err != nil && lectern.ErrorCode(err) != lectern.ENOTFOUND {
		return false
	}
	cloud := err == nil && p.DeploymentType == lectern.DeploymentCloud
	s.analytics.types.put(projectID, typeAt{cloud, time.Now()})
	return cloud
}

// isPage reports whether p is a page of the deployment (its HTML file
// exists), remembering the answer.
func (s *Server) isPage(ctx context.Context, e hostEntry, p string) bool {
	key := e.deploymentID + p
	if ok, known := s.analytics.pages.get(key); known {
		return ok
	}
	ok := false
	for _, name := range lectern.SiteFiles(p) {
		if !strings.HasSuffix(name, ".html") {
			continue
		}
		if exists, err := s.bucket.Exists(ctx, blobstore.SiteKey(e.projectID, e.deploymentID, name)); err != nil {
			return false // not remembered: the object store may be back soon
		} else if exists {
			ok = true
			break
		}
	}
	s.analytics.pages.put(key, ok)
	return ok
}

// clientAddr is the address of the reader: ClientAddr's, or the
// connection's.
func (s *Server) clientAddr(r *http.Request) string {
	if s.ClientAddr != nil {
		return s.ClientAddr(r)
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
