package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"gocloud.dev/blob"

	"lectern.dev/lectern"
	"lectern.dev/lectern/blobstore"
	"lectern.dev/lectern/bundle"
	"lectern.dev/lectern/gitsource"
	"lectern.dev/lectern/render"
	"lectern.dev/lectern/store"
)

// maxLogLines bounds the build log kept with an update.
const maxLogLines = 500

// UpdateHandler builds and publishes a project's deployment: fetch the
// deployment branch, render it, store the site and a source snapshot in the
// bucket, then switch the project's live deployment in one transaction.
type UpdateHandler struct {
	Log     *slog.Logger
	Store   store.Store
	Bucket  *blob.Bucket
	Fetcher *gitsource.Fetcher
	TempDir string // where working folders go; "" for the system default
	// PageDelay slows rendering per page; tests use it to stop a worker in
	// the middle of an update. Zero in production.
	PageDelay time.Duration
}

var _ Handler = (*UpdateHandler)(nil)

// buildLog collects an update's log lines; safe for concurrent use.
type buildLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *buildLog) add(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.lines) == maxLogLines {
		l.lines = append(l.lines, "… (log truncated)")
	}
	if len(l.lines) > maxLogLines {
		return
	}
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

func (l *buildLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.lines...)
}

// Run builds the update named by the job.
func (h *UpdateHandler) Run(ctx context.Context, job *store.Job, lease store.Lease) error {
	u, err := h.Store.GetUpdate(ctx, job.ID)
	if err != nil {
		return err
	}
	if u.Status.Terminal() {
		return nil
	}
	if err := h.Store.StartUpdate(ctx, lease, time.Now()); err != nil {
		return err
	}
	p, err := h.Store.GetProject(ctx, u.ProjectID)
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp(h.TempDir, "lectern-update-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)

	log := &buildLog{}
	log.add("Fetching branch %s of %s", p.Branch, gitsource.Redact(p.RepoURL))
	fetcher := *h.Fetcher
	fetcher.Logf = log.add
	srcDir := filepath.Join(work, "repo")
	commit, err := fetcher.Fetch(ctx, p.RepoURL, p.Branch, srcDir)
	if err != nil {
		if retryable(err) && ctx.Err() == nil && job.Attempt < job.MaxAttempts {
			return err
		}
		return h.finishFailed(ctx, lease, nil, log, "Fetching the repository failed: "+lectern.ErrorMessage(err))
	}
	log.add("Fetched commit %s (%s): %s", short(commit.SHA), commit.Ref, firstLine(commit.Message))

	docsDir, err := docsRoot(srcDir, p.DocsRoot)
	if err != nil {
		return h.finishFailed(ctx, lease, &commit, log, err.Error())
	}
	root, err := os.OpenRoot(docsDir)
	if err != nil {
		return h.finishFailed(ctx, lease, &commit, log, fmt.Sprintf("The docs root %q is not a folder of the repository.", p.DocsRoot))
	}
	defer root.Close()
	outDir := filepath.Join(work, "site")
	start := time.Now()
	log.add("Rendering docs from %s", p.DocsRoot)
	// Live sites have search and the playground. The AI assistant and web
	// analytics are left out: lectern serve has no endpoint for them yet.
	live := render.DefaultSiteFeatures()
	opts := render.Options{Features: &live, CustomScripts: p.CustomScripts}
	if h.PageDelay > 0 {
		opts.Progress = func(done, _ int) {
			if done > 0 {
				pause(ctx, h.PageDelay)
			}
		}
	}
	res, err := render.Build(ctx, root.FS(), &render.DirOutput{Dir: outDir}, opts)
	if res != nil {
		for _, w := range res.Warnings {
			log.add("warning: %s", w.String())
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if lectern.ErrorCode(err) == lectern.EINVALID {
			log.add("error: %s", lectern.ErrorMessage(err))
			return h.finishFailed(ctx, lease, &commit, log, "The build failed: "+lectern.ErrorMessage(err))
		}
		return err
	}
	log.add("Rendered %d pages (%d files, %d warnings) in %s", res.Pages, res.Files, len(res.Warnings), time.Since(start).Round(time.Millisecond))

	dep := &lectern.Deployment{ID: lectern.NewID(lectern.PrefixDeployment), ProjectID: p.ID, UpdateID: u.ID, Commit: commit, PageCount: res.Pages}
	n, err := uploadDir(ctx, h.Bucket, outDir, func(name string) string { return blobstore.SiteKey(p.ID, dep.ID, name) })
	if err != nil {
		return fmt.Errorf("publish site: %w", err)
	}
	snap := bundle.Manifest{Version: commit.SHA, JobID: u.ID, Domain: p.ID, CreatedAt: time.Now().UTC(), PageCount: res.Pages}
	if _, err := writeArchive(ctx, h.Bucket, blobstore.SourceKey(p.ID, dep.ID), docsDir, snap); err != nil {
		return fmt.Errorf("store source snapshot: %w", err)
	}
	log.add("Published deployment %s (%d files)", dep.ID, n)
	summary := fmt.Sprintf("Deployed %d pages from %s (%s).", res.Pages, short(commit.SHA), commit.Ref)
	if k := len(res.Warnings); k > 0 {
		summary += fmt.Sprintf(" %d warnings; see logs.", k)
	}
	return h.Store.FinishUpdate(ctx, lease, store.UpdateResult{Status: lectern.UpdateSuccess, Summary: summary,
		Commit: &commit, Logs: log.all(), Deployment: dep, EndedAt: time.Now()})
}

func (h *UpdateHandler) finishFailed(ctx context.Context, lease store.Lease, commit *lectern.Commit, log *buildLog, summary string) error {
	log.add("Update failed; the live site is unchanged.")
	return h.Store.FinishUpdate(ctx, lease, store.UpdateResult{Status: lectern.UpdateFailure, Summary: summary,
		Commit: commit, Logs: log.all(), EndedAt: time.Now()})
}

// Fail records the update as failed.
func (h *UpdateHandler) Fail(ctx context.Context, job *store.Job, lease store.Lease, err error) error {
	log := &buildLog{}
	log.add("error: %s", lectern.ErrorMessage(err))
	h.Log.Error("update failed", "update", job.ID, "err", err)
	return h.finishFailed(ctx, lease, nil, log, "The update failed after "+fmt.Sprint(job.Attempt)+" attempts: "+lectern.ErrorMessage(err))
}

// docsRoot returns the folder of the docs inside the fetched repository.
func docsRoot(repo, docsRoot string) (string, error) {
	clean := path.Clean("/" + strings.TrimSpace(docsRoot))
	dir := filepath.Join(repo, filepath.FromSlash(clean))
	if rel, err := filepath.Rel(repo, dir); err != nil || strings.HasPrefix(rel, "..") {
		return "", errors.New("The docs root leaves the repository.")
	}
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		return "", fmt.Errorf("The docs root %q does not exist in the repository.", docsRoot)
	}
	return dir, nil
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
