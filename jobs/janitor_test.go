package jobs_test

import (
	"testing"
	"time"

	"gocloud.dev/blob"

	"lectern.dev/lectern"
	"lectern.dev/lectern/blobstore"
	"lectern.dev/lectern/blobstore/blobtest"
	"lectern.dev/lectern/jobs"
	"lectern.dev/lectern/store"
)

// finishExport runs the queued export e from the test to the given end.
func finishExport(t *testing.T, st store.Store, e *lectern.ExportJob, status lectern.ExportStatus) {
	t.Helper()
	j, l := claimID(t, st, store.KindExport, e.ID, "finisher", time.Now(), time.Minute)
	r := store.ExportResult{Status: status, At: time.Now()}
	if status == lectern.ExportCompleted {
		r.Bundle = testBundle(j.ID)
	} else {
		r.Error = &lectern.JobError{Code: "build_failed", Message: "Rendering the site failed."}
	}
	must(t, st.FinishExport(t.Context(), l, r), "FinishExport")
}

// publish stores a successful update of p whose deployment was created at
// createdAt; that deployment becomes p's live one.
func publish(t *testing.T, st store.Store, p *lectern.Project, createdAt time.Time) *lectern.Deployment {
	t.Helper()
	u := &lectern.Update{ProjectID: p.ID, Source: "api"}
	must(t, st.CreateUpdate(t.Context(), u), "CreateUpdate")
	_, l := claimID(t, st, store.KindUpdate, u.ID, "publisher", time.Now(), time.Minute)
	d := &lectern.Deployment{ProjectID: p.ID, Commit: lectern.Commit{SHA: "sha-" + unique(), Ref: "main"}, PageCount: 1, CreatedAt: createdAt}
	must(t, st.FinishUpdate(t.Context(), l, store.UpdateResult{Status: lectern.UpdateSuccess, Summary: "built",
		Deployment: d, EndedAt: time.Now()}), "FinishUpdate")
	return d
}

// idAt returns an ID of NewID's form made at t.
func idAt(prefix string, t time.Time) string {
	const digits = "0123456789abcdefghjkmnpqrstvwxyz"
	ms := t.UnixMilli()
	var head [10]byte
	for i := 9; i >= 0; i-- {
		head[i] = digits[ms&31]
		ms >>= 5
	}
	return prefix + string(head[:]) + lectern.NewID("")[10:]
}

func writeBlob(t *testing.T, b *blob.Bucket, key string) {
	t.Helper()
	must(t, b.WriteAll(t.Context(), key, []byte("blob "+key), nil), "WriteAll "+key)
}

func blobExists(t *testing.T, b *blob.Bucket, key string) bool {
	t.Helper()
	ok, err := b.Exists(t.Context(), key)
	must(t, err, "Exists "+key)
	return ok
}

func exportExists(t *testing.T, st store.Store, id string) bool {
	t.Helper()
	_, err := st.GetExport(t.Context(), id)
	if lectern.ErrorCode(err) == lectern.ENOTFOUND {
		return false
	}
	must(t, err, "GetExport "+id)
	return true
}

func deploymentExists(t *testing.T, st store.Store, id string) bool {
	t.Helper()
	_, err := st.GetDeployment(t.Context(), id)
	if lectern.ErrorCode(err) == lectern.ENOTFOUND {
		return false
	}
	must(t, err, "GetDeployment "+id)
	return true
}

