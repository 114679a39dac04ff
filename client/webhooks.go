package client

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// WebhookRequest is the body of CreateWebhook (schema WebhookRequest).
type WebhookRequest struct {
	URL    string   `json:"url"`
	Events []string `json:"events"`
}

// Webhook is an endpoint the organization's events are sent to (schema
// Webhook).
type Webhook struct {
	ID        string    `json:"id"`
	URL       string    `json:"url"`
	Events    []string  `json:"events"`
	CreatedAt time.Time `json:"createdAt"`
}

// CreatedWebhook is a new webhook with its signing secret, shown once
// (schema CreatedWebhook).
type CreatedWebhook struct {
	ID        string    `json:"id"`
	URL       string    `json:"url"`
	Events    []string  `json:"events"`
	CreatedAt time.Time `json:"createdAt"`
	// Secret (whsec_...) verifies the deliveries' signatures.
	Secret string `json:"secret"`
}

// DeliveryAttempt is one try of a delivery (schema DeliveryAttempt).
type DeliveryAttempt struct {
	At time.Time `json:"at"`
	// StatusCode is 0 when the endpoint gave no answer.
	StatusCode int    `json:"statusCode"`
	Error      string `json:"error,omitempty"`
	DurationMS int64  `json:"durationMs"`
}

// Delivery is one event sent to one webhook (schema Delivery).
type Delivery struct {
	ID        string `json:"id"`
	WebhookID string `json:"webhookId"`
	Event     string `json:"event"`
	// Status is pending, delivered, failed or canceled.
	Status        string            `json:"status"`
	CreatedAt     time.Time         `json:"createdAt"`
	NextAttemptAt *time.Time        `json:"nextAttemptAt"`
	EndedAt       *time.Time        `json:"endedAt"`
	Attempts      []DeliveryAttempt `json:"attempts"`
	Payload       EventPayload      `json:"payload"`
}

// EventPayload is the body of a delivery (schema EventPayload): Data is
// the update status (update.*) or export job (export.*).
type EventPayload struct {
	Type      string          `json:"type"`
	Timestamp time.Time       `json:"timestamp"`
	Data      json.RawMessage `json:"data"`
}

// CreateWebhook creates an endpoint for events (POST /webhooks); its
// secret is in the answer only.
func (c *Client) CreateWebhook(ctx context.Context, req WebhookRequest) (*CreatedWebhook, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	var out CreatedWebhook
	if err := c.do(ctx, request{method: http.MethodPost, path: "/webhooks", body: body, out: &out}); err != nil {
		return nil, err
	}
	return &out, nil
}

// Webhooks returns a page of the organization's webhooks (GET /webhooks).
func (c *Client) Webhooks(ctx context.Context, opts ListOptions) (*Page[Webhook], error) {
	var out Page[Webhook]
	if err := c.do(ctx, request{method: http.MethodGet, path: "/webhooks" + opts.query(nil), out: &out}); err != nil {
		return nil, err
	}
	return &out, nil
}

// Webhook returns a webhook, without its secret (GET /webhooks/{webhookId}).
func (c *Client) Webhook(ctx context.Context, webhookID string) (*Webhook, error) {
	if webhookID == "" {
		return nil, errors.New("webhook: no webhook ID given")
	}
	var out Webhook
	if err := c.do(ctx, request{method: http.MethodGet, path: "/webhooks/" + url.PathEscape(webhookID), out: &out}); err != nil {
		return nil, err
	}
	return &out, nil
}

// DeleteWebhook deletes a webhook (DELETE /webhooks/{webhookId}); its
// pending deliveries end canceled.
func (c *Client) DeleteWebhook(ctx context.Context, webhookID string) error {
	if webhookID == "" {
		return errors.New("delete webhook: no webhook ID given")
	}
	return c.do(ctx, request{method: http.MethodDelete, path: "/webhooks/" + url.PathEscape(webhookID)})
}

// Deliveries returns a page of a webhook's deliveries with their attempts
// (GET /webhooks/{webhookId}/deliveries).
func (c *Client) Deliveries(ctx context.Context, webhookID string, opts ListOptions) (*Page[Delivery], error) {
	if webhookID == "" {
		return nil, errors.New("deliveries: no webhook ID given")
	}
	var out Page[Delivery]
	if err := c.do(ctx, request{method: http.MethodGet, path: "/webhooks/" + url.PathEscape(webhookID) + "/deliveries" + opts.query(nil), out: &out}); err != nil {
		return nil, err
	}
	return &out, nil
}

// VerifyWebhook checks a delivery received by an endpoint: its
// webhook-signature against secret (whsec_...), and a webhook-timestamp
// within five minutes of now; it returns the event. Handle each
// webhook-id once: a delivery may come again.
func VerifyWebhook(secret string, header http.Header, body []byte) (*EventPayload, error) {
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		return nil, err
	}
	if err := wh.Verify(body, header); err != nil {
		return nil, err
	}
	var p EventPayload
	if err := json.Unmarshal(body, &p); err != nil {
		return nil, err
	}
	return &p, nil
}
