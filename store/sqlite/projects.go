package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

// CreateProject stores a project and its domains in one transaction.
func (s *Store) CreateProject(ctx context.Context, p *lectern.Project) error {
	if p.ID == "" {
		p.ID = lectern.NewID(lectern.PrefixProject)
	}
	if p.CreatedAt.IsZero() {
		p.CreatedAt = now()
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM orgs WHERE id = ? AND deleted_at IS NULL`, p.OrgID).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return store.NotFound("organization", p.OrgID)
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO projects (id, org_id, name, repo_url, branch, docs_root, deployment_type, custom_scripts, created_at, repo_credentials, deploy_key, known_hosts)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			p.ID, p.OrgID, p.Name, p.RepoURL, p.Branch, p.DocsRoot, string(p.DeploymentType), p.CustomScripts, ts(p.CreatedAt), p.RepoCredentials,
			p.DeployKey, p.KnownHosts)
		if isUnique(err) {
			return lectern.Errorf(lectern.ECONFLICT, "project %q already exists", p.ID)
		}
		if err != nil {
			return err
		}
		for i, d := range p.Domains {
			_, err := tx.ExecContext(ctx, `INSERT INTO domains (domain, project_id, position) VALUES (?, ?, ?)`, d, p.ID, i)
			if isUnique(err) {
				return lectern.Errorf(lectern.ECONFLICT, "domain %q already belongs to a project", d)
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
}

const projectCols = `id, org_id, name, repo_url, branch, docs_root, deployment_type, custom_scripts, coalesce(live_deployment_id, ''), created_at, repo_credentials, deploy_key, known_hosts`

func (s *Store) scanProject(ctx context.Context, row *sql.Row) (*lectern.Project, error) {
	p, err := scanProjectRow(row)
	if err != nil {
		return nil, err
	}
	if p.Domains, err = projectDomains(ctx, s.r, p.ID); err != nil {
		return nil, err
	}
	return p, nil
}

// scanProjectRow reads the projectCols of a project, without its domains.
func scanProjectRow(row interface{ Scan(...any) error }) (*lectern.Project, error) {
	var p lectern.Project
	var dt string
	var created int64
	if err := row.Scan(&p.ID, &p.OrgID, &p.Name, &p.RepoURL, &p.Branch, &p.DocsRoot, &dt, &p.CustomScripts, &p.LiveDeploymentID, &created, &p.RepoCredentials, &p.DeployKey, &p.KnownHosts); err != nil {
		return nil, err
	}
	p.DeploymentType, p.CreatedAt, p.Domains = lectern.DeploymentType(dt), fromTS(created), []string{}
	return &p, nil
}

// projectDomains reads a project's domains in order.
func projectDomains(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, id string) ([]string, error) {
	rows, err := q.QueryContext(ctx, `SELECT domain FROM domains WHERE project_id = ? ORDER BY position`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		var d string
		if err := rows.Scan(&d); err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// GetProject returns a project or ENOTFOUND.
func (s *Store) GetProject(ctx context.Context, id string) (*lectern.Project, error) {
	p, err := s.scanProject(ctx, s.r.QueryRowContext(ctx, `SELECT `+projectCols+` FROM projects WHERE id = ? AND deleted_at IS NULL`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, store.NotFound("project", id)
	}
	return p, wrap(err)
}

// GetProjectByDomain returns the project owning domain, or ENOTFOUND.
func (s *Store) GetProjectByDomain(ctx context.Context, domain string) (*lectern.Project, error) {
	p, err := s.scanProject(ctx, s.r.QueryRowContext(ctx,
		`SELECT `+projectCols+` FROM projects WHERE id = (SELECT project_id FROM domains WHERE domain = ?) AND deleted_at IS NULL`, domain))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, lectern.Errorf(lectern.ENOTFOUND, "domain %q not found", domain)
	}
	return p, wrap(err)
}

// ResolveDomain returns a domain's project and live deployment in one read.
func (s *Store) ResolveDomain(ctx context.Context, domain string) (string, string, error) {
	var pid, live string
	err := s.domainLive.QueryRowContext(ctx, domain).Scan(&pid, &live)
	if errors.Is(err, sql.ErrNoRows) {
		return "", "", lectern.Errorf(lectern.ENOTFOUND, "domain %q not found", domain)
	}
	return pid, live, wrap(err)
}

// ListProjects returns a page of an organization's projects (all for
// ""), newest first, without the deleted ones, read in one transaction
// so that a project deleted meanwhile does not shorten the page.
func (s *Store) ListProjects(ctx context.Context, orgID string, pg store.Page) ([]*lectern.Project, error) {
	tx, err := s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, wrap(err)
	}
	defer tx.Rollback()
	cond, tail, args := pageSQL(pg)
	// The organization's condition is left out rather than made true for
	// "" (? = '' OR org_id = ?), which kept SQLite from its index.
	where, whereArgs := ``, []any(nil)
	if orgID != "" {
		where, whereArgs = ` AND org_id = ?`, []any{orgID}
	}
	rows, err := tx.QueryContext(ctx, `SELECT `+projectCols+` FROM projects WHERE deleted_at IS NULL`+where+cond+tail,
		append(whereArgs, args...)...)
	if err != nil {
		return nil, wrap(err)
	}
	out := []*lectern.Project{}
	for rows.Next() {
		p, err := scanProjectRow(rows)
		if err != nil {
			rows.Close()
			return nil, wrap(err)
		}
		out = append(out, p)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, wrap(err)
	}
	if err := listDomains(ctx, tx, out); err != nil {
		return nil, wrap(err)
	}
	return out, nil
}

// listDomains fills in the domains of projects, in one query for each
// 500 of them (not one per project).
func listDomains(ctx context.Context, tx *sql.Tx, projects []*lectern.Project) error {
	byID := make(map[string]*lectern.Project, len(projects))
	for _, p := range projects {
		p.Domains = []string{}
		byID[p.ID] = p
	}
	for len(projects) > 0 {
		n := min(len(projects), 500)
		ids := make([]any, n)
		for i, p := range projects[:n] {
			ids[i] = p.ID
		}
		projects = projects[n:]
		rows, err := tx.QueryContext(ctx, `SELECT project_id, domain FROM domains WHERE project_id IN (?`+strings.Repeat(`, ?`, n-1)+`)
			ORDER BY project_id, position`, ids...)
		if err != nil {
			return err
		}
		for rows.Next() {
			var id, d string
			if err := rows.Scan(&id, &d); err != nil {
				rows.Close()
				return err
			}
			byID[id].Domains = append(byID[id].Domains, d)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	return nil
}

const deploymentCols = `id, project_id, update_id, commit_sha, commit_ref, commit_message, page_count, created_at`

func scanDeployment(row interface{ Scan(...any) error }) (*lectern.Deployment, error) {
	var d lectern.Deployment
	var created int64
	if err := row.Scan(&d.ID, &d.ProjectID, &d.UpdateID, &d.Commit.SHA, &d.Commit.Ref, &d.Commit.Message, &d.PageCount, &created); err != nil {
		return nil, err
	}
	d.CreatedAt = fromTS(created)
	return &d, nil
}

// GetDeployment returns a deployment or ENOTFOUND.
func (s *Store) GetDeployment(ctx context.Context, id string) (*lectern.Deployment, error) {
	d, err := scanDeployment(s.r.QueryRowContext(ctx, `SELECT `+deploymentCols+` FROM deployments WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, store.NotFound("deployment", id)
	}
	return d, wrap(err)
}

