package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

// CreateExport queues an export unless one for the domain is active or
// the organization's quota is spent. Write transactions are immediate, so
// the quota count and the insert are not interleaved with another writer.
func (s *Store) CreateExport(ctx context.Context, e *lectern.ExportJob, q store.ExportQuota) error {
	if e.ID == "" {
		e.ID = lectern.NewID(lectern.PrefixExport)
	}
	if e.CreatedAt.IsZero() {
		e.CreatedAt = now()
	}
	e.UpdatedAt, e.Status, e.Progress, e.PageCount = e.CreatedAt, lectern.ExportQueued, 0, 0
	return s.tx(ctx, func(tx *sql.Tx) error {
		var live int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM projects WHERE id = ? AND deleted_at IS NULL`, e.ProjectID).Scan(&live); err != nil {
			return err
		}
		if live == 0 {
			return store.NotFound("project", e.ProjectID)
		}
		if q.Max > 0 {
			var oldest sql.NullInt64
			err := tx.QueryRowContext(ctx, `SELECT created_at FROM exports WHERE org_id = ? AND created_at >= ?
				ORDER BY created_at DESC LIMIT 1 OFFSET ?`, e.OrgID, ts(q.Since), q.Max-1).Scan(&oldest)
			if err == nil {
				return store.QuotaSpent(fromTS(oldest.Int64).Sub(q.Since))
			}
			if !errors.Is(err, sql.ErrNoRows) {
				return err
			}
		}
		var active string
		err := tx.QueryRowContext(ctx, `SELECT id FROM exports WHERE domain = ? AND status IN ('queued', 'running')`, e.Domain).Scan(&active)
		if err == nil {
			return store.ExportInProgress(e.Domain, active)
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		at := ts(e.CreatedAt)
		if _, err := tx.ExecContext(ctx, `INSERT INTO exports (id, org_id, project_id, domain, base_path, status, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, 'queued', ?, ?)`, e.ID, e.OrgID, e.ProjectID, e.Domain, e.BasePath, at, at); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO jobs (id, kind, group_key, state, run_at, max_attempts, created_at, updated_at, org_id, priority)
			VALUES (?, ?, '', 'queued', ?, ?, ?, ?, ?, ?)`, e.ID, store.KindExport, at, store.MaxAttempts, at, at, e.OrgID, store.JobPriority(store.KindExport))
		return err
	})
}

const exportCols = `id, org_id, project_id, domain, base_path, status, progress, page_count, created_at, updated_at, completed_at,
	error_code, error_message, bundle_key, bundle_file, bundle_size, bundle_sha256, bundle_version`

func scanExport(row interface{ Scan(...any) error }) (*lectern.ExportJob, error) {
	var e lectern.ExportJob
	var status string
	var created, updated int64
	var completed, size sql.NullInt64
	var code, msg, key, file, sum, version sql.NullString
	if err := row.Scan(&e.ID, &e.OrgID, &e.ProjectID, &e.Domain, &e.BasePath, &status, &e.Progress, &e.PageCount,
		&created, &updated, &completed, &code, &msg, &key, &file, &size, &sum, &version); err != nil {
		return nil, err
	}
	e.Status, e.CreatedAt, e.UpdatedAt, e.CompletedAt = lectern.ExportStatus(status), fromTS(created), fromTS(updated), fromNull(completed)
	if code.Valid {
		e.Error = &lectern.JobError{Code: code.String, Message: msg.String}
	}
	if key.Valid {
		e.Bundle = &lectern.Bundle{Key: key.String, FileName: file.String, SizeBytes: size.Int64, SHA256: sum.String, Version: version.String}
	}
	return &e, nil
}

// GetExport returns an export or ENOTFOUND.
func (s *Store) GetExport(ctx context.Context, id string) (*lectern.ExportJob, error) {
	e, err := scanExport(s.exportByID.QueryRowContext(ctx, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, store.NotFound("export job", id)
	}
	return e, wrap(err)
}

// SetExportProgress records monotonic live progress of the leased export.
func (s *Store) SetExportProgress(ctx context.Context, lease store.Lease, progress, pageCount int, at time.Time) error {
	progress = min(max(progress, 0), 99) // 100 only on completion
	return s.tx(ctx, func(tx *sql.Tx) error {
		if err := checkLease(ctx, tx, lease); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE exports SET status = 'running', progress = max(progress, ?), page_count = max(page_count, ?),
			updated_at = ? WHERE id = ? AND status IN ('queued', 'running')`, progress, pageCount, ts(at), lease.JobID)
		return err
	})
}

// FinishExport ends the leased export and its job.
func (s *Store) FinishExport(ctx context.Context, lease store.Lease, r store.ExportResult) error {
	at := ts(r.At)
	return s.tx(ctx, func(tx *sql.Tx) error {
		if err := checkLease(ctx, tx, lease); err != nil {
			return err
		}
		var err error
		switch r.Status {
		case lectern.ExportCompleted:
			b := r.Bundle
			if b == nil {
				return lectern.Errorf(lectern.EINVALID, "a completed export needs its bundle")
			}
			_, err = tx.ExecContext(ctx, `UPDATE exports SET status = 'completed', progress = 100, page_count = ?, updated_at = ?,
				completed_at = ?, error_code = NULL, error_message = NULL, bundle_key = ?, bundle_file = ?, bundle_size = ?,
				bundle_sha256 = ?, bundle_version = ? WHERE id = ?`,
				r.PageCount, at, at, b.Key, b.FileName, b.SizeBytes, b.SHA256, b.Version, lease.JobID)
		case lectern.ExportFailed:
			je := r.Error
			if je == nil {
				je = &lectern.JobError{Code: lectern.EINTERNAL, Message: "The export failed."}
			}
			_, err = tx.ExecContext(ctx, `UPDATE exports SET status = 'failed', updated_at = ?, completed_at = ?,
				error_code = ?, error_message = ? WHERE id = ?`, at, at, je.Code, je.Message, lease.JobID)
		default:
			return lectern.Errorf(lectern.EINVALID, "export can only finish as completed or failed, not %q", r.Status)
		}
		if err != nil {
			return err
		}
		if err := notifyExport(ctx, tx, lease.JobID, r.At); err != nil {
			return err
		}
		return endJob(ctx, tx, lease.JobID, at)
	})
}

// ListExportsBefore returns terminal exports (completed, failed, canceled)
// created before t.
func (s *Store) ListExportsBefore(ctx context.Context, t time.Time, limit int) ([]*lectern.ExportJob, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+exportCols+` FROM exports WHERE created_at < ? AND status IN ('completed', 'failed', 'canceled')
		ORDER BY created_at, id LIMIT ?`, ts(t), limit)
	return collect(rows, err, scanExport)
}

// DeleteExport removes an export and its job.
func (s *Store) DeleteExport(ctx context.Context, id string) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM jobs WHERE id = ?`, id); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM exports WHERE id = ?`, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return store.NotFound("export job", id)
		}
		return nil
	})
}
