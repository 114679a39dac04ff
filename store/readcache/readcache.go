// Package readcache wraps a store.Store with short-lived caches of the
// reads that API clients repeat most: API keys (every request), and export
// jobs and update statuses (CI clients poll them). Only the API uses it;
// job workers read the store directly.
//
// What it trades: a key revoked by another process stops working within
// KeyTTL. Jobs and updates in a final state (completed, failed, success,
// failure, superseded) never change, and are served from the cache for
// StatusTTL. Those still queued or running are read afresh: concurrent
// requests share one load, but only a load that began after the request
// arrived, so every answer is at least as new as the store was when the
// request came in. A client polling several API processes in turn
// therefore never sees progress go back. Only successful lookups are
// cached, so a new key, job or update is visible at once, and errors are
// never cached.
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

// cache is a map of entries with a time of reading, cleared when full,
// and the loads in progress, by key.
type cache[T any] struct {
	mu     sync.RWMutex
	m      map[string]entry[T]
	loadMu sync.Mutex
	slots  map[string]*slot[T]
}

// slot holds the load of a key in progress (cur) and the one that follows
// it (next), which requests arriving during cur wait for: cur began before
// they arrived, so its answer may be older than they may accept.
type slot[T any] struct {
	cur, next *flight[T]
}

// flight is a load that callers wait for.
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

// loadTimeout bounds a shared load, which runs apart from the request
// that started it: other requests wait for it too.
const loadTimeout = 30 * time.Second

// read serves k from c when a cached value is fresh and final (final nil:
// every value is, and a load in progress may be shared), and otherwise
// loads it, sharing the load with the requests that arrived before it
// began. The load runs apart from ctx, so that a caller going away does
// not fail the others waiting for it; each caller stops waiting when its
// own ctx ends. Callers get their own copy of a shared value through clone.
func read[T any](ctx context.Context, c *cache[T], ttl time.Duration, k string, final func(T) bool,
	load func(context.Context) (T, error), clone func(T) T) (T, error) {
	if ttl < 0 {
		return load(ctx)
	}
	now := time.Now()
	if v, ok := c.get(k, ttl, now); ok && (final == nil || final(v)) {
		return clone(v), nil
	}
	f, lead := c.join(k, final == nil)
	if lead {
		go c.run(k, f, func() (T, error) {
			lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), loadTimeout)
			defer cancel()
			return load(lctx)
		})
	}
	select {
	case <-f.done:
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
	if f.err != nil {
		return f.v, f.err
	}
	return clone(f.v), nil
}

// join returns the flight a request arriving now waits for, and whether
// the caller must start it: a new one when no load is in progress; with
// shared, the one in progress; else the next one, started once the current
// one ends.
func (c *cache[T]) join(k string, shared bool) (*flight[T], bool) {
	c.loadMu.Lock()
	if c.slots == nil {
		c.slots = map[string]*slot[T]{}
	}
	s := c.slots[k]
	if s == nil {
		s = &slot[T]{}
		c.slots[k] = s
	}
	switch {
	case shared && s.cur != nil:
		f := s.cur
		c.loadMu.Unlock()
		return f, false
	case s.next != nil:
		f := s.next
		c.loadMu.Unlock()
		return f, false
	case s.cur == nil:
		f := &flight[T]{done: make(chan struct{})}
		s.cur = f
		c.loadMu.Unlock()
		return f, true
	}
	f := &flight[T]{done: make(chan struct{})}
	s.next = f
	prev := s.cur
	c.loadMu.Unlock()
	<-prev.done
	c.loadMu.Lock()
	s.cur, s.next = f, nil
	c.loadMu.Unlock()
	return f, true
}

// run loads k into f, caches a success, and lets f's waiters go.
func (c *cache[T]) run(k string, f *flight[T], load func() (T, error)) {
	at := time.Now()
	f.v, f.err = load()
	if f.err == nil {
		c.put(k, f.v, at)
	}
	c.loadMu.Lock()
	if s := c.slots[k]; s != nil && s.cur == f {
		s.cur = nil
		if s.next == nil {
			delete(c.slots, k)
		}
	}
	c.loadMu.Unlock()
	close(f.done)
}

// GetAPIKeyByHash returns the key with that hash, cached for KeyTTL.
func (s *Store) GetAPIKeyByHash(ctx context.Context, hash []byte) (*lectern.APIKey, error) {
	return read(ctx, &s.keys, s.keyTTL, string(hash), nil, func(ctx context.Context) (*lectern.APIKey, error) { return s.Store.GetAPIKeyByHash(ctx, hash) },
		func(k *lectern.APIKey) *lectern.APIKey { c := *k; return &c })
}

// GetExport returns an export job: when completed or failed, cached for
// StatusTTL; else as the store has it now.
func (s *Store) GetExport(ctx context.Context, id string) (*lectern.ExportJob, error) {
	final := func(e *lectern.ExportJob) bool {
		return e.Status == lectern.ExportCompleted || e.Status == lectern.ExportFailed
	}
	return read(ctx, &s.exports, s.statusTTL, id, final, func(ctx context.Context) (*lectern.ExportJob, error) { return s.Store.GetExport(ctx, id) },
		func(e *lectern.ExportJob) *lectern.ExportJob {
			c := *e
			if e.Bundle != nil {
				b := *e.Bundle
				c.Bundle = &b
			}
			return &c
		})
}

// GetUpdate returns an update status: when it has ended, cached for
// StatusTTL; else as the store has it now.
func (s *Store) GetUpdate(ctx context.Context, id string) (*lectern.Update, error) {
	final := func(u *lectern.Update) bool {
		return u.Status != lectern.UpdateQueued && u.Status != lectern.UpdateInProgress
	}
	return read(ctx, &s.updates, s.statusTTL, id, final, func(ctx context.Context) (*lectern.Update, error) { return s.Store.GetUpdate(ctx, id) },
		func(u *lectern.Update) *lectern.Update {
			c := *u
			c.Logs = append(make([]string, 0, len(u.Logs)), u.Logs...)
			return &c
		})
}
