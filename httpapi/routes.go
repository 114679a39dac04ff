// Package httpapi is Lectern's HTTP API: the four endpoints of the service
// spec under /v1 (plus the update-status extension, and the projects, their
// history and the export jobs' list: projects.go; cancel and promote:
// cancel.go; webhooks: webhooks.go; the assistant: assistant.go; the
// analytics reports: analytics.go), health, readiness, metrics, the
// OpenAPI document and the server's own root page (root.go), with API-key
// authentication, rate limits (per client address before authentication,
// per key and per organization after it), Idempotency-Key replay, and RFC
// 9457 problem responses.
// Requests whose Host is a project's domain are handed to the live-site
// server instead, unless the Host is one of the server's own hosts
// (Config.ServerHosts): there the API always answers. A request for any
// other host that no API route takes is told that no site is published
// for that host (root.go).
package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"net/netip"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"lectern.dev/lectern"
	"lectern.dev/lectern/actions"
	"lectern.dev/lectern/blobstore"
	"lectern.dev/lectern/secrets"
	"lectern.dev/lectern/store"
)

// Config holds the API's settings.
type Config struct {
	// OrgJobs and OrgJobsByPlan are the workers' limits of one
	// organization's jobs running at once (jobs.Config's OrgLimit and
	// PlanLimits), with which a queued update or export says where it
	// waits.
	OrgJobs       int
	OrgJobsByPlan map[lectern.Plan]int
	// BundleURLTTL is the lifetime of bundle download links; default 1h.
	BundleURLTTL time.Duration
	// MaxBodyBytes bounds request bodies; default 64 KiB.
	MaxBodyBytes int64
	// RateLimit applies per API key; a zero Rate disables it.
	RateLimit RateLimit
	// Limiter enforces RateLimit; nil keeps the buckets in this process's
	// memory (NewMemoryLimiter). Several API processes share one budget
	// through NewSharedLimiter.
	Limiter Limiter
	// OrgRateLimit applies per organization, to all its keys together, on
	// top of RateLimit; a zero Rate disables it.
	OrgRateLimit RateLimit
	// OrgLimiter enforces OrgRateLimit; nil keeps the buckets in memory.
	OrgLimiter Limiter
	// ClientRateLimit applies per client address, before authentication,
	// to the routes that need a key; a zero Rate disables it. Its buckets
	// are in this process's memory.
	ClientRateLimit RateLimit
	// TrustedProxies are the reverse proxies whose X-Forwarded-For names
	// the client for ClientRateLimit; none by default.
	TrustedProxies []netip.Prefix
	// ExportsPerHour bounds export starts per organization per hour; 0 disables.
	ExportsPerHour int
	// LogRequests logs every request, not only failed ones.
	LogRequests bool
	// ServerHosts are the server's own host names: requests for them are
	// always the API's (and, later, the server's own pages'), never a
	// live site's, whatever domains projects hold. nil means the names
	// every server has (IP addresses, localhost).
	ServerHosts *lectern.ServerHosts
	// NoMetrics leaves /metrics out of the handler, for a server that
	// serves MetricsHandler on a listener of its own.
	NoMetrics bool
	// Secrets seals webhooks' signing secrets; without it webhooks cannot
	// be created.
	Secrets *secrets.Key
	// WebhookAllowPrivate lets webhooks target loopback, private and
	// link-local addresses (serve --webhook-allow-private).
	WebhookAllowPrivate bool
	// Version is Lectern's, shown by the server's root page (GET / on its
	// own hosts); empty: the binary's module version, or "dev".
	Version string
}

// Notifier is told when a job was queued, so a worker can start at once.
type Notifier interface{ Notify() }

// SiteServer serves live documentation sites by host name.
type SiteServer interface {
	http.Handler
	// Serves reports whether host (a Host header) is a project's domain.
	Serves(ctx context.Context, host string) bool
	// LookupFailed reports whether Serves said false for host because
	// the lookup failed, not because no project has the domain.
	LookupFailed(host string) bool
}

// Handler is the HTTP handler of the API and the live sites.
type Handler struct {
	api  *api
	root http.Handler
}

type api struct {
	log      *slog.Logger
	store    store.Store
	jobs     Notifier
	links    blobstore.Linker
	download http.Handler
	sites    SiteServer
	cfg      Config
	metrics  *httpMetrics
	gatherer prometheus.Gatherer
	limiter  Limiter
	// orgLimiter and clientLimiter enforce OrgRateLimit and ClientRateLimit.
	orgLimiter, clientLimiter Limiter
	touch                     keyToucher
	draining                  atomic.Bool
	mux                       *http.ServeMux
	// ops performs the organizations' actions, as the dashboard does.
	ops *actions.Service
}