func TestJanitorRunOnce(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	b := blobtest.Folder(t)
	p := newProject(t, st)
	now := time.Now()

	// Exports: two terminal ones past retention, a recent one, and an old one
	// that never ran (not terminal: kept).
	oldDone := newExport(t, st, p, now.Add(-48*time.Hour))
	finishExport(t, st, oldDone, lectern.ExportCompleted)
	oldFailed := newExport(t, st, p, now.Add(-47*time.Hour))
	finishExport(t, st, oldFailed, lectern.ExportFailed)
	recent := newExport(t, st, p, now.Add(-time.Hour))
	finishExport(t, st, recent, lectern.ExportCompleted)
	oldQueued := newExport(t, st, p, now.Add(-46*time.Hour))

	gone := []string{
		blobstore.BundleKey(oldDone.ID, 1, "site.tar.gz"),
		blobstore.ExportPrefix(oldDone.ID) + "extra/notes.txt",
		blobstore.ExportPrefix(oldFailed.ID) + "partial.tmp",
	}
	kept := []string{
		blobstore.BundleKey(recent.ID, 1, "site.tar.gz"),
		blobstore.ExportPrefix(oldQueued.ID) + "partial.tmp",
		"exports/" + oldDone.ID + "x/other.txt", // shares a name prefix, not the folder
	}

	// Deployments, newest first: a (10m), b (30m), c (2h), d (3h); the live
	// one is the oldest (10h). With KeepDeployments 1, a is kept by count, b
	// for being younger than an hour, c and d are collected, the live one never.
	depA := publish(t, st, p, now.Add(-10*time.Minute))
	depB := publish(t, st, p, now.Add(-30*time.Minute))
	depC := publish(t, st, p, now.Add(-2*time.Hour))
	depD := publish(t, st, p, now.Add(-3*time.Hour))
	live := publish(t, st, p, now.Add(-10*time.Hour))
	proj, err := st.GetProject(t.Context(), p.ID)
	must(t, err, "GetProject")
	if proj.LiveDeploymentID != live.ID {
		t.Fatalf("live deployment %s, want %s", proj.LiveDeploymentID, live.ID)
	}
	for _, d := range []*lectern.Deployment{depC, depD} {
		gone = append(gone, blobstore.SiteKey(p.ID, d.ID, "index.html"), blobstore.SourceKey(p.ID, d.ID))
	}
	for _, d := range []*lectern.Deployment{depA, depB, live} {
		kept = append(kept, blobstore.SiteKey(p.ID, d.ID, "index.html"), blobstore.SourceKey(p.ID, d.ID))
	}
	// Files of deployments no record names (their updates' workers died
	// while publishing): collected once their ID is over a day old; a
	// younger one may be a publish in progress, and a folder whose name is
	// no deployment ID is not the janitor's.
	oldOrphan, youngOrphan := idAt(lectern.PrefixDeployment, now.Add(-25*time.Hour)), idAt(lectern.PrefixDeployment, now.Add(-time.Hour))
	gone = append(gone, blobstore.SiteKey(p.ID, oldOrphan, "index.html"), blobstore.SiteKey(p.ID, oldOrphan, "guides/x.html"))
	kept = append(kept, blobstore.SiteKey(p.ID, youngOrphan, "index.html"), blobstore.ProjectPrefix(p.ID)+"notes/readme.txt")
	for _, k := range append(append([]string(nil), gone...), kept...) {
		writeBlob(t, b, k)
	}

	// Idempotency records: one past the 24h window, one within it.
	for key, age := range map[string]time.Duration{"old": 25 * time.Hour, "fresh": 23 * time.Hour} {
		rec := &store.IdempotencyRecord{Scope: p.OrgID, Key: key, RequestHash: "first", CreatedAt: now.Add(-age)}
		existing, err := st.ReserveIdempotency(t.Context(), rec, time.Time{})
		must(t, err, "ReserveIdempotency")
		if existing != nil {
			t.Fatalf("ReserveIdempotency(%s): found %+v, want a new record", key, existing)
		}
	}

	j := &jobs.Janitor{Log: discard, Store: st, Bucket: b, Retention: 24 * time.Hour, KeepDeployments: 1}
	check := func(pass string) {
		t.Helper()
		for _, id := range []string{oldDone.ID, oldFailed.ID} {
			if exportExists(t, st, id) {
				t.Errorf("%s: export %s past retention still exists", pass, id)
			}
		}
		for _, id := range []string{recent.ID, oldQueued.ID} {
			if !exportExists(t, st, id) {
				t.Errorf("%s: export %s was deleted, want kept", pass, id)
			}
		}
		wantCounts(t, st, store.KindExport, map[string]int{"done": 1, "queued": 1})
		for _, d := range []*lectern.Deployment{depC, depD} {
			if deploymentExists(t, st, d.ID) {
				t.Errorf("%s: deployment %s (beyond the kept one, %v old) still exists", pass, d.ID, now.Sub(d.CreatedAt).Round(time.Minute))
			}
		}
		for _, d := range []*lectern.Deployment{depA, depB, live} {
			if !deploymentExists(t, st, d.ID) {
				t.Errorf("%s: deployment %s was deleted, want kept", pass, d.ID)
			}
		}
		for _, k := range gone {
			if blobExists(t, b, k) {
				t.Errorf("%s: blob %s still exists", pass, k)
			}
		}
		for _, k := range kept {
			if !blobExists(t, b, k) {
				t.Errorf("%s: blob %s was deleted, want kept", pass, k)
			}
		}
	}
	must(t, j.RunOnce(t.Context()), "RunOnce")
	check("first pass")
	must(t, j.RunOnce(t.Context()), "second RunOnce")
	check("second pass")
	proj, err = st.GetProject(t.Context(), p.ID)
	must(t, err, "GetProject")
	if proj.LiveDeploymentID != live.ID {
		t.Errorf("live deployment %s after cleanup, want %s", proj.LiveDeploymentID, live.ID)
	}

	// The old idempotency record is gone: the key is free again; the fresh
	// one still answers.
	for key, wantExisting := range map[string]bool{"old": false, "fresh": true} {
		rec := &store.IdempotencyRecord{Scope: p.OrgID, Key: key, RequestHash: "second"}
		existing, err := st.ReserveIdempotency(t.Context(), rec, time.Time{})
		must(t, err, "ReserveIdempotency")
		switch {
		case wantExisting && (existing == nil || existing.RequestHash != "first"):
			t.Errorf("idempotency record %q (23h old) = %+v, want it kept", key, existing)
		case !wantExisting && existing != nil:
			t.Errorf("idempotency record %q (25h old) = %+v, want it pruned", key, existing)
		}
	}
}

