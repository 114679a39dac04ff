package postgres_test

import (
	"context"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

// TestSiteWatchDatabaseDown: when the database goes away, WatchSites says
// it stopped watching (so that its caller trusts nothing it kept), and once
// the database is back it says it watches again and tells of changes made
// after that.
func TestSiteWatchDatabaseDown(t *testing.T) {
	s, p := proxiedStore(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	events := make(chan store.SiteChange, 100)
	go s.WatchSites(ctx, func(c store.SiteChange) { events <- c })
	wait := func(what string, ok func(store.SiteChange) bool) {
		t.Helper()
		deadline := time.After(15 * time.Second)
		for {
			select {
			case c := <-events:
				if ok(c) {
					return
				}
			case <-deadline:
				t.Fatalf("%s: not told within 15 s", what)
			}
		}
	}
	wait("watching", func(c store.SiteChange) bool { return c.Watching && c.ProjectID == "" })
	p.Cut()
	wait("stopped", func(c store.SiteChange) bool { return !c.Watching })
	p.Restore()
	wait("watching again", func(c store.SiteChange) bool { return c.Watching && c.ProjectID == "" })
	waitUp(t, s)

	o := &lectern.Organization{Name: "Watched", Plan: lectern.PlanEnterprise}
	if err := s.CreateOrg(t.Context(), o); err != nil {
		t.Fatal(err)
	}
	pr := &lectern.Project{OrgID: o.ID, Name: "Docs", RepoURL: "https://example.com/r.git", Branch: "main", DocsRoot: ".",
		DeploymentType: lectern.DeploymentCloud, Domains: []string{"watched.example.com"}}
	if err := s.CreateProject(t.Context(), pr); err != nil {
		t.Fatal(err)
	}
	wait("the project created after the database came back", func(c store.SiteChange) bool { return c.ProjectID == pr.ID })
}
