// Package readcache wraps a store.Store with short-lived caches of the
// reads that API clients repeat most: API keys (every request), and export
// jobs and update statuses (CI clients poll them). Only the API uses it;
// job workers read the store directly.
//
// What it trades: a key revoked by another process stops working within
// KeyTTL, and a polled job or update may be up to StatusTTL old. Only
// successful lookups are cached, so a new key, job or update is visible at
// once, and errors are never cached.
package readcache

import (
	"context"
	"sync"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

// Defaults for New's TTLs.
const (
	DefaultKeyTTL    = time.Second
	DefaultStatusTTL = 100 * time.Millisecond
	maxEntries       = 100_000
)

// Store is a store.Store whose hot reads are cached. Every other method is
// the wrapped store's.
type Store struct {
	store.Store
	keyTTL, statusTTL time.Duration
	keys              cache[*lectern.APIKey]
	exports           cache[*lectern.ExportJob]
	updates           cache[*lectern.Update]
}

var _ store.Store = (*Store)(nil)

// New wraps st. A zero TTL takes its default; a negative one disables that
// cache.
func New(st store.Store, keyTTL, statusTTL time.Duration) *Store {
	if keyTTL == 0 {
		keyTTL = DefaultKeyTTL
	}
	if statusTTL == 0 {
		statusTTL = DefaultStatusTTL
	}
	return &Store{Store: st, keyTTL: keyTTL, statusTTL: statusTTL}
}

type entry[T any] struct {
	v  T
	at time.Time
}

// cache is a map of entries with a time of reading, cleared when full.
// Concurrent misses of one key share a single load.
type cache[T any] struct {
	mu      sync.RWMutex
	m       map[string]entry[T]
	loadMu  sync.Mutex
	loading map[string]*flight[T]
}

// flight is a load in progress that other callers wait for.
type flight[T any] struct {
	done chan struct{}
	v    T
	err  error
}

func (c *cache[T]) get(k string, ttl time.Duration, now time.Time) (T, bool) {
	c.mu.RLock()
	e, ok := c.m[k]
	c.mu.RUnlock()
	if !ok || now.Sub(e.at) >= ttl {
		var zero T
		return zero, false
	}
	return e.v, true
}

func (c *cache[T]) put(k string, v T, at time.Time) {
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxEntries {
		c.m = map[string]entry[T]{}
	}
	c.m[k] = entry[T]{v: v, at: at}
	c.mu.Unlock()
}

// read serves k from c when fresh, else loads and caches it. Callers get
// their own copy of the cached value through clone.
func read[T any](c *cache[T], ttl time.Duration, k string, load func() (T, error), clone func(T) T) (T, error) {
	if ttl < 0 {
		return load()
	}
	now := time.Now()
	if v, ok := c.get(k, ttl, now); ok {
		return clone(v), nil
	}
	c.loadMu.Lock()
	if f, ok := c.loading[k]; ok {
		c.loadMu.Unlock()
		<-f.done
		if f.err != nil {
			return f.v, f.err
		}
		return clone(f.v), nil
	}
	f := &flight[T]{done: make(chan struct{})}
	if c.loading == nil {
		c.loading = map[string]*flight[T]{}
	}
	c.loading[k] = f
	c.loadMu.Unlock()

	f.v, f.err = load()
	if f.err == nil {
		c.put(k, f.v, now)
	}
	c.loadMu.Lock()
	delete(c.loading, k)
	c.loadMu.Unlock()
	close(f.done)
	if f.err != nil {
		return f.v, f.err
	}
	return clone(f.v), nil
}

// GetAPIKeyByHash returns the key with that hash, cached for KeyTTL.
func (s *Store) GetAPIKeyByHash(ctx context.Context, hash []byte) (*lectern.APIKey, error) {
	return read(&s.keys, s.keyTTL, string(hash), func() (*lectern.APIKey, error) { return s.Store.GetAPIKeyByHash(ctx, hash) },
		func(k *lectern.APIKey) *lectern.APIKey { c := *k; return &c })
}

// GetExport returns an export job, cached for StatusTTL.
func (s *Store) GetExport(ctx context.Context, id string) (*lectern.ExportJob, error) {
	return read(&s.exports, s.statusTTL, id, func() (*lectern.ExportJob, error) { return s.Store.GetExport(ctx, id) },
		func(e *lectern.ExportJob) *lectern.ExportJob {
			c := *e
			if e.Bundle != nil {
				b := *e.Bundle
				c.Bundle = &b
			}
			return &c
		})
}

// GetUpdate returns an update status, cached for StatusTTL.
func (s *Store) GetUpdate(ctx context.Context, id string) (*lectern.Update, error) {
	return read(&s.updates, s.statusTTL, id, func() (*lectern.Update, error) { return s.Store.GetUpdate(ctx, id) },
		func(u *lectern.Update) *lectern.Update {
			c := *u
			c.Logs = append(make([]string, 0, len(u.Logs)), u.Logs...)
			return &c
		})
}
