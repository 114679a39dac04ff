package beacon

import (
	"context"
	"io"
	"net/http"
	"time"

	"lectern.dev/lectern"
)

// Site is what a beacon is checked against: the site it is sent to.
type Site struct {
	// ProjectID owns the events.
	ProjectID string
	// Addr is the reader's address (behind trusted proxies, the one they
	// name), for the rate and the visitor hash.
	Addr string
	// IsPage reports whether a path is a page of the site.
	IsPage func(ctx context.Context, path string) bool
}

// Serve answers a page's POST of an event to site: 204 at once, the
// event queued (or not counted: robots, prefetches, a full queue); 400
// for a body that is not an event of the site's pages, 403 from another
// origin, 413 over MaxBody, 429 over the address's rate, 503 when the
// day's salt cannot be read. The caller has checked the method and that
// the collector runs.
func (c *Collector) Serve(w http.ResponseWriter, r *http.Request, site Site) {
	host := lectern.HostName(r.Host)
	if !SameSite(r, host) {
		http.Error(w, "events are taken from the site's own pages only", http.StatusForbidden)
		return
	}
	if !c.Allow(site.Addr) {
		w.Header().Set("Retry-After", "1")
		http.Error(w, "too many events from this address", http.StatusTooManyRequests)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
	if err != nil {
		http.Error(w, "the event is larger than 12 KiB", http.StatusRequestEntityTooLarge)
		return
	}
	ev, err := Parse(body, host)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if !Counted(r) {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if !site.IsPage(r.Context(), ev.Path) || (ev.Clicked != "" && !site.IsPage(r.Context(), ev.Clicked)) {
		http.Error(w, "the path is not a page of this site", http.StatusBadRequest)
		return
	}
	salt, err := c.Salt(r.Context())
	if err != nil {
		c.log.Warn("analytics: the day's salt cannot be read", "err", err)
		w.Header().Set("Retry-After", "5")
		http.Error(w, "events cannot be recorded now; try again in a few seconds", http.StatusServiceUnavailable)
		return
	}
	ev.ProjectID, ev.At = site.ProjectID, time.Now().UTC()
	ev.Visitor = VisitorHash(salt, site.Addr, r.Header.Get("User-Agent"), host)
	c.Add(ev)
	w.WriteHeader(http.StatusNoContent)
}
