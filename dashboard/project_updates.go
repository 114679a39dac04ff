package dashboard

import (
	"net/http"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/actions"
)

// Not-found answers of a project's updates and deployments: the same for
// a missing id, another project's and another organization's.
const (
	projUpdateNotFound     = "This project has no update with this id."
	projDeploymentNotFound = "This project has no deployment with this id."
)

// projUpdateRoutes registers a project's update history, each update's
// page, live part and cancel, and its deployments with promote.
func (h *Handler) projUpdateRoutes(m router) {
	p := Prefix + "projects/{id}/"
	m.HandleFunc("GET "+p+"updates", h.signedIn(h.projUpdates))
	m.HandleFunc("GET "+p+"updates/{uid}", h.signedIn(h.projUpdate))
	m.HandleFunc("GET "+p+"updates/{uid}/live", h.signedIn(h.projUpdateLive))
	m.HandleFunc("POST "+p+"updates/{uid}/cancel", h.signedIn(h.projCancel))
	m.HandleFunc("GET "+p+"deployments", h.signedIn(h.projDeployments))
	m.HandleFunc("GET "+p+"deployments/{did}/promote", h.signedIn(h.projPromoteForm))
	m.HandleFunc("POST "+p+"deployments/{did}/promote", h.signedIn(h.projPromote))
}

// projUpdatesView is a project's update history, one page of it.
type projUpdatesView struct {
	P       *lectern.Project
	Updates []*lectern.Update
	Older   string
	Paged   bool
}

// projUpdates lists the project's updates, newest first.
func (h *Handler) projUpdates(w http.ResponseWriter, r *http.Request) {
	_, p := h.projFind(w, r)
	if p == nil {
		return
	}
	pg, ok := listPage(r, updatesPerPage)
	if !ok {
		h.projBadPage(w, r)
		return
	}
	us, err := h.store.ListUpdates(r.Context(), p.ID, pg)
	if err != nil {
		h.internal(w, r, "list updates", err)
		return
	}
	v := projUpdatesView{P: p, Paged: pg.After != nil}
	v.Updates, v.Older = trimPage(us, updatesPerPage, func(u *lectern.Update) (time.Time, string) { return u.CreatedAt, u.ID })
	h.render(w, http.StatusOK, "project_updates", projPage(r, "Updates of "+p.Name, v))
}

// projUpdateView is one update of a project, and where it waits while
// queued.
type projUpdateView struct {
	P     *lectern.Project
	U     *lectern.Update
	Queue *lectern.QueueInfo
}

// projFindUpdate returns the project and its update the path names, or
// renders a 404.
func (h *Handler) projFindUpdate(w http.ResponseWriter, r *http.Request) (*actions.Service, *projUpdateView) {
	ops, p := h.projFind(w, r)
	if p == nil {
		return nil, nil
	}
	u, err := ops.Update(r.Context(), projOrg(r), r.PathValue("uid"))
	if err == nil && u.ProjectID != p.ID {
		err = lectern.Errorf(lectern.ENOTFOUND, "not this project's update")
	}
	if err != nil {
		h.projFailed(w, r, "read update", err, projUpdateNotFound)
		return nil, nil
	}
	v := &projUpdateView{P: p, U: u}
	if u.Status == lectern.UpdateQueued {
		v.Queue = h.queueInfo(r, ops, u.ID)
	}
	return ops, v
}

// queueInfo says where queued job id waits; nil when it no longer does or
// the store cannot say (logged: the page shows the rest).
func (h *Handler) queueInfo(r *http.Request, ops *actions.Service, id string) *lectern.QueueInfo {
	q, err := ops.QueueInfo(r.Context(), id)
	if err != nil && r.Context().Err() == nil {
		h.log.Warn("queue place failed", "job", id, "err", err)
	}
	return q
}

// projUpdate shows an update with its build log; its status part reloads
// itself while the update has not ended.
func (h *Handler) projUpdate(w http.ResponseWriter, r *http.Request) {
	_, v := h.projFindUpdate(w, r)
	if v == nil {
		return
	}
	h.render(w, http.StatusOK, "project_update", projPage(r, "Update "+v.U.ID, *v))
}

