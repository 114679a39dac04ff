package actions_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/actions"
	"lectern.dev/lectern/store"
	"lectern.dev/lectern/store/sqlite"
)

// opsFixture is a Service on a SQLite store with two organizations, each
// with a project: acme on the free plan, big on the enterprise plan.
type opsFixture struct {
	st                store.Store
	ops               *actions.Service
	jobs              *opsCounter
	acme, big         *lectern.Organization
	acmeProj, bigProj *lectern.Project
}

type opsCounter struct{ n int }

func (c *opsCounter) Notify() { c.n++ }

func newOpsFixture(t *testing.T) *opsFixture {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "lectern.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	hosts, err := lectern.NewServerHosts("https://lectern.example.com")
	if err != nil {
		t.Fatal(err)
	}
	f := &opsFixture{st: st, jobs: &opsCounter{}}
	f.ops = &actions.Service{Store: st, Jobs: f.jobs, Hosts: hosts}
	f.acme = &lectern.Organization{Name: "Acme", Plan: lectern.PlanFree}
	f.big = &lectern.Organization{Name: "Big", Plan: lectern.PlanEnterprise}
	for _, o := range []*lectern.Organization{f.acme, f.big} {
		if err := st.CreateOrg(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	f.acmeProj = f.project(t, f.acme, "docs.acme.test")
	f.bigProj = f.project(t, f.big, "docs.big.test")
	return f
}

func (f *opsFixture) project(t *testing.T, o *lectern.Organization, domain string) *lectern.Project {
	t.Helper()
	p, err := f.ops.CreateProject(context.Background(), o.ID, actions.NewProject{Name: o.Name + " docs",
		RepoURL: "https://git.example.com/" + o.ID + ".git", Domains: []string{domain}})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// publish builds a deployment of p as the update worker does, and
// returns it; it becomes p's live deployment.
func (f *opsFixture) publish(t *testing.T, p *lectern.Project) *lectern.Deployment {
	t.Helper()
	ctx := context.Background()
	u := &lectern.Update{ProjectID: p.ID, Source: "test"}
	if err := f.st.CreateUpdate(ctx, u); err != nil {
		t.Fatal(err)
	}
	j, lease, err := f.st.ClaimJob(ctx, store.ClaimParams{Kinds: []string{store.KindUpdate}, Owner: "test", Now: time.Now().Add(time.Minute), LeaseFor: time.Hour})
	if err != nil || j == nil || j.ID != u.ID {
		t.Fatalf("claim %s: %v, %v", u.ID, j, err)
	}
	d := &lectern.Deployment{ID: lectern.NewID(lectern.PrefixDeployment), ProjectID: p.ID, UpdateID: u.ID, Commit: lectern.Commit{SHA: "0123456789abcdef", Ref: "main"}, PageCount: 3}
	if err := f.st.FinishUpdate(ctx, lease, store.UpdateResult{Status: lectern.UpdateSuccess, Deployment: d, EndedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	return d
}

func opsFields(err error) []string {
	var names []string
	if le := lectern.AsError(err); le != nil {
		for _, f := range le.Fields {
			names = append(names, f.Field)
		}
	}
	return names
}

func TestCreateProject(t *testing.T) {
	f := newOpsFixture(t)
	ctx := context.Background()
	p, err := f.ops.CreateProject(ctx, f.acme.ID, actions.NewProject{Name: "  Handbook ", RepoURL: " https://github.com/acme/handbook.git ",
		DocsRoot: "docs", Domains: []string{"Help.Acme.test", "help.acme.test", "www.acme.test"}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := f.st.GetProject(ctx, p.ID)
	if err != nil || got.OrgID != f.acme.ID || got.Name != "Handbook" || got.RepoURL != "https://github.com/acme/handbook.git" || got.Branch != "main" ||
		got.DocsRoot != "/docs" || strings.Join(got.Domains, ",") != "help.acme.test,www.acme.test" || got.DeploymentType != lectern.DeploymentCloud {
		t.Errorf("created %+v, %v; want the settings normalized, branch main and type cloud by default", got, err)
	}

	for _, tc := range []struct {
		np     actions.NewProject
		fields []string
	}{
		{actions.NewProject{}, []string{"name", "repoUrl", "domains"}},
		{actions.NewProject{Name: "x", RepoURL: "/srv/git/other-tenant", Domains: []string{"a.acme.test"}}, []string{"repoUrl"}},
		{actions.NewProject{Name: "x", RepoURL: "file:///srv/git/x", Domains: []string{"a.acme.test"}}, []string{"repoUrl"}},
		{actions.NewProject{Name: "x", RepoURL: "git@github.com:acme/docs.git", Domains: []string{"a.acme.test"}}, []string{"repoUrl"}},
		{actions.NewProject{Name: "x", RepoURL: "https://192.168.1.10/docs.git", Domains: []string{"a.acme.test"}}, []string{"repoUrl"}},
		{actions.NewProject{Name: "x", RepoURL: "https://me:token@github.com/acme/docs.git", Domains: []string{"a.acme.test"}}, []string{"repoUrl"}},
		{actions.NewProject{Name: "x", RepoURL: "https://github.com/a/b.git", Branch: "a..b", DocsRoot: "/../up", Domains: []string{"lectern.example.com"},
			DeploymentType: "moon"}, []string{"branch", "docsRoot", "domains", "deploymentType"}},
		{actions.NewProject{Name: "bad\x01name", RepoURL: "", Domains: []string{"https://a.acme.test/"}}, []string{"name", "repoUrl", "domains"}},
	} {
		_, err := f.ops.CreateProject(ctx, f.acme.ID, tc.np)
		if lectern.ErrorCode(err) != lectern.EINVALID || !slices.Equal(opsFields(err), tc.fields) {
			t.Errorf("CreateProject(%+v): %v, fields %v; want EINVALID naming %v", tc.np, err, opsFields(err), tc.fields)
		}
	}
	_, err = f.ops.CreateProject(ctx, f.acme.ID, actions.NewProject{Name: "x", RepoURL: "https://me:s3cr3t@github.com/acme/docs.git", Domains: []string{"a.acme.test"}})
	if strings.Contains(err.Error(), "s3cr3t") {
		t.Errorf("the error shows the URL's token: %v", err)
	}

	// A domain another organization's project holds is a conflict on the
	// domains field.
	_, err = f.ops.CreateProject(ctx, f.acme.ID, actions.NewProject{Name: "x", RepoURL: "https://github.com/a/b.git", Domains: []string{"new.acme.test", "DOCS.big.test"}})
	if lectern.ErrorCode(err) != lectern.ECONFLICT || !slices.Equal(opsFields(err), []string{"domains"}) {
		t.Errorf("a taken domain: %v, fields %v; want ECONFLICT on domains", err, opsFields(err))
	}
	if _, err := f.ops.CreateProject(ctx, "org_nope", actions.NewProject{Name: "x", RepoURL: "https://github.com/a/b.git", Domains: []string{"z.acme.test"}}); lectern.ErrorCode(err) != lectern.ENOTFOUND {
		t.Errorf("an unknown organization: %v, want ENOTFOUND", err)
	}
	ps, _ := f.st.ListProjects(ctx, "", store.Page{})
	if len(ps) != 3 {
		t.Errorf("refused creates stored projects: %d, want 3", len(ps))
	}
	if _, err := f.st.GetProjectByDomain(ctx, "new.acme.test"); lectern.ErrorCode(err) != lectern.ENOTFOUND {
		t.Error("a refused create kept one of its domains")
	}
}

// TestOtherOrganization: every action on another organization's records
// is ENOTFOUND, as for a missing one, and changes nothing.
func TestOtherOrganization(t *testing.T) {
	f := newOpsFixture(t)
	ctx := context.Background()
	dep := f.publish(t, f.acmeProj)
	old := f.publish(t, f.acmeProj)
	bigDep := f.publish(t, f.bigProj)
	upd, err := f.ops.TriggerUpdate(ctx, f.acme.ID, f.acmeProj.ID, "api")
	if err != nil {
		t.Fatal(err)
	}
	exp, err := f.ops.StartExport(ctx, f.big.ID, "docs.big.test", "")
	if err != nil {
		t.Fatal(err)
	}
	name := "Taken"
	jobs := f.jobs.n
	for what, call := range map[string]func() error{
		"TriggerUpdate":        func() error { _, err := f.ops.TriggerUpdate(ctx, f.big.ID, f.acmeProj.ID, "api"); return err },
		"Promote":              func() error { _, err := f.ops.Promote(ctx, f.big.ID, f.acmeProj.ID, dep.ID); return err },
		"Promote other's dep":  func() error { _, err := f.ops.Promote(ctx, f.acme.ID, f.acmeProj.ID, bigDep.ID); return err },
		"Promote via own proj": func() error { _, err := f.ops.Promote(ctx, f.big.ID, f.bigProj.ID, dep.ID); return err },
		"DeleteProject":        func() error { _, err := f.ops.DeleteProject(ctx, f.big.ID, f.acmeProj.ID); return err },
		"UpdateProject": func() error {
			_, err := f.ops.UpdateProject(ctx, f.big.ID, f.acmeProj.ID, actions.ProjectPatch{Name: &name})
			return err
		},
		"Project":               func() error { _, err := f.ops.Project(ctx, f.big.ID, f.acmeProj.ID); return err },
		"Update":                func() error { _, err := f.ops.Update(ctx, f.big.ID, upd.ID); return err },
		"CancelUpdate":          func() error { _, err := f.ops.CancelUpdate(ctx, f.big.ID, upd.ID); return err },
		"StartExport":           func() error { _, err := f.ops.StartExport(ctx, f.big.ID, "docs.acme.test", ""); return err },
		"Export":                func() error { _, err := f.ops.Export(ctx, f.acme.ID, exp.ID); return err },
		"Bundle":                func() error { _, err := f.ops.Bundle(ctx, f.acme.ID, exp.ID); return err },
		"TriggerUpdate missing": func() error { _, err := f.ops.TriggerUpdate(ctx, f.acme.ID, "prj_nope", "api"); return err },
		"CancelUpdate missing":  func() error { _, err := f.ops.CancelUpdate(ctx, f.acme.ID, "upd_nope"); return err },
		"Promote missing":       func() error { _, err := f.ops.Promote(ctx, f.acme.ID, f.acmeProj.ID, "dep_nope"); return err },
		"UpdateProject missing": func() error {
			_, err := f.ops.UpdateProject(ctx, f.acme.ID, "prj_nope", actions.ProjectPatch{Name: &name})
			return err
		},
		"DeleteProject missing":  func() error { _, err := f.ops.DeleteProject(ctx, f.acme.ID, "prj_nope"); return err },
		"Bundle missing":         func() error { _, err := f.ops.Bundle(ctx, f.big.ID, "exp_nope"); return err },
		"StartExport no project": func() error { _, err := f.ops.StartExport(ctx, f.big.ID, "nobody.test", ""); return err },
	} {
		if err := call(); lectern.ErrorCode(err) != lectern.ENOTFOUND {
			t.Errorf("%s: %v, want ENOTFOUND", what, err)
		}
	}
	p, err := f.st.GetProject(ctx, f.acmeProj.ID)
	if err != nil || p.Name != f.acmeProj.Name || p.LiveDeploymentID != old.ID {
		t.Errorf("another organization changed the project: %+v, %v", p, err)
	}
	if u, _ := f.st.GetUpdate(ctx, upd.ID); u.Status != lectern.UpdateQueued {
		t.Errorf("another organization canceled the update: %s", u.Status)
	}
	if b, _ := f.st.GetProject(ctx, f.bigProj.ID); b.LiveDeploymentID != bigDep.ID {
		t.Error("a refused promote changed the other project's live deployment")
	}
	if f.jobs.n != jobs {
		t.Errorf("refused actions queued %d jobs", f.jobs.n-jobs)
	}
}

func TestExportPlan(t *testing.T) {
	f := newOpsFixture(t)
	ctx := context.Background()
	_, err := f.ops.StartExport(ctx, f.acme.ID, "docs.acme.test", "")
	if lectern.ErrorCode(err) != lectern.EPLAN || !strings.Contains(lectern.ErrorMessage(err), "enterprise") {
		t.Errorf("export on the free plan: %v, want EPLAN naming the enterprise plan", err)
	}
	if es, _ := f.st.ListExports(ctx, store.ExportFilter{OrgID: f.acme.ID}, store.Page{}); len(es) != 0 {
		t.Errorf("a refused export was stored: %d", len(es))
	}
	e, err := f.ops.StartExport(ctx, f.big.ID, "docs.big.test", "")
	if err != nil || e.Status != lectern.ExportQueued || e.ProjectID != f.bigProj.ID {
		t.Fatalf("export on the enterprise plan: %+v, %v", e, err)
	}
	if _, err := f.ops.Bundle(ctx, f.big.ID, e.ID); lectern.ErrorCode(err) != lectern.ENOTCOMPLETED {
		t.Errorf("bundle of a queued export: %v, want ENOTCOMPLETED", err)
	}
}

func TestCancelUpdate(t *testing.T) {
	f := newOpsFixture(t)
	ctx := context.Background()
	u, err := f.ops.TriggerUpdate(ctx, f.acme.ID, f.acmeProj.ID, "dashboard")
	if err != nil || u.Source != "dashboard" || f.jobs.n != 1 {
		t.Fatalf("TriggerUpdate: %+v, %v, jobs %d", u, err, f.jobs.n)
	}
	c, err := f.ops.CancelUpdate(ctx, f.acme.ID, u.ID)
	if err != nil || c.Status != lectern.UpdateCanceled || c.Summary != store.CanceledByRequest || c.EndedAt == nil {
		t.Fatalf("CancelUpdate: %+v, %v", c, err)
	}
	_, err = f.ops.CancelUpdate(ctx, f.acme.ID, u.ID)
	if lectern.ErrorCode(err) != lectern.ECONFLICT || !strings.Contains(lectern.ErrorMessage(err), "nothing to cancel") {
		t.Errorf("cancel an ended update: %v, want ECONFLICT saying there is nothing to cancel", err)
	}
}

func TestUpdateProjectDropsCredentials(t *testing.T) {
	f := newOpsFixture(t)
	ctx := context.Background()
	if err := f.st.SetProjectRepo(ctx, f.acmeProj.ID, f.acmeProj.RepoURL, "v1.sealed"); err != nil {
		t.Fatal(err)
	}
	branch := "docs"
	p, err := f.ops.UpdateProject(ctx, f.acme.ID, f.acmeProj.ID, actions.ProjectPatch{Branch: &branch})
	if err != nil || p.Branch != "docs" || p.RepoCredentials == "" {
		t.Fatalf("change the branch: %+v, %v; want the credentials kept", p, err)
	}
	repo := "https://github.com/acme/elsewhere.git"
	p, err = f.ops.UpdateProject(ctx, f.acme.ID, f.acmeProj.ID, actions.ProjectPatch{RepoURL: &repo})
	if err != nil || p.RepoURL != repo || p.RepoCredentials != "" {
		t.Errorf("change the repository: %+v, %v; want the credentials dropped", p, err)
	}
	taken := []string{"docs.big.test"}
	if _, err := f.ops.UpdateProject(ctx, f.acme.ID, f.acmeProj.ID, actions.ProjectPatch{Domains: &taken}); lectern.ErrorCode(err) != lectern.ECONFLICT ||
		!slices.Equal(opsFields(err), []string{"domains"}) {
		t.Errorf("take another project's domain: %v, want ECONFLICT on domains", err)
	}
}
