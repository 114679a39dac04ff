package storetest

import (
	"fmt"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

// oneDelivery stores an organization, a project and a webhook of every
// event, and one pending delivery to it (an update canceled a minute ago),
// which it returns as GetDelivery does.
func oneDelivery(t *testing.T, s store.Store) (*lectern.Webhook, *lectern.Project, *lectern.Delivery) {
	t.Helper()
	org := newOrg(t, s)
	p := newProject(t, s, org.ID)
	w := newWebhook(t, s, org.ID, lectern.Events...)
	id := cancelQueued(t, s, p, time.Now().UTC().Add(-time.Minute))
	return w, p, deliveryOf(t, s, w.ID, lectern.EventUpdateCanceled, id)
}

// attemptAt returns a time near t with nanoseconds, which the store keeps
// to the microsecond.
func attemptAt(t time.Time) time.Time { return us(t).Add(789 * time.Nanosecond) }

// wantWebhookJobs fails the test unless CountJobs counts the given
// webhook jobs queued, running and done.
func wantWebhookJobs(t *testing.T, s store.Store, when string, queued, running, done int) {
	t.Helper()
	c := countJobs(t, s)[store.KindWebhook]
	if c["queued"] != queued || c["running"] != running || c["done"] != done {
		t.Errorf("CountJobs %s: webhook jobs %v, want queued %d, running %d, done %d", when, c, queued, running, done)
	}
}

// wantUncounted fails the test unless a job claimed again after retries
// has the attempt of its first claim (retries do not count), or has no
// bound at all.
func wantUncounted(t *testing.T, what string, first, j *store.Job) {
	t.Helper()
	if j.MaxAttempts > 0 && j.Attempt != first.Attempt {
		t.Errorf("%s: job %s claimed with attempt %d of %d, want %d as at its first claim (a retry of a delivery is not counted against MaxAttempts)",
			what, j.ID, j.Attempt, j.MaxAttempts, first.Attempt)
	}
}

// testAttemptRetry: RecordAttempt with a next time appends the attempt
// (every field kept, times to the microsecond) and keeps the delivery
// pending with NextAttemptAt next; its job is back in the queue, due at
// next and not before, without counting the attempt, and the lease that
// recorded it is gone. Attempts accumulate oldest first; a final 2xx one
// ends the delivery as delivered at its time.
func testAttemptRetry(t *testing.T, s store.Store) {
	_, _, d := oneDelivery(t, s)
	t0 := now()
	j1, l1 := mustClaimID(t, s, store.KindWebhook, "sender-a", d.ID, t0, time.Hour)
	wantWebhookJobs(t, s, "while a delivery is being sent", 0, 1, 0)

	a1 := lectern.DeliveryAttempt{At: attemptAt(t0), StatusCode: 503, Error: "the endpoint answered 503 Service Unavailable", DurationMS: 1234}
	next1 := us(t0.Add(10 * time.Minute))
	must(t, s.RecordAttempt(t.Context(), l1, a1, next1), "RecordAttempt(503, retry)")
	want := *d
	want.NextAttemptAt, want.Attempts = &next1, []lectern.DeliveryAttempt{a1}
	got := mustGet(t, s.GetDelivery, d.ID)
	wantSameDelivery(t, "delivery after a failed attempt with a retry", got, &want)
	if string(got.Payload) != string(d.Payload) {
		t.Errorf("payload after RecordAttempt = %s, want %s", got.Payload, d.Payload)
	}
	wantWebhookJobs(t, s, "while a delivery waits for its retry", 1, 0, 0)

	// The lease that recorded the attempt gave the job back.
	err := s.RecordAttempt(t.Context(), l1, lectern.DeliveryAttempt{At: attemptAt(t0.Add(time.Second)), StatusCode: 200}, time.Time{})
	wantCode(t, err, lectern.ECONFLICT, "RecordAttempt with the lease given back by the last one")
	err = s.ExtendLease(t.Context(), l1, t0.Add(time.Hour))
	wantCode(t, err, lectern.ECONFLICT, "ExtendLease with the lease given back by RecordAttempt")
	wantSameDelivery(t, "delivery after a refused RecordAttempt", mustGet(t, s.GetDelivery, d.ID), &want)

	// Due at next1, not before.
	claimNone(t, s, store.KindWebhook, "sender-b", t0.Add(5*time.Minute), "the retry is due at next only")
	claimNone(t, s, store.KindWebhook, "sender-b", next1.Add(-time.Microsecond), "the retry is due at next only")
	j2, l2 := mustClaimID(t, s, store.KindWebhook, "sender-b", d.ID, next1, time.Hour)
	wantUncounted(t, "second claim", j1, j2)

	a2 := lectern.DeliveryAttempt{At: attemptAt(next1.Add(time.Second)), StatusCode: 0, Error: "connection refused", DurationMS: 0}
	next2 := us(next1.Add(30 * time.Minute))
	must(t, s.RecordAttempt(t.Context(), l2, a2, next2), "RecordAttempt(no answer, retry)")
	want.NextAttemptAt, want.Attempts = &next2, []lectern.DeliveryAttempt{a1, a2}
	wantSameDelivery(t, "delivery after a second failed attempt", mustGet(t, s.GetDelivery, d.ID), &want)
	claimNone(t, s, store.KindWebhook, "sender-c", next2.Add(-time.Microsecond), "the second retry is due at its next only")

	j3, l3 := mustClaimID(t, s, store.KindWebhook, "sender-c", d.ID, next2.Add(time.Minute), time.Hour)
	wantUncounted(t, "third claim", j1, j3)
	a3 := lectern.DeliveryAttempt{At: attemptAt(next2.Add(time.Minute)), StatusCode: 200, DurationMS: 87}
	must(t, s.RecordAttempt(t.Context(), l3, a3, time.Time{}), "RecordAttempt(200)")
	want.Status, want.EndedAt, want.NextAttemptAt, want.Attempts = lectern.DeliveryDelivered, &a3.At, nil, []lectern.DeliveryAttempt{a1, a2, a3}
	wantSameDelivery(t, "delivery after a 200", mustGet(t, s.GetDelivery, d.ID), &want)
	wantSameDelivery(t, "ListDeliveries after a 200", listDeliveries(t, s, d.WebhookID)[0], &want)
	claimNone(t, s, store.KindWebhook, "sender-d", next2.Add(48*time.Hour), "the delivered delivery's job is done")
	wantWebhookJobs(t, s, "after the delivery", 0, 0, 1)
}

// testAttemptRetriesNeverRunOut: a delivery retried more often than
// store.MaxAttempts, each retry claimed at its time, stays pending and
// claimable, its job's attempt never counting up; its attempts are all
// kept in order, and it can still end.
func testAttemptRetriesNeverRunOut(t *testing.T, s store.Store) {
	_, _, d := oneDelivery(t, s)
	at := now()
	first, l := mustClaimID(t, s, store.KindWebhook, "sender", d.ID, at, time.Minute)
	var attempts []lectern.DeliveryAttempt
	for i := range store.MaxAttempts + 3 {
		a := lectern.DeliveryAttempt{At: attemptAt(at), StatusCode: 500 + i, Error: fmt.Sprint("attempt ", i), DurationMS: int64(10 * i)}
		next := us(at.Add(time.Minute))
		must(t, s.RecordAttempt(t.Context(), l, a, next), fmt.Sprintf("RecordAttempt(retry %d)", i+1))
		attempts = append(attempts, a)
		got := mustGet(t, s.GetDelivery, d.ID)
		if got.Status != lectern.DeliveryPending || got.EndedAt != nil || len(got.Attempts) != len(attempts) {
			t.Fatalf("delivery after %d retries = %s, want pending with %d attempts", i+1, fmtDelivery(got), len(attempts))
		}
		wantTimePtr(t, fmt.Sprintf("NextAttemptAt after %d retries", i+1), got.NextAttemptAt, next)
		// Claimed again a little after it is due, by another sender each
		// time.
		at = next.Add(time.Second)
		var j *store.Job
		j, l = mustClaimID(t, s, store.KindWebhook, fmt.Sprint("sender-", i), d.ID, at, time.Minute)
		wantUncounted(t, fmt.Sprintf("claim after %d retries", i+1), first, j)
	}
	last := lectern.DeliveryAttempt{At: attemptAt(at), StatusCode: 202, DurationMS: 5}
	must(t, s.RecordAttempt(t.Context(), l, last, time.Time{}), "RecordAttempt(202)")
	want := *d
	want.Status, want.EndedAt, want.NextAttemptAt, want.Attempts = lectern.DeliveryDelivered, &last.At, nil, append(attempts, last)
	wantSameDelivery(t, "delivery after many retries and a 202", mustGet(t, s.GetDelivery, d.ID), &want)
	claimNone(t, s, store.KindWebhook, "late", at.Add(48*time.Hour), "the delivered delivery's job is done")
}

// testAttemptEnds: RecordAttempt with no next time ends the delivery:
// delivered when the attempt's status is 2xx (200 to 299), failed
// otherwise (a 1xx or 3xx status, an error status, no answer), with
// EndedAt the attempt's time, NextAttemptAt nil and the attempt kept; its
// job is done (never claimable again) and its lease gone.
func testAttemptEnds(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	p := newProject(t, s, org.ID)
	w := newWebhook(t, s, org.ID, lectern.EventUpdateCanceled)
	for i, c := range []struct {
		a    lectern.DeliveryAttempt
		want lectern.DeliveryStatus
	}{
		{lectern.DeliveryAttempt{StatusCode: 200, DurationMS: 31}, lectern.DeliveryDelivered},
		{lectern.DeliveryAttempt{StatusCode: 204, DurationMS: 7}, lectern.DeliveryDelivered},
		{lectern.DeliveryAttempt{StatusCode: 299}, lectern.DeliveryDelivered},
		{lectern.DeliveryAttempt{StatusCode: 199, Error: "the endpoint answered 199"}, lectern.DeliveryFailed},
		{lectern.DeliveryAttempt{StatusCode: 300, Error: "the endpoint answered 300 Multiple Choices"}, lectern.DeliveryFailed},
		{lectern.DeliveryAttempt{StatusCode: 410, Error: "the endpoint answered 410 Gone", DurationMS: 15}, lectern.DeliveryFailed},
		{lectern.DeliveryAttempt{StatusCode: 500, Error: "the endpoint answered 500 Internal Server Error", DurationMS: 999}, lectern.DeliveryFailed},
		{lectern.DeliveryAttempt{StatusCode: 0, Error: "the endpoint did not answer within 15s", DurationMS: 15000}, lectern.DeliveryFailed},
	} {
		what := fmt.Sprintf("final attempt %d (status %d)", i, c.a.StatusCode)
		d := deliveryOf(t, s, w.ID, lectern.EventUpdateCanceled, cancelQueued(t, s, p, time.Now().UTC()))
		at := now()
		_, l := mustClaimID(t, s, store.KindWebhook, "sender", d.ID, at, time.Hour)
		c.a.At = attemptAt(at.Add(time.Duration(i) * time.Second))
		must(t, s.RecordAttempt(t.Context(), l, c.a, time.Time{}), "RecordAttempt: "+what)
		want := *d
		want.Status, want.EndedAt, want.NextAttemptAt, want.Attempts = c.want, &c.a.At, nil, []lectern.DeliveryAttempt{c.a}
		wantSameDelivery(t, "delivery after its "+what, mustGet(t, s.GetDelivery, d.ID), &want)

		err := s.RecordAttempt(t.Context(), l, lectern.DeliveryAttempt{At: attemptAt(at), StatusCode: 200}, time.Time{})
		wantCode(t, err, lectern.ECONFLICT, "RecordAttempt after the "+what)
		err = s.RecordAttempt(t.Context(), l, lectern.DeliveryAttempt{At: attemptAt(at), StatusCode: 500}, at.Add(time.Minute))
		wantCode(t, err, lectern.ECONFLICT, "RecordAttempt(retry) after the "+what)
		err = s.ExtendLease(t.Context(), l, at.Add(2*time.Hour))
		wantCode(t, err, lectern.ECONFLICT, "ExtendLease after the "+what)
		wantSameDelivery(t, "delivery after refused RecordAttempts", mustGet(t, s.GetDelivery, d.ID), &want)
		claimNone(t, s, store.KindWebhook, "late", at.Add(48*time.Hour), "the ended delivery's job is done")
		wantWebhookJobs(t, s, "after the "+what, 0, 0, i+1)
	}
}

// testAttemptStaleLease: once a delivery's job is claimed again after its
// lease expired, RecordAttempt with the old lease (another owner's, or the
// same owner's older claim) is ECONFLICT and records nothing, final or
// not; the new lease records its attempt.
func testAttemptStaleLease(t *testing.T, s store.Store) {
	_, _, d := oneDelivery(t, s)
	t0 := now()
	_, la := mustClaimID(t, s, store.KindWebhook, "sender", d.ID, t0, time.Minute)
	_, lb := mustClaimID(t, s, store.KindWebhook, "sender", d.ID, t0.Add(2*time.Minute), time.Minute)
	_, lc := mustClaimID(t, s, store.KindWebhook, "sender-c", d.ID, t0.Add(4*time.Minute), time.Hour)
	for _, c := range []struct {
		what string
		l    store.Lease
	}{
		{"the same owner's older lease", la},
		{"the same owner's lease taken over by another", lb},
	} {
		err := s.RecordAttempt(t.Context(), c.l, lectern.DeliveryAttempt{At: attemptAt(t0), StatusCode: 200, DurationMS: 1}, time.Time{})
		wantCode(t, err, lectern.ECONFLICT, "RecordAttempt(200) with "+c.what)
		err = s.RecordAttempt(t.Context(), c.l, lectern.DeliveryAttempt{At: attemptAt(t0), StatusCode: 500, Error: "x", DurationMS: 1}, t0.Add(time.Hour))
		wantCode(t, err, lectern.ECONFLICT, "RecordAttempt(retry) with "+c.what)
		err = s.RecordAttempt(t.Context(), c.l, lectern.DeliveryAttempt{At: attemptAt(t0), StatusCode: 500, Error: "x", DurationMS: 1}, time.Time{})
		wantCode(t, err, lectern.ECONFLICT, "RecordAttempt(500) with "+c.what)
		wantSameDelivery(t, "delivery after RecordAttempt with "+c.what, mustGet(t, s.GetDelivery, d.ID), d)
	}
	claimNone(t, s, store.KindWebhook, "sender-d", t0.Add(5*time.Minute), "the new lease is live")

	a := lectern.DeliveryAttempt{At: attemptAt(t0.Add(5 * time.Minute)), StatusCode: 201, DurationMS: 44}
	must(t, s.RecordAttempt(t.Context(), lc, a, time.Time{}), "RecordAttempt with the live lease")
	want := *d
	want.Status, want.EndedAt, want.NextAttemptAt, want.Attempts = lectern.DeliveryDelivered, &a.At, nil, []lectern.DeliveryAttempt{a}
	wantSameDelivery(t, "delivery after the live lease's attempt", mustGet(t, s.GetDelivery, d.ID), &want)
}

// testPruneDeliveries: PruneDeliveries drops the deliveries that ended
// before the given time, delivered or failed, with their jobs, up to the
// limit, and says how many; a pending one stays, whatever its age, and
// its job stays claimable.
func testPruneDeliveries(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	p := newProject(t, s, org.ID)
	w := newWebhook(t, s, org.ID, lectern.EventUpdateCanceled)
	t0 := now().Add(-3 * time.Hour)
	end := func(code int, at time.Time) *lectern.Delivery {
		d := deliveryOf(t, s, w.ID, lectern.EventUpdateCanceled, cancelQueued(t, s, p, time.Now().UTC()))
		_, l := mustClaimID(t, s, store.KindWebhook, "sender", d.ID, now(), time.Hour)
		must(t, s.RecordAttempt(t.Context(), l, lectern.DeliveryAttempt{At: attemptAt(at), StatusCode: code}, time.Time{}), "RecordAttempt")
		return d
	}
	delivered, failed, more := end(200, t0), end(500, t0.Add(time.Hour)), end(204, t0.Add(30*time.Minute))
	pending := deliveryOf(t, s, w.ID, lectern.EventUpdateCanceled, cancelQueued(t, s, p, t0))
	doneBefore := countJobs(t, s)[store.KindWebhook]["done"]

	n, err := s.PruneDeliveries(t.Context(), t0.Add(time.Minute), 10)
	must(t, err, "PruneDeliveries")
	if n != 1 {
		t.Errorf("PruneDeliveries(before the failure) = %d, want 1", n)
	}
	_, err = s.GetDelivery(t.Context(), delivered.ID)
	wantCode(t, err, lectern.ENOTFOUND, "GetDelivery of a pruned delivery")
	mustGet(t, s.GetDelivery, failed.ID)
	if got := countJobs(t, s)[store.KindWebhook]["done"]; got != doneBefore-1 {
		t.Errorf("webhook jobs done after pruning one: %d, want %d", got, doneBefore-1)
	}

	n, err = s.PruneDeliveries(t.Context(), now().Add(time.Hour), 1)
	must(t, err, "PruneDeliveries(limit 1)")
	if n != 1 {
		t.Errorf("PruneDeliveries(limit 1) = %d, want 1", n)
	}
	n, err = s.PruneDeliveries(t.Context(), now().Add(time.Hour), 10)
	must(t, err, "PruneDeliveries")
	if n != 1 {
		t.Errorf("PruneDeliveries(the rest) = %d, want 1 (the pending one kept)", n)
	}
	for _, id := range []string{failed.ID, more.ID} {
		_, err := s.GetDelivery(t.Context(), id)
		wantCode(t, err, lectern.ENOTFOUND, "GetDelivery of a pruned delivery")
	}
	if got := mustGet(t, s.GetDelivery, pending.ID); got.Status != lectern.DeliveryPending {
		t.Errorf("the pending delivery after pruning: %s", fmtDelivery(got))
	}
	mustClaimID(t, s, store.KindWebhook, "sender", pending.ID, now(), time.Hour)
}
