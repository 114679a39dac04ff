package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"lectern.dev/lectern"
	"lectern.dev/lectern/render"
	"lectern.dev/lectern/render/cache"
	"lectern.dev/lectern/render/output"
)

type buildFlags struct {
	out      string
	basePath string
	export   bool
	siteURL  string
	cacheDir string
	remote   bool
	scripts  bool // --custom-scripts
	watch    bool
	serve    string
}

func buildCmd(e *env) *cobra.Command {
	f := &buildFlags{}
	cmd := &cobra.Command{
		Use:   "build [flags] SOURCE_DIR",
		Short: "Render a docs folder (docs.json or mint.json + MDX) to a static site",
		Long: `Render a Mintlify-format docs folder to a static site, with the renderer that
live deployments and exports use. Content problems (an unknown component, a
missing image) are warnings; the command fails only when the site would be
unusable (no config and no pages, invalid JSON, a navigation page that does
not exist), and then leaves the previous output as it was.

Without --cache-dir, the site is built into a new folder that replaces the
output when the build succeeds. With --cache-dir, on Linux, a rebuild
updates the output in place: only the files that changed are written, each
replaced atomically, and the files the source no longer produces are
removed. A rebuild that is interrupted leaves whole files, some old and some
new, and the next build builds a new folder again. (On other systems a
cached rebuild renders only what changed but still writes a new folder.)

With --watch, the command goes on after the build: it watches the source
and rebuilds, in the same process and with the cache, each time a file
changes, until interrupted. A rebuild that fails says why and leaves the
output as it was. With --serve ADDR, the command serves the output on ADDR
for a preview, paths mapped to files as on a live site, until interrupted.

A build replaces its output folder whole, so --out must be a new or empty
folder, or one that lectern build made (it writes .lectern-output into
it); a folder of other files is refused and left as it was. A symbolic
link names the folder it points at.

The output and cache folders may lie inside the source (lectern build --out
site . at the root of a docs repository): the build does not read them as
files of the site. An output folder that is or contains the source, or a
cache folder that overlaps the output, is refused.

In the export form, pages link to each other relatively, so the folder works
from file:// and at any path; 404.html, which a server sends for missing
paths at any depth, uses absolute paths: give --base-path (or --site-url)
when the folder will be served under a sub-path.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return f.run(cmd.Context(), e, args[0])
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.out, "out", "site", "output folder (replaced when the build succeeds, or updated in place with --cache-dir)")
	fl.StringVar(&f.basePath, "base-path", "", "URL path the site is served under, like /docs")
	fl.BoolVar(&f.export, "export", false, "export form: pages at .html paths with relative links, for any static server and file:// (404.html uses absolute paths under --base-path)")
	fl.StringVar(&f.siteURL, "site-url", "", "absolute URL of the site, for the sitemap and canonical links (e.g. https://docs.acme.com)")
	fl.StringVar(&f.cacheDir, "cache-dir", "", "keep a content-hash cache here, so a rebuild renders only what changed")
	fl.BoolVar(&f.remote, "allow-remote", false, "fetch OpenAPI documents that docs.json names by URL")
	fl.BoolVar(&f.scripts, "custom-scripts", false, "load the source's .js files on every page, as Mintlify does (off: the site runs none of them)")
	fl.StringVar(&f.serve, "serve", "", "after the build, serve the output on this address (like 127.0.0.1:3000) for a preview, until interrupted; with --watch, a reload shows the last rebuild")
	fl.BoolVar(&f.watch, "watch", false, "after the build, watch the source and rebuild when a file changes, until interrupted (with a temporary cache when --cache-dir is not given)")
	return cmd
}

// buildGCPercent is the garbage collector's target for build when GOGC is
// not set. A build allocates far more than it keeps: with Go's default of
// 100, collections take a tenth of the CPU time of a one-page rebuild. 200
// saves most of that for some 40% more peak memory in a full build (480
// instead of 350 MB for 10,000 pages); 400 saves no more.
//
// Before the heap reaches buildGCFloor, there is no collection at all
// (collectFrom): a one-page rebuild of 10,000 pages allocates less, and
// a full build's peak is well above it.
const (
	buildGCPercent = 200
	buildGCFloor   = 128 << 20
)

// collectFrom turns the garbage collector off until the memory the Go
// runtime holds reaches floor (a soft memory limit), then sets its target
// to percent. The returned function restores the previous settings.
func collectFrom(floor int64, percent int) (restore func()) {
	var mu sync.Mutex
	done := false
	prevPercent := debug.SetGCPercent(-1)
	prevLimit := debug.SetMemoryLimit(floor)
	// After the first collection (the memory limit reached), the
	// sentinel is unreachable and its cleanup sets the target.
	sentinel := new([64]byte)
	runtime.AddCleanup(sentinel, func(int) {
		mu.Lock()
		defer mu.Unlock()
		if !done {
			debug.SetGCPercent(percent)
			debug.SetMemoryLimit(prevLimit)
		}
	}, 0)
	return func() {
		mu.Lock()
		defer mu.Unlock()
		done = true
		debug.SetGCPercent(prevPercent)
		debug.SetMemoryLimit(prevLimit)
	}
}

func (f *buildFlags) run(ctx context.Context, e *env, source string) error {
	switch {
	case os.Getenv("GOGC") != "":
	case os.Getenv("GOMEMLIMIT") != "":
		defer debug.SetGCPercent(debug.SetGCPercent(buildGCPercent))
	default:
		defer collectFrom(buildGCFloor, buildGCPercent)()
	}
	root, err := os.OpenRoot(source)
	if err != nil {
		return fmt.Errorf("source %s: %w", source, err)
	}
	defer root.Close()
	out, err := filepath.Abs(f.out)
	if err != nil {
		return err
	}
	exclude, err := f.checkFolders(source, out)
	if err != nil {
		return err
	}
	if out, err = checkOutput(f.out, out); err != nil {
		return err
	}
	cacheDir := f.cacheDir
	if f.watch && cacheDir == "" {
		// Rebuilds on change need the cache; without one of the user's,
		// a temporary one for this session.
		tmp, err := os.MkdirTemp("", "lectern-watch-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		cacheDir = tmp
	}
	// On a terminal, a bar that fits its width (progress_width.go),
	// redrawn at most every 100 ms and cleared when the build ends.
	var bar *redraw
	var drawn time.Time
	progress := func(done, total int) {}
	if onTerminal(e.stderr) {
		bar = &redraw{w: e.stderr}
		progress = func(done, total int) {
			if now := time.Now(); done < total && now.Sub(drawn) < 100*time.Millisecond {
				return
			} else {
				drawn = now
			}
			width := termWidth(e.stderr)
			if line, ok := barLine(width, "Rendering", "", float64(done)/float64(max(total, 1)), fmt.Sprintf("%d/%d pages", done, total), ""); ok {
				bar.draw(line, width)
			}
		}
	}
	opts := render.Options{BasePath: f.basePath, Export: f.export, SiteURL: f.siteURL, Progress: progress,
		CacheDir: cacheDir, AllowRemote: f.remote, Exclude: exclude, CustomScripts: f.scripts}
	build := func(dst render.Output) (*render.Result, error) {
		res, err := render.Build(ctx, root.FS(), dst, opts)
		if bar != nil {
			bar.clear()
		}
		if res != nil {
			for _, w := range res.Warnings {
				fmt.Fprintln(e.stderr, "warning:", w.String())
			}
		}
		if err != nil {
			if lectern.ErrorCode(err) == lectern.EINVALID {
				return nil, &exitError{code: 1, err: fmt.Errorf("build failed: %s", lectern.ErrorMessage(err))}
			}
			return nil, err
		}
		return res, nil
	}
	form := "live"
	if f.export {
		form = "export"
	}
	// once builds the site and prints its summary, starting with verb.
	once := func(verb string, start time.Time, after string) error {
		var res *render.Result
		var err error
		if cache.UpdateReady(cacheDir, out) && hasOutputMarker(out) {
			// The cache describes the output as the previous build left
			// it: update it in place (output.Dir.Update), which
			// costs what changed rather than the whole site.
			res, err = build(&output.Dir{Dir: out, Update: true})
		} else {
			res, err = f.buildAndSwap(out, cacheDir, build)
		}
		if err != nil {
			return err
		}
		reused := ""
		if res.Reused > 0 {
			reused = fmt.Sprintf(", %d unchanged", res.Reused)
		}
		fmt.Fprintf(e.stdout, "%s %d pages (%d files%s, %s form) into %s in %s with %d warnings%s.\n",
			verb, res.Pages, res.Files, reused, form, f.out, time.Since(start).Round(time.Millisecond), len(res.Warnings), after)
		return nil
	}
	var ln net.Listener
	if f.serve != "" {
		// Listening first: a port in use is found before the build.
		if ln, err = net.Listen("tcp", f.serve); err != nil {
			return fmt.Errorf("--serve: %w", err)
		}
		defer ln.Close()
	}
	err = once("Built", time.Now(), "")
	if err != nil && ctx.Err() != nil && !f.watch {
		// Interrupted: a new folder is not swapped in, and an update in
		// place is redone whole by the next build.
		return &exitError{code: 130, err: errors.New("build interrupted")}
	}
	if !f.watch && (ln == nil || err != nil) {
		return err
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		if !isBuildFailure(err) {
			return err
		}
		// A source that does not build yet: say so and wait for a fix.
		fmt.Fprintln(e.stderr, "lectern:", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	served := make(chan error, 1)
	if ln != nil {
		base := basePathOf(f.basePath)
		fmt.Fprintf(e.stdout, "Serving the site at %s (interrupt to stop).\n", previewAddress(ln, base))
		go func() {
			served <- servePreview(ctx, ln, out, base)
			cancel()
		}()
	} else {
		served <- nil
	}
	var watchErr error
	if f.watch {
		watchErr = watchSource(ctx, e, source, exclude, func(changes string, start time.Time) error {
			return once("Rebuilt", start, ", after "+changes)
		})
	} else {
		<-ctx.Done()
	}
	cancel()
	return errors.Join(watchErr, <-served)
}

// isBuildFailure reports whether err is a build that failed on its
// content (a broken docs.json), which a watched source can still fix.
func isBuildFailure(err error) bool {
	var ee *exitError
	return errors.As(err, &ee) && ee.code == 1
}

// buildAndSwap builds into a new folder beside out, with the previous
// output as output.Dir.Prev when there is a cache (unchanged pages are
// linked from it), and replaces out with it when the build succeeds; the
// old folder is removed only after.
func (f *buildFlags) buildAndSwap(out, cacheDir string, build func(render.Output) (*render.Result, error)) (*render.Result, error) {
	parent := filepath.Dir(out)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(out)+".building-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	dst := &output.Dir{Dir: tmp}
	if cacheDir != "" {
		if _, err := os.Stat(out); err == nil {
			dst.Prev = out
		}
	}
	res, err := build(dst)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(tmp, outputMarker), []byte(outputMarkerText), 0o644); err != nil {
		return nil, err
	}
	// MkdirTemp makes the folder private; a site is for a web server to
	// read.
	if err := os.Chmod(tmp, 0o755); err != nil {
		return nil, err
	}
	// Checked again at the last moment: the folder is replaced whole.
	if _, err := checkOutput(out, out); err != nil {
		return nil, err
	}
	old := ""
	if _, err := os.Stat(out); err == nil {
		old = tmp + ".old"
		if err := os.Rename(out, old); err != nil {
			return nil, fmt.Errorf("replace %s: %w", out, err)
		}
	}
	if err := os.Rename(tmp, out); err != nil {
		if old != "" {
			os.Rename(old, out)
		}
		return nil, fmt.Errorf("replace %s: %w", out, err)
	}
	if old != "" {
		os.RemoveAll(old)
	}
	return res, nil
}

// outputMarker is the file lectern build writes into each output folder
// it makes. A build replaces its output folder whole, so it replaces only
// a folder that does not exist yet, is empty, or has this file: never one
// that holds anything else (a home folder, a project, a web root with
// other content).
const (
	outputMarker     = ".lectern-output"
	outputMarkerText = "This folder is the output of lectern build, which replaces it whole at the next build.\n"
)

// hasOutputMarker reports whether the folder dir has outputMarker.
func hasOutputMarker(dir string) bool {
	fi, err := os.Lstat(filepath.Join(dir, outputMarker))
	return err == nil && fi.Mode().IsRegular()
}

// checkOutput refuses an output folder that lectern build may not replace
// (see outputMarker), or a file, naming it as given (flag). It returns the
// folder to build into: out, or the folder a symbolic link out points at.
func checkOutput(flag, out string) (string, error) {
	fi, err := os.Lstat(out)
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return "", fmt.Errorf("--out %s: %w", flag, err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		// The link's folder is the output; the link stays.
		real, err := filepath.EvalSymlinks(out)
		if err != nil {
			return "", fmt.Errorf("--out %s is a symbolic link to a missing folder: %w", flag, err)
		}
		if fi, err = os.Stat(real); err != nil {
			return "", fmt.Errorf("--out %s: %w", flag, err)
		}
		out = real
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("--out %s is a file, not a folder", flag)
	}
	if hasOutputMarker(out) {
		return out, nil
	}
	d, err := os.Open(out)
	if err != nil {
		return "", fmt.Errorf("--out %s: %w", flag, err)
	}
	names, _ := d.Readdirnames(3)
	d.Close()
	if len(names) == 0 {
		return out, nil
	}
	return "", fmt.Errorf("--out %s is a folder that lectern build did not make (it has files like %s, and no %s): a build replaces its output folder whole, which would delete them; give a new or empty folder, or remove this one first",
		flag, strings.Join(names, ", "), outputMarker)
}

// checkFolders refuses an output or cache folder whose replacement or
// updates would touch the source (or each other): the output is replaced
// whole by a successful build, so it must neither be nor contain the
// source or the cache. It returns, as slash paths from the source's root,
// the output and cache folders that lie inside the source, which the
// build must not read as files of the site.
func (f *buildFlags) checkFolders(source, out string) ([]string, error) {
	src := resolvePath(source)
	dst := resolvePath(out)
	switch {
	case dst == src:
		return nil, errors.New("--out must not be the source folder")
	case within(src, dst):
		return nil, fmt.Errorf("--out %s contains the source folder %s: a build replaces the output folder, source and all; choose an output folder outside the source, or inside it", f.out, source)
	}
	inside := []string{dst}
	if f.cacheDir != "" {
		cache := resolvePath(f.cacheDir)
		switch {
		case cache == src:
			return nil, errors.New("--cache-dir must not be the source folder")
		case cache == dst || within(cache, dst) || within(dst, cache):
			return nil, fmt.Errorf("--cache-dir %s and --out %s overlap: the output folder is replaced or updated by each build; keep the cache outside it", f.cacheDir, f.out)
		}
		inside = append(inside, cache)
	}
	var exclude []string
	for _, p := range inside {
		if within(p, src) {
			rel, err := filepath.Rel(src, p)
			if err == nil {
				exclude = append(exclude, filepath.ToSlash(rel))
			}
		}
	}
	return exclude, nil
}

// resolvePath returns p as an absolute path with the symbolic links of
// its longest existing part resolved, so that two spellings of one
// folder compare equal.
func resolvePath(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	rest := ""
	for dir := abs; ; {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(real, rest)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return abs
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = parent
	}
}

// within reports whether path p lies strictly inside folder dir (both
// clean and absolute).
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
