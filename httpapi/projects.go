package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"

	"lectern.dev/lectern"
	"lectern.dev/lectern/actions"
	"lectern.dev/lectern/gitsource"
	"lectern.dev/lectern/store"
)

// projectView is a project as the API shows it: its repository without
// any credentials, and, from GET /v1/projects/{projectId}, its live
// deployment.
type projectView struct {
	lectern.Project
	LiveDeployment *lectern.Deployment `json:"liveDeployment,omitempty"`
}

// MarshalJSON writes the project's fields (as lectern.Project does) and
// its live deployment.
func (v projectView) MarshalJSON() ([]byte, error) {
	type plain lectern.Project // without its MarshalJSON, which would hide LiveDeployment
	return json.Marshal(struct {
		plain
		HasRepoCredentials bool                `json:"repoCredentials"`
		HasDeployKey       bool                `json:"deployKey"`
		LiveDeployment     *lectern.Deployment `json:"liveDeployment,omitempty"`
	}{plain(v.Project), v.RepoCredentials != "", v.DeployKey != "", v.LiveDeployment})
}

// viewOf returns p as the API shows it.
func viewOf(p *lectern.Project) projectView {
	v := projectView{Project: *p}
	v.RepoURL = gitsource.Redact(p.RepoURL)
	if v.Domains == nil {
		v.Domains = []string{}
	}
	return v
}

// ownedProject reads the request's project, ENOTFOUND when another
// organization owns it.
func (a *api) ownedProject(r *http.Request) (*lectern.Project, error) {
	return a.ops.Project(r.Context(), principalOf(r.Context()).OrgID, r.PathValue("projectId"))
}

// listProjects is GET /v1/projects.
func (a *api) listProjects(w http.ResponseWriter, r *http.Request) {
	writePage(a, w, r, func(pg store.Page) ([]*lectern.Project, error) {
		return a.store.ListProjects(r.Context(), principalOf(r.Context()).OrgID, pg)
	}, func(p *lectern.Project) store.Cursor { return store.Cursor{At: p.CreatedAt, ID: p.ID} }, viewOf)
}

// getProject is GET /v1/projects/{projectId}.
func (a *api) getProject(w http.ResponseWriter, r *http.Request) {
	p, err := a.ownedProject(r)
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	a.writeProject(w, r, p)
}

// writeProject answers p as the API shows it, with its live deployment.
func (a *api) writeProject(w http.ResponseWriter, r *http.Request, p *lectern.Project) {
	v := viewOf(p)
	if p.LiveDeploymentID != "" {
		d, err := a.store.GetDeployment(r.Context(), p.LiveDeploymentID)
		if err != nil {
			writeError(w, r, a.log, err)
			return
		}
		d.Live = true
		v.LiveDeployment = d
	}
	writeJSON(w, http.StatusOK, v)
}

// refuseNulls refuses a JSON object body with a null member: a PATCH
// leaves out what it does not change, and null changes nothing.
func refuseNulls(body []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		return jsonError(err)
	}
	for k, v := range m {
		if string(bytes.TrimSpace(v)) == "null" {
			return &lectern.Error{Code: lectern.EINVALID, Message: fmt.Sprintf("Field %q is null: leave it out to keep the setting.", k),
				Fields: []lectern.FieldError{{Field: k, Message: "must not be null"}}}
		}
	}
	return nil
}

// updateProject is PATCH /v1/projects/{projectId}.
func (a *api) updateProject(w http.ResponseWriter, r *http.Request) {
	body, ok := a.readJSONBody(w, r)
	if !ok {
		return
	}
	a.idempotent(w, r, body, func(w http.ResponseWriter) {
		var pp actions.ProjectPatch
		err := decodeJSON(body, &pp)
		if err == nil {
			err = refuseNulls(body)
		}
		if err == nil && pp.Empty() {
			err = lectern.Errorf(lectern.EINVALID, "The body changes nothing: give at least one of name, repoUrl, branch, docsRoot, domains, deploymentType.")
		}
		if err != nil {
			writeError(w, r, a.log, err)
			return
		}
		p, err := a.ops.UpdateProject(r.Context(), principalOf(r.Context()).OrgID, r.PathValue("projectId"), pp)
		if err != nil {
			writeError(w, r, a.log, err)
			return
		}
		a.writeProject(w, r, p)
	})
}

// deleteProject is DELETE /v1/projects/{projectId}.
func (a *api) deleteProject(w http.ResponseWriter, r *http.Request) {
	a.bodiless(w, r, func(w http.ResponseWriter) {
		p, err := a.ops.DeleteProject(r.Context(), principalOf(r.Context()).OrgID, r.PathValue("projectId"))
		if err != nil {
			writeError(w, r, a.log, err)
			return
		}
		a.log.Info("project deleted", "request_id", requestID(r), "project", p.ID, "org", p.OrgID)
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusNoContent)
	})
}

// listUpdates is GET /v1/projects/{projectId}/updates.
func (a *api) listUpdates(w http.ResponseWriter, r *http.Request) {
	p, err := a.ownedProject(r)
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	writePage(a, w, r, func(pg store.Page) ([]*lectern.Update, error) { return a.store.ListUpdates(r.Context(), p.ID, pg) },
		func(u *lectern.Update) store.Cursor { return store.Cursor{At: u.CreatedAt, ID: u.ID} }, same)
}

// listDeployments is GET /v1/projects/{projectId}/deployments.
func (a *api) listDeployments(w http.ResponseWriter, r *http.Request) {
	p, err := a.ownedProject(r)
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	writePage(a, w, r, func(pg store.Page) ([]*lectern.Deployment, error) {
		return a.store.ListDeployments(r.Context(), p.ID, pg)
	},
		func(d *lectern.Deployment) store.Cursor { return store.Cursor{At: d.CreatedAt, ID: d.ID} },
		func(d *lectern.Deployment) *lectern.Deployment { d.Live = d.ID == p.LiveDeploymentID; return d })
}

// listExports is GET /v1/static-export/jobs.
func (a *api) listExports(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := store.ExportFilter{OrgID: principalOf(r.Context()).OrgID}
	var err error
	if d := q.Get("domain"); d != "" {
		if f.Domain, err = lectern.NormalizeDomain(d); err != nil {
			writeError(w, r, a.log, queryError("domain", lectern.ErrorMessage(err)))
			return
		}
	}
	if s := q.Get("status"); s != "" {
		if f.Status, err = lectern.ParseExportStatus(s); err != nil {
			writeError(w, r, a.log, queryError("status", lectern.ErrorMessage(err)))
			return
		}
	}
	writePage(a, w, r, func(pg store.Page) ([]*lectern.ExportJob, error) { return a.store.ListExports(r.Context(), f, pg) },
		func(e *lectern.ExportJob) store.Cursor { return store.Cursor{At: e.CreatedAt, ID: e.ID} }, same)
}
