package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

// raceTimeout bounds a race case, so that a deadlocked store fails the
// case with an error instead of hanging the suite.
const raceTimeout = time.Minute

// fmtTime formats an optional time at the precision the stores keep.
func fmtTime(t *time.Time) string {
	if t == nil {
		return "nil"
	}
	return us(*t).UTC().Format(time.RFC3339Nano)
}

// fmtUpdate formats every field of an update, times at microseconds.
func fmtUpdate(u *lectern.Update) string {
	if u == nil {
		return "<nil>"
	}
	commit := "nil"
	if u.Commit != nil {
		commit = fmt.Sprintf("%+v", *u.Commit)
	}
	return fmt.Sprintf("{ID:%s ProjectID:%s OrgID:%s Status:%s Source:%q CreatedAt:%s StartedAt:%s EndedAt:%s Summary:%q Commit:%s Logs:%q SupersededBy:%q DeploymentID:%q}",
		u.ID, u.ProjectID, u.OrgID, u.Status, u.Source, fmtTime(&u.CreatedAt), fmtTime(u.StartedAt), fmtTime(u.EndedAt),
		u.Summary, commit, u.Logs, u.SupersededBy, u.DeploymentID)
}

// fmtExport formats every field of an export, times at microseconds.
func fmtExport(e *lectern.ExportJob) string {
	if e == nil {
		return "<nil>"
	}
	jerr, bundle := "nil", "nil"
	if e.Error != nil {
		jerr = fmt.Sprintf("%+v", *e.Error)
	}
	if e.Bundle != nil {
		bundle = fmt.Sprintf("%+v", *e.Bundle)
	}
	return fmt.Sprintf("{ID:%s OrgID:%s ProjectID:%s Domain:%s BasePath:%q Status:%s Progress:%d PageCount:%d CreatedAt:%s UpdatedAt:%s CompletedAt:%s Error:%s Bundle:%s}",
		e.ID, e.OrgID, e.ProjectID, e.Domain, e.BasePath, e.Status, e.Progress, e.PageCount,
		fmtTime(&e.CreatedAt), fmtTime(&e.UpdatedAt), fmtTime(e.CompletedAt), jerr, bundle)
}

// wantSameUpdate fails the test unless two updates agree on every field
// (times at microseconds, no logs and empty logs alike).
func wantSameUpdate(t *testing.T, what string, got, want *lectern.Update) {
	t.Helper()
	if g, w := fmtUpdate(got), fmtUpdate(want); g != w {
		t.Errorf("%s:\n got  %s\n want %s", what, g, w)
	}
}

// wantSameExport fails the test unless two exports agree on every field
// (times at microseconds).
func wantSameExport(t *testing.T, what string, got, want *lectern.ExportJob) {
	t.Helper()
	if g, w := fmtExport(got), fmtExport(want); g != w {
		t.Errorf("%s:\n got  %s\n want %s", what, g, w)
	}
}

// countJobs returns CountJobs.
func countJobs(t *testing.T, s store.Store) map[string]map[string]int {
	t.Helper()
	c, err := s.CountJobs(t.Context())
	must(t, err, "CountJobs")
	return c
}

// wantLive fails the test unless p's live deployment is live, by
// GetProject and by ResolveDomain of each of its domains.
func wantLive(t *testing.T, s store.Store, p *lectern.Project, live, when string) {
	t.Helper()
	if got := mustGet(t, s.GetProject, p.ID).LiveDeploymentID; got != live {
		t.Errorf("LiveDeploymentID %s = %q, want %q", when, got, live)
	}
	for _, d := range p.Domains {
		if pid, got, err := s.ResolveDomain(t.Context(), d); err != nil || pid != p.ID || got != live {
			t.Errorf("ResolveDomain(%s) %s = %q, %q, %v; want %s, %q", d, when, pid, got, err, p.ID, live)
		}
	}
}

// deploymentIDs returns the IDs ListDeployments lists for a project.
func deploymentIDs(t *testing.T, s store.Store, projectID string) []string {
	t.Helper()
	ds, err := s.ListDeployments(t.Context(), projectID, store.Page{})
	must(t, err, "ListDeployments")
	var ids []string
	for _, d := range ds {
		ids = append(ids, d.ID)
	}
	return ids
}

// updateIDs returns the IDs ListUpdates lists for a project.
func updateIDs(t *testing.T, s store.Store, projectID string) []string {
	t.Helper()
	ups, err := s.ListUpdates(t.Context(), projectID, store.Page{})
	must(t, err, "ListUpdates")
	var ids []string
	for _, u := range ups {
		ids = append(ids, u.ID)
	}
	return ids
}

// publish runs a new update of p to success with a deployment of commit
// sha, and returns the deployment (now p's live one). No other update job
// may be claimable when it is called.
func publish(t *testing.T, s store.Store, p *lectern.Project, sha string) *lectern.Deployment {
	t.Helper()
	u := newUpdate(t, s, p)
	at := now()
	_, l := mustClaimID(t, s, store.KindUpdate, "publisher", u.ID, at, time.Hour)
	must(t, s.StartUpdate(t.Context(), l, at), "StartUpdate")
	commit := lectern.Commit{SHA: sha, Ref: "refs/heads/main", Message: "Commit " + sha}
	d := &lectern.Deployment{ID: lectern.NewID(lectern.PrefixDeployment), ProjectID: p.ID, UpdateID: u.ID, Commit: commit, PageCount: 3, CreatedAt: us(time.Now().UTC())}
	must(t, s.FinishUpdate(t.Context(), l, store.UpdateResult{Status: lectern.UpdateSuccess, Summary: "Published 3 pages",
		Commit: &commit, Logs: []string{"published"}, Deployment: d, EndedAt: at}), "FinishUpdate(success)")
	return d
}

// raceAll runs, for each item of ws, every side at once, all started
// together, under a context that ends after raceTimeout (a deadlocked
// store fails the case rather than hang it), and returns when every side
// has.
func raceAll[W any](t *testing.T, ws []W, sides ...func(ctx context.Context, w W)) {
	ctx, cancel := context.WithTimeout(t.Context(), raceTimeout)
	defer cancel()
	var wg sync.WaitGroup
	start := make(chan struct{})
	for _, w := range ws {
		for _, side := range sides {
			wg.Go(func() { <-start; side(ctx, w) })
		}
	}
	close(start)
	wg.Wait()
}
