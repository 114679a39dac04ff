// Package buildproc renders a docs folder that an organization controls,
// within limits, for the server's update and export jobs. The render
// itself (render.Build) bounds what it reads, expands and writes
// (limits.Limits); this package adds what only a supervisor can bound:
// wall time and memory, and stopping a render at once.
//
// Local renders in the calling process, under a deadline. Child renders
// in a child process of the lectern binary (`lectern internal-build`),
// which caps its own memory before it reads anything, dies with its
// parent, and is killed when the job is cancelled or runs out of time: a
// repository that exhausts its render takes down that child only, never
// the server and the other organizations' sites and jobs.
//
// Both return the same errors: a *lectern.Error with code EINVALID whose
// Err is a *limits.Error when a limit was exceeded (the job fails at
// once, its summary naming the limit and, where one is to blame, the
// file), ctx.Err() when ctx ended, and other errors for failures that a
// retry may cure.
package buildproc

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"lectern.dev/lectern/render"
	"lectern.dev/lectern/render/cache"
	"lectern.dev/lectern/render/limits"
	"lectern.dev/lectern/render/output"
)

// Limit names of the supervisor's limits, as limits.Error.Limit
// gives them (settings --build-timeout and --build-memory).
const (
	LimitTimeout = "timeout"
	LimitMemory  = "memory"
)

// Request is one render: the source folder, the output folder (which
// must not exist or be empty) and the render's options. Only the
// options that can cross a process boundary are used: BasePath, Export,
// SiteURL, Features, Limits and CustomScripts.
type Request struct {
	Src     string         `json:"src"`
	Out     string         `json:"out"`
	Options render.Options `json:"-"`
	// PageDelay slows the render down per page (tests only).
	PageDelay time.Duration `json:"pageDelay,omitempty"`
	// CacheDir, when set, is the rebuild cache of Out (render.Options'
	// CacheDir): Out holds the previous build of the same project, and
	// only what changed is rendered and written again. One project's own:
	// never shared between projects.
	CacheDir string `json:"cacheDir,omitempty"`
	// Nice lowers the render's CPU priority by that much (a nice value,
	// at most 19 in all), so that a render of an organization with a
	// backlog yields the CPU to another organization's one update. Only
	// Child honours it: a Local render runs at its process's priority.
	Nice int `json:"nice,omitempty"`
}

// Result is what a render reports.
type Result struct {
	Pages    int              `json:"pages"`
	Files    int              `json:"files"`
	Warnings []render.Warning `json:"warnings,omitempty"`
	// MoreWarnings counts the warnings beyond MaxWarnings, left out.
	MoreWarnings int `json:"moreWarnings,omitempty"`
}

// MaxWarnings bounds the warnings a Result carries: a repository can
// make a render warn without end, and the result crosses a pipe and is
// kept with the update.
const MaxWarnings = 1000

// WarningCount is the number of warnings the render found.
func (r *Result) WarningCount() int { return len(r.Warnings) + r.MoreWarnings }

// Builder renders a Request. progress, when not nil, is called as
// render.Options.Progress is, from one goroutine.
type Builder interface {
	Build(ctx context.Context, req Request, progress func(done, total int)) (*Result, error)
}

// Local renders in this process with a deadline; for tests, libraries
// and single-tenant use. Its memory is the process's.
type Local struct {
	// Timeout bounds a render's wall time; 0 means none.
	Timeout time.Duration
}

var _ Builder = Local{}

// Build renders req in this process.
func (l Local) Build(ctx context.Context, req Request, progress func(done, total int)) (*Result, error) {
	bctx := ctx
	if l.Timeout > 0 {
		var cancel context.CancelFunc
		bctx, cancel = context.WithTimeout(ctx, l.Timeout)
		defer cancel()
	}
	res, err := build(bctx, req, progress)
	if err != nil && ctx.Err() == nil && errors.Is(bctx.Err(), context.DeadlineExceeded) {
		return nil, timeoutError(l.Timeout)
	}
	return res, err
}

// build runs render.Build on req's folders.
func build(ctx context.Context, req Request, progress func(done, total int)) (*Result, error) {
	root, err := os.OpenRoot(req.Src)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	opts := req.Options
	opts.CacheDir, opts.AllowRemote = req.CacheDir, false
	opts.Progress = func(done, total int) {
		if done > 0 && req.PageDelay > 0 {
			pause(ctx, req.PageDelay)
		}
		if progress != nil {
			progress(done, total)
		}
	}
	dst := &output.Dir{Dir: req.Out}
	if req.CacheDir != "" {
		if cache.UpdateReady(req.CacheDir, req.Out) {
			// The cache describes Out as the last build left it: update
			// it in place, writing what changed and removing what the
			// source no longer makes.
			dst.Update = true
		} else if err := emptyDir(req.Out); err != nil {
			return nil, err
		}
	}
	res, err := render.Build(ctx, root.FS(), dst, opts)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	out := &Result{Pages: res.Pages, Files: res.Files, Warnings: res.Warnings}
	if n := len(out.Warnings); n > MaxWarnings {
		out.Warnings, out.MoreWarnings = out.Warnings[:MaxWarnings], n-MaxWarnings
	}
	return out, nil
}

func pause(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// timeoutError is the limit error of a render that ran out of time.
func timeoutError(d time.Duration) error {
	return limits.Errorf(LimitTimeout, "", d.String(), "the build took longer than %s", d)
}

// memoryError is the limit error of a render that ran out of memory.
func memoryError(bytes int64) error {
	return limits.Errorf(LimitMemory, "", limits.FormatSize(bytes), "the build needed more than %s of memory", limits.FormatSize(bytes))
}

// emptyDir removes what dir holds (a build cache's output that its cache
// does not describe), keeping the folder.
func emptyDir(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return os.MkdirAll(dir, 0o700)
		}
		return err
	}
	for _, e := range ents {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}