// ListDeployments returns a page of a project's deployments, newest first.
func (s *Store) ListDeployments(ctx context.Context, projectID string, pg store.Page) ([]*lectern.Deployment, error) {
	cond, tail, args := pageSQL(pg)
	rows, err := s.r.QueryContext(ctx, `SELECT `+deploymentCols+` FROM deployments WHERE project_id = ?`+cond+tail,
		append([]any{projectID}, args...)...)
	return collect(rows, err, scanDeployment)
}

// DeleteDeployment removes a deployment that is not live.
func (s *Store) DeleteDeployment(ctx context.Context, id string) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM projects WHERE live_deployment_id = ?`, id).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return lectern.Errorf(lectern.ECONFLICT, "deployment %q is live", id)
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM deployments WHERE id = ?`, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return store.NotFound("deployment", id)
		}
		return nil
	})
}

// SetProjectRepo replaces a project's repository URL and credentials. The
// replaced values are overwritten on disk (secure_delete), and the
// write-ahead log is checkpointed and emptied when no reader holds it, so
// that credentials moved out of a URL leave no clear copy in the files.
func (s *Store) SetProjectRepo(ctx context.Context, id, repoURL, credentials string) error {
	res, err := s.w.ExecContext(ctx, `UPDATE projects SET repo_url = ?, repo_credentials = ? WHERE id = ? AND deleted_at IS NULL`, repoURL, credentials, id)
	if err != nil {
		return wrap(err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return wrap(err)
	} else if n == 0 {
		return store.NotFound("project", id)
	}
	s.truncateWAL(ctx)
	return nil
}
