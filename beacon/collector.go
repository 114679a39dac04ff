package beacon

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"lectern.dev/lectern"
)

// Store keeps analytics events (store.Store implements it).
type Store interface {
	RecordAnalytics(ctx context.Context, events []lectern.AnalyticsEvent) error
	AnalyticsSalt(ctx context.Context, day time.Time) ([]byte, error)
}

// The collector's bounds: the events queued, a batch, how often the queue
// is flushed, and each client address's rate.
const (
	QueueSize  = 20_000
	batchSize  = 1000
	flushEvery = time.Second
	addrRate   = 20
	addrBurst  = 60
	// maxLimiters bounds the addresses whose rate is kept.
	maxLimiters = 50_000
)

// Collector queues events and records them in batches (Run). Its zero
// value is not usable: use NewCollector.
type Collector struct {
	log   *slog.Logger
	store Store
	queue chan lectern.AnalyticsEvent
	on    atomic.Bool

	dropped, stored, accepted atomic.Int64

	mu       sync.Mutex
	saltDay  string
	salt     []byte
	limiters map[string]*rate.Limiter
}

// NewCollector returns a collector recording into st, with a queue of
// size events; log (nil: none) tells of batches the store refused.
func NewCollector(log *slog.Logger, st Store, size int) *Collector {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Collector{log: log, store: st, queue: make(chan lectern.AnalyticsEvent, size)}
}

// Running reports whether Run runs: events are taken only then.
func (c *Collector) Running() bool { return c.on.Load() }

// Dropped returns the events dropped so far: the queue was full, or the
// store failed to record their batch.
func (c *Collector) Dropped() int64 { return c.dropped.Load() }

// Accepted returns the events queued so far.
func (c *Collector) Accepted() int64 { return c.accepted.Load() }

// Add queues ev without waiting; a full queue drops it (counted).
func (c *Collector) Add(ev lectern.AnalyticsEvent) {
	select {
	case c.queue <- ev:
		c.accepted.Add(1)
	default:
		c.dropped.Add(1)
	}
}

// Drop counts an event dropped before it reached the queue.
func (c *Collector) Drop() { c.dropped.Add(1) }

// Allow takes a token of addr's rate.
func (c *Collector) Allow(addr string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.limiters == nil {
		c.limiters = map[string]*rate.Limiter{}
	}
	if len(c.limiters) >= maxLimiters {
		// Forget the addresses that have been idle long enough to have
		// their whole burst back: forgetting them changes nothing. Only
		// when all are busy is the map started again.
		now := time.Now()
		for a, l := range c.limiters {
			if l.TokensAt(now) >= addrBurst {
				delete(c.limiters, a)
			}
		}
		if len(c.limiters) >= maxLimiters {
			clear(c.limiters)
		}
	}
	l := c.limiters[addr]
	if l == nil {
		l = rate.NewLimiter(addrRate, addrBurst)
		c.limiters[addr] = l
	}
	return l.Allow()
}

// Salt returns today's salt (UTC), read from the store once a day.
func (c *Collector) Salt(ctx context.Context) ([]byte, error) {
	now := time.Now().UTC()
	day := now.Format(time.DateOnly)
	c.mu.Lock()
	salt := c.salt
	if c.saltDay != day {
		salt = nil
	}
	c.mu.Unlock()
	if salt != nil {
		return salt, nil
	}
	salt, err := c.store.AnalyticsSalt(ctx, now)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.saltDay, c.salt = day, salt
	c.mu.Unlock()
	return salt, nil
}

// Run records the queued events in batches until ctx ends, then records
// what is left.
func (c *Collector) Run(ctx context.Context) {
	c.on.Store(true)
	defer c.on.Store(false)
	tick := time.NewTicker(flushEvery)
	defer tick.Stop()
	batch := make([]lectern.AnalyticsEvent, 0, batchSize)
	flush := func() {
		if len(batch) == 0 {
			return
		}
		wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		if err := c.store.RecordAnalytics(wctx, batch); err != nil {
			c.dropped.Add(int64(len(batch)))
			c.log.Warn("analytics: a batch of events could not be recorded; dropped", "events", len(batch), "err", err)
		} else {
			c.stored.Add(int64(len(batch)))
		}
		batch = batch[:0]
	}
	take := func(ev lectern.AnalyticsEvent) {
		batch = append(batch, ev)
		if len(batch) == batchSize {
			flush()
		}
	}
	for {
		select {
		case ev := <-c.queue:
			take(ev)
		case <-tick.C:
			flush()
		case <-ctx.Done():
			for {
				select {
				case ev := <-c.queue:
					take(ev)
				default:
					flush()
					return
				}
			}
		}
	}
}
