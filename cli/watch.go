package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// watchSettle is how long the watcher waits after a change for more
// before it rebuilds: an editor's save is often several events (write a
// temporary file, rename it over the page) within a millisecond or two,
// and one rebuild should see them all. It is short, because it is part of
// the time between saving a page and seeing it rebuilt.
const (
	watchSettle  = 3 * time.Millisecond
	watchMaxWait = 100 * time.Millisecond
)

// watchSource watches every folder of the source (but dot-folders, which
// the build skips, and the excluded output and cache folders) and calls
// rebuild after each change, with a description of what changed
// (describeChanges) and the time the change was seen. Changes made while
// a rebuild runs lead to one more rebuild after it. An error of rebuild is
// printed, unless more changes came meanwhile. It returns nil when ctx
// ends.
func watchSource(ctx context.Context, e *env, source string, exclude []string, rebuild func(changes string, start time.Time) error) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch %s: %w", source, err)
	}
	defer w.Close()
	// The folders as the system names them in events: with the links of
	// the source's own path resolved (the build follows them too).
	root, err := filepath.Abs(source)
	if err != nil {
		return err
	}
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	skip := map[string]bool{}
	for _, x := range exclude {
		skip[filepath.Join(root, filepath.FromSlash(x))] = true
	}
	// add watches dir and its sub-folders.
	add := func(dir string) error {
		return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if p != dir && errors.Is(err, fs.ErrNotExist) {
					return nil // removed meanwhile
				}
				return err
			}
			if !d.IsDir() {
				return nil
			}
			if p != root && (strings.HasPrefix(d.Name(), ".") || skip[p]) {
				return filepath.SkipDir
			}
			if err := w.Add(p); err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return filepath.SkipDir
				}
				return fmt.Errorf("watch %s: %w (on Linux, the number of watched folders is limited by fs.inotify.max_user_watches)", p, err)
			}
			return nil
		})
	}
	if err := add(root); err != nil {
		return err
	}
	// forget stops watching the folder p and those under it, when p was
	// moved or removed: inotify keeps a moved folder's watch under its
	// old name (and then drops it), so the new name must be watched
	// afresh, which its Create event does.
	forget := func(p string) {
		for _, wp := range w.WatchList() {
			if wp == p || strings.HasPrefix(wp, p+string(filepath.Separator)) {
				w.Remove(wp) // already gone: nothing to do
			}
		}
	}
	// relevant returns the changed file as a slash path from the root,
	// or "" for a change the build does not read.
	relevant := func(ev fsnotify.Event) string {
		if ev.Op == fsnotify.Chmod {
			return ""
		}
		if ev.Op.Has(fsnotify.Rename) || ev.Op.Has(fsnotify.Remove) {
			forget(ev.Name)
		}
		rel, err := filepath.Rel(root, ev.Name)
		if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
			return ""
		}
		for _, part := range strings.Split(rel, string(filepath.Separator)) {
			if strings.HasPrefix(part, ".") {
				return ""
			}
		}
		for dir := range skip {
			if ev.Name == dir || strings.HasPrefix(ev.Name, dir+string(filepath.Separator)) {
				return ""
			}
		}
		if ev.Op.Has(fsnotify.Create) {
			if fi, err := os.Lstat(ev.Name); err == nil && fi.IsDir() {
				// A new folder, or one moved here: watch it and what it
				// already holds.
				forget(ev.Name)
				if err := add(ev.Name); err != nil {
					fmt.Fprintln(e.stderr, "lectern:", err)
				}
			}
		}
		return filepath.ToSlash(rel)
	}
	fmt.Fprintf(e.stdout, "Watching %s for changes (interrupt to stop).\n", source)
	var changes []string // relevant changes not yet built
	var start time.Time
	for {
		for len(changes) == 0 {
			select {
			case <-ctx.Done():
				return nil
			case err, ok := <-w.Errors:
				if !ok {
					return nil
				}
				if errors.Is(err, fsnotify.ErrEventOverflow) {
					// Changes were lost: watch the folders made
					// meanwhile, and rebuild, which finds every change
					// (it checks every file).
					if err := add(root); err != nil {
						fmt.Fprintln(e.stderr, "lectern:", err)
					}
					changes, start = []string{"many files"}, time.Now()
					break
				}
				fmt.Fprintln(e.stderr, "lectern: watching:", err)
			case ev, ok := <-w.Events:
				if !ok {
					return nil
				}
				if c := relevant(ev); c != "" {
					changes, start = append(changes, c), time.Now()
				}
			}
		}
		// Take in what follows closely.
		settle := time.NewTimer(watchSettle)
		deadline := time.After(watchMaxWait)
	collect:
		for {
			select {
			case <-ctx.Done():
				settle.Stop()
				return nil
			case ev, ok := <-w.Events:
				if !ok {
					break collect
				}
				if c := relevant(ev); c != "" {
					changes = append(changes, c)
					settle.Reset(watchSettle)
				}
			case <-settle.C:
				break collect
			case <-deadline:
				break collect
			}
		}
		settle.Stop()
		err := rebuild(describeChanges(root, changes), start)
		changes = nil
		if err == nil {
			continue
		}
		// A failure while the source is still changing (a checkout, a
		// copy of many files) is of a state half-way: the next rebuild
		// says how it ends.
		more := time.NewTimer(watchSettle)
	pending:
		for {
			select {
			case ev, ok := <-w.Events:
				if !ok {
					break pending
				}
				if c := relevant(ev); c != "" {
					changes, start = append(changes, c), time.Now()
				}
			case <-more.C:
				break pending
			}
		}
		more.Stop()
		if len(changes) == 0 && ctx.Err() == nil {
			fmt.Fprintln(e.stderr, "lectern:", err)
		}
	}
}

// describeChanges names the changes of one rebuild for its summary line:
// the first changed page or configuration file that exists (rather than
// an editor's temporary file), else the first existing file, else the
// first change, and how many other files changed.
func describeChanges(root string, changes []string) string {
	seen := map[string]bool{}
	var distinct []string
	for _, c := range changes {
		if !seen[c] {
			seen[c] = true
			distinct = append(distinct, c)
		}
	}
	best, rank := distinct[0], 0
	for _, c := range distinct {
		fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(c)))
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		r := 1
		switch strings.ToLower(filepath.Ext(c)) {
		case ".mdx", ".md", ".json", ".yaml", ".yml":
			r = 2
		}
		if r > rank {
			best, rank = c, r
		}
	}
	switch len(distinct) {
	case 1:
		return "a change to " + best
	case 2:
		return "changes to " + best + " and 1 other file"
	default:
		return fmt.Sprintf("changes to %s and %d other files", best, len(distinct)-1)
	}
}
