package client

import (
	"context"
	"fmt"
	"time"
)

// WaitUpdate polls an update until it reaches a final state (success,
// failure or superseded) and returns that status: an update that failed is
// a status, not an error. onPoll, when not nil, is called after every poll
// with the status and the log lines added since the previous poll.
//
// When ctx ends first, WaitUpdate returns the last status it saw (nil if
// none) and an error wrapping ctx.Err(). A poll that fails after its
// retries ends the wait with that error and the last status.
func (c *Client) WaitUpdate(ctx context.Context, statusID string, onPoll func(st *UpdateStatus, newLogs []string)) (*UpdateStatus, error) {
	var last *UpdateStatus
	seen := 0
	interval := c.pollInterval / 10
	for {
		st, err := c.UpdateStatus(ctx, statusID)
		if err != nil {
			return last, fmt.Errorf("waiting for update %s: %w", statusID, err)
		}
		var fresh []string
		if len(st.Logs) > seen {
			fresh = st.Logs[seen:]
			seen = len(st.Logs)
		}
		last = st
		if onPoll != nil {
			onPoll(st, fresh)
		}
		if st.Status.Final() {
			return st, nil
		}
		if err := c.sleep(ctx, interval); err != nil {
			return last, fmt.Errorf("waiting for update %s: %w", statusID, err)
		}
		interval = c.nextPoll(interval)
	}
}

// WaitExport polls an export job until it is completed or failed and
// returns it: a job that failed is a result (see its Error), not an error.
// onPoll, when not nil, is called after every poll.
//
// When ctx ends first, WaitExport returns the last state it saw (nil if
// none) and an error wrapping ctx.Err(). A poll that fails after its
// retries ends the wait with that error and the last state.
func (c *Client) WaitExport(ctx context.Context, jobID string, onPoll func(job *ExportJob)) (*ExportJob, error) {
	var last *ExportJob
	interval := c.pollInterval / 10
	for {
		job, err := c.Export(ctx, jobID)
		if err != nil {
			return last, fmt.Errorf("waiting for export %s: %w", jobID, err)
		}
		last = job
		if onPoll != nil {
			onPoll(job)
		}
		if job.Status.Final() {
			return job, nil
		}
		if err := c.sleep(ctx, interval); err != nil {
			return last, fmt.Errorf("waiting for export %s: %w", jobID, err)
		}
		interval = c.nextPoll(interval)
	}
}

// nextPoll slows polling down by half per poll, up to the poll interval.
func (c *Client) nextPoll(d time.Duration) time.Duration {
	return min(c.pollInterval, max(d+d/2, time.Millisecond))
}
