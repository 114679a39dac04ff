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

// Canceling updates and exports on request, and promoting a deployment.
//
// They take row locks in the order lifecycle.go describes: the project's
// row first, then the job's, then the update's or export's. A cancel locks
// the job's row (its ID is the record's) before the record's, as the
// workers' lease checks do, so that it waits for a worker's write, or the
// worker for it, instead of deadlocking with StartUpdate, SetExportProgress,
// FinishUpdate, FinishExport or a requeue; DeleteProject, which locks the
// project, then the jobs, then the records, is ordered with it the same
// way. PromoteDeployment locks the project's row first, as FinishUpdate
// does when it publishes.

// CancelUpdate ends a queued or in-progress update as canceled at at and
// its job done, and stores the deliveries of its event, in one
// transaction, and returns the update as it now is.
// ECONFLICT, changing nothing, when the update has already ended;
// ENOTFOUND when it is missing.
func (s *Store) CancelUpdate(ctx context.Context, id string, at time.Time) (*lectern.Update, error) {
	t := utc(at)
	var u *lectern.Update
	err := s.tx(ctx, func(tx pgx.Tx) error {
		if err := lockJob(ctx, tx, id); err != nil {
			return err
		}
		var err error
		u, err = scanUpdate(tx.QueryRow(ctx, `UPDATE updates SET status = 'canceled', ended_at = $2, summary = $3
			WHERE id = $1 AND status IN ('queued', 'in_progress') RETURNING `+updateCols, id, t, store.CanceledByRequest))
		if errors.Is(err, pgx.ErrNoRows) {
			return notCanceled(ctx, tx, "updates", "update status", "update", id)
		}
		if err == nil {
			err = endJob(ctx, tx, id, t)
		}
		if err != nil {
			return err
		}
		return updateEvent(ctx, tx, u, t)
	})
	if err != nil {
		return nil, wrap(err)
	}
	return u, nil
}

// CancelExport ends a queued or running export as canceled at at and its
// job done, and stores the deliveries of its event, in one transaction,
// and returns the export as it now is.
// ECONFLICT, changing nothing, when the export has already ended;
// ENOTFOUND when it is missing.
func (s *Store) CancelExport(ctx context.Context, id string, at time.Time) (*lectern.ExportJob, error) {
	t := utc(at)
	var e *lectern.ExportJob
	err := s.tx(ctx, func(tx pgx.Tx) error {
		if err := lockJob(ctx, tx, id); err != nil {
			return err
		}
		var err error
		e, err = scanExport(tx.QueryRow(ctx, `UPDATE exports SET status = 'canceled', updated_at = $2, error_code = 'canceled', error_message = $3
			WHERE id = $1 AND status IN ('queued', 'running') RETURNING `+exportCols, id, t, store.CanceledByRequest))
		if errors.Is(err, pgx.ErrNoRows) {
			return notCanceled(ctx, tx, "exports", "export job", "export job", id)
		}
		if err == nil {
			err = endJob(ctx, tx, id, t)
		}
		if err != nil {
			return err
		}
		return exportEvent(ctx, tx, e, t)
	})
	if err != nil {
		return nil, wrap(err)
	}
	return e, nil
}

// lockJob locks the row of the job with the ID inside tx, when there is
// one, so that no worker's lease check or claim passes until tx ends.
func lockJob(ctx context.Context, tx pgx.Tx, id string) error {
	_, err := tx.Exec(ctx, `SELECT 1 FROM jobs WHERE id = $1 FOR UPDATE`, id)
	return err
}

// notCanceled is the error of a cancel that found no queued or running
// record with the ID in table: ENOTFOUND naming it missing when there is
// none, ECONFLICT naming it ended and its status when it has ended.
func notCanceled(ctx context.Context, tx pgx.Tx, table, missing, ended, id string) error {
	var status string
	err := tx.QueryRow(ctx, `SELECT status FROM `+table+` WHERE id = $1`, id).Scan(&status)
	if errors.Is(err, pgx.ErrNoRows) {
		return store.NotFound(missing, id)
	}
	if err != nil {
		return err
	}
	return lectern.Errorf(lectern.ECONFLICT, "%s %q has already ended (%s)", ended, id, status)
}

// PromoteDeployment makes a deployment of the project its live one and
// records the switch as a successful update u at at, in one transaction.
// ENOTFOUND when the project is missing or deleted, or the deployment is
// missing or another project's.
//
// The project's row is locked first, as FinishUpdate and DeleteProject
// lock it, so that a publish, a deletion and a promotion of one project
// take turns. The deployment's row is then key-share locked, so that a
// concurrent DeleteDeployment (which locks it before its check that it is
// not live) either waits and sees it live or makes this call ENOTFOUND.
func (s *Store) PromoteDeployment(ctx context.Context, projectID, deploymentID string, u *lectern.Update, at time.Time) error {
	if u == nil {
		return lectern.Errorf(lectern.EINVALID, "a promotion needs its update")
	}
	t := utc(at)
	if u.ID == "" {
		u.ID = lectern.NewID(lectern.PrefixUpdate)
	}
	if u.CreatedAt.IsZero() {
		u.CreatedAt = t
	}
	u.CreatedAt = utc(u.CreatedAt) // as GetUpdate will return it
	return s.tx(ctx, func(tx pgx.Tx) error {
		var orgID string
		err := tx.QueryRow(ctx, `SELECT org_id FROM projects WHERE id = $1 AND deleted_at IS NULL FOR NO KEY UPDATE`, projectID).Scan(&orgID)
		if errors.Is(err, pgx.ErrNoRows) {
			return store.NotFound("project", projectID)
		}
		if err != nil {
			return err
		}
		var c lectern.Commit
		err = tx.QueryRow(ctx, `SELECT commit_sha, commit_ref, commit_message FROM deployments WHERE id = $1 AND project_id = $2 FOR KEY SHARE`,
			deploymentID, projectID).Scan(&c.SHA, &c.Ref, &c.Message)
		if errors.Is(err, pgx.ErrNoRows) {
			return store.NotFound("deployment", deploymentID)
		}
		if err != nil {
			return err
		}
		commitJSON, err := json.Marshal(&c)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE projects SET live_deployment_id = $1 WHERE id = $2`, deploymentID, projectID); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO updates (id, project_id, org_id, status, source, created_at, started_at, ended_at,
			summary, commit_json, logs_json, deployment_id)
			VALUES ($1, $2, $3, 'success', $4, $5, $6, $6, $7, $8, '[]', $9)`,
			u.ID, projectID, orgID, u.Source, u.CreatedAt, t, text(u.Summary), string(commitJSON), deploymentID); isCode(err, uniqueViolation) {
			return lectern.Errorf(lectern.ECONFLICT, "update %q already exists", u.ID)
		} else if err != nil {
			return err
		}
		started, ended := t, t
		u.ProjectID, u.OrgID, u.Status = projectID, orgID, lectern.UpdateSuccess
		u.StartedAt, u.EndedAt = &started, &ended
		u.Commit, u.DeploymentID, u.Logs, u.SupersededBy = &c, deploymentID, []string{}, ""
		// A rollback changes the live site as an update does: its webhooks
		// hear of it.
		return updateOutbox(ctx, tx, u.ID, t)
	})
}
