package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"lectern.dev/lectern/store"
)

// ClaimJob leases the next job of the given kinds: of the organization
// that has the fewest jobs running and was served least recently, among
// those under their limit of jobs running at once (p.LimitFor), its lowest
// priority (updates before exports), then oldest, job.
//
// Many workers in many processes claim at once. The candidate row is
// locked with FOR UPDATE SKIP LOCKED, so each worker gets a different job
// without waiting. An organization with a limit is claimed for under a
// transaction-scoped advisory lock (tried, not waited for: a claimer that
// finds it held goes on to the next organization), taken in a statement
// before the one that counts its running jobs, whose snapshot then sees
// every claim committed before. Two jobs of one group could still be
// picked by two workers whose snapshots do not see each other's claim, so
// a grouped job is leased under an advisory lock on its group, by an
// update that checks again (with its own snapshot, taken once the lock is
// held) that no other job of the group holds a live lease.
//
// A claim of an organization's job is one round trip to the database:
// the transaction's start, the organization's lock, the pick of the job
// with its group's lock, the lease and the commit, sent at once
// (pickAndLease). The order of the organizations is read before, at most
// every orderFor (claimorder.go); an idle worker's poll reads only that.
func (s *Store) ClaimJob(ctx context.Context, p store.ClaimParams) (*store.Job, store.Lease, error) {
	if len(p.Kinds) == 0 {
		return nil, store.Lease{}, nil
	}
	at := utc(p.Now)
	var conn *pgxpool.Conn
	defer func() {
		// (A connection left in a transaction by an error is closed,
		// not pooled: pgxpool's Release.)
		if conn != nil {
			conn.Release()
		}
	}()
	// The organizations tried, and whether for a job whose lease expired
	// too: the order read again may say one has such a job now.
	tried := map[string]bool{}
	for _, fresh := range []bool{false, true} {
		orgs, kept, err := s.claims.order(ctx, s.pool, p, at, fresh)
		if err != nil {
			return nil, store.Lease{}, wrap(err)
		}
		if j, l, err := s.claimFirst(ctx, &conn, p, at, orgs, tried); err != nil || j != nil {
			return j, l, wrap(err)
		}
		if !kept {
			break
		}
		// The order kept is read again, on a connection of the pool's:
		// this claim's goes back first, or claims that wait for one
		// could hold them all.
		if conn != nil {
			conn.Release()
			conn = nil
		}
	}
	return nil, store.Lease{}, nil
}

// claimFirst claims the next job of the first of orgs that has one and
// was not tried yet (tried), on *conn (acquired when first needed); those
// another claim of the Store tries now come last, so that claims at once
// go to different organizations rather than to one's lock.
func (s *Store) claimFirst(ctx context.Context, conn **pgxpool.Conn, p store.ClaimParams, at time.Time, orgs []claimant, tried map[string]bool) (*store.Job, store.Lease, error) {
	var later []claimant
	try := func(org claimant, anyway bool) (*store.Job, store.Lease, error) {
		if expired, ok := tried[org.id]; ok && (expired || !org.expired) {
			return nil, store.Lease{}, nil
		}
		if !s.claims.start(org.id, anyway) {
			later = append(later, org)
			return nil, store.Lease{}, nil
		}
		tried[org.id] = org.expired
		var j *store.Job
		var l store.Lease
		var err error
		if *conn == nil {
			*conn, err = s.pool.Acquire(ctx)
		}
		if err == nil {
			j, l, err = claimOrgJob(ctx, (*conn).Conn(), p, at, org)
		}
		s.claims.end(org.id, j != nil, at)
		if j != nil {
			// Another of its jobs waits, as far as the order knows (it
			// reads at most two queued, this one among them unless it
			// was an expired lease's): not read again for each claim,
			// which cost a tenth of the claims per second.
			j.OrgQueued = org.queued > 1 || org.queued == 1 && org.expired
		}
		// (None: its jobs wait for their groups, or other claimers hold
		// them or it.)
		return j, l, err
	}
	for _, org := range orgs {
		if j, l, err := try(org, false); err != nil || j != nil {
			return j, l, err
		}
	}
	for _, org := range later {
		if j, l, err := try(org, true); err != nil || j != nil {
			return j, l, err
		}
	}
	return nil, store.Lease{}, nil
}

