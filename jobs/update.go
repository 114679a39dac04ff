package jobs

import (
	"cmp"
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/dustin/go-humanize"
	"gocloud.dev/blob"

	"lectern.dev/lectern"
	"lectern.dev/lectern/buildproc"
	"lectern.dev/lectern/gitsource"
	"lectern.dev/lectern/render"
	"lectern.dev/lectern/render/features"
	"lectern.dev/lectern/render/limits"
	"lectern.dev/lectern/secrets"
	"lectern.dev/lectern/store"
)

// maxLogLines bounds the build log kept with an update, maxLogLine each
// of its lines and maxSummary the summary: all may quote the repository
// (warnings, errors), which must not grow the update's record.
const (
	maxLogLines = 500
	maxLogLine  = 2 << 10
	maxSummary  = 4 << 10
)

// UpdateHandler builds and publishes a project's deployment: fetch the
// deployment branch, render it, store the site and a source snapshot in the
// bucket, then switch the project's live deployment in one transaction.
type UpdateHandler struct {
	Log     *slog.Logger
	Store   store.Store
	Bucket  *blob.Bucket
	Fetcher *gitsource.Fetcher
	TempDir string // where working folders go; "" for the system default
	// Builder renders the docs; nil renders in this process
	// (buildproc.Local) without a time limit.
	Builder buildproc.Builder
	// Limits bound what a render may read, expand and write.
	Limits limits.Limits
	// PageDelay slows rendering per page; tests use it to stop a worker in
	// the middle of an update. Zero in production.
	PageDelay time.Duration
	// SecretKey opens projects' repository credentials.
	SecretKey *secrets.Key
	// EmbedHosts are the hosts whose iframes live pages show
	// (features.Site.EmbedHosts); nil for none.
	EmbedHosts []string
	// CacheDir, when set, is where this worker keeps each project's last
	// build (projectCache), so that the next update renders only the
	// pages that changed; CacheMax bounds them together (0:
	// DefaultBuildCacheMax). "" builds every update from nothing.
	CacheDir string
	CacheMax int64
}

// busyOrgNice is how much lower the CPU priority of a render is when its
// organization has a backlog: other jobs running or queued when it was
// claimed (store.Job.OrgRunning, OrgQueued). On a machine whose workers
// outnumber its cores, a backlog's renders then yield the CPU to the
// render of an organization's one update, not only the workers (a nice
// value of 10 weighs about a ninth of the default's with Linux's
// scheduler); alone, they take the whole machine as before.
const busyOrgNice = 10

// renderNice is the nice value of job's render (buildproc.Request.Nice).
func renderNice(job *store.Job) int {
	if job.OrgRunning > 0 || job.OrgQueued {
		return busyOrgNice
	}
	return 0
}

