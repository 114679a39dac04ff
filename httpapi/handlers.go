package httpapi

import (
	"errors"
	"net/http"
	"strconv"

	"lectern.dev/lectern"
)

// Shared header values of the polled responses (never modified by net/http).
var (
	jsonContentType = []string{"application/json"}
	noStore         = []string{"no-store"}
)

// ownedBy hides records of other organizations: they are "not found".
func ownedBy(r *http.Request, orgID, what, id string) error {
	if orgID != principalOf(r.Context()).OrgID {
		return lectern.Errorf(lectern.ENOTFOUND, "%s %q not found", what, id)
	}
	return nil
}

// bodiless runs next as idempotent does for an operation that takes no
// body, answering the error itself when the body is too large or not
// empty.
func (a *api) bodiless(w http.ResponseWriter, r *http.Request, next func(http.ResponseWriter)) {
	body, err := readBody(w, r, a.cfg.MaxBodyBytes)
	if err == nil {
		err = requireNoBody(body)
	}
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	a.idempotent(w, r, body, next)
}

// readJSONBody reads the JSON body of an operation that takes one,
// answering the error itself when it is not JSON or too large.
func (a *api) readJSONBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	err := requireJSON(r)
	var body []byte
	if err == nil {
		body, err = readBody(w, r, a.cfg.MaxBodyBytes)
	}
	if err != nil {
		writeError(w, r, a.log, err)
		return nil, false
	}
	return body, true
}

// triggerUpdate is POST /v1/project/update/{projectId}.
func (a *api) triggerUpdate(w http.ResponseWriter, r *http.Request) {
	a.bodiless(w, r, func(w http.ResponseWriter) {
		u, err := a.ops.TriggerUpdate(r.Context(), principalOf(r.Context()).OrgID, r.PathValue("projectId"), "api")
		if err != nil {
			writeError(w, r, a.log, err)
			return
		}
		w.Header().Set("Location", "/v1/project/update-status/"+u.ID)
		writeJSON(w, http.StatusAccepted, map[string]string{"statusId": u.ID})
	})
}

// getUpdateStatus is GET /v1/project/update-status/{statusId}.
func (a *api) getUpdateStatus(w http.ResponseWriter, r *http.Request) {
	u, err := a.ops.Update(r.Context(), principalOf(r.Context()).OrgID, r.PathValue("statusId"))
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	if u.Status == lectern.UpdateQueued {
		q := *u // a shared, cached record is not to change
		q.Queue = a.queueInfo(r, u.ID)
		u = &q
	}
	writeJSON(w, http.StatusOK, u)
}

// queueInfo says where queued job id waits; nil when it no longer does or
// the store cannot say.
func (a *api) queueInfo(r *http.Request, id string) *lectern.QueueInfo {
	q, err := a.ops.QueueInfo(r.Context(), id)
	if err != nil && r.Context().Err() == nil {
		a.log.Warn("queue place failed", "job", id, "err", err)
	}
	return q
}

// startExport is POST /v1/static-export/jobs.
func (a *api) startExport(w http.ResponseWriter, r *http.Request) {
	body, ok := a.readJSONBody(w, r)
	if !ok {
		return
	}
	a.idempotent(w, r, body, func(w http.ResponseWriter) {
		domain, basePath, err := parseExportRequest(body)
		if err != nil {
			writeError(w, r, a.log, err)
			return
		}
		e, err := a.ops.StartExport(r.Context(), principalOf(r.Context()).OrgID, domain, basePath)
		var le *lectern.Error
		if errors.As(err, &le) && le.Code == lectern.ERATELIMITED {
			w.Header().Set("RateLimit-Limit", strconv.Itoa(a.cfg.ExportsPerHour))
			w.Header().Set("RateLimit-Remaining", "0")
			w.Header().Set("RateLimit-Reset", strconv.Itoa(le.RetryAfterSeconds))
		}
		if err != nil {
			writeError(w, r, a.log, err)
			return
		}
		w.Header().Set("Location", "/v1/static-export/jobs/"+e.ID)
		writeJSON(w, http.StatusAccepted, e)
	})
}

// getExport is GET /v1/static-export/jobs/{jobId}.
func (a *api) getExport(w http.ResponseWriter, r *http.Request) {
	e, err := a.ownedExport(r)
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	if e.Status == lectern.ExportQueued {
		q := *e // a shared, cached record is not to change
		q.Queue = a.queueInfo(r, e.ID)
		e = &q
	}
	h := w.Header()
	h["Content-Type"] = jsonContentType
	h["Cache-Control"] = noStore
	w.WriteHeader(http.StatusOK)
	w.Write(append(e.AppendJSON(make([]byte, 0, 320)), '\n'))
}

func (a *api) ownedExport(r *http.Request) (*lectern.ExportJob, error) {
	return a.ops.Export(r.Context(), principalOf(r.Context()).OrgID, r.PathValue("jobId"))
}

// createBundle is POST /v1/static-export/jobs/{jobId}/bundle: the archive
// was built by the job; each call signs a fresh link to it.
func (a *api) createBundle(w http.ResponseWriter, r *http.Request) {
	a.bodiless(w, r, func(w http.ResponseWriter) {
		b, err := a.ops.Bundle(r.Context(), principalOf(r.Context()).OrgID, r.PathValue("jobId"))
		if err != nil {
			writeError(w, r, a.log, err)
			return
		}
		writeJSON(w, http.StatusOK, b)
	})
}
