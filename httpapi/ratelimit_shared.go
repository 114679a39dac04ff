package httpapi

import (
	"context"
	"log/slog"
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// TokenSource is a set of token buckets shared by every API process, kept
// in the database. store.Store implements it (store.RateLimits).
type TokenSource interface {
	// TakeRateTokens refills the bucket named key at rate per second up to
	// burst, then takes up to want whole tokens; it returns how many it
	// took and the tokens left.
	TakeRateTokens(ctx context.Context, key string, want int, rate float64, burst int, now time.Time) (taken int, left float64, err error)
}

// stashFor is how long a process keeps tokens it took from the shared
// bucket; unspent ones are dropped after that.
const stashFor = time.Second

// NewSharedLimiter returns a Limiter whose budget per key is one token
// bucket in src, shared by every API process that uses the same src.
//
// A database round trip per request would cost more than the request, so
// each process takes tokens from the shared bucket in batches (a tenth of a
// second's worth, at most a quarter of the burst, at least one) and spends
// them locally. The shared bucket never hands out more than
// Rate×T + Burst tokens over any time T, so:
//
//   - all processes together allow at most Rate×T + Burst requests of a key
//     in any window of length T, plus at most one batch per process (tokens
//     taken just before the window and spent in it; a process drops tokens
//     it has not spent within a second);
//   - a client may be refused a little early, while up to one batch less one
//     token sits unspent in each other process.
//
// While src fails (the database is unreachable), each process falls back to
// a bucket of its own in memory and logs a warning at most once a minute.
func NewSharedLimiter(src TokenSource, cfg RateLimit, log *slog.Logger) Limiter {
	return NewSharedLimiterIn(src, "api-key", cfg, log)
}

// NewSharedLimiterIn is NewSharedLimiter for budgets named by something
// other than an API key: scope names their buckets in src ("org" for
// organizations), so that they never share one with another limiter's.
func NewSharedLimiterIn(src TokenSource, scope string, cfg RateLimit, log *slog.Logger) Limiter {
	cfg = cfg.withDefaults()
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	batch := int(math.Ceil(cfg.Rate / 10))
	batch = max(1, min(batch, cfg.Burst/4))
	return &sharedLimiter{src: src, prefix: scope + ":", cfg: cfg, batch: batch, log: log, local: &limiter{cfg: cfg}, keys: map[string]*stash{}}
}

// sharedLimiter spends, per key, tokens taken in batches from src.
type sharedLimiter struct {
	src    TokenSource
	prefix string // of the buckets' names in src
	cfg    RateLimit
	batch  int
	log    *slog.Logger
	local  *limiter // while src fails

	mu    sync.Mutex
	keys  map[string]*stash
	sweep time.Time

	warnMu sync.Mutex
	warned time.Time
}

// stash is what this process holds of one key's shared bucket.
type stash struct {
	mu     sync.Mutex
	tokens int       // taken from the shared bucket, not yet spent
	at     time.Time // when they were taken
	left   float64   // the shared bucket's tokens after that take
	// until is when the shared bucket will hold a token again, after a
	// take that got none: requests before it are refused without asking.
	until time.Time
	used  atomic.Int64 // Unix nanoseconds of the last request
}

func (l *sharedLimiter) stash(key string, now time.Time) *stash {
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.sweep) > time.Minute { // forget idle keys
		for k, s := range l.keys {
			if now.Sub(time.Unix(0, s.used.Load())) > time.Minute {
				delete(l.keys, k)
			}
		}
		l.sweep = now
	}
	s := l.keys[key]
	if s == nil {
		s = &stash{}
		l.keys[key] = s
	}
	return s
}

// Allow spends a token of key's budget, taking a batch from the shared
// bucket when this process holds none.
func (l *sharedLimiter) Allow(ctx context.Context, key string, now time.Time) (bool, int, int) {
	s := l.stash(key, now)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.used.Store(now.UnixNano())
	if s.tokens > 0 && now.Sub(s.at) > stashFor {
		s.tokens = 0
	}
	if s.tokens == 0 {
		if now.Before(s.until) {
			return false, 0, secondsUntil(now, s.until)
		}
		n, left, err := l.src.TakeRateTokens(ctx, l.prefix+key, l.batch, l.cfg.Rate, l.cfg.Burst, now)
		if err != nil {
			l.warn(err, now)
			return l.local.take(key, now)
		}
		s.tokens, s.left, s.at = n, left, now
		if n == 0 {
			wait := min((1-left)/l.cfg.Rate, time.Minute.Seconds()) // ask again at least once a minute
			s.until = now.Add(time.Duration(wait * float64(time.Second)))
			return false, 0, secondsUntil(now, s.until)
		}
	}
	s.tokens--
	avail := float64(s.tokens) + s.left
	return true, int(avail), int(math.Ceil((float64(l.cfg.Burst) - avail) / l.cfg.Rate))
}

func secondsUntil(now, t time.Time) int {
	return max(1, int(math.Ceil(t.Sub(now).Seconds())))
}

func (l *sharedLimiter) warn(err error, now time.Time) {
	l.warnMu.Lock()
	if now.Sub(l.warned) < time.Minute {
		l.warnMu.Unlock()
		return
	}
	l.warned = now
	l.warnMu.Unlock()
	l.log.Warn("shared rate limits unavailable; limiting per process meanwhile", "err", err)
}
