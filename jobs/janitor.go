package jobs

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"gocloud.dev/blob"

	"lectern.dev/lectern"
	"lectern.dev/lectern/blobstore"
	"lectern.dev/lectern/store"
)

// Janitor collects what has outlived its retention: export jobs and their
// archives, old deployments of each project (never the live one), the
// files of deployments that were never recorded (an update attempt whose
// worker died while publishing), expired idempotency records, webhook
// deliveries that ended over Retention ago, the assistant's questions
// asked over AssistantRetention ago, analytics events and aggregates past
// their retention, expired dashboard sessions, and the
// files and records of deleted projects and organizations. Every step is
// idempotent, so several processes may run janitors at once.
type Janitor struct {
	Log    *slog.Logger
	Store  store.Store
	Bucket *blob.Bucket
	// Retention is how long export jobs and their files, and webhook
	// deliveries that ended, are kept; default 30 days.
	Retention time.Duration
	// AnalyticsRetention is how long raw analytics events are kept
	// (default 30 days), AnalyticsAggregateRetention their daily
	// aggregates (default two years).
	AnalyticsRetention, AnalyticsAggregateRetention time.Duration
	// AssistantRetention is how long the assistant's questions and
	// answers are kept (for analytics); default 90 days.
	AssistantRetention time.Duration
	// KeepDeployments is how many deployments per project are kept besides
	// the live one; default 3. Only those older than an hour are collected.
	KeepDeployments int
	// Interval between runs; default 10 minutes.
	Interval time.Duration
	// DeletedGrace is how long a deleted project's files are left before
	// they are collected with its records; default an hour, far longer
	// than a worker that lost its job to the deletion takes to stop.
	DeletedGrace time.Duration
	// ObjectAge is how old a stored file of a project (shared by its
	// deployments) that no recorded deployment names must be before it
	// is collected; default an hour.
	ObjectAge time.Duration

	stopOnce sync.Once
	cancel   context.CancelFunc
	done     chan struct{}
}

// settings returns the janitor's settings with defaults for zero values.
func (j *Janitor) settings() (retention time.Duration, keep int, interval time.Duration) {
	retention, keep, interval = j.Retention, j.KeepDeployments, j.Interval
	if retention <= 0 {
		retention = 30 * 24 * time.Hour
	}
	if keep <= 0 {
		keep = 3
	}
	if interval <= 0 {
		interval = 10 * time.Minute
	}
	return retention, keep, interval
}

