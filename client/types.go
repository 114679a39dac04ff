package client

import "time"

// The JSON types below mirror the schemas of the API's OpenAPI document
// (GET /v1/openapi.json) field for field. Times are RFC 3339 in UTC.

// UpdateAccepted is the answer to TriggerUpdate (schema UpdateAccepted).
type UpdateAccepted struct {
	// StatusID is the update's ID (upd_...); poll UpdateStatus with it.
	StatusID string `json:"statusId"`
}

// UpdateState is the status of a deployment update.
type UpdateState string

// The update states. Queued moves to in_progress, superseded or canceled;
// in_progress moves to success, failure or canceled (its project was
// deleted). Success, failure, superseded and canceled are final.
const (
	UpdateQueued     UpdateState = "queued"
	UpdateInProgress UpdateState = "in_progress"
	UpdateSuccess    UpdateState = "success"
	UpdateFailure    UpdateState = "failure"
	UpdateSuperseded UpdateState = "superseded"
	UpdateCanceled   UpdateState = "canceled"
)

// Final reports whether the state is one an update never leaves.
func (s UpdateState) Final() bool {
	return s == UpdateSuccess || s == UpdateFailure || s == UpdateSuperseded || s == UpdateCanceled
}

// Commit is the source revision an update built (schema Commit).
type Commit struct {
	SHA     string `json:"sha"`
	Ref     string `json:"ref"`
	Message string `json:"message"`
}

// UpdateStatus is the state of one deployment update (schema UpdateStatus).
type UpdateStatus struct {
	StatusID  string      `json:"statusId"`
	ProjectID string      `json:"projectId"`
	Status    UpdateState `json:"status"`
	// Source says what triggered the update, e.g. "api".
	Source    string    `json:"source"`
	CreatedAt time.Time `json:"createdAt"`
	// StartedAt is nil while the update is queued.
	StartedAt *time.Time `json:"startedAt"`
	// EndedAt is nil until the update reaches a final state.
	EndedAt *time.Time `json:"endedAt"`
	// Summary is a one-line account of the update's state.
	Summary string `json:"summary"`
	// Commit is nil until the branch has been fetched.
	Commit *Commit `json:"commit"`
	// Logs are the build log's lines, oldest first.
	Logs []string `json:"logs"`
	// SupersededBy names the newer update, when Status is superseded.
	SupersededBy string `json:"supersededBy,omitempty"`
	// Queue says where it waits, while Status is queued.
	Queue *QueueInfo `json:"queue,omitempty"`
}

// QueueInfo is where a queued update or export waits (schema QueueInfo).
type QueueInfo struct {
	// Position is its place among its organization's queued updates and
	// exports, in the order they start: 1 is next.
	Position int `json:"position"`
	// Running is how many its organization runs now, and Limit how many
	// it may run at once (0: no limit).
	Running int `json:"running"`
	Limit   int `json:"limit"`
	// Reason is "organization_limit" (its organization already runs Limit
	// jobs) or "workers_busy".
	Reason string `json:"reason"`
}

// ExportRequest is the body of StartExport (schema ExportRequest).
type ExportRequest struct {
	// Domain is a domain of one of the organization's projects.
	Domain string `json:"domain"`
	// BasePath is the path the exported site will be served under, like
	// "/docs"; empty for "/".
	BasePath string `json:"basePath,omitempty"`
}

// ExportState is the status of a static export job.
type ExportState string

// The export states. Queued moves to running or canceled; running moves to
// completed, failed or canceled (or back to queued when its worker
// stopped). Completed, failed and canceled are final.
const (
	ExportQueued    ExportState = "queued"
	ExportRunning   ExportState = "running"
	ExportCompleted ExportState = "completed"
	ExportFailed    ExportState = "failed"
	ExportCanceled  ExportState = "canceled"
)

// Final reports whether the state is one a job never leaves.
func (s ExportState) Final() bool {
	return s == ExportCompleted || s == ExportFailed || s == ExportCanceled
}

// JobError says why an export job failed (schema JobError).
type JobError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// ExportJob is one static export of a domain's live deployment (schema
// ExportJob).
type ExportJob struct {
	JobID  string `json:"jobId"`
	Domain string `json:"domain"`
	// BasePath is the base path requested; empty when none was.
	BasePath string      `json:"basePath,omitempty"`
	Status   ExportState `json:"status"`
	// Progress is the percentage done, 0 to 100, never decreasing.
	Progress int `json:"progress"`
	// PageCount is the number of pages exported so far.
	PageCount int       `json:"pageCount"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
	// CompletedAt is nil until the job is completed or failed.
	CompletedAt *time.Time `json:"completedAt"`
	// Error is nil unless Status is failed or canceled.
	Error *JobError `json:"error"`
	// Queue says where it waits, while Status is queued.
	Queue *QueueInfo `json:"queue,omitempty"`
}

// Bundle is a download link for a completed export's archive (schema
// Bundle).
type Bundle struct {
	JobID string `json:"jobId"`
	// BundleURL is a pre-signed URL that needs no API key, valid until
	// ExpiresAt.
	BundleURL string    `json:"bundleUrl"`
	ExpiresAt time.Time `json:"expiresAt"`
	SizeBytes int64     `json:"sizeBytes"`
	// SHA256 is the archive's SHA-256, lower-case hex.
	SHA256 string `json:"sha256"`
	// Version is the export's version, as in the archive's manifest; the
	// self-hosted runtime can pin it (staticExport.version).
	Version string `json:"version"`
}

// FieldError names one invalid field of a request (schema FieldError).
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}
