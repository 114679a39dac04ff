package storetest

// The webhook and delivery records the cases make and compare.

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

// newWebhook stores a webhook of orgID that subscribes to events.
func newWebhook(t *testing.T, s store.Store, orgID string, events ...lectern.Event) *lectern.Webhook {
	t.Helper()
	w := &lectern.Webhook{OrgID: orgID, URL: "https://hooks.example.com/" + unique(), Events: events, Secret: "sealed:" + unique()}
	must(t, s.CreateWebhook(t.Context(), w, 0), "CreateWebhook")
	return w
}

// listDeliveries returns ListDeliveries(webhookID) in full.
func listDeliveries(t *testing.T, s store.Store, webhookID string) []*lectern.Delivery {
	t.Helper()
	ds, err := s.ListDeliveries(t.Context(), webhookID, store.Page{})
	must(t, err, "ListDeliveries")
	return ds
}

// fmtWebhook formats every field of a webhook, times at microseconds.
func fmtWebhook(w *lectern.Webhook) string {
	if w == nil {
		return "<nil>"
	}
	return fmt.Sprintf("{ID:%s OrgID:%s URL:%q Events:%q Secret:%q CreatedAt:%s}",
		w.ID, w.OrgID, w.URL, w.Events, w.Secret, fmtTime(&w.CreatedAt))
}

func wantSameWebhook(t *testing.T, what string, got, want *lectern.Webhook) {
	t.Helper()
	if g, w := fmtWebhook(got), fmtWebhook(want); g != w {
		t.Errorf("%s:\n got  %s\n want %s", what, g, w)
	}
}

// fmtAttempts formats delivery attempts, times at microseconds.
func fmtAttempts(as []lectern.DeliveryAttempt) string {
	parts := make([]string, len(as))
	for i, a := range as {
		parts[i] = fmt.Sprintf("{At:%s StatusCode:%d Error:%q DurationMS:%d}", fmtTime(&a.At), a.StatusCode, a.Error, a.DurationMS)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// fmtDelivery formats every field of a delivery but its payload, times at
// microseconds.
func fmtDelivery(d *lectern.Delivery) string {
	if d == nil {
		return "<nil>"
	}
	return fmt.Sprintf("{ID:%s WebhookID:%s OrgID:%s Event:%s Status:%s CreatedAt:%s NextAttemptAt:%s EndedAt:%s Attempts:%s}",
		d.ID, d.WebhookID, d.OrgID, d.Event, d.Status, fmtTime(&d.CreatedAt), fmtTime(d.NextAttemptAt), fmtTime(d.EndedAt), fmtAttempts(d.Attempts))
}

// wantSameDelivery fails the test unless two deliveries agree on every
// field but their payloads (times at microseconds).
func wantSameDelivery(t *testing.T, what string, got, want *lectern.Delivery) {
	t.Helper()
	if g, w := fmtDelivery(got), fmtDelivery(want); g != w {
		t.Errorf("%s:\n got  %s\n want %s", what, g, w)
	}
}

// jsonValue decodes JSON into plain Go values, so that two encodings of
// the same value compare equal whatever their spacing and key order.
func jsonValue(b []byte) (any, error) {
	var v any
	err := json.Unmarshal(b, &v)
	return v, err
}

// wantJSON fails the test unless got is the JSON of want (compared after
// a JSON round trip).
func wantJSON(t *testing.T, what string, got []byte, want any) {
	t.Helper()
	wb, err := json.Marshal(want)
	must(t, err, "json.Marshal")
	g, err := jsonValue(got)
	if err != nil {
		t.Errorf("%s: %q is not JSON: %v", what, got, err)
		return
	}
	w, _ := jsonValue(wb)
	if !reflect.DeepEqual(g, w) {
		gb, _ := json.Marshal(g)
		wb, _ := json.Marshal(w)
		t.Errorf("%s:\n got  %s\n want %s", what, gb, wb)
	}
}

// wantPayload checks a delivery's payload: lectern.EventPayload(e, at,
// record), the Standard Webhooks form {"type", "timestamp", "data"}, with
// the timestamp at to the microsecond and data the record's JSON (each
// compared after a JSON round trip).
func wantPayload(t *testing.T, what string, payload []byte, e lectern.Event, at time.Time, record any) {
	t.Helper()
	var got map[string]json.RawMessage
	if err := json.Unmarshal(payload, &got); err != nil {
		t.Errorf("%s: payload %q is not a JSON object: %v", what, payload, err)
		return
	}
	if keys := slices.Sorted(maps.Keys(got)); !slices.Equal(keys, []string{"data", "timestamp", "type"}) {
		t.Errorf("%s: payload has the fields %q, want data, timestamp and type", what, keys)
	}
	var typ string
	if err := json.Unmarshal(got["type"], &typ); err != nil || typ != string(e) {
		t.Errorf("%s: payload type %s, want %q", what, got["type"], e)
	}
	var ts time.Time
	if err := json.Unmarshal(got["timestamp"], &ts); err != nil || !ts.Equal(us(at)) {
		t.Errorf("%s: payload timestamp %s, want %s (the time of the change)", what, got["timestamp"], us(at).UTC().Format(time.RFC3339Nano))
	}
	if u, ok := record.(*lectern.Update); ok {
		thin := *u
		thin.Logs = []string{} // a payload's update leaves its log out
		record = &thin
	}
	wantJSON(t, what+": payload data", got["data"], record)
	want, err := lectern.EventPayload(e, at, record)
	must(t, err, "EventPayload")
	var w any
	must(t, json.Unmarshal(want, &w), "json.Unmarshal(EventPayload)")
	wantJSON(t, what+": payload", payload, w)
}

// payloadRecordID returns the ID of the record a payload's data is (an
// update's statusId or an export's jobId), or "" when it names none.
func payloadRecordID(payload []byte) string {
	var p struct {
		Data struct {
			StatusID string `json:"statusId"`
			JobID    string `json:"jobId"`
		} `json:"data"`
	}
	if json.Unmarshal(payload, &p) != nil {
		return ""
	}
	return p.Data.StatusID + p.Data.JobID
}
