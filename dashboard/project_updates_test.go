package dashboard

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

// projQueue queues an update of p created at `at`.
func projQueue(e *env, p *lectern.Project, at time.Time) *lectern.Update {
	e.t.Helper()
	u := &lectern.Update{ProjectID: p.ID, Source: "api", CreatedAt: at}
	if err := e.st.CreateUpdate(context.Background(), u); err != nil {
		e.t.Fatal(err)
	}
	return u
}

func TestProjectUpdatesHistory(t *testing.T) {
	e := newEnv(t, Config{})
	other := projOtherProject(e)
	t0 := time.Now().Add(-time.Hour)
	var ids []string
	for i := range updatesPerPage + 2 {
		ids = append(ids, projQueue(e, e.project, t0.Add(time.Duration(i)*time.Second)).ID)
	}
	m := projAs(e, "member@acme.test", memberPW)
	path := "/dashboard/projects/" + e.project.ID + "/updates"
	projGet(m, path, 200)
	newest, oldest := strings.Index(m.body, ids[len(ids)-1]), strings.Index(m.body, ids[2])
	if newest < 0 || oldest < 0 || newest > oldest || m.has(path+"/"+ids[1]+`"`) {
		t.Fatalf("first page: want updates %s..%s, newest first, without %s", ids[len(ids)-1], ids[2], ids[1])
	}
	if !m.has("superseded") || !m.has("queued") || !m.has("Deploy now") {
		t.Error("the history lacks the statuses or Deploy now")
	}
	older := regexp.MustCompile(`href="` + regexp.QuoteMeta(path) + `\?after=([^"]+)"`).FindStringSubmatch(m.body)
	if older == nil {
		t.Fatal("no Older link")
	}
	projGet(m, path+"?after="+older[1], 200)
	row := func(id string) bool { return m.has(path + "/" + id + `"`) }
	if !row(ids[0]) || !row(ids[1]) || row(ids[2]) || m.has("?after=") {
		t.Errorf("second page: want the two oldest updates and no Older link")
	}
	projGet(m, path+"?after=djEuMTIzLg", http.StatusBadRequest)
	projGet(m, "/dashboard/projects/"+other.ID+"/updates", http.StatusNotFound)
}

// TestProjectUpdateLive: an update's page reloads its status part while
// the update runs; once it ended, the part comes without data-live (the
// polling stops) and with the build log.
func TestProjectUpdateLive(t *testing.T) {
	e := newEnv(t, Config{})
	m := projAs(e, "member@acme.test", memberPW)
	base := "/dashboard/projects/" + e.project.ID
	if s := projPost(m, base, base+"/deploy", nil); s != http.StatusSeeOther {
		t.Fatalf("deploy: %d", s)
	}
	page := m.last.Header.Get("Location")
	uid := page[strings.LastIndex(page, "/")+1:]
	live := `data-live="` + page + `/live"`
	projGet(m, page, 200)
	if !m.has(live) || !m.has(`aria-live="polite"`) || !m.has("Cancel update") || !m.has("queued") {
		t.Fatalf("a queued update's page: want the live part and Cancel:\n%s", m.body)
	}
	// Where it waits: no worker runs here, so it is next.
	if !m.has(`<dd id="update-queue">1st of your organization&#39;s jobs to start; the workers are busy.</dd>`) {
		t.Fatalf("a queued update's page: want where it waits:\n%s", m.body)
	}
	projGet(m, page+"/live", 200)
	if !strings.HasPrefix(strings.TrimSpace(m.body), `<section id="update-live"`) || !m.has(live) || m.has("<html") {
		t.Fatalf("the live part of a queued update:\n%s", m.body)
	}

	projFinish(e, uid, lectern.UpdateFailure, time.Now(), "fetching branch main", "docs.json: unexpected end of JSON input")
	projGet(m, page+"/live", 200)
	if m.has("data-live") || !m.has("failure") || !m.has("docs.json: unexpected end of JSON input") || m.has("Cancel update") || m.has("update-queue") {
		t.Errorf("the live part of an ended update: want no data-live, the status and the log, no Cancel:\n%s", m.body)
	}
	projGet(m, page, 200)
	if m.has("data-live") || !strings.Contains(m.body, `<pre class="project-log"`) || !m.has(strings.Repeat("ab", 6)) {
		t.Errorf("the page of an ended update: want no data-live and the log in a pre")
	}

	// Another project's update (same organization or another) is not
	// this project's: 404, on the page, its live part and cancel.
	second := &lectern.Project{OrgID: e.acme.ID, Name: "Second", RepoURL: "https://git.example/2.git", Branch: "main", DocsRoot: "/",
		Domains: []string{"second.acme.test"}, DeploymentType: lectern.DeploymentCloud}
	if err := e.st.CreateProject(context.Background(), second); err != nil {
		t.Fatal(err)
	}
	mine := projQueue(e, second, time.Now())
	foreign := projQueue(e, projOtherProject(e), time.Now())
	for _, p := range []string{base + "/updates/" + mine.ID, base + "/updates/" + foreign.ID, "/dashboard/projects/" + foreign.ProjectID + "/updates/" + foreign.ID,
		base + "/updates/upd_nope"} {
		projGet(m, p, http.StatusNotFound)
		projGet(m, p+"/live", http.StatusNotFound)
		if !m.has(projUpdateNotFound) && !m.has(projNotFound) {
			t.Errorf("%s: not the not-found message", p)
		}
		if s := projPost(m, base, p+"/cancel", nil); s != http.StatusNotFound {
			t.Errorf("cancel %s: %d, want 404", p, s)
		}
	}
	for _, u := range []*lectern.Update{mine, foreign} {
		if got, _ := e.st.GetUpdate(context.Background(), u.ID); got.Status != lectern.UpdateQueued {
			t.Errorf("a refused cancel changed update %s: %s", u.ID, got.Status)
		}
	}
}

