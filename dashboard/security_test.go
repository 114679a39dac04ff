package dashboard

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/actions"
	"lectern.dev/lectern/secrets"
	"lectern.dev/lectern/store"
)

// routeList records the patterns the dashboard registers.
type routeList []string

func (l *routeList) Handle(p string, _ http.Handler) { *l = append(*l, p) }
func (l *routeList) HandleFunc(p string, _ func(http.ResponseWriter, *http.Request)) {
	*l = append(*l, p)
}

// publicRoutes are the routes that need no session (and the catch-all).
var publicRoutes = map[string]bool{
	"GET " + Prefix + "assets/": true, "GET /dashboard": true, "GET " + Prefix + "{$}": true,
	"GET " + Prefix + "signin": true, "POST " + Prefix + "signin": true,
	"GET " + Prefix + "welcome": true, "POST " + Prefix + "welcome": true,
	"GET " + Prefix + "oidc/start": true, "GET " + Prefix + "oidc/callback": true, Prefix: true,
}

// secRecords are the ids of one record of each kind in an organization,
// and a domain of its project: they fill the routes' wildcards and the
// query and form fields that name a record.
type secRecords struct {
	project, update, deployment, export, webhook, key, user, domain string
}

// secMissing names records that exist nowhere.
func secMissing() secRecords {
	return secRecords{project: lectern.NewID(lectern.PrefixProject), update: lectern.NewID(lectern.PrefixUpdate),
		deployment: lectern.NewID(lectern.PrefixDeployment), export: lectern.NewID(lectern.PrefixExport),
		webhook: lectern.NewID(lectern.PrefixWebhook), key: lectern.NewID(lectern.PrefixKey), user: lectern.NewID(lectern.PrefixUser),
		domain: "docs.missing.test"}
}

// secOtherRecords makes a record of each kind in the other organization.
func secOtherRecords(t *testing.T, e *env, key *secrets.Key) secRecords {
	t.Helper()
	ctx := context.Background()
	op := projOtherProject(e)
	d := projPublish(e, op, e.now)
	u := projQueue(e, op, e.now)
	if err := e.st.SetOrgPlan(ctx, e.other.ID, lectern.PlanEnterprise); err != nil {
		t.Fatal(err)
	}
	x := &lectern.ExportJob{OrgID: e.other.ID, ProjectID: op.ID, Domain: op.Domains[0]}
	if err := e.st.CreateExport(ctx, x, store.ExportQuota{}); err != nil {
		t.Fatal(err)
	}
	ops := *e.h.cfg.Actions
	ops.Secrets = key
	hook, secret, err := ops.CreateWebhook(ctx, e.other.ID, actions.WebhookRequest{URL: ptr("https://ci.other.example/hook"), Events: &[]string{"export.failed"}})
	if err != nil {
		t.Fatal(err)
	}
	e.secrets = append(e.secrets, secret)
	ou := &lectern.User{OrgID: e.other.ID, Email: "owner@other.test", Role: lectern.RoleOwner}
	if err := e.st.CreateUser(ctx, ou); err != nil {
		t.Fatal(err)
	}
	return secRecords{project: op.ID, update: u.ID, deployment: d.ID, export: x.ID, webhook: hook.ID, key: e.otherKey.ID, user: ou.ID,
		domain: op.Domains[0]}
}

// secCursor is a list's ?after= cursor at the record id: microseconds and
// id, base64url-encoded.
func secCursor(id string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(time.Now().UnixMicro(), 10) + "." + id))
}

func ptr[T any](v T) *T { return &v }

// id is the value of a query or form field naming a record of kind. A
// list's cursor (?after=, as the lists' "Older" links write it) is placed
// at the record, now.
func (o secRecords) id(kind string) string {
	switch kind {
	case "project":
		return o.project
	case "domain":
		return o.domain
	case "project-cursor":
		return secCursor(o.project)
	case "export-cursor":
		return secCursor(o.export)
	}
	panic("secRecords: no record of kind " + kind)
}

// target is the URL of a route with o's records: the path's wildcards
// filled by the kind of record their section names, and the query fields
// of ids.
func (o secRecords) target(path string, ids secIDFields) string {
	kind := map[string]string{"projects": o.project, "exports": o.export, "webhooks": o.webhook, "keys": o.key, "members": o.user}
	parts := strings.Split(path, "/")
	for i, p := range parts {
		switch p {
		case "{id}":
			parts[i] = kind[parts[i-1]]
		case "{uid}":
			parts[i] = o.update
		case "{did}":
			parts[i] = o.deployment
		case "{file}":
			parts[i] = "views.csv"
		}
	}
	path = strings.Join(parts, "/")
	if len(ids.query) > 0 {
		q := url.Values{}
		for field, kind := range ids.query {
			q.Set(field, o.id(kind))
		}
		path += "?" + q.Encode()
	}
	return path
}

