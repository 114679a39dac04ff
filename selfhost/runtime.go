package selfhost

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/render/features"
)

// Runtime applies configurations: it obtains the configured bundle from
// the cache (downloading it when needed), builds the served tree and
// switches the Handler to it. After Start it re-applies the configuration
// in the background when Reload is called (on SIGHUP) or when the
// configuration file changes, and keeps the current site when anything
// fails.
type Runtime struct {
	log     *slog.Logger
	cache   *Cache
	handler *Handler
	file    string
	getenv  func(string) string
	// WatchInterval is how often the configuration file is checked for
	// changes; 0 disables watching.
	WatchInterval time.Duration

	applyMu sync.Mutex // one apply at a time
	// cfg and entry are the configuration applied last and the cache
	// entry it serves (nil before the first apply); guarded by applyMu.
	cfg      *Config
	entry    *Entry
	sitesDir string
	// analytics is selfhost's own, opened by the first configuration
	// that has it and kept until Close; guarded by applyMu.
	analytics *Analytics
	seq       atomic.Int64

	reload   chan struct{}
	stopOnce sync.Once
	cancel   context.CancelFunc
	done     chan struct{}
}

// NewRuntime returns a Runtime serving through h from cache c, reading the
// configuration again from file and getenv on re-apply. It removes the
// served trees an earlier process left in the cache folder.
func NewRuntime(log *slog.Logger, c *Cache, h *Handler, file string, getenv func(string) string) (*Runtime, error) {
	dir := filepath.Join(c.Dir(), "sites")
	if err := os.RemoveAll(dir); err != nil {
		return nil, fmt.Errorf("cache folder: %w", err)
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("cache folder: %w", err)
	}
	return &Runtime{log: log, cache: c, handler: h, file: file, getenv: getenv, sitesDir: dir,
		reload: make(chan struct{}, 1), done: make(chan struct{})}, nil
}

// SiteFeatures returns the features of the pages for c.
func (c *Config) SiteFeatures() features.Site {
	own, ownAnalytics := "", ""
	if c.Features[lectern.FeatureAssistant] && c.AssistantEndpoint == "" {
		own = features.OwnAssistant
	}
	if c.OwnAnalytics() {
		ownAnalytics = features.OwnAnalytics
	}
	return features.Site{
		Search: c.Features[lectern.FeatureSearch], Assistant: c.Features[lectern.FeatureAssistant],
		Analytics: c.Features[lectern.FeatureAnalytics], Playground: c.Features[lectern.FeaturePlayground],
		AssistantURL: c.AssistantEndpoint + own, AnalyticsURL: c.AnalyticsEndpoint + ownAnalytics, PlaygroundOrigins: c.PlaygroundOrigins,
	}
}

// Apply makes cfg the served configuration: it finds the bundle (a pinned
// version already in the cache, or the bundle being served when cfg has
// the served bundle link and version, is used without a download), builds the
// served tree and switches to it. When the download fails (an expired link,
// an HTTP error, the network) and the cache holds the wanted version (the
// pinned one, or else the one served last), that version is served and a
// warning logged. On error the current site, if any, keeps serving; the
// error says what is wrong and, for a failed download, what to do.
func (r *Runtime) Apply(ctx context.Context, cfg *Config) error {
	r.applyMu.Lock()
	defer r.applyMu.Unlock()
	e, err := r.obtain(ctx, cfg)
	if err != nil {
		return err
	}
	var an *Analytics
	if cfg.OwnAnalytics() {
		if an, err = r.openAnalytics(ctx, e); err != nil {
			return err
		}
	}
	f := cfg.SiteFeatures()
	if cur := r.handler.Current(); cur != nil && cur.Version == e.Version && sameFeatures(cur.Features, f) {
		if err := r.configureAnalytics(ctx, an, cfg); err != nil {
			return err
		}
		if cur.assistant.Load() != nil { // the model's settings may have changed
			cur.assistant.Store(cfg.assistantService(r.log))
		}
		r.cfg, r.entry = cfg, e
		r.log.Info("configuration applied: already serving this version with these features", "version", e.Version)
		return nil
	}
	start := time.Now()
	dir := filepath.Join(r.sitesDir, strconv.FormatInt(r.seq.Add(1), 10))
	s, err := BuildSite(ctx, e, f, dir)
	if err != nil {
		return fmt.Errorf("building the site of version %s: %w", e.Version, err)
	}
	s.analytics = an
	if err := s.openTools(e, cfg.assistantService(r.log)); err != nil {
		s.remove()
		return err
	}
	if err := r.configureAnalytics(ctx, an, cfg); err != nil {
		s.remove()
		return err
	}
	old := r.handler.Swap(s)
	r.cfg, r.entry = cfg, e
	if err := r.cache.SetLastServed(e.Version); err != nil {
		r.log.Warn("could not record the served version", "err", err)
	}
	attrs := []any{"version", e.Version, "bundle_created_at", e.Manifest.CreatedAt.Format(time.RFC3339), "pages", e.Manifest.PageCount,
		"deployment", string(cfg.Type), "search", f.Search, "assistant", f.Assistant, "analytics", f.Analytics, "playground", f.Playground,
		"build_ms", time.Since(start).Milliseconds()}
	if old != nil {
		attrs = append(attrs, "previous_version", old.Version)
	}
	if an != nil {
		attrs = append(attrs, "analytics_project", an.ProjectID, "analytics_read_api", cfg.AnalyticsKey != "")
	}
	r.log.Info("serving", attrs...)
	if len(s.UnreachableServers) > 0 {
		r.log.Warn("the \"Try it\" forms offer API servers that the site's Content-Security-Policy does not allow; list those the playground may call in playground.origins",
			"servers", strings.Join(s.UnreachableServers, " "))
	}
	return nil
}

