package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"

	"lectern.dev/lectern/store"
	"lectern.dev/lectern/store/storetest"
)

// BenchmarkClaim10k compares, in one run, the claim of 10,000 queued jobs
// by ClaimJob (fair between organizations, issue 22) with the claim before
// it (todayClaim), on the queues of storetest.ClaimQueues, and prints a
// table of both side by side. Figures only:
//
//	go test -run '^$' -bench Claim10k ./store/sqlite
func BenchmarkClaim10k(b *testing.B) {
	storetest.BenchClaim10k(b, storetest.ClaimBench{Open: func(b *testing.B) (store.Store, storetest.ClaimTable, storetest.ClaimFunc, storetest.ClaimFunc) {
		s, err := Open(context.Background(), filepath.Join(b.TempDir(), "claims.db"))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		today := func(ctx context.Context, p store.ClaimParams) (*store.Job, store.Lease, error) {
			return todayClaim(ctx, s, p)
		}
		return s, claimTable{s}, today, s.ClaimJob
	}})
}

// claimTable writes the claim benchmarks' rows straight into the jobs
// table.
type claimTable struct{ s *Store }

// InsertJobs adds the rows in one transaction.
func (t claimTable) InsertJobs(ctx context.Context, jobs []storetest.BenchJob) error {
	return t.s.tx(ctx, func(tx *sql.Tx) error {
		st, err := tx.PrepareContext(ctx, `INSERT INTO jobs (id, kind, group_key, state, run_at, max_attempts, created_at, updated_at, org_id, priority)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer st.Close()
		for _, j := range jobs {
			at := ts(j.CreatedAt)
			if _, err := st.ExecContext(ctx, j.ID, j.Kind, j.GroupKey, j.State, at, store.MaxAttempts, at, at, j.OrgID, j.Priority); err != nil {
				return err
			}
		}
		return nil
	})
}

// EndJob marks the job done, as its worker does.
func (t claimTable) EndJob(ctx context.Context, id string) error {
	return t.s.tx(ctx, func(tx *sql.Tx) error { return endJob(ctx, tx, id, ts(now())) })
}

// todayAvailable is availableJob as todayClaim had it.
const todayAvailable = `((j.state = 'queued' AND j.run_at <= ?) OR (j.state = 'running' AND j.lease_until < ?))`

// todayClaim is the baseline of BenchmarkClaim10k: ClaimJob as it was
// before fair claiming (issue 22), copied unchanged: the oldest available
// job of the given kinds whose group has no other job under a live lease,
// one queue for every organization.
func todayClaim(ctx context.Context, s *Store, p store.ClaimParams) (*store.Job, store.Lease, error) {
	if len(p.Kinds) == 0 {
		return nil, store.Lease{}, nil
	}
	nowTS := ts(p.Now)
	// Idle workers poll often: look for work on a reader first, so an empty
	// queue costs no write transaction.
	kindArgs := []any{nowTS, nowTS}
	for _, k := range p.Kinds {
		kindArgs = append(kindArgs, k)
	}
	var any1 int
	err := s.r.QueryRowContext(ctx, `SELECT 1 FROM jobs j WHERE `+todayAvailable+` AND j.kind IN (`+placeholders(len(p.Kinds))+`) LIMIT 1`,
		kindArgs...).Scan(&any1)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, store.Lease{}, nil
	}
	if err != nil {
		return nil, store.Lease{}, wrap(err)
	}
	var job *store.Job
	var lease store.Lease
	err = s.tx(ctx, func(tx *sql.Tx) error {
		args := []any{nowTS, nowTS}
		for _, k := range p.Kinds {
			args = append(args, k)
		}
		args = append(args, nowTS)
		row := tx.QueryRowContext(ctx, `SELECT j.id, j.kind, j.group_key, j.attempt, j.max_attempts, j.last_error, j.created_at, j.lease_token
			FROM jobs j WHERE `+todayAvailable+` AND j.kind IN (`+placeholders(len(p.Kinds))+`)
			AND (j.group_key = '' OR NOT EXISTS (SELECT 1 FROM jobs o WHERE o.group_key = j.group_key AND o.id <> j.id
				AND o.state = 'running' AND o.lease_until >= ?))
			ORDER BY j.created_at, j.id LIMIT 1`, args...)
		var j store.Job
		var created, token int64
		err := row.Scan(&j.ID, &j.Kind, &j.GroupKey, &j.Attempt, &j.MaxAttempts, &j.LastError, &created, &token)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		j.Attempt++
		j.CreatedAt = fromTS(created)
		lease = store.Lease{JobID: j.ID, Owner: p.Owner, Token: token + 1}
		if _, err := tx.ExecContext(ctx, `UPDATE jobs SET state = 'running', attempt = ?, lease_owner = ?, lease_token = ?,
			lease_until = ?, updated_at = ? WHERE id = ?`,
			j.Attempt, p.Owner, lease.Token, ts(p.Now.Add(p.LeaseFor)), nowTS, j.ID); err != nil {
			return err
		}
		job = &j
		return nil
	})
	if err != nil || job == nil {
		return nil, store.Lease{}, err
	}
	return job, lease, nil
}
