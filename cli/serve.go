package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"lectern.dev/lectern"
	"lectern.dev/lectern/actions"
	"lectern.dev/lectern/blobstore"
	"lectern.dev/lectern/dashboard"
	"lectern.dev/lectern/gitsource"
	"lectern.dev/lectern/httpapi"
	"lectern.dev/lectern/jobs"
	"lectern.dev/lectern/render/features"
	"lectern.dev/lectern/sites"
	"lectern.dev/lectern/store"
	"lectern.dev/lectern/store/readcache"
	"lectern.dev/lectern/webhooks"
)

type serveFlags struct {
	storageFlags
	hostFlags
	builds          buildLimitFlags
	addr            string
	metricsAddr     string
	role            string
	logFormat       string
	logLevel        string
	logRequests     bool
	bundleURLTTL    time.Duration
	workers         int
	jobLease        time.Duration
	rateLimit       float64
	rateBurst       int
	orgRateLimit    float64
	orgRateBurst    int
	clientRateLimit float64
	clientRateBurst int
	trustedProxies  string
	exportsPerHour  int
	retention       time.Duration
	keepDeployments int
	webhookPrivate  bool
	webhookWorkers  int
	shutdownTimeout time.Duration
	gitTimeout      time.Duration
	renderPageDelay time.Duration
	updatePageDelay time.Duration
	keyCacheTTL     time.Duration
	embedHosts      string
	siteCacheSize   byteSizeFlag
	orgJobs         int
	orgJobsByPlan   planLimitsFlag
	siteDiskCache   byteSizeFlag
	buildCacheSize  byteSizeFlag
	demo            bool
	assistant       assistantFlags
	analytics       analyticsFlags
	oidc            oidcFlags
	tls             tlsFlags
}

