// Package jobs runs Lectern's durable background work: deployment updates
// and static exports. Jobs live in the store (store.Jobs); a Runner claims
// them under a lease that a heartbeat keeps alive, so a job whose process
// dies is taken over by another (or the restarted) process once its lease
// expires, and every write a job makes is fenced by its lease, so a job
// is done exactly once in effect.
package jobs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

// Handler does the work of one job kind.
type Handler interface {
	// Run does the job. It returns nil once it has recorded the job's
	// outcome in the store, a success or a failure that retrying cannot fix.
	// Any other error ends the attempt: the runner retries the job later,
	// or, after its last attempt, calls Fail.
	Run(ctx context.Context, job *store.Job, lease store.Lease) error
	// Fail records the job as failed for good because of err.
	Fail(ctx context.Context, job *store.Job, lease store.Lease, err error) error
}

// Config tunes a Runner. Zero values take the defaults named.
type Config struct {
	Owner        string        // this process's worker identity; default host-pid-random
	Workers      int           // concurrent jobs; default 2
	LeaseFor     time.Duration // how long a claim lives without a heartbeat; default 15s
	Poll         time.Duration // how often an idle worker looks for work; default 250ms
	DrainTimeout time.Duration // how long Stop waits for running jobs; default 30s
	// OrgLimit bounds the jobs of one organization running at once, in
	// every process (store.ClaimParams); 0 for no bound. PlanLimits bound
	// them by plan instead, for the plans they name.
	OrgLimit   int
	PlanLimits map[lectern.Plan]int
	// SpareWorker keeps the last free worker of a Runner of more than
	// one for an organization with no job running (in any process): one
	// organization's backlog then never takes every worker, and another
	// organization's job starts at once rather than after one of the
	// backlog's ends.
	SpareWorker bool
}

func (c *Config) defaults() {
	if c.Owner == "" {
		host, _ := os.Hostname()
		var b [4]byte
		rand.Read(b[:])
		c.Owner = fmt.Sprintf("%s-%d-%s", host, os.Getpid(), hex.EncodeToString(b[:]))
	}
	if c.Workers <= 0 {
		c.Workers = 2
	}
	if c.LeaseFor <= 0 {
		c.LeaseFor = 15 * time.Second
	}
	if c.Poll <= 0 {
		c.Poll = 250 * time.Millisecond
	}
	if c.DrainTimeout <= 0 {
		c.DrainTimeout = 30 * time.Second
	}
}

// Runner claims and runs jobs with a fixed number of workers.
type Runner struct {
	log      *slog.Logger
	store    store.Store
	handlers map[string]Handler
	kinds    []string
	cfg      Config
	metrics  *Metrics

	// claimMu serializes the workers' claims, so that each knows how
	// many of them run a job (running) when it claims (SpareWorker).
	claimMu  sync.Mutex
	running  int
	wake     chan struct{}
	stopOnce sync.Once
	stop     chan struct{} // closed by Stop: claim no more
	hardStop context.CancelFunc
	wg       sync.WaitGroup
}

// NewRunner returns a Runner for the given handlers, keyed by job kind.
// metrics may be nil.
func NewRunner(log *slog.Logger, st store.Store, handlers map[string]Handler, cfg Config, metrics *Metrics) *Runner {
	cfg.defaults()
	r := &Runner{log: log, store: st, handlers: handlers, cfg: cfg, metrics: metrics,
		wake: make(chan struct{}, 1), stop: make(chan struct{})}
	for k := range handlers {
		r.kinds = append(r.kinds, k)
	}
	return r
}

// Owner returns the runner's worker identity.
func (r *Runner) Owner() string { return r.cfg.Owner }

// Start starts the workers. They run until Stop or until ctx ends; when ctx
// ends, running jobs are canceled and given back to the queue.
func (r *Runner) Start(ctx context.Context) error {
	ctx, r.hardStop = context.WithCancel(ctx)
	for i := 0; i < r.cfg.Workers; i++ {
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			r.work(ctx)
		}()
	}
	r.log.Info("job workers started", "workers", r.cfg.Workers, "owner", r.cfg.Owner, "lease", r.cfg.LeaseFor.String())
	return nil
}

// Notify wakes an idle worker at once (after this process queued a job).
func (r *Runner) Notify() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// Stop stops claiming jobs and waits up to DrainTimeout for running ones to
// finish; jobs still running then are canceled and given back to the queue.
// It is idempotent.
func (r *Runner) Stop() {
	r.stopOnce.Do(func() {
		close(r.stop)
		done := make(chan struct{})
		go func() { r.wg.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(r.cfg.DrainTimeout):
			r.log.Warn("jobs still running after drain timeout; giving them back to the queue")
			if r.hardStop != nil {
				r.hardStop()
			}
			<-done
		}
		if r.hardStop != nil {
			r.hardStop()
		}
	})
}

