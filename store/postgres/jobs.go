package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

// ExtendLease keeps a claim alive until the given time.
func (s *Store) ExtendLease(ctx context.Context, l store.Lease, until time.Time) error {
	tag, err := s.pool.Exec(ctx, `UPDATE jobs SET lease_until = $1 WHERE id = $2 AND state = 'running' AND lease_owner = $3 AND lease_token = $4`,
		utc(until), l.JobID, l.Owner, l.Token)
	if err != nil {
		return wrap(err)
	}
	if tag.RowsAffected() == 0 {
		return store.LeaseLost(l)
	}
	return nil
}

// requeue puts the leased job back to queued at runAt and its record's
// status back to queued.
func (s *Store) requeue(ctx context.Context, l store.Lease, runAt time.Time, reason *string, uncount bool) error {
	return s.tx(ctx, func(tx pgx.Tx) error {
		if err := checkLease(ctx, tx, l); err != nil {
			return err
		}
		var why *string
		if reason != nil {
			r := text(*reason)
			why = &r
		}
		if _, err := tx.Exec(ctx, `UPDATE jobs SET state = 'queued', run_at = $1, lease_owner = NULL, lease_until = NULL, updated_at = $2,
			last_error = coalesce($3, last_error), attempt = CASE WHEN $4 THEN greatest(attempt - 1, 0) ELSE attempt END
			WHERE id = $5`, utc(runAt), now(), why, uncount, l.JobID); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE exports SET status = 'queued' WHERE id = $1 AND status = 'running'`, l.JobID); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `UPDATE updates SET status = 'queued' WHERE id = $1 AND status = 'in_progress'`, l.JobID)
		return err
	})
}

// RetryJob gives the job back to the queue, due at runAt.
func (s *Store) RetryJob(ctx context.Context, l store.Lease, runAt time.Time, reason string) error {
	return s.requeue(ctx, l, runAt, &reason, false)
}

// ReleaseJob gives an unfinished job back at once, not counting the attempt.
func (s *Store) ReleaseJob(ctx context.Context, l store.Lease) error {
	return s.requeue(ctx, l, now(), nil, true)
}

// CountJobs returns job counts per kind and state.
func (s *Store) CountJobs(ctx context.Context) (map[string]map[string]int, error) {
	rows, err := s.pool.Query(ctx, `SELECT kind, state, count(*) FROM jobs GROUP BY kind, state`)
	if err != nil {
		return nil, wrap(err)
	}
	defer rows.Close()
	out := map[string]map[string]int{}
	for rows.Next() {
		var kind, state string
		var n int
		if err := rows.Scan(&kind, &state, &n); err != nil {
			return nil, wrap(err)
		}
		if out[kind] == nil {
			out[kind] = map[string]int{}
		}
		out[kind][state] = n
	}
	return out, wrap(rows.Err())
}

// endJob marks a job done inside tx and drops its lease: the leased job
// its worker ends, or one canceled, whose worker, if any, then gets
// ECONFLICT at its next lease check.
func endJob(ctx context.Context, tx pgx.Tx, id string, at time.Time) error {
	_, err := tx.Exec(ctx, `UPDATE jobs SET state = 'done', lease_owner = NULL, lease_until = NULL, updated_at = $2 WHERE id = $1`, id, at)
	return err
}

// QueuePlace says where queued job id waits (store.Jobs.QueuePlace).
func (s *Store) QueuePlace(ctx context.Context, id string, p store.ClaimParams) (store.QueuePlace, error) {
	var q store.QueuePlace
	var org, state, plan string
	var priority int
	var created time.Time
	err := s.pool.QueryRow(ctx, `SELECT j.org_id, j.state, j.priority, j.created_at, coalesce(o.plan, '')
		FROM jobs j LEFT JOIN orgs o ON o.id = j.org_id WHERE j.id = $1`, id).Scan(&org, &state, &priority, &created, &plan)
	if errors.Is(err, pgx.ErrNoRows) {
		return q, lectern.Errorf(lectern.ENOTFOUND, "job %s not found", id)
	}
	if err != nil {
		return q, wrap(err)
	}
	q.Limit = p.LimitFor(lectern.Plan(plan))
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM jobs WHERE org_id = $1 AND state = 'running' AND lease_until >= now()
		AND kind = ANY($2)`, org, p.Kinds).Scan(&q.Running); err != nil {
		return q, wrap(err)
	}
	if state != "queued" {
		return q, nil
	}
	err = s.pool.QueryRow(ctx, `SELECT count(*) FROM jobs WHERE org_id = $1 AND state = 'queued'
		AND (priority, created_at, id) < ($2, $3, $4) AND kind = ANY($5)`, org, priority, created, id, p.Kinds).Scan(&q.Position)
	q.Position++
	return q, wrap(err)
}
