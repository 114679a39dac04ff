package cli

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"lectern.dev/lectern"
	"lectern.dev/lectern/bundle"
	"lectern.dev/lectern/selfhost"
)

type selfhostFlags struct {
	config          string
	addr            string
	cacheDir        string
	check           bool
	logFormat       string
	logLevel        string
	maxBundleSize   int64
	watchInterval   time.Duration
	shutdownTimeout time.Duration
}

func selfhostCmd(e *env) *cobra.Command {
	f := &selfhostFlags{}
	cmd := &cobra.Command{
		Use:   "selfhost",
		Short: "Serve an exported bundle as a client-hosted or air-gapped documentation site",
		Long: `Download the static export bundle named by the configuration, verify it,
keep it in a local cache by version, and serve it as the live site with the
features the deployment type and configuration allow. SIGHUP, or a change
of the configuration file, re-applies the configuration without dropping a
request; a failure keeps the current site serving.

The configuration is YAML (see docs/selfhost.md):

  deployment: {type: client-hosted}      # or air-gapped
  staticExport: {enabled: true, bundleUrl: "https://...", version: "..."}
  features: {search: true, assistant: false, analytics: false, playground: true}

With features.analytics and no analytics.endpoint, selfhost records the
pages' events itself, in CACHE/analytics.db, and serves the analytics
reports (GET /v1/analytics/{projectId}/views, ...) to the key in the file
analytics.apiKeyFile (make one with "lectern selfhost keygen").

Each configuration key has an environment variable (staticExport.bundleUrl
is LECTERN_STATIC_EXPORT_BUNDLE_URL), which wins over the file; each flag
too (--cache-dir is LECTERN_CACHE_DIR). Nothing is ever requested from any
host other than the bundle link's.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := envFlags(cmd.Flags(), e.getenv); err != nil {
				return err
			}
			return f.run(cmd.Context(), e)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.config, "config", "", "YAML configuration file (watched for changes)")
	fs.StringVar(&f.addr, "addr", "127.0.0.1:8090", "address to listen on")
	fs.StringVar(&f.cacheDir, "cache-dir", "./lectern-cache", "folder for downloaded bundles, verified bundles by version and the served tree")
	fs.BoolVar(&f.check, "check", false, "validate the configuration, print the effective settings and exit")
	fs.StringVar(&f.logFormat, "log-format", "text", "log format: text or json")
	fs.StringVar(&f.logLevel, "log-level", "info", "log level: debug, info, warn or error")
	fs.Int64Var(&f.maxBundleSize, "max-bundle-size", 2<<30, "largest bundle accepted, in bytes, compressed and uncompressed")
	fs.DurationVar(&f.watchInterval, "watch-interval", 2*time.Second, "how often the configuration file is checked for changes (0 disables)")
	fs.DurationVar(&f.shutdownTimeout, "shutdown-timeout", 30*time.Second, "how long a graceful stop waits for requests in flight")
	cmd.AddCommand(selfhostKeygenCmd(e))
	return cmd
}

// selfhostKeygenCmd is lectern selfhost keygen: a new key for the read API
// of selfhost's own analytics.
func selfhostKeygenCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "keygen",
		Short: "Print a new key for the analytics read API of lectern selfhost",
		Long: `Print a new random API key (lct_...) on standard output, for the read API of
lectern selfhost's own web analytics: put it in the file named by
analytics.apiKeyFile (readable by selfhost alone), or in
LECTERN_ANALYTICS_API_KEY, and send it as "Authorization: Bearer KEY".`,
		Example: `  (umask 077; lectern selfhost keygen > /etc/lectern/analytics-key)`,
		Args:    cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			_, err := fmt.Fprintln(e.stdout, lectern.NewAPIKey())
			return err
		},
	}
}

func (f *selfhostFlags) run(ctx context.Context, e *env) error {
	cfg, err := selfhost.LoadConfig(f.config, e.getenv)
	if err != nil {
		if f.config == "" {
			return fmt.Errorf("%w (give the configuration file with --config, or the settings as LECTERN_* variables)", err)
		}
		return err
	}
	if f.check {
		fmt.Fprintf(e.stdout, "configuration %s is valid\n", selfhost.ConfigOrigin(f.config))
		if err := cfg.Describe(e.stdout, time.Now()); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "%-24s %s\n%-24s %s\n", "addr", f.addr, "cache-dir", f.cacheDir)
		if cfg.OwnAnalytics() {
			id, err := selfhost.AnalyticsProjectID(ctx, f.cacheDir)
			switch {
			case err != nil:
				id = "unknown: " + err.Error()
			case id == "":
				id = "none yet: created at the first start"
			}
			fmt.Fprintf(e.stdout, "%-24s %s\n", "analytics.project", id)
		}
		return nil
	}
	return f.serve(ctx, e, cfg)
}

// serve runs the self-hosted site until ctx ends: listen, load the
// configured bundle, serve, re-apply on SIGHUP or a change of the file.
func (f *selfhostFlags) serve(ctx context.Context, e *env, cfg *selfhost.Config) error {
	log, err := newLogger(e.stderr, f.logFormat, f.logLevel)
	if err != nil {
		return err
	}
	if f.maxBundleSize <= 0 {
		return fmt.Errorf("--max-bundle-size must be positive")
	}
	fetcher := &selfhost.Fetcher{Client: &http.Client{}, MaxSize: f.maxBundleSize, Log: log}
	cache, err := selfhost.OpenCache(f.cacheDir, fetcher, bundle.Limits{MaxTotal: f.maxBundleSize})
	if err != nil {
		return err
	}
	defer cache.Close()
	tightenFolder(f.cacheDir, log)
	handler := selfhost.NewHandler(log)
	rt, err := selfhost.NewRuntime(log, cache, handler, f.config, e.getenv)
	if err != nil {
		return err
	}
	// Once the server stopped: the analytics' queued events are recorded.
	defer func() {
		if err := rt.Close(); err != nil {
			log.Warn("closing the analytics database", "err", err)
		}
	}()
	rt.WatchInterval = f.watchInterval
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", f.addr, err)
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute,
		WriteTimeout: 10 * time.Minute, IdleTimeout: 2 * time.Minute, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	shutdown := func() {
		sctx, cancel := context.WithTimeout(context.Background(), f.shutdownTimeout)
		defer cancel()
		if err := srv.Shutdown(sctx); err != nil {
			log.Warn("shutdown", "err", err)
		}
	}
	log.Info("lectern selfhost listening", "addr", ln.Addr().String(), "config", selfhost.ConfigOrigin(f.config), "deployment", string(cfg.Type),
		"cache_dir", cache.Dir(), "pid", os.Getpid())

	// SIGHUP re-applies the configuration; one that comes during the
	// first load is kept for after it.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	if err := rt.Apply(ctx, cfg); err != nil {
		shutdown()
		return err
	}
	rt.Start(ctx)
	defer rt.Stop()
	for ctx.Err() == nil {
		select {
		case err := <-serveErr:
			return fmt.Errorf("server stopped: %w", err)
		case <-hup:
			rt.Reload()
		case <-ctx.Done():
		}
	}
	log.Info("shutting down: draining requests", "timeout", f.shutdownTimeout.String())
	rt.Stop()
	shutdown()
	log.Info("stopped")
	return nil
}