// projUpdateLive is the update page's live part alone: without data-live
// once the update has ended, which stops the page's polling.
func (h *Handler) projUpdateLive(w http.ResponseWriter, r *http.Request) {
	_, v := h.projFindUpdate(w, r)
	if v == nil {
		return
	}
	h.renderPart(w, "project_update", "live", page(r, "", "projects", *v))
}

// projCancel cancels a queued or running update (members too, as they
// deploy) and shows it again.
func (h *Handler) projCancel(w http.ResponseWriter, r *http.Request) {
	ops, v := h.projFindUpdate(w, r)
	if v == nil {
		return
	}
	if _, err := ops.CancelUpdate(r.Context(), projOrg(r), v.U.ID); err != nil {
		h.projFailed(w, r, "cancel update", err, projUpdateNotFound)
		return
	}
	h.log.Info("dashboard: update canceled", "project_id", v.P.ID, "update_id", v.U.ID, "user_id", sessionOf(r).user.ID)
	http.Redirect(w, r, Prefix+"projects/"+v.P.ID+"/updates/"+v.U.ID+"?done=canceled", http.StatusSeeOther)
}

// projDeploymentsView is a project's deployments, one page of them.
type projDeploymentsView struct {
	P           *lectern.Project
	Deployments []*lectern.Deployment
	Older       string
	Paged       bool
}

// projDeployments lists the project's deployments, newest first, the live
// one marked.
func (h *Handler) projDeployments(w http.ResponseWriter, r *http.Request) {
	_, p := h.projFind(w, r)
	if p == nil {
		return
	}
	pg, ok := listPage(r, updatesPerPage)
	if !ok {
		h.projBadPage(w, r)
		return
	}
	ds, err := h.store.ListDeployments(r.Context(), p.ID, pg)
	if err != nil {
		h.internal(w, r, "list deployments", err)
		return
	}
	v := projDeploymentsView{P: p, Paged: pg.After != nil}
	ds, v.Older = trimPage(ds, updatesPerPage, func(d *lectern.Deployment) (time.Time, string) { return d.CreatedAt, d.ID })
	for _, d := range ds {
		d.Live = d.ID == p.LiveDeploymentID
	}
	v.Deployments = ds
	h.render(w, http.StatusOK, "project_deployments", projPage(r, "Deployments of "+p.Name, v))
}

// projPromoteView is the promote confirmation.
type projPromoteView struct {
	P *lectern.Project
	D *lectern.Deployment
}

// projFindDeployment returns the project and its deployment the path
// names, or renders a 404.
func (h *Handler) projFindDeployment(w http.ResponseWriter, r *http.Request) (*actions.Service, *projPromoteView) {
	ops, p := h.projFind(w, r)
	if p == nil {
		return nil, nil
	}
	d, err := h.store.GetDeployment(r.Context(), r.PathValue("did"))
	if err == nil && d.ProjectID != p.ID {
		err = lectern.Errorf(lectern.ENOTFOUND, "not this project's deployment")
	}
	if err != nil {
		h.projFailed(w, r, "read deployment", err, projDeploymentNotFound)
		return nil, nil
	}
	d.Live = d.ID == p.LiveDeploymentID
	return ops, &projPromoteView{P: p, D: d}
}

// projPromoteForm asks to confirm making a deployment live again.
func (h *Handler) projPromoteForm(w http.ResponseWriter, r *http.Request) {
	_, v := h.projFindDeployment(w, r)
	if v == nil {
		return
	}
	h.render(w, http.StatusOK, "project_promote", projPage(r, "Promote deployment", *v))
}

// projPromote makes the deployment live (members too: it is a deploy).
func (h *Handler) projPromote(w http.ResponseWriter, r *http.Request) {
	ops, v := h.projFindDeployment(w, r)
	if v == nil {
		return
	}
	u, err := ops.Promote(r.Context(), projOrg(r), v.P.ID, v.D.ID)
	if err != nil {
		h.projFailed(w, r, "promote deployment", err, projDeploymentNotFound)
		return
	}
	h.log.Info("dashboard: deployment promoted", "project_id", v.P.ID, "deployment_id", v.D.ID, "update_id", u.ID,
		"user_id", sessionOf(r).user.ID)
	http.Redirect(w, r, Prefix+"projects/"+v.P.ID+"?done=promoted", http.StatusSeeOther)
}
