package lectern

import (
	"encoding/json"
	"testing"
	"time"
)

// TestEventPayloadLeavesOutLogs: an update's payload has its fields but an
// empty log; the update itself keeps its log.
func TestEventPayloadLeavesOutLogs(t *testing.T) {
	u := &Update{ID: "upd_1", ProjectID: "prj_1", Status: UpdateFailure, Summary: "failed", Logs: []string{"line 1", "line 2"}}
	at := time.Date(2026, 1, 2, 3, 4, 5, 6789, time.UTC)
	b, err := EventPayload(EventUpdateFailed, at, u)
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		Type      Event
		Timestamp time.Time
		Data      map[string]any
	}
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	if p.Type != EventUpdateFailed || !p.Timestamp.Equal(at.Truncate(time.Microsecond)) || p.Data["statusId"] != "upd_1" ||
		p.Data["summary"] != "failed" {
		t.Errorf("payload %s", b)
	}
	if logs, ok := p.Data["logs"].([]any); !ok || len(logs) != 0 {
		t.Errorf("payload logs %v, want an empty list", p.Data["logs"])
	}
	if len(u.Logs) != 2 {
		t.Errorf("EventPayload changed the update's log: %v", u.Logs)
	}
}
