package storetest

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

var webhookCases = []testCase{
	{"CreateSetsIDAndCreatedAt", testWebhookCreate},
	{"CreateKeepsGivenIDAndCreatedAt", testWebhookCreateGiven},
	{"CreateForMissingOrDeletedOrg", testWebhookCreateRefused},
	{"CreateLimit", testWebhookLimit},
	{"CreateLimitRace", testWebhookLimitRace},
	{"GetMissing", testWebhookGetMissing},
	{"ListPaged", testWebhookList},
	{"Delete", testWebhookDelete},
	{"ListDeliveriesPaged", testListDeliveries},
	{"GetDeliveryMissing", testGetDeliveryMissing},
	{"AttemptRetries", testAttemptRetry},
	{"AttemptRetriesNeverRunOut", testAttemptRetriesNeverRunOut},
	{"AttemptEnds", testAttemptEnds},
	{"AttemptStaleLease", testAttemptStaleLease},
	{"PruneDeliveries", testPruneDeliveries},
	{"DeleteRacesEvents", testDeleteWebhookRacesEvents},
	{"DeleteRacesAttempt", testDeleteWebhookRacesAttempt},
}

// testWebhookCreate: CreateWebhook sets a whk_ ID and a CreatedAt of
// about now when they are empty; GetWebhook returns every field as
// stored, the events in their given order; two webhooks get two IDs.
func testWebhookCreate(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	before := time.Now().Add(-time.Minute)
	events := []lectern.Event{lectern.EventExportCanceled, lectern.EventUpdateSucceeded, lectern.EventExportCompleted, lectern.EventUpdateFailed}
	w := &lectern.Webhook{OrgID: org.ID, URL: "https://hooks.example.com/lectern?tenant=acme&x=1", Events: slices.Clone(events),
		Secret: "v1.sealed.Zm9vYmFyYmF6"}
	must(t, s.CreateWebhook(t.Context(), w, 0), "CreateWebhook")
	if !lectern.ValidID(lectern.PrefixWebhook, w.ID) {
		t.Errorf("CreateWebhook set ID %q, want a %s ID", w.ID, lectern.PrefixWebhook)
	}
	if w.CreatedAt.Before(before) || w.CreatedAt.After(time.Now().Add(time.Minute)) {
		t.Errorf("CreateWebhook set CreatedAt %v, want about now", w.CreatedAt)
	}
	want := &lectern.Webhook{ID: w.ID, OrgID: org.ID, URL: "https://hooks.example.com/lectern?tenant=acme&x=1", Events: events,
		Secret: "v1.sealed.Zm9vYmFyYmF6", CreatedAt: w.CreatedAt}
	wantSameWebhook(t, "GetWebhook", mustGet(t, s.GetWebhook, w.ID), want)

	one := newWebhook(t, s, org.ID, lectern.EventUpdateCanceled)
	if one.ID == w.ID {
		t.Errorf("two webhooks got the same ID %s", w.ID)
	}
	wantSameWebhook(t, "GetWebhook(webhook of one event)", mustGet(t, s.GetWebhook, one.ID), one)
	all := newWebhook(t, s, org.ID, lectern.Events...)
	wantSameWebhook(t, "GetWebhook(webhook of every event)", mustGet(t, s.GetWebhook, all.ID), all)
}

// testWebhookCreateGiven: CreateWebhook keeps a given ID and CreatedAt.
func testWebhookCreateGiven(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	created := time.Date(2024, 3, 1, 12, 30, 45, 123456789, time.UTC)
	id := lectern.NewID(lectern.PrefixWebhook)
	w := &lectern.Webhook{ID: id, OrgID: org.ID, URL: "https://example.net/hook", Events: []lectern.Event{lectern.EventUpdateFailed},
		Secret: "sealed", CreatedAt: created}
	must(t, s.CreateWebhook(t.Context(), w, 0), "CreateWebhook")
	if w.ID != id {
		t.Errorf("CreateWebhook replaced the given ID %s with %s", id, w.ID)
	}
	wantSameWebhook(t, "GetWebhook", mustGet(t, s.GetWebhook, id), &lectern.Webhook{ID: id, OrgID: org.ID, URL: "https://example.net/hook",
		Events: []lectern.Event{lectern.EventUpdateFailed}, Secret: "sealed", CreatedAt: created})
}

