package storetest

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

var outboxCases = []testCase{
	{"UpdateSucceeded", testOutboxUpdateSucceeded},
	{"UpdateFailed", testOutboxUpdateFailed},
	{"Promote", testOutboxPromote},
	{"ExportCompleted", testOutboxExportCompleted},
	{"ExportFailed", testOutboxExportFailed},
	{"CancelUpdate", testOutboxCancelUpdate},
	{"CancelExport", testOutboxCancelExport},
	{"DeleteProject", testOutboxDeleteProject},
	{"RefusedChanges", testOutboxRefused},
	{"OtherChanges", testOutboxOtherChanges},
	{"WebhookCreatedAfter", testOutboxWebhookCreatedAfter},
	{"DeletedWebhook", testOutboxDeletedWebhook},
	{"DueAtOnce", testOutboxDueAtOnce},
}

// outbox is the fixture of the outbox cases: an organization with a
// project, a webhook of every event (all) and one of update.failed only
// (failed), and another organization with a webhook of every event
// (elsewhere) and a project of its own.
type outbox struct {
	org, other    *lectern.Organization
	p, q          *lectern.Project // q is the other organization's
	all, failed   *lectern.Webhook
	elsewhere     *lectern.Webhook
	hooks         []*lectern.Webhook
	deleted, seen map[string]bool // webhook IDs deleted; delivery IDs checked
}

func newOutbox(t *testing.T, s store.Store) *outbox {
	t.Helper()
	ob := &outbox{org: newOrg(t, s), other: newOrg(t, s), deleted: map[string]bool{}, seen: map[string]bool{}}
	ob.p = newProject(t, s, ob.org.ID, domain(), domain())
	ob.q = newProject(t, s, ob.other.ID)
	ob.all = ob.add(t, s, ob.org.ID, lectern.Events...)
	ob.failed = ob.add(t, s, ob.org.ID, lectern.EventUpdateFailed)
	ob.elsewhere = ob.add(t, s, ob.other.ID, lectern.Events...)
	return ob
}

// add stores a webhook of orgID that the fixture checks from now on.
func (ob *outbox) add(t *testing.T, s store.Store, orgID string, events ...lectern.Event) *lectern.Webhook {
	t.Helper()
	w := newWebhook(t, s, orgID, slices.Clone(events)...)
	ob.hooks = append(ob.hooks, w)
	return w
}

// delete deletes a webhook of the fixture.
func (ob *outbox) delete(t *testing.T, s store.Store, w *lectern.Webhook) {
	t.Helper()
	must(t, s.DeleteWebhook(t.Context(), w.ID, time.Now().UTC()), "DeleteWebhook")
	ob.deleted[w.ID] = true
}

// event is a change the outbox must tell of: its event, the ID of the
// update or export, and the time of the change.
type event struct {
	event lectern.Event
	id    string
	at    time.Time
}

func (e event) String() string { return fmt.Sprintf("%s of %s", e.event, e.id) }

// record returns the record e tells of as GetUpdate or GetExport returns
// it now.
func (e event) record(t *testing.T, s store.Store) any {
	t.Helper()
	if strings.HasPrefix(string(e.event), "update.") {
		return mustGet(t, s.GetUpdate, e.id)
	}
	return mustGet(t, s.GetExport, e.id)
}

// changeAt returns a time of a change, a minute ago, with nanoseconds
// that the store does not keep.
func changeAt() time.Time { return us(time.Now().UTC().Add(-time.Minute)).Add(789 * time.Nanosecond) }

