package jobs_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/jobs"
	"lectern.dev/lectern/store"
)

// TestRunnerSpareWorker checks Config.SpareWorker: with it, a runner of
// two workers runs one of organization A's three queued exports, and B's
// export, queued next, starts at once on the other worker; without it, A
// takes both workers (its limit is 2) and B waits.
func TestRunnerSpareWorker(t *testing.T) {
	for _, spare := range []bool{true, false} {
		t.Run(fmt.Sprint("spare=", spare), func(t *testing.T) {
			t.Parallel()
			st := openStore(t)
			a := newProject(t, st)
			for _, p := range []*lectern.Project{a, newProjectOf(t, st, a.OrgID), newProjectOf(t, st, a.OrgID)} {
				newExport(t, st, p, time.Time{})
			}
			release := make(chan struct{})
			defer close(release) // (before the runner's Stop, a cleanup)
			h := newFake(st, func(ctx context.Context, _ int, job *store.Job, lease store.Lease) error {
				select {
				case <-release:
				case <-ctx.Done():
					return ctx.Err()
				}
				return completeExport(ctx, st, job, lease)
			})
			exportRunner(t, st, h, jobs.Config{Workers: 2, Poll: 10 * time.Millisecond, OrgLimit: 2, SpareWorker: spare}, nil)

			if rec := recv(t, h.started, 5*time.Second, "A's first export"); rec.Job.ID == "" {
				t.Fatal("no job")
			}
			// Tens of polls of the other worker.
			const quiet = 400 * time.Millisecond
			if spare {
				select {
				case rec := <-h.started:
					t.Fatalf("A's second export %s started on the spare worker", rec.Job.ID)
				case <-time.After(quiet):
				}
			} else {
				recv(t, h.started, 5*time.Second, "A's second export, on the other worker")
			}

			b := newProject(t, st)
			eb := newExport(t, st, b, time.Time{})
			if spare {
				if rec := recv(t, h.started, 5*time.Second, "B's export, on the spare worker"); rec.Job.ID != eb.ID {
					t.Errorf("started %s, want B's export %s", rec.Job.ID, eb.ID)
				}
			} else {
				select {
				case rec := <-h.started:
					t.Errorf("%s started while A's two exports run on both workers", rec.Job.ID)
				case <-time.After(quiet):
				}
			}
		})
	}
}
