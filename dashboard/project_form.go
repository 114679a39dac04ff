package dashboard

import (
	"net/http"
	"slices"
	"strings"

	"lectern.dev/lectern"
	"lectern.dev/lectern/actions"
	"lectern.dev/lectern/gitsource"
)

// projType is a deployment type as the form offers it.
type projType struct {
	Value, Label, Help string
}

var projTypes = []projType{
	{string(lectern.DeploymentCloud), "Cloud", "This server hosts the site on its domains, with search, the AI assistant and web analytics."},
	{string(lectern.DeploymentClientHosted), "Client-hosted", "You serve exported bundles with lectern selfhost on your own servers."},
	{string(lectern.DeploymentAirGapped), "Air-gapped", "Like client-hosted, on a network without internet access: no AI assistant."},
}

// projFieldLabels are the form's labels of the fields that actions name.
var projFieldLabels = map[string]string{"name": "Name", "repoUrl": "Repository URL", "branch": "Branch", "docsRoot": "Docs root",
	"domains": "Domains", "deploymentType": "Deployment type"}

// projFormView is the new and edit form: what the user typed, and the
// message of each bad field by its name (name, repoUrl, branch, docsRoot,
// domains, deploymentType).
type projFormView struct {
	// P is the edited project; nil on the new form.
	P              *lectern.Project
	Name           string
	RepoURL        string
	Branch         string
	DocsRoot       string
	Domains        string
	DeploymentType string
	Errors         map[string]string
	Types          []projType
}

// projFormOf reads the form as the user sent it.
func projFormOf(r *http.Request) projFormView {
	return projFormView{Name: r.PostFormValue("name"), RepoURL: strings.TrimSpace(r.PostFormValue("repoUrl")),
		Branch: strings.TrimSpace(r.PostFormValue("branch")), DocsRoot: strings.TrimSpace(r.PostFormValue("docsRoot")),
		Domains: r.PostFormValue("domains"), DeploymentType: r.PostFormValue("deploymentType"), Types: projTypes}
}

// projDomains splits the domains field: one per line, or separated by
// commas or spaces.
func projDomains(s string) []string {
	return strings.FieldsFunc(s, func(c rune) bool { return c == ',' || c == '\n' || c == '\r' || c == ' ' || c == '\t' })
}

// projRender shows the form (new when v.P is nil, else edit).
func (h *Handler) projRender(w http.ResponseWriter, r *http.Request, status int, v projFormView, msg string) {
	title := "New project"
	if v.P != nil {
		title = "Edit " + v.P.Name
	}
	d := projPage(r, title, v)
	d.Message = msg
	h.render(w, status, "project_form", d)
}

// projInvalid re-shows the form after an action refused it: the field
// messages beside their fields. It reports false for errors that are not
// about the form, which the caller renders as an error page.
func (h *Handler) projInvalid(w http.ResponseWriter, r *http.Request, v projFormView, err error) bool {
	code := lectern.ErrorCode(err)
	le := lectern.AsError(err)
	if code != lectern.EINVALID && code != lectern.ECONFLICT || le == nil {
		return false
	}
	// A token typed in the URL is shown back hidden: the page is the
	// user's own, but the token has no business on a screen.
	v.RepoURL = gitsource.Redact(v.RepoURL)
	v.Errors = map[string]string{}
	msg := lectern.ErrorMessage(err)
	if len(le.Fields) > 0 {
		parts := make([]string, len(le.Fields))
		for i, f := range le.Fields {
			v.Errors[f.Field] = f.Message
			label := projFieldLabels[f.Field]
			if label == "" {
				label = f.Field
			}
			parts[i] = label + ": " + f.Message
		}
		msg = "Nothing was saved: check the fields marked below. " + strings.Join(parts, "; ") + "."
		if code == lectern.ECONFLICT {
			msg = "Nothing was saved. " + lectern.ErrorMessage(err)
		}
	}
	h.projRender(w, r, projFormStatus(code), v, msg)
	return true
}

