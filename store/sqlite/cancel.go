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

// CancelUpdate ends a queued or in-progress update as canceled.
func (s *Store) CancelUpdate(ctx context.Context, id string, at time.Time) (*lectern.Update, error) {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var status string
		err := tx.QueryRowContext(ctx, `SELECT status FROM updates WHERE id = ?`, id).Scan(&status)
		if errors.Is(err, sql.ErrNoRows) {
			return store.NotFound("update status", id)
		}
		if err != nil {
			return err
		}
		if lectern.UpdateStatus(status).Terminal() {
			return lectern.Errorf(lectern.ECONFLICT, "update %q has already ended (%s)", id, status)
		}
		t := ts(at)
		if _, err := tx.ExecContext(ctx, `UPDATE updates SET status = 'canceled', ended_at = ?, summary = ? WHERE id = ?`,
			t, store.CanceledByRequest, id); err != nil {
			return err
		}
		if err := endJob(ctx, tx, id, t); err != nil {
			return err
		}
		return notifyUpdate(ctx, tx, id, at)
	})
	if err != nil {
		return nil, wrap(err)
	}
	return s.GetUpdate(ctx, id)
}

// CancelExport ends a queued or running export as canceled.
func (s *Store) CancelExport(ctx context.Context, id string, at time.Time) (*lectern.ExportJob, error) {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var status string
		err := tx.QueryRowContext(ctx, `SELECT status FROM exports WHERE id = ?`, id).Scan(&status)
		if errors.Is(err, sql.ErrNoRows) {
			return store.NotFound("export job", id)
		}
		if err != nil {
			return err
		}
		if lectern.ExportStatus(status).Terminal() {
			return lectern.Errorf(lectern.ECONFLICT, "export job %q has already ended (%s)", id, status)
		}
		t := ts(at)
		if _, err := tx.ExecContext(ctx, `UPDATE exports SET status = 'canceled', updated_at = ?, error_code = 'canceled', error_message = ? WHERE id = ?`,
			t, store.CanceledByRequest, id); err != nil {
			return err
		}
		if err := endJob(ctx, tx, id, t); err != nil {
			return err
		}
		return notifyExport(ctx, tx, id, at)
	})
	if err != nil {
		return nil, wrap(err)
	}
	return s.GetExport(ctx, id)
}

// PromoteDeployment makes a deployment of the project live again and
// records it as an update.
func (s *Store) PromoteDeployment(ctx context.Context, projectID, deploymentID string, u *lectern.Update, at time.Time) error {
	at = at.UTC().Truncate(time.Microsecond)
	if u.ID == "" {
		u.ID = lectern.NewID(lectern.PrefixUpdate)
	}
	if u.CreatedAt.IsZero() {
		u.CreatedAt = at
	}
	return wrap(s.tx(ctx, func(tx *sql.Tx) error {
		var orgID string
		err := tx.QueryRowContext(ctx, `SELECT org_id FROM projects WHERE id = ? AND deleted_at IS NULL`, projectID).Scan(&orgID)
		if errors.Is(err, sql.ErrNoRows) {
			return store.NotFound("project", projectID)
		}
		if err != nil {
			return err
		}
		d, err := scanDeployment(tx.QueryRowContext(ctx, `SELECT `+deploymentCols+` FROM deployments WHERE id = ? AND project_id = ?`, deploymentID, projectID))
		if errors.Is(err, sql.ErrNoRows) {
			return store.NotFound("deployment", deploymentID)
		}
		if err != nil {
			return err
		}
		commit, err := json.Marshal(d.Commit)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE projects SET live_deployment_id = ? WHERE id = ?`, d.ID, projectID); err != nil {
			return err
		}
		t := ts(at)
		if _, err := tx.ExecContext(ctx, `INSERT INTO updates (id, project_id, org_id, status, source, created_at, started_at, ended_at, summary, commit_json, logs_json, deployment_id)
			VALUES (?, ?, ?, 'success', ?, ?, ?, ?, ?, ?, '[]', ?)`, u.ID, projectID, orgID, u.Source, ts(u.CreatedAt), t, t, u.Summary, string(commit), d.ID); err != nil {
			return err
		}
		c := d.Commit
		u.ProjectID, u.OrgID, u.Status, u.StartedAt, u.EndedAt = projectID, orgID, lectern.UpdateSuccess, &at, &at
		u.Commit, u.DeploymentID, u.Logs = &c, d.ID, []string{}
		// A rollback changes the live site as an update does: its webhooks
		// hear of it.
		return notifyUpdate(ctx, tx, u.ID, at)
	}))
}
