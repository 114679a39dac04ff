package httpapi

import (
	"encoding/json"
	"net/http"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
	"lectern.dev/lectern/webhooks"
)

// maxWebhooks bounds an organization's webhooks: every event is sent to
// each, so their number is the fan-out of one tenant's work.
const maxWebhooks = 20

// webhookRequest is the body of POST /v1/webhooks.
type webhookRequest struct {
	URL    *string   `json:"url"`
	Events *[]string `json:"events"`
}

// createdWebhook is the answer to POST /v1/webhooks: the webhook and its
// secret, shown this once.
type createdWebhook struct {
	*lectern.Webhook
	SigningSecret string `json:"secret"`
}

// createWebhook is POST /v1/webhooks.
func (a *api) createWebhook(w http.ResponseWriter, r *http.Request) {
	body, ok := a.readJSONBody(w, r)
	if !ok {
		return
	}
	a.idempotentAs(w, r, body, secretShownOnce(r), func(w http.ResponseWriter) {
		hook, err := a.parseWebhook(body)
		if err != nil {
			writeError(w, r, a.log, err)
			return
		}
		if a.cfg.Secrets == nil {
			writeError(w, r, a.log, lectern.Errorf(lectern.EUNAVAILABLE, "Webhooks need the server's secret key, which this server was started without; ask its operator."))
			return
		}
		ctx, orgID := r.Context(), principalOf(r.Context()).OrgID
		secret := webhooks.NewSecret()
		hook.ID, hook.OrgID = lectern.NewID(lectern.PrefixWebhook), orgID
		hook.Secret = a.cfg.Secrets.Seal([]byte(secret), webhooks.SecretContext(hook.ID))
		if err := a.store.CreateWebhook(ctx, hook, maxWebhooks); err != nil {
			writeError(w, r, a.log, err)
			return
		}
		a.log.Info("webhook created", "request_id", requestID(r), "webhook", hook.ID, "org", orgID)
		w.Header().Set("Location", "/v1/webhooks/"+hook.ID)
		writeJSON(w, http.StatusCreated, createdWebhook{Webhook: hook, SigningSecret: secret})
	})
}

// secretShownOnce keeps a created webhook's secret out of the stored
// idempotent response: a retry with the same key gets a conflict naming
// the webhook, whose secret was in the first answer only.
func secretShownOnce(r *http.Request) replayAs {
	return func(status int, body []byte) (int, []byte) {
		if status != http.StatusCreated {
			return status, body
		}
		var made struct {
			ID string `json:"id"`
		}
		json.Unmarshal(body, &made)
		p := problem{Type: "urn:lectern:problem:" + lectern.ECONFLICT, Title: http.StatusText(http.StatusConflict), Status: http.StatusConflict,
			Code: lectern.ECONFLICT, RequestID: requestID(r),
			Detail: "This Idempotency-Key already created webhook " + made.ID + "; its secret was shown only in that answer. If it was lost, delete the webhook and create another."}
		b, _ := json.Marshal(p)
		return http.StatusConflict, b
	}
}

// parseWebhook validates a create-webhook body.
func (a *api) parseWebhook(body []byte) (*lectern.Webhook, error) {
	var req webhookRequest
	if err := decodeJSON(body, &req); err != nil {
		return nil, err
	}
	var fields []lectern.FieldError
	hook := &lectern.Webhook{}
	if req.URL == nil {
		fields = append(fields, lectern.FieldError{Field: "url", Message: "is required"})
	} else if u, err := webhooks.CheckURL(*req.URL, a.cfg.WebhookAllowPrivate); err != nil {
		fields = append(fields, lectern.FieldError{Field: "url", Message: lectern.ErrorMessage(err)})
	} else {
		hook.URL = u
	}
	switch {
	case req.Events == nil || len(*req.Events) == 0:
		fields = append(fields, lectern.FieldError{Field: "events", Message: "must list at least one event"})
	default:
		seen := map[lectern.Event]bool{}
		for _, s := range *req.Events {
			e, err := lectern.ParseEvent(s)
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
	if err := invalidFields(fields); err != nil {
		return nil, err
	}
	return hook, nil
}

// ownedWebhook reads the request's webhook, ENOTFOUND when another
// organization owns it.
func (a *api) ownedWebhook(r *http.Request) (*lectern.Webhook, error) {
	id := r.PathValue("webhookId")
	hook, err := a.store.GetWebhook(r.Context(), id)
	if err == nil {
		err = ownedBy(r, hook.OrgID, "webhook", id)
	}
	return hook, err
}

// listWebhooks is GET /v1/webhooks.
func (a *api) listWebhooks(w http.ResponseWriter, r *http.Request) {
	writePage(a, w, r, func(pg store.Page) ([]*lectern.Webhook, error) {
		return a.store.ListWebhooks(r.Context(), principalOf(r.Context()).OrgID, pg)
	}, func(h *lectern.Webhook) store.Cursor { return store.Cursor{At: h.CreatedAt, ID: h.ID} }, same)
}

// getWebhook is GET /v1/webhooks/{webhookId}.
func (a *api) getWebhook(w http.ResponseWriter, r *http.Request) {
	hook, err := a.ownedWebhook(r)
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	writeJSON(w, http.StatusOK, hook)
}

// deleteWebhook is DELETE /v1/webhooks/{webhookId}.
func (a *api) deleteWebhook(w http.ResponseWriter, r *http.Request) {
	a.bodiless(w, r, func(w http.ResponseWriter) {
		hook, err := a.ownedWebhook(r)
		if err == nil {
			err = a.store.DeleteWebhook(r.Context(), hook.ID, time.Now())
		}
		if err != nil {
			writeError(w, r, a.log, err)
			return
		}
		a.log.Info("webhook deleted", "request_id", requestID(r), "webhook", hook.ID)
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusNoContent)
	})
}

// deliveryView is a delivery as the API shows it, with its payload.
type deliveryView struct {
	*lectern.Delivery
	Payload json.RawMessage `json:"payload"`
}

// listDeliveries is GET /v1/webhooks/{webhookId}/deliveries. A deleted
// webhook's deliveries are not listed: the webhook is not found.
func (a *api) listDeliveries(w http.ResponseWriter, r *http.Request) {
	hook, err := a.ownedWebhook(r)
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	writePage(a, w, r, func(pg store.Page) ([]*lectern.Delivery, error) {
		return a.store.ListDeliveries(r.Context(), hook.ID, pg)
	},
		func(d *lectern.Delivery) store.Cursor { return store.Cursor{At: d.CreatedAt, ID: d.ID} },
		func(d *lectern.Delivery) deliveryView {
			if d.Attempts == nil {
				d.Attempts = []lectern.DeliveryAttempt{}
			}
			return deliveryView{Delivery: d, Payload: d.Payload}
		})
}