// anonymous is a page with o's ids and domain, which a page may repeat
// as the user sent them, replaced by placeholders.
func (o secRecords) anonymous(page string) string {
	return strings.NewReplacer(o.project, "PROJECT", o.update, "UPDATE", o.deployment, "DEPLOYMENT", o.export, "EXPORT",
		o.webhook, "WEBHOOK", o.key, "KEY", o.user, "USER", o.domain, "DOMAIN").Replace(page)
}

// form is base with the form fields of ids naming o's records.
func (o secRecords) form(base url.Values, ids secIDFields) url.Values {
	f := url.Values{}
	for k, v := range base {
		f[k] = v
	}
	for field, kind := range ids.form {
		f.Set(field, o.id(kind))
	}
	return f
}

// secIDFields are the query and form fields of a route that name a
// record (besides its path's wildcards), each with its kind of record.
type secIDFields struct {
	query, form map[string]string
	// asMissing: the other organization's record gets the answer a
	// missing one gets, showing nothing of it, rather than a 404: a
	// form's preselection or a list's cursor, which only ever select
	// among the organization's own records.
	asMissing bool
}

// secIDRoutes are the routes that name a record in their query or form.
// Routes with a {wildcard} are walked anyway; the others must be here or
// in secNoIDRoutes, so that whoever adds a route says which it is. The
// lists that page inside a record (a project's updates, a webhook's
// deliveries) are found by the path's id first, so their cursors are not
// listed.
var secIDRoutes = map[string]secIDFields{
	"GET " + Prefix + "analytics":        {query: map[string]string{"project": "project"}},
	"GET " + Prefix + "analytics/{file}": {query: map[string]string{"project": "project"}},
	"GET " + Prefix + "exports/new":      {query: map[string]string{"domain": "domain"}, asMissing: true},
	"POST " + Prefix + "exports":         {form: map[string]string{"domain": "domain"}},
	"GET " + Prefix + "projects":         {query: map[string]string{"after": "project-cursor"}, asMissing: true},
	"GET " + Prefix + "exports":          {query: map[string]string{"after": "export-cursor"}, asMissing: true},
}

// secNoIDRoutes name no record: they act on the signed-in user, their
// organization as a whole, or create a record. (A new project's domains
// and an invitation's email are unique on the whole server, so a taken
// one is refused whoever holds it, as in the API.)
var secNoIDRoutes = map[string]bool{
	"POST " + Prefix + "signout": true,
	"GET " + Prefix + "keys":     true, "POST " + Prefix + "keys": true,
	"GET " + Prefix + "projects/new": true, "POST " + Prefix + "projects/new": true,
	"GET " + Prefix + "webhooks": true, "POST " + Prefix + "webhooks": true,
	"GET " + Prefix + "org": true, "POST " + Prefix + "org/members": true,
	"GET " + Prefix + "org/account": true, "POST " + Prefix + "org/account/password": true,
	"POST " + Prefix + "org/account/signout-everywhere": true,
}

// secRoutes returns every route the dashboard registers, sorted.
func secRoutes(t *testing.T, e *env) []string {
	t.Helper()
	var routes routeList
	e.h.register(&routes)
	sort.Strings(routes)
	if len(routes) < 50 {
		t.Fatalf("only %d routes registered:\n%s", len(routes), strings.Join(routes, "\n"))
	}
	return routes
}