func TestJanitorStartRunsAtOnceAndStops(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	b := blobtest.Folder(t)
	p := newProject(t, st)
	old := newExport(t, st, p, time.Now().Add(-40*24*time.Hour))
	finishExport(t, st, old, lectern.ExportCompleted)
	young := newExport(t, st, p, time.Now().Add(-29*24*time.Hour))
	finishExport(t, st, young, lectern.ExportCompleted)
	writeBlob(t, b, blobstore.BundleKey(old.ID, 1, "site.tar.gz"))
	writeBlob(t, b, blobstore.BundleKey(young.ID, 1, "site.tar.gz"))

	j := &jobs.Janitor{Log: discard, Store: st, Bucket: b, Interval: time.Hour}
	must(t, j.Start(t.Context()), "Start")
	t.Cleanup(j.Stop)
	// The first pass runs at once, not after Interval, with the default
	// 30-day retention: the 40-day-old export goes, the 29-day-old one stays.
	waitFor(t, 5*time.Second, "the first pass to collect the 40-day-old export", func() bool {
		return !exportExists(t, st, old.ID)
	})
	stopped := make(chan struct{})
	go func() { j.Stop(); j.Stop(); close(stopped) }()
	recv(t, stopped, 5*time.Second, "Stop (twice) to return")

	if blobExists(t, b, blobstore.BundleKey(old.ID, 1, "site.tar.gz")) {
		t.Errorf("the collected export's bundle still exists")
	}
	if !exportExists(t, st, young.ID) || !blobExists(t, b, blobstore.BundleKey(young.ID, 1, "site.tar.gz")) {
		t.Errorf("the 29-day-old export or its bundle was deleted; the default retention is 30 days")
	}
}

// The Janitor's fields document defaults (Retention 30 days, KeepDeployments
// 3), but only Start applies them: RunOnce on a Janitor configured with
// just its store and bucket uses a zero Retention and KeepDeployments,
// deleting every finished export and every non-live deployment older than
// an hour.
func TestJanitorRunOnceUsesDocumentedDefaults(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	b := blobtest.Folder(t)
	p := newProject(t, st)
	e := newExport(t, st, p, time.Now().Add(-time.Hour))
	finishExport(t, st, e, lectern.ExportCompleted)
	writeBlob(t, b, blobstore.BundleKey(e.ID, 1, "site.tar.gz"))
	var deps []*lectern.Deployment
	for i := range 3 {
		deps = append(deps, publish(t, st, p, time.Now().Add(-time.Duration(i+2)*time.Hour)))
	}

	j := &jobs.Janitor{Log: discard, Store: st, Bucket: b}
	must(t, j.RunOnce(t.Context()), "RunOnce")

	if !exportExists(t, st, e.ID) || !blobExists(t, b, blobstore.BundleKey(e.ID, 1, "site.tar.gz")) {
		t.Errorf("RunOnce with the default Retention (30 days) deleted an export finished an hour ago")
	}
	for _, d := range deps {
		if !deploymentExists(t, st, d.ID) {
			t.Errorf("RunOnce with the default KeepDeployments (3) deleted deployment %s, one of the project's 3", d.ID)
		}
	}
}
