package dashboard

import (
	"context"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"sort"
	"strings"
	"testing"

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

// secOther is a record of each kind in the other organization, whose ids
// fill the routes' wildcards.
type secOther struct {
	project, update, deployment, export, webhook, key, user string
}

func secOtherRecords(t *testing.T, e *env, key *secrets.Key) secOther {
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
	return secOther{project: op.ID, update: u.ID, deployment: d.ID, export: x.ID, webhook: hook.ID, key: e.otherKey.ID, user: ou.ID}
}

func ptr[T any](v T) *T { return &v }

// fill puts the other organization's ids in a route's path: {id} by the
// kind of record its section names.
func (o secOther) fill(path string) string {
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
	if strings.HasPrefix(path, Prefix+"analytics") || strings.HasPrefix(path, Prefix+"exports/new") {
		path += "?project=" + o.project + "&domain=docs.other.test"
	}
	return path
}

// TestEveryRouteGuarded walks every route the dashboard registers (so a
// new page cannot be forgotten): signed out, each answers the sign-in
// page (GET) or 403 (POST); signed in, a POST without the CSRF token is
// refused with 403, and every route naming a record answers 404 for the
// other organization's, changing nothing, exactly as for a missing one.
func TestEveryRouteGuarded(t *testing.T) {
	key, err := secrets.Parse(secrets.Generate())
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, Config{OIDC: &OIDCConfig{Issuer: "https://sso.example", ClientID: "c", ClientSecret: "s"}})
	e.h.cfg.Actions.Secrets = key
	other := secOtherRecords(t, e, key)

	var routes routeList
	e.h.register(&routes)
	sort.Strings(routes)
	if len(routes) < 50 {
		t.Fatalf("only %d routes registered:\n%s", len(routes), strings.Join(routes, "\n"))
	}
	anon := e.browser("192.0.2.10")
	owner := e.browser("192.0.2.11")
	if s := owner.signIn("owner@acme.test", ownerPW); s != http.StatusSeeOther {
		t.Fatalf("sign in: %d", s)
	}
	owner.do("GET", "/dashboard/org", nil)
	csrf := owner.csrf()
	before := secSnapshot(t, e, other)
	for _, r := range routes {
		if publicRoutes[r] {
			continue
		}
		method, path, ok := strings.Cut(r, " ")
		if !ok {
			t.Errorf("route %q has no method", r)
			continue
		}
		target := other.fill(path)
		switch s := anon.do(method, target, url.Values{}); {
		case method == "GET" && (s != http.StatusSeeOther || anon.last.Header.Get("Location") != Prefix+"signin"):
			t.Errorf("signed out, GET %s: %d to %q, want the sign-in page", path, s, anon.last.Header.Get("Location"))
		case method == "POST" && s != http.StatusForbidden:
			t.Errorf("signed out, POST %s: %d, want 403", path, s)
		}
		if method == "POST" {
			if s := owner.do("POST", target, url.Values{"name": {"x"}}); s != http.StatusForbidden {
				t.Errorf("POST %s without the CSRF token: %d, want 403", path, s)
			}
		}
		if !strings.Contains(path, "{") {
			continue
		}
		var form url.Values
		if method == "POST" {
			form = url.Values{"csrf": {csrf}, "confirm": {"Other docs"}, "role": {"member"}, "token": {"t0ken"}}
		}
		if s := owner.do(method, target, form); s != http.StatusNotFound {
			t.Errorf("%s %s with the other organization's ids: %d, want 404\n%.300s", method, target, s, owner.body)
		}
		if strings.Contains(owner.body, "Other docs") || strings.Contains(owner.body, "owner@other.test") {
			t.Errorf("%s %s shows the other organization's record", method, target)
		}
	}
	if after := secSnapshot(t, e, other); after != before {
		t.Errorf("the other organization's records changed:\nbefore %s\nafter  %s", before, after)
	}
}

// secSnapshot is what the routes could change of the other
// organization's records.
func secSnapshot(t *testing.T, e *env, o secOther) string {
	t.Helper()
	ctx := context.Background()
	var b strings.Builder
	p, err := e.st.GetProject(ctx, o.project)
	if err != nil {
		t.Fatal(err)
	}
	b.WriteString(p.Name + " " + p.LiveDeploymentID + " " + p.RepoCredentials + " " + p.DeployKey + " ")
	for _, get := range []func() (string, error){
		func() (string, error) { u, err := e.st.GetUpdate(ctx, o.update); return string(u.Status), err },
		func() (string, error) { x, err := e.st.GetExport(ctx, o.export); return string(x.Status), err },
		func() (string, error) { w, err := e.st.GetWebhook(ctx, o.webhook); return w.URL, err },
		func() (string, error) { u, err := e.st.GetUser(ctx, o.user); return string(u.Role), err },
	} {
		v, err := get()
		if err != nil {
			t.Fatalf("the other organization's record: %v", err)
		}
		b.WriteString(v + " ")
	}
	keys, _ := e.st.ListAPIKeys(ctx, e.other.ID)
	for _, k := range keys {
		b.WriteString(k.ID + " " + k.Name + " " + when(k.RevokedAt))
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
