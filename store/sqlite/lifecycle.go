package sqlite

import (
	"context"
	"database/sql"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

// pageSQL returns what a newest-first list adds to its query for pg: the
// condition (" AND ...", after the list's own WHERE), the ORDER BY and
// LIMIT, and the condition's arguments. The table's columns are
// created_at and id.
func pageSQL(pg store.Page) (cond, tail string, args []any) {
	if pg.After != nil {
		cond = ` AND (created_at < ? OR (created_at = ? AND id < ?))`
		at := ts(pg.After.At)
		args = []any{at, at, pg.After.ID}
	}
	tail = ` ORDER BY created_at DESC, id DESC`
	if pg.Limit > 0 {
		tail += ` LIMIT ?`
		args = append(args, pg.Limit)
	}
	return cond, tail, args
}

// UpdateProject applies ch to a project in one transaction.
func (s *Store) UpdateProject(ctx context.Context, id string, ch store.ProjectChange) (*lectern.Project, error) {
	if ch.Domains != nil && len(ch.Domains) == 0 {
		return nil, lectern.Errorf(lectern.EINVALID, "a project needs at least one domain")
	}
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM projects WHERE id = ? AND deleted_at IS NULL`, id).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return store.NotFound("project", id)
		}
		set := func(col string, v any) error {
			_, err := tx.ExecContext(ctx, `UPDATE projects SET `+col+` = ? WHERE id = ?`, v, id)
			return err
		}
		for _, c := range []struct {
			col string
			v   *string
		}{{"name", ch.Name}, {"repo_url", ch.RepoURL}, {"branch", ch.Branch}, {"docs_root", ch.DocsRoot}, {"repo_credentials", ch.RepoCredentials},
			{"deploy_key", ch.DeployKey}, {"known_hosts", ch.KnownHosts}} {
			if c.v != nil {
				if err := set(c.col, *c.v); err != nil {
					return err
				}
			}
		}
		if ch.DeploymentType != nil {
			if err := set("deployment_type", string(*ch.DeploymentType)); err != nil {
				return err
			}
		}
		if ch.CustomScripts != nil {
			if err := set("custom_scripts", *ch.CustomScripts); err != nil {
				return err
			}
		}
		if ch.Domains == nil {
			return nil
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM domains WHERE project_id = ?`, id); err != nil {
			return err
		}
		for i, d := range ch.Domains {
			_, err := tx.ExecContext(ctx, `INSERT INTO domains (domain, project_id, position) VALUES (?, ?, ?)`, d, id, i)
			if isUnique(err) {
				return lectern.Errorf(lectern.ECONFLICT, "domain %q already belongs to a project", d)
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, wrap(err)
	}
	if ch.RepoCredentials != nil || ch.DeployKey != nil {
		s.truncateWAL(ctx)
	}
	return s.GetProject(ctx, id)
}

// DeleteProject deletes a project for every reader, frees its domains
// and cancels its work, in one transaction.
func (s *Store) DeleteProject(ctx context.Context, id string, at time.Time) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		t := ts(at)
		res, err := tx.ExecContext(ctx, `UPDATE projects SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL`, t, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return store.NotFound("project", id)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM domains WHERE project_id = ?`, id); err != nil {
			return err
		}
		// What is canceled, for the events told of it once it is.
		updates, err := readIDs(ctx, tx, `SELECT id FROM updates WHERE project_id = ? AND status IN ('queued', 'in_progress')
			ORDER BY created_at, id`, id)
		if err != nil {
			return err
		}
		exports, err := readIDs(ctx, tx, `SELECT id FROM exports WHERE project_id = ? AND status IN ('queued', 'running')
			ORDER BY created_at, id`, id)
		if err != nil {
			return err
		}
		// The jobs first: they are found by the states the next two end.
		if _, err := tx.ExecContext(ctx, `UPDATE jobs SET state = 'done', lease_owner = NULL, lease_until = NULL, updated_at = ?2
			WHERE state <> 'done' AND id IN (SELECT id FROM updates WHERE project_id = ?1 AND status IN ('queued', 'in_progress')
				UNION ALL SELECT id FROM exports WHERE project_id = ?1 AND status IN ('queued', 'running'))`, id, t); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE updates SET status = 'canceled', ended_at = ?2, summary = ?3
			WHERE project_id = ?1 AND status IN ('queued', 'in_progress')`, id, t, store.CanceledByDelete); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE exports SET status = 'canceled', updated_at = ?2, error_code = 'canceled', error_message = ?3
			WHERE project_id = ?1 AND status IN ('queued', 'running')`, id, t, store.CanceledByDelete); err != nil {
			return err
		}
		for _, u := range updates {
			if err := notifyUpdate(ctx, tx, u, at); err != nil {
				return err
			}
		}
		for _, x := range exports {
			if err := notifyExport(ctx, tx, x, at); err != nil {
				return err
			}
		}
		return nil
	})
}

// ListDeletedProjects returns up to limit projects deleted before t.
func (s *Store) ListDeletedProjects(ctx context.Context, before time.Time, limit int) ([]*lectern.Project, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+projectCols+` FROM projects WHERE deleted_at IS NOT NULL AND deleted_at < ?
		ORDER BY deleted_at, id LIMIT ?`, ts(before), limit)
	return collect(rows, err, scanProjectRow)
}

// PurgeProject drops a deleted project's records (its assistant messages
// and analytics among them).
func (s *Store) PurgeProject(ctx context.Context, id string) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM projects WHERE id = ? AND deleted_at IS NOT NULL`, id).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return lectern.Errorf(lectern.ENOTFOUND, "deleted project %q not found", id)
		}
		for _, q := range []string{
			`UPDATE projects SET live_deployment_id = NULL WHERE id = ?`,
			`DELETE FROM deployments WHERE project_id = ?`,
			`DELETE FROM jobs WHERE id IN (SELECT id FROM updates WHERE project_id = ?)`,
			`DELETE FROM updates WHERE project_id = ?`,
			`DELETE FROM assistant_messages WHERE project_id = ?`,
			`DELETE FROM analytics_events WHERE project_id = ?`,
			`DELETE FROM analytics_day_visitors WHERE project_id = ?`,
			`DELETE FROM analytics_daily WHERE project_id = ?`,
			`DELETE FROM analytics_weekly WHERE project_id = ?`,
			`DELETE FROM analytics_totals WHERE project_id = ?`,
			`DELETE FROM projects WHERE id = ?`,
		} {
			if _, err := tx.ExecContext(ctx, q, id); err != nil {
				return err
			}
		}
		return nil
	})
}

