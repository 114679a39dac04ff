package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

// CreateExport queues an export unless one for the domain is active. The
// unique index on active exports decides between concurrent starters: the
// insert that loses waits for the winner and inserts nothing.
//
// With a quota, the organization's row is locked first, so that
// concurrent starters in any process count and insert one at a time. The
// project's row, when there is one, is then key-share locked: an export of
// a deleted project is ENOTFOUND, and a concurrent DeleteProject either
// cancels the new export or makes this call ENOTFOUND.
func (s *Store) CreateExport(ctx context.Context, e *lectern.ExportJob, q store.ExportQuota) error {
	if e.ID == "" {
		e.ID = lectern.NewID(lectern.PrefixExport)
	}
	if e.CreatedAt.IsZero() {
		e.CreatedAt = now()
	}
	e.UpdatedAt, e.Status, e.Progress, e.PageCount = e.CreatedAt, lectern.ExportQueued, 0, 0
	at := utc(e.CreatedAt)
	defer s.claims.forget() // (after the commit)
	for range 3 {
		var active string
		err := s.tx(ctx, func(tx pgx.Tx) error {
			if q.Max > 0 {
				if _, err := tx.Exec(ctx, `SELECT 1 FROM orgs WHERE id = $1 FOR UPDATE`, e.OrgID); err != nil {
					return err
				}
				var oldest time.Time
				err := tx.QueryRow(ctx, `SELECT created_at FROM exports WHERE org_id = $1 AND created_at >= $2
					ORDER BY created_at DESC LIMIT 1 OFFSET $3`, e.OrgID, utc(q.Since), q.Max-1).Scan(&oldest)
				if err == nil {
					return store.QuotaSpent(oldest.Sub(q.Since))
				}
				if !errors.Is(err, pgx.ErrNoRows) {
					return err
				}
			}
			var deleted bool
			err := tx.QueryRow(ctx, `SELECT deleted_at IS NOT NULL FROM projects WHERE id = $1 FOR KEY SHARE`, e.ProjectID).Scan(&deleted)
			if err != nil && !errors.Is(err, pgx.ErrNoRows) {
				return err
			}
			if deleted || errors.Is(err, pgx.ErrNoRows) {
				return store.NotFound("project", e.ProjectID)
			}
			tag, err := tx.Exec(ctx, `INSERT INTO exports (id, org_id, project_id, domain, base_path, status, created_at, updated_at)
				VALUES ($1, $2, $3, $4, $5, 'queued', $6, $6)
				ON CONFLICT (domain) WHERE status IN ('queued', 'running') DO NOTHING`,
				e.ID, e.OrgID, e.ProjectID, e.Domain, e.BasePath, at)
			if err != nil {
				return err
			}
			if tag.RowsAffected() == 0 {
				err := tx.QueryRow(ctx, `SELECT id FROM exports WHERE domain = $1 AND status IN ('queued', 'running')`, e.Domain).Scan(&active)
				if errors.Is(err, pgx.ErrNoRows) {
					return nil // it ended meanwhile: try again
				}
				if err != nil {
					return err
				}
				return store.ExportInProgress(e.Domain, active)
			}
			active = e.ID
			_, err = tx.Exec(ctx, `INSERT INTO jobs (id, kind, group_key, state, run_at, max_attempts, created_at, updated_at, org_id, priority)
				VALUES ($1, $2, '', 'queued', $3, $4, $3, $3, $5, $6)`, e.ID, store.KindExport, at, store.MaxAttempts, e.OrgID, store.JobPriority(store.KindExport))
			return err
		})
		if err != nil || active != "" {
			return err
		}
	}
	return lectern.Errorf(lectern.EUNAVAILABLE, "Exports of %s keep starting and ending; try again.", e.Domain)
}

const exportCols = `id, org_id, project_id, domain, base_path, status, progress, page_count, created_at, updated_at, completed_at,
	error_code, error_message, bundle_key, bundle_file, bundle_size, bundle_sha256, bundle_version`