// check checks the deliveries stored since the last check: each webhook of
// the fixture that is not deleted, is of the organization and subscribes
// to one of the events has exactly one new delivery of it, and no other
// webhook any: pending, not tried, with the payload
// lectern.EventPayload(event, its time, the record as it now is), as
// ListDeliveries and GetDelivery return it. Then exactly their jobs are
// due at once, each with its delivery's ID; check runs each to the end (a
// 200 attempt), so that the next check sees only new ones.
func (ob *outbox) check(t *testing.T, s store.Store, what string, events ...event) {
	t.Helper()
	pending := map[string]bool{}
	for _, w := range ob.hooks {
		var want []event
		if !ob.deleted[w.ID] && w.OrgID == ob.org.ID {
			for _, e := range events {
				if slices.Contains(w.Events, e.event) {
					want = append(want, e)
				}
			}
		}
		name := fmt.Sprintf("webhook %s (events %q", w.ID, w.Events)
		if ob.deleted[w.ID] {
			name += ", deleted"
		}
		if w.OrgID != ob.org.ID {
			name += ", of another organization"
		}
		name += ")"
		for _, d := range listDeliveries(t, s, w.ID) {
			if ob.seen[d.ID] {
				continue
			}
			ob.seen[d.ID] = true
			got, err := s.GetDelivery(t.Context(), d.ID)
			if err != nil {
				t.Errorf("%s: GetDelivery(%s) of a listed delivery: %v", what, d.ID, err)
				continue
			}
			wantSameDelivery(t, what+": ListDeliveries vs GetDelivery", d, got)
			rid := payloadRecordID(got.Payload)
			i := slices.IndexFunc(want, func(e event) bool { return e.event == got.Event && e.id == rid })
			if i < 0 {
				t.Errorf("%s: %s got delivery %s of %s for %q, want no such delivery (want %v)", what, name, got.ID, got.Event, rid, want)
				continue
			}
			e := want[i]
			want = slices.Delete(want, i, i+1)
			if !lectern.ValidID(lectern.PrefixDelivery, got.ID) || got.WebhookID != w.ID || got.OrgID != w.OrgID ||
				got.Status != lectern.DeliveryPending || got.EndedAt != nil || len(got.Attempts) != 0 || got.CreatedAt.IsZero() {
				t.Errorf("%s: %s: new delivery of %s = %s, want a %s ID, webhook %s, org %s, pending, never tried, with a CreatedAt",
					what, name, e, fmtDelivery(got), lectern.PrefixDelivery, w.ID, w.OrgID)
			}
			wantPayload(t, fmt.Sprintf("%s: %s: delivery of %s", what, name, e), got.Payload, e.event, e.at, e.record(t, s))
			pending[got.ID] = true
		}
		for _, e := range want {
			t.Errorf("%s: %s has no delivery of %s, want one", what, name, e)
		}
	}

	claimed := map[string]bool{}
	for i := 0; ; i++ {
		if i > 100 {
			t.Fatalf("%s: ClaimJob(webhook) keeps returning jobs", what)
		}
		j, l := claim(t, s, store.KindWebhook, fmt.Sprint("sender-", i), now(), time.Hour)
		if j == nil {
			break
		}
		if !pending[j.ID] || claimed[j.ID] {
			t.Errorf("%s: claimed webhook job %s, want only the jobs of the new deliveries %v", what, j.ID, slices.Sorted(maps.Keys(pending)))
		}
		claimed[j.ID] = true
		must(t, s.RecordAttempt(t.Context(), l, lectern.DeliveryAttempt{At: now(), StatusCode: 200, DurationMS: 2}, time.Time{}), what+": RecordAttempt(200)")
	}
	for id := range pending {
		if !claimed[id] {
			t.Errorf("%s: the job of delivery %s is not claimable at once", what, id)
		}
	}
}

// startUpdate stores an update of p, claims and starts it.
func startUpdate(t *testing.T, s store.Store, p *lectern.Project) (*lectern.Update, store.Lease) {
	t.Helper()
	u := newUpdate(t, s, p)
	_, l := mustClaimID(t, s, store.KindUpdate, "builder", u.ID, now(), time.Hour)
	must(t, s.StartUpdate(t.Context(), l, now()), "StartUpdate")
	return u, l
}

