package storetest

import (
	"slices"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

var projectCases = []testCase{
	{"CreateAndGet", testProjectCreateGet},
	{"GetByEachDomain", testProjectByDomain},
	{"DomainConflictStoresNothing", testProjectDomainConflict},
	{"MissingOrg", testProjectMissingOrg},
	{"List", testProjectList},
	{"RepoCredentials", testProjectRepoCredentials},
	{"SetRepo", testProjectSetRepo},
	{"CustomScripts", testProjectCustomScripts},
}

// testProjectCustomScripts: the custom-scripts setting is stored with the
// project, off unless asked for, and read back by every lookup.
func testProjectCustomScripts(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	on := &lectern.Project{OrgID: org.ID, Name: "On", RepoURL: "https://git.example.com/on.git", Branch: "main", DocsRoot: "/",
		Domains: []string{domain()}, DeploymentType: lectern.DeploymentCloud, CustomScripts: true}
	must(t, s.CreateProject(t.Context(), on), "CreateProject")
	off := newProject(t, s, org.ID, domain())
	for _, c := range []struct {
		p    *lectern.Project
		want bool
	}{{on, true}, {off, false}} {
		if got := mustGet(t, s.GetProject, c.p.ID); got.CustomScripts != c.want {
			t.Errorf("GetProject(%s).CustomScripts = %v, want %v", c.p.Name, got.CustomScripts, c.want)
		}
		got, err := s.GetProjectByDomain(t.Context(), c.p.Domains[0])
		if err != nil || got.CustomScripts != c.want {
			t.Errorf("GetProjectByDomain(%s) = %+v, %v; want CustomScripts %v", c.p.Domains[0], got, err, c.want)
		}
	}
	list, err := s.ListProjects(t.Context(), org.ID, store.Page{})
	must(t, err, "ListProjects")
	for _, p := range list {
		if p.CustomScripts != (p.ID == on.ID) {
			t.Errorf("ListProjects: %s has CustomScripts %v", p.Name, p.CustomScripts)
		}
	}
}

// Two known_hosts lines, the second ending the text: they come back byte
// for byte.
const (
	testDeployKey  = "v1.0a1b2c3d.ZGVwbG95LWtleQ"
	testKnownHosts = "git.example.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl\n" +
		"[git.example.com]:2222 ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTY=\n"
)

// testProjectCreateGet: a project is stored with every field given, its
// deploy key and known hosts included, and read back by every lookup.
func testProjectCreateGet(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	domains := []string{domain(), domain(), domain()}
	p := &lectern.Project{
		OrgID:          org.ID,
		Name:           "Handbook",
		RepoURL:        "https://git.example.com/acme/handbook.git",
		Branch:         "release",
		DocsRoot:       "site/docs",
		Domains:        slices.Clone(domains),
		DeploymentType: lectern.DeploymentAirGapped,
		DeployKey:      testDeployKey,
		KnownHosts:     testKnownHosts,
	}
	before := time.Now().Add(-time.Minute)
	must(t, s.CreateProject(t.Context(), p), "CreateProject")
	if !lectern.ValidID(lectern.PrefixProject, p.ID) {
		t.Errorf("CreateProject set ID %q, want a %s ID", p.ID, lectern.PrefixProject)
	}
	if p.CreatedAt.Before(before) || p.CreatedAt.After(time.Now().Add(time.Minute)) {
		t.Errorf("CreateProject set CreatedAt %v, want about now", p.CreatedAt)
	}
	got := mustGet(t, s.GetProject, p.ID)
	if got.ID != p.ID || got.OrgID != org.ID || got.Name != "Handbook" ||
		got.RepoURL != p.RepoURL || got.Branch != "release" || got.DocsRoot != "site/docs" ||
		got.DeploymentType != lectern.DeploymentAirGapped {
		t.Errorf("GetProject = %+v, want %+v", got, p)
	}
	if !sameSet(got.Domains, domains) {
		t.Errorf("GetProject Domains = %v, want %v", got.Domains, domains)
	}
	wantKeys := func(what string, got *lectern.Project) {
		t.Helper()
		if got.DeployKey != testDeployKey || got.KnownHosts != testKnownHosts {
			t.Errorf("%s: DeployKey %q, KnownHosts %q; want %q, %q", what, got.DeployKey, got.KnownHosts, testDeployKey, testKnownHosts)
		}
	}
	wantKeys("GetProject", got)
	byDomain, err := s.GetProjectByDomain(t.Context(), domains[1])
	must(t, err, "GetProjectByDomain")
	wantKeys("GetProjectByDomain", byDomain)
	list, err := s.ListProjects(t.Context(), org.ID, store.Page{})
	must(t, err, "ListProjects")
	if len(list) != 1 || list[0].ID != p.ID {
		t.Errorf("ListProjects = %d projects, want only %s", len(list), p.ID)
	} else {
		wantKeys("ListProjects", list[0])
	}
	if plain := mustGet(t, s.GetProject, newProject(t, s, org.ID).ID); plain.DeployKey != "" || plain.KnownHosts != "" {
		t.Errorf("project created without them has DeployKey %q, KnownHosts %q", plain.DeployKey, plain.KnownHosts)
	}
	if got.LiveDeploymentID != "" {
		t.Errorf("new project has LiveDeploymentID %q, want empty", got.LiveDeploymentID)
	}
	for _, dom := range domains {
		if pid, live, err := s.ResolveDomain(t.Context(), dom); err != nil || pid != p.ID || live != "" {
			t.Errorf("ResolveDomain(%s) = %q, %q, %v; want %s with no live deployment", dom, pid, live, err, p.ID)
		}
	}
	if _, _, err := s.ResolveDomain(t.Context(), domain()); lectern.ErrorCode(err) != lectern.ENOTFOUND {
		t.Errorf("ResolveDomain(unknown) error %v, want not_found", err)
	}
	wantTime(t, "GetProject CreatedAt", got.CreatedAt, p.CreatedAt)

	_, err = s.GetProject(t.Context(), missingID(lectern.PrefixProject))
	wantCode(t, err, lectern.ENOTFOUND, "GetProject(missing)")
}

func testProjectByDomain(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	d := []string{domain(), domain()}
	p := newProject(t, s, org.ID, d...)
	q := newProject(t, s, org.ID)
	for _, dom := range d {
		got, err := s.GetProjectByDomain(t.Context(), dom)
		if err != nil {
			t.Errorf("GetProjectByDomain(%s): %v", dom, err)
			continue
		}
		if got.ID != p.ID || got.OrgID != org.ID || !sameSet(got.Domains, d) {
			t.Errorf("GetProjectByDomain(%s) = %+v, want project %s with domains %v", dom, got, p.ID, d)
		}
	}
	got, err := s.GetProjectByDomain(t.Context(), q.Domains[0])
	must(t, err, "GetProjectByDomain")
	if got.ID != q.ID {
		t.Errorf("GetProjectByDomain(%s) = %s, want %s", q.Domains[0], got.ID, q.ID)
	}
	_, err = s.GetProjectByDomain(t.Context(), domain())
	wantCode(t, err, lectern.ENOTFOUND, "GetProjectByDomain(unknown)")
}

func testProjectDomainConflict(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	taken, free := domain(), domain()
	owner := newProject(t, s, org.ID, domain(), taken)

	p := &lectern.Project{OrgID: org.ID, Name: "Intruder", RepoURL: "https://git.example.com/x.git", Branch: "main",
		Domains: []string{free, taken}, DeploymentType: lectern.DeploymentCloud}
	err := s.CreateProject(t.Context(), p)
	wantCode(t, err, lectern.ECONFLICT, "CreateProject with a taken domain")

	if p.ID != "" {
		_, err := s.GetProject(t.Context(), p.ID)
		wantCode(t, err, lectern.ENOTFOUND, "GetProject of the refused project")
	}
	_, err = s.GetProjectByDomain(t.Context(), free)
	wantCode(t, err, lectern.ENOTFOUND, "GetProjectByDomain(other domain of the refused project)")
	got, err := s.GetProjectByDomain(t.Context(), taken)
	must(t, err, "GetProjectByDomain(taken)")
	if got.ID != owner.ID {
		t.Errorf("taken domain now belongs to %s, want %s", got.ID, owner.ID)
	}
	all, err := s.ListProjects(t.Context(), "", store.Page{})
	must(t, err, "ListProjects")
	if len(all) != 1 {
		t.Errorf("ListProjects after a refused create = %d projects, want 1", len(all))
	}

	// The refused project's other domain is free for another project.
	again := newProject(t, s, org.ID, free)
	got, err = s.GetProjectByDomain(t.Context(), free)
	must(t, err, "GetProjectByDomain(free)")
	if got.ID != again.ID {
		t.Errorf("GetProjectByDomain(%s) = %s, want %s", free, got.ID, again.ID)
	}

	// A domain is taken across organizations too.
	org2 := newOrg(t, s)
	err = s.CreateProject(t.Context(), &lectern.Project{OrgID: org2.ID, Name: "Other org", Domains: []string{taken}, DeploymentType: lectern.DeploymentCloud})
	wantCode(t, err, lectern.ECONFLICT, "CreateProject in another org with a taken domain")
}

func testProjectMissingOrg(t *testing.T, s store.Store) {
	dom := domain()
	p := &lectern.Project{OrgID: missingID(lectern.PrefixOrg), Name: "Orphan", Domains: []string{dom}, DeploymentType: lectern.DeploymentCloud}
	err := s.CreateProject(t.Context(), p)
	wantCode(t, err, lectern.ENOTFOUND, "CreateProject(missing org)")
	_, err = s.GetProjectByDomain(t.Context(), dom)
	wantCode(t, err, lectern.ENOTFOUND, "GetProjectByDomain after a refused create")
}

func testProjectList(t *testing.T, s store.Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	pa1, pa2 := newProject(t, s, a.ID), newProject(t, s, a.ID)
	pb := newProject(t, s, b.ID)
	empty := newOrg(t, s)

	ids := func(orgID string) []string {
		t.Helper()
		ps, err := s.ListProjects(t.Context(), orgID, store.Page{})
		must(t, err, "ListProjects")
		var out []string
		for _, p := range ps {
			out = append(out, p.ID)
			if orgID != "" && p.OrgID != orgID {
				t.Errorf("ListProjects(%s) returned project %s of org %s", orgID, p.ID, p.OrgID)
			}
			if p.ID == pa1.ID && !sameSet(p.Domains, pa1.Domains) {
				t.Errorf("ListProjects: project %s has domains %v, want %v", p.ID, p.Domains, pa1.Domains)
			}
		}
		return out
	}
	if got, want := ids(a.ID), []string{pa1.ID, pa2.ID}; !sameSet(got, want) {
		t.Errorf("ListProjects(org a) = %v, want %v", got, want)
	}
	if got, want := ids(b.ID), []string{pb.ID}; !sameSet(got, want) {
		t.Errorf("ListProjects(org b) = %v, want %v", got, want)
	}
	if got := ids(empty.ID); len(got) != 0 {
		t.Errorf("ListProjects(org without projects) = %v, want none", got)
	}
	if got, want := ids(""), []string{pa1.ID, pa2.ID, pb.ID}; !sameSet(got, want) {
		t.Errorf("ListProjects(all) = %v, want %v", got, want)
	}
}

func testProjectRepoCredentials(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	sealed := "v1.0a1b2c3d.c2VhbGVkLWNyZWRlbnRpYWxz-_"
	p := &lectern.Project{OrgID: org.ID, Name: "Private", RepoURL: "https://git.example.com/acme/private.git", Branch: "main",
		DocsRoot: "/", Domains: []string{domain()}, DeploymentType: lectern.DeploymentCloud, RepoCredentials: sealed}
	must(t, s.CreateProject(t.Context(), p), "CreateProject")
	plain := newProject(t, s, org.ID)
	if got := mustGet(t, s.GetProject, p.ID); got.RepoCredentials != sealed || got.RepoURL != p.RepoURL {
		t.Errorf("GetProject RepoCredentials = %q, RepoURL %q; want %q, %q", got.RepoCredentials, got.RepoURL, sealed, p.RepoURL)
	}
	if got := mustGet(t, s.GetProject, plain.ID); got.RepoCredentials != "" {
		t.Errorf("project created without credentials has RepoCredentials %q", got.RepoCredentials)
	}
	got, err := s.GetProjectByDomain(t.Context(), p.Domains[0])
	must(t, err, "GetProjectByDomain")
	if got.RepoCredentials != sealed {
		t.Errorf("GetProjectByDomain RepoCredentials = %q, want %q", got.RepoCredentials, sealed)
	}
	all, err := s.ListProjects(t.Context(), org.ID, store.Page{})
	must(t, err, "ListProjects")
	for _, q := range all {
		if want := map[string]string{p.ID: sealed, plain.ID: ""}[q.ID]; q.RepoCredentials != want {
			t.Errorf("ListProjects: %s has RepoCredentials %q, want %q", q.ID, q.RepoCredentials, want)
		}
	}
}

func testProjectSetRepo(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	p := newProject(t, s, org.ID)
	other := newProject(t, s, org.ID)
	must(t, s.SetProjectRepo(t.Context(), p.ID, "https://git.example.com/acme/moved.git", "v1.0a1b2c3d.bmV3"), "SetProjectRepo")
	got := mustGet(t, s.GetProject, p.ID)
	if got.RepoURL != "https://git.example.com/acme/moved.git" || got.RepoCredentials != "v1.0a1b2c3d.bmV3" {
		t.Errorf("after SetProjectRepo: RepoURL %q, RepoCredentials %q", got.RepoURL, got.RepoCredentials)
	}
	if got.Name != p.Name || got.Branch != p.Branch || got.DocsRoot != p.DocsRoot || !sameSet(got.Domains, p.Domains) {
		t.Errorf("SetProjectRepo changed other fields: %+v, was %+v", got, p)
	}
	if o := mustGet(t, s.GetProject, other.ID); o.RepoURL != other.RepoURL || o.RepoCredentials != "" {
		t.Errorf("SetProjectRepo changed another project: %+v", o)
	}
	must(t, s.SetProjectRepo(t.Context(), p.ID, "https://git.example.com/acme/public.git", ""), "SetProjectRepo(no credentials)")
	if got := mustGet(t, s.GetProject, p.ID); got.RepoURL != "https://git.example.com/acme/public.git" || got.RepoCredentials != "" {
		t.Errorf("after clearing credentials: RepoURL %q, RepoCredentials %q", got.RepoURL, got.RepoCredentials)
	}
	err := s.SetProjectRepo(t.Context(), missingID(lectern.PrefixProject), "https://x.example/x.git", "")
	wantCode(t, err, lectern.ENOTFOUND, "SetProjectRepo(missing)")
}
