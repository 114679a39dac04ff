package dashboard

import (
	"net/http"
	"strings"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/actions"
	"lectern.dev/lectern/gitsource"
	"lectern.dev/lectern/store"
)

// The projects pages: the organization's projects, one project with its
// live deployment and "Deploy now", create, edit and delete (owners),
// the update history with each update's live status and build log
// (project_updates.go), and the deployments with promote. Every action
// goes through actions.Service with the signed-in user's organization, so
// another organization's ids are "not found" as missing ones are.

// projectsPerPage and updatesPerPage size the paged lists.
const (
	projectsPerPage = 50
	updatesPerPage  = 25
)

// projNotFound is the one answer for a project that is missing, deleted
// or another organization's.
const projNotFound = "Your organization has no project with this id."

// projNotices are the notices a page shows after a redirect (?done=KEY):
// fixed texts, so that a link cannot make a page say something else.
var projNotices = map[string]string{
	"created":   "Project created. Deploy it now to build its first deployment; if its repository is private, give the server its credentials on the Access page first.",
	"saved":     "Settings saved. The live site keeps its deployment until the next update builds from the new settings.",
	"unchanged": "Nothing to save: the settings are as they were.",
	"promoted":  "The deployment is live again: the project's domains serve it from now on.",
	"deleted":   "Project deleted: its domains are no longer served and are free for other projects.",
	"canceled":  "Update canceled: its build stops and publishes nothing.",
}

// projectRoutes registers the projects pages: list, create, edit, delete, deploy now, updates with their logs, deployments and promote.
func (h *Handler) projectRoutes(m router) {
	p := Prefix + "projects"
	m.HandleFunc("GET "+p, h.signedIn(h.projList))
	m.HandleFunc("GET "+p+"/new", h.signedIn(h.projNewForm))
	m.HandleFunc("POST "+p+"/new", h.signedIn(h.projCreate))
	m.HandleFunc("GET "+p+"/{id}", h.signedIn(h.projShow))
	m.HandleFunc("POST "+p+"/{id}/deploy", h.signedIn(h.projDeploy))
	m.HandleFunc("GET "+p+"/{id}/edit", h.signedIn(h.projEditForm))
	m.HandleFunc("POST "+p+"/{id}/edit", h.signedIn(h.projEdit))
	m.HandleFunc("GET "+p+"/{id}/delete", h.signedIn(h.projDeleteForm))
	m.HandleFunc("POST "+p+"/{id}/delete", h.signedIn(h.projDelete))
	h.projUpdateRoutes(m)
}

func init() {
	funcs["project_sha"] = actions.ShortSHA
	funcs["project_status"] = projStatusText
	funcs["project_status_class"] = projStatusClass
}

// projStatusText is an update's status as people read it.
func projStatusText(s lectern.UpdateStatus) string {
	if s == lectern.UpdateInProgress {
		return "in progress"
	}
	return string(s)
}

// projStatusClass is the badge class of an update's status.
func projStatusClass(s lectern.UpdateStatus) string {
	switch s {
	case lectern.UpdateSuccess:
		return "badge on"
	case lectern.UpdateFailure:
		return "badge project-failed"
	case lectern.UpdateQueued, lectern.UpdateInProgress:
		return "badge project-running"
	}
	return "badge off"
}

// projOrg is the signed-in user's organization.
func projOrg(r *http.Request) string { return sessionOf(r).user.OrgID }

// projFind returns the action service and the organization's project the
// path names, or renders the error (404 for another organization's).
func (h *Handler) projFind(w http.ResponseWriter, r *http.Request) (*actions.Service, *lectern.Project) {
	ops := h.actions(w, r)
	if ops == nil {
		return nil, nil
	}
	p, err := ops.Project(r.Context(), projOrg(r), r.PathValue("id"))
	if err != nil {
		h.projFailed(w, r, "read project", err, projNotFound)
		return nil, nil
	}
	return ops, p
}

// projFailed renders an action's error, with notFound as the message of
// every ENOTFOUND so that another organization's record and a missing
// one read the same.
func (h *Handler) projFailed(w http.ResponseWriter, r *http.Request, what string, err error, notFound string) {
	if lectern.ErrorCode(err) == lectern.ENOTFOUND {
		h.fail(w, r, http.StatusNotFound, notFound)
		return
	}
	h.failed(w, r, what, err)
}

// projPage returns the pageData of a projects page, with the notice that
// ?done= names.
func projPage(r *http.Request, title string, data any) pageData {
	d := page(r, title, "projects", data)
	d.Notice = projNotices[r.URL.Query().Get("done")]
	return d
}

// projBadPage answers a broken ?after= link.
func (h *Handler) projBadPage(w http.ResponseWriter, r *http.Request) {
	h.fail(w, r, http.StatusBadRequest, "This page link is broken: go back to the list's first page.")
}

// projRow is a project as the list and its page show it.
type projRow struct {
	P *lectern.Project
	// Repo is the repository without any credentials.
	Repo string
	// Live is the live deployment, nil before the first.
	Live *lectern.Deployment
	// Last is the newest update, nil before the first.
	Last *lectern.Update
}