// succeed is the successful UpdateResult of an update of p, ended at at.
func succeed(p *lectern.Project, u *lectern.Update, at time.Time) store.UpdateResult {
	commit := lectern.Commit{SHA: "4444444444444444444444444444444444444444", Ref: "refs/heads/main", Message: "Docs: webhooks"}
	d := &lectern.Deployment{ID: lectern.NewID(lectern.PrefixDeployment), ProjectID: p.ID, UpdateID: u.ID, Commit: commit, PageCount: 12,
		CreatedAt: us(time.Now().UTC())}
	return store.UpdateResult{Status: lectern.UpdateSuccess, Summary: "Published 12 pages", Commit: &commit,
		Logs: []string{"cloning", "rendering 12 pages", "published"}, Deployment: d, EndedAt: at}
}

// fail is the failed UpdateResult of an update, ended at at.
func fail(at time.Time) store.UpdateResult {
	return store.UpdateResult{Status: lectern.UpdateFailure, Summary: "Branch main not found",
		Logs: []string{"cloning", "error: branch main not found"}, EndedAt: at}
}

// startExport stores an export of dom, claims it and records progress.
func startExport(t *testing.T, s store.Store, p *lectern.Project, dom string) (*lectern.ExportJob, store.Lease) {
	t.Helper()
	e := newExport(t, s, p, dom, time.Time{})
	_, l := mustClaimID(t, s, store.KindExport, "exporter", e.ID, now(), time.Hour)
	must(t, s.SetExportProgress(t.Context(), l, 60, 7, now()), "SetExportProgress")
	return e, l
}

func completed(e *lectern.ExportJob, at time.Time) store.ExportResult {
	return store.ExportResult{Status: lectern.ExportCompleted, PageCount: 11, At: at,
		Bundle: &lectern.Bundle{Key: "bundles/" + e.ID, FileName: "docs.tar.gz", SizeBytes: 2048, SHA256: "abcdef", Version: "1"}}
}

func failed(at time.Time) store.ExportResult {
	return store.ExportResult{Status: lectern.ExportFailed, PageCount: 3, At: at,
		Error: &lectern.JobError{Code: "render_failed", Message: "Rendering page 4 failed."}}
}

// testOutboxUpdateSucceeded: FinishUpdate(success) stores one pending
// update.succeeded delivery for each webhook of the organization that
// subscribes to it, and none for the others; its payload tells of the
// update as GetUpdate now returns it, at its EndedAt; its job is due at
// once.
func testOutboxUpdateSucceeded(t *testing.T, s store.Store) {
	ob := newOutbox(t, s)
	ob.check(t, s, "before any change")
	u, l := startUpdate(t, s, ob.p)
	ob.check(t, s, "after CreateUpdate and StartUpdate")
	at := changeAt()
	must(t, s.FinishUpdate(t.Context(), l, succeed(ob.p, u, at)), "FinishUpdate(success)")
	if got := mustGet(t, s.GetUpdate, u.ID); got.Status != lectern.UpdateSuccess {
		t.Fatalf("update after FinishUpdate(success) is %s", got.Status)
	}
	ob.check(t, s, "after FinishUpdate(success)", event{lectern.EventUpdateSucceeded, u.ID, at})

	// Again, once the first deliveries are done.
	u2, l2 := startUpdate(t, s, ob.p)
	at2 := changeAt()
	must(t, s.FinishUpdate(t.Context(), l2, succeed(ob.p, u2, at2)), "FinishUpdate(success)")
	ob.check(t, s, "after a second FinishUpdate(success)", event{lectern.EventUpdateSucceeded, u2.ID, at2})
}