// testWebhookCreateRefused: CreateWebhook for a missing or a deleted
// organization is ENOTFOUND and stores nothing.
func testWebhookCreateRefused(t *testing.T, s store.Store) {
	gone := newOrg(t, s)
	must(t, s.DeleteOrg(t.Context(), gone.ID, time.Now().UTC()), "DeleteOrg")
	for _, c := range []struct{ what, orgID string }{
		{"a missing organization", missingID(lectern.PrefixOrg)},
		{"a deleted organization", gone.ID},
	} {
		id := lectern.NewID(lectern.PrefixWebhook)
		w := &lectern.Webhook{ID: id, OrgID: c.orgID, URL: "https://hooks.example.com/x", Events: lectern.Events, Secret: "sealed"}
		err := s.CreateWebhook(t.Context(), w, 0)
		wantCode(t, err, lectern.ENOTFOUND, "CreateWebhook("+c.what+")")
		_, err = s.GetWebhook(t.Context(), id)
		wantCode(t, err, lectern.ENOTFOUND, "GetWebhook of the webhook refused for "+c.what)
		ws, err := s.ListWebhooks(t.Context(), c.orgID, store.Page{})
		if err != nil && lectern.ErrorCode(err) != lectern.ENOTFOUND {
			t.Errorf("ListWebhooks(%s): %v", c.what, err)
		}
		if len(ws) != 0 {
			t.Errorf("ListWebhooks(%s) lists %d webhooks, want none", c.what, len(ws))
		}
	}
}

// testWebhookGetMissing: GetWebhook of an ID that names nothing is
// ENOTFOUND.
func testWebhookGetMissing(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	newWebhook(t, s, org.ID, lectern.Events...)
	_, err := s.GetWebhook(t.Context(), missingID(lectern.PrefixWebhook))
	wantCode(t, err, lectern.ENOTFOUND, "GetWebhook(missing)")
}

// webhookLister lists ListWebhooks(orgID), checking that each webhook is
// of orgID and as GetWebhook returns it.
func webhookLister(t *testing.T, s store.Store, orgID string) lister {
	return func(pg store.Page) ([]rec, error) {
		ws, err := s.ListWebhooks(t.Context(), orgID, pg)
		var rs []rec
		for _, w := range ws {
			if w.OrgID != orgID {
				t.Errorf("ListWebhooks(%s) returned webhook %s of org %s", orgID, w.ID, w.OrgID)
			}
			if g, err := s.GetWebhook(t.Context(), w.ID); err != nil {
				t.Errorf("ListWebhooks(%s) returned webhook %s, which GetWebhook does not find: %v", orgID, w.ID, err)
			} else {
				wantSameWebhook(t, "ListWebhooks' webhook vs GetWebhook's", w, g)
			}
			rs = append(rs, rec{w.ID, w.CreatedAt})
		}
		return rs, err
	}
}

