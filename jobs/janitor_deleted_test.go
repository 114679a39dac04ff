package jobs_test

import (
	"log/slog"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/blobstore"
	"lectern.dev/lectern/jobs"
)

// TestJanitorCollectsDeletedProjects: a deleted project's files and
// records are kept for DeletedGrace, then collected, files first; its
// organization, deleted too, goes once no project names it. A live
// project beside it keeps everything.
func TestJanitorCollectsDeletedProjects(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	b := openBucket(t)
	dead := newProject(t, st)
	alive := newProject(t, st)
	depDead := publish(t, st, dead, time.Now().Add(-2*time.Hour))
	depAlive := publish(t, st, alive, time.Now().Add(-2*time.Hour))
	deadFiles := []string{blobstore.SiteKey(dead.ID, depDead.ID, "index.html"), blobstore.SourceKey(dead.ID, depDead.ID),
		blobstore.SiteKey(dead.ID, idAt(lectern.PrefixDeployment, time.Now()), "half-published.html")}
	aliveFile := blobstore.SiteKey(alive.ID, depAlive.ID, "index.html")
	for _, k := range append(deadFiles, aliveFile) {
		writeBlob(t, b, k)
	}
	must(t, st.DeleteProject(t.Context(), dead.ID, time.Now()), "DeleteProject")
	must(t, st.DeleteOrg(t.Context(), dead.OrgID, time.Now()), "DeleteOrg")

	j := &jobs.Janitor{Log: slog.New(slog.DiscardHandler), Store: st, Bucket: b}
	must(t, j.RunOnce(t.Context()), "RunOnce (default grace)")
	for _, k := range deadFiles {
		if !blobExists(t, b, k) {
			t.Errorf("%s was collected within the grace period", k)
		}
	}
	if !deploymentExists(t, st, depDead.ID) {
		t.Errorf("the deleted project's deployment record went within the grace period")
	}

	j.DeletedGrace = time.Nanosecond
	must(t, j.RunOnce(t.Context()), "RunOnce")
	for _, k := range deadFiles {
		if blobExists(t, b, k) {
			t.Errorf("%s of the deleted project is still there", k)
		}
	}
	if deploymentExists(t, st, depDead.ID) {
		t.Errorf("the deleted project's deployment record is still there")
	}
	if _, err := st.GetUpdate(t.Context(), depDead.UpdateID); lectern.ErrorCode(err) != lectern.ENOTFOUND {
		t.Errorf("the deleted project's update: %v, want not_found", err)
	}
	if orgs, err := st.ListDeletedOrgs(t.Context(), time.Now().Add(time.Hour), 10); err != nil || len(orgs) != 0 {
		t.Errorf("deleted organizations left: %v, %v", orgs, err)
	}
	if !blobExists(t, b, aliveFile) || !deploymentExists(t, st, depAlive.ID) {
		t.Errorf("the live project lost its deployment")
	}
}
