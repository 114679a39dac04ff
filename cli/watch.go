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
// rebuild after each change, with the first changed file (a slash path
// from the source's root) and the time the change was seen. Changes made
// while a rebuild runs lead to one more rebuild after it. It returns nil
// when ctx ends.
func watchSource(ctx context.Context, e *env, source string, exclude []string, rebuild func(changed string, start time.Time)) error {
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
	// relevant returns the changed file as a slash path from the root,
	// or "" for a change the build does not read.
	relevant := func(ev fsnotify.Event) string {
		if ev.Op == fsnotify.Chmod {
			return ""
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
				// A new folder: watch it and what it already holds.
				if err := add(ev.Name); err != nil {
					fmt.Fprintln(e.stderr, "lectern:", err)
				}
			}
		}
		return filepath.ToSlash(rel)
	}
	fmt.Fprintf(e.stdout, "Watching %s for changes (interrupt to stop).\n", source)
	for {
		var changed string
		var start time.Time
		for changed == "" {
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
					changed, start = "many files", time.Now()
					break
				}
				fmt.Fprintln(e.stderr, "lectern: watching:", err)
			case ev, ok := <-w.Events:
				if !ok {
					return nil
				}
				changed = relevant(ev)
				start = time.Now()
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
				if relevant(ev) != "" {
					settle.Reset(watchSettle)
				}
			case <-settle.C:
				break collect
			case <-deadline:
				break collect
			}
		}
		settle.Stop()
		rebuild(changed, start)
	}
}
