package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

// CreateUpdate queues an update and supersedes older queued ones of its project.
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
	return s.tx(ctx, func(tx *sql.Tx) error {
		var orgID string
		err := tx.QueryRowContext(ctx, `SELECT org_id FROM projects WHERE id = ? AND deleted_at IS NULL`, u.ProjectID).Scan(&orgID)
		if errors.Is(err, sql.ErrNoRows) {
			return store.NotFound("project", u.ProjectID)
		}
		if err != nil {
			return err
		}
		u.OrgID = orgID
		at := ts(u.CreatedAt)
		// Older queued updates of the project will never be built: end them.
		if _, err := tx.ExecContext(ctx, `UPDATE jobs SET state = 'done', updated_at = ?
			WHERE id IN (SELECT id FROM updates WHERE project_id = ? AND status = 'queued')`, at, u.ProjectID); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE updates SET status = 'superseded', superseded_by = ?, ended_at = ?,
			summary = 'Superseded by a newer update (' || ? || ') before it started.'
			WHERE project_id = ? AND status = 'queued'`, u.ID, at, u.ID, u.ProjectID); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO updates (id, project_id, org_id, status, source, created_at, summary, logs_json)
			VALUES (?, ?, ?, 'queued', ?, ?, ?, '[]')`, u.ID, u.ProjectID, orgID, u.Source, at, u.Summary); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO jobs (id, kind, group_key, state, run_at, max_attempts, created_at, updated_at, org_id, priority)
			VALUES (?, ?, ?, 'queued', ?, ?, ?, ?, ?, ?)`, u.ID, store.KindUpdate, u.ProjectID, at, store.MaxAttempts, at, at, orgID, store.JobPriority(store.KindUpdate))
		return err
	})
}

// updateCols selects an update's columns, for scanUpdate.
const updateCols = `SELECT id, project_id, org_id, status, source, created_at, started_at, ended_at,
	summary, commit_json, logs_json, superseded_by, deployment_id`

const updateSelect = updateCols + ` FROM updates WHERE id = ?`

// updateListCols are updateCols with an empty build log: ListUpdates
// leaves the logs out.
const updateListCols = `SELECT id, project_id, org_id, status, source, created_at, started_at, ended_at,
	summary, commit_json, '[]', superseded_by, deployment_id`

// GetUpdate returns an update or ENOTFOUND.
func (s *Store) GetUpdate(ctx context.Context, id string) (*lectern.Update, error) {
	u, err := scanUpdate(s.updateByID.QueryRowContext(ctx, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, store.NotFound("update status", id)
	}
	return u, wrap(err)
}

// scanUpdate reads an update selected with updateCols.
func scanUpdate(row interface{ Scan(...any) error }) (*lectern.Update, error) {
	var u lectern.Update
	var status string
	var created int64
	var started, ended sql.NullInt64
	var commitJSON, superseded, dep sql.NullString
	var logsJSON string
	err := row.Scan(&u.ID, &u.ProjectID, &u.OrgID, &status, &u.Source, &created, &started, &ended,
		&u.Summary, &commitJSON, &logsJSON, &superseded, &dep)
	if err != nil {
		return nil, err
	}
	u.Status, u.CreatedAt = lectern.UpdateStatus(status), fromTS(created)
	u.StartedAt, u.EndedAt = fromNull(started), fromNull(ended)
	u.SupersededBy, u.DeploymentID = superseded.String, dep.String
	if commitJSON.Valid {
		u.Commit = new(lectern.Commit)
		if err := json.Unmarshal([]byte(commitJSON.String), u.Commit); err != nil {
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

// StartUpdate marks the leased update in_progress.
func (s *Store) StartUpdate(ctx context.Context, lease store.Lease, at time.Time) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		if err := checkLease(ctx, tx, lease); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE updates SET status = 'in_progress', started_at = coalesce(started_at, ?) WHERE id = ?`,
			ts(at), lease.JobID)
		return err
	})
}

// FinishUpdate ends the leased update; on success it publishes the deployment.
func (s *Store) FinishUpdate(ctx context.Context, lease store.Lease, r store.UpdateResult) error {
	logs := r.Logs
	if logs == nil {
		logs = []string{}
	}
	logsJSON, err := json.Marshal(logs)
	if err != nil {
		return err
	}
	var commitJSON any
	if r.Commit != nil {
		b, err := json.Marshal(r.Commit)
		if err != nil {
			return err
		}
		commitJSON = string(b)
	}
	if r.Status != lectern.UpdateSuccess && r.Status != lectern.UpdateFailure {
		return lectern.Errorf(lectern.EINVALID, "update can only finish as success or failure, not %q", r.Status)
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		if err := checkLease(ctx, tx, lease); err != nil {
			return err
		}
		var depID any
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
			if _, err := tx.ExecContext(ctx, `INSERT INTO deployments (`+deploymentCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
				d.ID, d.ProjectID, lease.JobID, d.Commit.SHA, d.Commit.Ref, d.Commit.Message, d.PageCount, ts(d.CreatedAt)); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `UPDATE projects SET live_deployment_id = ? WHERE id = ?`, d.ID, d.ProjectID); err != nil {
				return err
			}
			depID = d.ID
		}
		if _, err := tx.ExecContext(ctx, `UPDATE updates SET status = ?, ended_at = ?, summary = ?, commit_json = ?, logs_json = ?,
			deployment_id = ?, started_at = coalesce(started_at, ?) WHERE id = ?`,
			string(r.Status), ts(r.EndedAt), r.Summary, commitJSON, string(logsJSON), depID, ts(r.EndedAt), lease.JobID); err != nil {
			return err
		}
		if err := notifyUpdate(ctx, tx, lease.JobID, r.EndedAt); err != nil {
			return err
		}
		return endJob(ctx, tx, lease.JobID, ts(r.EndedAt))
	})
}
