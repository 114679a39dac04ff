package jobs_test

import (
	"encoding/json"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/blobstore"
	"lectern.dev/lectern/blobstore/blobtest"
	"lectern.dev/lectern/internal/precompress"
	"lectern.dev/lectern/jobs"
	"lectern.dev/lectern/store"
)

// hashOf returns a File.Hash-shaped name for a test's content.
func hashOf(c byte) string {
	h := make([]byte, 32)
	for i := range h {
		h[i] = "0123456789abcdef"[c%16]
	}
	return string(h)
}

// The janitor deletes a project's stored files once no recorded
// deployment's manifest names them: those only a collected deployment
// named, and those no deployment ever named (a publish that failed before
// its manifest), but not those a kept deployment shares, nor those a
// deployment without a manifest (its files its own) would need. While an
// update of the project is queued, it deletes none.
func TestJanitorSweepsStoredFiles(t *testing.T) {
	t.Parallel()
	st, b := openStore(t), blobtest.Folder(t)
	p := newProject(t, st)
	now := time.Now()
	prefix := blobstore.ProjectPrefix(p.ID)
	shared, orphan := hashOf(0), hashOf(15)
	var deps []*lectern.Deployment
	for i := range 5 {
		d := publish(t, st, p, now.Add(time.Duration(i-6)*time.Hour)) // all older than an hour
		deps = append(deps, d)
		own := hashOf(byte(i + 1))
		m := precompress.Manifest{Version: precompress.ManifestVersionShared, CreatedAt: d.CreatedAt,
			Files: map[string]precompress.File{"index.html": {Hash: shared, Size: 3}, "own.html": {Hash: own, Size: 3}}}
		data, _ := json.Marshal(m)
		must(t, b.WriteAll(t.Context(), precompress.ManifestKey(blobstore.SitePrefix(p.ID, d.ID)), data, nil), "manifest")
		writeBlob(t, b, precompress.ObjectKey(prefix, own))
		src, _ := json.Marshal(map[string]any{"version": 1, "files": map[string]any{"index.mdx": map[string]any{"hash": own, "size": 3}}})
		must(t, b.WriteAll(t.Context(), blobstore.SourceFilesKey(p.ID, d.ID), src, nil), "source list")
		writeBlob(t, b, blobstore.SourceObjectKey(p.ID, own))
		writeBlob(t, b, precompress.ObjectVariantKey(precompress.ObjectKey(prefix, own), precompress.Gzip))
	}
	writeBlob(t, b, precompress.ObjectKey(prefix, shared))
	writeBlob(t, b, precompress.ObjectKey(prefix, orphan))

	// An update queued: nothing is swept, though the oldest deployment
	// is collected.
	u := &lectern.Update{ProjectID: p.ID, Source: "api"}
	must(t, st.CreateUpdate(t.Context(), u), "CreateUpdate")
	j := &jobs.Janitor{Log: discard, Store: st, Bucket: b, KeepDeployments: 3, ObjectAge: time.Nanosecond}
	must(t, j.RunOnce(t.Context()), "RunOnce with an update queued")
	if deploymentExists(t, st, deps[0].ID) {
		t.Fatal("the oldest deployment was not collected")
	}
	if !blobExists(t, b, precompress.ObjectKey(prefix, hashOf(1))) || !blobExists(t, b, precompress.ObjectKey(prefix, orphan)) {
		t.Fatal("stored files were swept while an update of the project was queued")
	}

	// The update ends; the next collection sweeps.
	_, l := claimID(t, st, "update", u.ID, "w", time.Now(), time.Minute)
	must(t, st.FinishUpdate(t.Context(), l, store.UpdateResult{Status: lectern.UpdateFailure, Summary: "failed", EndedAt: time.Now()}), "FinishUpdate")
	d := publish(t, st, p, now.Add(-30*time.Minute)) // collects deps[1], newer than an hour itself
	data, _ := json.Marshal(precompress.Manifest{Version: precompress.ManifestVersionShared, CreatedAt: d.CreatedAt,
		Files: map[string]precompress.File{"index.html": {Hash: shared, Size: 3}}})
	must(t, b.WriteAll(t.Context(), precompress.ManifestKey(blobstore.SitePrefix(p.ID, d.ID)), data, nil), "manifest")
	must(t, j.RunOnce(t.Context()), "RunOnce")
	if deploymentExists(t, st, deps[1].ID) {
		t.Fatal("the second oldest deployment was not collected")
	}
	for key, want := range map[string]bool{
		precompress.ObjectKey(prefix, shared):                                                    true,  // named by every kept deployment
		precompress.ObjectKey(prefix, hashOf(1)):                                                 false, // named by collected deployments only
		precompress.ObjectVariantKey(precompress.ObjectKey(prefix, hashOf(1)), precompress.Gzip): false,
		precompress.ObjectKey(prefix, hashOf(2)):                                                 false,
		precompress.ObjectKey(prefix, hashOf(3)):                                                 true, // a kept deployment's own
		precompress.ObjectKey(prefix, hashOf(5)):                                                 true,
		precompress.ObjectVariantKey(precompress.ObjectKey(prefix, hashOf(5)), precompress.Gzip): true,
		precompress.ObjectKey(prefix, orphan):                                                    false, // never named
		blobstore.SourceObjectKey(p.ID, hashOf(1)):                                               false, // the sources of collected deployments
		blobstore.SourceObjectKey(p.ID, hashOf(2)):                                               false,
		blobstore.SourceObjectKey(p.ID, hashOf(3)):                                               true,
	} {
		if got := blobExists(t, b, key); got != want {
			t.Errorf("%s exists = %v, want %v", key, got, want)
		}
	}
}