// NewHandler returns the API handler. jobs, download and sites may be nil
// (no wake-ups, no local download links, no live sites). Metrics are
// registered on reg and /metrics serves gatherer.
func NewHandler(log *slog.Logger, st store.Store, jobs Notifier, links blobstore.Linker, download http.Handler,
	sites SiteServer, reg prometheus.Registerer, gatherer prometheus.Gatherer, cfg Config) *Handler {
	if cfg.BundleURLTTL <= 0 {
		cfg.BundleURLTTL = time.Hour
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = 64 << 10
	}
	cfg.RateLimit = cfg.RateLimit.withDefaults()
	if cfg.Limiter == nil {
		cfg.Limiter = NewMemoryLimiter(cfg.RateLimit)
	}
	cfg.OrgRateLimit = cfg.OrgRateLimit.withDefaults()
	if cfg.OrgLimiter == nil {
		cfg.OrgLimiter = NewMemoryLimiter(cfg.OrgRateLimit)
	}
	cfg.ClientRateLimit = cfg.ClientRateLimit.withDefaults()
	if cfg.Version == "" {
		cfg.Version = buildVersion()
	}
	a := &api{log: log, store: st, jobs: jobs, links: links, download: download, sites: sites, cfg: cfg,
		metrics: newHTTPMetrics(reg), gatherer: gatherer, limiter: cfg.Limiter, orgLimiter: cfg.OrgLimiter,
		clientLimiter: NewMemoryLimiter(cfg.ClientRateLimit), mux: http.NewServeMux()}
	a.ops = &actions.Service{Store: st, Links: links, Hosts: cfg.ServerHosts, BundleURLTTL: cfg.BundleURLTTL, ExportsPerHour: cfg.ExportsPerHour,
		Secrets: cfg.Secrets, WebhookAllowPrivate: cfg.WebhookAllowPrivate, OrgJobs: cfg.OrgJobs, OrgJobsByPlan: cfg.OrgJobsByPlan}
	if jobs != nil {
		a.ops.Jobs = jobs
	}
	a.routes()
	return &Handler{api: a, root: withRequestID(http.HandlerFunc(a.dispatch))}
}

// ServeHTTP serves a request.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.root.ServeHTTP(w, r) }

// Drain makes /readyz report not ready, so load balancers stop sending
// traffic before shutdown.
func (h *Handler) Drain() { h.api.draining.Store(true) }

// OpenAPIDocument returns the OpenAPI 3.1 description of the API.
func OpenAPIDocument() []byte { return openAPIDocument }

// MetricsHandler serves gatherer's metrics in the Prometheus format, for a
// listener of their own (see Config.NoMetrics).
func MetricsHandler(gatherer prometheus.Gatherer) http.Handler {
	return promhttp.HandlerFor(gatherer, promhttp.HandlerOpts{})
}

// dispatch sends a request to a live site when its Host is a project's
// domain, and to the API's routes otherwise. The server's own hosts never
// reach the sites, so a project holding one of them (from an older
// database) cannot take over the API, health or metrics: pages that must
// only be served on the server's host check isServerHost.
func (a *api) dispatch(w http.ResponseWriter, r *http.Request) {
	if a.sites != nil && !a.isServerHost(r.Host) && !strings.HasPrefix(r.URL.Path, blobstore.LinkPath) && a.sites.Serves(r.Context(), r.Host) {
		a.sites.ServeHTTP(w, r)
		return
	}
	a.mux.ServeHTTP(w, r)
}

// isServerHost reports whether host (a Host header) is one of the server's
// own hosts.
func (a *api) isServerHost(host string) bool { return a.cfg.ServerHosts.Contains(host) }

