package cli

import (
	"testing"

	"lectern.dev/lectern/client"
)

// lectern update --wait says where a queued update waits.
func TestQueueLine(t *testing.T) {
	for _, tc := range []struct {
		q    *client.QueueInfo
		want string
	}{
		{nil, ""},
		{&client.QueueInfo{Position: 1, Reason: "workers_busy"}, ", 1st of your organization's jobs to start; the workers are busy"},
		{&client.QueueInfo{Position: 2, Running: 2, Limit: 2, Reason: "organization_limit"}, ", 2nd of your organization's jobs to start; it runs 2 at once already, its limit"},
		{&client.QueueInfo{Position: 13, Reason: "workers_busy"}, ", 13th of your organization's jobs to start; the workers are busy"},
		{&client.QueueInfo{Position: 23, Reason: "workers_busy"}, ", 23rd of your organization's jobs to start; the workers are busy"},
	} {
		if got := queueLine(tc.q); got != tc.want {
			t.Errorf("queueLine(%+v) = %q, want %q", tc.q, got, tc.want)
		}
	}
}
