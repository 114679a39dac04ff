package actions

import (
	"context"
	"strconv"
	"strings"

	"lectern.dev/lectern"
	"lectern.dev/lectern/gitsource"
	"lectern.dev/lectern/store"
)

// ProjectPatch names the settings of a project to change; nil leaves one
// as it is.
type ProjectPatch struct {
	Name           *string   `json:"name"`
	RepoURL        *string   `json:"repoUrl"`
	Branch         *string   `json:"branch"`
	DocsRoot       *string   `json:"docsRoot"`
	Domains        *[]string `json:"domains"`
	DeploymentType *string   `json:"deploymentType"`
}

// Empty reports whether the patch changes nothing.
func (pp *ProjectPatch) Empty() bool { return *pp == ProjectPatch{} }

// change validates the patch against p and returns the store's change,
// or an EINVALID error naming every bad field.
func (pp *ProjectPatch) change(p *lectern.Project, hosts *lectern.ServerHosts) (store.ProjectChange, error) {
	var ch store.ProjectChange
	var fields []lectern.FieldError
	bad := func(field string, err error) {
		fields = append(fields, lectern.FieldError{Field: field, Message: lectern.ErrorMessage(err)})
	}
	if pp.Name != nil {
		if name, err := lectern.NormalizeName(*pp.Name); err != nil {
			bad("name", err)
		} else {
			ch.Name = &name
		}
	}
	if pp.RepoURL != nil && strings.TrimSpace(*pp.RepoURL) != p.RepoURL {
		repo := strings.TrimSpace(*pp.RepoURL)
		if err := gitsource.CheckRemote(repo); err != nil {
			bad("repoUrl", err)
		} else {
			ch.RepoURL = &repo
			// The stored credentials were given for the repository they
			// were given with: a tenant cannot aim them at another one,
			// even on the same host.
			none := ""
			ch.RepoCredentials, ch.KnownHosts = &none, &none
		}
	}
	if pp.Branch != nil {
		if err := gitsource.CheckBranch(*pp.Branch); err != nil {
			bad("branch", err)
		} else {
			ch.Branch = pp.Branch
		}
	}
	if pp.DocsRoot != nil {
		if root, err := lectern.NormalizeDocsRoot(*pp.DocsRoot); err != nil {
			bad("docsRoot", err)
		} else {
			ch.DocsRoot = &root
		}
	}
	if pp.Domains != nil {
		if ds, err := hosts.CheckDomains(*pp.Domains); err != nil {
			bad("domains", err)
		} else {
			ch.Domains = ds
		}
	}
	if pp.DeploymentType != nil {
		if dt, err := lectern.ParseDeploymentType(*pp.DeploymentType); err != nil {
			bad("deploymentType", err)
		} else {
			ch.DeploymentType = &dt
		}
	}
	return ch, InvalidFields(fields)
}

// UpdateProject changes the organization's project. A bad setting is an
// EINVALID error naming every bad field; a domain another project holds
// is an ECONFLICT naming the domains field.
func (s *Service) UpdateProject(ctx context.Context, org, id string, pp ProjectPatch) (*lectern.Project, error) {
	if pp.Empty() {
		return nil, lectern.Errorf(lectern.EINVALID, "The change is empty: give at least one of name, repoUrl, branch, docsRoot, domains, deploymentType.")
	}
	p, err := s.Project(ctx, org, id)
	if err != nil {
		return nil, err
	}
	ch, err := pp.change(p, s.Hosts)
	if err == nil {
		p, err = s.Store.UpdateProject(ctx, p.ID, ch)
	}
	if err != nil {
		return nil, s.domainConflict(ctx, org, id, ch.Domains, err)
	}
	return p, nil
}

// InvalidFields is the EINVALID error naming every bad field, or nil when
// there is none.
func InvalidFields(fields []lectern.FieldError) error {
	if len(fields) == 0 {
		return nil
	}
	msgs := make([]string, len(fields))
	for i, f := range fields {
		msgs[i] = f.Message
		if !strings.HasPrefix(f.Message, f.Field+" ") {
			msgs[i] = f.Field + ": " + f.Message
		}
	}
	return &lectern.Error{Code: lectern.EINVALID, Message: "Invalid request: " + strings.Join(msgs, "; ") + ".", Fields: fields}
}

func itoa(n int) string { return strconv.Itoa(n) }
