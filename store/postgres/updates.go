package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

// CreateUpdate queues an update and supersedes older queued ones of its
// project. The project's row is locked first, so concurrent triggers of
// one project (in any process) supersede one another in order, and a
// deleted project (or one DeleteProject is deleting) is ENOTFOUND.
func (s *Store) CreateUpdate(ctx context.Context, u *lectern.Update) error {
	if u.ID == "" {
		u.ID = lectern.NewID(lectern.PrefixUpdate)
	}
	if u.CreatedAt.IsZero() {
		u.CreatedAt = now()
	}
	u.Status = lectern.UpdateQueued
	if u.Logs == nil {
		u.Logs = []string{}
	}
	at := utc(u.CreatedAt)
	defer s.claims.forget() // (after the commit)
	return s.tx(ctx, func(tx pgx.Tx) error {
		var orgID string
		err := tx.QueryRow(ctx, `SELECT org_id FROM projects WHERE id = $1 AND deleted_at IS NULL FOR NO KEY UPDATE`, u.ProjectID).Scan(&orgID)
		if errors.Is(err, pgx.ErrNoRows) {
			return store.NotFound("project", u.ProjectID)
		}
		if err != nil {
			return err
		}
		u.OrgID = orgID
		// Older queued updates of the project will never be built: end
		// them. Their jobs' rows are locked first, as a worker starting
		// one (StartUpdate) locks its job's row before its update's: a
		// start in progress is waited for, and the next statement, which
		// sees it, leaves a started update alone. (Ending the jobs of the
		// updates queued when the statement began would end the job of
		// one that started meanwhile, which then stayed in_progress.)
		if _, err := tx.Exec(ctx, `SELECT id FROM jobs WHERE group_key = $1 AND kind = $2 AND state <> 'done' ORDER BY id FOR UPDATE`,
			u.ProjectID, store.KindUpdate); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `UPDATE updates SET status = 'superseded', superseded_by = $1, ended_at = $2,
			summary = 'Superseded by a newer update (' || $1 || ') before it started.'
			WHERE project_id = $3 AND status = 'queued' RETURNING id`, u.ID, at, u.ProjectID)
		if err != nil {
			return err
		}
		superseded, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE jobs SET state = 'done', updated_at = $1 WHERE id = ANY($2)`, at, superseded); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO updates (id, project_id, org_id, status, source, created_at, summary, logs_json)
			VALUES ($1, $2, $3, 'queued', $4, $5, $6, '[]')`, u.ID, u.ProjectID, orgID, u.Source, at, text(u.Summary)); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO jobs (id, kind, group_key, state, run_at, max_attempts, created_at, updated_at, org_id, priority)
			VALUES ($1, $2, $3, 'queued', $4, $5, $4, $4, $6, $7)`, u.ID, store.KindUpdate, u.ProjectID, at, store.MaxAttempts, orgID, store.JobPriority(store.KindUpdate))
		return err
	})
}

const updateCols = `id, project_id, org_id, status, source, created_at, started_at, ended_at,
	summary, commit_json, logs_json, superseded_by, deployment_id`

// updateListCols are updateCols with an empty build log: ListUpdates
// leaves the logs out.
const updateListCols = `id, project_id, org_id, status, source, created_at, started_at, ended_at,
	summary, commit_json, '[]', superseded_by, deployment_id`

func scanUpdate(row pgx.Row) (*lectern.Update, error) {
	var u lectern.Update
	var status string
	var commitJSON, superseded, dep *string
	var logsJSON string
	if err := row.Scan(&u.ID, &u.ProjectID, &u.OrgID, &status, &u.Source, &u.CreatedAt, &u.StartedAt, &u.EndedAt,
		&u.Summary, &commitJSON, &logsJSON, &superseded, &dep); err != nil {
		return nil, err
	}
	u.Status, u.CreatedAt = lectern.UpdateStatus(status), utc(u.CreatedAt)
	u.StartedAt, u.EndedAt = utcPtr(u.StartedAt), utcPtr(u.EndedAt)
	if superseded != nil {
		u.SupersededBy = *superseded
	}
	if dep != nil {
		u.DeploymentID = *dep
	}
	if commitJSON != nil {
		u.Commit = new(lectern.Commit)
		if err := json.Unmarshal([]byte(*commitJSON), u.Commit); err != nil {
			return nil, err
		}
	}
	if err := json.Unmarshal([]byte(logsJSON), &u.Logs); err != nil {
		return nil, err
	}
	if u.Logs == nil {
		u.Logs = []string{}
	}
	return &u, nil
}

// GetUpdate returns an update or ENOTFOUND.
func (s *Store) GetUpdate(ctx context.Context, id string) (*lectern.Update, error) {
	u, err := scanUpdate(s.pool.QueryRow(ctx, `SELECT `+updateCols+` FROM updates WHERE id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, store.NotFound("update status", id)
	}
	return u, wrap(err)
}

