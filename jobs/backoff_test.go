package jobs_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/jobs"
	"lectern.dev/lectern/store"
)

// downStore is a store whose job queue fails for its first failures
// claims, as when the database is down, recording when each claim came.
type downStore struct {
	*spyStore
	failures int
	mu       sync.Mutex
	at       []time.Time
}

func (s *downStore) ClaimJob(ctx context.Context, p store.ClaimParams) (*store.Job, store.Lease, error) {
	s.mu.Lock()
	s.at = append(s.at, time.Now())
	n := len(s.at)
	s.mu.Unlock()
	if n <= s.failures {
		return nil, store.Lease{}, &lectern.Error{Code: lectern.EUNAVAILABLE, Message: "The database is unavailable.", Err: errors.New("connection refused")}
	}
	return s.spyStore.ClaimJob(ctx, p)
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// While the job queue fails, a worker waits longer after each failure
// (the poll interval doubled each time), logs one error and then
// warnings, and runs queued jobs as soon as the queue answers again.
func TestRunnerBacksOffWhileQueueFails(t *testing.T) {
	t.Parallel()
	base := openStore(t)
	p := newProject(t, base)
	e := newExport(t, base, p, time.Time{})
	st := &downStore{spyStore: base, failures: 5}
	h := newFake(base, nil)
	var logs lockedBuffer
	const poll = 4 * time.Millisecond
	r := jobs.NewRunner(slog.New(slog.NewTextHandler(&logs, nil)), st, map[string]jobs.Handler{store.KindExport: h},
		jobs.Config{Workers: 1, Poll: poll, Owner: "backoff-" + unique()}, nil)
	must(t, r.Start(context.Background()), "Start")
	t.Cleanup(r.Stop)

	waitFor(t, 10*time.Second, "the export to complete after the outage", func() bool {
		return getExport(t, base, e.ID).Status == lectern.ExportCompleted
	})
	st.mu.Lock()
	at := append([]time.Time(nil), st.at...)
	st.mu.Unlock()
	// The wait after the k-th failure is at least poll << k.
	for k := 1; k <= st.failures; k++ {
		if gap, min := at[k].Sub(at[k-1]), poll<<k; gap < min {
			t.Errorf("claim %d came %v after failure %d, want at least %v", k+1, gap, k, min)
		}
	}
	out := logs.String()
	if n := strings.Count(out, "level=ERROR"); n != 1 {
		t.Errorf("%d error lines during the outage, want 1:\n%s", n, out)
	}
	if n := strings.Count(out, "job queue still failing"); n != st.failures-1 {
		t.Errorf("%d warnings, want %d:\n%s", n, st.failures-1, out)
	}
	if !strings.Contains(out, "job queue reachable again") {
		t.Errorf("no recovery line:\n%s", out)
	}
}
