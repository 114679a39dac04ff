package storetest

import (
	"context"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

// testWebhookLimit: CreateWebhook with a limit stores a webhook while the
// organization has fewer that are not deleted; at the limit it is
// ECONFLICT and stores nothing. A deleted webhook does not count, another
// organization's do not, and a limit of 0 is no bound.
func testWebhookLimit(t *testing.T, s store.Store) {
	org, other := newOrg(t, s), newOrg(t, s)
	const limit = 3
	newWebhook(t, s, other.ID, lectern.EventUpdateFailed)
	newWebhook(t, s, other.ID, lectern.EventUpdateFailed)
	var made []*lectern.Webhook
	for range limit {
		w := &lectern.Webhook{OrgID: org.ID, URL: "https://hooks.example.com/" + unique(), Events: lectern.Events, Secret: "sealed"}
		must(t, s.CreateWebhook(t.Context(), w, limit), "CreateWebhook under the limit")
		made = append(made, w)
	}
	refused := &lectern.Webhook{ID: lectern.NewID(lectern.PrefixWebhook), OrgID: org.ID, URL: "https://hooks.example.com/over",
		Events: lectern.Events, Secret: "sealed"}
	wantCode(t, s.CreateWebhook(t.Context(), refused, limit), lectern.ECONFLICT, "CreateWebhook at the limit")
	_, err := s.GetWebhook(t.Context(), refused.ID)
	wantCode(t, err, lectern.ENOTFOUND, "GetWebhook of the webhook refused at the limit")
	if got := len(listWebhooks(t, s, org.ID)); got != limit {
		t.Errorf("ListWebhooks after a refused CreateWebhook: %d webhooks, want %d", got, limit)
	}

	// Another organization has its own count; a deleted webhook frees its
	// place.
	w := &lectern.Webhook{OrgID: other.ID, URL: "https://hooks.example.com/other", Events: lectern.Events, Secret: "sealed"}
	must(t, s.CreateWebhook(t.Context(), w, limit), "CreateWebhook in another organization under the limit")
	must(t, s.DeleteWebhook(t.Context(), made[0].ID, time.Now().UTC()), "DeleteWebhook")
	must(t, s.CreateWebhook(t.Context(), refused, limit), "CreateWebhook after a delete freed a place")
	wantCode(t, s.CreateWebhook(t.Context(), &lectern.Webhook{OrgID: org.ID, URL: "https://hooks.example.com/again",
		Events: lectern.Events, Secret: "sealed"}, limit), lectern.ECONFLICT, "CreateWebhook at the limit again")
	must(t, s.CreateWebhook(t.Context(), &lectern.Webhook{OrgID: org.ID, URL: "https://hooks.example.com/unbounded",
		Events: lectern.Events, Secret: "sealed"}, 0), "CreateWebhook with no limit")
}

// testWebhookLimitRace: concurrent CreateWebhook calls of one organization
// with a limit store exactly the limit's count; the others are ECONFLICT.
func testWebhookLimitRace(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	const limit = 3
	ws := make([]*struct{ err error }, 3*raceProjects)
	for i := range ws {
		ws[i] = &struct{ err error }{}
	}
	raceAll(t, ws, func(ctx context.Context, w *struct{ err error }) {
		w.err = s.CreateWebhook(ctx, &lectern.Webhook{OrgID: org.ID, URL: "https://hooks.example.com/" + unique(),
			Events: lectern.Events, Secret: "sealed"}, limit)
	})
	stored := 0
	for _, w := range ws {
		switch {
		case w.err == nil:
			stored++
		case lectern.ErrorCode(w.err) != lectern.ECONFLICT:
			t.Errorf("CreateWebhook racing others: %v, want nil or ECONFLICT", w.err)
		}
	}
	if stored != limit {
		t.Errorf("%d of %d racing CreateWebhook calls succeeded, want the limit %d", stored, len(ws), limit)
	}
	if got := len(listWebhooks(t, s, org.ID)); got != limit {
		t.Errorf("ListWebhooks after racing creates: %d webhooks, want %d", got, limit)
	}
}

// listWebhooks returns ListWebhooks(orgID) in full.
func listWebhooks(t *testing.T, s store.Store, orgID string) []*lectern.Webhook {
	t.Helper()
	ws, err := s.ListWebhooks(t.Context(), orgID, store.Page{})
	must(t, err, "ListWebhooks")
	return ws
}
