package dashboard

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/actions"
	"lectern.dev/lectern/httpapi"
	"lectern.dev/lectern/store"
)

// Webhooks belong to the organization (as in the API, /v1/webhooks): one
// gets the events of every project. Everyone sees them and their
// deliveries; owners create and delete them. A new webhook's signing
// secret is shown once, on the page that answers the create, as the API
// shows it once.

// deliveriesPerPage is how many deliveries a webhook's page lists.
const deliveriesPerPage = 50

// webhookRoutes registers the organization's webhooks: the list and the
// create form, one webhook with its deliveries (live while one is
// pending), and delete after confirming.
func (h *Handler) webhookRoutes(m router) {
	m.HandleFunc("GET "+Prefix+"webhooks", h.signedIn(h.webhooks))
	m.HandleFunc("POST "+Prefix+"webhooks", h.signedIn(h.createWebhook))
	m.HandleFunc("GET "+Prefix+"webhooks/{id}", h.signedIn(h.webhook))
	m.HandleFunc("GET "+Prefix+"webhooks/{id}/deliveries", h.signedIn(h.webhookDeliveries))
	m.HandleFunc("GET "+Prefix+"webhooks/{id}/delete", h.signedIn(h.deleteWebhookForm))
	m.HandleFunc("POST "+Prefix+"webhooks/{id}/delete", h.signedIn(h.deleteWebhook))
}

// webhooksView is the webhooks page's own data.
type webhooksView struct {
	Hooks []*lectern.Webhook
	NoKey bool // no secret key: none can be created
	Max   int
	Full  bool // the organization has Max webhooks
	// URL and Events are the create form's, as typed.
	URL    string
	Events []webhookEvent
}

// webhookEvent is a checkbox of the create form.
type webhookEvent struct {
	Name, About string
	Checked     bool
}

// eventAbout says when each event is sent.
var eventAbout = map[lectern.Event]string{
	lectern.EventUpdateSucceeded: "an update ended and its deployment is live",
	lectern.EventUpdateFailed:    "an update failed; the live site is unchanged",
	lectern.EventUpdateCanceled:  "an update was canceled",
	lectern.EventExportCompleted: "an export's bundle is ready to download",
	lectern.EventExportFailed:    "an export failed",
	lectern.EventExportCanceled:  "an export was canceled",
}

func webhookEvents(checked []string) []webhookEvent {
	on := map[string]bool{}
	for _, c := range checked {
		on[c] = true
	}
	out := make([]webhookEvent, len(lectern.Events))
	for i, e := range lectern.Events {
		out[i] = webhookEvent{Name: string(e), About: eventAbout[e], Checked: on[string(e)]}
	}
	return out
}

var webhookNotices = map[string]string{
	"deleted": "Deleted the webhook: no event is sent to it any more, and its pending deliveries ended canceled.",
}

func (h *Handler) webhooks(w http.ResponseWriter, r *http.Request) {
	ops := h.actions(w, r)
	if ops == nil {
		return
	}
	h.webhooksPage(w, r, ops, http.StatusOK, "", webhookNotices[r.URL.Query().Get("done")], "", nil)
}

func (h *Handler) webhooksPage(w http.ResponseWriter, r *http.Request, ops *actions.Service, status int, msg, notice, typedURL string, events []string) {
	hooks, err := ops.Webhooks(r.Context(), sessionOf(r).user.OrgID, store.Page{Limit: 100})
	if err != nil {
		h.failed(w, r, "list webhooks", err)
		return
	}
	v := &webhooksView{Hooks: hooks, NoKey: ops.Secrets == nil, Max: actions.MaxWebhooks, Full: len(hooks) >= actions.MaxWebhooks,
		URL: typedURL, Events: webhookEvents(events)}
	d := page(r, "Webhooks", "webhooks", v)
	d.Message, d.Notice = msg, notice
	h.render(w, status, "webhooks", d)
}

// webhookCreatedView is the page that shows a new webhook's secret once.
type webhookCreatedView struct {
	Hook   *lectern.Webhook
	Secret string
}

func (h *Handler) createWebhook(w http.ResponseWriter, r *http.Request) {
	ops := h.ownerActions(w, r, "manage webhooks")
	if ops == nil {
		return
	}
	s := sessionOf(r)
	r.ParseForm()
	typed, events := r.PostForm.Get("url"), r.PostForm["event"]
	hook, secret, err := ops.CreateWebhook(r.Context(), s.user.OrgID, actions.WebhookRequest{URL: &typed, Events: &events})
	switch code := lectern.ErrorCode(err); {
	case err == nil:
	case code == lectern.EINVALID || code == lectern.ECONFLICT || code == lectern.EUNAVAILABLE:
		h.webhooksPage(w, r, ops, httpapi.StatusOf(code), webhookFormError(err)+" No webhook was created.", "", typed, events)
		return
	default:
		h.failed(w, r, "create webhook", err)
		return
	}
	h.log.Info("dashboard: webhook created", "webhook_id", hook.ID, "org_id", s.user.OrgID, "user_id", s.user.ID)
	h.render(w, http.StatusOK, "webhook-created", page(r, "Webhook created", "webhooks", webhookCreatedView{Hook: hook, Secret: secret}))
}

// webhookFormError says what is wrong with the form in its own words: the
// fields by their labels.
func webhookFormError(err error) string {
	var le *lectern.Error
	if !errors.As(err, &le) || len(le.Fields) == 0 {
		return lectern.ErrorMessage(err)
	}
	var msgs []string
	for _, f := range le.Fields {
		switch f.Field {
		case "url":
			msgs = append(msgs, "The endpoint URL "+f.Message+".")
		case "events":
			if strings.HasPrefix(f.Message, "must") {
				msgs = append(msgs, "Choose at least one event.")
			} else {
				msgs = append(msgs, "Events: "+f.Message+".")
			}
		default:
			msgs = append(msgs, f.Field+": "+f.Message+".")
		}
	}
	return strings.Join(msgs, " ")
}

