package selfhost

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"lectern.dev/lectern"
	"lectern.dev/lectern/beacon"
	"lectern.dev/lectern/httpapi"
	"lectern.dev/lectern/store"
	"lectern.dev/lectern/store/sqlite"
)

// AnalyticsDB is the file, in the cache folder, where selfhost keeps its
// own web analytics (SQLite, with its -wal and -shm files).
const AnalyticsDB = "analytics.db"

// analyticsOrg names the organization selfhost records its analytics
// under, in its own database: one organization, one project (the site).
const analyticsOrg = "selfhost"

// assistantRetention is how long selfhost keeps its own assistant's
// questions, as lectern serve's --assistant-retention.
const assistantRetention = 90 * 24 * time.Hour

// pruneEvery is how often selfhost prunes its analytics.
const pruneEvery = 24 * time.Hour

// Analytics is selfhost's own web analytics, for a client-hosted site
// with features.analytics and no analytics.endpoint: the pages' events
// (POST /_lectern/analytics) and the own assistant's questions, recorded
// in a SQLite file of the cache folder by the collector of package
// beacon, read through the Lectern API's analytics reports (GET
// /v1/analytics/{projectId}/...) with the configured key. It runs from
// OpenAnalytics to Close.
type Analytics struct {
	// ProjectID names the site in the read API; it is the same across
	// restarts.
	ProjectID string
	// Path is the database file.
	Path string

	log   *slog.Logger
	st    *sqlite.Store
	orgID string
	c     *beacon.Collector
	api   http.Handler

	keyMu  sync.Mutex // one SetKey at a time
	keyed  atomic.Bool
	closed atomic.Bool
	// retention holds the raw events' and the daily totals' retention.
	retention atomic.Pointer[[2]time.Duration]

	cancel    context.CancelFunc
	done      chan struct{}
	closeOnce sync.Once
}

// OpenAnalytics opens (creating it, 0600) the analytics database in dir,
// the cache folder, finds or creates its organization and its project
// (named name, at creation only), and starts recording: the collector and
// a daily prune run until Close.
func OpenAnalytics(ctx context.Context, log *slog.Logger, dir, name string) (*Analytics, error) {
	path := filepath.Join(dir, AnalyticsDB)
	if err := privateFiles(path); err != nil {
		return nil, fmt.Errorf("analytics database: %w", err)
	}
	st, err := sqlite.Open(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("analytics database: %w", err)
	}
	orgID, projectID, err := analyticsProject(ctx, st, name, true)
	if err != nil {
		st.Close()
		return nil, fmt.Errorf("analytics database %s: %w", path, err)
	}
	if err := privateFiles(path); err != nil { // the -wal and -shm files SQLite made
		st.Close()
		return nil, fmt.Errorf("analytics database: %w", err)
	}
	reg := prometheus.NewRegistry()
	a := &Analytics{ProjectID: projectID, Path: path, log: log, st: st, orgID: orgID, c: beacon.NewCollector(log, st, beacon.QueueSize),
		api: httpapi.NewHandler(log, st, nil, nil, nil, nil, reg, reg, httpapi.Config{NoMetrics: true,
			RateLimit: httpapi.RateLimit{Rate: 20}, ClientRateLimit: httpapi.RateLimit{Rate: 20}}),
		done: make(chan struct{})}
	a.SetRetention(defaultRetention, defaultAggregates)
	runCtx, cancel := context.WithCancel(context.Background())
	a.cancel = cancel
	go a.run(runCtx)
	return a, nil
}