// testWebhookList: ListWebhooks lists an organization's webhooks (never
// another's), newest first and by ID among equal times, in pages that walk
// the list once, each as GetWebhook returns it; a deleted webhook leaves
// the list, and a cursor that names it still works.
func testWebhookList(t *testing.T, s store.Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	base := pagingBase()
	ra := planRecs(lectern.PrefixWebhook, base, pagingOffsets)
	rb := planRecs(lectern.PrefixWebhook, base, []int{1, 1, 3})
	create := func(orgID string, r rec, n int) {
		w := &lectern.Webhook{ID: r.ID, OrgID: orgID, URL: fmt.Sprintf("https://hooks.example.com/%d", n),
			Events: slices.Clone(lectern.Events[n%len(lectern.Events):]), Secret: "sealed-" + unique(), CreatedAt: r.At}
		must(t, s.CreateWebhook(t.Context(), w, 0), "CreateWebhook")
	}
	for n, i := range pagingOrder {
		create(a.ID, ra[i], n)
		if n < len(rb) {
			create(b.ID, rb[n], n)
		}
	}
	empty := newOrg(t, s)

	wantA := newestFirst(ra)
	wantPages(t, "ListWebhooks(org a)", webhookLister(t, s, a.ID), wantA)
	wantPages(t, "ListWebhooks(org b)", webhookLister(t, s, b.ID), newestFirst(rb))
	wantPages(t, "ListWebhooks(org without webhooks)", webhookLister(t, s, empty.ID), nil)

	gone := wantA[3] // in the middle of the group of four equal times
	must(t, s.DeleteWebhook(t.Context(), gone.ID, time.Now().UTC()), "DeleteWebhook")
	rest := slices.Delete(slices.Clone(wantA), 3, 4)
	wantPages(t, "ListWebhooks(org a) after a delete", webhookLister(t, s, a.ID), rest)
	wantAfterGone(t, "ListWebhooks(org a)", webhookLister(t, s, a.ID), gone, rest[3:])
	wantPages(t, "ListWebhooks(org b) after a delete in org a", webhookLister(t, s, b.ID), newestFirst(rb))
}

// deliveryOf returns the one delivery to webhookID of event e about the
// update or export recordID, as GetDelivery returns it; it fails at once
// when there is not exactly one.
func deliveryOf(t *testing.T, s store.Store, webhookID string, e lectern.Event, recordID string) *lectern.Delivery {
	t.Helper()
	var found []*lectern.Delivery
	for _, d := range listDeliveries(t, s, webhookID) {
		if g := mustGet(t, s.GetDelivery, d.ID); g.Event == e && payloadRecordID(g.Payload) == recordID {
			found = append(found, g)
		}
	}
	if len(found) != 1 {
		t.Fatalf("webhook %s has %d deliveries of %s for %s, want 1", webhookID, len(found), e, recordID)
	}
	return found[0]
}

// cancelQueued stores a queued update of p and cancels it at at: an
// update.canceled event. It returns the update's ID.
func cancelQueued(t *testing.T, s store.Store, p *lectern.Project, at time.Time) string {
	t.Helper()
	u := newUpdate(t, s, p)
	_, err := s.CancelUpdate(t.Context(), u.ID, at)
	must(t, err, "CancelUpdate")
	return u.ID
}

// sendAll claims every webhook job due at at and records a 200 attempt
// for each, ending its delivery; it returns the jobs' IDs.
func sendAll(t *testing.T, s store.Store, at time.Time) []string {
	t.Helper()
	var ids []string
	for i := 0; ; i++ {
		if i > 200 {
			t.Fatalf("ClaimJob(webhook) keeps returning jobs: %v", ids[:10])
		}
		j, l := claim(t, s, store.KindWebhook, fmt.Sprintf("sender-%d", i), at, time.Hour)
		if j == nil {
			return ids
		}
		ids = append(ids, j.ID)
		must(t, s.RecordAttempt(t.Context(), l, lectern.DeliveryAttempt{At: at, StatusCode: 200, DurationMS: 3}, time.Time{}), "RecordAttempt(200)")
	}
}