// openAnalytics returns selfhost's own analytics, opening them in the
// cache folder the first time (the project named after e's domain).
func (r *Runtime) openAnalytics(ctx context.Context, e *Entry) (*Analytics, error) {
	if r.analytics != nil {
		return r.analytics, nil
	}
	a, err := OpenAnalytics(ctx, r.log, r.cache.Dir(), e.Manifest.Domain)
	if err != nil {
		return nil, err
	}
	r.analytics = a
	r.log.Info("web analytics: selfhost records the pages' events itself", "db", a.Path, "project", a.ProjectID)
	return a, nil
}

// configureAnalytics gives a (when not nil) cfg's read API key and
// retention.
func (r *Runtime) configureAnalytics(ctx context.Context, a *Analytics, cfg *Config) error {
	if a == nil {
		return nil
	}
	if err := a.SetKey(ctx, cfg.AnalyticsKey); err != nil {
		return err
	}
	a.SetRetention(cfg.AnalyticsRetention, cfg.AnalyticsAggregateRetention)
	return nil
}

// Close ends the runtime: it stops the watching (Stop) and closes
// selfhost's own analytics, recording the events still queued. Call it
// once the server has stopped taking requests.
func (r *Runtime) Close() error {
	r.Stop()
	r.applyMu.Lock()
	defer r.applyMu.Unlock()
	if r.analytics == nil {
		return nil
	}
	return r.analytics.Close()
}

func sameFeatures(a, b features.Site) bool {
	return a.Search == b.Search && a.Assistant == b.Assistant && a.Analytics == b.Analytics && a.Playground == b.Playground &&
		a.AssistantURL == b.AssistantURL && a.AnalyticsURL == b.AnalyticsURL && slices.Equal(a.PlaygroundOrigins, b.PlaygroundOrigins)
}

