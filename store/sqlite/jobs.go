package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

// availableJob is the condition under which a job may be claimed at :now
// (parameter 1 and 2): queued and due, or running under an expired lease.
const availableJob = `((j.state = 'queued' AND j.run_at <= ?) OR (j.state = 'running' AND j.lease_until < ?))`

// ClaimJob leases the oldest available job of the given kinds.
func (s *Store) ClaimJob(ctx context.Context, p store.ClaimParams) (*store.Job, store.Lease, error) {
	if len(p.Kinds) == 0 {
		return nil, store.Lease{}, nil
	}
	nowTS := ts(p.Now)
	// Idle workers poll often: look for work on a reader first, so an empty
	// queue costs no write transaction.
	kindArgs := withKinds(p.Kinds, nowTS, nowTS)
	var any1 int
	err := s.r.QueryRowContext(ctx, `SELECT 1 FROM jobs j WHERE `+availableJob+` AND j.kind IN (`+placeholders(len(p.Kinds))+`) LIMIT 1`,
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
		orgs, err := claimOrder(ctx, tx, p, nowTS)
		if err != nil {
			return err
		}
		for _, org := range orgs {
			j, created, token, err := nextOrgJob(ctx, tx, p, org.id, nowTS)
			if err != nil {
				return err
			}
			if j == nil {
				continue // its jobs wait for their groups, or are not due
			}
			j.Attempt++
			j.CreatedAt = fromTS(created)
			j.OrgRunning = org.running
			// Another of its organization's jobs is queued.
			if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM jobs WHERE state = 'queued' AND org_id = ? AND id <> ?
				AND kind IN (`+placeholders(len(p.Kinds))+`))`, withKinds(p.Kinds, org.id, j.ID)...).Scan(&j.OrgQueued); err != nil {
				return err
			}
			lease = store.Lease{JobID: j.ID, Owner: p.Owner, Token: token + 1}
			if _, err := tx.ExecContext(ctx, `UPDATE jobs SET state = 'running', attempt = ?, lease_owner = ?, lease_token = ?,
				lease_until = ?, updated_at = ? WHERE id = ?`,
				j.Attempt, p.Owner, lease.Token, ts(p.Now.Add(p.LeaseFor)), nowTS, j.ID); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO org_claims (org_id, claimed_at) VALUES (?, ?)
				ON CONFLICT (org_id) DO UPDATE SET claimed_at = excluded.claimed_at`, org.id, nowTS); err != nil {
				return err
			}
			job = j
			return nil
		}
		return nil
	})
	if err != nil || job == nil {
		return nil, store.Lease{}, err
	}
	return job, lease, nil
}

// nextOrgJob returns organization org's next available job of p's kinds
// whose group is free: one whose lease expired (its worker died) first,
// then its queued ones by priority and age, read in that order from the
// index jobs_queue; nil when there is none.
func nextOrgJob(ctx context.Context, tx *sql.Tx, p store.ClaimParams, org string, nowTS int64) (*store.Job, int64, int64, error) {
	kinds := placeholders(len(p.Kinds))
	for _, branch := range []string{
		`j.state = 'running' AND j.org_id = ? AND j.lease_until < ?`,
		`j.state = 'queued' AND j.org_id = ? AND j.run_at <= ?`,
	} {
		args := withKinds(p.Kinds, org, nowTS)
		args = append(args, nowTS)
		var j store.Job
		var created, token int64
		err := tx.QueryRowContext(ctx, `SELECT j.id, j.kind, j.group_key, j.attempt, j.max_attempts, j.last_error, j.created_at, j.lease_token
			FROM jobs j WHERE `+branch+` AND j.kind IN (`+kinds+`)
			AND (j.group_key = '' OR NOT EXISTS (SELECT 1 FROM jobs o WHERE o.group_key = j.group_key AND o.id <> j.id
				AND o.state = 'running' AND o.lease_until >= ?))
			ORDER BY j.priority, j.created_at, j.id LIMIT 1`, args...).
			Scan(&j.ID, &j.Kind, &j.GroupKey, &j.Attempt, &j.MaxAttempts, &j.LastError, &created, &token)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, 0, 0, err
		}
		return &j, created, token, nil
	}
	return nil, 0, 0, nil
}

// claimant is an organization ClaimJob may serve, and its jobs of the
// kinds claimed running under a live lease.
type claimant struct {
	id      string
	running int
}