// groupFree is the condition that no other job of j's group holds a live
// lease at the time in parameter at ("$1").
func groupFree(at string) string {
	return `(j.group_key = '' OR NOT EXISTS (SELECT 1 FROM jobs o WHERE o.group_key = j.group_key AND o.id <> j.id
		AND o.state = 'running' AND o.lease_until >= ` + at + `))`
}

// maxGroupSkips bounds how many busy groups one claim steps over.
const maxGroupSkips = 8

// claimant is an organization ClaimJob may serve, its limit, and whether
// it has a job whose lease expired.
type claimant struct {
	id      string
	limit   int
	expired bool
	queued  int // its jobs queued as far as the order knows, at most 2
}

// claimOrderSQL is readClaimOrder's query.
const claimOrderSQL = `WITH RECURSIVE q(org) AS (
			SELECT min(org_id) FROM jobs WHERE state = 'queued'
			UNION ALL
			SELECT (SELECT min(org_id) FROM jobs WHERE state = 'queued' AND org_id > q.org) FROM q WHERE q.org IS NOT NULL),
		expired(org) AS (
			SELECT DISTINCT org_id FROM jobs WHERE state = 'running' AND lease_until < $1),
		cand(org) AS (
			SELECT org FROM q WHERE org IS NOT NULL
			UNION SELECT org FROM expired),
		running AS (
			SELECT org_id, count(*) AS n FROM jobs WHERE state = 'running' AND lease_until >= $1 AND kind = ANY($2) GROUP BY org_id)
		SELECT c.org, coalesce(o.plan, ''), coalesce(r.n, 0), EXISTS (SELECT 1 FROM expired e WHERE e.org = c.org), oc.claimed_at,
			(SELECT count(*) FROM (SELECT 1 FROM jobs w WHERE w.state = 'queued' AND w.org_id = c.org AND w.kind = ANY($2) LIMIT 2) w)
		FROM cand c
		LEFT JOIN running r ON r.org_id = c.org
		LEFT JOIN orgs o ON o.id = c.org
		LEFT JOIN org_claims oc ON oc.org_id = c.org
		ORDER BY coalesce(r.n, 0), oc.claimed_at NULLS FIRST, c.org`

// claimOrgJob leases organization org's next available job: a job whose
// lease expired (its worker died) first, then the queued ones by priority
// and age (read in that order from jobs_queue), whose group is free,
// skipping rows other claimers hold, unless org already runs its limit of
// jobs; nil when there is none. Each try is a transaction of its own on
// c.
func claimOrgJob(ctx context.Context, c *pgx.Conn, p store.ClaimParams, at time.Time, org claimant) (*store.Job, store.Lease, error) {
	branches := []string{`j.state = 'queued' AND j.org_id = $4 AND j.run_at <= $1`}
	if org.expired {
		branches = append([]string{`j.state = 'running' AND j.org_id = $4 AND j.lease_until < $1`}, branches...)
	}
	busy := []string{}
	for range maxGroupSkips {
		if len(branches) == 0 {
			break
		}
		j, token, leased, err := pickAndLease(ctx, c, p, at, org, branches[0], busy)
		if err != nil {
			return nil, store.Lease{}, err
		}
		if j == nil {
			branches = branches[1:]
			continue
		}
		if leased {
			j.Attempt++
			j.CreatedAt = utc(j.CreatedAt)
			return j, store.Lease{JobID: j.ID, Owner: p.Owner, Token: token + 1}, nil
		}
		busy = append(busy, j.GroupKey) // another claimer leased a job of its group first
	}
	return nil, store.Lease{}, nil
}

// orgLocked and picked are pickAndLease's transaction's settings: whether
// it holds its organization's lock, and the job it picked (settings,
// since the statements are sent at once and one cannot read the result
// of another).
const (
	orgLocked = "lectern.org_locked"
	picked    = "lectern.picked_job"
)

