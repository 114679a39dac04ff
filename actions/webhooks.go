package actions

import (
	"context"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
	"lectern.dev/lectern/webhooks"
)

// MaxWebhooks bounds an organization's webhooks: every event is sent to
// each, so their number is the fan-out of one tenant's work.
const MaxWebhooks = 20

// WebhookRequest is what creating a webhook takes (the body of POST
// /v1/webhooks); a nil field was not given.
type WebhookRequest struct {
	URL    *string   `json:"url"`
	Events *[]string `json:"events"`
}

// errNoSecretKey is the error of an action that seals a secret on a
// server started without a secret key.
func errNoSecretKey(what string) error {
	return lectern.Errorf(lectern.EUNAVAILABLE, "%s the server's secret key, which this server was started without; ask its operator.", what)
}

// checkWebhook validates a request: an EINVALID error naming every bad
// field, or the webhook to store (events without repeats, in the order
// given).
func (s *Service) checkWebhook(req WebhookRequest) (*lectern.Webhook, error) {
	var fields []lectern.FieldError
	hook := &lectern.Webhook{}
	if req.URL == nil {
		fields = append(fields, lectern.FieldError{Field: "url", Message: "is required"})
	} else if u, err := webhooks.CheckURL(*req.URL, s.WebhookAllowPrivate); err != nil {
		fields = append(fields, lectern.FieldError{Field: "url", Message: lectern.ErrorMessage(err)})
	} else {
		hook.URL = u
	}
	switch {
	case req.Events == nil || len(*req.Events) == 0:
		fields = append(fields, lectern.FieldError{Field: "events", Message: "must list at least one event"})
	default:
		seen := map[lectern.Event]bool{}
		for _, name := range *req.Events {
			e, err := lectern.ParseEvent(name)
			if err != nil {
				fields = append(fields, lectern.FieldError{Field: "events", Message: lectern.ErrorMessage(err)})
				break
			}
			if !seen[e] {
				seen[e] = true
				hook.Events = append(hook.Events, e)
			}
		}
	}
	if err := InvalidFields(fields); err != nil {
		return nil, err
	}
	return hook, nil
}

// CreateWebhook creates a webhook of the organization and returns it with
// its signing secret: the secret is kept sealed with the server's secret
// key and never shown again, so the caller shows it this once. A bad
// request is EINVALID; without a secret key, EUNAVAILABLE; past
// MaxWebhooks, ECONFLICT.
func (s *Service) CreateWebhook(ctx context.Context, org string, req WebhookRequest) (*lectern.Webhook, string, error) {
	hook, err := s.checkWebhook(req)
	if err != nil {
		return nil, "", err
	}
	if s.Secrets == nil {
		return nil, "", errNoSecretKey("Webhooks need")
	}
	secret := webhooks.NewSecret()
	hook.ID, hook.OrgID = lectern.NewID(lectern.PrefixWebhook), org
	// The context binds the sealed secret to this webhook: copied to
	// another one's row, it does not open.
	hook.Secret = s.Secrets.Seal([]byte(secret), webhooks.SecretContext(hook.ID))
	if err := s.Store.CreateWebhook(ctx, hook, MaxWebhooks); err != nil {
		return nil, "", err
	}
	return hook, secret, nil
}

// Webhooks lists a page of the organization's webhooks, newest first.
func (s *Service) Webhooks(ctx context.Context, org string, pg store.Page) ([]*lectern.Webhook, error) {
	return s.Store.ListWebhooks(ctx, org, pg)
}

// Webhook returns the organization's webhook id; a deleted one is not
// found.
func (s *Service) Webhook(ctx context.Context, org, id string) (*lectern.Webhook, error) {
	hook, err := s.Store.GetWebhook(ctx, id)
	if err == nil && hook.OrgID != org {
		return nil, notFound("webhook", id)
	}
	return hook, err
}

// DeleteWebhook deletes the organization's webhook id: no event is sent
// to it any more, and its pending deliveries end canceled.
func (s *Service) DeleteWebhook(ctx context.Context, org, id string) (*lectern.Webhook, error) {
	hook, err := s.Webhook(ctx, org, id)
	if err == nil {
		err = s.Store.DeleteWebhook(ctx, hook.ID, s.now())
	}
	return hook, err
}

// Deliveries lists a page of the deliveries of the organization's webhook
// id, newest first, with their attempts. A deleted webhook's are not
// listed: the webhook is not found.
func (s *Service) Deliveries(ctx context.Context, org, webhookID string, pg store.Page) ([]*lectern.Delivery, error) {
	hook, err := s.Webhook(ctx, org, webhookID)
	if err != nil {
		return nil, err
	}
	return s.Store.ListDeliveries(ctx, hook.ID, pg)
}