// projFormStatus is the status of a form refused with code.
func projFormStatus(code string) int {
	if code == lectern.ECONFLICT {
		return http.StatusConflict
	}
	return http.StatusBadRequest
}

// projNewForm shows an empty form with the defaults.
func (h *Handler) projNewForm(w http.ResponseWriter, r *http.Request) {
	if !h.requireOwner(w, r, "create projects") {
		return
	}
	h.projRender(w, r, http.StatusOK, projFormView{Branch: "main", DocsRoot: "/", DeploymentType: string(lectern.DeploymentCloud), Types: projTypes}, "")
}

// projCreate creates a project and goes to its page.
func (h *Handler) projCreate(w http.ResponseWriter, r *http.Request) {
	ops := h.ownerActions(w, r, "create projects")
	if ops == nil {
		return
	}
	v := projFormOf(r)
	p, err := ops.CreateProject(r.Context(), projOrg(r), actions.NewProject{Name: v.Name, RepoURL: v.RepoURL, Branch: v.Branch,
		DocsRoot: v.DocsRoot, Domains: projDomains(v.Domains), DeploymentType: v.DeploymentType})
	if err != nil {
		if !h.projInvalid(w, r, v, err) {
			h.failed(w, r, "create project", err)
		}
		return
	}
	h.log.Info("dashboard: project created", "project_id", p.ID, "org_id", p.OrgID, "user_id", sessionOf(r).user.ID)
	http.Redirect(w, r, Prefix+"projects/"+p.ID+"?done=created", http.StatusSeeOther)
}

// projEditForm shows the project's settings to change.
func (h *Handler) projEditForm(w http.ResponseWriter, r *http.Request) {
	if !h.requireOwner(w, r, "change projects' settings") {
		return
	}
	_, p := h.projFind(w, r)
	if p == nil {
		return
	}
	h.projRender(w, r, http.StatusOK, projFormView{P: p, Name: p.Name, RepoURL: gitsource.Redact(p.RepoURL), Branch: p.Branch,
		DocsRoot: p.DocsRoot, Domains: strings.Join(p.Domains, "\n"), DeploymentType: string(p.DeploymentType), Types: projTypes}, "")
}

// projEdit changes the settings that differ from the project's: a
// setting sent back as shown is left alone, so that a repository the
// operator set (a path, SSH) survives an edit of the name.
func (h *Handler) projEdit(w http.ResponseWriter, r *http.Request) {
	if !h.requireOwner(w, r, "change projects' settings") {
		return
	}
	ops, p := h.projFind(w, r)
	if p == nil {
		return
	}
	v := projFormOf(r)
	v.P = p
	var pp actions.ProjectPatch
	if strings.TrimSpace(v.Name) != p.Name {
		pp.Name = &v.Name
	}
	if v.RepoURL != gitsource.Redact(p.RepoURL) {
		pp.RepoURL = &v.RepoURL
	}
	if v.Branch != p.Branch {
		pp.Branch = &v.Branch
	}
	if v.DocsRoot != p.DocsRoot {
		pp.DocsRoot = &v.DocsRoot
	}
	if ds := projDomains(v.Domains); !slices.Equal(ds, p.Domains) {
		pp.Domains = &ds
	}
	if v.DeploymentType != string(p.DeploymentType) {
		pp.DeploymentType = &v.DeploymentType
	}
	if pp.Empty() {
		http.Redirect(w, r, Prefix+"projects/"+p.ID+"?done=unchanged", http.StatusSeeOther)
		return
	}
	if _, err := ops.UpdateProject(r.Context(), projOrg(r), p.ID, pp); err != nil {
		if !h.projInvalid(w, r, v, err) {
			h.projFailed(w, r, "update project", err, projNotFound)
		}
		return
	}
	h.log.Info("dashboard: project changed", "project_id", p.ID, "org_id", p.OrgID, "user_id", sessionOf(r).user.ID,
		"repository_changed", pp.RepoURL != nil)
	http.Redirect(w, r, Prefix+"projects/"+p.ID+"?done=saved", http.StatusSeeOther)
}
