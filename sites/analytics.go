package sites

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"path"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"golang.org/x/time/rate"

	"lectern.dev/lectern"
	"lectern.dev/lectern/blobstore"
	"lectern.dev/lectern/render/features"
)

// AnalyticsPath is where a live site's pages send their analytics events.
const AnalyticsPath = features.OwnAnalytics

// AnalyticsStore keeps analytics events (store.Store implements it).
type AnalyticsStore interface {
	RecordAnalytics(ctx context.Context, events []lectern.AnalyticsEvent) error
	AnalyticsSalt(ctx context.Context, day time.Time) ([]byte, error)
}

// The collector's bounds: a beacon's body, the events queued for the
// store, a batch, how often the queue is flushed, and each client
// address's rate.
const (
	maxBeacon      = 4 << 10
	analyticsQueue = 20_000
	analyticsBatch = 1000
	flushEvery     = time.Second
	beaconRate     = 20
	beaconBurst    = 60
)

// collector takes the events of the sites' beacons: a request is
// answered at once and its event queued; a goroutine records the queue in
// batches. A full queue drops events (counted), never blocks a request.
type collector struct {
	queue    chan lectern.AnalyticsEvent
	dropped  atomic.Int64
	stored   atomic.Int64
	accepted atomic.Int64 // queued

	mu       sync.Mutex
	saltDay  string
	salt     []byte
	limiters map[string]*rate.Limiter
	pages    boundedCache[bool] // page paths of deployments known to exist
	types    boundedCache[projectType]
}

// AnalyticsDropped returns the events dropped so far: the queue was
// full, or the store failed to record their batch.
func (s *Server) AnalyticsDropped() int64 { return s.analytics.dropped.Load() }

// RunAnalytics records the queued analytics events in batches until ctx
// ends, then records what is left. Without it, beacons are refused (404).
func (s *Server) RunAnalytics(ctx context.Context) {
	st, ok := s.store.(AnalyticsStore)
	if !ok {
		return
	}
	s.analyticsOn.Store(true)
	defer s.analyticsOn.Store(false)
	tick := time.NewTicker(flushEvery)
	defer tick.Stop()
	batch := make([]lectern.AnalyticsEvent, 0, analyticsBatch)
	flush := func() {
		if len(batch) == 0 {
			return
		}
		wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		if err := st.RecordAnalytics(wctx, batch); err != nil {
			s.analytics.dropped.Add(int64(len(batch)))
			s.log.Warn("analytics: a batch of events could not be recorded; dropped", "events", len(batch), "err", err)
		} else {
			s.analytics.stored.Add(int64(len(batch)))
		}
		batch = batch[:0]
	}
	for {
		select {
		case ev := <-s.analytics.queue:
			batch = append(batch, ev)
			if len(batch) == analyticsBatch {
				flush()
			}
		case <-tick.C:
			flush()
		case <-ctx.Done():
			for {
				select {
				case ev := <-s.analytics.queue:
					batch = append(batch, ev)
					if len(batch) == analyticsBatch {
						flush()
					}
				default:
					flush()
					return
				}
			}
		}
	}
}

// beacon is the body a page sends: JSON text (navigator.sendBeacon).
type beacon struct {
	Type     string `json:"type"` // pageview (when empty), search, feedback
	Path     string `json:"path"`
	Referrer string `json:"referrer"`
	Title    string `json:"title"`
	TS       string `json:"ts"`
	Query    string `json:"query"`
	Results  *int   `json:"results"`
	Clicked  string `json:"clicked"`
	Helpful  *bool  `json:"helpful"`
	Comment  string `json:"comment"`
}

// bots matches the user agents of crawlers, monitors, preview makers and
// scripts: their page views are not readers'.
var bots = regexp.MustCompile(`(?i)bot|crawl|spider|slurp|headless|lighthouse|preview|monitor|curl|wget|python|go-http|java/|httpclient|okhttp|phantom|facebookexternalhit|embedly|pingdom|uptime`)

// serveBeacon answers POST /_lectern/analytics on a cloud project's
// domain: 204 at once, the event queued (or not counted: bots,
// prefetches, a full queue); 400 for a body that is not an event of this
// site's pages; 403 from another origin; 429 over the address's rate.
func (s *Server) serveBeacon(w http.ResponseWriter, r *http.Request, e hostEntry) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		http.Error(w, "the analytics beacon takes POST", http.StatusMethodNotAllowed)
		return
	}
	if !s.analyticsOn.Load() || e.deploymentID == "" {
		http.NotFound(w, r)
		return
	}
	host := lectern.HostName(r.Host)
	if !sameSite(r, host) {
		http.Error(w, "events are taken from the site's own pages only", http.StatusForbidden)
		return
	}
	addr := s.clientAddr(r)
	if !s.analytics.allow(addr) {
		w.Header().Set("Retry-After", "1")
		http.Error(w, "too many events from this address", http.StatusTooManyRequests)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBeacon))
	if err != nil {
		http.Error(w, "the event is larger than 4 KiB", http.StatusRequestEntityTooLarge)
		return
	}
	ev, err := parseBeacon(body, host)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	ua := r.Header.Get("User-Agent")
	if ua == "" || bots.MatchString(ua) || prefetch(r) {
		w.WriteHeader(http.StatusNoContent) // not counted
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
	salt, err := s.daySalt(r.Context())
	if err != nil {
		s.log.Warn("analytics: the day's salt cannot be read", "err", err)
		unavailable(w)
		return
	}
	ev.ProjectID, ev.At = e.projectID, time.Now().UTC()
	ev.Visitor = visitorHash(salt, addr, ua, host)
	select {
	case s.analytics.queue <- ev:
		s.analytics.accepted.Add(1)
	default:
		s.analytics.dropped.Add(1)
	}
	w.WriteHeader(http.StatusNoContent)
}

