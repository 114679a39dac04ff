package sites

import (
	"context"
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
// domain with the collector (beacon.Collector.Serve), the project's live
// deployment telling its pages; other projects' domains answer 404.
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
	if !s.cloudProject(r.Context(), e.projectID) {
		http.NotFound(w, r)
		return
	}
	c.Serve(w, r, beacon.Site{ProjectID: e.projectID, Addr: s.clientAddr(r),
		IsPage: func(ctx context.Context, p string) bool { return s.isPage(ctx, e, p) }})
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
	m, err := s.manifests.get(ctx, s.bucket, e)
	if err != nil {
		return false // not remembered: the object store may be back soon
	}
	ok := false
	for _, name := range lectern.SiteFiles(p) {
		if !strings.HasSuffix(name, ".html") {
			continue
		}
		if m != nil {
			if _, ok = m.Files[name]; ok {
				break
			}
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