func (r *Runner) stopping() bool {
	select {
	case <-r.stop:
		return true
	default:
		return false
	}
}

func (r *Runner) work(ctx context.Context) {
	idle := time.NewTimer(0)
	defer idle.Stop()
	failures := 0 // consecutive job queue errors
	for {
		select {
		case <-ctx.Done():
			return
		case <-r.stop:
			return
		case <-r.wake:
		case <-idle.C:
		}
		wait := r.cfg.Poll
		for !r.stopping() && ctx.Err() == nil {
			ran, err := r.runOne(ctx, func() {
				// Said as soon as a claim works, not after its job.
				if failures > 0 {
					r.log.Info("job queue reachable again", "after_failures", failures)
					failures = 0
				}
			})
			if err != nil {
				// The store is down or unreachable: back off, and say so
				// once as an error, then as warnings until it is back.
				failures++
				wait = queueBackoff(r.cfg.Poll, failures)
				if failures == 1 {
					r.log.Error("job queue error; retrying with back-off", "err", err, "retry_in", wait.String())
				} else {
					r.log.Warn("job queue still failing", "err", err, "failures", failures, "retry_in", wait.String())
				}
				break
			}
			if !ran {
				break
			}
		}
		idle.Reset(wait)
	}
}

// maxQueueBackoff bounds the wait between claims while the job queue fails.
const maxQueueBackoff = 30 * time.Second

// queueBackoff is the wait after the n-th consecutive job queue error:
// the poll interval doubled per failure, at most maxQueueBackoff, and
// never less than the poll interval itself.
func queueBackoff(poll time.Duration, n int) time.Duration {
	d := poll << min(n, 16)
	if d <= 0 || d > maxQueueBackoff {
		d = maxQueueBackoff
	}
	return max(d, poll)
}

// runOne claims one job and runs it. It reports whether a job was claimed.
func (r *Runner) runOne(ctx context.Context, reached func()) (bool, error) {
	job, lease, err := r.claim(ctx)
	if err != nil {
		return false, err
	}
	reached()
	if job == nil {
		return false, nil
	}
	defer func() {
		r.claimMu.Lock()
		r.running--
		r.claimMu.Unlock()
	}()
	h := r.handlers[job.Kind]
	log := r.log.With("job", job.ID, "kind", job.Kind, "attempt", job.Attempt)
	start := time.Now()
	// The job's context ends when the lease is lost or on a hard stop.
	jctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	hbDone := make(chan struct{})
	go func() {
		defer close(hbDone)
		r.heartbeat(jctx, lease, cancel)
	}()
	var runErr error
	if job.MaxAttempts > 0 && job.Attempt > job.MaxAttempts {
		runErr = lectern.Errorf(lectern.EINTERNAL, "gave up after %d attempts: %s", job.MaxAttempts, job.LastError)
		job.Attempt = job.MaxAttempts // so the outcome below is final
	} else {
		log.Info("job started")
		runErr = r.safeRun(jctx, h, job, lease)
	}
	cancel(nil)
	<-hbDone
	outcome := r.settle(ctx, jctx, h, job, lease, runErr, log)
	r.metrics.observe(job.Kind, outcome, time.Since(start))
	return true, nil
}

// claim claims a job for a worker, with the runner's limits; the last
// free worker, with SpareWorker, only a job of an organization with
// nothing running (a limit of one for every organization).
func (r *Runner) claim(ctx context.Context) (*store.Job, store.Lease, error) {
	r.claimMu.Lock()
	defer r.claimMu.Unlock()
	p := store.ClaimParams{Kinds: r.kinds, Owner: r.cfg.Owner, Now: time.Now(), LeaseFor: r.cfg.LeaseFor,
		OrgLimit: r.cfg.OrgLimit, PlanLimits: r.cfg.PlanLimits}
	if r.cfg.SpareWorker && r.cfg.Workers > 1 && r.running+1 == r.cfg.Workers {
		p.OrgLimit, p.PlanLimits = 1, nil
	}
	job, lease, err := r.store.ClaimJob(ctx, p)
	if job != nil {
		r.running++
	}
	return job, lease, err
}

// safeRun runs the handler, turning a panic into an error.
func (r *Runner) safeRun(ctx context.Context, h Handler, job *store.Job, lease store.Lease) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("job panicked: %v", p)
		}
	}()
	return h.Run(ctx, job, lease)
}

var errLeaseLost = errors.New("lease lost")

func (r *Runner) heartbeat(ctx context.Context, lease store.Lease, cancel context.CancelCauseFunc) {
	t := time.NewTicker(r.cfg.LeaseFor / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			err := r.store.ExtendLease(ctx, lease, time.Now().Add(r.cfg.LeaseFor))
			if lectern.ErrorCode(err) == lectern.ECONFLICT {
				cancel(errLeaseLost)
				return
			}
			if err != nil && ctx.Err() == nil {
				r.log.Warn("job heartbeat failed", "job", lease.JobID, "err", err)
			}
		}
	}
}

