package dashboard

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

// projAs signs a new browser in as email and fails the test otherwise.
func projAs(e *env, email, pw string) *browser {
	e.t.Helper()
	b := e.browser("192.0.2.77")
	if s := b.signIn(email, pw); s != http.StatusSeeOther {
		e.t.Fatalf("sign in as %s: %d", email, s)
	}
	return b
}

// projGet opens a page, wants status, and checks that it keeps to the CSP
// (no inline script or style).
func projGet(b *browser, path string, status int) {
	b.e.t.Helper()
	if s := b.do("GET", path, nil); s != status {
		b.e.t.Fatalf("GET %s: %d, want %d\n%s", path, s, status, b.body)
	}
	if strings.Contains(b.body, "<script>") || strings.Contains(b.body, " style=") {
		b.e.t.Errorf("GET %s: inline script or style", path)
	}
}

// projPost sends a form with the CSRF token of page (GET first) and
// returns the status.
func projPost(b *browser, page, path string, form url.Values) int {
	b.e.t.Helper()
	if s := b.do("GET", page, nil); s != 200 {
		b.e.t.Fatalf("GET %s: %d", page, s)
	}
	if form == nil {
		form = url.Values{}
	}
	form.Set("csrf", b.csrf())
	return b.do("POST", path, form)
}

// projOtherProject is a project of the other organization.
func projOtherProject(e *env) *lectern.Project {
	e.t.Helper()
	p := &lectern.Project{OrgID: e.other.ID, Name: "Other docs", RepoURL: "https://git.example/other.git", Branch: "main",
		DocsRoot: "/", Domains: []string{"docs.other.test"}, DeploymentType: lectern.DeploymentCloud}
	if err := e.st.CreateProject(context.Background(), p); err != nil {
		e.t.Fatal(err)
	}
	return p
}

// projFinish claims the job of update uid and ends it with status; a
// success publishes a deployment created at `at`, which it returns.
func projFinish(e *env, uid string, status lectern.UpdateStatus, at time.Time, logs ...string) *lectern.Deployment {
	e.t.Helper()
	ctx := context.Background()
	var lease store.Lease
	for range 20 {
		j, l, err := e.st.ClaimJob(ctx, store.ClaimParams{Kinds: []string{store.KindUpdate}, Owner: "test", Now: time.Now().Add(time.Minute), LeaseFor: time.Hour})
		if err != nil || j == nil {
			e.t.Fatalf("claim update %s: %v, %v", uid, j, err)
		}
		if j.ID == uid {
			lease = l
			break
		}
	}
	if lease.JobID != uid {
		e.t.Fatalf("update %s was never claimed", uid)
	}
	commit := &lectern.Commit{SHA: strings.Repeat("ab", 20), Ref: "main", Message: "Fix the quickstart"}
	res := store.UpdateResult{Status: status, Summary: "Built 12 pages.", Commit: commit, Logs: logs, EndedAt: time.Now()}
	var d *lectern.Deployment
	if status == lectern.UpdateSuccess {
		u, _ := e.st.GetUpdate(ctx, uid)
		d = &lectern.Deployment{ID: lectern.NewID(lectern.PrefixDeployment), ProjectID: u.ProjectID, UpdateID: uid, Commit: *commit, PageCount: 12, CreatedAt: at}
		res.Deployment = d
	} else {
		res.Summary = "The build failed."
	}
	if err := e.st.FinishUpdate(ctx, lease, res); err != nil {
		e.t.Fatal(err)
	}
	return d
}

// projPublish publishes a deployment of p (an update that succeeds).
func projPublish(e *env, p *lectern.Project, at time.Time) *lectern.Deployment {
	e.t.Helper()
	u := &lectern.Update{ProjectID: p.ID, Source: "api"}
	if err := e.st.CreateUpdate(context.Background(), u); err != nil {
		e.t.Fatal(err)
	}
	return projFinish(e, u.ID, lectern.UpdateSuccess, at)
}