// pickAndLease sends, at once, on c: the start of a transaction; the
// lock of org (when it has a limit); the pick of the row of its next job
// of branch (a condition on j) that no claimer holds, whose group is free
// and not in busy, with the lock of its group; the lease of that job
// (which records its organization's claim), unless another job of its
// group holds a live lease, checked again with a snapshot taken under the
// group's lock; and the commit. It returns the job picked, nil when there
// was none (or the organization's lock was held, or it runs its limit of
// jobs), with its lease token before the lease; and whether it leased it.
func pickAndLease(ctx context.Context, c *pgx.Conn, p store.ClaimParams, at time.Time, org claimant, branch string, busy []string) (*store.Job, int64, bool, error) {
	var b pgx.Batch
	b.Queue(`BEGIN`)
	b.Queue(`SELECT set_config('`+orgLocked+`', CASE WHEN $2::bool
			THEN pg_try_advisory_xact_lock(hashtextextended('lectern.job-org.' || $1, 0)) ELSE true END::text, true),
		set_config('`+picked+`', '', true)`,
		org.id, org.limit > 0)
	// The pick is a CTE of its own, so that the locks and the setting of
	// the outer select are taken for the row picked only.
	b.Queue(`WITH running AS (SELECT count(*) AS n FROM jobs r WHERE r.org_id = $4 AND r.state = 'running' AND r.lease_until >= $1
			AND r.kind = ANY($2)),
		pick AS MATERIALIZED (SELECT j.id, j.kind, j.group_key, j.attempt, j.max_attempts, j.last_error, j.created_at, j.lease_token, running.n
			FROM jobs j, running WHERE current_setting('`+orgLocked+`') = 'true' AND `+branch+` AND j.kind = ANY($2) AND `+groupFree("$1")+`
			AND NOT (j.group_key = ANY($3))
			AND ($5 = 0 OR running.n < $5)
			ORDER BY j.priority, j.created_at, j.id LIMIT 1 FOR UPDATE OF j SKIP LOCKED)
		SELECT pick.id, pick.kind, pick.group_key, pick.attempt, pick.max_attempts, pick.last_error, pick.created_at, pick.lease_token, pick.n,
			set_config('`+picked+`', pick.id, true),
			CASE WHEN pick.group_key <> '' THEN pg_advisory_xact_lock(hashtextextended('lectern.job-group.' || pick.group_key, 0))::text END
		FROM pick`, at, p.Kinds, busy, org.id, org.limit)
	b.Queue(`WITH u AS (UPDATE jobs AS j SET state = 'running', attempt = j.attempt + 1, lease_owner = $1,
			lease_token = j.lease_token + 1, lease_until = $2, updated_at = $3
			WHERE j.id = current_setting('`+picked+`') AND `+groupFree("$3")+`
			RETURNING j.org_id)
		INSERT INTO org_claims (org_id, claimed_at) SELECT org_id, $3 FROM u
		ON CONFLICT (org_id) DO UPDATE SET claimed_at = excluded.claimed_at`,
		p.Owner, utc(p.Now.Add(p.LeaseFor)), at)
	b.Queue(`COMMIT`)
	br := c.SendBatch(ctx, &b)
	var j store.Job
	var token int64
	found, leased := false, false
	_, err := br.Exec()
	if err == nil {
		_, err = br.Exec()
	}
	if err == nil {
		var set string
		var lock *string
		err = br.QueryRow().Scan(&j.ID, &j.Kind, &j.GroupKey, &j.Attempt, &j.MaxAttempts, &j.LastError, &j.CreatedAt, &token, &j.OrgRunning, &set, &lock)
		found = err == nil
		if errors.Is(err, pgx.ErrNoRows) {
			err = nil
		}
	}
	if err == nil {
		var tag pgconn.CommandTag
		tag, err = br.Exec()
		leased = err == nil && tag.RowsAffected() == 1
	}
	if err == nil {
		_, err = br.Exec()
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		if _, rerr := c.Exec(ctx, `ROLLBACK`); rerr != nil {
			return nil, 0, false, errors.Join(err, rerr)
		}
		return nil, 0, false, err
	}
	if !found {
		return nil, 0, false, nil
	}
	return &j, token, leased, nil
}
