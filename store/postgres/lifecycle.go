package postgres

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

// Deleting projects and organizations, and reading lists a page at a time.
//
// A project or organization is deleted in two steps: deleted_at is set and
// every reader ignores the row at once (a project's domains are freed in
// the same transaction), then the janitor drops its records with
// PurgeProject and PurgeOrg.
//
// Row locks are taken in one order, the project's row before its jobs' and
// the jobs' before their updates' and exports', as CreateUpdate, the
// workers' lease checks and FinishUpdate take them, so that DeleteProject
// waits for a worker's write instead of deadlocking with it. The webhooks'
// rows come after all of these (webhooks.go).

// pageSQL returns what a newest-first list adds after its own WHERE for pg:
// the cursor's condition (" AND ..."), the ORDER BY and the LIMIT; and args
// with their arguments appended. prefix qualifies the created_at and id
// columns ("p." or ""). IDs are compared bytewise (COLLATE "C"), as every
// store orders them, whatever the database's collation.
func pageSQL(prefix string, pg store.Page, args []any) (string, []any) {
	var b strings.Builder
	if pg.After != nil {
		args = append(args, utc(pg.After.At), pg.After.ID)
		fmt.Fprintf(&b, ` AND (%[1]screated_at, %[1]sid COLLATE "C") < ($%[2]d::timestamptz, $%[3]d::text)`, prefix, len(args)-1, len(args))
	}
	fmt.Fprintf(&b, ` ORDER BY %[1]screated_at DESC, %[1]sid COLLATE "C" DESC`, prefix)
	if pg.Limit > 0 {
		args = append(args, pg.Limit)
		fmt.Fprintf(&b, ` LIMIT $%d`, len(args))
	}
	return b.String(), args
}

// limitArg is the argument of a LIMIT of at most n rows: NULL (no limit)
// for a negative n, as SQLite reads a negative LIMIT.
func limitArg(n int) any {
	if n < 0 {
		return nil
	}
	return n
}

// UpdateProject applies the non-nil fields of ch to a project in one
// transaction and returns the project as stored afterwards. New domains
// replace all of the project's; one that another project owns is ECONFLICT
// and nothing changes. An empty, non-nil Domains is EINVALID; a missing
// or deleted project is ENOTFOUND.
func (s *Store) UpdateProject(ctx context.Context, id string, ch store.ProjectChange) (*lectern.Project, error) {
	if ch.Domains != nil && len(ch.Domains) == 0 {
		return nil, lectern.Errorf(lectern.EINVALID, "a project needs at least one domain")
	}
	var name, deployment *string
	if ch.Name != nil {
		n := text(*ch.Name)
		name = &n
	}
	if ch.DeploymentType != nil {
		d := string(*ch.DeploymentType)
		deployment = &d
	}
	var p *lectern.Project
	err := s.tx(ctx, func(tx pgx.Tx) error {
		// One statement sets what ch sets (NULL keeps a column) and locks
		// the row, so a concurrent DeleteProject waits or wins.
		tag, err := tx.Exec(ctx, `UPDATE projects SET name = coalesce($2, name), repo_url = coalesce($3, repo_url),
			branch = coalesce($4, branch), docs_root = coalesce($5, docs_root), repo_credentials = coalesce($6, repo_credentials),
			deployment_type = coalesce($7, deployment_type), custom_scripts = coalesce($8, custom_scripts),
			deploy_key = coalesce($9, deploy_key), known_hosts = coalesce($10, known_hosts)
			WHERE id = $1 AND deleted_at IS NULL`,
			id, name, ch.RepoURL, ch.Branch, ch.DocsRoot, ch.RepoCredentials, deployment, ch.CustomScripts, ch.DeployKey, ch.KnownHosts)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return store.NotFound("project", id)
		}
		if ch.Domains != nil {
			if _, err := tx.Exec(ctx, `DELETE FROM domains WHERE project_id = $1`, id); err != nil {
				return err
			}
			for i, d := range ch.Domains {
				_, err := tx.Exec(ctx, `INSERT INTO domains (domain, project_id, position) VALUES ($1, $2, $3)`, d, id, i)
				if isCode(err, uniqueViolation) {
					return lectern.Errorf(lectern.ECONFLICT, "domain %q already belongs to a project", d)
				}
				if err != nil {
					return err
				}
			}
		}
		p, err = scanProject(tx.QueryRow(ctx, projectSelect+` WHERE p.id = $1`, id))
		return err
	})
	if err != nil {
		return nil, wrap(err)
	}
	return p, nil
}

