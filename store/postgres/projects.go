package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

// CreateProject stores a project and its domains in one transaction. The
// organization's row is key-share locked first, so that a concurrent DeleteOrg
// either sees the new project or makes this call ENOTFOUND.
func (s *Store) CreateProject(ctx context.Context, p *lectern.Project) error {
	if p.ID == "" {
		p.ID = lectern.NewID(lectern.PrefixProject)
	}
	if p.CreatedAt.IsZero() {
		p.CreatedAt = now()
	}
	return s.tx(ctx, func(tx pgx.Tx) error {
		if err := lockRow(ctx, tx, `SELECT 1 FROM orgs WHERE id = $1 AND deleted_at IS NULL FOR KEY SHARE`, store.NotFound("organization", p.OrgID), p.OrgID); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO projects (id, org_id, name, repo_url, branch, docs_root, deployment_type, custom_scripts, created_at, repo_credentials, deploy_key, known_hosts)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
			p.ID, p.OrgID, text(p.Name), p.RepoURL, p.Branch, p.DocsRoot, string(p.DeploymentType), p.CustomScripts, utc(p.CreatedAt), p.RepoCredentials,
			p.DeployKey, p.KnownHosts)
		switch {
		case isCode(err, foreignKeyViolation):
			return store.NotFound("organization", p.OrgID)
		case isCode(err, uniqueViolation):
			return lectern.Errorf(lectern.ECONFLICT, "project %q already exists", p.ID)
		case err != nil:
			return err
		}
		for i, d := range p.Domains {
			_, err := tx.Exec(ctx, `INSERT INTO domains (domain, project_id, position) VALUES ($1, $2, $3)`, d, p.ID, i)
			if isCode(err, uniqueViolation) {
				return lectern.Errorf(lectern.ECONFLICT, "domain %q already belongs to a project", d)
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
}

// projectSelect reads a project with its domains in one query; callers
// add the condition on p.deleted_at they need.
const projectSelect = `SELECT p.id, p.org_id, p.name, p.repo_url, p.branch, p.docs_root, p.deployment_type, p.custom_scripts,
	coalesce(p.live_deployment_id, ''), p.created_at, p.repo_credentials, p.deploy_key, p.known_hosts,
	coalesce((SELECT array_agg(d.domain ORDER BY d.position) FROM domains d WHERE d.project_id = p.id), '{}')
	FROM projects p`

func scanProject(row pgx.Row) (*lectern.Project, error) {
	var p lectern.Project
	var dt string
	if err := row.Scan(&p.ID, &p.OrgID, &p.Name, &p.RepoURL, &p.Branch, &p.DocsRoot, &dt, &p.CustomScripts, &p.LiveDeploymentID, &p.CreatedAt, &p.RepoCredentials, &p.DeployKey, &p.KnownHosts, &p.Domains); err != nil {
		return nil, err
	}
	p.DeploymentType, p.CreatedAt = lectern.DeploymentType(dt), utc(p.CreatedAt)
	if p.Domains == nil {
		p.Domains = []string{}
	}
	return &p, nil
}

// GetProject returns a project, or ENOTFOUND when it is missing or deleted.
func (s *Store) GetProject(ctx context.Context, id string) (*lectern.Project, error) {
	p, err := scanProject(s.pool.QueryRow(ctx, projectSelect+` WHERE p.id = $1 AND p.deleted_at IS NULL`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, store.NotFound("project", id)
	}
	return p, wrap(err)
}

// GetProjectByDomain returns the project owning domain, or ENOTFOUND.
func (s *Store) GetProjectByDomain(ctx context.Context, domain string) (*lectern.Project, error) {
	p, err := scanProject(s.pool.QueryRow(ctx, projectSelect+` WHERE p.id = (SELECT project_id FROM domains WHERE domain = $1)
		AND p.deleted_at IS NULL`, domain))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, lectern.Errorf(lectern.ENOTFOUND, "domain %q not found", domain)
	}
	return p, wrap(err)
}

// ResolveDomain returns a domain's project and live deployment in one read.
func (s *Store) ResolveDomain(ctx context.Context, domain string) (string, string, error) {
	var pid, live string
	err := s.pool.QueryRow(ctx, `SELECT d.project_id, coalesce(p.live_deployment_id, '') FROM domains d
		JOIN projects p ON p.id = d.project_id WHERE d.domain = $1 AND p.deleted_at IS NULL`, domain).Scan(&pid, &live)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", "", lectern.Errorf(lectern.ENOTFOUND, "domain %q not found", domain)
	}
	return pid, live, wrap(err)
}

// ListProjects returns a page of an organization's projects, or of all for
// "", newest first; deleted projects are not listed.
func (s *Store) ListProjects(ctx context.Context, orgID string, pg store.Page) ([]*lectern.Project, error) {
	tail, args := pageSQL("p.", pg, []any{orgID})
	rows, err := s.pool.Query(ctx, projectSelect+` WHERE p.deleted_at IS NULL AND ($1 = '' OR p.org_id = $1)`+tail, args...)
	return collect(rows, err, scanProject)
}

const deploymentCols = `id, project_id, update_id, commit_sha, commit_ref, commit_message, page_count, created_at`

func scanDeployment(row pgx.Row) (*lectern.Deployment, error) {
	var d lectern.Deployment
	if err := row.Scan(&d.ID, &d.ProjectID, &d.UpdateID, &d.Commit.SHA, &d.Commit.Ref, &d.Commit.Message, &d.PageCount, &d.CreatedAt); err != nil {
		return nil, err
	}
	d.CreatedAt = utc(d.CreatedAt)
	return &d, nil
}

// GetDeployment returns a deployment or ENOTFOUND.
func (s *Store) GetDeployment(ctx context.Context, id string) (*lectern.Deployment, error) {
	d, err := scanDeployment(s.pool.QueryRow(ctx, `SELECT `+deploymentCols+` FROM deployments WHERE id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, store.NotFound("deployment", id)
	}
	return d, wrap(err)
}

// ListDeployments returns a page of a project's deployments, newest first.
func (s *Store) ListDeployments(ctx context.Context, projectID string, pg store.Page) ([]*lectern.Deployment, error) {
	tail, args := pageSQL("", pg, []any{projectID})
	rows, err := s.pool.Query(ctx, `SELECT `+deploymentCols+` FROM deployments WHERE project_id = $1`+tail, args...)
	return collect(rows, err, scanDeployment)
}

// DeleteDeployment removes a deployment that is not live. A deployment
// becomes live in the transaction that stores it, or in a PromoteDeployment
// that key-share locks its row: the row is locked here before the check,
// so that the check sees a promotion that got there first, and a later one
// finds the deployment gone.
func (s *Store) DeleteDeployment(ctx context.Context, id string) error {
	return s.tx(ctx, func(tx pgx.Tx) error {
		if err := lockRow(ctx, tx, `SELECT 1 FROM deployments WHERE id = $1 FOR UPDATE`, store.NotFound("deployment", id), id); err != nil {
			return err
		}
		var live bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM projects WHERE live_deployment_id = $1)`, id).Scan(&live); err != nil {
			return err
		}
		if live {
			return lectern.Errorf(lectern.ECONFLICT, "deployment %q is live", id)
		}
		_, err := tx.Exec(ctx, `DELETE FROM deployments WHERE id = $1`, id)
		return err
	})
}

// SetProjectRepo replaces a project's repository URL and credentials;
// ENOTFOUND when the project is missing or deleted.
func (s *Store) SetProjectRepo(ctx context.Context, id, repoURL, credentials string) error {
	tag, err := s.pool.Exec(ctx, `UPDATE projects SET repo_url = $2, repo_credentials = $3 WHERE id = $1 AND deleted_at IS NULL`,
		id, repoURL, credentials)
	if err != nil {
		return wrap(err)
	}
	if tag.RowsAffected() == 0 {
		return store.NotFound("project", id)
	}
	return nil
}