// settle records what happened to a run and returns the outcome label.
func (r *Runner) settle(ctx, jctx context.Context, h Handler, job *store.Job, lease store.Lease, runErr error, log *slog.Logger) string {
	bg := context.WithoutCancel(ctx)
	switch {
	case runErr == nil:
		log.Info("job finished")
		return "done"
	case errors.Is(context.Cause(jctx), errLeaseLost) || r.leaseLost(bg, lease, runErr):
		log.Warn("job given up: it was canceled, or another worker took it over (lease lost)")
		return "lease_lost"
	case ctx.Err() != nil || r.stopping() && errors.Is(runErr, context.Canceled):
		if err := r.store.ReleaseJob(bg, lease); err != nil {
			log.Warn("could not give the job back; it resumes when its lease expires", "err", err)
		} else {
			log.Info("job given back to the queue")
		}
		return "released"
	case job.Attempt < job.MaxAttempts && retryable(runErr):
		delay := backoff(job.Attempt)
		log.Warn("job attempt failed; retrying", "err", runErr, "retry_in", delay.String())
		if err := r.store.RetryJob(bg, lease, time.Now().Add(delay), runErr.Error()); err != nil {
			log.Error("could not schedule the retry", "err", err)
		}
		return "retried"
	default:
		log.Error("job failed", "err", runErr)
		if err := safeFail(bg, h, job, lease, runErr); err != nil {
			log.Error("could not record the failure", "err", err)
		}
		return "failed"
	}
}

// leaseLost reports whether a run that ended with a conflict did so because
// another worker took the job over (the handler's own fenced write was
// refused before the heartbeat noticed).
func (r *Runner) leaseLost(ctx context.Context, lease store.Lease, runErr error) bool {
	if lectern.ErrorCode(runErr) != lectern.ECONFLICT {
		return false
	}
	return lectern.ErrorCode(r.store.ExtendLease(ctx, lease, time.Now().Add(r.cfg.LeaseFor))) == lectern.ECONFLICT
}

// safeFail calls h.Fail, turning a panic into an error.
func safeFail(ctx context.Context, h Handler, job *store.Job, lease store.Lease, cause error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("recording the failure panicked: %v", p)
		}
	}()
	return h.Fail(ctx, job, lease, cause)
}

// retryable reports whether another attempt may succeed: internal and
// unavailable errors are; coded domain errors are not.
func retryable(err error) bool {
	switch lectern.ErrorCode(err) {
	case lectern.EINTERNAL, lectern.EUNAVAILABLE:
		return true
	}
	return false
}

func backoff(attempt int) time.Duration {
	d := time.Second << min(attempt, 6)
	return min(d, time.Minute)
}

// Metrics are the job counters and timings exported to Prometheus.
type Metrics struct {
	runs     *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

// NewMetrics registers job metrics on reg, including a gauge of queued and
// running jobs read from st at scrape time.
func NewMetrics(reg prometheus.Registerer, st store.Jobs) *Metrics {
	m := &Metrics{
		runs: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "lectern_job_runs_total",
			Help: "Job runs by kind and outcome (done, failed, retried, released, lease_lost)."}, []string{"kind", "outcome"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "lectern_job_duration_seconds",
			Help: "Job run durations by kind and outcome.", Buckets: prometheus.ExponentialBuckets(0.01, 2.5, 12)}, []string{"kind", "outcome"}),
	}
	reg.MustRegister(m.runs, m.duration, &queueCollector{st: st,
		desc: prometheus.NewDesc("lectern_jobs", "Jobs in the store by kind and state.", []string{"kind", "state"}, nil)})
	return m
}

func (m *Metrics) observe(kind, outcome string, d time.Duration) {
	if m == nil {
		return
	}
	m.runs.WithLabelValues(kind, outcome).Inc()
	m.duration.WithLabelValues(kind, outcome).Observe(d.Seconds())
}

type queueCollector struct {
	st   store.Jobs
	desc *prometheus.Desc
}

func (c *queueCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *queueCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	counts, err := c.st.CountJobs(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(c.desc, err)
		return
	}
	// Known kinds and states are always reported, as 0 when empty.
	for _, kind := range []string{store.KindUpdate, store.KindExport} {
		if counts[kind] == nil {
			counts[kind] = map[string]int{}
		}
	}
	for kind, states := range counts {
		for _, state := range []string{"queued", "running", "done"} {
			if _, ok := states[state]; !ok {
				states[state] = 0
			}
		}
		for state, n := range states {
			ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, float64(n), kind, state)
		}
	}
}
