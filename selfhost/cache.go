package selfhost

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/bundle"
)

// Cache keeps verified bundles in a folder, by version:
//
//	bundles/{version}/entry.json   the manifest and where the bundle came from
//	bundles/{version}/site/...     the bundle's files, as verified
//	tmp/                           downloads and extractions in progress
//	state.json                     the version served last
//	lock                           locked while a process uses the folder
//	analytics.db (-wal, -shm)      selfhost's own web analytics (AnalyticsDB)
//	.lectern-selfhost-cache        marks the folder as a cache (cacheMarker)
//
// An entry appears (by rename) only once its bundle is fully downloaded,
// verified and extracted, so a crash never leaves a half-written entry.
// Cache methods are safe for concurrent use.
type Cache struct {
	dir     string
	fetcher *Fetcher
	limits  bundle.Limits
	// Keep is how many versions the cache holds at most (default 5);
	// older ones are removed after a fetch, never the one served.
	Keep int

	mu   sync.Mutex // guards state.json, entry replacement and lock
	lock *os.File   // holds the folder's lock until Close
}

// Entry is one verified bundle in the cache.
type Entry struct {
	// Version is the manifest's version.
	Version string `json:"version"`
	// Manifest is the bundle's manifest.
	Manifest bundle.Manifest `json:"manifest"`
	// SHA256 and Size describe the downloaded archive.
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
	// CachedAt is when the entry was added.
	CachedAt time.Time `json:"cachedAt"`
	// Dir is the folder holding the site's files (not stored).
	Dir string `json:"-"`
}

// errLocked is returned by lockFile when another holder has the lock.
var errLocked = errors.New("locked")

// OpenCache opens (creating it if needed) the cache folder dir, locks it
// for this process until Close, and removes what an earlier process left in
// its tmp folder. Downloads go through f; bundles are read with limits lim.
// A folder another process (or another open Cache) holds is an EINVALID
// error: two runtimes must not share one.
func OpenCache(dir string, f *Fetcher, lim bundle.Limits) (*Cache, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if err := claimCacheDir(abs); err != nil {
		return nil, err
	}
	// claimCacheDir created the folder (0700: the owner's alone) or
	// found it.
	if err := os.MkdirAll(filepath.Join(abs, "bundles"), 0o755); err != nil {
		return nil, fmt.Errorf("cache folder: %w", err)
	}
	lock, err := os.OpenFile(filepath.Join(abs, "lock"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("cache folder: %w", err)
	}
	if err := lockFile(lock); err != nil {
		lock.Close()
		if errors.Is(err, errLocked) {
			return nil, lectern.Errorf(lectern.EINVALID, "cache folder %s is in use by another lectern selfhost: give each its own --cache-dir", abs)
		}
		return nil, fmt.Errorf("cache folder: locking: %w", err)
	}
	c := &Cache{dir: abs, fetcher: f, limits: lim, lock: lock}
	if err := os.RemoveAll(filepath.Join(abs, "tmp")); err != nil {
		c.Close()
		return nil, fmt.Errorf("cache folder: %w", err)
	}
	if err := os.Mkdir(filepath.Join(abs, "tmp"), 0o700); err != nil {
		c.Close()
		return nil, fmt.Errorf("cache folder: %w", err)
	}
	return c, nil
}

// cacheMarker is the file OpenCache writes into a cache folder. A runtime
// clears its cache folder's tmp and sites folders at start, so it takes
// only a folder that is new, is empty, has this file, or holds nothing but
// a cache's own entries (a cache made before the marker): never a folder
// of other files, such as a home folder or a project.
const cacheMarker = ".lectern-selfhost-cache"

// cacheEntries are the names a cache folder holds (see Cache).
var cacheEntries = map[string]bool{"bundles": true, "tmp": true, "sites": true, "state.json": true, "lock": true, cacheMarker: true,
	AnalyticsDB: true, AnalyticsDB + "-wal": true, AnalyticsDB + "-shm": true}

// claimCacheDir makes dir a cache folder, creating it if needed, or
// refuses it (EINVALID) when it holds other files.
func claimCacheDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("cache folder: %w", err)
	}
	marked, names, other := false, map[string]bool{}, []string{}
	for _, e := range entries {
		names[e.Name()] = true
		switch {
		case e.Name() == cacheMarker:
			marked = e.Type().IsRegular()
		case !cacheEntries[e.Name()]:
			other = append(other, e.Name())
		}
	}
	if marked {
		return nil
	}
	if len(entries) > 0 && (len(other) > 0 || !names["bundles"] || !names["lock"]) {
		if len(other) == 0 {
			for n := range names {
				other = append(other, n)
			}
		}
		slices.Sort(other)
		return lectern.Errorf(lectern.EINVALID, "cache folder %s already holds other files (%s): lectern selfhost clears parts of its cache folder, so it needs one of its own; give a new or empty --cache-dir",
			dir, strings.Join(other[:min(len(other), 3)], ", "))
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("cache folder: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, cacheMarker), []byte("This folder is the cache of lectern selfhost.\n"), 0o644); err != nil {
		return fmt.Errorf("cache folder: %w", err)
	}
	return nil
}

// Close releases the cache folder. It is idempotent.
func (c *Cache) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.lock == nil {
		return nil
	}
	err := c.lock.Close()
	c.lock = nil
	return err
}

// Dir returns the cache folder.
func (c *Cache) Dir() string { return c.dir }

