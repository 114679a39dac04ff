package storetest

// The outbox's edges: refused changes, changes it does not name, webhooks
// created after or deleted before a change, and when a delivery is due.

import (
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

// testOutboxRefused: a change that is refused stores no delivery: a
// FinishUpdate or FinishExport with a lost lease (taken over, or the job
// canceled), a CancelUpdate or CancelExport of an ended record, a
// DeleteProject of a deleted project; the same change with the live lease
// does.
func testOutboxRefused(t *testing.T, s store.Store) {
	ob := newOutbox(t, s)
	t0 := now()

	// An update taken over by another worker.
	u := newUpdate(t, s, ob.p)
	_, stale := mustClaimID(t, s, store.KindUpdate, "builder-a", u.ID, t0, time.Minute)
	must(t, s.StartUpdate(t.Context(), stale, t0), "StartUpdate")
	_, live := mustClaimID(t, s, store.KindUpdate, "builder-b", u.ID, t0.Add(2*time.Minute), time.Hour)
	err := s.FinishUpdate(t.Context(), stale, succeed(ob.p, u, changeAt()))
	wantCode(t, err, lectern.ECONFLICT, "FinishUpdate(success) with a lost lease")
	err = s.FinishUpdate(t.Context(), stale, fail(changeAt()))
	wantCode(t, err, lectern.ECONFLICT, "FinishUpdate(failure) with a lost lease")
	ob.check(t, s, "after FinishUpdate with a lost lease")
	at := changeAt()
	must(t, s.FinishUpdate(t.Context(), live, fail(at)), "FinishUpdate(failure) with the live lease")
	ob.check(t, s, "after FinishUpdate with the live lease", event{lectern.EventUpdateFailed, u.ID, at})

	// An export taken over by another worker.
	e := newExport(t, s, ob.p, ob.p.Domains[0], time.Time{})
	_, staleE := mustClaimID(t, s, store.KindExport, "exporter-a", e.ID, t0, time.Minute)
	_, liveE := mustClaimID(t, s, store.KindExport, "exporter-b", e.ID, t0.Add(2*time.Minute), time.Hour)
	err = s.FinishExport(t.Context(), staleE, completed(e, changeAt()))
	wantCode(t, err, lectern.ECONFLICT, "FinishExport(completed) with a lost lease")
	err = s.FinishExport(t.Context(), staleE, failed(changeAt()))
	wantCode(t, err, lectern.ECONFLICT, "FinishExport(failed) with a lost lease")
	ob.check(t, s, "after FinishExport with a lost lease")
	at = changeAt()
	must(t, s.FinishExport(t.Context(), liveE, completed(e, at)), "FinishExport(completed) with the live lease")
	ob.check(t, s, "after FinishExport with the live lease", event{lectern.EventExportCompleted, e.ID, at})

	// Canceling what has ended.
	_, err = s.CancelUpdate(t.Context(), u.ID, changeAt())
	wantCode(t, err, lectern.ECONFLICT, "CancelUpdate(failed update)")
	_, err = s.CancelExport(t.Context(), e.ID, changeAt())
	wantCode(t, err, lectern.ECONFLICT, "CancelExport(completed export)")
	_, err = s.CancelUpdate(t.Context(), missingID(lectern.PrefixUpdate), changeAt())
	wantCode(t, err, lectern.ENOTFOUND, "CancelUpdate(missing)")
	_, err = s.CancelExport(t.Context(), missingID(lectern.PrefixExport), changeAt())
	wantCode(t, err, lectern.ENOTFOUND, "CancelExport(missing)")
	ob.check(t, s, "after refused CancelUpdate and CancelExport")

	// A worker whose update and export were canceled.
	c, cl := startUpdate(t, s, ob.p)
	ce, cel := startExport(t, s, ob.p, ob.p.Domains[1])
	at = changeAt()
	_, err = s.CancelUpdate(t.Context(), c.ID, at)
	must(t, err, "CancelUpdate(running)")
	_, err = s.CancelExport(t.Context(), ce.ID, at)
	must(t, err, "CancelExport(running)")
	ob.check(t, s, "after CancelUpdate and CancelExport", event{lectern.EventUpdateCanceled, c.ID, at}, event{lectern.EventExportCanceled, ce.ID, at})
	err = s.FinishUpdate(t.Context(), cl, succeed(ob.p, c, changeAt()))
	wantCode(t, err, lectern.ECONFLICT, "FinishUpdate(success) of a canceled update")
	err = s.FinishUpdate(t.Context(), cl, fail(changeAt()))
	wantCode(t, err, lectern.ECONFLICT, "FinishUpdate(failure) of a canceled update")
	err = s.FinishExport(t.Context(), cel, failed(changeAt()))
	wantCode(t, err, lectern.ECONFLICT, "FinishExport(failed) of a canceled export")
	ob.check(t, s, "after the canceled worker's refused FinishUpdate and FinishExport")

	// Deleting a deleted project; (deleting one with no queued or running
	// work tells of nothing).
	must(t, s.DeleteProject(t.Context(), ob.p.ID, changeAt()), "DeleteProject")
	ob.check(t, s, "after DeleteProject of a project without queued or running work")
	err = s.DeleteProject(t.Context(), ob.p.ID, changeAt())
	wantCode(t, err, lectern.ENOTFOUND, "DeleteProject(deleted)")
	ob.check(t, s, "after DeleteProject(deleted)")
}

// testOutboxOtherChanges: the changes the outbox does not name store no
// delivery: creating updates (superseding a queued one) and exports,
// starting an update, export progress, extending, retrying and releasing
// a job, changing the project.
func testOutboxOtherChanges(t *testing.T, s store.Store) {
	ob := newOutbox(t, s)
	old := newUpdate(t, s, ob.p)
	u := newUpdate(t, s, ob.p)
	if got := mustGet(t, s.GetUpdate, old.ID); got.Status != lectern.UpdateSuperseded {
		t.Fatalf("older queued update is %s, want superseded", got.Status)
	}
	ob.check(t, s, "after CreateUpdate superseded a queued update")
	t0 := now()
	_, l := mustClaimID(t, s, store.KindUpdate, "builder", u.ID, t0, time.Hour)
	must(t, s.StartUpdate(t.Context(), l, t0), "StartUpdate")
	must(t, s.ExtendLease(t.Context(), l, t0.Add(2*time.Hour)), "ExtendLease")
	must(t, s.RetryJob(t.Context(), l, t0, "transient"), "RetryJob")
	_, l = mustClaimID(t, s, store.KindUpdate, "builder", u.ID, t0, time.Hour)
	must(t, s.ReleaseJob(t.Context(), l), "ReleaseJob")
	e, el := startExport(t, s, ob.p, ob.p.Domains[0])
	must(t, s.SetExportProgress(t.Context(), el, 90, 10, now()), "SetExportProgress")
	must(t, s.RetryJob(t.Context(), el, t0, "transient"), "RetryJob(export)")
	_, err := s.UpdateProject(t.Context(), ob.p.ID, store.ProjectChange{Name: ptr("Renamed " + unique())})
	must(t, err, "UpdateProject")
	ob.check(t, s, "after jobs ran, were retried and released, and the project changed")
	if got := mustGet(t, s.GetExport, e.ID); got.Status == lectern.ExportCompleted || got.Status == lectern.ExportFailed {
		t.Errorf("export is %s, want it unfinished", got.Status)
	}
}

// testOutboxWebhookCreatedAfter: a webhook created after a change gets no
// delivery of it, and gets those of later changes it subscribes to.
func testOutboxWebhookCreatedAfter(t *testing.T, s store.Store) {
	ob := newOutbox(t, s)
	u, l := startUpdate(t, s, ob.p)
	at := changeAt()
	must(t, s.FinishUpdate(t.Context(), l, fail(at)), "FinishUpdate(failure)")
	e := newExport(t, s, ob.p, ob.p.Domains[0], time.Time{})
	eat := changeAt()
	_, err := s.CancelExport(t.Context(), e.ID, eat)
	must(t, err, "CancelExport")

	ob.check(t, s, "after FinishUpdate(failure) and CancelExport",
		event{lectern.EventUpdateFailed, u.ID, at}, event{lectern.EventExportCanceled, e.ID, eat})
	later := ob.add(t, s, ob.org.ID, lectern.Events...)
	laterFailed := ob.add(t, s, ob.org.ID, lectern.EventUpdateFailed)
	ob.check(t, s, "after CreateWebhook")
	for _, w := range []*lectern.Webhook{later, laterFailed} {
		if ds := listDeliveries(t, s, w.ID); len(ds) != 0 {
			t.Errorf("webhook created after the changes has %d deliveries, want none", len(ds))
		}
	}

	u2, l2 := startUpdate(t, s, ob.p)
	at = changeAt()
	must(t, s.FinishUpdate(t.Context(), l2, fail(at)), "FinishUpdate(failure)")
	ob.check(t, s, "after a FinishUpdate(failure) after CreateWebhook", event{lectern.EventUpdateFailed, u2.ID, at})
	u3 := newUpdate(t, s, ob.p)
	at = changeAt()
	_, err = s.CancelUpdate(t.Context(), u3.ID, at)
	must(t, err, "CancelUpdate")
	ob.check(t, s, "after a CancelUpdate after CreateWebhook", event{lectern.EventUpdateCanceled, u3.ID, at})
}

// testOutboxDeletedWebhook: a deleted webhook gets no delivery of later
// changes; the organization's other webhooks still do.
func testOutboxDeletedWebhook(t *testing.T, s store.Store) {
	ob := newOutbox(t, s)
	ob.delete(t, s, ob.all)
	u, l := startUpdate(t, s, ob.p)
	at := changeAt()
	must(t, s.FinishUpdate(t.Context(), l, fail(at)), "FinishUpdate(failure)")
	ob.check(t, s, "after FinishUpdate(failure), one webhook deleted", event{lectern.EventUpdateFailed, u.ID, at})
	e := newExport(t, s, ob.p, ob.p.Domains[0], time.Time{})
	at = changeAt()
	_, err := s.CancelExport(t.Context(), e.ID, at)
	must(t, err, "CancelExport")
	ob.check(t, s, "after CancelExport, the webhook of every event deleted", event{lectern.EventExportCanceled, e.ID, at})

	ob.delete(t, s, ob.failed)
	u2, l2 := startUpdate(t, s, ob.p)
	at = changeAt()
	must(t, s.FinishUpdate(t.Context(), l2, fail(at)), "FinishUpdate(failure)")
	ob.check(t, s, "after FinishUpdate(failure), both webhooks deleted", event{lectern.EventUpdateFailed, u2.ID, at})
}

// testOutboxDueAtOnce: the jobs of deliveries are due at once, also when
// the change is dated later than now (a worker's clock ahead of the
// store's, a cancel dated ahead): FinishUpdate, FinishExport,
// CancelUpdate, CancelExport and DeleteProject dated an hour ahead store
// deliveries whose jobs are claimable now.
func testOutboxDueAtOnce(t *testing.T, s store.Store) {
	ob := newOutbox(t, s)
	ahead := func() time.Time { return changeAt().Add(time.Hour) }

	u, l := startUpdate(t, s, ob.p)
	at := ahead()
	must(t, s.FinishUpdate(t.Context(), l, fail(at)), "FinishUpdate(failure)")
	ob.check(t, s, "after FinishUpdate(failure) dated an hour ahead", event{lectern.EventUpdateFailed, u.ID, at})

	e, el := startExport(t, s, ob.p, ob.p.Domains[0])
	at = ahead()
	must(t, s.FinishExport(t.Context(), el, completed(e, at)), "FinishExport(completed)")
	ob.check(t, s, "after FinishExport(completed) dated an hour ahead", event{lectern.EventExportCompleted, e.ID, at})

	u = newUpdate(t, s, ob.p)
	at = ahead()
	_, err := s.CancelUpdate(t.Context(), u.ID, at)
	must(t, err, "CancelUpdate")
	ob.check(t, s, "after CancelUpdate dated an hour ahead", event{lectern.EventUpdateCanceled, u.ID, at})

	e = newExport(t, s, ob.p, ob.p.Domains[1], time.Time{})
	at = ahead()
	_, err = s.CancelExport(t.Context(), e.ID, at)
	must(t, err, "CancelExport")
	ob.check(t, s, "after CancelExport dated an hour ahead", event{lectern.EventExportCanceled, e.ID, at})

	u = newUpdate(t, s, ob.p)
	e = newExport(t, s, ob.p, ob.p.Domains[0], time.Time{})
	at = ahead()
	must(t, s.DeleteProject(t.Context(), ob.p.ID, at), "DeleteProject")
	ob.check(t, s, "after DeleteProject dated an hour ahead", event{lectern.EventUpdateCanceled, u.ID, at}, event{lectern.EventExportCanceled, e.ID, at})
}