// claimOrder returns the organizations that may have an available job
// (queued ones, listed by a skip scan of the index jobs_queue, and those
// with a lease expired) and room under their limit (jobs of p's kinds
// running), in the order ClaimJob serves them: fewest jobs running, then
// the oldest last claim (none first), then by id.
func claimOrder(ctx context.Context, tx *sql.Tx, p store.ClaimParams, nowTS int64) ([]claimant, error) {
	args := withKinds(p.Kinds, nowTS, nowTS)
	rows, err := tx.QueryContext(ctx, `WITH RECURSIVE q(org) AS (
			SELECT min(org_id) FROM jobs WHERE state = 'queued'
			UNION ALL
			SELECT (SELECT min(org_id) FROM jobs WHERE state = 'queued' AND org_id > q.org) FROM q WHERE q.org IS NOT NULL),
		cand(org) AS (
			SELECT org FROM q WHERE org IS NOT NULL
			UNION SELECT org_id FROM jobs WHERE state = 'running' AND lease_until < ?),
		running AS (
			SELECT org_id, count(*) AS n FROM jobs WHERE state = 'running' AND lease_until >= ?
				AND kind IN (`+placeholders(len(p.Kinds))+`) GROUP BY org_id)
		SELECT c.org, coalesce(o.plan, ''), coalesce(r.n, 0)
		FROM cand c
		LEFT JOIN running r ON r.org_id = c.org
		LEFT JOIN orgs o ON o.id = c.org
		LEFT JOIN org_claims oc ON oc.org_id = c.org
		ORDER BY coalesce(r.n, 0), coalesce(oc.claimed_at, 0), c.org`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var orgs []claimant
	for rows.Next() {
		var c claimant
		var plan string
		if err := rows.Scan(&c.id, &plan, &c.running); err != nil {
			return nil, err
		}
		if limit := p.LimitFor(lectern.Plan(plan)); limit > 0 && c.running >= limit {
			continue
		}
		orgs = append(orgs, c)
	}
	return orgs, rows.Err()
}

// ExtendLease keeps a claim alive until the given time.
func (s *Store) ExtendLease(ctx context.Context, l store.Lease, until time.Time) error {
	res, err := s.w.ExecContext(ctx, `UPDATE jobs SET lease_until = ? WHERE id = ? AND state = 'running' AND lease_owner = ? AND lease_token = ?`,
		ts(until), l.JobID, l.Owner, l.Token)
	if err != nil {
		return wrap(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return store.LeaseLost(l)
	}
	return nil
}

// requeue puts the leased job back to queued at runAt and its record's
// status back to queued.
func (s *Store) requeue(ctx context.Context, l store.Lease, runAt time.Time, reason *string, uncount bool) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		if err := checkLease(ctx, tx, l); err != nil {
			return err
		}
		if err := requeueJob(ctx, tx, l, runAt, reason, uncount); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE exports SET status = 'queued' WHERE id = ? AND status = 'running'`, l.JobID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE updates SET status = 'queued' WHERE id = ? AND status = 'in_progress'`, l.JobID)
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
	rows, err := s.r.QueryContext(ctx, `SELECT kind, state, count(*) FROM jobs GROUP BY kind, state`)
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
func endJob(ctx context.Context, tx *sql.Tx, id string, at int64) error {
	_, err := tx.ExecContext(ctx, `UPDATE jobs SET state = 'done', lease_owner = NULL, lease_until = NULL, updated_at = ? WHERE id = ?`, at, id)
	return err
}

// requeueJob puts the leased job back to queued at runAt inside tx, the
// lease checked by the caller: recording reason when set, and not counting
// the attempt when uncount is set.
func requeueJob(ctx context.Context, tx *sql.Tx, l store.Lease, runAt time.Time, reason *string, uncount bool) error {
	q := `UPDATE jobs SET state = 'queued', run_at = ?, lease_owner = NULL, lease_until = NULL, updated_at = ?`
	args := []any{ts(runAt), ts(now())}
	if reason != nil {
		q += `, last_error = ?`
		args = append(args, *reason)
	}
	if uncount {
		q += `, attempt = max(attempt - 1, 0)`
	}
	_, err := tx.ExecContext(ctx, q+` WHERE id = ?`, append(args, l.JobID)...)
	return err
}

// QueuePlace says where queued job id waits (store.Jobs.QueuePlace).
func (s *Store) QueuePlace(ctx context.Context, id string, p store.ClaimParams) (store.QueuePlace, error) {
	var q store.QueuePlace
	var org, state, plan string
	var priority int
	var created int64
	err := s.r.QueryRowContext(ctx, `SELECT j.org_id, j.state, j.priority, j.created_at, coalesce(o.plan, '')
		FROM jobs j LEFT JOIN orgs o ON o.id = j.org_id WHERE j.id = ?`, id).Scan(&org, &state, &priority, &created, &plan)
	if errors.Is(err, sql.ErrNoRows) {
		return q, lectern.Errorf(lectern.ENOTFOUND, "job %s not found", id)
	}
	if err != nil {
		return q, wrap(err)
	}
	q.Limit = p.LimitFor(lectern.Plan(plan))
	kinds := placeholders(len(p.Kinds))
	args := withKinds(p.Kinds, org, ts(time.Now()))
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM jobs WHERE org_id = ? AND state = 'running' AND lease_until >= ?
		AND kind IN (`+kinds+`)`, args...).Scan(&q.Running); err != nil {
		return q, wrap(err)
	}
	if state != "queued" {
		return q, nil
	}
	args = withKinds(p.Kinds, org, priority, priority, created, created, id)
	err = s.r.QueryRowContext(ctx, `SELECT count(*) FROM jobs WHERE org_id = ? AND state = 'queued'
		AND (priority < ? OR priority = ? AND (created_at < ? OR created_at = ? AND id < ?)) AND kind IN (`+kinds+`)`, args...).Scan(&q.Position)
	q.Position++
	return q, wrap(err)
}

// withKinds returns the arguments args followed by the kinds, for a
// query whose placeholders of the kinds come after those of args.
func withKinds(kinds []string, args ...any) []any {
	for _, k := range kinds {
		args = append(args, k)
	}
	return args
}