// ListUpdates returns a page of a project's updates, newest first, without
// their logs.
func (s *Store) ListUpdates(ctx context.Context, projectID string, pg store.Page) ([]*lectern.Update, error) {
	tail, args := pageSQL("", pg, []any{projectID})
	rows, err := s.pool.Query(ctx, `SELECT `+updateListCols+` FROM updates WHERE project_id = $1`+tail, args...)
	return collect(rows, err, scanUpdate)
}

// StartUpdate marks the leased update in_progress.
func (s *Store) StartUpdate(ctx context.Context, lease store.Lease, at time.Time) error {
	return s.tx(ctx, func(tx pgx.Tx) error {
		if err := checkLease(ctx, tx, lease); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `UPDATE updates SET status = 'in_progress', started_at = coalesce(started_at, $1) WHERE id = $2`,
			utc(at), lease.JobID)
		return err
	})
}

// FinishUpdate ends the leased update; on success it publishes the deployment.
// The deliveries of its event are stored in the same transaction.
//
// A success locks the project's row before the job's, the order
// CreateUpdate and DeleteProject take them in, so that it cannot deadlock
// with a DeleteProject that is ending its job.
func (s *Store) FinishUpdate(ctx context.Context, lease store.Lease, r store.UpdateResult) error {
	logs := r.Logs
	if logs == nil {
		logs = []string{}
	}
	logsJSON, err := json.Marshal(logs)
	if err != nil {
		return err
	}
	var commitJSON *string
	if r.Commit != nil {
		b, err := json.Marshal(r.Commit)
		if err != nil {
			return err
		}
		c := string(b)
		commitJSON = &c
	}
	if r.Status != lectern.UpdateSuccess && r.Status != lectern.UpdateFailure {
		return lectern.Errorf(lectern.EINVALID, "update can only finish as success or failure, not %q", r.Status)
	}
	ended := utc(r.EndedAt)
	return s.tx(ctx, func(tx pgx.Tx) error {
		if r.Status == lectern.UpdateSuccess && r.Deployment != nil {
			if _, err := tx.Exec(ctx, `SELECT 1 FROM projects WHERE id = $1 FOR NO KEY UPDATE`, r.Deployment.ProjectID); err != nil {
				return err
			}
		}
		if err := checkLease(ctx, tx, lease); err != nil {
			return err
		}
		var depID *string
		if r.Status == lectern.UpdateSuccess {
			d := r.Deployment
			if d == nil {
				return lectern.Errorf(lectern.EINVALID, "a successful update needs its deployment")
			}
			if d.ID == "" {
				d.ID = lectern.NewID(lectern.PrefixDeployment)
			}
			if d.CreatedAt.IsZero() {
				d.CreatedAt = now()
			}
			if _, err := tx.Exec(ctx, `INSERT INTO deployments (`+deploymentCols+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
				d.ID, d.ProjectID, lease.JobID, text(d.Commit.SHA), text(d.Commit.Ref), text(d.Commit.Message), d.PageCount, utc(d.CreatedAt)); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `UPDATE projects SET live_deployment_id = $1 WHERE id = $2`, d.ID, d.ProjectID); err != nil {
				return err
			}
			depID = &d.ID
		}
		if _, err := tx.Exec(ctx, `UPDATE updates SET status = $1, ended_at = $2, summary = $3, commit_json = $4, logs_json = $5,
			deployment_id = $6, started_at = coalesce(started_at, $2) WHERE id = $7`,
			string(r.Status), ended, text(r.Summary), commitJSON, string(logsJSON), depID, lease.JobID); err != nil {
			return err
		}
		if err := endJob(ctx, tx, lease.JobID, ended); err != nil {
			return err
		}
		return updateOutbox(ctx, tx, lease.JobID, ended)
	})
}