// TestEveryRouteGuarded walks every route the dashboard registers (so a
// new page cannot be forgotten): signed out, each answers the sign-in
// page (GET) or 403 (POST); signed in, a POST without the CSRF token is
// refused with 403, and every route naming a record, in its path, query
// or form, answers 404 for the other organization's, changing nothing,
// exactly as for a missing one (a form's preselection and a list's
// cursor: the page a missing one gets).
func TestEveryRouteGuarded(t *testing.T) {
	key, err := secrets.Parse(secrets.Generate())
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, Config{OIDC: &OIDCConfig{Issuer: "https://sso.example", ClientID: "c", ClientSecret: "s"}})
	e.h.cfg.Actions.Secrets = key
	other := secOtherRecords(t, e, key)
	// On the enterprise plan, an export of the other organization's
	// domain is refused for the domain, not for the plan.
	if err := e.st.SetOrgPlan(context.Background(), e.acme.ID, lectern.PlanEnterprise); err != nil {
		t.Fatal(err)
	}
	missing := secMissing()
	routes := secRoutes(t, e)
	for r := range secIDRoutes {
		if !slices.Contains(routes, r) {
			t.Errorf("secIDRoutes names %q, which is not registered", r)
		}
	}
	for r := range secNoIDRoutes {
		if !slices.Contains(routes, r) {
			t.Errorf("secNoIDRoutes names %q, which is not registered", r)
		}
	}
	anon := e.browser("192.0.2.10")
	owner := e.browser("192.0.2.11")
	if s := owner.signIn("owner@acme.test", ownerPW); s != http.StatusSeeOther {
		t.Fatalf("sign in: %d", s)
	}
	owner.do("GET", "/dashboard/org", nil)
	csrf := owner.csrf()
	before, exportsBefore, jobsBefore := secSnapshot(t, e, other), secExports(t, e), e.jobs.n.Load()
	for _, r := range routes {
		if publicRoutes[r] {
			continue
		}
		method, path, ok := strings.Cut(r, " ")
		if !ok {
			t.Errorf("route %q has no method", r)
			continue
		}
		ids, inTable := secIDRoutes[r]
		named := inTable || strings.Contains(path, "{")
		if !named && !secNoIDRoutes[r] {
			t.Errorf("route %q is not classified: add it to secIDRoutes with the query and form fields that name a record, "+
				"or to secNoIDRoutes if it names none", r)
		}
		target := other.target(path, ids)
		switch s := anon.do(method, target, url.Values{}); {
		case method == "GET" && (s != http.StatusSeeOther || anon.last.Header.Get("Location") != Prefix+"signin"):
			t.Errorf("signed out, GET %s: %d to %q, want the sign-in page", path, s, anon.last.Header.Get("Location"))
		case method == "POST" && s != http.StatusForbidden:
			t.Errorf("signed out, POST %s: %d, want 403", path, s)
		}
		if method == "POST" {
			if s := owner.do("POST", target, other.form(url.Values{"name": {"x"}}, ids)); s != http.StatusForbidden {
				t.Errorf("POST %s without the CSRF token: %d, want 403", path, s)
			}
		}
		if !named {
			continue
		}
		var base url.Values
		if method == "POST" {
			base = url.Values{"csrf": {csrf}, "confirm": {"Other docs"}, "role": {"member"}, "token": {"t0ken"}}
		}
		s := owner.do(method, target, other.form(base, ids))
		body := owner.body
		want := owner.do(method, missing.target(path, ids), missing.form(base, ids))
		if !ids.asMissing && want != http.StatusNotFound {
			t.Errorf("%s %s with missing ids: %d, want 404\n%.300s", method, path, want, owner.body)
		}
		if s != want {
			t.Errorf("%s %s with the other organization's ids: %d, want %d as for missing ones\n%.300s", method, target, s, want, body)
		} else if other.anonymous(body) != missing.anonymous(owner.body) {
			t.Errorf("%s %s: the page for the other organization's ids differs from the one for missing ids:\n%s\n---\n%s",
				method, path, other.anonymous(body), missing.anonymous(owner.body))
		}
		if strings.Contains(path, "{uid}") || strings.Contains(path, "{did}") {
			// The organization's own project with the other's update or
			// deployment: a child is found within its project only.
			mixed := other
			mixed.project = e.project.ID
			if s := owner.do(method, mixed.target(path, ids), mixed.form(base, ids)); s != http.StatusNotFound {
				t.Errorf("%s %s with the own project and the other organization's record: %d, want 404", method, path, s)
			}
		}
		for _, leak := range []string{"Other docs", "owner@other.test", "ci.other.example", e.otherKey.Hint} {
			if strings.Contains(body, leak) {
				t.Errorf("%s %s shows the other organization's %q", method, target, leak)
			}
		}
	}
	if after := secSnapshot(t, e, other); after != before {
		t.Errorf("the other organization's records changed:\nbefore %s\nafter  %s", before, after)
	}
	if after := secExports(t, e); after != exportsBefore {
		t.Errorf("exports were created or changed: before %s, after %s", exportsBefore, after)
	}
	if n := e.jobs.n.Load(); n != jobsBefore {
		t.Errorf("%d jobs queued by requests naming the other organization's records", n-jobsBefore)
	}
}

