package httpapi

import (
	"encoding/json"
	"net/http"

	"lectern.dev/lectern"
	"lectern.dev/lectern/actions"
	"lectern.dev/lectern/store"
)

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
		var req actions.WebhookRequest
		if err := decodeJSON(body, &req); err != nil {
			writeError(w, r, a.log, err)
			return
		}
		orgID := principalOf(r.Context()).OrgID
		hook, secret, err := a.ops.CreateWebhook(r.Context(), orgID, req)
		if err != nil {
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

// ownedWebhook reads the request's webhook, ENOTFOUND when another
// organization owns it.
func (a *api) ownedWebhook(r *http.Request) (*lectern.Webhook, error) {
	return a.ops.Webhook(r.Context(), principalOf(r.Context()).OrgID, r.PathValue("webhookId"))
}

// listWebhooks is GET /v1/webhooks.
func (a *api) listWebhooks(w http.ResponseWriter, r *http.Request) {
	writePage(a, w, r, func(pg store.Page) ([]*lectern.Webhook, error) {
		return a.ops.Webhooks(r.Context(), principalOf(r.Context()).OrgID, pg)
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
		hook, err := a.ops.DeleteWebhook(r.Context(), principalOf(r.Context()).OrgID, r.PathValue("webhookId"))
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
	orgID, id := principalOf(r.Context()).OrgID, r.PathValue("webhookId")
	if _, err := a.ops.Webhook(r.Context(), orgID, id); err != nil {
		writeError(w, r, a.log, err)
		return
	}
	writePage(a, w, r, func(pg store.Page) ([]*lectern.Delivery, error) {
		return a.ops.Deliveries(r.Context(), orgID, id, pg)
	},
		func(d *lectern.Delivery) store.Cursor { return store.Cursor{At: d.CreatedAt, ID: d.ID} },
		func(d *lectern.Delivery) deliveryView {
			if d.Attempts == nil {
				d.Attempts = []lectern.DeliveryAttempt{}
			}
			return deliveryView{Delivery: d, Payload: d.Payload}
		})
}