// safeVersion is a version usable as a folder name as it is.
var safeVersion = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$`)

// entryDir returns the folder of version v.
func (c *Cache) entryDir(v string) string {
	name := v
	if !safeVersion.MatchString(v) {
		sum := sha256.Sum256([]byte(v))
		name = "sha256-" + hex.EncodeToString(sum[:16])
	}
	return filepath.Join(c.dir, "bundles", name)
}

// Lookup returns the cached entry of version v, or ok false.
func (c *Cache) Lookup(v string) (*Entry, bool) {
	if v == "" {
		return nil, false
	}
	e, err := readEntry(c.entryDir(v))
	if err != nil || e.Version != v {
		return nil, false
	}
	return e, true
}

func readEntry(dir string) (*Entry, error) {
	data, err := os.ReadFile(filepath.Join(dir, "entry.json"))
	if err != nil {
		return nil, err
	}
	var e Entry
	if err := json.Unmarshal(data, &e); err != nil {
		return nil, err
	}
	e.Dir = filepath.Join(dir, "site")
	return &e, nil
}

// Fetch downloads the bundle at link, verifies it, checks its version
// against want (unless want is ""), extracts it and adds it to the cache
// under its version, replacing an entry of that version with other
// content. It returns the entry. Errors: an EUNAVAILABLE error wrapping a
// *DownloadError when the download fails; an EINVALID error (matching
// bundle.ErrInvalid when the archive is bad) for a bundle that is refused,
// over the size limit, or of another version than want; ctx's error. On
// error, nothing is added and nothing is left in the cache's tmp folder.
func (c *Cache) Fetch(ctx context.Context, link, want string) (*Entry, error) {
	tmp, err := os.MkdirTemp(filepath.Join(c.dir, "tmp"), "fetch-")
	if err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	defer os.RemoveAll(tmp)
	archive, err := os.OpenFile(filepath.Join(tmp, "bundle.tar.gz"), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	defer archive.Close()
	d, err := c.fetcher.fetch(ctx, link, archive)
	if err != nil {
		return nil, err
	}
	if _, err := archive.Seek(0, 0); err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	stage := filepath.Join(tmp, "entry")
	if err := os.MkdirAll(filepath.Join(stage, "site"), 0o755); err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	m, err := Extract(ctx, archive, filepath.Join(stage, "site"), c.limits)
	if err != nil {
		if errors.Is(err, bundle.ErrInvalid) {
			return nil, &lectern.Error{Code: lectern.EINVALID, Message: "the bundle is refused: " + err.Error(), Err: err}
		}
		return nil, err
	}
	if msg := versionProblem(m.Version); msg != "" {
		return nil, lectern.Errorf(lectern.EINVALID, "the bundle is refused: its manifest version %q %s", m.Version, msg)
	}
	if want != "" && m.Version != want {
		return nil, lectern.Errorf(lectern.EINVALID, "the bundle holds version %q, but staticExport.version pins %q: generate a bundle of the pinned version, or change the pin", m.Version, want)
	}
	e := &Entry{Version: m.Version, Manifest: m, SHA256: d.sha256, Size: d.size, CachedAt: time.Now().UTC()}
	data, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(stage, "entry.json"), data, 0o644); err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	return c.commit(stage, e)
}

// commit moves a complete staged entry into place.
func (c *Cache) commit(stage string, e *Entry) (*Entry, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	dst := c.entryDir(e.Version)
	if old, err := readEntry(dst); err == nil && old.Version == e.Version && old.SHA256 == e.SHA256 {
		return old, nil // the same bundle again: keep the entry in place
	}
	if _, err := os.Lstat(dst); err == nil {
		// Same version, other bytes: move the old entry out of the way
		// first; a tree being served elsewhere is not affected.
		trash := filepath.Join(filepath.Dir(stage), "replaced")
		if err := os.Rename(dst, trash); err != nil {
			return nil, fmt.Errorf("cache: %w", err)
		}
	}
	if err := os.Rename(stage, dst); err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	e.Dir = filepath.Join(dst, "site")
	return e, nil
}

// state is the content of state.json.
type state struct {
	LastServed string `json:"lastServed"`
}

// LastServed returns the version served last, or "".
func (c *Cache) LastServed() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	data, err := os.ReadFile(filepath.Join(c.dir, "state.json"))
	if err != nil {
		return ""
	}
	var s state
	if json.Unmarshal(data, &s) != nil {
		return ""
	}
	return s.LastServed
}

// SetLastServed records v as the version served last (atomically, by
// rename) and removes the oldest entries beyond Keep, never v.
func (c *Cache) SetLastServed(v string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	data, _ := json.Marshal(state{LastServed: v})
	if err := writeFileAtomic(filepath.Join(c.dir, "state.json"), data); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	c.prune(v)
	return nil
}

// prune removes the entries beyond Keep, oldest first, except keep.
func (c *Cache) prune(keep string) {
	limit := c.Keep
	if limit <= 0 {
		limit = 5
	}
	dirs, err := os.ReadDir(filepath.Join(c.dir, "bundles"))
	if err != nil {
		return
	}
	var entries []*Entry
	for _, d := range dirs {
		e, err := readEntry(filepath.Join(c.dir, "bundles", d.Name()))
		if err != nil {
			continue
		}
		entries = append(entries, e)
	}
	slices.SortFunc(entries, func(a, b *Entry) int { return b.CachedAt.Compare(a.CachedAt) })
	kept := 0
	for _, e := range entries {
		if e.Version == keep || kept < limit-1 {
			if e.Version != keep {
				kept++
			}
			continue
		}
		os.RemoveAll(filepath.Dir(e.Dir))
	}
}

// writeFileAtomic writes data to a temporary file beside name and renames
// it over name.
func writeFileAtomic(name string, data []byte) error {
	var rnd [8]byte
	rand.Read(rnd[:])
	tmp := name + ".tmp-" + hex.EncodeToString(rnd[:])
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, name); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