func TestProjectCancel(t *testing.T) {
	e := newEnv(t, Config{})
	ctx := context.Background()
	u := projQueue(e, e.project, time.Now())
	m := projAs(e, "member@acme.test", memberPW)
	page := "/dashboard/projects/" + e.project.ID + "/updates/" + u.ID
	if s := m.do("POST", page+"/cancel", url.Values{}); s != http.StatusForbidden {
		t.Errorf("cancel without the CSRF token: %d, want 403", s)
	}
	if got, _ := e.st.GetUpdate(ctx, u.ID); got.Status != lectern.UpdateQueued {
		t.Fatal("a cancel without the token canceled")
	}
	if s := projPost(m, page, page+"/cancel", nil); s != http.StatusSeeOther || m.last.Header.Get("Location") != page+"?done=canceled" {
		t.Fatalf("member cancels: %d to %q", s, m.last.Header.Get("Location"))
	}
	if got, _ := e.st.GetUpdate(ctx, u.ID); got.Status != lectern.UpdateCanceled || got.Summary != store.CanceledByRequest {
		t.Errorf("after cancel: %s %q", got.Status, got.Summary)
	}
	projGet(m, page+"?done=canceled", 200)
	if !m.has("Update canceled") || m.has("data-live") {
		t.Error("the canceled update's page: want the notice and no polling")
	}
	if s := m.do("POST", page+"/cancel", url.Values{"csrf": {m.csrf()}}); s != http.StatusConflict || !m.has("nothing to cancel") {
		t.Errorf("cancel an ended update: %d, want 409 saying there is nothing to cancel", s)
	}
}

func TestProjectDeployments(t *testing.T) {
	e := newEnv(t, Config{})
	ctx := context.Background()
	t0 := time.Now().Add(-time.Hour)
	old := projPublish(e, e.project, t0)
	cur := projPublish(e, e.project, t0.Add(time.Minute))
	other := projOtherProject(e)
	foreign := projPublish(e, other, t0)
	m := projAs(e, "member@acme.test", memberPW)
	base := "/dashboard/projects/" + e.project.ID
	projGet(m, base+"/deployments", 200)
	promote := base + "/deployments/" + old.ID + "/promote"
	if i, j := strings.Index(m.body, cur.ID), strings.Index(m.body, old.ID); i < 0 || j < 0 || i > j {
		t.Fatal("the deployments are not listed newest first")
	}
	if !m.has(`<span class="badge on">live</span>`) || !m.has(promote) || m.has(base+"/deployments/"+cur.ID+"/promote") || m.has(foreign.ID) {
		t.Errorf("deployments: want the live badge, Promote on the older one only, and not the other organization's:\n%s", m.body)
	}
	projGet(m, promote, 200)
	if !m.has("Promote deployment") || !m.has(old.ID) {
		t.Fatal("no promote confirmation")
	}
	if p, _ := e.st.GetProject(ctx, e.project.ID); p.LiveDeploymentID != cur.ID {
		t.Fatal("the confirmation page promoted")
	}
	projGet(m, base+"/deployments/"+cur.ID+"/promote", 200)
	if !m.has("already the live one") || m.has(`action="`+base+"/deployments/"+cur.ID+`/promote"`) {
		t.Error("the live deployment's promote page offers to promote it")
	}

	// Another organization's or another project's deployment is 404.
	second := &lectern.Project{OrgID: e.acme.ID, Name: "Second", RepoURL: "https://git.example/2.git", Branch: "main", DocsRoot: "/",
		Domains: []string{"second.acme.test"}, DeploymentType: lectern.DeploymentCloud}
	if err := e.st.CreateProject(ctx, second); err != nil {
		t.Fatal(err)
	}
	sib := projPublish(e, second, t0)
	for _, p := range []string{base + "/deployments/" + foreign.ID + "/promote", base + "/deployments/" + sib.ID + "/promote",
		"/dashboard/projects/" + other.ID + "/deployments/" + foreign.ID + "/promote", base + "/deployments/dep_nope/promote"} {
		projGet(m, p, http.StatusNotFound)
		if s := projPost(m, base, p, nil); s != http.StatusNotFound {
			t.Errorf("promote %s: %d, want 404", p, s)
		}
	}
	projGet(m, "/dashboard/projects/"+other.ID+"/deployments", http.StatusNotFound)
	if s := m.do("POST", promote, url.Values{}); s != http.StatusForbidden {
		t.Errorf("promote without the CSRF token: %d, want 403", s)
	}
	if p, _ := e.st.GetProject(ctx, e.project.ID); p.LiveDeploymentID != cur.ID {
		t.Fatal("a refused promote changed the live deployment")
	}

	if s := projPost(m, promote, promote, nil); s != http.StatusSeeOther || m.last.Header.Get("Location") != base+"?done=promoted" {
		t.Fatalf("member promotes: %d to %q\n%s", s, m.last.Header.Get("Location"), m.body)
	}
	if p, _ := e.st.GetProject(ctx, e.project.ID); p.LiveDeploymentID != old.ID {
		t.Errorf("live deployment after promote: %s, want %s", p.LiveDeploymentID, old.ID)
	}
	projGet(m, base+"?done=promoted", 200)
	if !m.has("live again") {
		t.Error("no notice after promoting")
	}
	us, _ := e.st.ListUpdates(ctx, e.project.ID, store.Page{})
	if !slices.ContainsFunc(us, func(u *lectern.Update) bool { return u.Source == "promote" && u.DeploymentID == old.ID }) {
		t.Error("the promotion is not recorded as an update")
	}
}