// projRowOf reads p's live deployment and newest update.
func (h *Handler) projRowOf(r *http.Request, p *lectern.Project) (projRow, error) {
	row := projRow{P: p, Repo: gitsource.Redact(p.RepoURL)}
	if p.LiveDeploymentID != "" {
		d, err := h.store.GetDeployment(r.Context(), p.LiveDeploymentID)
		if err != nil && lectern.ErrorCode(err) != lectern.ENOTFOUND {
			return row, err
		}
		row.Live = d
	}
	us, err := h.store.ListUpdates(r.Context(), p.ID, store.Page{Limit: 1})
	if err != nil {
		return row, err
	}
	if len(us) > 0 {
		row.Last = us[0]
	}
	return row, nil
}

// projListView is the projects page.
type projListView struct {
	Rows []projRow
	// Older is the next page's cursor, "" on the last page; Paged says
	// this is not the first page.
	Older string
	Paged bool
}

// projList shows the organization's projects, a page at a time.
func (h *Handler) projList(w http.ResponseWriter, r *http.Request) {
	pg, ok := listPage(r, projectsPerPage)
	if !ok {
		h.projBadPage(w, r)
		return
	}
	ps, err := h.store.ListProjects(r.Context(), projOrg(r), pg)
	if err != nil {
		h.internal(w, r, "list projects", err)
		return
	}
	v := projListView{Paged: pg.After != nil}
	ps, v.Older = trimPage(ps, projectsPerPage, func(p *lectern.Project) (time.Time, string) { return p.CreatedAt, p.ID })
	for _, p := range ps {
		row, err := h.projRowOf(r, p)
		if err != nil {
			h.internal(w, r, "read project", err)
			return
		}
		v.Rows = append(v.Rows, row)
	}
	h.render(w, http.StatusOK, "projects", projPage(r, "Projects", v))
}

// projShowView is one project's page.
type projShowView struct {
	projRow
	// Created says the project was just created: the page suggests its
	// first deployment and the Access page.
	Created bool
}

// projShow shows one project: its settings, live deployment and actions.
func (h *Handler) projShow(w http.ResponseWriter, r *http.Request) {
	_, p := h.projFind(w, r)
	if p == nil {
		return
	}
	row, err := h.projRowOf(r, p)
	if err != nil {
		h.internal(w, r, "read project", err)
		return
	}
	h.render(w, http.StatusOK, "project", projPage(r, p.Name, projShowView{projRow: row, Created: r.URL.Query().Get("done") == "created"}))
}

// projDeploy queues an update of the project (members too) and shows it.
func (h *Handler) projDeploy(w http.ResponseWriter, r *http.Request) {
	ops := h.actions(w, r)
	if ops == nil {
		return
	}
	u, err := ops.TriggerUpdate(r.Context(), projOrg(r), r.PathValue("id"), "dashboard")
	if err != nil {
		h.projFailed(w, r, "trigger update", err, projNotFound)
		return
	}
	h.log.Info("dashboard: update triggered", "project_id", u.ProjectID, "update_id", u.ID, "user_id", sessionOf(r).user.ID)
	http.Redirect(w, r, Prefix+"projects/"+u.ProjectID+"/updates/"+u.ID, http.StatusSeeOther)
}

// projDeleteView is the delete confirmation.
type projDeleteView struct {
	P *lectern.Project
	// Typed is what the user typed to confirm, shown again when it was
	// not the name.
	Typed   string
	Invalid bool
}

// projDeleteForm asks to confirm a deletion by typing the project's name.
func (h *Handler) projDeleteForm(w http.ResponseWriter, r *http.Request) {
	if !h.requireOwner(w, r, "delete projects") {
		return
	}
	_, p := h.projFind(w, r)
	if p == nil {
		return
	}
	h.render(w, http.StatusOK, "project_delete", projPage(r, "Delete "+p.Name, projDeleteView{P: p}))
}

// projDelete deletes the project once its name was typed.
func (h *Handler) projDelete(w http.ResponseWriter, r *http.Request) {
	if !h.requireOwner(w, r, "delete projects") {
		return
	}
	ops, p := h.projFind(w, r)
	if p == nil {
		return
	}
	typed := r.PostFormValue("confirm")
	if strings.TrimSpace(typed) != p.Name {
		d := projPage(r, "Delete "+p.Name, projDeleteView{P: p, Typed: typed, Invalid: true})
		d.Message = "Type the project's name exactly as shown to delete it; nothing was deleted."
		h.render(w, http.StatusBadRequest, "project_delete", d)
		return
	}
	if _, err := ops.DeleteProject(r.Context(), projOrg(r), p.ID); err != nil {
		h.projFailed(w, r, "delete project", err, projNotFound)
		return
	}
	h.log.Info("dashboard: project deleted", "project_id", p.ID, "org_id", p.OrgID, "user_id", sessionOf(r).user.ID)
	http.Redirect(w, r, Prefix+"projects?done=deleted", http.StatusSeeOther)
}
