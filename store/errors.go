package store

import (
	"time"

	"lectern.dev/lectern"
)

// Errors and limits every implementation of the seam shares, so that they
// answer alike.

// MaxAttempts is how many times a job is tried before its failure is
// final (update and export jobs alike).
const MaxAttempts = 3

// NotFound is the ENOTFOUND error of a record that does not exist.
func NotFound(what, id string) error {
	return lectern.Errorf(lectern.ENOTFOUND, "%s %q not found", what, id)
}

// TooManyWebhooks is the ECONFLICT error of a webhook that would pass an
// organization's limit.
func TooManyWebhooks(limit int) error {
	return lectern.Errorf(lectern.ECONFLICT, "The organization has %d webhooks, the most allowed: delete one first.", limit)
}

// LeaseLost is the ECONFLICT error of a write fenced off because lease no
// longer holds its job.
func LeaseLost(l Lease) error {
	return lectern.Errorf(lectern.ECONFLICT, "job %s: lease lost (another worker holds it or it ended)", l.JobID)
}

// ExportInProgress is the EEXPORTINPROGRESS error of an export start while
// export jobID of the same domain is queued or running.
func ExportInProgress(domain, jobID string) error {
	return &lectern.Error{Code: lectern.EEXPORTINPROGRESS, JobID: jobID,
		Message: "An export of " + domain + " is already queued or running (" + jobID + ")."}
}

// QuotaSpent is the ERATELIMITED error of an export start beyond the
// organization's ExportQuota; the oldest export counted leaves the window
// in wait.
func QuotaSpent(wait time.Duration) error {
	return &lectern.Error{Code: lectern.ERATELIMITED, RetryAfterSeconds: max(1, int((wait+time.Second-1)/time.Second)),
		Message: "The organization has started the most exports its quota allows; retry later."}
}