// ListUpdates returns a page of a project's updates, newest first, without
// their logs.
func (s *Store) ListUpdates(ctx context.Context, projectID string, pg store.Page) ([]*lectern.Update, error) {
	cond, tail, args := pageSQL(pg)
	rows, err := s.r.QueryContext(ctx, updateListCols+` FROM updates WHERE project_id = ?`+cond+tail, append([]any{projectID}, args...)...)
	return collect(rows, err, scanUpdate)
}

// ListExports returns a page of the exports f selects, newest first.
func (s *Store) ListExports(ctx context.Context, f store.ExportFilter, pg store.Page) ([]*lectern.ExportJob, error) {
	cond, tail, args := pageSQL(pg)
	rows, err := s.r.QueryContext(ctx, `SELECT `+exportCols+` FROM exports WHERE org_id = ? AND (? = '' OR domain = ?) AND (? = '' OR status = ?)`+cond+tail,
		append([]any{f.OrgID, f.Domain, f.Domain, string(f.Status), string(f.Status)}, args...)...)
	return collect(rows, err, scanExport)
}

// RenameOrg changes an organization's name.
func (s *Store) RenameOrg(ctx context.Context, id, name string) error {
	res, err := s.w.ExecContext(ctx, `UPDATE orgs SET name = ? WHERE id = ? AND deleted_at IS NULL`, name, id)
	if err != nil {
		return wrap(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return store.NotFound("organization", id)
	}
	return nil
}

// DeleteOrg deletes an organization without projects, revokes its keys
// and drops its dashboard users.
func (s *Store) DeleteOrg(ctx context.Context, id string, at time.Time) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		var live, projects int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM orgs WHERE id = ? AND deleted_at IS NULL`, id).Scan(&live); err != nil {
			return err
		}
		if live == 0 {
			return store.NotFound("organization", id)
		}
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM projects WHERE org_id = ? AND deleted_at IS NULL`, id).Scan(&projects); err != nil {
			return err
		}
		if projects > 0 {
			return lectern.Errorf(lectern.ECONFLICT, "organization %q has %d projects: delete them first", id, projects)
		}
		t := ts(at)
		if _, err := tx.ExecContext(ctx, `UPDATE orgs SET deleted_at = ? WHERE id = ?`, t, id); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE api_keys SET revoked_at = ? WHERE org_id = ? AND revoked_at IS NULL`, t, id); err != nil {
			return err
		}
		// Its dashboard users go at once, their sessions and sign-in
		// tokens with them (ON DELETE CASCADE).
		_, err := tx.ExecContext(ctx, `DELETE FROM users WHERE org_id = ?`, id)
		return err
	})
}

// ListDeletedOrgs returns up to limit deleted organizations that no
// project names.
func (s *Store) ListDeletedOrgs(ctx context.Context, before time.Time, limit int) ([]*lectern.Organization, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+orgCols+` FROM orgs o WHERE deleted_at IS NOT NULL AND deleted_at < ?
		AND NOT EXISTS (SELECT 1 FROM projects p WHERE p.org_id = o.id) ORDER BY deleted_at, id LIMIT ?`, ts(before), limit)
	return collect(rows, err, scanOrg)
}

// PurgeOrg drops a deleted organization and its keys.
func (s *Store) PurgeOrg(ctx context.Context, id string) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		var deleted, projects int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM orgs WHERE id = ? AND deleted_at IS NOT NULL`, id).Scan(&deleted); err != nil {
			return err
		}
		if deleted == 0 {
			return lectern.Errorf(lectern.ENOTFOUND, "deleted organization %q not found", id)
		}
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM projects WHERE org_id = ?`, id).Scan(&projects); err != nil {
			return err
		}
		if projects > 0 {
			return lectern.Errorf(lectern.ECONFLICT, "organization %q still has %d projects to purge", id, projects)
		}
		for _, q := range []string{
			`DELETE FROM api_keys WHERE org_id = ?`,
			// Its webhooks and their deliveries go with it.
			`DELETE FROM jobs WHERE id IN (SELECT id FROM webhook_deliveries WHERE org_id = ?)`,
			`DELETE FROM webhook_deliveries WHERE org_id = ?`,
			`DELETE FROM webhooks WHERE org_id = ?`,
			`DELETE FROM orgs WHERE id = ?`,
		} {
			if _, err := tx.ExecContext(ctx, q, id); err != nil {
				return err
			}
		}
		return nil
	})
}
