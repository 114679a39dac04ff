package httpapi

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
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
		id := r.PathValue("projectId")
		p, err := a.store.GetProject(r.Context(), id)
		if err == nil {
			err = ownedBy(r, p.OrgID, "project", id)
		}
		if err != nil {
			writeError(w, r, a.log, err)
			return
		}
		u := &lectern.Update{ProjectID: p.ID, Source: "api"}
		if err := a.store.CreateUpdate(r.Context(), u); err != nil {
			writeError(w, r, a.log, err)
			return
		}
		if a.jobs != nil {
			a.jobs.Notify()
		}
		w.Header().Set("Location", "/v1/project/update-status/"+u.ID)
		writeJSON(w, http.StatusAccepted, map[string]string{"statusId": u.ID})
	})
}

// getUpdateStatus is GET /v1/project/update-status/{statusId}.
func (a *api) getUpdateStatus(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("statusId")
	u, err := a.store.GetUpdate(r.Context(), id)
	if err == nil {
		err = ownedBy(r, u.OrgID, "update status", id)
	}
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	writeJSON(w, http.StatusOK, u)
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
		ctx, orgID := r.Context(), principalOf(r.Context()).OrgID
		org, err := a.store.GetOrg(ctx, orgID)
		if err != nil {
			writeError(w, r, a.log, err)
			return
		}
		if !org.Plan.AllowsStaticExport() {
			writeError(w, r, a.log, lectern.Errorf(lectern.EPLAN,
				"Static export requires the enterprise plan; organization %s is on the %s plan.", org.ID, org.Plan))
			return
		}
		p, err := a.store.GetProjectByDomain(ctx, domain)
		if err == nil {
			err = ownedBy(r, p.OrgID, "domain", domain)
		}
		if err != nil {
			writeError(w, r, a.log, err)
			return
		}
		e := &lectern.ExportJob{OrgID: orgID, ProjectID: p.ID, Domain: domain, BasePath: basePath}
		n := a.cfg.ExportsPerHour
		if err := a.store.CreateExport(ctx, e, store.ExportQuota{Max: n, Since: time.Now().Add(-time.Hour)}); err != nil {
			var le *lectern.Error
			if errors.As(err, &le) && le.Code == lectern.ERATELIMITED {
				w.Header().Set("RateLimit-Limit", strconv.Itoa(n))
				w.Header().Set("RateLimit-Remaining", "0")
				w.Header().Set("RateLimit-Reset", strconv.Itoa(le.RetryAfterSeconds))
				err = &lectern.Error{Code: lectern.ERATELIMITED, RetryAfterSeconds: le.RetryAfterSeconds,
					Message: "This organization has started the most exports allowed per hour (" + strconv.Itoa(n) + "); retry later."}
			}
			writeError(w, r, a.log, err)
			return
		}
		if a.jobs != nil {
			a.jobs.Notify()
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
	h := w.Header()
	h["Content-Type"] = jsonContentType
	h["Cache-Control"] = noStore
	w.WriteHeader(http.StatusOK)
	w.Write(append(e.AppendJSON(make([]byte, 0, 320)), '\n'))
}

func (a *api) ownedExport(r *http.Request) (*lectern.ExportJob, error) {
	id := r.PathValue("jobId")
	e, err := a.store.GetExport(r.Context(), id)
	if err == nil {
		err = ownedBy(r, e.OrgID, "export job", id)
	}
	return e, err
}

// bundleLink is the body of a bundle response.
type bundleLink struct {
	JobID     string    `json:"jobId"`
	BundleURL string    `json:"bundleUrl"`
	ExpiresAt time.Time `json:"expiresAt"`
	SizeBytes int64     `json:"sizeBytes"`
	SHA256    string    `json:"sha256"`
	Version   string    `json:"version"`
}

// createBundle is POST /v1/static-export/jobs/{jobId}/bundle: the archive
// was built by the job; each call signs a fresh link to it.
func (a *api) createBundle(w http.ResponseWriter, r *http.Request) {
	a.bodiless(w, r, func(w http.ResponseWriter) {
		e, err := a.ownedExport(r)
		if err != nil {
			writeError(w, r, a.log, err)
			return
		}
		switch {
		case e.Status == lectern.ExportFailed:
			msg := "The export job failed, so it has no bundle; start a new export."
			if e.Error != nil {
				msg = "The export job failed (" + e.Error.Message + "), so it has no bundle; start a new export."
			}
			writeError(w, r, a.log, &lectern.Error{Code: lectern.EJOBFAILED, Message: msg, JobID: e.ID})
			return
		case e.Status == lectern.ExportCanceled:
			writeError(w, r, a.log, &lectern.Error{Code: lectern.EJOBFAILED, JobID: e.ID,
				Message: "The export job was canceled, so it has no bundle; start a new export."})
			return
		case e.Status != lectern.ExportCompleted || e.Bundle == nil:
			writeError(w, r, a.log, &lectern.Error{Code: lectern.ENOTCOMPLETED, JobID: e.ID,
				Message: "The export job is " + string(e.Status) + "; poll it until status is completed, then ask for the bundle."})
			return
		}
		u, exp, err := a.links.SignedURL(r.Context(), e.Bundle.Key, a.cfg.BundleURLTTL)
		if err != nil {
			writeError(w, r, a.log, err)
			return
		}
		writeJSON(w, http.StatusOK, bundleLink{JobID: e.ID, BundleURL: u, ExpiresAt: exp.UTC(), SizeBytes: e.Bundle.SizeBytes, SHA256: e.Bundle.SHA256, Version: e.Bundle.Version})
	})
}