// testOutboxPromote: PromoteDeployment stores update.succeeded
// deliveries of the update that records it, at its time; a refused
// promotion (another project's deployment) stores none.
func testOutboxPromote(t *testing.T, s store.Store) {
	ob := newOutbox(t, s)
	u, l := startUpdate(t, s, ob.p)
	at := changeAt()
	r := succeed(ob.p, u, at)
	must(t, s.FinishUpdate(t.Context(), l, r), "FinishUpdate(success)")
	ob.check(t, s, "after FinishUpdate(success)", event{lectern.EventUpdateSucceeded, u.ID, at})
	u2, l2 := startUpdate(t, s, ob.p)
	at2 := changeAt()
	must(t, s.FinishUpdate(t.Context(), l2, succeed(ob.p, u2, at2)), "FinishUpdate(success)")
	ob.check(t, s, "after a second FinishUpdate(success)", event{lectern.EventUpdateSucceeded, u2.ID, at2})

	p := &lectern.Update{Source: "promote", Summary: "Rolled back."}
	at3 := changeAt()
	must(t, s.PromoteDeployment(t.Context(), ob.p.ID, r.Deployment.ID, p, at3), "PromoteDeployment")
	ob.check(t, s, "after PromoteDeployment", event{lectern.EventUpdateSucceeded, p.ID, at3})
	other := newProject(t, s, ob.p.OrgID)
	err := s.PromoteDeployment(t.Context(), other.ID, r.Deployment.ID, &lectern.Update{Source: "promote"}, changeAt())
	wantCode(t, err, lectern.ENOTFOUND, "PromoteDeployment(another project's deployment)")
	ob.check(t, s, "after a refused PromoteDeployment")
}

// testOutboxUpdateFailed: FinishUpdate(failure) stores update.failed
// deliveries for the webhooks that subscribe to it (both of the
// organization), none for the other organization's.
func testOutboxUpdateFailed(t *testing.T, s store.Store) {
	ob := newOutbox(t, s)
	u, l := startUpdate(t, s, ob.p)
	at := changeAt()
	must(t, s.FinishUpdate(t.Context(), l, fail(at)), "FinishUpdate(failure)")
	ob.check(t, s, "after FinishUpdate(failure)", event{lectern.EventUpdateFailed, u.ID, at})

	// A failure of another organization's project is delivered to its
	// webhook only.
	v, l := startUpdate(t, s, ob.q)
	at = changeAt()
	must(t, s.FinishUpdate(t.Context(), l, fail(at)), "FinishUpdate(failure) in the other organization")
	d := deliveryOf(t, s, ob.elsewhere.ID, lectern.EventUpdateFailed, v.ID)
	wantPayload(t, "the other organization's delivery", d.Payload, lectern.EventUpdateFailed, at, mustGet(t, s.GetUpdate, v.ID))
	ob.seen[d.ID] = true
	if got := sendAll(t, s, now()); !slices.Equal(got, []string{d.ID}) {
		t.Errorf("webhook jobs due after a failure in the other organization = %v, want only %s", got, d.ID)
	}
	ob.check(t, s, "after FinishUpdate(failure) in the other organization")
}

// testOutboxExportCompleted: FinishExport(completed) stores
// export.completed deliveries, at the result's time, with the export as
// GetExport now returns it.
func testOutboxExportCompleted(t *testing.T, s store.Store) {
	ob := newOutbox(t, s)
	e, l := startExport(t, s, ob.p, ob.p.Domains[0])
	ob.check(t, s, "after CreateExport and SetExportProgress")
	at := changeAt()
	must(t, s.FinishExport(t.Context(), l, completed(e, at)), "FinishExport(completed)")
	if got := mustGet(t, s.GetExport, e.ID); got.Status != lectern.ExportCompleted {
		t.Fatalf("export after FinishExport(completed) is %s", got.Status)
	}
	ob.check(t, s, "after FinishExport(completed)", event{lectern.EventExportCompleted, e.ID, at})
}

// testOutboxExportFailed: FinishExport(failed) stores export.failed
// deliveries.
func testOutboxExportFailed(t *testing.T, s store.Store) {
	ob := newOutbox(t, s)
	e, l := startExport(t, s, ob.p, ob.p.Domains[1])
	at := changeAt()
	must(t, s.FinishExport(t.Context(), l, failed(at)), "FinishExport(failed)")
	ob.check(t, s, "after FinishExport(failed)", event{lectern.EventExportFailed, e.ID, at})
}