// routes registers every route. Each route lists its methods; any other
// method is a 405 problem.
func (a *api) routes() {
	authed := func(h http.Handler) http.Handler { return a.limitClient(a.authenticate(a.rateLimit(h))) }
	a.handle("/v1/project/update/{projectId}", map[string]http.Handler{"POST": authed(http.HandlerFunc(a.triggerUpdate))})
	a.handle("/v1/project/update-status/{statusId}", map[string]http.Handler{"GET": authed(http.HandlerFunc(a.getUpdateStatus))})
	a.handle("/v1/projects", map[string]http.Handler{"GET": authed(http.HandlerFunc(a.listProjects))})
	a.handle("/v1/projects/{projectId}", map[string]http.Handler{"GET": authed(http.HandlerFunc(a.getProject)),
		"PATCH": authed(http.HandlerFunc(a.updateProject)), "DELETE": authed(http.HandlerFunc(a.deleteProject))})
	a.handle("/v1/projects/{projectId}/updates", map[string]http.Handler{"GET": authed(http.HandlerFunc(a.listUpdates))})
	a.handle("/v1/projects/{projectId}/deployments", map[string]http.Handler{"GET": authed(http.HandlerFunc(a.listDeployments))})
	a.handle("/v1/projects/{projectId}/deployments/{deploymentId}/promote", map[string]http.Handler{"POST": authed(http.HandlerFunc(a.promoteDeployment))})
	a.handle("/v1/project/update-status/{statusId}/cancel", map[string]http.Handler{"POST": authed(http.HandlerFunc(a.cancelUpdate))})
	a.handle("/v1/static-export/jobs/{jobId}/cancel", map[string]http.Handler{"POST": authed(http.HandlerFunc(a.cancelExport))})
	a.handle("/v1/static-export/jobs", map[string]http.Handler{"POST": authed(http.HandlerFunc(a.startExport)),
		"GET": authed(http.HandlerFunc(a.listExports))})
	a.handle("/v1/static-export/jobs/{jobId}", map[string]http.Handler{"GET": authed(http.HandlerFunc(a.getExport))})
	a.handle("/v1/static-export/jobs/{jobId}/bundle", map[string]http.Handler{"POST": authed(http.HandlerFunc(a.createBundle))})
	a.handle("/v1/webhooks", map[string]http.Handler{"GET": authed(http.HandlerFunc(a.listWebhooks)), "POST": authed(http.HandlerFunc(a.createWebhook))})
	a.handle("/v1/webhooks/{webhookId}", map[string]http.Handler{"GET": authed(http.HandlerFunc(a.getWebhook)), "DELETE": authed(http.HandlerFunc(a.deleteWebhook))})
	a.handle("/v1/webhooks/{webhookId}/deliveries", map[string]http.Handler{"GET": authed(http.HandlerFunc(a.listDeliveries))})
	a.handle("/v1/assistant/{domain}/message", map[string]http.Handler{"POST": authed(http.HandlerFunc(a.assistantMessage))})
	a.handle("/v1/analytics/{projectId}/views", map[string]http.Handler{"GET": authed(a.analyticsReport(a.viewsReport))})
	a.handle("/v1/analytics/{projectId}/searches", map[string]http.Handler{"GET": authed(a.analyticsReport(a.searchesReport))})
	a.handle("/v1/analytics/{projectId}/feedback", map[string]http.Handler{"GET": authed(a.analyticsReport(a.feedbackReport))})
	a.handle("/v1/analytics/{projectId}/assistant", map[string]http.Handler{"GET": authed(a.analyticsReport(a.assistantReport))})
	a.handle("/v1/openapi.json", map[string]http.Handler{"GET": http.HandlerFunc(a.openAPI)})
	a.handle("/healthz", map[string]http.Handler{"GET": http.HandlerFunc(a.healthz)})
	a.handle("/readyz", map[string]http.Handler{"GET": http.HandlerFunc(a.readyz)})
	if !a.cfg.NoMetrics {
		a.handle("/metrics", map[string]http.Handler{"GET": MetricsHandler(a.gatherer)})
	}
	if a.download != nil {
		a.mux.Handle(blobstore.LinkPath, a.instrument(blobstore.LinkPath, a.download))
	}
	// What no route takes: the server's root page, "no site is published
	// for this host", or "no API route matches" (root.go).
	a.mux.Handle("/", a.instrument("/", http.HandlerFunc(a.fallback)))
}

func (a *api) handle(pattern string, methods map[string]http.Handler) {
	allow := make([]string, 0, len(methods))
	for m := range methods {
		allow = append(allow, m)
		if m == http.MethodGet {
			allow = append(allow, http.MethodHead)
		}
	}
	sort.Strings(allow)
	allowed := strings.Join(allow, ", ")
	a.mux.Handle(pattern, a.instrument(pattern, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h, ok := methods[r.Method]
		if !ok && r.Method == http.MethodHead {
			h, ok = methods[http.MethodGet]
		}
		if !ok {
			w.Header().Set("Allow", allowed)
			writeError(w, r, a.log, lectern.Errorf(lectern.EMETHOD, "%s accepts %s.", pattern, allowed))
			return
		}
		h.ServeHTTP(w, r)
	})))
}

func (a *api) openAPI(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "public, max-age=300")
	w.Write(openAPIDocument)
}

func (a *api) healthz(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

func (a *api) readyz(w http.ResponseWriter, r *http.Request) {
	if a.draining.Load() {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "draining"})
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if err := a.store.Ping(ctx); err != nil {
		a.log.Warn("readiness: store unavailable", "err", err)
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "store unavailable"})
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
}