// builder returns the Builder that renders: b, or else a Local one.
func builder(b buildproc.Builder) buildproc.Builder {
	if b == nil {
		return buildproc.Local{}
	}
	return b
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
	l.lines = append(l.lines, lectern.Truncate(fmt.Sprintf(format, args...), maxLogLine))
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
	// The project's last build, kept by this worker: its clone, its
	// render cache and its site, so that only what changed is fetched,
	// rendered and stored.
	pc := h.updateCache(p.ID)
	defer pc.release(h.CacheDir, cmp.Or(h.CacheMax, DefaultBuildCacheMax)) // after FinishUpdate
	srcDir, outDir, renderCache := pc.folders(work)
	log.add("Fetching branch %s of %s", p.Branch, gitsource.Redact(p.RepoURL))
	fetcher := *h.Fetcher
	fetcher.Logf = log.add
	fetchStart := time.Now()
	commit, err := h.fetch(ctx, &fetcher, p, srcDir, pc != nil, log)
	if e, ok := err.(setupError); ok {
		return h.finishFailed(ctx, lease, nil, log, e.msg)
	}
	if err != nil {
		if retryable(err) && ctx.Err() == nil && job.Attempt < job.MaxAttempts {
			return err
		}
		return h.finishFailed(ctx, lease, nil, log, "Fetching the repository failed: "+lectern.ErrorMessage(err))
	}
	log.add("Fetched commit %s (%s) in %s: %s", short(commit.SHA), commit.Ref, time.Since(fetchStart).Round(time.Millisecond), firstLine(commit.Message))

	docsDir, err := docsRoot(srcDir, p.DocsRoot)
	if err != nil {
		return h.finishFailed(ctx, lease, &commit, log, err.Error())
	}
	// The snapshot of the docs is stored while they render: both only
	// read them.
	depID := lectern.NewID(lectern.PrefixDeployment)
	snap := h.storeSourceAsync(ctx, p, docsDir, depID, pc.docsStamps())
	defer snap.stop()
	start := time.Now()
	pc.startRender()
	log.add("Rendering docs from %s", p.DocsRoot)
	// Search and the playground; cloud sites the assistant and analytics
	// too, which package sites answers.
	live := features.Live(p.DeploymentType)
	live.EmbedHosts = h.EmbedHosts
	opts := render.Options{Features: &live, Limits: h.Limits, CustomScripts: p.CustomScripts}
	res, err := builder(h.Builder).Build(ctx, buildproc.Request{Src: docsDir, Out: outDir, Options: opts, PageDelay: h.PageDelay, CacheDir: renderCache,
		Nice: renderNice(job)}, nil)
	if res != nil {
		for _, w := range res.Warnings {
			log.add("warning: %s", w.String())
		}
		if res.MoreWarnings > 0 {
			log.add("… and %d more warnings", res.MoreWarnings)
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if lectern.ErrorCode(err) == lectern.EINVALID {
			log.add("error: %s", lectern.ErrorMessage(err))
			return h.finishFailed(ctx, lease, &commit, log, "The build failed: "+strings.TrimSuffix(lectern.ErrorMessage(err), ".")+"."+limitHint(err))
		}
		return err
	}
	log.add("Rendered %d pages (%d files, %d warnings) in %s", res.Pages, res.Files, res.WarningCount(), time.Since(start).Round(time.Millisecond))

	// The deployment's time is set here, not by the store, so that the
	// manifest carries the same one: live sites send it as Last-Modified.
	dep := &lectern.Deployment{ID: depID, ProjectID: p.ID, UpdateID: u.ID, Commit: commit, PageCount: res.Pages,
		CreatedAt: time.Now().UTC().Truncate(time.Second)}
	publishStart := time.Now()
	prev, err := h.liveManifest(ctx, p)
	if err != nil {
		return err
	}
	pub, err := publishSite(ctx, h.Bucket, outDir, p.ID, dep.ID, dep.CreatedAt, prev, pc.siteStamps())
	if err != nil {
		return fmt.Errorf("publish site: %w", err)
	}
	n, publishTook := pub.files, time.Since(publishStart)
	if err := snap.wait(); err != nil {
		if lectern.ErrorCode(err) == lectern.EINVALID {
			return h.finishFailed(ctx, lease, &commit, log, "Keeping a snapshot of the docs failed: "+lectern.ErrorMessage(err)+limitHint(err))
		}
		return fmt.Errorf("store source snapshot: %w", err)
	}
	log.add("Published deployment %s (%d files, %d new: %s) in %s; source snapshot in %s", dep.ID, n, pub.newFiles, humanize.Bytes(uint64(pub.newBytes)),
		publishTook.Round(time.Millisecond), snap.took.Round(time.Millisecond))
	pc.finish(h.Log)
	summary := fmt.Sprintf("Deployed %d pages from %s (%s).", res.Pages, short(commit.SHA), commit.Ref)
	if k := res.WarningCount(); k > 0 {
		summary += fmt.Sprintf(" %d warnings; see logs.", k)
	}
	return h.Store.FinishUpdate(ctx, lease, store.UpdateResult{Status: lectern.UpdateSuccess, Summary: summary,
		Commit: &commit, Logs: log.all(), Deployment: dep, EndedAt: time.Now()})
}

func (h *UpdateHandler) finishFailed(ctx context.Context, lease store.Lease, commit *lectern.Commit, log *buildLog, summary string) error {
	log.add("Update failed; the live site is unchanged.")
	return h.Store.FinishUpdate(ctx, lease, store.UpdateResult{Status: lectern.UpdateFailure, Summary: lectern.Truncate(summary, maxSummary),
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
// The repository is untrusted: a symbolic link on the way to the docs
// root is followed only when it stays inside the repository, and the
// folder returned is then the real one, so the render (which reads
// through os.Root) never sees a path that leads out.
func docsRoot(repo, docsRoot string) (string, error) {
	clean := path.Clean("/" + strings.TrimSpace(docsRoot))
	if clean == "/" {
		return repo, nil
	}
	real, err := filepath.EvalSymlinks(repo)
	if err != nil {
		return "", err
	}
	dir := real
	for _, part := range strings.Split(clean[1:], "/") {
		dir = filepath.Join(dir, part)
		fi, err := os.Lstat(dir)
		if err != nil {
			return "", fmt.Errorf("The docs root %q does not exist in the repository: check the project's docs root and the branch.", docsRoot)
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(dir)
			to, err := filepath.EvalSymlinks(dir)
			if err != nil || !within(real, to) {
				return "", fmt.Errorf("The docs root %q is a symbolic link in the repository (%s -> %s) that leads outside it; Lectern reads only the repository's own files. Make the docs root a folder of the repository.", docsRoot, filepath.ToSlash(mustRel(real, dir)), target)
			}
			dir = to
			if fi, err = os.Stat(dir); err != nil {
				return "", err
			}
		}
		if !fi.IsDir() {
			return "", fmt.Errorf("The docs root %q is not a folder of the repository.", docsRoot)
		}
	}
	return dir, nil
}

// within reports whether path p is dir or inside it (both clean, real).
func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

func mustRel(base, p string) string {
	if rel, err := filepath.Rel(base, p); err == nil {
		return rel
	}
	return p
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

// limitHint tells, after a build that exceeded a limit, which setting of
// the server raises it.
func limitHint(err error) string {
	if le := limits.AsError(err); le != nil {
		return " Keep the docs within the limit, or ask the server's operator to raise --build-" + le.Limit + "."
	}
	return ""
}
