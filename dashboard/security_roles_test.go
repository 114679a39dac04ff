package dashboard

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/actions"
	"lectern.dev/lectern/secrets"
	"lectern.dev/lectern/store"
)

// secRole is who may use a route, as the role table of docs/dashboard.md
// says: "owner" (a member gets 403 and nothing changes) or "any".
type secRole struct {
	role string
	// form is what the route's form sends besides its CSRF token: what
	// an owner would send, so that a member's 403 is the role's and not
	// the form's, and what makes a member's action succeed.
	form url.Values
}

const secNewPW = "member's new password 2"

// secRoles is the role of every route that needs a session. The pages
// are everyone's; the actions are the owners' except deploying, canceling
// an update, promoting, exports, and the user's own account and session.
var secRoles = map[string]secRole{
	"POST " + Prefix + "signout": {role: "any"},

	"GET " + Prefix + "keys":              {role: "any"},
	"POST " + Prefix + "keys":             {role: "owner", form: url.Values{"name": {"member's key"}}},
	"GET " + Prefix + "keys/{id}/revoke":  {role: "owner"},
	"POST " + Prefix + "keys/{id}/revoke": {role: "owner"},

	"GET " + Prefix + "projects":     {role: "any"},
	"GET " + Prefix + "projects/new": {role: "owner"},
	"POST " + Prefix + "projects/new": {role: "owner", form: url.Values{"name": {"Member docs"}, "repoUrl": {"https://git.example/member.git"},
		"branch": {"main"}, "docsRoot": {"/"}, "domains": {"member.acme.test"}, "deploymentType": {"cloud"}}},
	"GET " + Prefix + "projects/{id}":         {role: "any"},
	"POST " + Prefix + "projects/{id}/deploy": {role: "any"},
	"GET " + Prefix + "projects/{id}/edit":    {role: "owner"},
	"POST " + Prefix + "projects/{id}/edit": {role: "owner", form: url.Values{"name": {"Renamed docs"}, "repoUrl": {"https://git.example/acme.git"},
		"branch": {"main"}, "docsRoot": {"/"}, "domains": {docsDomain}, "deploymentType": {"cloud"}}},
	"GET " + Prefix + "projects/{id}/delete":                     {role: "owner"},
	"POST " + Prefix + "projects/{id}/delete":                    {role: "owner", form: url.Values{"confirm": {"Acme docs"}}},
	"GET " + Prefix + "projects/{id}/updates":                    {role: "any"},
	"GET " + Prefix + "projects/{id}/updates/{uid}":              {role: "any"},
	"GET " + Prefix + "projects/{id}/updates/{uid}/live":         {role: "any"},
	"POST " + Prefix + "projects/{id}/updates/{uid}/cancel":      {role: "any"},
	"GET " + Prefix + "projects/{id}/deployments":                {role: "any"},
	"GET " + Prefix + "projects/{id}/deployments/{did}/promote":  {role: "any"},
	"POST " + Prefix + "projects/{id}/deployments/{did}/promote": {role: "any"},
	"GET " + Prefix + "projects/{id}/access":                     {role: "any"},
	"POST " + Prefix + "projects/{id}/access/token":              {role: "owner", form: url.Values{"user": {""}, "token": {"ghp_memberToken1234"}}},
	"GET " + Prefix + "projects/{id}/access/token/remove":        {role: "owner"},
	"POST " + Prefix + "projects/{id}/access/token/remove":       {role: "owner"},
	"POST " + Prefix + "projects/{id}/access/deploy-key":         {role: "owner"},
	"GET " + Prefix + "projects/{id}/access/deploy-key/rotate":   {role: "owner"},
	"POST " + Prefix + "projects/{id}/access/deploy-key/rotate":  {role: "owner"},

	"GET " + Prefix + "webhooks":                 {role: "any"},
	"POST " + Prefix + "webhooks":                {role: "owner", form: url.Values{"url": {"https://ci.acme.example/member"}, "event": {"export.failed"}}},
	"GET " + Prefix + "webhooks/{id}":            {role: "any"},
	"GET " + Prefix + "webhooks/{id}/deliveries": {role: "any"},
	"GET " + Prefix + "webhooks/{id}/delete":     {role: "owner"},
	"POST " + Prefix + "webhooks/{id}/delete":    {role: "owner"},

	"GET " + Prefix + "exports":              {role: "any"},
	"GET " + Prefix + "exports/new":          {role: "any"},
	"POST " + Prefix + "exports":             {role: "any", form: url.Values{"domain": {docsDomain}, "basePath": {""}}},
	"GET " + Prefix + "exports/{id}":         {role: "any"},
	"GET " + Prefix + "exports/{id}/live":    {role: "any"},
	"GET " + Prefix + "exports/{id}/cancel":  {role: "any"},
	"POST " + Prefix + "exports/{id}/cancel": {role: "any"},
	"POST " + Prefix + "exports/{id}/bundle": {role: "any"},

	"GET " + Prefix + "analytics":        {role: "any"},
	"GET " + Prefix + "analytics/{file}": {role: "any"},

	"GET " + Prefix + "org":                             {role: "any"},
	"POST " + Prefix + "org/members":                    {role: "owner", form: url.Values{"email": {"invited@acme.test"}, "role": {"member"}}},
	"POST " + Prefix + "org/members/{id}/invitation":    {role: "owner"},
	"POST " + Prefix + "org/members/{id}/role":          {role: "owner", form: url.Values{"role": {"owner"}}},
	"GET " + Prefix + "org/members/{id}/remove":         {role: "owner"},
	"POST " + Prefix + "org/members/{id}/remove":        {role: "owner"},
	"GET " + Prefix + "org/account":                     {role: "any"},
	"POST " + Prefix + "org/account/password":           {role: "any", form: url.Values{"current": {memberPW}, "password": {secNewPW}, "confirm": {secNewPW}}},
	"POST " + Prefix + "org/account/signout-everywhere": {role: "any"},
}

