package jobs

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"gocloud.dev/blob"

	"lectern.dev/lectern"
	"lectern.dev/lectern/blobstore"
	"lectern.dev/lectern/buildproc"
	"lectern.dev/lectern/bundle"
	"lectern.dev/lectern/render"
	"lectern.dev/lectern/render/features"
	"lectern.dev/lectern/render/limits"
	"lectern.dev/lectern/store"
)

// Progress shares of an export: rendering takes progress to renderShare,
// packaging to 99, and completion sets 100.
const renderShare = 90

// ExportHandler renders a domain's live deployment in export form and
// stores it as one reproducible archive.
type ExportHandler struct {
	Log     *slog.Logger
	Store   store.Store
	Bucket  *blob.Bucket
	TempDir string
	// ProgressEvery is the most often live progress is written; default 250ms.
	ProgressEvery time.Duration
	// Builder renders the site; nil renders in this process
	// (buildproc.Local) without a time limit.
	Builder buildproc.Builder
	// Limits bound what a render may read, expand and write.
	Limits limits.Limits
	// PageDelay slows rendering per page; tests use it to observe a running
	// export. Zero in production.
	PageDelay time.Duration
}

var _ Handler = (*ExportHandler)(nil)

// Run performs the export named by the job.
func (h *ExportHandler) Run(ctx context.Context, job *store.Job, lease store.Lease) error {
	e, err := h.Store.GetExport(ctx, job.ID)
	if err != nil {
		return err
	}
	if e.Status.Terminal() {
		return nil
	}
	if err := h.Store.SetExportProgress(ctx, lease, 0, 0, time.Now()); err != nil {
		return err
	}
	p, err := h.Store.GetProject(ctx, e.ProjectID)
	if err != nil {
		return err
	}
	if p.LiveDeploymentID == "" {
		return h.fail(ctx, lease, "no_live_deployment",
			fmt.Sprintf("%s has no live deployment yet: trigger an update of project %s, wait for it to succeed, then export again.", e.Domain, p.ID))
	}
	dep, err := h.Store.GetDeployment(ctx, p.LiveDeploymentID)
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp(h.TempDir, "lectern-export-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	srcDir, outDir := filepath.Join(work, "src"), filepath.Join(work, "site")
	if err := os.Mkdir(srcDir, 0o755); err != nil {
		return err
	}
	// The snapshot stored file by file, or, for a deployment published
	// before those, as one archive.
	list, err := readSourceList(ctx, h.Bucket, p.ID, dep.ID)
	switch {
	case err != nil:
		return fmt.Errorf("read the source of deployment %s: %w", dep.ID, err)
	case list != nil:
		err = writeSource(ctx, h.Bucket, p.ID, list, srcDir)
	default:
		_, err = extractArchive(ctx, h.Bucket, blobstore.SourceKey(p.ID, dep.ID), srcDir)
	}
	if err != nil {
		return fmt.Errorf("read the source of deployment %s: %w", dep.ID, err)
	}
	pr := &progress{h: h, ctx: ctx, lease: lease}
	// Every optional feature is rendered, marked: the self-hosted runtime
	// keeps those its configuration turns on (features.Site.Transform)
	// and writes their endpoints.
	all := features.All()
	opts := render.Options{Export: true, BasePath: e.BasePath, SiteURL: "https://" + e.Domain + e.BasePath, Features: &all, Limits: h.Limits,
		CustomScripts: p.CustomScripts}
	res, err := builder(h.Builder).Build(ctx, buildproc.Request{Src: srcDir, Out: outDir, Options: opts, PageDelay: h.PageDelay, Nice: renderNice(job)}, pr.report)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if lectern.ErrorCode(err) == lectern.EINVALID {
			return h.fail(ctx, lease, "build_failed", "Rendering the site failed: "+lectern.ErrorMessage(err)+limitHint(err))
		}
		return err
	}
	if err := pr.err(); err != nil {
		return err
	}
	if err := h.Store.SetExportProgress(ctx, lease, renderShare+5, res.Pages, time.Now()); err != nil {
		return err
	}
	name := bundle.FileName(e.Domain, e.CreatedAt)
	key := blobstore.BundleKey(e.ID, lease.Token, name)
	m := bundle.Manifest{Version: short(dep.Commit.SHA) + "-" + e.ID, JobID: e.ID, Domain: e.Domain, CreatedAt: e.CreatedAt, PageCount: res.Pages}
	br, err := writeArchive(ctx, h.Bucket, key, outDir, m)
	if err != nil {
		return fmt.Errorf("write bundle: %w", err)
	}
	err = h.Store.FinishExport(ctx, lease, store.ExportResult{Status: lectern.ExportCompleted, PageCount: res.Pages, At: time.Now(),
		Bundle: &lectern.Bundle{Key: key, FileName: name, SizeBytes: br.Size, SHA256: br.SHA256, Version: m.Version}})
	if lectern.ErrorCode(err) == lectern.ECONFLICT {
		// Canceled (or taken over) while the archive was written: this
		// attempt's archive, under its own lease token, is nobody's.
		if derr := h.Bucket.Delete(context.WithoutCancel(ctx), key); derr != nil {
			h.Log.Warn("could not delete the archive of a canceled export; the janitor collects it with the job", "job", e.ID, "err", derr)
		}
	}
	return err
}

func (h *ExportHandler) fail(ctx context.Context, lease store.Lease, code, msg string) error {
	return h.Store.FinishExport(ctx, lease, store.ExportResult{Status: lectern.ExportFailed, At: time.Now(),
		Error: &lectern.JobError{Code: code, Message: lectern.Truncate(msg, maxSummary)}})
}

// Fail records the export as failed.
func (h *ExportHandler) Fail(ctx context.Context, job *store.Job, lease store.Lease, err error) error {
	h.Log.Error("export failed", "job", job.ID, "err", err)
	code := lectern.ErrorCode(err)
	msg := lectern.ErrorMessage(err)
	if code == lectern.EINTERNAL {
		msg = fmt.Sprintf("The export failed after %d attempts because of an internal error; see the server log for job %s.", job.Attempt, job.ID)
	}
	return h.fail(ctx, lease, code, msg)
}

// progress persists render progress, at most every ProgressEvery.
type progress struct {
	h     *ExportHandler
	ctx   context.Context
	lease store.Lease
	mu    sync.Mutex
	last  time.Time
	first error
}

func (p *progress) report(done, total int) {
	every := p.h.ProgressEvery
	if every <= 0 {
		every = 250 * time.Millisecond
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if done != total && time.Since(p.last) < every {
		return
	}
	p.last = time.Now()
	pct := 0
	if total > 0 {
		pct = done * renderShare / total
	}
	if err := p.h.Store.SetExportProgress(p.ctx, p.lease, pct, done, time.Now()); err != nil && p.first == nil {
		p.first = err
	}
}

func (p *progress) err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.first
}
