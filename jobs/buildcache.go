package jobs

import (
	"encoding/json"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"time"
)

// Files of a project's build cache (projectCache), under
// UpdateHandler.CacheDir/{project}/.
const (
	cacheBuilding = "building"     // there while a build runs: a cache left with it is not trusted
	cacheStamps   = "stamps.json"  // the stamps of the files last published
	cacheSources  = "sources.json" // the stamps of the docs' files last snapshot
	cacheSize     = "size"         // the cache's bytes, written after each build
	maxStampsFile = 64 << 20
)

// DefaultBuildCacheMax bounds a worker's build caches together
// (UpdateHandler.CacheMax): the projects built least recently go first.
const DefaultBuildCacheMax = 20 << 30

// projectCache is what a worker keeps of a project's last update, so that
// the next fetches, renders and stores only what changed: the clone of
// its branch (repo/, gitsource.FetchInto: no credentials in it), the
// render's rebuild cache (render/), the site it built (site/, which the
// next build updates in place) and the stamps of the files it published. It is only ever a
// shortcut: a missing or damaged one, or one left by a build that did not
// finish (a crash, kill -9), is started again from nothing, and gives the
// same deployment.
type projectCache struct {
	dir    string
	unlock func()
	// Stamps of the site's files and of the docs' files last published,
	// updated in place by this update.
	site, sources map[string]fileStamp
	// rendering is set once the render changes the site and the render
	// cache; finished once the update stored its deployment.
	rendering, finished bool
}

// updateCache opens the worker's cache of project id for an update; nil
// when there is none (CacheDir unset, or it cannot be opened: the update
// then builds without, and says why in the server's log). Its methods
// take a nil cache as the temporary folder work.
func (h *UpdateHandler) updateCache(id string) *projectCache {
	if h.CacheDir == "" {
		return nil
	}
	c, err := openProjectCache(h.CacheDir, id)
	if err != nil {
		h.Log.Warn("update without the project's build cache", "project", id, "err", err)
		return nil
	}
	c.site, c.sources = c.stamps(), c.sourceStamps()
	return c
}

// folders returns where the update fetches the branch, renders the site
// and keeps the render cache: the cache's, or fresh ones in work.
func (c *projectCache) folders(work string) (src, out, render string) {
	if c == nil {
		return filepath.Join(work, "repo"), filepath.Join(work, "site"), ""
	}
	return c.repoDir(), c.siteDir(), c.renderDir()
}

// siteStamps and docsStamps give the stamps publishing updates; nil
// without a cache.
func (c *projectCache) siteStamps() map[string]fileStamp {
	if c == nil {
		return nil
	}
	return c.site
}

func (c *projectCache) docsStamps() map[string]fileStamp {
	if c == nil {
		return nil
	}
	return c.sources
}

// startRender marks the render and site as being changed.
func (c *projectCache) startRender() {
	if c != nil {
		c.rendering = true
	}
}

// finish records the update's stamps once its deployment is stored.
func (c *projectCache) finish(log *slog.Logger) {
	if c == nil {
		return
	}
	c.finished = true
	if err := c.done(c.site, c.sources); err != nil {
		log.Warn("the project's build cache could not be kept", "dir", c.dir, "err", err)
	}
}

// release ends the update's use of the cache: after finish, it measures
// the cache and trims the worker's caches to max bytes (once the update
// is live: a walk of files); after a failure, a cache whose render had
// begun keeps its marker, so the next update starts from nothing, and one
// where only the clone was touched (FetchInto mends it) stays as it was.
func (c *projectCache) release(root string, max int64) {
	switch {
	case c == nil:
	case c.finished:
		c.measure()
		trimBuildCaches(root, max, filepath.Base(c.dir))
	case c.rendering:
		c.abandon()
	default:
		c.leave()
	}
}

// locks keeps a project's cache to one update of this process at a time
// (a lease lost and taken over in the same process could run a second).
var locks sync.Map // project id → *sync.Mutex

// openProjectCache opens project id's cache under root, emptied first
// when a build left it unfinished; nil when another update of this
// process holds it, or it cannot be made (the update then builds without).
func openProjectCache(root, id string) (*projectCache, error) {
	mu, _ := locks.LoadOrStore(id, new(sync.Mutex))
	if !mu.(*sync.Mutex).TryLock() {
		return nil, errors.New("the project's build cache is in use by another update of this process")
	}
	c := &projectCache{dir: filepath.Join(root, id), unlock: mu.(*sync.Mutex).Unlock}
	if _, err := os.Stat(filepath.Join(c.dir, cacheBuilding)); err == nil {
		if err := os.RemoveAll(c.dir); err != nil {
			c.unlock()
			return nil, err
		}
	}
	for _, d := range []string{c.renderDir(), c.siteDir()} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			c.unlock()
			return nil, err
		}
	}
	if err := os.WriteFile(filepath.Join(c.dir, cacheBuilding), nil, 0o600); err != nil {
		c.unlock()
		return nil, err
	}
	return c, nil
}

