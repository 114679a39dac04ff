package storetest

import (
	"slices"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

var projectChangeCases = []testCase{
	{"EachFieldAlone", testChangeEachField},
	{"DomainsInOrder", testChangeDomainsInOrder},
	{"DomainConflictChangesNothing", testChangeDomainConflict},
	{"DroppedDomainsAreFree", testChangeDroppedDomains},
	{"NoDomainsIsInvalid", testChangeNoDomains},
	{"MissingOrDeleted", testChangeMissing},
}

func ptr[T any](v T) *T { return &v }

// wantProject fails unless got has every stored field of want, its domains
// in the same order.
func wantProject(t *testing.T, what string, got, want *lectern.Project) {
	t.Helper()
	if got == nil {
		t.Errorf("%s = nil, want %+v", what, want)
		return
	}
	if got.ID != want.ID || got.OrgID != want.OrgID || got.Name != want.Name || got.RepoURL != want.RepoURL ||
		got.Branch != want.Branch || got.DocsRoot != want.DocsRoot || !slices.Equal(got.Domains, want.Domains) ||
		got.DeploymentType != want.DeploymentType || got.CustomScripts != want.CustomScripts ||
		got.LiveDeploymentID != want.LiveDeploymentID || got.RepoCredentials != want.RepoCredentials ||
		got.DeployKey != want.DeployKey || got.KnownHosts != want.KnownHosts ||
		!sameTime(got.CreatedAt, want.CreatedAt) {
		t.Errorf("%s = %+v (credentials %q, deploy key %q),\nwant %+v (credentials %q, deploy key %q)",
			what, got, got.RepoCredentials, got.DeployKey, want, want.RepoCredentials, want.DeployKey)
	}
}

// testChangeEachField: UpdateProject changes each field alone, returning
// the project as stored, and keeps every other field (the live deployment
// and creation time included); an empty change changes nothing; another
// project is untouched.
func testChangeEachField(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	p := newProject(t, s, org.ID, domain(), domain())
	other := newProject(t, s, org.ID)
	newDeployment(t, s, p, rec{lectern.NewID(lectern.PrefixDeployment), us(time.Now().UTC())})
	want := mustGet(t, s.GetProject, p.ID)
	if want.LiveDeploymentID == "" {
		t.Fatalf("project has no live deployment after a successful update")
	}
	wantOther := mustGet(t, s.GetProject, other.ID)

	// Domains first: from then on their stored order is the one given.
	doms := []string{domain(), want.Domains[0]}
	steps := []struct {
		name  string
		ch    store.ProjectChange
		apply func(p *lectern.Project)
	}{
		{"Domains", store.ProjectChange{Domains: slices.Clone(doms)}, func(p *lectern.Project) { p.Domains = doms }},
		{"Name", store.ProjectChange{Name: ptr("Renamed")}, func(p *lectern.Project) { p.Name = "Renamed" }},
		{"RepoURL", store.ProjectChange{RepoURL: ptr("https://git.example.com/acme/moved.git")}, func(p *lectern.Project) { p.RepoURL = "https://git.example.com/acme/moved.git" }},
		{"Branch", store.ProjectChange{Branch: ptr("release")}, func(p *lectern.Project) { p.Branch = "release" }},
		{"DocsRoot", store.ProjectChange{DocsRoot: ptr("site/docs")}, func(p *lectern.Project) { p.DocsRoot = "site/docs" }},
		{"RepoCredentials", store.ProjectChange{RepoCredentials: ptr("v1.0a1b2c3d.c2VhbGVk")}, func(p *lectern.Project) { p.RepoCredentials = "v1.0a1b2c3d.c2VhbGVk" }},
		{"RepoCredentials cleared", store.ProjectChange{RepoCredentials: ptr("")}, func(p *lectern.Project) { p.RepoCredentials = "" }},
		{"DeployKey", store.ProjectChange{DeployKey: ptr(testDeployKey)}, func(p *lectern.Project) { p.DeployKey = testDeployKey }},
		{"KnownHosts", store.ProjectChange{KnownHosts: ptr(testKnownHosts)}, func(p *lectern.Project) { p.KnownHosts = testKnownHosts }},
		{"DeployKey replaced", store.ProjectChange{DeployKey: ptr("v1.0a1b2c3d.bmV3LWtleQ")}, func(p *lectern.Project) { p.DeployKey = "v1.0a1b2c3d.bmV3LWtleQ" }},
		{"KnownHosts cleared", store.ProjectChange{KnownHosts: ptr("")}, func(p *lectern.Project) { p.KnownHosts = "" }},
		{"DeployKey cleared", store.ProjectChange{DeployKey: ptr("")}, func(p *lectern.Project) { p.DeployKey = "" }},
		{"DeploymentType", store.ProjectChange{DeploymentType: ptr(lectern.DeploymentAirGapped)}, func(p *lectern.Project) { p.DeploymentType = lectern.DeploymentAirGapped }},
		{"CustomScripts on", store.ProjectChange{CustomScripts: ptr(true)}, func(p *lectern.Project) { p.CustomScripts = true }},
		{"CustomScripts off", store.ProjectChange{CustomScripts: ptr(false)}, func(p *lectern.Project) { p.CustomScripts = false }},
		{"nothing", store.ProjectChange{}, func(*lectern.Project) {}},
		{"Name and Branch", store.ProjectChange{Name: ptr("Both"), Branch: ptr("main")}, func(p *lectern.Project) { p.Name, p.Branch = "Both", "main" }},
	}
	for _, st := range steps {
		st.apply(want)
		got, err := s.UpdateProject(t.Context(), p.ID, st.ch)
		if err != nil {
			t.Errorf("UpdateProject(%s): %v", st.name, err)
			continue
		}
		wantProject(t, "UpdateProject("+st.name+") result", got, want)
		wantProject(t, "GetProject after UpdateProject("+st.name+")", mustGet(t, s.GetProject, p.ID), want)
	}
	wantProject(t, "another project after UpdateProject", mustGet(t, s.GetProject, other.ID), wantOther)
}

// testChangeDomainsInOrder: UpdateProject replaces the domains in the
// order given, every lookup sees the new ones and none of the dropped one;
// the same domains in another order are no conflict.
func testChangeDomainsInOrder(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	d1, d2, d3 := domain(), domain(), domain()
	p := newProject(t, s, org.ID, d1, d2, d3)
	check := func(when string, doms []string) {
		t.Helper()
		if got := mustGet(t, s.GetProject, p.ID); !slices.Equal(got.Domains, doms) {
			t.Errorf("GetProject Domains %s = %v, want %v", when, got.Domains, doms)
		}
		for _, d := range doms {
			got, err := s.GetProjectByDomain(t.Context(), d)
			if err != nil || got.ID != p.ID || !slices.Equal(got.Domains, doms) {
				t.Errorf("GetProjectByDomain(%s) %s = %+v, %v; want %s with domains %v", d, when, got, err, p.ID, doms)
			}
			if pid, _, err := s.ResolveDomain(t.Context(), d); err != nil || pid != p.ID {
				t.Errorf("ResolveDomain(%s) %s = %q, %v; want %s", d, when, pid, err, p.ID)
			}
		}
		ps, err := s.ListProjects(t.Context(), org.ID, store.Page{})
		must(t, err, "ListProjects")
		if len(ps) != 1 || !slices.Equal(ps[0].Domains, doms) {
			t.Errorf("ListProjects %s = %d projects, want 1 with domains %v", when, len(ps), doms)
		}
	}
	got, err := s.UpdateProject(t.Context(), p.ID, store.ProjectChange{Domains: []string{d3, d1}})
	must(t, err, "UpdateProject")
	if !slices.Equal(got.Domains, []string{d3, d1}) {
		t.Errorf("UpdateProject returned domains %v, want [%s %s]", got.Domains, d3, d1)
	}
	check("after replacing them with d3, d1", []string{d3, d1})
	_, err = s.GetProjectByDomain(t.Context(), d2)
	wantCode(t, err, lectern.ENOTFOUND, "GetProjectByDomain(dropped domain)")
	_, _, err = s.ResolveDomain(t.Context(), d2)
	wantCode(t, err, lectern.ENOTFOUND, "ResolveDomain(dropped domain)")

	_, err = s.UpdateProject(t.Context(), p.ID, store.ProjectChange{Domains: []string{d1, d3}})
	must(t, err, "UpdateProject(same domains, other order)")
	check("after reordering them", []string{d1, d3})
}

// testChangeDomainConflict: a domain that another project owns, in this
// organization or another, is ECONFLICT and changes nothing, not even the
// other fields of the same change or the free domains it named.
func testChangeDomainConflict(t *testing.T, s store.Store) {
	org, org2 := newOrg(t, s), newOrg(t, s)
	p := newProject(t, s, org.ID, domain(), domain())
	q := newProject(t, s, org.ID)
	r := newProject(t, s, org2.ID)
	wantP, wantQ, wantR := mustGet(t, s.GetProject, p.ID), mustGet(t, s.GetProject, q.ID), mustGet(t, s.GetProject, r.ID)
	for _, c := range []struct {
		name  string
		owner *lectern.Project
	}{{"this organization", q}, {"another organization", r}} {
		free := domain()
		_, err := s.UpdateProject(t.Context(), p.ID, store.ProjectChange{
			Name: ptr("Renamed"), Branch: ptr("other"), Domains: []string{wantP.Domains[0], free, c.owner.Domains[0]},
		})
		wantCode(t, err, lectern.ECONFLICT, "UpdateProject with a domain of a project of "+c.name)
		wantProject(t, "GetProject after a refused UpdateProject", mustGet(t, s.GetProject, p.ID), wantP)
		got, err := s.GetProjectByDomain(t.Context(), c.owner.Domains[0])
		if err != nil || got.ID != c.owner.ID {
			t.Errorf("GetProjectByDomain(%s) after a refused UpdateProject = %+v, %v; want %s", c.owner.Domains[0], got, err, c.owner.ID)
		}
		_, err = s.GetProjectByDomain(t.Context(), free)
		wantCode(t, err, lectern.ENOTFOUND, "GetProjectByDomain(free domain of a refused UpdateProject)")
		if pid, _, err := s.ResolveDomain(t.Context(), wantP.Domains[1]); err != nil || pid != p.ID {
			t.Errorf("ResolveDomain(%s) after a refused UpdateProject = %q, %v; want %s (still its domain)", wantP.Domains[1], pid, err, p.ID)
		}
	}
	wantProject(t, "GetProject(q)", mustGet(t, s.GetProject, q.ID), wantQ)
	wantProject(t, "GetProject(r)", mustGet(t, s.GetProject, r.ID), wantR)
}

// testChangeDroppedDomains: the domains UpdateProject drops are free at
// once, for a new project and for another project's UpdateProject, and the
// project that dropped them cannot take back one now owned by another.
func testChangeDroppedDomains(t *testing.T, s store.Store) {
	org, org2 := newOrg(t, s), newOrg(t, s)
	d1, d2, d3 := domain(), domain(), domain()
	p := newProject(t, s, org.ID, d1, d2, d3)
	q := newProject(t, s, org.ID)
	_, err := s.UpdateProject(t.Context(), p.ID, store.ProjectChange{Domains: []string{d3}})
	must(t, err, "UpdateProject")
	for _, d := range []string{d1, d2} {
		_, err := s.GetProjectByDomain(t.Context(), d)
		wantCode(t, err, lectern.ENOTFOUND, "GetProjectByDomain(dropped domain)")
		_, _, err = s.ResolveDomain(t.Context(), d)
		wantCode(t, err, lectern.ENOTFOUND, "ResolveDomain(dropped domain)")
	}

	n := newProject(t, s, org2.ID, d1) // another organization's new project
	got, err := s.UpdateProject(t.Context(), q.ID, store.ProjectChange{Domains: []string{q.Domains[0], d2}})
	must(t, err, "UpdateProject(another project takes a dropped domain)")
	if !slices.Equal(got.Domains, []string{q.Domains[0], d2}) {
		t.Errorf("UpdateProject(q) domains = %v, want [%s %s]", got.Domains, q.Domains[0], d2)
	}
	for d, owner := range map[string]string{d1: n.ID, d2: q.ID, d3: p.ID} {
		if pid, _, err := s.ResolveDomain(t.Context(), d); err != nil || pid != owner {
			t.Errorf("ResolveDomain(%s) = %q, %v; want %s", d, pid, err, owner)
		}
	}
	_, err = s.UpdateProject(t.Context(), p.ID, store.ProjectChange{Domains: []string{d3, d1}})
	wantCode(t, err, lectern.ECONFLICT, "UpdateProject taking back a dropped domain now owned by another project")
	if got := mustGet(t, s.GetProject, p.ID); !slices.Equal(got.Domains, []string{d3}) {
		t.Errorf("GetProject Domains after a refused UpdateProject = %v, want [%s]", got.Domains, d3)
	}
}

// testChangeNoDomains: an empty (not nil) domain list is EINVALID and
// changes nothing, not even the other fields of the same change.
func testChangeNoDomains(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	p := newProject(t, s, org.ID, domain(), domain())
	want := mustGet(t, s.GetProject, p.ID)
	_, err := s.UpdateProject(t.Context(), p.ID, store.ProjectChange{Name: ptr("Renamed"), Domains: []string{}})
	wantCode(t, err, lectern.EINVALID, "UpdateProject(no domains)")
	wantProject(t, "GetProject after a refused UpdateProject", mustGet(t, s.GetProject, p.ID), want)
	for _, d := range want.Domains {
		if pid, _, err := s.ResolveDomain(t.Context(), d); err != nil || pid != p.ID {
			t.Errorf("ResolveDomain(%s) after a refused UpdateProject = %q, %v; want %s", d, pid, err, p.ID)
		}
	}
}

// testChangeMissing: UpdateProject of a missing or deleted project is
// ENOTFOUND, and does not bring a deleted project back.
func testChangeMissing(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	_, err := s.UpdateProject(t.Context(), missingID(lectern.PrefixProject), store.ProjectChange{Name: ptr("x")})
	wantCode(t, err, lectern.ENOTFOUND, "UpdateProject(missing)")

	p := newProject(t, s, org.ID)
	must(t, s.DeleteProject(t.Context(), p.ID, time.Now().UTC()), "DeleteProject")
	_, err = s.UpdateProject(t.Context(), p.ID, store.ProjectChange{Name: ptr("x")})
	wantCode(t, err, lectern.ENOTFOUND, "UpdateProject(deleted)")
	_, err = s.UpdateProject(t.Context(), p.ID, store.ProjectChange{Domains: []string{p.Domains[0]}})
	wantCode(t, err, lectern.ENOTFOUND, "UpdateProject(deleted, taking its old domain back)")
	_, err = s.GetProject(t.Context(), p.ID)
	wantCode(t, err, lectern.ENOTFOUND, "GetProject(deleted) after UpdateProject")
	_, _, err = s.ResolveDomain(t.Context(), p.Domains[0])
	wantCode(t, err, lectern.ENOTFOUND, "ResolveDomain(domain of the deleted project) after UpdateProject")
}
