package actions

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"lectern.dev/lectern"
)

// NewProject is what an organization gives to create a project. Branch,
// DocsRoot and DeploymentType left empty take their defaults (main, /,
// cloud); the others are required.
type NewProject struct {
	Name           string
	RepoURL        string
	Branch         string
	DocsRoot       string
	Domains        []string
	DeploymentType string
}

// CreateProject creates a project of the organization. Its settings are
// checked as UpdateProject checks a change, so that a tenant may not
// create what it could not change to: a repository on the server's disk
// or network, or with credentials in its URL, is refused. A bad setting is
// an EINVALID error naming every bad field; a domain another project holds
// is an ECONFLICT naming the domains field.
func (s *Service) CreateProject(ctx context.Context, org string, np NewProject) (*lectern.Project, error) {
	if strings.TrimSpace(np.Branch) == "" {
		np.Branch = "main"
	}
	if strings.TrimSpace(np.DocsRoot) == "" {
		np.DocsRoot = "/"
	}
	if strings.TrimSpace(np.DeploymentType) == "" {
		np.DeploymentType = string(lectern.DeploymentCloud)
	}
	if np.Domains == nil {
		np.Domains = []string{} // checked, so that none is an error
	}
	pp := ProjectPatch{Name: &np.Name, RepoURL: &np.RepoURL, Branch: &np.Branch, DocsRoot: &np.DocsRoot,
		Domains: &np.Domains, DeploymentType: &np.DeploymentType}
	// Against an empty project, change skips a repository equal to its
	// empty one: a missing repository is this function's to report.
	ch, err := pp.change(&lectern.Project{}, s.Hosts)
	if strings.TrimSpace(np.RepoURL) == "" {
		var fields []lectern.FieldError
		if le := lectern.AsError(err); le != nil {
			fields = le.Fields
		}
		at := 0
		if len(fields) > 0 && fields[0].Field == "name" {
			at = 1
		}
		fields = slices.Insert(slices.Clone(fields), at, lectern.FieldError{Field: "repoUrl", Message: "must not be empty"})
		err = InvalidFields(fields)
	}
	if err != nil {
		return nil, err
	}
	if _, err := s.Store.GetOrg(ctx, org); err != nil {
		return nil, err
	}
	p := &lectern.Project{OrgID: org, Name: *ch.Name, RepoURL: *ch.RepoURL, Branch: *ch.Branch, DocsRoot: *ch.DocsRoot,
		Domains: ch.Domains, DeploymentType: *ch.DeploymentType, CreatedAt: s.now()}
	if err := s.Store.CreateProject(ctx, p); err != nil {
		return nil, s.domainConflict(ctx, org, "", p.Domains, err)
	}
	return p, nil
}

// domainConflict turns the store's ECONFLICT (a domain that another
// project holds) into an error that says which project holds it, and
// what to do. The project is named when it is the organization's own; of
// another organization's only that much is said (the conflict itself
// already tells the domain is taken).
func (s *Service) domainConflict(ctx context.Context, org, self string, domains []string, err error) error {
	if lectern.ErrorCode(err) != lectern.ECONFLICT {
		return err
	}
	msg := lectern.ErrorMessage(err)
	for _, d := range domains {
		p, gerr := s.Store.GetProjectByDomain(ctx, d)
		if gerr != nil || p.ID == self {
			continue
		}
		if p.OrgID == org {
			msg = fmt.Sprintf("The domain %s belongs to your project %q (%s): remove it there first, or choose another domain.", d, p.Name, p.ID)
		} else {
			msg = fmt.Sprintf("The domain %s belongs to another organization's project: choose another domain, or ask the server's operator.", d)
		}
		return &lectern.Error{Code: lectern.ECONFLICT, Message: msg, Fields: []lectern.FieldError{{Field: "domains", Message: msg}}}
	}
	return &lectern.Error{Code: lectern.ECONFLICT, Message: msg + ": choose another domain, or free it in the project that has it.",
		Fields: []lectern.FieldError{{Field: "domains", Message: msg}}}
}

// CancelUpdate ends the organization's queued or running update as
// canceled: its worker loses the job and publishes nothing. An update
// that has ended already is an ECONFLICT saying there is nothing to
// cancel.
func (s *Service) CancelUpdate(ctx context.Context, org, id string) (*lectern.Update, error) {
	u, err := s.Update(ctx, org, id)
	if err != nil {
		return nil, err
	}
	u, err = s.Store.CancelUpdate(ctx, u.ID, s.now())
	if lectern.ErrorCode(err) == lectern.ECONFLICT {
		return nil, lectern.Errorf(lectern.ECONFLICT, "%s; there is nothing to cancel.", lectern.ErrorMessage(err))
	}
	return u, err
}
