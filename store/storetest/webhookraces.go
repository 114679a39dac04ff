package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

// testDeleteWebhookRacesEvents races DeleteWebhook with changes that tell
// of events to the webhook: every change succeeds and every deletion
// succeeds, and whichever came first, no deleted webhook is left with a
// pending delivery or a job to run (a delivery stored before the deletion
// is canceled at its time; none is stored after it). A webhook that is
// not deleted gets every event.
func testDeleteWebhookRacesEvents(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	bystander := newWebhook(t, s, org.ID, lectern.EventUpdateCanceled)
	type work struct {
		w                 *lectern.Webhook
		u                 *lectern.Update
		delErr, cancelErr error
	}
	ws := make([]*work, raceProjects)
	for i := range ws {
		ws[i] = &work{w: newWebhook(t, s, org.ID, lectern.Events...), u: newUpdate(t, s, newProject(t, s, org.ID))}
	}
	at := us(time.Now().UTC())
	raceAll(t, ws, func(ctx context.Context, w *work) { w.delErr = s.DeleteWebhook(ctx, w.w.ID, at) },
		func(ctx context.Context, w *work) { _, w.cancelErr = s.CancelUpdate(ctx, w.u.ID, at) })

	told := 0 // deliveries stored before their webhook's deletion, for -v
	defer func() { t.Logf("deliveries to deleted webhooks: %d of %d", told, raceProjects*raceProjects) }()
	for i, w := range ws {
		what := fmt.Sprintf("webhook %d", i)
		if w.delErr != nil || w.cancelErr != nil {
			t.Errorf("%s: DeleteWebhook %v, CancelUpdate %v; want both nil", what, w.delErr, w.cancelErr)
		}
		_, err := s.GetWebhook(t.Context(), w.w.ID)
		wantCode(t, err, lectern.ENOTFOUND, what+": GetWebhook after DeleteWebhook")
		for _, d := range listDeliveries(t, s, w.w.ID) {
			told++
			if d.Status != lectern.DeliveryCanceled || d.EndedAt == nil || !sameTime(*d.EndedAt, at) || d.NextAttemptAt != nil || len(d.Attempts) != 0 {
				t.Errorf("%s: delivery after the race = %s, want canceled at %s, never tried", what, fmtDelivery(d), fmtTime(&at))
			}
		}
	}
	var want []string
	for _, w := range ws {
		d := deliveryOf(t, s, bystander.ID, lectern.EventUpdateCanceled, w.u.ID)
		if d.Status != lectern.DeliveryPending {
			t.Errorf("delivery to the webhook not deleted = %s, want pending", fmtDelivery(d))
		}
		want = append(want, d.ID)
	}
	if got := sendAll(t, s, now().Add(48*time.Hour)); !sameSet(got, want) {
		t.Errorf("webhook jobs left after the race = %v, want only those of the webhook not deleted %v", got, want)
	}
}

// testDeleteWebhookRacesAttempt races DeleteWebhook with the worker's
// RecordAttempt of the webhook's held delivery: DeleteWebhook succeeds;
// either RecordAttempt came first (nil: its attempt recorded; a final one
// ended the delivery, which the deletion leaves as it is, a retry left it
// pending, which the deletion canceled) or it lost its lease (ECONFLICT:
// canceled, nothing recorded). No job is left to run.
func testDeleteWebhookRacesAttempt(t *testing.T, s store.Store) {
	type work struct {
		w              *lectern.Webhook
		d              *lectern.Delivery
		l              store.Lease
		a              lectern.DeliveryAttempt
		next           time.Time
		delErr, recErr error
	}
	ws := make([]*work, 2*raceProjects)
	byID := map[string]*work{}
	for i := range ws {
		org := newOrg(t, s)
		w := newWebhook(t, s, org.ID, lectern.EventUpdateCanceled)
		d := deliveryOf(t, s, w.ID, lectern.EventUpdateCanceled, cancelQueued(t, s, newProject(t, s, org.ID), time.Now().UTC()))
		ws[i] = &work{w: w, d: d}
		byID[d.ID] = ws[i]
	}
	t0 := now()
	for i := range ws {
		j, l := mustClaim(t, s, store.KindWebhook, fmt.Sprint("sender-", i), t0, time.Hour)
		w := byID[j.ID]
		if w == nil {
			t.Fatalf("claimed webhook job %s, which is no delivery of the case", j.ID)
		}
		w.l = l
		w.a = lectern.DeliveryAttempt{At: attemptAt(t0), StatusCode: 200, DurationMS: int64(i)}
		if i%2 == 1 {
			w.a.StatusCode, w.a.Error, w.next = 503, "the endpoint answered 503", us(t0.Add(time.Hour))
		}
	}
	at := us(time.Now().UTC())
	raceAll(t, ws, func(ctx context.Context, w *work) { w.delErr = s.DeleteWebhook(ctx, w.w.ID, at) },
		func(ctx context.Context, w *work) { w.recErr = s.RecordAttempt(ctx, w.l, w.a, w.next) })

	won := map[string]int{} // how often each side won, for -v
	defer func() { t.Logf("RecordAttempt vs DeleteWebhook, wins: %v", won) }()
	for i, w := range ws {
		what := fmt.Sprintf("delivery %d", i)
		if w.delErr != nil {
			t.Errorf("%s: DeleteWebhook: %v", what, w.delErr)
		}
		got := mustGet(t, s.GetDelivery, w.d.ID)
		want := *w.d
		want.NextAttemptAt = nil
		switch {
		case w.recErr == nil && w.next.IsZero():
			won["final attempt"]++
			want.Status, want.EndedAt, want.Attempts = lectern.DeliveryDelivered, &w.a.At, []lectern.DeliveryAttempt{w.a}
		case w.recErr == nil:
			won["retry"]++
			want.Status, want.EndedAt, want.Attempts = lectern.DeliveryCanceled, &at, []lectern.DeliveryAttempt{w.a}
		case lectern.ErrorCode(w.recErr) == lectern.ECONFLICT:
			won["delete"]++
			want.Status, want.EndedAt, want.Attempts = lectern.DeliveryCanceled, &at, nil
		default:
			t.Errorf("%s: RecordAttempt racing DeleteWebhook: %v, want nil or %s", what, w.recErr, lectern.ECONFLICT)
			continue
		}
		wantSameDelivery(t, what+" after RecordAttempt raced DeleteWebhook", got, &want)
	}
	claimNone(t, s, store.KindWebhook, "late", t0.Add(48*time.Hour), "every webhook is deleted")
}
