// Package sites serves the live deployments of projects by host name: a
// request whose Host is one of a project's domains gets the files of the
// project's live deployment from the blob store. A request resolves the
// live deployment once and reads only from it, and deployments are
// immutable, so a switch to a new deployment is atomic for every request.
//
// Every file is sent with the headers features.ServeHeaders gives: pages
// with the site's Content-Security-Policy (PageCSP), other files of the
// repository sandboxed, and its JavaScript as text/plain, so that nothing
// of the repository runs script on the docs domain. Text files are sent
// compressed (brotli or gzip, by Accept-Encoding) from the copies the
// update job made when it published the deployment, with ETags of their
// content and the deployment's time as Last-Modified (files.go).
//
// Under lectern serve the hot path asks neither the database nor the
// object store: a host's resolution is kept for up to a second, forgotten
// at once when this process switches a site (Watch, resolve.go), and the
// small files of deployments are kept in memory, bounded, with a share
// per site (hotcache.go).
package sites

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"gocloud.dev/blob"

	"lectern.dev/lectern"
	"lectern.dev/lectern/assistant"
	"lectern.dev/lectern/beacon"
	"lectern.dev/lectern/render/features"
)

// cacheFor is how long Serves remembers whether a host is a project's
// domain, and, once Watch tells the server of this process's switches,
// how long a page request reuses a host's live deployment: a switch made
// by another process is served within it. Without Watch, page requests
// read the live deployment afresh.
const cacheFor = time.Second

// Resolver finds the project and live deployment of a domain;
// store.Store implements it.
type Resolver interface {
	// ResolveDomain returns ENOTFOUND for a domain no project owns.
	ResolveDomain(ctx context.Context, domain string) (projectID, liveDeploymentID string, err error)
	// GetProject returns ENOTFOUND for a project missing or deleted.
	GetProject(ctx context.Context, id string) (*lectern.Project, error)
}

// Server serves live sites.
type Server struct {
	log    *slog.Logger
	store  Resolver
	bucket *blob.Bucket

	mu    sync.Mutex
	hosts map[string]hostEntry

	policies boundedCache[string] // the policies of pages with "Try it" forms, by blob key
	// playgrounds says, by deployment, whether it has "Try it" forms
	// (features.PlaygroundJSFile): pages of one without are not read.
	playgrounds boundedCache[bool]
	// pageReads bounds the pages read whole at once (maxPageReads).
	pageReads chan struct{}
	// assistants answers cloud sites' questions (assistant.go).
	assistants assistants
	// mcp answers the sites' /mcp (mcp.go).
	mcp recent[http.Handler]
	// analytics collects the cloud sites' events (analytics.go).
	analytics analytics
	// manifests are the deployments' manifests (files.go).
	manifests manifests
	// resolved keeps what hosts resolve to, once Watch tells this
	// server of the switches (resolve.go).
	resolved resolutions
	// hot keeps the small files read most recently (hotcache.go).
	hot hotCache
	// disk keeps the files read from a remote store on local disk
	// (diskcache.go); nil without.
	disk *diskCache

	// last holds, per host, the last successful lookup and when a lookup
	// last failed. The good answer stands in while the store cannot
	// answer, so a database outage does not take down the sites this
	// process already serves; and for cacheFor after a failure the store
	// is not asked again for that host.
	lastMu sync.RWMutex
	last   map[string]lookup

	// Assistant answers the cloud sites' questions (lectern serve
	// --assistant-llm-url gives it a model); nil: extractive answers.
	// Set before serving.
	Assistant *assistant.Service
	// Version is Lectern's, which the MCP server reports. Set before
	// serving.
	Version string
	// ClientAddr returns the reader's address (behind trusted proxies,
	// serve --trusted-proxies), for analytics' rate limit and visitor
	// hash; nil: the connection's. Set before serving.
	ClientAddr func(*http.Request) string

	// EmbedHosts are the hosts whose iframes the pages may show (lectern
	// serve --embed-hosts, as features.ParseEmbedHosts returns them):
	// the pages' policy lets them be framed. Set before serving.
	EmbedHosts []string
	// plainPolicy is the policy of every page of a deployment without
	// "Try it" forms, built on first use (EmbedHosts is set by then).
	plainPolicy func() string
}

