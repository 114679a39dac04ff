package client

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"
)

// Projects returns a page of the organization's projects, newest first
// (GET /projects).
func (c *Client) Projects(ctx context.Context, opts ListOptions) (*Page[Project], error) {
	var out Page[Project]
	if err := c.do(ctx, request{method: http.MethodGet, path: "/projects" + opts.query(nil), out: &out}); err != nil {
		return nil, err
	}
	return &out, nil
}

// Project returns a project with its live deployment
// (GET /projects/{projectId}). An unknown ID, or another organization's
// project, is a not_found *Error.
func (c *Client) Project(ctx context.Context, projectID string) (*Project, error) {
	if projectID == "" {
		return nil, errors.New("project: no project ID given")
	}
	var out Project
	if err := c.do(ctx, request{method: http.MethodGet, path: "/projects/" + url.PathEscape(projectID), out: &out}); err != nil {
		return nil, err
	}
	return &out, nil
}

// UpdateProject changes the settings that patch gives, all or none
// (PATCH /projects/{projectId}), and returns the project as it now is. A
// domain another project holds is a conflict *Error; a bad value is an
// invalid_request *Error whose Fields name it.
func (c *Client) UpdateProject(ctx context.Context, projectID string, patch ProjectPatch) (*Project, error) {
	if projectID == "" {
		return nil, errors.New("update project: no project ID given")
	}
	body, err := json.Marshal(patch)
	if err != nil {
		return nil, err
	}
	var out Project
	if err := c.do(ctx, request{method: http.MethodPatch, path: "/projects/" + url.PathEscape(projectID), body: body, out: &out}); err != nil {
		return nil, err
	}
	return &out, nil
}

// DeleteProject deletes a project at once (DELETE /projects/{projectId}):
// its domains stop being served, and its queued and running work ends
// canceled. A retry after a lost answer gets the first answer replayed.
func (c *Client) DeleteProject(ctx context.Context, projectID string) error {
	if projectID == "" {
		return errors.New("delete project: no project ID given")
	}
	return c.do(ctx, request{method: http.MethodDelete, path: "/projects/" + url.PathEscape(projectID)})
}

// Updates returns a page of a project's update statuses, newest first
// (GET /projects/{projectId}/updates), each without its build log (Logs
// empty): UpdateStatus reads one update's log.
func (c *Client) Updates(ctx context.Context, projectID string, opts ListOptions) (*Page[UpdateStatus], error) {
	if projectID == "" {
		return nil, errors.New("updates: no project ID given")
	}
	var out Page[UpdateStatus]
	if err := c.do(ctx, request{method: http.MethodGet, path: "/projects/" + url.PathEscape(projectID) + "/updates" + opts.query(nil), out: &out}); err != nil {
		return nil, err
	}
	return &out, nil
}

// Deployments returns a page of a project's kept deployments, newest
// first, the live one marked (GET /projects/{projectId}/deployments).
func (c *Client) Deployments(ctx context.Context, projectID string, opts ListOptions) (*Page[Deployment], error) {
	if projectID == "" {
		return nil, errors.New("deployments: no project ID given")
	}
	var out Page[Deployment]
	if err := c.do(ctx, request{method: http.MethodGet, path: "/projects/" + url.PathEscape(projectID) + "/deployments" + opts.query(nil), out: &out}); err != nil {
		return nil, err
	}
	return &out, nil
}

// Exports returns a page of the organization's export jobs, newest
// first, of a domain and in a state when opts says (GET
// /static-export/jobs): a job whose ID was lost is found again.
func (c *Client) Exports(ctx context.Context, opts ExportListOptions) (*Page[ExportJob], error) {
	q := url.Values{}
	if opts.Domain != "" {
		q.Set("domain", opts.Domain)
	}
	if opts.Status != "" {
		q.Set("status", string(opts.Status))
	}
	var out Page[ExportJob]
	if err := c.do(ctx, request{method: http.MethodGet, path: "/static-export/jobs" + opts.query(q), out: &out}); err != nil {
		return nil, err
	}
	return &out, nil
}

// query returns the query string of a list call: q and the page's
// parameters.
func (o ListOptions) query(q url.Values) string {
	if q == nil {
		q = url.Values{}
	}
	if o.Limit > 0 {
		q.Set("limit", strconv.Itoa(o.Limit))
	}
	if o.Cursor != "" {
		q.Set("cursor", o.Cursor)
	}
	if len(q) == 0 {
		return ""
	}
	return "?" + q.Encode()
}

// PromoteDeployment makes a kept deployment of the project live again, at
// once (POST /projects/{projectId}/deployments/{deploymentId}/promote),
// and returns the update that records the switch in the project's
// history. A deployment the server no longer keeps is a not_found *Error.
func (c *Client) PromoteDeployment(ctx context.Context, projectID, deploymentID string) (*UpdateStatus, error) {
	if projectID == "" || deploymentID == "" {
		return nil, errors.New("promote deployment: no project or deployment ID given")
	}
	var out UpdateStatus
	path := "/projects/" + url.PathEscape(projectID) + "/deployments/" + url.PathEscape(deploymentID) + "/promote"
	if err := c.do(ctx, request{method: http.MethodPost, path: path, out: &out}); err != nil {
		return nil, err
	}
	return &out, nil
}

// CancelUpdate cancels a queued or running update
// (POST /project/update-status/{statusId}/cancel) and returns it, canceled:
// a running one's worker stops within seconds and publishes nothing. One
// that has already ended is a conflict *Error.
func (c *Client) CancelUpdate(ctx context.Context, statusID string) (*UpdateStatus, error) {
	if statusID == "" {
		return nil, errors.New("cancel update: no status ID given")
	}
	var out UpdateStatus
	if err := c.do(ctx, request{method: http.MethodPost, path: "/project/update-status/" + url.PathEscape(statusID) + "/cancel", out: &out}); err != nil {
		return nil, err
	}
	return &out, nil
}

// CancelExport cancels a queued or running export job
// (POST /static-export/jobs/{jobId}/cancel) and returns it, canceled. One
// that has already ended is a conflict *Error.
func (c *Client) CancelExport(ctx context.Context, jobID string) (*ExportJob, error) {
	if jobID == "" {
		return nil, errors.New("cancel export: no job ID given")
	}
	var out ExportJob
	if err := c.do(ctx, request{method: http.MethodPost, path: "/static-export/jobs/" + url.PathEscape(jobID) + "/cancel", out: &out}); err != nil {
		return nil, err
	}
	return &out, nil
}