// privateFiles creates the database file path for its owner alone, or
// makes it and its -wal and -shm files so.
func privateFiles(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	f.Close()
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if err := os.Chmod(p, 0o600); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// analyticsProject returns the organization and project of selfhost's
// analytics in st: the oldest of that name, and its oldest project. With
// create, missing ones are created (the project named name, or "docs");
// without, "" is returned for them.
func analyticsProject(ctx context.Context, st *sqlite.Store, name string, create bool) (orgID, projectID string, err error) {
	orgs, err := st.ListOrgs(ctx)
	if err != nil {
		return "", "", err
	}
	for _, o := range orgs { // oldest first
		if o.Name == analyticsOrg {
			orgID = o.ID
			break
		}
	}
	if orgID == "" {
		if !create {
			return "", "", nil
		}
		o := &lectern.Organization{Name: analyticsOrg, Plan: lectern.PlanEnterprise}
		if err := st.CreateOrg(ctx, o); err != nil {
			return "", "", err
		}
		orgID = o.ID
	}
	projects, err := st.ListProjects(ctx, orgID, store.Page{})
	if err != nil {
		return "", "", err
	}
	if n := len(projects); n > 0 { // newest first
		return orgID, projects[n-1].ID, nil
	}
	if !create {
		return orgID, "", nil
	}
	if name == "" {
		name = "docs"
	}
	p := &lectern.Project{OrgID: orgID, Name: name, DocsRoot: "/", DeploymentType: lectern.DeploymentClientHosted}
	if err := st.CreateProject(ctx, p); err != nil {
		return "", "", err
	}
	return orgID, p.ID, nil
}

// AnalyticsProjectID returns the project of the analytics database in the
// cache folder dir, "" when there is none yet. It creates nothing.
func AnalyticsProjectID(ctx context.Context, dir string) (string, error) {
	path := filepath.Join(dir, AnalyticsDB)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	st, err := sqlite.Open(ctx, path)
	if err != nil {
		return "", err
	}
	defer st.Close()
	_, id, err := analyticsProject(ctx, st, "", false)
	return id, err
}

// SetKey makes key (a Lectern API key) the only key of the read API, and
// revokes any other; "" turns the read API off (404), keeping the keys
// as they are so that the same key may be given again. A key once
// replaced stays revoked: giving it again is an error that says so.
func (a *Analytics) SetKey(ctx context.Context, key string) error {
	a.keyMu.Lock()
	defer a.keyMu.Unlock()
	if key == "" {
		a.keyed.Store(false)
		return nil
	}
	hash := lectern.HashAPIKey(key)
	keys, err := a.st.ListAPIKeys(ctx, a.orgID)
	if err != nil {
		return fmt.Errorf("analytics: the read API's key: %w", err)
	}
	found := false
	for _, k := range keys {
		switch same := bytes.Equal(k.Hash, hash); {
		case same && k.RevokedAt != nil:
			return lectern.Errorf(lectern.EINVALID, "the analytics read API's key (analytics.apiKeyFile or "+analyticsKeyEnv+
				") was replaced by another before and is revoked: make a new one with lectern selfhost keygen")
		case same:
			found = true
		case k.RevokedAt == nil:
			if err := a.st.RevokeAPIKey(ctx, k.ID, time.Now()); err != nil {
				return fmt.Errorf("analytics: revoking the previous key: %w", err)
			}
			a.log.Info("analytics: the read API's previous key is revoked", "key", k.Hint)
		}
	}
	if !found {
		k := &lectern.APIKey{OrgID: a.orgID, Name: "analytics read API", Hint: lectern.APIKeyHint(key), Hash: hash}
		if err := a.st.CreateAPIKey(ctx, k); err != nil {
			return fmt.Errorf("analytics: the read API's key: %w", err)
		}
	}
	a.keyed.Store(true)
	return nil
}

// SetRetention sets how long raw events and daily totals are kept, from
// the next prune.
func (a *Analytics) SetRetention(raw, aggregates time.Duration) {
	a.retention.Store(&[2]time.Duration{raw, aggregates})
}

// run records the queued events until ctx ends, then what is left, and
// prunes at once and then daily.
func (a *Analytics) run(ctx context.Context) {
	defer close(a.done)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		a.c.Run(ctx)
	}()
	t := time.NewTicker(pruneEvery)
	defer t.Stop()
	for {
		a.prune(ctx)
		select {
		case <-ctx.Done():
			wg.Wait()
			return
		case <-t.C:
		}
	}
}

// prune drops what outlived its retention: raw events, daily totals and
// the assistant's questions.
func (a *Analytics) prune(ctx context.Context) {
	now := time.Now()
	r := a.retention.Load()
	total := 0
	for ctx.Err() == nil {
		n, err := a.st.PruneAnalytics(ctx, now.Add(-r[0]), now.Add(-r[1]), 1000)
		total += n
		if err != nil {
			a.log.Warn("analytics: pruning old events", "err", err)
			break
		}
		if n == 0 {
			break
		}
	}
	for ctx.Err() == nil {
		n, err := a.st.PruneAssistantMessages(ctx, now.Add(-assistantRetention), 1000)
		total += n
		if err != nil {
			a.log.Warn("analytics: pruning old assistant questions", "err", err)
			break
		}
		if n < 1000 {
			break
		}
	}
	if total > 0 {
		a.log.Info("analytics: pruned old records", "rows", total)
	}
}

// Close stops recording, records the events still queued and closes the
// database. It is idempotent.
func (a *Analytics) Close() error {
	var err error
	a.closeOnce.Do(func() {
		a.closed.Store(true)
		a.cancel()
		<-a.done
		err = a.st.Close()
	})
	return err
}
