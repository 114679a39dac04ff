package httpapi

import (
	"context"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"lectern.dev/lectern"
)

// RateLimit is a token bucket: Rate requests per second on average, with
// bursts up to Burst. A zero Rate disables the limit.
type RateLimit struct {
	Rate  float64
	Burst int
}

// withDefaults returns r with a zero Burst set to two seconds' worth (at
// least one request).
func (r RateLimit) withDefaults() RateLimit {
	if r.Burst <= 0 {
		r.Burst = max(1, int(r.Rate*2))
	}
	return r
}

// Limiter decides whether a request made with an API key may go on. Allow
// spends one token of the key's budget at now. It returns whether the
// request may go on, about how many requests are left in the burst, and
// the seconds until the budget is full again or, when refused, until a
// request will be allowed. It never fails: a limiter that cannot reach
// shared state decides on its own.
type Limiter interface {
	Allow(ctx context.Context, key string, now time.Time) (ok bool, remaining, reset int)
}

// NewMemoryLimiter returns a Limiter that keeps one token bucket per key in
// this process's memory: with several API processes, each allows the
// whole budget. It is the limiter of the embedded (single-process) setup.
func NewMemoryLimiter(cfg RateLimit) Limiter {
	return &limiter{cfg: cfg.withDefaults()}
}

// maxBuckets bounds the buckets a limiter keeps in memory; overflowKey is
// the bucket that keys beyond it share while none is idle.
const (
	maxBuckets  = 100_000
	overflowKey = "\x00overflow"
)

// limiter holds one token bucket per key (API key, organization or client
// address), in memory, at most maxBuckets of them.
type limiter struct {
	cfg     RateLimit
	mu      sync.Mutex
	buckets map[string]*bucket
	sweep   time.Time
}

type bucket struct {
	tokens float64
	last   time.Time
}

// Allow spends a token of key's bucket.
func (l *limiter) Allow(_ context.Context, key string, now time.Time) (bool, int, int) {
	return l.take(key, now)
}

// take spends a token of key's bucket. It returns whether the request may
// go on, the tokens left, and the seconds until a token is back.
func (l *limiter) take(key string, now time.Time) (ok bool, remaining int, reset int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.buckets == nil {
		l.buckets = map[string]*bucket{}
	}
	b := l.buckets[key]
	full := b == nil && len(l.buckets) >= maxBuckets
	// Forget idle, full buckets once a minute, or when the bound is
	// reached (at most once a second: a sweep visits every bucket).
	if now.Sub(l.sweep) > time.Minute || full && now.Sub(l.sweep) > time.Second {
		for k, b := range l.buckets {
			if now.Sub(b.last).Seconds()*l.cfg.Rate >= float64(l.cfg.Burst) {
				delete(l.buckets, k)
			}
		}
		l.sweep = now
		b = l.buckets[key] // the sweep may have forgotten key's bucket
	}
	if full && len(l.buckets) >= maxBuckets {
		// Keys are client addresses, which a flood can invent: past
		// the bound, new ones share one bucket rather than grow it.
		key = overflowKey
		b = l.buckets[key]
	}
	if b == nil {
		b = &bucket{tokens: float64(l.cfg.Burst), last: now}
		l.buckets[key] = b
	}
	b.tokens = math.Min(float64(l.cfg.Burst), b.tokens+now.Sub(b.last).Seconds()*l.cfg.Rate)
	b.last = now
	if b.tokens >= 1 {
		b.tokens--
		return true, int(b.tokens), int(math.Ceil((float64(l.cfg.Burst) - b.tokens) / l.cfg.Rate))
	}
	return false, 0, int(math.Ceil((1 - b.tokens) / l.cfg.Rate))
}

// rateLimit applies the per-key and per-organization limits of an
// authenticated request and sets the RateLimit-* headers, which describe
// whichever of the two budgets has fewer requests left.
func (a *api) rateLimit(next http.Handler) http.Handler {
	perKey, perOrg := a.cfg.RateLimit.Rate > 0, a.cfg.OrgRateLimit.Rate > 0
	if !perKey && !perOrg {
		return next
	}
	keyLimit := []string{strconv.Itoa(a.cfg.RateLimit.Burst)}
	orgLimit := []string{strconv.Itoa(a.cfg.OrgRateLimit.Burst)}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, now := principalOf(r.Context()), time.Now()
		ok, remaining, reset, limit := true, math.MaxInt, 0, keyLimit
		msg := "Too many requests for this API key; retry after the number of seconds in Retry-After."
		if perKey {
			ok, remaining, reset = a.limiter.Allow(r.Context(), p.KeyID, now)
		}
		if perOrg && ok {
			if oOK, oRemaining, oReset := a.orgLimiter.Allow(r.Context(), p.OrgID, now); !oOK || oRemaining < remaining {
				ok, remaining, reset, limit = oOK, oRemaining, oReset, orgLimit
				msg = "Too many requests for this organization (all its API keys together); retry after the number of seconds in Retry-After."
			}
		}
		h := w.Header()
		// Canonical names, shared value slices: no allocation per request.
		h["Ratelimit-Limit"] = limit
		h["Ratelimit-Remaining"] = smallNumber(remaining)
		h["Ratelimit-Reset"] = smallNumber(max(reset, 1))
		if !ok {
			writeError(w, r, a.log, &lectern.Error{Code: lectern.ERATELIMITED, RetryAfterSeconds: max(reset, 1), Message: msg})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// smallNumbers are header values of the numbers 0 to 1023, shared so that
// rate-limit headers cost no allocation; net/http never modifies them.
var smallNumbers = func() (t [1024][]string) {
	for i := range t {
		t[i] = []string{strconv.Itoa(i)}
	}
	return t
}()

func smallNumber(n int) []string {
	if n >= 0 && n < len(smallNumbers) {
		return smallNumbers[n]
	}
	return []string{strconv.Itoa(n)}
}