// testWebhookDelete: DeleteWebhook removes the webhook at once (GetWebhook
// ENOTFOUND, not listed) and ends its pending deliveries — never tried,
// held by a worker, or waiting for a retry — as canceled at the given
// time (EndedAt at, NextAttemptAt nil, their attempts kept), their jobs
// done: not claimable, and the worker's RecordAttempt and ExtendLease are
// ECONFLICT, recording nothing. Its delivered delivery is untouched; all
// stay readable by GetDelivery and ListDeliveries. Another webhook's
// pending delivery is untouched and still claimable. Deleting again, or a
// missing ID, is ENOTFOUND; a later event delivers nothing to it.
func testWebhookDelete(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	p := newProject(t, s, org.ID, domain(), domain())
	w := newWebhook(t, s, org.ID, lectern.Events...)
	v := newWebhook(t, s, org.ID, lectern.EventExportFailed, lectern.EventExportCompleted)
	wantV := mustGet(t, s.GetWebhook, v.ID)
	t0 := now()

	// Delivered: its only attempt answered 200.
	delivered := deliveryOf(t, s, w.ID, lectern.EventUpdateCanceled, cancelQueued(t, s, p, t0))
	_, l := mustClaimID(t, s, store.KindWebhook, "sender", delivered.ID, t0, time.Hour)
	must(t, s.RecordAttempt(t.Context(), l, lectern.DeliveryAttempt{At: t0, StatusCode: 200, DurationMS: 12}, time.Time{}), "RecordAttempt(200)")
	delivered = mustGet(t, s.GetDelivery, delivered.ID)
	// Waiting for a retry an hour later.
	retrying := deliveryOf(t, s, w.ID, lectern.EventUpdateCanceled, cancelQueued(t, s, p, t0))
	_, l = mustClaimID(t, s, store.KindWebhook, "sender", retrying.ID, t0, time.Hour)
	must(t, s.RecordAttempt(t.Context(), l, lectern.DeliveryAttempt{At: t0, StatusCode: 503, Error: "the endpoint answered 503", DurationMS: 40},
		t0.Add(time.Hour)), "RecordAttempt(503, retry)")
	retrying = mustGet(t, s.GetDelivery, retrying.ID)
	// Held by a worker.
	held := deliveryOf(t, s, w.ID, lectern.EventUpdateCanceled, cancelQueued(t, s, p, t0))
	_, heldLease := mustClaimID(t, s, store.KindWebhook, "sender", held.ID, t0, time.Hour)
	// Never tried; v gets one of the same event.
	e := newExport(t, s, p, p.Domains[0], time.Time{})
	finishExport(t, s, e, lectern.ExportFailed)
	queued := deliveryOf(t, s, w.ID, lectern.EventExportFailed, e.ID)
	other := deliveryOf(t, s, v.ID, lectern.EventExportFailed, e.ID)

	at := us(time.Now().UTC().Add(-time.Minute)).Add(789 * time.Nanosecond)
	must(t, s.DeleteWebhook(t.Context(), w.ID, at), "DeleteWebhook")

	_, err := s.GetWebhook(t.Context(), w.ID)
	wantCode(t, err, lectern.ENOTFOUND, "GetWebhook(deleted)")
	ws, err := s.ListWebhooks(t.Context(), org.ID, store.Page{})
	must(t, err, "ListWebhooks")
	if len(ws) != 1 || ws[0].ID != v.ID {
		var ids []string
		for _, x := range ws {
			ids = append(ids, x.ID)
		}
		t.Errorf("ListWebhooks after DeleteWebhook = %v, want only %s", ids, v.ID)
	}
	wantSameWebhook(t, "another webhook after DeleteWebhook", mustGet(t, s.GetWebhook, v.ID), wantV)

	canceled := func(d *lectern.Delivery) *lectern.Delivery {
		c := *d
		c.Status, c.EndedAt, c.NextAttemptAt = lectern.DeliveryCanceled, &at, nil
		return &c
	}
	for _, c := range []struct {
		what      string
		was, want *lectern.Delivery
	}{
		{"delivered delivery", delivered, delivered},
		{"delivery waiting for a retry", retrying, canceled(retrying)},
		{"delivery held by a worker", held, canceled(held)},
		{"delivery never tried", queued, canceled(queued)},
	} {
		got := mustGet(t, s.GetDelivery, c.was.ID)
		wantSameDelivery(t, c.what+" after DeleteWebhook", got, c.want)
		if string(got.Payload) != string(c.was.Payload) {
			t.Errorf("%s after DeleteWebhook: payload %s, want %s", c.what, got.Payload, c.was.Payload)
		}
	}
	wantSameDelivery(t, "another webhook's pending delivery after DeleteWebhook", mustGet(t, s.GetDelivery, other.ID), other)

	// The worker holding a canceled delivery loses its lease.
	err = s.RecordAttempt(t.Context(), heldLease, lectern.DeliveryAttempt{At: t0, StatusCode: 200, DurationMS: 1}, time.Time{})
	wantCode(t, err, lectern.ECONFLICT, "RecordAttempt(final) of a deleted webhook's delivery")
	err = s.RecordAttempt(t.Context(), heldLease, lectern.DeliveryAttempt{At: t0, StatusCode: 500, DurationMS: 1}, t0.Add(time.Minute))
	wantCode(t, err, lectern.ECONFLICT, "RecordAttempt(retry) of a deleted webhook's delivery")
	err = s.ExtendLease(t.Context(), heldLease, t0.Add(2*time.Hour))
	wantCode(t, err, lectern.ECONFLICT, "ExtendLease of a deleted webhook's delivery job")
	wantSameDelivery(t, "delivery held by a worker after its refused RecordAttempt", mustGet(t, s.GetDelivery, held.ID), canceled(held))

	// Only the other webhook's job is left, now and later (when the
	// worker's lease has long expired and the retry is long due).
	if got := sendAll(t, s, t0.Add(48*time.Hour)); !slices.Equal(got, []string{other.ID}) {
		t.Errorf("claimable webhook jobs after DeleteWebhook = %v, want only the other webhook's %s", got, other.ID)
	}

	// Its deliveries stay listed, newest first.
	wantAll := []*lectern.Delivery{delivered, canceled(retrying), canceled(held), canceled(queued)}
	var rs []rec
	for _, d := range wantAll {
		rs = append(rs, rec{d.ID, d.CreatedAt})
	}
	wantPages(t, "ListDeliveries(deleted webhook)", deliveryLister(t, s, w.ID), newestFirst(rs))
	byID := map[string]*lectern.Delivery{}
	for _, d := range wantAll {
		byID[d.ID] = d
	}
	for _, d := range listDeliveries(t, s, w.ID) {
		wantSameDelivery(t, "ListDeliveries(deleted webhook)", d, byID[d.ID])
	}

	err = s.DeleteWebhook(t.Context(), w.ID, time.Now().UTC())
	wantCode(t, err, lectern.ENOTFOUND, "DeleteWebhook(already deleted)")
	err = s.DeleteWebhook(t.Context(), missingID(lectern.PrefixWebhook), time.Now().UTC())
	wantCode(t, err, lectern.ENOTFOUND, "DeleteWebhook(missing)")
	for _, d := range wantAll {
		wantSameDelivery(t, "delivery after a second DeleteWebhook", mustGet(t, s.GetDelivery, d.ID), byID[d.ID])
	}

	// A new event is delivered to the other webhook only.
	e2 := newExport(t, s, p, p.Domains[1], time.Time{})
	finishExport(t, s, e2, lectern.ExportCompleted)
	if got := listDeliveries(t, s, w.ID); len(got) != len(wantAll) {
		t.Errorf("deleted webhook has %d deliveries after a new event, want the %d it had", len(got), len(wantAll))
	}
	next := deliveryOf(t, s, v.ID, lectern.EventExportCompleted, e2.ID)
	if got := sendAll(t, s, now()); !sameSet(got, []string{next.ID}) {
		t.Errorf("webhook jobs due after a new event = %v, want only the other webhook's %s", got, next.ID)
	}
}