// DeleteProject deletes a project for every reader at at, frees its
// domains and cancels its queued and running updates and exports, ending
// their jobs so that a worker running one loses its lease, and stores the
// deliveries of each cancel's event, all in one transaction. ENOTFOUND
// when the project is missing or already deleted.
func (s *Store) DeleteProject(ctx context.Context, id string, at time.Time) error {
	t := utc(at)
	return s.tx(ctx, func(tx pgx.Tx) error {
		// FOR UPDATE, not the UPDATE's weaker lock, so that a CreateExport
		// of the project (which key-share locks it) waits for the outcome.
		if err := lockRow(ctx, tx, `SELECT 1 FROM projects WHERE id = $1 AND deleted_at IS NULL FOR UPDATE`, store.NotFound("project", id), id); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE projects SET deleted_at = $2 WHERE id = $1`, id, t); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM domains WHERE project_id = $1`, id); err != nil {
			return err
		}
		// The jobs first: they are found by the states the next two
		// statements end, and a worker locks a job before its record.
		if _, err := tx.Exec(ctx, `UPDATE jobs SET state = 'done', lease_owner = NULL, lease_until = NULL, updated_at = $2
			WHERE state <> 'done' AND id IN (SELECT id FROM updates WHERE project_id = $1 AND status IN ('queued', 'in_progress')
				UNION ALL SELECT id FROM exports WHERE project_id = $1 AND status IN ('queued', 'running'))`, id, t); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `UPDATE updates SET status = 'canceled', ended_at = $2, summary = $3
			WHERE project_id = $1 AND status IN ('queued', 'in_progress') RETURNING `+updateCols, id, t, store.CanceledByDelete)
		updates, err := collect(rows, err, scanUpdate)
		if err != nil {
			return err
		}
		rows, err = tx.Query(ctx, `UPDATE exports SET status = 'canceled', updated_at = $2, error_code = 'canceled', error_message = $3
			WHERE project_id = $1 AND status IN ('queued', 'running') RETURNING `+exportCols, id, t, store.CanceledByDelete)
		exports, err := collect(rows, err, scanExport)
		if err != nil {
			return err
		}
		// The events of the canceled records, oldest record first.
		slices.SortFunc(updates, func(a, b *lectern.Update) int {
			return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), strings.Compare(a.ID, b.ID))
		})
		for _, u := range updates {
			if err := updateEvent(ctx, tx, u, t); err != nil {
				return err
			}
		}
		slices.SortFunc(exports, func(a, b *lectern.ExportJob) int {
			return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), strings.Compare(a.ID, b.ID))
		})
		for _, x := range exports {
			if err := exportEvent(ctx, tx, x, t); err != nil {
				return err
			}
		}
		return nil
	})
}

// ListDeletedProjects returns up to limit projects deleted before t, the
// longest deleted first.
func (s *Store) ListDeletedProjects(ctx context.Context, before time.Time, limit int) ([]*lectern.Project, error) {
	rows, err := s.pool.Query(ctx, projectSelect+` WHERE p.deleted_at IS NOT NULL AND p.deleted_at < $1
		ORDER BY p.deleted_at, p.id LIMIT $2`, utc(before), limitArg(limit))
	return collect(rows, err, scanProject)
}

// PurgeProject drops a deleted project's deployments, its updates and their
// jobs, its assistant messages, its analytics, and the project, in one
// transaction. Its
// exports are left to ListExportsBefore and DeleteExport. ENOTFOUND when
// the project is missing or not deleted.
func (s *Store) PurgeProject(ctx context.Context, id string) error {
	return s.tx(ctx, func(tx pgx.Tx) error {
		if err := lockRow(ctx, tx, `SELECT 1 FROM projects WHERE id = $1 AND deleted_at IS NOT NULL FOR UPDATE`, lectern.Errorf(lectern.ENOTFOUND, "deleted project %q not found", id), id); err != nil {
			return err
		}
		for _, q := range []string{
			`DELETE FROM deployments WHERE project_id = $1`,
			`DELETE FROM jobs WHERE id IN (SELECT id FROM updates WHERE project_id = $1)`,
			`DELETE FROM updates WHERE project_id = $1`,
			`DELETE FROM assistant_messages WHERE project_id = $1`,
			`DELETE FROM analytics_events WHERE project_id = $1`,
			`DELETE FROM analytics_day_visitors WHERE project_id = $1`,
			`DELETE FROM analytics_daily WHERE project_id = $1`,
			`DELETE FROM analytics_weekly WHERE project_id = $1`,
			`DELETE FROM analytics_totals WHERE project_id = $1`,
			`DELETE FROM domains WHERE project_id = $1`, // none: DeleteProject freed them
			`DELETE FROM projects WHERE id = $1`,
		} {
			if _, err := tx.Exec(ctx, q, id); err != nil {
				return err
			}
		}
		return nil
	})
}

