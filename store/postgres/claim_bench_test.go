package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"lectern.dev/lectern/store"
	"lectern.dev/lectern/store/postgres"
	"lectern.dev/lectern/store/postgres/pgtest"
	"lectern.dev/lectern/store/storetest"
)

// BenchmarkClaim10k compares, in one run, the claim of 10,000 queued jobs
// by ClaimJob (fair between organizations, issue 22) with the claim before
// it (todayClaim), on the queues of storetest.ClaimQueues, each in a fresh
// schema of TEST_DATABASE_URL (or the local test database), and prints a
// table of both side by side. Figures only:
//
//	go test -run '^$' -bench Claim10k ./store/postgres
func BenchmarkClaim10k(b *testing.B) {
	storetest.BenchClaim10k(b, storetest.ClaimBench{Open: func(b *testing.B) (store.Store, storetest.ClaimTable, storetest.ClaimFunc, storetest.ClaimFunc) {
		ctx := context.Background()
		// Room for every worker of the widest queue, in both pools.
		dsn := pgtest.WithParams(b, pgtest.URL(b), map[string]string{"pool_max_conns": "8"})
		s, err := postgres.Open(ctx, dsn)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		pool, err := pgxpool.New(ctx, dsn)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(pool.Close)
		today := func(ctx context.Context, p store.ClaimParams) (*store.Job, store.Lease, error) {
			return todayClaim(ctx, pool, p)
		}
		return s, claimTable{pool}, today, s.ClaimJob
	}})
}

// claimTable writes the claim benchmarks' rows straight into the jobs
// table.
type claimTable struct{ pool *pgxpool.Pool }

// InsertJobs copies the rows in, then has the table analyzed once it is
// large, as autovacuum would.
func (t claimTable) InsertJobs(ctx context.Context, jobs []storetest.BenchJob) error {
	rows := make([][]any, len(jobs))
	for i, j := range jobs {
		at := j.CreatedAt.UTC()
		rows[i] = []any{j.ID, j.Kind, j.GroupKey, j.State, at, store.MaxAttempts, at, at, j.OrgID, j.Priority}
	}
	if _, err := t.pool.CopyFrom(ctx, pgx.Identifier{"jobs"},
		[]string{"id", "kind", "group_key", "state", "run_at", "max_attempts", "created_at", "updated_at", "org_id", "priority"},
		pgx.CopyFromRows(rows)); err != nil {
		return err
	}
	if len(jobs) > 1000 {
		_, err := t.pool.Exec(ctx, `ANALYZE jobs`)
		return err
	}
	return nil
}

// EndJob marks the job done, as its worker does.
func (t claimTable) EndJob(ctx context.Context, id string) error {
	_, err := t.pool.Exec(ctx, `UPDATE jobs SET state = 'done', lease_owner = NULL, lease_until = NULL, updated_at = $2 WHERE id = $1`,
		id, time.Now().UTC())
	return err
}

// The baseline of BenchmarkClaim10k: ClaimJob as it was before fair
// claiming (issue 22), copied unchanged but for the pool it runs on: the
// oldest available job of the given kinds whose group has no other job
// under a live lease, one queue for every organization.

// todayAvailable is the condition under which a job may be claimed at $1:
// queued and due, or running under an expired lease; of the kinds in $2.
const todayAvailable = `((j.state = 'queued' AND j.run_at <= $1) OR (j.state = 'running' AND j.lease_until < $1)) AND j.kind = ANY($2)`

// todayGroupFree is the condition that no other job of j's group holds a
// live lease at $1.
const todayGroupFree = `(j.group_key = '' OR NOT EXISTS (SELECT 1 FROM jobs o WHERE o.group_key = j.group_key AND o.id <> j.id
	AND o.state = 'running' AND o.lease_until >= $1))`

// todayMaxGroupSkips bounds how many busy groups one claim steps over.
const todayMaxGroupSkips = 8

// todayClaim leases the oldest available job of the given kinds, as
// ClaimJob did before issue 22.
func todayClaim(ctx context.Context, pool *pgxpool.Pool, p store.ClaimParams) (*store.Job, store.Lease, error) {
	if len(p.Kinds) == 0 {
		return nil, store.Lease{}, nil
	}
	at := todayUTC(p.Now)
	var any bool
	if err := pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM jobs j WHERE `+todayAvailable+`)`, at, p.Kinds).Scan(&any); err != nil {
		return nil, store.Lease{}, err
	}
	if !any {
		return nil, store.Lease{}, nil
	}
	var job *store.Job
	var lease store.Lease
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		busy := []string{}
		for range todayMaxGroupSkips {
			var j store.Job
			var token int64
			err := tx.QueryRow(ctx, `SELECT j.id, j.kind, j.group_key, j.attempt, j.max_attempts, j.last_error, j.created_at, j.lease_token
				FROM jobs j WHERE `+todayAvailable+` AND `+todayGroupFree+` AND NOT (j.group_key = ANY($3))
				ORDER BY j.created_at, j.id LIMIT 1 FOR UPDATE OF j SKIP LOCKED`, at, p.Kinds, busy).
				Scan(&j.ID, &j.Kind, &j.GroupKey, &j.Attempt, &j.MaxAttempts, &j.LastError, &j.CreatedAt, &token)
			if errors.Is(err, pgx.ErrNoRows) {
				return nil
			}
			if err != nil {
				return err
			}
			if j.GroupKey != "" {
				if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('lectern.job-group.' || $1, 0))`, j.GroupKey); err != nil {
					return err
				}
				var taken bool
				if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM jobs o WHERE o.group_key = $1 AND o.id <> $2
					AND o.state = 'running' AND o.lease_until >= $3)`, j.GroupKey, j.ID, at).Scan(&taken); err != nil {
					return err
				}
				if taken {
					busy = append(busy, j.GroupKey)
					continue
				}
			}
			j.Attempt++
			j.CreatedAt = todayUTC(j.CreatedAt)
			lease = store.Lease{JobID: j.ID, Owner: p.Owner, Token: token + 1}
			if _, err := tx.Exec(ctx, `UPDATE jobs SET state = 'running', attempt = $1, lease_owner = $2, lease_token = $3,
				lease_until = $4, updated_at = $5 WHERE id = $6`,
				j.Attempt, p.Owner, lease.Token, todayUTC(p.Now.Add(p.LeaseFor)), at, j.ID); err != nil {
				return err
			}
			job = &j
			return nil
		}
		return nil
	})
	if err != nil || job == nil {
		return nil, store.Lease{}, err
	}
	return job, lease, nil
}

// todayUTC is a time as the store keeps it: UTC, to the microsecond.
func todayUTC(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }
