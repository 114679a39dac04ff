package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

// availableJob is the condition under which a job may be claimed at $1:
// queued and due, or running under an expired lease; of the kinds in $2.
const availableJob = `((j.state = 'queued' AND j.run_at <= $1) OR (j.state = 'running' AND j.lease_until < $1)) AND j.kind = ANY($2)`

// groupFree is the condition that no other job of j's group holds a live
// lease at $1.
const groupFree = `(j.group_key = '' OR NOT EXISTS (SELECT 1 FROM jobs o WHERE o.group_key = j.group_key AND o.id <> j.id
	AND o.state = 'running' AND o.lease_until >= $1))`

// maxGroupSkips bounds how many busy groups one claim steps over.
const maxGroupSkips = 8

// ClaimJob leases the oldest available job of the given kinds.
//
// Many workers in many processes claim at once: the candidate row is locked
// with FOR UPDATE SKIP LOCKED, so each worker gets a different job without
// waiting. Two jobs of one group could still be picked by two workers whose
// snapshots do not see each other's claim, so a grouped job is claimed only
// under a transaction-scoped advisory lock on its group, after checking
// again (with a fresh snapshot, taken once the lock is held) that no other
// job of the group holds a live lease.
func (s *Store) ClaimJob(ctx context.Context, p store.ClaimParams) (*store.Job, store.Lease, error) {
	if len(p.Kinds) == 0 {
		return nil, store.Lease{}, nil
	}
	at := utc(p.Now)
	// Idle workers poll often: an empty queue costs one read, no transaction.
	var any bool
	if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM jobs j WHERE `+availableJob+`)`, at, p.Kinds).Scan(&any); err != nil {
		return nil, store.Lease{}, wrap(err)
	}
	if !any {
		return nil, store.Lease{}, nil
	}
	var job *store.Job
	var lease store.Lease
	err := s.tx(ctx, func(tx pgx.Tx) error {
		orgs, err := claimOrder(ctx, tx, p, at)
		if err != nil {
			return err
		}
		for _, org := range orgs {
			if org.limit > 0 {
				// Claims of one organization are made one at a time
				// across processes, so that its count of running jobs
				// (taken by claimOrgJob's next statement, which sees
				// every claim committed before the lock was had) stays
				// under its limit; another claimer busy with it sends
				// this one to the next organization.
				var locked bool
				if err := tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock(hashtextextended('lectern.job-org.' || $1, 0))`, org.id).Scan(&locked); err != nil {
					return err
				}
				if !locked {
					continue
				}
			}
			j, l, err := claimOrgJob(ctx, tx, p, at, org.id, org.limit)
			if err != nil {
				return err
			}
			if j == nil {
				continue // its jobs wait for their groups, or other claimers hold them
			}
			job, lease = j, l
			return nil
		}
		return nil
	})
	if err != nil || job == nil {
		return nil, store.Lease{}, err
	}
	return job, lease, nil
}

// claimant is an organization ClaimJob may serve, and its limit.
type claimant struct {
	id    string
	limit int
}

// claimOrder returns the organizations that may have an available job
// (queued ones, listed by a skip scan of the index jobs_queue, and those
// with a lease expired) and room under their limit (jobs of p's kinds
// running), in the order ClaimJob serves them: fewest jobs running, then
// the oldest last claim (none first), then by id.
func claimOrder(ctx context.Context, tx pgx.Tx, p store.ClaimParams, at time.Time) ([]claimant, error) {
	rows, err := tx.Query(ctx, `WITH RECURSIVE q(org) AS (
			SELECT min(org_id) FROM jobs WHERE state = 'queued'
			UNION ALL
			SELECT (SELECT min(org_id) FROM jobs WHERE state = 'queued' AND org_id > q.org) FROM q WHERE q.org IS NOT NULL),
		cand(org) AS (
			SELECT org FROM q WHERE org IS NOT NULL
			UNION SELECT org_id FROM jobs WHERE state = 'running' AND lease_until < $1),
		running AS (
			SELECT org_id, count(*) AS n FROM jobs WHERE state = 'running' AND lease_until >= $1 AND kind = ANY($2) GROUP BY org_id)
		SELECT c.org, coalesce(o.plan, ''), coalesce(r.n, 0)
		FROM cand c
		LEFT JOIN running r ON r.org_id = c.org
		LEFT JOIN orgs o ON o.id = c.org
		LEFT JOIN org_claims oc ON oc.org_id = c.org
		ORDER BY coalesce(r.n, 0), oc.claimed_at NULLS FIRST, c.org`, at, p.Kinds)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var orgs []claimant
	for rows.Next() {
		var c claimant
		var plan string
		var running int
		if err := rows.Scan(&c.id, &plan, &running); err != nil {
			return nil, err
		}
		c.limit = p.LimitFor(lectern.Plan(plan))
		if c.limit > 0 && running >= c.limit {
			continue
		}
		orgs = append(orgs, c)
	}
	return orgs, rows.Err()
}