// RenameOrg changes an organization's name; ENOTFOUND when it is missing or
// deleted.
func (s *Store) RenameOrg(ctx context.Context, id, name string) error {
	tag, err := s.pool.Exec(ctx, `UPDATE orgs SET name = $1 WHERE id = $2 AND deleted_at IS NULL`, text(name), id)
	if err != nil {
		return wrap(err)
	}
	if tag.RowsAffected() == 0 {
		return store.NotFound("organization", id)
	}
	return nil
}

// DeleteOrg deletes an organization for every reader at at, revokes its
// API keys that are not revoked yet and drops its dashboard users. ECONFLICT, changing nothing, while it
// has projects that are not deleted; ENOTFOUND when it is missing or
// already deleted. The organization's row is locked first, so a concurrent
// CreateProject in it either is seen here or is ENOTFOUND.
func (s *Store) DeleteOrg(ctx context.Context, id string, at time.Time) error {
	t := utc(at)
	return s.tx(ctx, func(tx pgx.Tx) error {
		if err := lockRow(ctx, tx, `SELECT 1 FROM orgs WHERE id = $1 AND deleted_at IS NULL FOR UPDATE`, store.NotFound("organization", id), id); err != nil {
			return err
		}
		var projects int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM projects WHERE org_id = $1 AND deleted_at IS NULL`, id).Scan(&projects); err != nil {
			return err
		}
		if projects > 0 {
			return lectern.Errorf(lectern.ECONFLICT, "organization %q has %d projects: delete them first", id, projects)
		}
		if _, err := tx.Exec(ctx, `UPDATE orgs SET deleted_at = $2 WHERE id = $1`, id, t); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE api_keys SET revoked_at = $2 WHERE org_id = $1 AND revoked_at IS NULL`, id, t); err != nil {
			return err
		}
		// Its dashboard users go at once, their sessions and sign-in
		// tokens with them (ON DELETE CASCADE).
		_, err := tx.Exec(ctx, `DELETE FROM users WHERE org_id = $1`, id)
		return err
	})
}

// ListDeletedOrgs returns up to limit organizations deleted before t that
// no project row (deleted or not) names, the longest deleted first.
func (s *Store) ListDeletedOrgs(ctx context.Context, before time.Time, limit int) ([]*lectern.Organization, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+orgCols+` FROM orgs o WHERE o.deleted_at IS NOT NULL AND o.deleted_at < $1
		AND NOT EXISTS (SELECT 1 FROM projects p WHERE p.org_id = o.id) ORDER BY o.deleted_at, o.id LIMIT $2`, utc(before), limitArg(limit))
	return collect(rows, err, scanOrg)
}

// PurgeOrg drops a deleted organization, its API keys, and its webhooks
// with their deliveries and the deliveries' jobs. ECONFLICT while a
// project row (deleted or not) still names it; ENOTFOUND when it is missing
// or not deleted.
func (s *Store) PurgeOrg(ctx context.Context, id string) error {
	return s.tx(ctx, func(tx pgx.Tx) error {
		if err := lockRow(ctx, tx, `SELECT 1 FROM orgs WHERE id = $1 AND deleted_at IS NOT NULL FOR UPDATE`, lectern.Errorf(lectern.ENOTFOUND, "deleted organization %q not found", id), id); err != nil {
			return err
		}
		var projects int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM projects WHERE org_id = $1`, id).Scan(&projects); err != nil {
			return err
		}
		if projects > 0 {
			return lectern.Errorf(lectern.ECONFLICT, "organization %q still has %d projects to purge", id, projects)
		}
		for _, q := range []string{
			`DELETE FROM api_keys WHERE org_id = $1`,
			// Its webhooks, their deliveries and the deliveries' jobs.
			`DELETE FROM jobs WHERE id IN (SELECT id FROM webhook_deliveries WHERE org_id = $1)`,
			`DELETE FROM webhook_deliveries WHERE org_id = $1`,
			`DELETE FROM webhooks WHERE org_id = $1`,
			`DELETE FROM orgs WHERE id = $1`,
		} {
			if _, err := tx.Exec(ctx, q, id); err != nil {
				return err
			}
		}
		return nil
	})
}