// secOwnRecords makes a record of each kind in acme, for the member to
// act on: an update queued after two deployments, a webhook, a key,
// another (invited) member, and on the enterprise plan a queued export of
// a second project's domain (so that the member may start one of the
// first's) and a completed one, which it returns too.
func secOwnRecords(t *testing.T, e *env, key *secrets.Key) (own secRecords, completed string) {
	t.Helper()
	ctx := context.Background()
	if err := e.st.SetOrgPlan(ctx, e.acme.ID, lectern.PlanEnterprise); err != nil {
		t.Fatal(err)
	}
	older := projPublish(e, e.project, e.now.Add(-time.Hour))
	projPublish(e, e.project, e.now)
	u := projQueue(e, e.project, e.now)
	x := &lectern.ExportJob{OrgID: e.acme.ID, ProjectID: e.project.ID, Domain: docsDomain}
	if err := e.st.CreateExport(ctx, x, store.ExportQuota{}); err != nil {
		t.Fatal(err)
	}
	_, lease, err := e.st.ClaimJob(ctx, store.ClaimParams{Kinds: []string{store.KindExport}, Owner: "test", Now: time.Now().Add(time.Second), LeaseFor: time.Hour})
	if err != nil || lease.JobID != x.ID {
		t.Fatalf("claim export %s: %+v, %v", x.ID, lease, err)
	}
	bundle := &lectern.Bundle{Key: "exports/" + x.ID + "/bundle.tar.gz", FileName: "bundle.tar.gz", SizeBytes: 1000,
		SHA256: strings.Repeat("ab", 32), Version: "v1"}
	if err := e.st.FinishExport(ctx, lease, store.ExportResult{Status: lectern.ExportCompleted, PageCount: 3, Bundle: bundle, At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	api := &lectern.Project{OrgID: e.acme.ID, Name: "Acme API", RepoURL: "https://git.example/api.git", Branch: "main", DocsRoot: "/",
		Domains: []string{"api.acme.test"}, DeploymentType: lectern.DeploymentCloud}
	if err := e.st.CreateProject(ctx, api); err != nil {
		t.Fatal(err)
	}
	running := &lectern.ExportJob{OrgID: e.acme.ID, ProjectID: api.ID, Domain: api.Domains[0]}
	if err := e.st.CreateExport(ctx, running, store.ExportQuota{}); err != nil {
		t.Fatal(err)
	}
	ops := *e.h.cfg.Actions
	ops.Secrets = key
	hook, secret, err := ops.CreateWebhook(ctx, e.acme.ID, actions.WebhookRequest{URL: ptr("https://ci.acme.example/hook"), Events: &[]string{"update.failed"}})
	if err != nil {
		t.Fatal(err)
	}
	e.secrets = append(e.secrets, secret)
	k := &lectern.APIKey{OrgID: e.acme.ID, Name: "acme CI", Hint: "lk_acme", Hash: lectern.HashAPIKey(lectern.NewAPIKey())}
	if err := e.st.CreateAPIKey(ctx, k); err != nil {
		t.Fatal(err)
	}
	invited := e.user("invited-before@acme.test", lectern.RoleMember, "")
	return secRecords{project: e.project.ID, update: u.ID, deployment: older.ID, export: running.ID, webhook: hook.ID, key: k.ID,
		user: invited.ID, domain: docsDomain}, x.ID
}

// TestMemberRoleWalk walks every route signed in as a member, with the
// organization's own records: the owners' actions and their confirmation
// pages answer 403 and change nothing an owner manages; everything else
// works for a member (a page 200, an action 303 or 200).
func TestMemberRoleWalk(t *testing.T) {
	key, err := secrets.Parse(secrets.Generate())
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, Config{OIDC: &OIDCConfig{Issuer: "https://sso.example", ClientID: "c", ClientSecret: "s"}})
	e.h.cfg.Actions.Secrets = key
	e.secrets = append(e.secrets, secNewPW, "ghp_memberToken1234")
	own, completed := secOwnRecords(t, e, key)
	routes := secRoutes(t, e)
	for r := range secRoles {
		if !slices.Contains(routes, r) {
			t.Errorf("secRoles names %q, which is not registered", r)
		}
	}
	// Records an action needs in a given state when its turn comes: an
	// update still queued (deploying supersedes the earlier one), an
	// export with a bundle.
	fresh := map[string]func() secRecords{
		"POST " + Prefix + "projects/{id}/updates/{uid}/cancel": func() secRecords {
			r := own
			r.update = projQueue(e, e.project, e.now).ID
			return r
		},
		"POST " + Prefix + "exports/{id}/bundle": func() secRecords { r := own; r.export = completed; return r },
	}

	m := e.browser("192.0.2.20")
	pw := memberPW
	signIn := func() {
		t.Helper()
		if s := m.signIn(e.member.Email, pw); s != http.StatusSeeOther {
			t.Fatalf("sign in as the member: %d\n%s", s, m.body)
		}
	}
	signIn()
	owner := e.browser("192.0.2.21")
	if s := owner.signIn(e.owner.Email, ownerPW); s != http.StatusSeeOther {
		t.Fatalf("sign in as the owner: %d", s)
	}
	before := secManaged(t, e, e.acme.ID)
	for _, r := range routes {
		if publicRoutes[r] {
			continue
		}
		role, ok := secRoles[r]
		if !ok || (role.role != "owner" && role.role != "any") {
			t.Errorf("route %q has no role in secRoles: add it, \"owner\" or \"any\" as docs/dashboard.md says", r)
			continue
		}
		method, path, _ := strings.Cut(r, " ")
		ids := own
		if f := fresh[r]; f != nil {
			ids = f()
		}
		target := ids.target(path, secIDRoutes[r])
		var form url.Values
		if method == "POST" {
			m.do("GET", Prefix+"org/account", nil)
			form = url.Values{"csrf": {m.csrf()}}
			for k, v := range role.form {
				form[k] = v
			}
			form = ids.form(form, secIDRoutes[r])
		}
		s := m.do(method, target, form)
		switch {
		case role.role == "owner":
			if s != http.StatusForbidden || !m.has("Only the organization's owners") {
				t.Errorf("member, %s %s (owners only): %d, want 403 saying only owners may\n%.400s", method, target, s, m.body)
			}
			// The same confirmation page opens for an owner: the 403 is
			// the role's, not the ids'.
			if method == "GET" && owner.do("GET", target, nil) != http.StatusOK {
				t.Errorf("owner, GET %s: %d, want 200\n%.400s", target, owner.last.StatusCode, owner.body)
			}
		case method == "GET" && s != http.StatusOK:
			t.Errorf("member, GET %s: %d, want 200\n%.400s", target, s, m.body)
		case method == "POST" && s != http.StatusSeeOther && s != http.StatusOK:
			t.Errorf("member, POST %s: %d, want 303 or 200\n%.400s", target, s, m.body)
		}
		if after := secManaged(t, e, e.acme.ID); after != before {
			t.Errorf("member, %s %s changed what owners manage:\nbefore %s\nafter  %s", method, target, before, after)
			before = after
		}
		if r == "POST "+Prefix+"org/account/password" && s == http.StatusSeeOther {
			pw = secNewPW
		}
		if m.cookies[sessionCookie] == nil {
			signIn() // the route signed the member out, as it should
		}
	}
	if pw != secNewPW {
		t.Error("the walk did not change the member's password")
	}
}