func TestProjectsList(t *testing.T) {
	e := newEnv(t, Config{})
	other := projOtherProject(e)
	d := projPublish(e, e.project, time.Now())
	b := projAs(e, "owner@acme.test", ownerPW)
	projGet(b, "/dashboard/projects", 200)
	for _, want := range []string{e.project.Name, `href="https://docs.acme.test/"`, `href="/dashboard/projects/new"`, "cloud", d.Commit.SHA[:12], "success"} {
		if !b.has(want) {
			t.Errorf("the projects page lacks %q", want)
		}
	}
	if b.has(other.Name) || b.has(other.ID) {
		t.Error("the projects page lists another organization's project")
	}
	m := projAs(e, "member@acme.test", memberPW)
	projGet(m, "/dashboard/projects", 200)
	if !m.has(e.project.Name) || m.has("/dashboard/projects/new") {
		t.Error("a member's projects page: want the list without New project")
	}
	projGet(b, "/dashboard/projects?after=!!", http.StatusBadRequest)

	// The empty state says what to do.
	if err := e.st.DeleteProject(context.Background(), e.project.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	projGet(b, "/dashboard/projects", 200)
	if !b.has("No projects yet") || !b.has("New project") {
		t.Errorf("the empty projects page of an owner:\n%s", b.body)
	}
	projGet(m, "/dashboard/projects", 200)
	if !m.has("ask one of them") {
		t.Error("the empty projects page of a member does not say whom to ask")
	}
}

// TestProjectsPaging: the list shows projectsPerPage projects, newest
// first, and an Older link to the rest.
func TestProjectsPaging(t *testing.T) {
	e := newEnv(t, Config{})
	ctx := context.Background()
	t0 := time.Now().Add(-time.Hour)
	for i := range projectsPerPage + 2 {
		p := &lectern.Project{OrgID: e.acme.ID, Name: fmt.Sprintf("Paged %d", i), RepoURL: "https://git.example/p.git",
			Branch: "main", DocsRoot: "/", Domains: []string{fmt.Sprintf("p%d.acme.test", i)}, DeploymentType: lectern.DeploymentCloud,
			CreatedAt: t0.Add(time.Duration(i) * time.Second)}
		if err := e.st.CreateProject(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	b := projAs(e, "member@acme.test", memberPW)
	projGet(b, "/dashboard/projects", 200)
	older := regexp.MustCompile(`href="/dashboard/projects\?after=([^"]+)"`).FindStringSubmatch(b.body)
	if older == nil || !b.has(e.project.Name) {
		t.Fatalf("the first page has no Older link or lacks the newest project")
	}
	if n := strings.Count(b.body, `<th scope="row">`); n != projectsPerPage {
		t.Errorf("first page: %d projects, want %d", n, projectsPerPage)
	}
	projGet(b, "/dashboard/projects?after="+older[1], 200)
	if n := strings.Count(b.body, `<th scope="row">`); n != 3 || b.has(e.project.Name) || b.has("?after=") {
		t.Errorf("second page: %d projects, want the 3 oldest and no Older link", n)
	}
}

func TestProjectCreate(t *testing.T) {
	e := newEnv(t, Config{})
	ctx := context.Background()
	count := func() int {
		ps, _ := e.st.ListProjects(ctx, e.acme.ID, store.Page{})
		return len(ps)
	}
	b := projAs(e, "owner@acme.test", ownerPW)
	projGet(b, "/dashboard/projects/new", 200)
	for _, want := range []string{`<label for="name">Name</label>`, `<label for="repoUrl">Repository URL</label>`, `<label for="branch">Branch</label>`,
		`<label for="docsRoot">Docs root</label>`, `<label for="domains">Domains</label>`, `<legend>Deployment type</legend>`,
		`value="main"`, `value="/"`, `value="cloud" checked`, `value="air-gapped"`} {
		if !strings.Contains(b.body, want) {
			t.Errorf("the new project form lacks %s", want)
		}
	}

	// Every bad field is named beside its field, the input shown again,
	// and nothing is created.
	bad := url.Values{"name": {"My docs"}, "repoUrl": {"https://user:s3cr3t-token@10.0.0.5/docs.git"}, "branch": {"bad..branch"},
		"docsRoot": {"../up"}, "domains": {serverHost}, "deploymentType": {"moon"}}
	e.secrets = append(e.secrets, "s3cr3t-token")
	if s := projPost(b, "/dashboard/projects/new", "/dashboard/projects/new", bad); s != http.StatusBadRequest {
		t.Fatalf("bad form: %d, want 400", s)
	}
	for _, f := range []string{"repoUrl", "branch", "docsRoot", "domains", "deploymentType"} {
		if !strings.Contains(b.body, `id="`+f+`-err"`) {
			t.Errorf("no message beside the %s field", f)
		}
	}
	if !b.has(`aria-invalid="true"`) || !b.has(`role="alert"`) || !b.has(`value="My docs"`) || !b.has("bad..branch") {
		t.Errorf("the refused form is not shown again with the input and its errors:\n%s", b.body)
	}
	if b.has("s3cr3t-token") {
		t.Error("the refused form shows the token typed in the repository URL")
	}
	if b.has(`id="name-err"`) {
		t.Error("a good name is marked bad")
	}
	for _, tc := range []struct{ field, repo, want string }{
		{"repoUrl", "file:///srv/git/other-tenant", "not an https:// or http:// URL"},
		{"repoUrl", "https://localhost/x.git", "server's own network"},
		{"name", "https://github.com/acme/docs.git", "must not be empty"},
	} {
		f := url.Values{"name": {""}, "repoUrl": {tc.repo}, "branch": {"main"}, "docsRoot": {"/"}, "domains": {"new.acme.test"}, "deploymentType": {"cloud"}}
		if tc.field != "name" {
			f.Set("name", "Docs")
		}
		if s := projPost(b, "/dashboard/projects/new", "/dashboard/projects/new", f); s != http.StatusBadRequest || !b.has(tc.want) || !b.has(`id="`+tc.field+`-err"`) {
			t.Errorf("create with %s %q: %d, want 400 saying %q", tc.field, tc.repo, s, tc.want)
		}
	}
	// A domain another project holds is a conflict on the domains field.
	taken := url.Values{"name": {"Copy"}, "repoUrl": {"https://github.com/acme/docs.git"}, "domains": {"new.acme.test, " + docsDomain}, "deploymentType": {"cloud"}}
	if s := projPost(b, "/dashboard/projects/new", "/dashboard/projects/new", taken); s != http.StatusConflict || !b.has(`id="domains-err"`) {
		t.Errorf("create with a taken domain: %d, want 409 beside the domains field", s)
	}
	if n := count(); n != 1 {
		t.Fatalf("refused forms created projects: %d, want 1", n)
	}

	// Members may not; a POST without the CSRF token is refused.
	m := projAs(e, "member@acme.test", memberPW)
	projGet(m, "/dashboard/projects/new", http.StatusForbidden)
	good := url.Values{"name": {" Handbook "}, "repoUrl": {" https://github.com/acme/handbook.git "}, "branch": {""}, "docsRoot": {"docs"},
		"domains": {"Handbook.acme.test, help.acme.test\nhandbook.acme.test\r\n"}, "deploymentType": {"client-hosted"}}
	if s := projPost(m, "/dashboard/projects", "/dashboard/projects/new", good); s != http.StatusForbidden {
		t.Errorf("member creates a project: %d, want 403", s)
	}
	if s := b.do("POST", "/dashboard/projects/new", good); s != http.StatusForbidden {
		t.Errorf("create without the CSRF token: %d, want 403", s)
	}
	if n := count(); n != 1 {
		t.Fatalf("a member or a request without token created a project")
	}

	if s := projPost(b, "/dashboard/projects/new", "/dashboard/projects/new", good); s != http.StatusSeeOther {
		t.Fatalf("create: %d\n%s", s, b.body)
	}
	loc := b.last.Header.Get("Location")
	id := strings.TrimSuffix(strings.TrimPrefix(loc, "/dashboard/projects/"), "?done=created")
	p, err := e.st.GetProject(ctx, id)
	if err != nil || !strings.HasSuffix(loc, "?done=created") {
		t.Fatalf("create went to %q: %v", loc, err)
	}
	if p.OrgID != e.acme.ID || p.Name != "Handbook" || p.RepoURL != "https://github.com/acme/handbook.git" || p.Branch != "main" ||
		p.DocsRoot != "/docs" || strings.Join(p.Domains, ",") != "handbook.acme.test,help.acme.test" || p.DeploymentType != lectern.DeploymentClientHosted {
		t.Errorf("created %+v", p)
	}
	projGet(b, loc, 200)
	if !b.has("Project created") || !b.has("/dashboard/projects/"+id+"/access") || !b.has("Deploy now") {
		t.Errorf("the new project's page does not suggest Deploy now and Access:\n%s", b.body)
	}
}

func TestProjectShow(t *testing.T) {
	e := newEnv(t, Config{})
	other := projOtherProject(e)
	b := projAs(e, "owner@acme.test", ownerPW)
	path := "/dashboard/projects/" + e.project.ID
	projGet(b, path, 200)
	for _, want := range []string{`data-copy="` + e.project.ID + `"`, path + "/updates", path + "/deployments", path + "/access",
		"/dashboard/analytics?project=" + e.project.ID, "/dashboard/exports/new?domain=" + docsDomain, path + "/edit", path + "/delete",
		"Deploy now", "https://git.example/acme.git", "Nothing is live yet"} {
		if !b.has(want) {
			t.Errorf("the project page lacks %q", want)
		}
	}
	m := projAs(e, "member@acme.test", memberPW)
	projGet(m, path, 200)
	if !m.has("Deploy now") || m.has(path+"/edit") || m.has(path+"/delete") {
		t.Error("a member's project page: want Deploy now without Edit and Delete")
	}
	projGet(b, "/dashboard/projects/"+other.ID, http.StatusNotFound)
	foreign := b.body
	projGet(b, "/dashboard/projects/prj_nope", http.StatusNotFound)
	if !strings.Contains(foreign, projNotFound) || !b.has(projNotFound) || strings.Contains(foreign, other.Name) {
		t.Error("another organization's project does not read as a missing one")
	}
}

func TestProjectDeploy(t *testing.T) {
	e := newEnv(t, Config{})
	ctx := context.Background()
	other := projOtherProject(e)
	m := projAs(e, "member@acme.test", memberPW)
	path := "/dashboard/projects/" + e.project.ID
	if s := m.do("POST", path+"/deploy", url.Values{}); s != http.StatusForbidden {
		t.Errorf("deploy without the CSRF token: %d, want 403", s)
	}
	if s := projPost(m, path, "/dashboard/projects/"+other.ID+"/deploy", nil); s != http.StatusNotFound {
		t.Errorf("deploy another organization's project: %d, want 404", s)
	}
	if us, _ := e.st.ListUpdates(ctx, other.ID, store.Page{}); len(us) != 0 || e.jobs.n.Load() != 0 {
		t.Fatalf("refused deploys queued updates: %d, jobs %d", len(us), e.jobs.n.Load())
	}
	if s := projPost(m, path, path+"/deploy", nil); s != http.StatusSeeOther {
		t.Fatalf("member deploys: %d\n%s", s, m.body)
	}
	us, _ := e.st.ListUpdates(ctx, e.project.ID, store.Page{})
	if len(us) != 1 || us[0].Source != "dashboard" || us[0].Status != lectern.UpdateQueued || e.jobs.n.Load() != 1 {
		t.Fatalf("after Deploy now: %+v, jobs %d", us, e.jobs.n.Load())
	}
	if loc := m.last.Header.Get("Location"); loc != path+"/updates/"+us[0].ID {
		t.Errorf("Deploy now went to %q, want the update's page", loc)
	}
}

func TestProjectEdit(t *testing.T) {
	e := newEnv(t, Config{})
	ctx := context.Background()
	other := projOtherProject(e)
	if err := e.st.SetProjectRepo(ctx, e.project.ID, e.project.RepoURL, "v1.0badc0de.sealed"); err != nil {
		t.Fatal(err)
	}
	b := projAs(e, "owner@acme.test", ownerPW)
	path := "/dashboard/projects/" + e.project.ID
	edit := path + "/edit"
	projGet(b, edit, 200)
	if !b.has(`value="Acme docs"`) || !b.has(docsDomain+"</textarea>") || !b.has(`value="cloud" checked`) || !b.has("drops the credentials") {
		t.Fatalf("the edit form does not show the settings, or hide what changing the repository drops:\n%s", b.body)
	}
	form := func(name, repo, branch, domains string) url.Values {
		return url.Values{"name": {name}, "repoUrl": {repo}, "branch": {branch}, "docsRoot": {"/"}, "domains": {domains}, "deploymentType": {"cloud"}}
	}
	if s := projPost(b, edit, edit, form("Acme docs", e.project.RepoURL, "-bad", docsDomain)); s != http.StatusBadRequest || !b.has(`id="branch-err"`) || !b.has(`value="-bad"`) {
		t.Errorf("bad branch: %d, want 400 with the error and the input", s)
	}
	if s := projPost(b, edit, edit, form("Acme docs", e.project.RepoURL, "main", other.Domains[0])); s != http.StatusConflict || !b.has(`id="domains-err"`) {
		t.Errorf("another project's domain: %d, want 409 beside domains", s)
	}
	if p, _ := e.st.GetProject(ctx, e.project.ID); p.Branch != "main" || p.Domains[0] != docsDomain {
		t.Fatalf("refused edits changed the project: %+v", p)
	}
	if s := projPost(b, edit, edit, form("Acme docs", e.project.RepoURL, "main", docsDomain)); s != http.StatusSeeOther || !strings.HasSuffix(b.last.Header.Get("Location"), "done=unchanged") {
		t.Errorf("an edit that changes nothing: %d to %q", s, b.last.Header.Get("Location"))
	}
	if p, _ := e.st.GetProject(ctx, e.project.ID); p.RepoCredentials == "" {
		t.Fatal("an edit that kept the repository dropped its credentials")
	}

	// Members may not; a POST without the token, or of another
	// organization's project, changes nothing.
	m := projAs(e, "member@acme.test", memberPW)
	projGet(m, edit, http.StatusForbidden)
	if s := projPost(m, path, edit, form("Mine", e.project.RepoURL, "main", docsDomain)); s != http.StatusForbidden {
		t.Errorf("member edits: %d, want 403", s)
	}
	if s := b.do("POST", edit, form("No token", e.project.RepoURL, "main", docsDomain)); s != http.StatusForbidden {
		t.Errorf("edit without the CSRF token: %d, want 403", s)
	}
	projGet(b, "/dashboard/projects/"+other.ID+"/edit", http.StatusNotFound)
	if s := projPost(b, edit, "/dashboard/projects/"+other.ID+"/edit", form("Taken", other.RepoURL, "main", other.Domains[0])); s != http.StatusNotFound {
		t.Errorf("edit another organization's project: %d, want 404", s)
	}
	if o, _ := e.st.GetProject(ctx, other.ID); o.Name != "Other docs" {
		t.Error("another organization's project was changed")
	}
	if p, _ := e.st.GetProject(ctx, e.project.ID); p.Name != "Acme docs" {
		t.Error("a refused edit renamed the project")
	}

	if s := projPost(b, edit, edit, form("Acme handbook", "https://github.com/acme/handbook.git", "docs", docsDomain+"\nwww.acme.test")); s != http.StatusSeeOther {
		t.Fatalf("edit: %d\n%s", s, b.body)
	}
	p, _ := e.st.GetProject(ctx, e.project.ID)
	if p.Name != "Acme handbook" || p.RepoURL != "https://github.com/acme/handbook.git" || p.Branch != "docs" || len(p.Domains) != 2 || p.RepoCredentials != "" {
		t.Errorf("after the edit: %+v (credentials %q), want the new settings and no credentials", p, p.RepoCredentials)
	}
	projGet(b, b.last.Header.Get("Location"), 200)
	if !b.has("Settings saved") {
		t.Error("no notice after saving")
	}

	// A repository the operator set (SSH) survives an edit of the name,
	// which the API's checks of a new repository would refuse.
	if err := e.st.SetProjectRepo(ctx, e.project.ID, "git@git.internal:acme/docs.git", ""); err != nil {
		t.Fatal(err)
	}
	projGet(b, edit, 200)
	if s := projPost(b, edit, edit, form("Renamed", "git@git.internal:acme/docs.git", "docs", docsDomain+"\nwww.acme.test")); s != http.StatusSeeOther {
		t.Errorf("rename a project with an SSH repository: %d\n%s", s, b.body)
	}
	if p, _ := e.st.GetProject(ctx, e.project.ID); p.Name != "Renamed" || p.RepoURL != "git@git.internal:acme/docs.git" {
		t.Errorf("after renaming: %+v", p)
	}
}

func TestProjectDelete(t *testing.T) {
	e := newEnv(t, Config{})
	ctx := context.Background()
	other := projOtherProject(e)
	b := projAs(e, "owner@acme.test", ownerPW)
	del := "/dashboard/projects/" + e.project.ID + "/delete"
	projGet(b, del, 200)
	if !b.has("stop being served") || !b.has(`<label for="confirm">`) || !b.has(docsDomain) {
		t.Errorf("the confirmation does not say what deleting does:\n%s", b.body)
	}
	if s := projPost(b, del, del, url.Values{"confirm": {"acme docs"}}); s != http.StatusBadRequest || !b.has(`value="acme docs"`) || !b.has("nothing was deleted") {
		t.Errorf("the wrong name: %d, want 400 with the form again", s)
	}
	m := projAs(e, "member@acme.test", memberPW)
	projGet(m, del, http.StatusForbidden)
	if s := projPost(m, "/dashboard/projects", del, url.Values{"confirm": {e.project.Name}}); s != http.StatusForbidden {
		t.Errorf("member deletes: %d, want 403", s)
	}
	if s := b.do("POST", del, url.Values{"confirm": {e.project.Name}}); s != http.StatusForbidden {
		t.Errorf("delete without the CSRF token: %d, want 403", s)
	}
	projGet(b, "/dashboard/projects/"+other.ID+"/delete", http.StatusNotFound)
	if s := projPost(b, del, "/dashboard/projects/"+other.ID+"/delete", url.Values{"confirm": {other.Name}}); s != http.StatusNotFound {
		t.Errorf("delete another organization's project: %d, want 404", s)
	}
	for _, id := range []string{e.project.ID, other.ID} {
		if _, err := e.st.GetProject(ctx, id); err != nil {
			t.Fatalf("a refused delete deleted %s: %v", id, err)
		}
	}
	if s := projPost(b, del, del, url.Values{"confirm": {e.project.Name}}); s != http.StatusSeeOther || b.last.Header.Get("Location") != "/dashboard/projects?done=deleted" {
		t.Fatalf("delete: %d to %q", s, b.last.Header.Get("Location"))
	}
	if _, err := e.st.GetProject(ctx, e.project.ID); lectern.ErrorCode(err) != lectern.ENOTFOUND {
		t.Errorf("the project is still there: %v", err)
	}
	projGet(b, "/dashboard/projects?done=deleted", 200)
	if !b.has("Project deleted") || b.has(e.project.ID) {
		t.Error("the list after deleting: want the notice and not the project")
	}
	projGet(b, "/dashboard/projects/"+e.project.ID, http.StatusNotFound)
}