// parseBeacon reads a beacon's body into an event of host's site.
func parseBeacon(body []byte, host string) (lectern.AnalyticsEvent, error) {
	var b beacon
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		return lectern.AnalyticsEvent{}, errors.New(`the body must be a JSON event: {"type": "pageview", "path": "/..."}`)
	}
	if _, err := dec.Token(); err != io.EOF {
		return lectern.AnalyticsEvent{}, errors.New("the body has data after the event")
	}
	ev := lectern.AnalyticsEvent{}
	var ok bool
	if ev.Path, ok = pagePath(b.Path); !ok {
		return ev, errors.New(`"path" must be a path of the site, such as /guides/x`)
	}
	switch b.Type {
	case "", "pageview":
		ev.Kind = lectern.AnalyticsPageview
		ev.Referrer = referrerHost(b.Referrer, host)
	case "search":
		ev.Kind = lectern.AnalyticsSearch
		ev.Query = lectern.NormalizeQuery(b.Query)
		if ev.Query == "" || b.Results == nil || *b.Results < 0 {
			return ev, errors.New(`a search has a "query" and its number of "results"`)
		}
		ev.Results = *b.Results
		if b.Clicked != "" {
			if ev.Clicked, ok = pagePath(b.Clicked); !ok {
				return ev, errors.New(`"clicked" must be a path of the site`)
			}
		}
	case "feedback":
		ev.Kind = lectern.AnalyticsFeedback
		if b.Helpful == nil {
			return ev, errors.New(`a feedback has "helpful": true or false`)
		}
		ev.Helpful = b.Helpful
		ev.Comment = strings.TrimSpace(b.Comment)
	default:
		return ev, errors.New(`"type" is pageview, search or feedback`)
	}
	if !utf8.ValidString(ev.Query) || !utf8.ValidString(ev.Comment) {
		return ev, errors.New("the event is not valid UTF-8")
	}
	return ev, nil
}

// pagePath returns the path of a page URL or path ("/x", "/x?y#z"), or
// false when it is none of this site's (an absolute URL, "..").
func pagePath(raw string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "" || u.Host != "" || !strings.HasPrefix(u.Path, "/") || len(u.Path) > lectern.MaxAnalyticsPath {
		return "", false
	}
	p := path.Clean(u.Path)
	if strings.HasSuffix(u.Path, "/") && p != "/" {
		p += "/"
	}
	return p, true
}

// referrerHost is the referring host of a page view: "" for a direct
// view, a view from the site itself, or a referrer that is no http(s) URL.
func referrerHost(raw, host string) string {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return ""
	}
	h := strings.ToLower(u.Hostname())
	if h == host || len(h) > lectern.MaxAnalyticsReferrer {
		return ""
	}
	return h
}

// sameSite reports whether the request comes from the site's own pages:
// its Origin (or, without one, its Referer) names host, or neither is
// sent.
func sameSite(r *http.Request, host string) bool {
	for _, h := range []string{r.Header.Get("Origin"), r.Header.Get("Referer")} {
		if h == "" {
			continue
		}
		u, err := url.Parse(h)
		return err == nil && strings.EqualFold(u.Hostname(), host)
	}
	return true
}

// prefetch reports whether the request is a browser's prefetch.
func prefetch(r *http.Request) bool {
	for _, h := range []string{"Sec-Purpose", "Purpose", "X-Purpose", "X-Moz"} {
		if strings.Contains(strings.ToLower(r.Header.Get(h)), "prefetch") {
			return true
		}
	}
	return false
}

// visitorHash names a visitor for a day: a hash of the day's salt, the
// address, the user agent and the site, of which nothing is kept.
func visitorHash(salt []byte, addr, ua, host string) string {
	h := sha256.New()
	h.Write(salt)
	for _, s := range []string{addr, ua, host} {
		h.Write([]byte{0})
		h.Write([]byte(s))
	}
	return hex.EncodeToString(h.Sum(nil))[:lectern.AnalyticsVisitorLen]
}

// daySalt returns today's salt, read from the store once a day.
func (s *Server) daySalt(ctx context.Context) ([]byte, error) {
	now := time.Now().UTC()
	day := now.Format(time.DateOnly)
	c := &s.analytics
	c.mu.Lock()
	salt := c.salt
	if c.saltDay != day {
		salt = nil
	}
	c.mu.Unlock()
	if salt != nil {
		return salt, nil
	}
	salt, err := s.store.(AnalyticsStore).AnalyticsSalt(ctx, now)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.saltDay, c.salt = day, salt
	c.mu.Unlock()
	return salt, nil
}

// allow takes a token of addr's limiter.
func (c *collector) allow(addr string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.limiters == nil || len(c.limiters) > 50_000 {
		c.limiters = map[string]*rate.Limiter{}
	}
	l := c.limiters[addr]
	if l == nil {
		l = rate.NewLimiter(beaconRate, beaconBurst)
		c.limiters[addr] = l
	}
	return l.Allow()
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
	s.analytics.types.put(projectID, projectType{cloud, time.Now()})
	return cloud
}

// projectType is a project's type as last read.
type projectType struct {
	cloud bool
	at    time.Time
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