// claimOrgJob leases organization org's next available job (its lowest
// priority, then oldest, whose group is free), skipping rows other
// claimers hold, unless it already runs limit jobs (0: no limit); nil
// when there is none.
func claimOrgJob(ctx context.Context, tx pgx.Tx, p store.ClaimParams, at time.Time, org string, limit int) (*store.Job, store.Lease, error) {
	busy := []string{}
	// A job whose lease expired (its worker died) first, then the queued
	// ones by priority and age, read in that order from jobs_queue.
	branches := []string{
		`j.state = 'running' AND j.org_id = $4 AND j.lease_until < $1`,
		`j.state = 'queued' AND j.org_id = $4 AND j.run_at <= $1`,
	}
	for range maxGroupSkips {
		var j store.Job
		var token int64
		if len(branches) == 0 {
			return nil, store.Lease{}, nil
		}
		err := tx.QueryRow(ctx, `SELECT j.id, j.kind, j.group_key, j.attempt, j.max_attempts, j.last_error, j.created_at, j.lease_token
			FROM jobs j WHERE `+branches[0]+` AND j.kind = ANY($2) AND `+groupFree+` AND NOT (j.group_key = ANY($3))
			AND ($5 = 0 OR (SELECT count(*) FROM jobs r WHERE r.org_id = $4 AND r.state = 'running' AND r.lease_until >= $1
				AND r.kind = ANY($2)) < $5)
			ORDER BY j.priority, j.created_at, j.id LIMIT 1 FOR UPDATE OF j SKIP LOCKED`, at, p.Kinds, busy, org, limit).
			Scan(&j.ID, &j.Kind, &j.GroupKey, &j.Attempt, &j.MaxAttempts, &j.LastError, &j.CreatedAt, &token)
		if errors.Is(err, pgx.ErrNoRows) {
			branches = branches[1:]
			continue
		}
		if err != nil {
			return nil, store.Lease{}, err
		}
		if j.GroupKey != "" {
			if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('lectern.job-group.' || $1, 0))`, j.GroupKey); err != nil {
				return nil, store.Lease{}, err
			}
			var taken bool
			if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM jobs o WHERE o.group_key = $1 AND o.id <> $2
				AND o.state = 'running' AND o.lease_until >= $3)`, j.GroupKey, j.ID, at).Scan(&taken); err != nil {
				return nil, store.Lease{}, err
			}
			if taken {
				busy = append(busy, j.GroupKey)
				continue
			}
		}
		j.Attempt++
		j.CreatedAt = utc(j.CreatedAt)
		lease := store.Lease{JobID: j.ID, Owner: p.Owner, Token: token + 1}
		// The claim and the organization's last claim, in one statement.
		if _, err := tx.Exec(ctx, `WITH c AS (INSERT INTO org_claims (org_id, claimed_at) VALUES ($7, $5)
				ON CONFLICT (org_id) DO UPDATE SET claimed_at = excluded.claimed_at)
			UPDATE jobs SET state = 'running', attempt = $1, lease_owner = $2, lease_token = $3,
			lease_until = $4, updated_at = $5 WHERE id = $6`,
			j.Attempt, p.Owner, lease.Token, utc(p.Now.Add(p.LeaseFor)), at, j.ID, org); err != nil {
			return nil, store.Lease{}, err
		}
		return &j, lease, nil
	}
	return nil, store.Lease{}, nil
}

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