// testOutboxCancelUpdate: CancelUpdate of a queued and of a running update
// stores update.canceled deliveries at the time given, with the update as
// CancelUpdate and GetUpdate return it.
func testOutboxCancelUpdate(t *testing.T, s store.Store) {
	ob := newOutbox(t, s)
	u := newUpdate(t, s, ob.p)
	at := changeAt()
	_, err := s.CancelUpdate(t.Context(), u.ID, at)
	must(t, err, "CancelUpdate(queued)")
	ob.check(t, s, "after CancelUpdate(queued)", event{lectern.EventUpdateCanceled, u.ID, at})

	r, _ := startUpdate(t, s, ob.p)
	at = changeAt()
	_, err = s.CancelUpdate(t.Context(), r.ID, at)
	must(t, err, "CancelUpdate(running)")
	ob.check(t, s, "after CancelUpdate(running)", event{lectern.EventUpdateCanceled, r.ID, at})
}

// testOutboxCancelExport: CancelExport of a queued and of a running export
// stores export.canceled deliveries at the time given.
func testOutboxCancelExport(t *testing.T, s store.Store) {
	ob := newOutbox(t, s)
	e := newExport(t, s, ob.p, ob.p.Domains[0], time.Time{})
	at := changeAt()
	_, err := s.CancelExport(t.Context(), e.ID, at)
	must(t, err, "CancelExport(queued)")
	ob.check(t, s, "after CancelExport(queued)", event{lectern.EventExportCanceled, e.ID, at})

	r, _ := startExport(t, s, ob.p, ob.p.Domains[1])
	at = changeAt()
	_, err = s.CancelExport(t.Context(), r.ID, at)
	must(t, err, "CancelExport(running)")
	ob.check(t, s, "after CancelExport(running)", event{lectern.EventExportCanceled, r.ID, at})
}

// testOutboxDeleteProject: DeleteProject of a project with a queued
// update (and an older one it superseded, and ended ones) and a running
// export stores one update.canceled and one export.canceled delivery per
// subscribing webhook, at the time of the deletion, with the records as
// GetUpdate and GetExport return them after it; the export's worker's
// refused FinishExport and another project's work store none.
func testOutboxDeleteProject(t *testing.T, s store.Store) {
	ob := newOutbox(t, s)
	ended, l := startUpdate(t, s, ob.p)
	at := changeAt()
	must(t, s.FinishUpdate(t.Context(), l, fail(at)), "FinishUpdate(failure)")
	ob.check(t, s, "after FinishUpdate(failure)", event{lectern.EventUpdateFailed, ended.ID, at})
	done, l := startExport(t, s, ob.p, ob.p.Domains[1])
	at = changeAt()
	must(t, s.FinishExport(t.Context(), l, completed(done, at)), "FinishExport(completed)")
	ob.check(t, s, "after FinishExport(completed)", event{lectern.EventExportCompleted, done.ID, at})

	newUpdate(t, s, ob.p) // superseded by the next
	u := newUpdate(t, s, ob.p)
	e, el := startExport(t, s, ob.p, ob.p.Domains[0])
	bystander := newProject(t, s, ob.org.ID)
	bu := newUpdate(t, s, bystander)
	be := newExport(t, s, bystander, bystander.Domains[0], time.Time{})
	ob.check(t, s, "before DeleteProject")

	at = changeAt()
	must(t, s.DeleteProject(t.Context(), ob.p.ID, at), "DeleteProject")
	if got := mustGet(t, s.GetUpdate, u.ID); got.Status != lectern.UpdateCanceled {
		t.Fatalf("queued update after DeleteProject is %s", got.Status)
	}
	ob.check(t, s, "after DeleteProject", event{lectern.EventUpdateCanceled, u.ID, at}, event{lectern.EventExportCanceled, e.ID, at})

	err := s.FinishExport(t.Context(), el, completed(e, changeAt()))
	wantCode(t, err, lectern.ECONFLICT, "FinishExport of the deleted project's export")
	ob.check(t, s, "after the deleted project's worker's refused FinishExport")
	if got := mustGet(t, s.GetUpdate, bu.ID); got.Status != lectern.UpdateQueued {
		t.Errorf("another project's update after DeleteProject is %s, want queued", got.Status)
	}
	if got := mustGet(t, s.GetExport, be.ID); got.Status != lectern.ExportQueued {
		t.Errorf("another project's export after DeleteProject is %s, want queued", got.Status)
	}
}