func scanExport(row pgx.Row) (*lectern.ExportJob, error) {
	var e lectern.ExportJob
	var status string
	var size *int64
	var code, msg, key, file, sum, version *string
	if err := row.Scan(&e.ID, &e.OrgID, &e.ProjectID, &e.Domain, &e.BasePath, &status, &e.Progress, &e.PageCount,
		&e.CreatedAt, &e.UpdatedAt, &e.CompletedAt, &code, &msg, &key, &file, &size, &sum, &version); err != nil {
		return nil, err
	}
	e.Status, e.CreatedAt, e.UpdatedAt, e.CompletedAt = lectern.ExportStatus(status), utc(e.CreatedAt), utc(e.UpdatedAt), utcPtr(e.CompletedAt)
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	if code != nil {
		e.Error = &lectern.JobError{Code: *code, Message: str(msg)}
	}
	if key != nil {
		b := &lectern.Bundle{Key: *key, FileName: str(file), SHA256: str(sum), Version: str(version)}
		if size != nil {
			b.SizeBytes = *size
		}
		e.Bundle = b
	}
	return &e, nil
}

// GetExport returns an export or ENOTFOUND.
func (s *Store) GetExport(ctx context.Context, id string) (*lectern.ExportJob, error) {
	e, err := scanExport(s.pool.QueryRow(ctx, `SELECT `+exportCols+` FROM exports WHERE id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, store.NotFound("export job", id)
	}
	return e, wrap(err)
}

// SetExportProgress records monotonic live progress of the leased export.
func (s *Store) SetExportProgress(ctx context.Context, lease store.Lease, progress, pageCount int, at time.Time) error {
	progress = min(max(progress, 0), 99) // 100 only on completion
	return s.tx(ctx, func(tx pgx.Tx) error {
		if err := checkLease(ctx, tx, lease); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `UPDATE exports SET status = 'running', progress = greatest(progress, $1), page_count = greatest(page_count, $2),
			updated_at = $3 WHERE id = $4 AND status IN ('queued', 'running')`, progress, pageCount, utc(at), lease.JobID)
		return err
	})
}

// FinishExport ends the leased export and its job, and stores the
// deliveries of its event, in one transaction.
func (s *Store) FinishExport(ctx context.Context, lease store.Lease, r store.ExportResult) error {
	at := utc(r.At)
	return s.tx(ctx, func(tx pgx.Tx) error {
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
			_, err = tx.Exec(ctx, `UPDATE exports SET status = 'completed', progress = 100, page_count = $1, updated_at = $2,
				completed_at = $2, error_code = NULL, error_message = NULL, bundle_key = $3, bundle_file = $4, bundle_size = $5,
				bundle_sha256 = $6, bundle_version = $7 WHERE id = $8`,
				r.PageCount, at, b.Key, b.FileName, b.SizeBytes, b.SHA256, text(b.Version), lease.JobID)
		case lectern.ExportFailed:
			je := r.Error
			if je == nil {
				je = &lectern.JobError{Code: lectern.EINTERNAL, Message: "The export failed."}
			}
			_, err = tx.Exec(ctx, `UPDATE exports SET status = 'failed', updated_at = $1, completed_at = $1,
				error_code = $2, error_message = $3 WHERE id = $4`, at, je.Code, text(je.Message), lease.JobID)
		default:
			return lectern.Errorf(lectern.EINVALID, "export can only finish as completed or failed, not %q", r.Status)
		}
		if err != nil {
			return err
		}
		if err := endJob(ctx, tx, lease.JobID, at); err != nil {
			return err
		}
		return exportOutbox(ctx, tx, lease.JobID, at)
	})
}

// ListExports returns a page of the exports f selects, newest first: those
// of f.OrgID (none for ""), of f.Domain and in f.Status when they are set.
func (s *Store) ListExports(ctx context.Context, f store.ExportFilter, pg store.Page) ([]*lectern.ExportJob, error) {
	tail, args := pageSQL("", pg, []any{f.OrgID, f.Domain, string(f.Status)})
	rows, err := s.pool.Query(ctx, `SELECT `+exportCols+` FROM exports
		WHERE org_id = $1 AND ($2 = '' OR domain = $2) AND ($3 = '' OR status = $3)`+tail, args...)
	return collect(rows, err, scanExport)
}

// ListExportsBefore returns up to limit terminal exports (completed,
// failed or canceled) created before t, oldest first.
func (s *Store) ListExportsBefore(ctx context.Context, t time.Time, limit int) ([]*lectern.ExportJob, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+exportCols+` FROM exports WHERE created_at < $1 AND status IN ('completed', 'failed', 'canceled')
		ORDER BY created_at, id LIMIT $2`, utc(t), limitArg(limit))
	return collect(rows, err, scanExport)
}

// DeleteExport removes an export and its job.
func (s *Store) DeleteExport(ctx context.Context, id string) error {
	return s.tx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM jobs WHERE id = $1`, id); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `DELETE FROM exports WHERE id = $1`, id)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return store.NotFound("export job", id)
		}
		return nil
	})
}
