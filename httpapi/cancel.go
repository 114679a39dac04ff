package httpapi

import (
	"net/http"
)

// cancelUpdate is POST /v1/project/update-status/{statusId}/cancel.
func (a *api) cancelUpdate(w http.ResponseWriter, r *http.Request) {
	a.bodiless(w, r, func(w http.ResponseWriter) {
		id := r.PathValue("statusId")
		u, err := a.ops.CancelUpdate(r.Context(), principalOf(r.Context()).OrgID, id)
		if err != nil {
			writeError(w, r, a.log, err)
			return
		}
		a.log.Info("update canceled", "request_id", requestID(r), "update", id)
		writeJSON(w, http.StatusOK, u)
	})
}

// cancelExport is POST /v1/static-export/jobs/{jobId}/cancel.
func (a *api) cancelExport(w http.ResponseWriter, r *http.Request) {
	a.bodiless(w, r, func(w http.ResponseWriter) {
		e, err := a.ops.CancelExport(r.Context(), principalOf(r.Context()).OrgID, r.PathValue("jobId"))
		if err != nil {
			writeError(w, r, a.log, err)
			return
		}
		a.log.Info("export canceled", "request_id", requestID(r), "job", e.ID)
		writeJSON(w, http.StatusOK, e)
	})
}

// promoteDeployment is
// POST /v1/projects/{projectId}/deployments/{deploymentId}/promote.
func (a *api) promoteDeployment(w http.ResponseWriter, r *http.Request) {
	a.bodiless(w, r, func(w http.ResponseWriter) {
		depID := r.PathValue("deploymentId")
		u, err := a.ops.Promote(r.Context(), principalOf(r.Context()).OrgID, r.PathValue("projectId"), depID)
		if err != nil {
			writeError(w, r, a.log, err)
			return
		}
		a.log.Info("deployment promoted", "request_id", requestID(r), "project", r.PathValue("projectId"), "deployment", depID, "update", u.ID)
		w.Header().Set("Location", "/v1/project/update-status/"+u.ID)
		writeJSON(w, http.StatusOK, u)
	})
}