func serveCmd(e *env) *cobra.Command {
	f := &serveFlags{}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the API, the job workers and the live documentation sites",
		Long: `Run Lectern's server. With no settings it runs on the embedded default:
SQLite and a blob folder under ./lectern-data, listening on 127.0.0.1:8080.

Every flag can also be set with an environment variable (LECTERN_ and the
flag name in upper snake case, e.g. LECTERN_ADDR) or in the YAML file named
by --config; the command line wins over the environment, which wins over the file.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := resolveFlags(cmd.Flags(), e.getenv); err != nil {
				return err
			}
			f.scaleRateLimits(cmd.Flags())
			return f.run(cmd.Context(), e)
		},
	}
	fs := cmd.Flags()
	f.storageFlags.register(fs)
	f.builds.register(fs)
	fs.StringVar(&f.addr, "addr", "127.0.0.1:8080", "address to listen on")
	f.hostFlags.register(fs, "URL clients use to reach this server, for download links (default http://ADDR); its host is the server's own")
	fs.StringVar(&f.metricsAddr, "metrics-addr", "", "serve /metrics on this address only, not on --addr, and /tls-allowed for a proxy's on-demand certificates: keep it to your network (default: /metrics on --addr)")
	fs.StringVar(&f.role, "role", "all", "what this process does: api, worker or all")
	fs.StringVar(&f.logFormat, "log-format", "text", "log format: text or json")
	fs.StringVar(&f.logLevel, "log-level", "info", "log level: debug, info, warn or error")
	fs.BoolVar(&f.logRequests, "log-requests", false, "log every API request (failed ones are always logged)")
	fs.DurationVar(&f.bundleURLTTL, "bundle-url-ttl", time.Hour, "lifetime of bundle download links")
	fs.IntVar(&f.workers, "workers", 2, "jobs run at once by this process")
	fs.IntVar(&f.orgJobs, "org-jobs", 2, "updates and exports of one organization run at once, across every worker process; with a limit, a process's last free worker is kept for an organization with nothing running, so that one organization's backlog cannot take every worker (0: no limit, no spare worker)")
	fs.Var(&f.orgJobsByPlan, "org-jobs-by-plan", "the same limit by plan, for the plans named, like enterprise=4,pro=2 (others have --org-jobs)")
	fs.DurationVar(&f.jobLease, "job-lease", 15*time.Second, "how long a job stays claimed without a heartbeat before another worker takes it over")
	fs.Float64Var(&f.rateLimit, "rate-limit", 20, "API requests per second per key, on average (0 disables)")
	fs.IntVar(&f.rateBurst, "rate-burst", 60, "API requests per key allowed in a burst")
	fs.Float64Var(&f.orgRateLimit, "org-rate-limit", 0, "API requests per second per organization, all its keys together (default 2 × --rate-limit; 0 disables)")
	fs.IntVar(&f.orgRateBurst, "org-rate-burst", 0, "API requests per organization allowed in a burst (default 2 × --rate-burst)")
	fs.Float64Var(&f.clientRateLimit, "client-rate-limit", 0, "API requests per second per client address, counted before the key is checked (default 5 × --rate-limit; 0 disables)")
	fs.IntVar(&f.clientRateBurst, "client-rate-burst", 0, "API requests per client address allowed in a burst (default 5 × --rate-burst)")
	fs.StringVar(&f.trustedProxies, "trusted-proxies", "", "comma-separated addresses or networks (10.0.0.0/8) of reverse proxies whose X-Forwarded-For names the client, for --client-rate-limit, sign-in throttling and analytics (default none)")
	fs.IntVar(&f.exportsPerHour, "exports-per-hour", 10, "export starts per organization per hour (0 disables)")
	fs.DurationVar(&f.retention, "retention", 30*24*time.Hour, "how long export jobs and their files, and webhook deliveries that ended, are kept")
	fs.IntVar(&f.webhookWorkers, "webhook-workers", 4, "webhook deliveries sent at once by this process (apart from --workers, which build)")
	fs.BoolVar(&f.webhookPrivate, "webhook-allow-private", false, "let webhooks target loopback, private and link-local addresses (by default refused, so that a tenant's webhook cannot reach the server's own network)")
	fs.IntVar(&f.keepDeployments, "keep-deployments", 3, "how many deployments of each project are kept besides the live one, for promoting back (those under an hour old are always kept)")
	fs.DurationVar(&f.shutdownTimeout, "shutdown-timeout", 30*time.Second, "how long a graceful stop waits for requests and jobs")
	fs.DurationVar(&f.gitTimeout, "git-timeout", 5*time.Minute, "time limit for fetching a repository")
	fs.DurationVar(&f.keyCacheTTL, "key-cache-ttl", readcache.DefaultKeyTTL, "how long the API trusts a looked-up API key; a revoked key stops working within this time (0 checks every request)")
	fs.StringVar(&f.embedHosts, "embed-hosts", "", "comma-separated host names (www.youtube.com,player.vimeo.com) whose iframes live sites show as players; others, and every one in an export, become a link to the video (default none)")
	f.siteCacheSize = sites.DefaultHotCacheSize
	fs.Var(&f.siteCacheSize, "site-cache-size", "memory for the small files of live sites read most recently, like 256MiB (0 reads every request from the blob store); one site holds at most a quarter of it")
	f.siteDiskCache = sites.DefaultDiskCacheSize
	f.buildCacheSize = jobs.DefaultBuildCacheMax
	fs.Var(&f.buildCacheSize, "build-cache-size", "disk space in DATA_DIR/build-cache for each project's last build, so that an update renders and stores only what changed, like 20GiB (the projects built least recently go first; 0: every update builds from nothing)")
	fs.Var(&f.siteDiskCache, "site-disk-cache-size", "with a blob store that is not a local folder (s3://), disk space in DATA_DIR/site-cache for the live sites' files read from it, like 2GiB (0: none); emptied at start")
	f.assistant.register(fs)
	f.analytics.register(fs)
	f.oidc.register(fs)
	f.tls.register(fs)
	fs.BoolVar(&f.demo, "demo", false, "on an empty store: create a demo organization, project and API key, deploy an example site, and print how to use it")
	fs.DurationVar(&f.renderPageDelay, "render-page-delay", 0, "slow exports down per page (for tests)")
	fs.MarkHidden("render-page-delay")
	fs.DurationVar(&f.updatePageDelay, "update-page-delay", 0, "slow updates down per page (for tests)")
	fs.MarkHidden("update-page-delay")
	return cmd
}

func newLogger(w interface{ Write([]byte) (int, error) }, format, level string) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level: %q is not debug, info, warn or error", level)
	}
	opts := &slog.HandlerOptions{Level: lv}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("--log-format: %q is not text or json", format)
}

// defaultGCPercent is the garbage collector's target for serve when GOGC is
// not set. The server's live heap is small (a few MB) while every request
// allocates, so Go's default of 100 collects very often; 400 trades a few
// MB of memory for fewer collections and a shorter latency tail.
const defaultGCPercent = 400

// serveMemoryBase is what serve's memory limit allows besides twice the
// live sites' memory cache (serveMemoryLimit).
const serveMemoryBase = 256 << 20

// serveMemoryLimit is the Go runtime's soft memory limit for serve when
// GOMEMLIMIT is not set: GOGC 400 lets the heap grow to five times what
// is live, and with the live sites' cache full (--site-cache-size) that
// is five times the cache; the limit makes the collector run sooner
// instead, so that the process stays near twice the cache plus 256 MiB
// (768 MiB with the default cache), whatever the load.
func serveMemoryLimit(siteCache int64) int64 { return 2*siteCache + serveMemoryBase }

func (f *serveFlags) run(ctx context.Context, e *env) error {
	log, err := newLogger(e.stderr, f.logFormat, f.logLevel)
	if err != nil {
		return err
	}
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(defaultGCPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(serveMemoryLimit(int64(f.siteCacheSize)))
	}
	api, worker := f.role == "all" || f.role == "api", f.role == "all" || f.role == "worker"
	if !api && !worker {
		return fmt.Errorf("--role: %q is not api, worker or all", f.role)
	}
	if f.orgJobs < 0 {
		return fmt.Errorf("--org-jobs %d: give the jobs one organization may run at once, or 0 for no limit", f.orgJobs)
	}
	if f.demo && f.role != "all" {
		return fmt.Errorf("--demo needs --role all: it deploys its example site through this process's API and workers")
	}
	if f.demo && f.tls.mode() != "off" {
		return fmt.Errorf("--demo serves plain http on this machine: leave out --tls-cert and --tls-acme")
	}
	if f.publicURL == "" {
		f.publicURL = "http://" + f.addr
		if f.tls.mode() != "off" {
			f.publicURL = "https://" + f.addr
		}
	}
	if err := checkPublicURL(f.publicURL); err != nil {
		return err
	}
	hosts, err := f.serverHosts(f.addr)
	if err != nil {
		return err
	}
	if f.demo && hosts.Contains(demoDomain) {
		return fmt.Errorf("--demo serves its site on %s, which --public-url or --reserved-hosts makes one of the server's own hosts; leave it out of them for the demo", demoDomain)
	}
	proxies, err := httpapi.ParseTrustedProxies(f.trustedProxies)
	if err != nil {
		return fmt.Errorf("--trusted-proxies: %s", lectern.ErrorMessage(err))
	}
	if f.bundleURLTTL < time.Second {
		return fmt.Errorf("--bundle-url-ttl %s is shorter than a second", f.bundleURLTTL)
	}
	if f.webhookWorkers < 1 || f.webhookWorkers > 256 {
		return fmt.Errorf("--webhook-workers %d: give 1 to 256", f.webhookWorkers)
	}
	if f.keepDeployments < 1 || f.keepDeployments > 1000 {
		return fmt.Errorf("--keep-deployments %d: keep 1 to 1000 deployments besides the live one", f.keepDeployments)
	}
	buildLimits, builder, err := f.builds.limits()
	if err != nil {
		return err
	}
	embedHosts, err := features.ParseEmbedHosts(f.embedHosts)
	if err != nil {
		return fmt.Errorf("--embed-hosts: %s", lectern.ErrorMessage(err))
	}

	assistantSvc, err := f.assistant.service(e.getenv, log)
	if err != nil {
		return err
	}
	if err := f.analytics.check(); err != nil {
		return err
	}
	oidcConfig, err := f.oidc.config(f.publicURL, log)
	if err != nil {
		return err
	}
	certs, err := f.tls.check(f.publicURL, log)
	if err != nil {
		return err
	}
	// Listen before anything starts: a second serve on a busy port stops
	// here, having started no worker and opened no data.
	lns, err := f.bind()
	if err != nil {
		return err
	}
	defer lns.close()

	st, err := f.openStore(ctx, log)
	if err != nil {
		return err
	}
	defer st.Close()
	blobURL, err := f.blobURLOrDefault()
	if err != nil {
		return err
	}
	bucket, err := blobstore.Open(ctx, blobURL)
	if err != nil {
		return err
	}
	defer bucket.Close()
	secretKey, signKey, projects, err := f.startSecrets(ctx, e, st, log)
	if err != nil {
		return err
	}
	// Download links: the object store's own presigned URLs for S3, else
	// links that this server signs and serves itself.
	local := &blobstore.LocalLinks{Bucket: bucket, PublicURL: f.publicURL, Key: signKey, MaxTTL: f.bundleURLTTL}
	var links blobstore.Linker = local
	if strings.HasPrefix(blobURL, "s3://") {
		if f.bundleURLTTL > blobstore.MaxBucketLinkTTL {
			return fmt.Errorf("--bundle-url-ttl %s is longer than S3 presigned links allow (%s)", f.bundleURLTTL, blobstore.MaxBucketLinkTTL)
		}
		links = &blobstore.BucketLinks{Bucket: bucket}
	}

	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))

	// Live sites keep their hot files in memory, and what hosts resolve
	// to for as long as the store's watch says it did not change: every
	// process sharing the database drops a host's answer as soon as
	// another switches its site (PostgreSQL's NOTIFY; SQLite's change
	// log). This process's own writes tell them as soon as they return.
	// When this process is the only one switching sites (SQLite, --role
	// all), they keep answers for a second even while the watch is down;
	// elsewhere, several API processes must not serve a switch at
	// different moments, and every request then asks the database.
	liveSites := sites.New(log, st, bucket)
	liveSites.SetHotCache(int64(f.siteCacheSize), 0, 0)
	if api && !strings.HasPrefix(blobURL, "file://") {
		if err := liveSites.SetDiskCache(filepath.Join(f.dataDir, "site-cache"), int64(f.siteDiskCache)); err != nil {
			return fmt.Errorf("--site-disk-cache-size: the cache folder: %w", err)
		}
	}
	if api {
		if worker && !f.isPostgres() {
			st = liveSites.Watch(st)
		} else {
			st = liveSites.Tell(st)
		}
		go liveSites.Follow(ctx, st)
	}

	var runner *jobs.Runner
	var janitor *jobs.Janitor
	if worker {
		fetcher := &gitsource.Fetcher{Timeout: f.gitTimeout}
		buildCacheDir := ""
		if f.buildCacheSize > 0 {
			buildCacheDir = filepath.Join(f.dataDir, "build-cache")
		}
		handlers := map[string]jobs.Handler{
			store.KindUpdate: &jobs.UpdateHandler{Log: log, Store: st, Bucket: bucket, Fetcher: fetcher, PageDelay: f.updatePageDelay,
				SecretKey: secretKey, Builder: builder, Limits: buildLimits, EmbedHosts: embedHosts,
				CacheDir: buildCacheDir, CacheMax: int64(f.buildCacheSize)},
			store.KindExport: &jobs.ExportHandler{Log: log, Store: st, Bucket: bucket, PageDelay: f.renderPageDelay,
				Builder: builder, Limits: buildLimits},
		}
		metrics := jobs.NewMetrics(reg, st)
		runner = jobs.NewRunner(log, st, handlers, jobs.Config{Workers: f.workers, LeaseFor: f.jobLease, DrainTimeout: f.shutdownTimeout,
			OrgLimit: f.orgJobs, PlanLimits: f.orgJobsByPlan, SpareWorker: f.orgJobs > 0 || len(f.orgJobsByPlan) > 0}, metrics)
		// Jobs outlive a canceled ctx only through Stop: give them their own.
		if err := runner.Start(context.WithoutCancel(ctx)); err != nil {
			return err
		}
		defer runner.Stop()
		// Webhook deliveries have workers of their own: a tenant's slow
		// endpoints never hold up anyone's builds.
		hooks := jobs.NewRunner(log, st, map[string]jobs.Handler{store.KindWebhook: &webhooks.Deliverer{Log: log, Store: st, Key: secretKey,
			Client: webhooks.Client(webhooks.Timeout, f.webhookPrivate)}},
			jobs.Config{Workers: f.webhookWorkers, LeaseFor: f.jobLease, DrainTimeout: f.shutdownTimeout}, metrics)
		if err := hooks.Start(context.WithoutCancel(ctx)); err != nil {
			return err
		}
		defer hooks.Stop()
		janitor = &jobs.Janitor{Log: log, Store: st, Bucket: bucket, Retention: f.retention, KeepDeployments: f.keepDeployments,
			AssistantRetention: f.assistant.retention, AnalyticsRetention: f.analytics.retention, AnalyticsAggregateRetention: f.analytics.aggregates}
		if err := janitor.Start(context.WithoutCancel(ctx)); err != nil {
			return err
		}
		defer janitor.Stop()
	}

	var notifier httpapi.Notifier
	if runner != nil {
		notifier = runner
	}
	keyTTL := f.keyCacheTTL
	if keyTTL <= 0 {
		keyTTL = -1
	}
	rl := httpapi.RateLimit{Rate: f.rateLimit, Burst: f.rateBurst}
	orgRL := httpapi.RateLimit{Rate: f.orgRateLimit, Burst: f.orgRateBurst}
	liveSites.EmbedHosts = embedHosts
	liveSites.Assistant = assistantSvc
	liveSites.Version = Version
	liveSites.ClientAddr = func(r *http.Request) string { return httpapi.ClientAddr(r, proxies) }
	reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "lectern_analytics_events_dropped_total",
		Help: "Analytics events of the live sites dropped: the queue was full, or the store failed to record them."},
		func() float64 { return float64(liveSites.AnalyticsDropped()) }))
	reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "lectern_site_cache_bytes",
		Help: "Bytes of the live sites' files kept in memory (--site-cache-size bounds them)."},
		func() float64 { return float64(liveSites.CacheBytes()) }))
	if api {
		actx, stopAnalytics := context.WithCancel(context.WithoutCancel(ctx))
		analyticsDone := make(chan struct{})
		go func() { defer close(analyticsDone); liveSites.RunAnalytics(actx) }()
		defer func() { stopAnalytics(); <-analyticsDone }()
	}
	handler := httpapi.NewHandler(log, readcache.New(st, keyTTL, 0), notifier, links, local, liveSites, reg, reg, httpapi.Config{
		OrgJobs: f.orgJobs, OrgJobsByPlan: f.orgJobsByPlan,
		BundleURLTTL: f.bundleURLTTL, RateLimit: rl, Limiter: f.rateLimiter(st, "api-key", rl, log),
		OrgRateLimit: orgRL, OrgLimiter: f.rateLimiter(st, "org", orgRL, log),
		ClientRateLimit: httpapi.RateLimit{Rate: f.clientRateLimit, Burst: f.clientRateBurst}, TrustedProxies: proxies,
		ExportsPerHour: f.exportsPerHour, LogRequests: f.logRequests, ServerHosts: hosts, NoMetrics: f.metricsAddr != "",
		Secrets: secretKey, WebhookAllowPrivate: f.webhookPrivate, Version: Version})
	if api {
		warnServerHostDomains(log, projects, hosts)
	}
	policy := certPolicy(certNames(f.publicURL, f.addr, f.reservedHosts), hosts, st)
	if lns.metrics != nil {
		msrv := metricsServer(reg, log, certAllowedHandler(policy))
		go msrv.Serve(lns.metrics)
		defer msrv.Close()
		log.Info("metrics listening", "addr", lns.metrics.Addr().String())
	}
	// The dashboard answers /dashboard/ on the server's own hosts only;
	// docs domains keep their own pages of that path.
	var root http.Handler = handler
	if api {
		ops := &actions.Service{Store: st, Links: links, Hosts: hosts, BundleURLTTL: f.bundleURLTTL, ExportsPerHour: f.exportsPerHour,
			Secrets: secretKey, WebhookAllowPrivate: f.webhookPrivate, OrgJobs: f.orgJobs, OrgJobsByPlan: f.orgJobsByPlan}
		if notifier != nil {
			ops.Jobs = notifier
		}
		root = dashboard.New(log, st, dashboard.Config{Hosts: hosts, Secure: strings.HasPrefix(f.publicURL, "https://"),
			TrustedProxies: proxies, Actions: ops, PublicURL: f.publicURL, OIDC: oidcConfig}).Mount(handler)
	}
	tlsConfig, redirect := f.tls.config(certs, policy, f.dataDir, f.publicURL)
	srv := &http.Server{Handler: root, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute,
		IdleTimeout: 2 * time.Minute, ErrorLog: serverErrorLog(log), TLSConfig: tlsConfig}
	serveErr := make(chan error, 2)
	ln := lns.main
	go func() {
		if tlsConfig != nil {
			serveErr <- srv.ServeTLS(ln, "", "")
			return
		}
		serveErr <- srv.Serve(ln)
	}()
	if certs != nil {
		hup, stopHUP := sighup()
		wctx, stopWatch := context.WithCancel(ctx)
		watched := make(chan struct{})
		go func() { defer close(watched); certs.watch(wctx, f.tls.reloadEvery, hup) }()
		defer func() { stopWatch(); stopHUP(); <-watched }()
	}
	if lns.redirect != nil {
		rsrv := &http.Server{Handler: redirect, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute, ErrorLog: serverErrorLog(log)}
		go func() { serveErr <- fmt.Errorf("--tls-redirect-addr: %w", rsrv.Serve(lns.redirect)) }()
		defer rsrv.Close()
		log.Info("redirecting plain http to https", "addr", lns.redirect.Addr().String())
	}
	log.Info("lectern listening", "addr", ln.Addr().String(), "public_url", f.publicURL, "tls", f.tls.mode(), "role", f.role,
		"database", f.databaseLabel(), "blobs", blobstore.Redact(blobURL), "data_dir", f.dataDir, "pid", os.Getpid())
	if f.demo {
		go func() {
			if err := demo(ctx, st, f.dataDir, loopbackURL(ln.Addr()), e.stdout); err != nil && ctx.Err() == nil {
				log.Error("demo setup failed", "err", err)
			}
		}()
	}

	select {
	case err := <-serveErr:
		return fmt.Errorf("server stopped: %w", err)
	case <-ctx.Done():
	}
	log.Info("shutting down: draining requests and jobs", "timeout", f.shutdownTimeout.String())
	handler.Drain()
	sctx, cancel := context.WithTimeout(context.Background(), f.shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		log.Warn("shutdown", "err", err)
	}
	if runner != nil {
		runner.Stop()
	}
	log.Info("stopped")
	return nil
}

// scaleRateLimits sets the per-organization and per-client-address limits
// that were not given to multiples of the per-key limit: an organization
// may use two keys' worth, an address (several clients behind one NAT)
// five.
func (f *serveFlags) scaleRateLimits(fs *pflag.FlagSet) {
	scale := func(name string, v *float64, n float64) {
		if !fs.Changed(name) {
			*v = n * f.rateLimit
		}
	}
	scaleInt := func(name string, v *int, n int) {
		if !fs.Changed(name) {
			*v = n * f.rateBurst
		}
	}
	scale("org-rate-limit", &f.orgRateLimit, 2)
	scaleInt("org-rate-burst", &f.orgRateBurst, 2)
	scale("client-rate-limit", &f.clientRateLimit, 5)
	scaleInt("client-rate-burst", &f.clientRateBurst, 5)
}

// metricsServer serves --metrics-addr, a listener for the operator's
// network only: /metrics, and /tls-allowed, which a reverse proxy that
// orders certificates on demand asks before it orders one.
func metricsServer(reg *prometheus.Registry, log *slog.Logger, certAllowed http.Handler) *http.Server {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", httpapi.MetricsHandler(reg))
	mux.Handle("GET /tls-allowed", certAllowed)
	return &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
}

// oidcFlags are the dashboard's single sign-on settings.
type oidcFlags struct {
	issuer, clientID, secretFile string
}

func (o *oidcFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&o.issuer, "oidc-issuer", "", "issuer URL of an OpenID Connect provider for the dashboard's \"Sign in with single sign-on\" (https://; default none)")
	fs.StringVar(&o.clientID, "oidc-client-id", "", "the dashboard's client id at the --oidc-issuer provider")
	fs.StringVar(&o.secretFile, "oidc-client-secret-file", "", "file holding the client secret of --oidc-client-id (one line; keep it private: chmod 600)")
}

// config checks the single sign-on settings and reads the client secret;
// nil when --oidc-issuer is not set. The provider is not contacted here:
// the dashboard discovers it on the first sign-in, so the server starts
// while the provider is down.
func (o *oidcFlags) config(publicURL string, log *slog.Logger) (*dashboard.OIDCConfig, error) {
	if o.issuer == "" {
		if o.clientID != "" || o.secretFile != "" {
			return nil, fmt.Errorf("--oidc-client-id and --oidc-client-secret-file need --oidc-issuer (LECTERN_OIDC_ISSUER)")
		}
		return nil, nil
	}
	u, err := url.Parse(o.issuer)
	local := err == nil && (u.Hostname() == "localhost" || net.ParseIP(u.Hostname()).IsLoopback())
	if err != nil || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" || !(u.Scheme == "https" || (u.Scheme == "http" && local)) {
		return nil, fmt.Errorf("--oidc-issuer %s: give the provider's issuer URL, https:// (http:// only on localhost), without user, query or fragment",
			lectern.RedactURL(o.issuer))
	}
	if o.clientID == "" {
		return nil, fmt.Errorf("--oidc-issuer needs --oidc-client-id (LECTERN_OIDC_CLIENT_ID): the dashboard's client id at the provider")
	}
	if o.secretFile == "" {
		return nil, fmt.Errorf("--oidc-issuer needs --oidc-client-secret-file (LECTERN_OIDC_CLIENT_SECRET_FILE): a file holding the client's secret")
	}
	secret, err := readSecretFile("--oidc-client-secret-file", o.secretFile)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(o.secretFile); err == nil && fi.Mode().Perm()&0o044 != 0 {
		log.Warn("the OIDC client secret file can be read by other users than its owner; make it private",
			"file", o.secretFile, "mode", fmt.Sprintf("%04o", fi.Mode().Perm()), "fix", "chmod 600 "+o.secretFile)
	}
	log.Info("dashboard: single sign-on", "issuer", o.issuer, "client_id", o.clientID,
		"redirect_url", strings.TrimRight(publicURL, "/")+dashboard.Prefix+"oidc/callback")
	return &dashboard.OIDCConfig{Issuer: o.issuer, ClientID: o.clientID, ClientSecret: secret}, nil
}