// lookup is a host's last good answer and its last failure.
type lookup struct {
	good     hostEntry // found is false when there was none
	failedAt time.Time // zero when the last lookup succeeded
}

type hostEntry struct {
	projectID, deploymentID string
	found                   bool
	at                      time.Time
}

// New returns a Server resolving domains with st and reading files from bucket.
func New(log *slog.Logger, st Resolver, bucket *blob.Bucket) *Server {
	s := &Server{log: log, store: st, bucket: bucket, hosts: map[string]hostEntry{}, last: map[string]lookup{},
		pageReads: make(chan struct{}, maxPageReads)}
	if as, ok := st.(beacon.Store); ok {
		s.analytics.c = beacon.NewCollector(log, as, beacon.QueueSize)
	}
	s.plainPolicy = sync.OnceValue(func() string { return pageCSP(nil, s.EmbedHosts) })
	s.SetHotCache(DefaultHotCacheSize, 0, 0)
	return s
}

// ServeHTTP serves a file of the host's live deployment, or its 404 page.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// /mcp takes POST (stateless Streamable HTTP); a GET of it is the
	// site's page of that name, if it has one.
	if r.URL.Path == AssistantPath || r.URL.Path == FeedbackPath || r.URL.Path == AnalyticsPath || (r.URL.Path == MCPPath && r.Method == http.MethodPost) {
		e, err := s.resolve(r.Context(), lectern.HostName(r.Host))
		switch {
		case err != nil:
			unavailable(w)
		case !e.found:
			http.NotFound(w, r)
		case r.URL.Path == MCPPath:
			s.serveMCP(w, r, e)
		case r.URL.Path == FeedbackPath:
			s.serveFeedback(w, r, e)
		case r.URL.Path == AnalyticsPath:
			s.serveBeacon(w, r, e)
		default:
			s.serveAssistant(w, r, e)
		}
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	e, err := s.resolve(r.Context(), lectern.HostName(r.Host))
	if err != nil {
		unavailable(w)
		return
	}
	if !e.found {
		http.NotFound(w, r)
		return
	}
	if e.deploymentID == "" {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte("This documentation site has not been deployed yet.\n"))
		return
	}
	for _, name := range lectern.SiteFiles(r.URL.Path) {
		if s.serveFile(w, r, e, name, http.StatusOK) {
			return
		}
	}
	if !s.serveFile(w, r, e, "404.html", http.StatusNotFound) {
		http.NotFound(w, r)
	}
}

// unavailable answers 503 with Retry-After: the store or the object store
// cannot be reached.
func unavailable(w http.ResponseWriter) {
	w.Header().Set("Retry-After", "5")
	w.Header().Set("Cache-Control", "no-store")
	http.Error(w, "This documentation site is temporarily unavailable; try again in a few seconds.", http.StatusServiceUnavailable)
}

// maxPageReads is how many pages are read whole at once (pagePolicy): with
// maxPage, what the policies of pages cost in memory at the most.
const maxPageReads = 8

// boundedCache remembers what never changes for a key (deployments are
// immutable): at most maxPolicies entries, forgotten all at once when
// full. Safe for concurrent use.
type boundedCache[V any] struct {
	mu sync.Mutex
	m  map[string]V
}

const maxPolicies = 20_000

func (c *boundedCache[V]) get(key string) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[key]
	return v, ok
}

func (c *boundedCache[V]) put(key string, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxPolicies {
		c.m = map[string]V{}
	}
	c.m[key] = v
}

// maxPage is the size up to which a page is read to find the API servers
// of its "Try it" forms.
const maxPage = 8 << 20

// PageCSP is the Content-Security-Policy of a live site's page with
// content page (nil when unknown): the default features' policy
// (features.Site.ContentSecurityPolicy), whose connect-src adds the
// origins of the API servers the page's "Try it" forms offer. Live sites
// and lectern build --serve send it with every page.
func PageCSP(page []byte) string {
	return pageCSP(page, nil)
}

// pageCSP is PageCSP for a site whose pages may frame embedHosts
// (features.Site.EmbedHosts).
func pageCSP(page []byte, embedHosts []string) string {
	f := features.Default()
	f.PlaygroundOrigins = features.PlaygroundServerOrigins(page)
	f.EmbedHosts = embedHosts
	return f.ContentSecurityPolicy()
}
