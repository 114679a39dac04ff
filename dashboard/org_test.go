package dashboard

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/password"
)

// orgSignedIn returns a browser from addr signed in as email.
func orgSignedIn(e *env, addr, email, pw string) *browser {
	e.t.Helper()
	b := e.browser(addr)
	if s := b.signIn(email, pw); s != http.StatusSeeOther {
		e.t.Fatalf("sign in as %s: %d\n%s", email, s, b.body)
	}
	return b
}

// orgOtherUser stores a user of the other organization, without a
// password unless pw is given.
func orgOtherUser(e *env, email string, role lectern.Role, pw string) *lectern.User {
	e.t.Helper()
	u := &lectern.User{OrgID: e.other.ID, Email: email, Role: role}
	if pw != "" {
		hash, err := password.Hash(pw)
		if err != nil {
			e.t.Fatal(err)
		}
		u.PasswordHash, u.PasswordSetAt = hash, time.Now()
	}
	if err := e.st.CreateUser(context.Background(), u); err != nil {
		e.t.Fatal(err)
	}
	return u
}

// orgUsers returns the emails of org's users.
func orgUsers(e *env, org string) []string {
	e.t.Helper()
	users, err := e.st.ListUsers(context.Background(), org)
	if err != nil {
		e.t.Fatal(err)
	}
	var emails []string
	for _, u := range users {
		emails = append(emails, u.Email)
	}
	return emails
}

var (
	orgCellRe   = regexp.MustCompile(`<td class="org-([a-z]+)">([a-z]+)</td>`)
	orgFootRe   = regexp.MustCompile(`(?s)<tfoot>(.*)</tfoot>`)
	orgFootTdRe = regexp.MustCompile(`(?s)<td>(.*?)</td>`)
)

// TestOrgPage: the plan, the spec's feature table as lectern decides it,
// each project under its deployment type, and the organization's members
// only, with controls for owners alone.
func TestOrgPage(t *testing.T) {
	e := newEnv(t, Config{})
	ctx := context.Background()
	gapped := &lectern.Project{OrgID: e.acme.ID, Name: "Vault manual", RepoURL: "https://git.example/vault.git", Branch: "main",
		DocsRoot: "/", Domains: []string{"vault.acme.test"}, DeploymentType: lectern.DeploymentAirGapped}
	if err := e.st.CreateProject(ctx, gapped); err != nil {
		t.Fatal(err)
	}
	pending := e.user("pending@acme.test", lectern.RoleMember, "")
	locked := e.user("locked@acme.test", lectern.RoleMember, "locked user password")
	if _, err := e.st.RecordSignIn(ctx, locked.ID, false, e.now, 1, time.Hour); err != nil {
		t.Fatal(err)
	}
	orgOtherUser(e, "stranger@other.test", lectern.RoleOwner, "")

	b := orgSignedIn(e, "192.0.2.1", "owner@acme.test", ownerPW)
	if s := b.do("GET", "/dashboard/org", nil); s != 200 {
		t.Fatalf("org page: %d\n%s", s, b.body)
	}
	for _, want := range []string{"Acme", e.acme.ID, "free", "needs the enterprise plan", "Documentation search", "AI assistant",
		"Web analytics", "Static export bundle", "Cloud", "Client-hosted", "Air-gapped", "owner@acme.test", "member@acme.test",
		pending.Email, "invitation pending", locked.Email, `action="/dashboard/org/members"`, "/dashboard/org/members/" + e.member.ID + "/remove",
		"/dashboard/org/members/" + pending.ID + "/invitation", `<label for="invite-email">Email</label>`, `<label for="invite-role">Role</label>`} {
		if !b.has(want) {
			t.Errorf("the owner's org page lacks %q", want)
		}
	}
	if b.has("stranger@other.test") {
		t.Error("the org page lists another organization's user")
	}
	if b.has("/dashboard/org/members/" + e.owner.ID + "/remove") {
		t.Error("the only owner is offered to remove themselves")
	}
	lu, _ := e.st.GetUser(ctx, locked.ID)
	if until := lu.LockedUntil.UTC().Format("2006-01-02 15:04 UTC"); lu.LockedUntil.IsZero() || !b.has(until) {
		t.Errorf("the locked user's lock-out end %s is not shown", until)
	}

	// The table is lectern's, cell by cell, in the spec's order.
	cells := orgCellRe.FindAllStringSubmatch(b.body, -1)
	var want []string
	for _, f := range lectern.Features {
		for _, dt := range []lectern.DeploymentType{lectern.DeploymentCloud, lectern.DeploymentClientHosted, lectern.DeploymentAirGapped} {
			a, _ := lectern.FeatureAvailability(dt, f)
			want = append(want, string(a))
		}
	}
	if len(cells) != len(want) {
		t.Fatalf("the feature table has %d cells, want %d", len(cells), len(want))
	}
	for i, c := range cells {
		if c[1] != want[i] || c[2] != want[i] {
			t.Errorf("feature table cell %d: %q, want %q", i, c[2], want[i])
		}
	}
	foot := orgFootRe.FindStringSubmatch(b.body)
	if foot == nil {
		t.Fatal("the feature table has no row of projects")
	}
	cols := orgFootTdRe.FindAllStringSubmatch(foot[1], -1)
	if len(cols) != 3 || !strings.Contains(cols[0][1], "Acme docs") || !strings.Contains(cols[1][1], "none") ||
		!strings.Contains(cols[2][1], "Vault manual") || strings.Contains(cols[0][1], "Vault manual") {
		t.Errorf("projects by deployment type: %q, want Acme docs under cloud, none client-hosted, Vault manual air-gapped", cols)
	}

	// The enterprise plan includes static export.
	if err := e.st.SetOrgPlan(ctx, e.acme.ID, lectern.PlanEnterprise); err != nil {
		t.Fatal(err)
	}
	b.do("GET", "/dashboard/org", nil)
	if !b.has("enterprise") || !b.has("Included in your plan") || b.has("needs the enterprise plan") {
		t.Error("the enterprise plan's page does not say static export is included")
	}

	// A member sees the same organization and members, and no controls.
	m := orgSignedIn(e, "192.0.2.2", "member@acme.test", memberPW)
	if s := m.do("GET", "/dashboard/org", nil); s != 200 || !m.has("owner@acme.test") || !m.has("Vault manual") || !m.has(e.acme.ID) {
		t.Fatalf("member's org page: %d\n%s", s, m.body)
	}
	for _, no := range []string{`action="/dashboard/org/members"`, "/remove", "/invitation", `/role"`, "Invite someone"} {
		if m.has(no) {
			t.Errorf("a member's org page offers %q", no)
		}
	}
}