// Start runs the janitor in the background until Stop or ctx ends.
func (j *Janitor) Start(ctx context.Context) error {
	_, _, interval := j.settings()
	ctx, j.cancel = context.WithCancel(ctx)
	j.done = make(chan struct{})
	go func() {
		defer close(j.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			if err := j.RunOnce(ctx); err != nil && ctx.Err() == nil {
				j.Log.Warn("cleanup incomplete; will retry", "err", err)
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return nil
}

// Stop stops the janitor and waits for a run in progress. Idempotent.
func (j *Janitor) Stop() {
	j.stopOnce.Do(func() {
		if j.cancel != nil {
			j.cancel()
			<-j.done
		}
	})
}

// RunOnce does one pass. It returns the first error but attempts every step.
func (j *Janitor) RunOnce(ctx context.Context) error {
	var first error
	keep := func(err error) {
		if err != nil && first == nil {
			first = err
		}
	}
	retention, keepDeployments, _ := j.settings()
	now := time.Now()
	for {
		old, err := j.Store.ListExportsBefore(ctx, now.Add(-retention), 100)
		if err != nil {
			keep(err)
			break
		}
		for _, e := range old {
			// Files first: a record without files is harmless, files without a record are lost track of.
			if err := blobstore.DeletePrefix(ctx, j.Bucket, blobstore.ExportPrefix(e.ID)); err != nil {
				keep(err)
				continue
			}
			keep(j.Store.DeleteExport(ctx, e.ID))
			j.Log.Info("collected export", "job", e.ID)
		}
		if len(old) < 100 || first != nil {
			break
		}
	}
	_, err := j.Store.PruneIdempotency(ctx, now.Add(-24*time.Hour))
	keep(err)
	// Webhook deliveries that ended are kept as long as export jobs.
	for {
		n, err := j.Store.PruneDeliveries(ctx, now.Add(-retention), 1000)
		keep(err)
		if err != nil || n < 1000 {
			break
		}
	}
	asked := j.AssistantRetention
	if asked <= 0 {
		asked = 90 * 24 * time.Hour
	}
	for {
		n, err := j.Store.PruneAssistantMessages(ctx, now.Add(-asked), 1000)
		keep(err)
		if err != nil || n < 1000 {
			break
		}
	}
	raw, agg := j.AnalyticsRetention, j.AnalyticsAggregateRetention
	if raw <= 0 {
		raw = 30 * 24 * time.Hour
	}
	if agg <= 0 {
		agg = 2 * 365 * 24 * time.Hour
	}
	for {
		n, err := j.Store.PruneAnalytics(ctx, now.Add(-raw), now.Add(-agg), 1000)
		keep(err)
		if err != nil || n == 0 {
			break
		}
	}
	// Dashboard sessions past their expiry.
	_, err = j.Store.PruneSessions(ctx, now)
	keep(err)
	keep(j.collectDeleted(ctx, now))
	projects, err := j.Store.ListProjects(ctx, "", store.Page{})
	keep(err)
	for _, p := range projects {
		deps, err := j.Store.ListDeployments(ctx, p.ID, store.Page{})
		if err != nil {
			keep(err)
			continue
		}
		keep(j.collectOrphans(ctx, p.ID, deps, now))
		kept, collected := 0, 0
		for _, d := range deps {
			if d.ID == p.LiveDeploymentID {
				continue
			}
			if kept < keepDeployments || now.Sub(d.CreatedAt) < time.Hour {
				kept++
				continue
			}
			// The record first, unlike exports: once it is gone the
			// deployment cannot be promoted, so no request is served from
			// files being deleted; DeleteDeployment refuses one promoted
			// meanwhile. Files a failed delete leaves behind have no record
			// and go with the orphans.
			if err := j.Store.DeleteDeployment(ctx, d.ID); err != nil {
				if lectern.ErrorCode(err) != lectern.ECONFLICT {
					keep(err)
				}
				continue
			}
			keep(blobstore.DeletePrefix(ctx, j.Bucket, blobstore.SitePrefix(p.ID, d.ID)))
			j.Log.Info("collected deployment", "project", p.ID, "deployment", d.ID)
			collected++
		}
		// The stored files only collected deployments named go with
		// them; a pass that collected none of the project's leaves them.
		if collected > 0 {
			n, err := j.sweepObjects(ctx, p.ID, now)
			keep(err)
			if n > 0 {
				j.Log.Info("collected stored files no deployment names", "project", p.ID, "files", n)
			}
		}
	}
	return first
}

// collectDeleted drops the projects deleted more than DeletedGrace ago,
// their files first, then the deleted organizations no project names.
func (j *Janitor) collectDeleted(ctx context.Context, now time.Time) error {
	grace := j.DeletedGrace
	if grace <= 0 {
		grace = time.Hour
	}
	var first error
	keep := func(err error) {
		if err != nil && first == nil {
			first = err
		}
	}
	for {
		dead, err := j.Store.ListDeletedProjects(ctx, now.Add(-grace), 100)
		if err != nil {
			return err
		}
		for _, p := range dead {
			if err := blobstore.DeletePrefix(ctx, j.Bucket, blobstore.ProjectPrefix(p.ID)); err != nil {
				keep(err)
				continue
			}
			if err := j.Store.PurgeProject(ctx, p.ID); err != nil {
				if lectern.ErrorCode(err) != lectern.ENOTFOUND { // another janitor's
					keep(err)
				}
				continue
			}
			j.Log.Info("collected deleted project", "project", p.ID)
		}
		if len(dead) < 100 || first != nil {
			break
		}
	}
	orgs, err := j.Store.ListDeletedOrgs(ctx, now, 100)
	keep(err)
	for _, o := range orgs {
		if err := j.Store.PurgeOrg(ctx, o.ID); err != nil {
			if c := lectern.ErrorCode(err); c != lectern.ENOTFOUND && c != lectern.ECONFLICT { // another janitor's; a project since
				keep(err)
			}
			continue
		}
		j.Log.Info("collected deleted organization", "org", o.ID)
	}
	return first
}

// orphanAge is how old the files of a deployment that no record names
// must be before they are collected: far longer than any publish takes, so
// files being uploaded right now are never touched.
const orphanAge = 24 * time.Hour

// collectOrphans deletes the files of the project's deployments that no
// record names (deps are the recorded ones) and whose ID says they were
// started more than orphanAge ago.
func (j *Janitor) collectOrphans(ctx context.Context, projectID string, deps []*lectern.Deployment, now time.Time) error {
	recorded := map[string]bool{}
	for _, d := range deps {
		recorded[d.ID] = true
	}
	prefix := blobstore.ProjectPrefix(projectID)
	it := j.Bucket.List(&blob.ListOptions{Prefix: prefix, Delimiter: "/"})
	var first error
	for {
		obj, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			return first
		}
		if err != nil {
			return err
		}
		id := strings.TrimSuffix(strings.TrimPrefix(obj.Key, prefix), "/")
		started, ok := lectern.IDTime(lectern.PrefixDeployment, id)
		if !obj.IsDir || !ok || recorded[id] || now.Sub(started) < orphanAge {
			continue
		}
		if err := blobstore.DeletePrefix(ctx, j.Bucket, blobstore.SitePrefix(projectID, id)); err != nil {
			if first == nil {
				first = err
			}
			continue
		}
		j.Log.Info("collected the files of an unrecorded deployment", "project", projectID, "deployment", id)
	}
}