func (c *projectCache) renderDir() string { return filepath.Join(c.dir, "render") }
func (c *projectCache) repoDir() string   { return filepath.Join(c.dir, "repo") }
func (c *projectCache) siteDir() string   { return filepath.Join(c.dir, "site") }

// stamps returns the stamps of the files last published, none when they
// cannot be read.
func (c *projectCache) stamps() map[string]fileStamp { return c.readStamps(cacheStamps) }

// sourceStamps returns the stamps of the docs' files last stored.
func (c *projectCache) sourceStamps() map[string]fileStamp { return c.readStamps(cacheSources) }

func (c *projectCache) readStamps(file string) map[string]fileStamp {
	st := map[string]fileStamp{}
	data, err := os.ReadFile(filepath.Join(c.dir, file))
	if err != nil || len(data) > maxStampsFile || json.Unmarshal(data, &st) != nil {
		return map[string]fileStamp{}
	}
	return st
}

// done records the stamps of the files just published and of the docs'
// files just stored, and marks the cache finished, then lets go of it.
func (c *projectCache) done(stamps, sources map[string]fileStamp) error {
	defer c.unlock()
	for file, st := range map[string]map[string]fileStamp{cacheStamps: stamps, cacheSources: sources} {
		data, err := json.Marshal(st)
		if err != nil {
			return err
		}
		tmp := filepath.Join(c.dir, file+".tmp")
		if err := os.WriteFile(tmp, data, 0o600); err != nil {
			return err
		}
		if err := os.Rename(tmp, filepath.Join(c.dir, file)); err != nil {
			return err
		}
	}
	return os.Remove(filepath.Join(c.dir, cacheBuilding))
}

// remeasure is how old a cache's recorded size may be before measure
// walks the cache again.
const remeasure = 10 * time.Minute

// measure writes the cache's size (read by trimBuildCaches). It walks
// every file of the cache (the site, the clone, the render cache), so it
// runs once the update is live, and not again within remeasure: the next
// update of a project updated every few seconds would otherwise render
// beside the walk. The size only ranks caches for trimming; a recent one
// is near enough.
func (c *projectCache) measure() {
	if info, err := os.Stat(filepath.Join(c.dir, cacheSize)); err == nil && time.Since(info.ModTime()) < remeasure {
		return
	}
	size := dirSize(c.dir)
	os.WriteFile(filepath.Join(c.dir, cacheSize), []byte(strconv.FormatInt(size, 10)), 0o600)
}

// abandon lets go of a cache whose build did not finish: it keeps its
// marker, so the next update starts from nothing.
func (c *projectCache) abandon() { c.unlock() }

// leave lets go of a cache whose render and site were not touched (the
// update failed before it rendered): it stays as the last build left it.
func (c *projectCache) leave() {
	defer c.unlock()
	os.Remove(filepath.Join(c.dir, cacheBuilding))
}

// dirSize returns the bytes of the regular files under dir.
func dirSize(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// trimBuildCaches removes the caches of the projects built least recently
// (by the time of their stamps file) until those left hold at most max
// bytes, keeping keep's; caches in use are left alone.
func trimBuildCaches(root string, max int64, keep string) {
	ents, err := os.ReadDir(root)
	if err != nil {
		return
	}
	type cached struct {
		id   string
		size int64
		at   time.Time
	}
	var all []cached
	var total int64
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		// When it was last built: its stamps are written by every build
		// that finished (its size, only now and then: measure).
		info, err := os.Stat(filepath.Join(root, e.Name(), cacheStamps))
		if err != nil {
			continue // being built, or left unfinished: its next update empties it
		}
		data, err := os.ReadFile(filepath.Join(root, e.Name(), cacheSize))
		if err != nil {
			continue
		}
		n, _ := strconv.ParseInt(string(data), 10, 64)
		all = append(all, cached{e.Name(), n, info.ModTime()})
		total += n
	}
	sort.Slice(all, func(i, j int) bool { return all[i].at.Before(all[j].at) })
	for _, c := range all {
		if total <= max {
			return
		}
		if c.id == keep {
			continue
		}
		mu, _ := locks.LoadOrStore(c.id, new(sync.Mutex))
		if !mu.(*sync.Mutex).TryLock() {
			continue
		}
		if os.RemoveAll(filepath.Join(root, c.id)) == nil {
			total -= c.size
		}
		mu.(*sync.Mutex).Unlock()
	}
}
