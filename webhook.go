package lectern

import (
	"encoding/json"
	"time"
)

// Event is the type of a webhook event: what happened to an update or an
// export job.
type Event string

// The events webhooks subscribe to.
const (
	EventUpdateSucceeded Event = "update.succeeded"
	EventUpdateFailed    Event = "update.failed"
	EventUpdateCanceled  Event = "update.canceled"
	EventExportCompleted Event = "export.completed"
	EventExportFailed    Event = "export.failed"
	EventExportCanceled  Event = "export.canceled"
)

// Events lists every event, in the order the documentation gives them.
var Events = []Event{EventUpdateSucceeded, EventUpdateFailed, EventUpdateCanceled,
	EventExportCompleted, EventExportFailed, EventExportCanceled}

// ParseEvent returns the event named s, or an EINVALID error naming the
// events.
func ParseEvent(s string) (Event, error) {
	for _, e := range Events {
		if string(e) == s {
			return e, nil
		}
	}
	return "", Errorf(EINVALID, "unknown event %q: use update.succeeded, update.failed, update.canceled, export.completed, export.failed or export.canceled", s)
}

// UpdateEvent returns the event of an update that ended in status s, and
// false for a status that has none (queued, in progress, superseded).
func UpdateEvent(s UpdateStatus) (Event, bool) {
	switch s {
	case UpdateSuccess:
		return EventUpdateSucceeded, true
	case UpdateFailure:
		return EventUpdateFailed, true
	case UpdateCanceled:
		return EventUpdateCanceled, true
	}
	return "", false
}

// ExportEvent returns the event of an export that ended in status s, and
// false for a status that has none.
func ExportEvent(s ExportStatus) (Event, bool) {
	switch s {
	case ExportCompleted:
		return EventExportCompleted, true
	case ExportFailed:
		return EventExportFailed, true
	case ExportCanceled:
		return EventExportCanceled, true
	}
	return "", false
}

// Webhook is an organization's endpoint for events.
type Webhook struct {
	ID     string  `json:"id"`
	OrgID  string  `json:"-"`
	URL    string  `json:"url"`
	Events []Event `json:"events"`
	// Secret is the signing secret sealed with the server's secret key
	// (package secrets); never shown after creation.
	Secret    string    `json:"-"`
	CreatedAt time.Time `json:"createdAt"`
}

// DeliveryStatus is the state of one delivery of an event to a webhook.
type DeliveryStatus string

// The delivery states. Pending moves to delivered (an attempt answered
// 2xx), failed (none did within the retry window) or canceled (its
// webhook was deleted).
const (
	DeliveryPending   DeliveryStatus = "pending"
	DeliveryDelivered DeliveryStatus = "delivered"
	DeliveryFailed    DeliveryStatus = "failed"
	DeliveryCanceled  DeliveryStatus = "canceled"
)

// DeliveryAttempt is one try of a delivery.
type DeliveryAttempt struct {
	At time.Time `json:"at"`
	// StatusCode is the endpoint's HTTP status; 0 when it gave none.
	StatusCode int `json:"statusCode"`
	// Error says why the attempt failed when the endpoint gave no status
	// (or a short account of a non-2xx one); "" otherwise.
	Error      string `json:"error,omitempty"`
	DurationMS int64  `json:"durationMs"`
}

// Delivery is one event sent to one webhook, with its attempts.
type Delivery struct {
	// ID is also the webhook-id header: the same on every attempt.
	ID        string          `json:"id"`
	WebhookID string          `json:"webhookId"`
	OrgID     string          `json:"-"`
	Event     Event           `json:"event"`
	Status    DeliveryStatus  `json:"status"`
	Payload   json.RawMessage `json:"-"`
	CreatedAt time.Time       `json:"createdAt"`
	// NextAttemptAt is when the next attempt is due, while pending.
	NextAttemptAt *time.Time `json:"nextAttemptAt"`
	// EndedAt is when it was delivered, failed or canceled.
	EndedAt  *time.Time        `json:"endedAt"`
	Attempts []DeliveryAttempt `json:"attempts"`
}

// EventPayload returns the JSON body of an event's delivery: the Standard
// Webhooks form {"type", "timestamp", "data"}, data being the record the
// API shows for the update or export job (record's own JSON); an update
// without its build log (an empty list), which can be long and is read
// with its status: a delivery stays small, stored once per webhook.
func EventPayload(e Event, at time.Time, record any) ([]byte, error) {
	if u, ok := record.(*Update); ok {
		thin := *u
		thin.Logs = []string{}
		record = &thin
	}
	data, err := json.Marshal(record)
	if err != nil {
		return nil, err
	}
	return json.Marshal(struct {
		Type      Event           `json:"type"`
		Timestamp time.Time       `json:"timestamp"`
		Data      json.RawMessage `json:"data"`
	}{e, at.UTC().Truncate(time.Microsecond), data})
}