// secExports lists both organizations' exports with their status.
func secExports(t *testing.T, e *env) string {
	t.Helper()
	var b strings.Builder
	for _, org := range []string{e.acme.ID, e.other.ID} {
		list, err := e.st.ListExports(context.Background(), store.ExportFilter{OrgID: org}, store.Page{})
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(org + ":")
		for _, x := range list {
			b.WriteString(" " + x.ID + "=" + string(x.Status))
		}
		b.WriteString("; ")
	}
	return b.String()
}

// secSnapshot is what the routes could change of the other
// organization's records.
func secSnapshot(t *testing.T, e *env, o secRecords) string {
	t.Helper()
	ctx := context.Background()
	var b strings.Builder
	p, err := e.st.GetProject(ctx, o.project)
	if err != nil {
		t.Fatal(err)
	}
	b.WriteString(p.LiveDeploymentID + " " + secManaged(t, e, e.other.ID))
	for _, get := range []func() (string, error){
		func() (string, error) { u, err := e.st.GetUpdate(ctx, o.update); return string(u.Status), err },
		func() (string, error) { x, err := e.st.GetExport(ctx, o.export); return string(x.Status), err },
	} {
		v, err := get()
		if err != nil {
			t.Fatalf("the other organization's record: %v", err)
		}
		b.WriteString(v + " ")
	}
	return b.String()
}

// secManaged is what an organization's owners manage: its projects'
// settings and credentials, API keys, webhooks and members' roles.
func secManaged(t *testing.T, e *env, org string) string {
	t.Helper()
	ctx := context.Background()
	var b strings.Builder
	ps, err := e.st.ListProjects(ctx, org, store.Page{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		fmt.Fprintf(&b, "project %s %q %s %s %s %v %s creds=%q key=%q; ", p.ID, p.Name, p.RepoURL, p.Branch, p.DocsRoot, p.Domains,
			p.DeploymentType, p.RepoCredentials, p.DeployKey)
	}
	keys, err := e.st.ListAPIKeys(ctx, org)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		fmt.Fprintf(&b, "key %s %q %s; ", k.ID, k.Name, when(k.RevokedAt))
	}
	hooks, err := e.st.ListWebhooks(ctx, org, store.Page{})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hooks {
		fmt.Fprintf(&b, "webhook %s %s %v; ", h.ID, h.URL, h.Events)
	}
	users, err := e.st.ListUsers(ctx, org)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range users {
		fmt.Fprintf(&b, "user %s %s %s; ", u.ID, u.Email, u.Role)
	}
	return b.String()
}

func when(t any) string { return funcs["when"].(func(any) string)(t) }

// TestSessionCookieStaysOnServerHost signs in as a browser would, with a
// cookie jar, and checks the jar sends the session to the server's own
// host only: never to a docs domain, the server's subdomains or another
// port's scheme-less sibling.
func TestSessionCookieStaysOnServerHost(t *testing.T) {
	for _, secure := range []bool{false, true} {
		e := newEnv(t, Config{Secure: secure})
		b := e.browser("192.0.2.12")
		if s := b.signIn("owner@acme.test", ownerPW); s != http.StatusSeeOther {
			t.Fatalf("sign in: %d", s)
		}
		jar, _ := cookiejar.New(nil)
		scheme := "http"
		if secure {
			scheme = "https"
		}
		server := &url.URL{Scheme: scheme, Host: serverHost, Path: "/dashboard/signin"}
		jar.SetCookies(server, b.last.Cookies())
		if len(jar.Cookies(&url.URL{Scheme: scheme, Host: serverHost, Path: "/dashboard/projects"})) == 0 {
			t.Fatalf("secure=%v: the jar keeps no cookie for the server itself: %v", secure, b.last.Header["Set-Cookie"])
		}
		for _, host := range []string{docsDomain, "docs." + serverHost, "evil.example"} {
			if got := jar.Cookies(&url.URL{Scheme: "https", Host: host, Path: "/"}); len(got) != 0 {
				t.Errorf("secure=%v: a browser sends %v to %s", secure, got, host)
			}
		}
		if secure {
			if got := jar.Cookies(&url.URL{Scheme: "http", Host: serverHost, Path: "/"}); len(got) != 0 {
				t.Errorf("a Secure session cookie would go over plain http: %v", got)
			}
		}
	}
}