// orgWebhook returns the organization's webhook named by the path, or
// renders a 404 (another organization's is as unknown as a missing or
// deleted one).
func (h *Handler) orgWebhook(w http.ResponseWriter, r *http.Request) (*actions.Service, *lectern.Webhook) {
	ops := h.actions(w, r)
	if ops == nil {
		return nil, nil
	}
	hook, err := ops.Webhook(r.Context(), sessionOf(r).user.OrgID, r.PathValue("id"))
	if lectern.ErrorCode(err) == lectern.ENOTFOUND {
		h.fail(w, r, http.StatusNotFound, "Your organization has no webhook with this id (a deleted one is gone).")
		return nil, nil
	}
	if err != nil {
		h.failed(w, r, "read webhook", err)
		return nil, nil
	}
	return ops, hook
}

// webhookView is a webhook's page: the webhook and one page of its
// deliveries, newest first.
type webhookView struct {
	Hook       *lectern.Webhook
	Deliveries []deliveryRow
	// Live: the first page with a pending delivery, reloaded until none is.
	Live bool
	// Older links to the next page of older deliveries; "" at the end.
	Older string
	First bool
}

// deliveryRow is a delivery with its last attempt.
type deliveryRow struct {
	*lectern.Delivery
	Last *lectern.DeliveryAttempt
}

func (h *Handler) webhook(w http.ResponseWriter, r *http.Request) {
	ops, hook := h.orgWebhook(w, r)
	if hook == nil {
		return
	}
	v, ok := h.webhookDeliveryPage(w, r, ops, hook)
	if !ok {
		return
	}
	h.render(w, http.StatusOK, "webhook", page(r, "Webhook", "webhooks", v))
}

// webhookDeliveries is the live part of a webhook's page: its newest
// deliveries.
func (h *Handler) webhookDeliveries(w http.ResponseWriter, r *http.Request) {
	ops, hook := h.orgWebhook(w, r)
	if hook == nil {
		return
	}
	r.URL.RawQuery = "" // the live part is the first page
	v, ok := h.webhookDeliveryPage(w, r, ops, hook)
	if !ok {
		return
	}
	h.renderPart(w, "webhook", "live", page(r, "Webhook", "webhooks", v))
}

// webhookDeliveryPage reads the page of deliveries the query names: after
// ?at=&id= (the last one of the page before), else the newest.
func (h *Handler) webhookDeliveryPage(w http.ResponseWriter, r *http.Request, ops *actions.Service, hook *lectern.Webhook) (*webhookView, bool) {
	q := r.URL.Query()
	pg := store.Page{Limit: deliveriesPerPage + 1}
	if at, err := time.Parse(time.RFC3339Nano, q.Get("at")); err == nil && q.Get("id") != "" {
		pg.After = &store.Cursor{At: at, ID: q.Get("id")}
	}
	ds, err := ops.Deliveries(r.Context(), sessionOf(r).user.OrgID, hook.ID, pg)
	if err != nil {
		h.failed(w, r, "list deliveries", err)
		return nil, false
	}
	v := &webhookView{Hook: hook, First: pg.After == nil}
	if len(ds) > deliveriesPerPage {
		ds = ds[:deliveriesPerPage]
		last := ds[len(ds)-1]
		v.Older = Prefix + "webhooks/" + hook.ID + "?" + url.Values{"at": {last.CreatedAt.Format(time.RFC3339Nano)}, "id": {last.ID}}.Encode()
	}
	for _, d := range ds {
		row := deliveryRow{Delivery: d}
		if n := len(d.Attempts); n > 0 {
			row.Last = &d.Attempts[n-1]
		}
		v.Live = v.Live || (v.First && d.Status == lectern.DeliveryPending)
		v.Deliveries = append(v.Deliveries, row)
	}
	return v, true
}

func (h *Handler) deleteWebhookForm(w http.ResponseWriter, r *http.Request) {
	if !h.requireOwner(w, r, "manage webhooks") {
		return
	}
	_, hook := h.orgWebhook(w, r)
	if hook == nil {
		return
	}
	back := Prefix + "webhooks/" + hook.ID
	h.render(w, http.StatusOK, "access-confirm", page(r, "Delete webhook", "webhooks", confirmView{
		Heading: "Delete the webhook",
		Text: "Delete the webhook to " + hook.URL + "? No event is sent to it any more, its pending deliveries end canceled, " +
			"and this cannot be undone: to receive events again, create a webhook, which gets a new signing secret.",
		Action: back + "/delete", Button: "Delete webhook", Back: back, Danger: true}))
}

func (h *Handler) deleteWebhook(w http.ResponseWriter, r *http.Request) {
	ops := h.ownerActions(w, r, "manage webhooks")
	if ops == nil {
		return
	}
	s := sessionOf(r)
	hook, err := ops.DeleteWebhook(r.Context(), s.user.OrgID, r.PathValue("id"))
	if lectern.ErrorCode(err) == lectern.ENOTFOUND {
		h.fail(w, r, http.StatusNotFound, "Your organization has no webhook with this id (a deleted one is gone).")
		return
	}
	if err != nil {
		h.failed(w, r, "delete webhook", err)
		return
	}
	h.log.Info("dashboard: webhook deleted", "webhook_id", hook.ID, "org_id", s.user.OrgID, "user_id", s.user.ID)
	http.Redirect(w, r, Prefix+"webhooks?done=deleted", http.StatusSeeOther)
}