// obtain returns the cache entry cfg asks for. When cfg has the bundle
// link and version of the configuration applied last, the entry served is
// used again (only the features may differ): an unpinned configuration is
// not downloaded again on every re-apply, nor does its expired link fail.
func (r *Runtime) obtain(ctx context.Context, cfg *Config) (*Entry, error) {
	// A bundle file replaced at the same path is read again.
	cfg.stamp = bundleStamp(cfg.BundleURL)
	if r.cfg != nil && r.cfg.BundleURL == cfg.BundleURL && r.cfg.Version == cfg.Version && r.cfg.stamp == cfg.stamp {
		if e, ok := r.cache.Lookup(r.entry.Version); ok {
			r.log.Info("same bundle link and version as the served configuration; not downloading it again", "version", e.Version)
			return e, nil
		}
	}
	if e, ok := r.cache.Lookup(cfg.Version); ok {
		if exp, known := LinkExpiry(cfg.BundleURL); known && time.Now().After(exp) {
			r.log.Warn("the bundle link has expired; serving the pinned version from the cache", "version", e.Version,
				"link_expired_at", exp.Format(time.RFC3339), "link", RedactLink(cfg.BundleURL))
		} else {
			r.log.Info("the pinned version is in the cache; not downloading it again", "version", e.Version)
		}
		return e, nil
	}
	r.log.Info("downloading the bundle", "link", RedactLink(cfg.BundleURL))
	start := time.Now()
	e, err := r.cache.Fetch(ctx, cfg.BundleURL, cfg.Version)
	if err == nil {
		r.log.Info("bundle verified and cached", "version", e.Version, "bytes", e.Size, "files", len(e.Manifest.Files),
			"sha256", e.SHA256, "ms", time.Since(start).Milliseconds())
		return e, nil
	}
	var de *DownloadError
	if !errors.As(err, &de) {
		return nil, err
	}
	want := cfg.Version
	if want == "" {
		want = r.cache.LastServed()
	}
	if e, ok := r.cache.Lookup(want); ok {
		attrs := []any{"version", e.Version, "err", de.Error(), "link", RedactLink(cfg.BundleURL)}
		if exp, known := LinkExpiry(cfg.BundleURL); known {
			attrs = append(attrs, "link_expires_at", exp.Format(time.RFC3339))
		}
		r.log.Warn("the bundle could not be downloaded; serving the cached version: generate a new bundle and re-apply the configuration", attrs...)
		return e, nil
	}
	se := &StartError{Download: de, Version: want}
	return nil, &lectern.Error{Code: lectern.EUNAVAILABLE, Message: se.Error(), Err: se}
}

// StartError is a download failure with no cached version to fall back on.
type StartError struct {
	Download *DownloadError
	// Version is the version looked for in the cache ("" if none).
	Version string
}

func (e *StartError) Error() string {
	cached := "the cache holds no version to serve instead"
	if e.Version != "" {
		cached = fmt.Sprintf("version %s is not in the cache", e.Version)
	}
	return fmt.Sprintf("%s, and %s: generate a new bundle (POST /v1/static-export/jobs/{jobId}/bundle) and re-apply the configuration with its bundleUrl",
		e.Download.Error(), cached)
}

func (e *StartError) Unwrap() error { return e.Download }

// Reload asks the running Runtime to read its configuration again and
// apply it. It never blocks; reloads asked while one runs are merged.
func (r *Runtime) Reload() {
	select {
	case r.reload <- struct{}{}:
	default:
	}
}

// Start watches for Reload and for changes of the configuration file until
// ctx ends or Stop is called. It returns at once.
func (r *Runtime) Start(ctx context.Context) {
	ctx, r.cancel = context.WithCancel(ctx)
	go r.loop(ctx)
}

// Stop ends the watching started by Start and waits for a re-apply in
// progress to end. It is idempotent.
func (r *Runtime) Stop() {
	r.stopOnce.Do(func() {
		if r.cancel == nil {
			close(r.done)
			return
		}
		r.cancel()
		<-r.done
	})
}

func (r *Runtime) loop(ctx context.Context) {
	defer close(r.done)
	var tick <-chan time.Time
	if r.file != "" && r.WatchInterval > 0 {
		t := time.NewTicker(r.WatchInterval)
		defer t.Stop()
		tick = t.C
	}
	last := r.fileStamp()
	for {
		select {
		case <-ctx.Done():
			return
		case <-r.reload:
			r.log.Info("re-applying the configuration (reload asked)")
			last = r.fileStamp()
			r.reapply(ctx)
		case <-tick:
			if st := r.fileStamp(); st != last {
				last = st
				r.log.Info("re-applying the configuration (its file changed)", "file", r.file)
				r.reapply(ctx)
			}
		}
	}
}

// fileStamp identifies the configuration file's content.
func (r *Runtime) fileStamp() [sha256.Size]byte {
	if r.file == "" {
		return [sha256.Size]byte{}
	}
	data, err := os.ReadFile(r.file)
	if err != nil {
		return sha256.Sum256([]byte("unreadable: " + err.Error()))
	}
	return sha256.Sum256(data)
}

// reapply reads and applies the configuration, logging any failure.
func (r *Runtime) reapply(ctx context.Context) {
	keep := "nothing"
	if cur := r.handler.Current(); cur != nil {
		keep = "version " + cur.Version
	}
	cfg, err := LoadConfig(r.file, r.getenv)
	if err != nil {
		r.log.Error("configuration not applied; still serving "+keep, "err", err.Error())
		return
	}
	if err := r.Apply(ctx, cfg); err != nil {
		if ctx.Err() != nil {
			return
		}
		r.log.Error("configuration not applied; still serving "+keep, "err", err.Error())
	}
}