// deliveryLister lists ListDeliveries(webhookID), checking that each
// delivery is of webhookID and as GetDelivery returns it.
func deliveryLister(t *testing.T, s store.Store, webhookID string) lister {
	return func(pg store.Page) ([]rec, error) {
		ds, err := s.ListDeliveries(t.Context(), webhookID, pg)
		var rs []rec
		for _, d := range ds {
			if d.WebhookID != webhookID {
				t.Errorf("ListDeliveries(%s) returned delivery %s of webhook %s", webhookID, d.ID, d.WebhookID)
			}
			if g, err := s.GetDelivery(t.Context(), d.ID); err != nil {
				t.Errorf("ListDeliveries(%s) returned delivery %s, which GetDelivery does not find: %v", webhookID, d.ID, err)
			} else {
				wantSameDelivery(t, "ListDeliveries' delivery vs GetDelivery's", d, g)
			}
			rs = append(rs, rec{d.ID, d.CreatedAt})
		}
		return rs, err
	}
}

// testListDeliveries: ListDeliveries lists one webhook's deliveries (never
// another webhook's, of the same events or not), whatever their state,
// newest first and by ID among equal times, in pages that walk the list
// once, each with its attempts as GetDelivery returns it.
func testListDeliveries(t *testing.T, s store.Store) {
	org, other := newOrg(t, s), newOrg(t, s)
	p := newProject(t, s, org.ID)
	q := newProject(t, s, other.ID)
	w := newWebhook(t, s, org.ID, lectern.Events...)
	x := newWebhook(t, s, org.ID, lectern.EventUpdateCanceled)
	y := newWebhook(t, s, other.ID, lectern.Events...)
	none := newWebhook(t, s, org.ID, lectern.EventExportCompleted)

	// Updates canceled at times out of order, some equal.
	base := pagingBase()
	var ws, xs, ys []rec
	for n, i := range pagingOrder {
		at := base.Add(time.Duration(pagingOffsets[i]) * time.Minute)
		id := cancelQueued(t, s, p, at)
		for _, c := range []struct {
			hook *lectern.Webhook
			rs   *[]rec
		}{{w, &ws}, {x, &xs}} {
			d := deliveryOf(t, s, c.hook.ID, lectern.EventUpdateCanceled, id)
			*c.rs = append(*c.rs, rec{d.ID, d.CreatedAt})
		}
		if n < 3 {
			id := cancelQueued(t, s, q, at)
			d := deliveryOf(t, s, y.ID, lectern.EventUpdateCanceled, id)
			ys = append(ys, rec{d.ID, d.CreatedAt})
		}
		if n == 4 {
			// Some of w's and x's end (those due first), one is retried:
			// the lists hold every state.
			for k := range 3 {
				_, l := mustClaim(t, s, store.KindWebhook, fmt.Sprint("sender-", k), now(), time.Hour)
				var next time.Time
				if k == 1 {
					next = now().Add(time.Hour)
				}
				must(t, s.RecordAttempt(t.Context(), l, lectern.DeliveryAttempt{At: now(), StatusCode: 500 + k, Error: "x", DurationMS: 9}, next), "RecordAttempt")
			}
		}
	}
	wantPages(t, "ListDeliveries(w)", deliveryLister(t, s, w.ID), newestFirst(ws))
	wantPages(t, "ListDeliveries(x)", deliveryLister(t, s, x.ID), newestFirst(xs))
	wantPages(t, "ListDeliveries(webhook of another organization)", deliveryLister(t, s, y.ID), newestFirst(ys))
	wantPages(t, "ListDeliveries(webhook without deliveries)", deliveryLister(t, s, none.ID), nil)

	// The listed deliveries carry their attempts (the lister compared
	// them with GetDelivery's): the three recorded, one each.
	tried := 0
	for _, hook := range []string{w.ID, x.ID, y.ID} {
		for _, d := range listDeliveries(t, s, hook) {
			tried += len(d.Attempts)
			for _, a := range d.Attempts {
				if a.StatusCode < 500 || a.StatusCode > 502 || a.Error != "x" || a.DurationMS != 9 {
					t.Errorf("ListDeliveries(%s): delivery %s has attempts %s, want one recorded", hook, d.ID, fmtAttempts(d.Attempts))
				}
			}
		}
	}
	if tried != 3 {
		t.Errorf("ListDeliveries lists %d attempts in all, want the 3 recorded", tried)
	}
}

// testGetDeliveryMissing: GetDelivery of an ID that names nothing, or
// names a webhook or an update, is ENOTFOUND.
func testGetDeliveryMissing(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	p := newProject(t, s, org.ID)
	w := newWebhook(t, s, org.ID, lectern.Events...)
	id := cancelQueued(t, s, p, time.Now().UTC())
	deliveryOf(t, s, w.ID, lectern.EventUpdateCanceled, id)
	for _, c := range []struct{ what, id string }{
		{"missing", missingID(lectern.PrefixDelivery)},
		{"a webhook's ID", w.ID},
		{"an update's ID", id},
	} {
		_, err := s.GetDelivery(t.Context(), c.id)
		wantCode(t, err, lectern.ENOTFOUND, "GetDelivery("+c.what+")")
	}
}
