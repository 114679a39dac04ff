package dashboard

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"lectern.dev/lectern"
)

func TestSignIn(t *testing.T) {
	e := newEnv(t, Config{})
	b := e.browser("192.0.2.1")
	if s := b.do("GET", "/dashboard/keys", nil); s != http.StatusSeeOther || b.last.Header.Get("Location") != "/dashboard/signin" {
		t.Fatalf("keys before sign-in: %d to %q, want 303 to the sign-in page", s, b.last.Header.Get("Location"))
	}
	b.do("GET", "/dashboard/signin", nil)
	for _, want := range []string{`<label for="email">Email</label>`, `<label for="password">Password</label>`, `>Sign in</button>`} {
		if !strings.Contains(b.body, want) {
			t.Errorf("the sign-in page lacks %s", want)
		}
	}
	for _, tc := range []struct{ email, pw string }{{"owner@acme.test", "wrong password 1"}, {"nobody@acme.test", ownerPW}, {"not an email", ownerPW}} {
		if s := b.signIn(tc.email, tc.pw); s != http.StatusUnauthorized || !b.has(vagueSignInError) {
			t.Errorf("sign in as %s with a wrong password or email: %d, want 401 with the vague error", tc.email, s)
		}
	}
	if s := b.signIn("OWNER@acme.test", ownerPW); s != http.StatusSeeOther || b.last.Header.Get("Location") != "/dashboard/projects" {
		t.Fatalf("sign in: %d to %q, want 303 to keys\n%s", s, b.last.Header.Get("Location"), b.body)
	}
	c := b.cookies[sessionCookie]
	if c == nil || !strings.HasPrefix(c.Value, lectern.SessionTokenPrefix) {
		t.Fatalf("no session cookie after sign-in: %v", b.last.Header["Set-Cookie"])
	}
	raw := strings.Join(b.last.Header["Set-Cookie"], "\n")
	if !strings.Contains(raw, "HttpOnly") || !strings.Contains(raw, "SameSite=Lax") || !strings.Contains(raw, "Path=/") || strings.Contains(raw, "Domain=") {
		t.Errorf("session cookie %q: want HttpOnly, SameSite=Lax, Path=/ and no Domain", raw)
	}
	if s := b.do("GET", "/dashboard/keys", nil); s != 200 || !b.has("owner@acme.test") || !b.has(e.project.ID) || !b.has("Create key") {
		t.Fatalf("keys page after sign-in: %d\n%s", s, b.body)
	}
	if b.has(e.otherKey.Hint) {
		t.Error("the keys page shows another organization's key")
	}
	u, _ := e.st.GetUser(context.Background(), e.owner.ID)
	if u.FailedSignIns != 0 {
		t.Errorf("failed sign-ins after a success: %d, want 0", u.FailedSignIns)
	}

	// Sign out: the session ends, and the old cookie no longer works.
	b.do("GET", "/dashboard/keys", nil)
	if s := b.do("POST", "/dashboard/signout", url.Values{"csrf": {b.csrf()}}); s != http.StatusSeeOther {
		t.Fatalf("sign out: %d", s)
	}
	if _, ok := b.cookies[sessionCookie]; ok {
		t.Error("the session cookie is still set after sign-out")
	}
	b.cookies[sessionCookie] = c
	if s := b.do("GET", "/dashboard/keys", nil); s != http.StatusSeeOther {
		t.Errorf("the signed-out session's cookie still opens keys: %d", s)
	}
}

func TestLockOut(t *testing.T) {
	e := newEnv(t, Config{})
	for i := range lectern.SignInLockAfter {
		// A fresh address each time: the rate limit is not what stops it.
		b := e.browser(fmt.Sprintf("192.0.2.%d", 10+i))
		if s := b.signIn("owner@acme.test", "wrong password 1"); s != http.StatusUnauthorized {
			t.Fatalf("failure %d: %d", i, s)
		}
	}
	b := e.browser("198.51.100.7")
	if s := b.signIn("owner@acme.test", ownerPW); s != http.StatusUnauthorized || !b.has(vagueSignInError) {
		t.Fatalf("the right password while locked out: %d, want 401 with the vague error", s)
	}
	e.advance(lectern.SignInLockFor + time.Second)
	if s := b.signIn("owner@acme.test", ownerPW); s != http.StatusSeeOther {
		t.Fatalf("the right password after the lock-out: %d, want 303", s)
	}
}

func TestSignInRateLimit(t *testing.T) {
	e := newEnv(t, Config{})
	b := e.browser("192.0.2.9")
	for i := range SignInsPerMinute {
		if s := b.signIn("nobody@acme.test", "whatever password"); s != http.StatusUnauthorized {
			t.Fatalf("attempt %d: %d, want 401", i, s)
		}
	}
	if s := b.signIn("owner@acme.test", ownerPW); s != http.StatusTooManyRequests || !b.has(tooManyAttempts) {
		t.Fatalf("attempt beyond the limit: %d, want 429", s)
	}
	if s := e.browser("192.0.2.10").signIn("owner@acme.test", ownerPW); s != http.StatusSeeOther {
		t.Errorf("another address is limited too: %d", s)
	}
}

func TestCSRF(t *testing.T) {
	e := newEnv(t, Config{})
	b := e.browser("192.0.2.1")
	b.do("GET", "/dashboard/signin", nil)
	for name, tok := range map[string]string{"none": "", "wrong": strings.Repeat("a", len(b.csrf()))} {
		if s := b.do("POST", "/dashboard/signin", url.Values{"csrf": {tok}, "email": {"owner@acme.test"}, "password": {ownerPW}}); s != http.StatusForbidden {
			t.Errorf("sign-in with %s CSRF token: %d, want 403", name, s)
		}
	}
	if b.signIn("owner@acme.test", ownerPW) != http.StatusSeeOther {
		t.Fatal("sign in failed")
	}
	b.do("GET", "/dashboard/keys", nil)
	tok := b.csrf()
	for name, v := range map[string]url.Values{"none": {"name": {"ci"}}, "wrong": {"name": {"ci"}, "csrf": {tok + "x"}}} {
		if s := b.do("POST", "/dashboard/keys", v); s != http.StatusForbidden {
			t.Errorf("create key with %s CSRF token: %d, want 403", name, s)
		}
	}
	if s := b.do("POST", "/dashboard/signout", url.Values{}); s != http.StatusForbidden {
		t.Errorf("sign out without CSRF token: %d, want 403", s)
	}
	keys, _ := e.st.ListAPIKeys(context.Background(), e.acme.ID)
	if len(keys) != 0 {
		t.Errorf("requests without CSRF token created %d keys", len(keys))
	}
}

func TestSessionExpiry(t *testing.T) {
	e := newEnv(t, Config{})
	b := e.browser("192.0.2.1")
	if b.signIn("member@acme.test", memberPW) != http.StatusSeeOther {
		t.Fatal("sign in failed")
	}
	// Sliding: each use moves the expiry on.
	for range 3 {
		e.advance(lectern.SessionIdleTTL - time.Hour)
		if s := b.do("GET", "/dashboard/keys", nil); s != 200 {
			t.Fatalf("keys within the idle time: %d", s)
		}
	}
	e.advance(lectern.SessionIdleTTL + time.Second)
	if s := b.do("GET", "/dashboard/keys", nil); s != http.StatusSeeOther || b.last.Header.Get("Location") != "/dashboard/signin" {
		t.Fatalf("keys after the idle time: %d, want 303 to sign in", s)
	}
}

func TestKeys(t *testing.T) {
	e := newEnv(t, Config{})
	ctx := context.Background()
	b := e.browser("192.0.2.1")
	b.signIn("owner@acme.test", ownerPW)
	b.do("GET", "/dashboard/keys", nil)
	tok := b.csrf()
	if s := b.do("POST", "/dashboard/keys", url.Values{"csrf": {tok}, "name": {" "}}); s != http.StatusBadRequest {
		t.Errorf("key without a name: %d, want 400", s)
	}
	if s := b.do("POST", "/dashboard/keys", url.Values{"csrf": {tok}, "name": {"GitHub Actions"}}); s != 200 {
		t.Fatalf("create key: %d\n%s", s, b.body)
	}
	secret := regexp.MustCompile(`value="(lct_[0-9A-Za-z]+)"`).FindStringSubmatch(b.body)
	if secret == nil || lectern.CheckAPIKey(secret[1]) != nil || !b.has("export LECTERN_API_KEY="+secret[1]) {
		t.Fatalf("the created page does not show a valid key and its CI line:\n%s", b.body)
	}
	e.secrets = append(e.secrets, secret[1])
	k, err := e.st.GetAPIKeyByHash(ctx, lectern.HashAPIKey(secret[1]))
	if err != nil || k.OrgID != e.acme.ID || k.Name != "GitHub Actions" {
		t.Fatalf("stored key %+v, %v", k, err)
	}
	b.do("GET", "/dashboard/keys", nil)
	if !b.has("GitHub Actions") || !b.has(k.Hint) || strings.Contains(b.body, secret[1]) {
		t.Errorf("the keys page should list the key by its hint and never show it again")
	}

	// Revoking asks first; another organization's key is not found.
	if s := b.do("GET", "/dashboard/keys/"+k.ID+"/revoke", nil); s != 200 || !b.has("Revoke key") {
		t.Fatalf("revoke confirmation: %d", s)
	}
	if k2, _ := e.st.GetAPIKeyByHash(ctx, k.Hash); k2.RevokedAt != nil {
		t.Fatal("the confirmation page revoked the key")
	}
	for _, m := range []string{"GET", "POST"} {
		if s := b.do(m, "/dashboard/keys/"+e.otherKey.ID+"/revoke", url.Values{"csrf": {tok}}); s != http.StatusNotFound {
			t.Errorf("%s revoke another organization's key: %d, want 404", m, s)
		}
	}
	if o, _ := e.st.GetAPIKeyByHash(ctx, e.otherKey.Hash); o.RevokedAt != nil {
		t.Error("another organization's key was revoked")
	}
	if s := b.do("POST", "/dashboard/keys/"+k.ID+"/revoke", url.Values{"csrf": {tok}}); s != 200 || !b.has("revoked") {
		t.Fatalf("revoke: %d", s)
	}
	if k2, _ := e.st.GetAPIKeyByHash(ctx, k.Hash); k2.RevokedAt == nil {
		t.Error("the key is not revoked")
	}
}

func TestMemberCannotManageKeys(t *testing.T) {
	e := newEnv(t, Config{})
	ctx := context.Background()
	secret := lectern.NewAPIKey()
	k := &lectern.APIKey{OrgID: e.acme.ID, Name: "ci", Hint: lectern.APIKeyHint(secret), Hash: lectern.HashAPIKey(secret)}
	e.st.CreateAPIKey(ctx, k)
	b := e.browser("192.0.2.1")
	b.signIn("member@acme.test", memberPW)
	if s := b.do("GET", "/dashboard/keys", nil); s != 200 || !b.has(k.Hint) || b.has("Create key") || b.has("/revoke") {
		t.Fatalf("member's keys page: %d; want the list without create or revoke", s)
	}
	tok := b.csrf()
	for _, tc := range []struct{ method, path string }{{"POST", "/dashboard/keys"}, {"GET", "/dashboard/keys/" + k.ID + "/revoke"}, {"POST", "/dashboard/keys/" + k.ID + "/revoke"}} {
		if s := b.do(tc.method, tc.path, url.Values{"csrf": {tok}, "name": {"mine"}}); s != http.StatusForbidden {
			t.Errorf("member %s %s: %d, want 403", tc.method, tc.path, s)
		}
	}
	keys, _ := e.st.ListAPIKeys(ctx, e.acme.ID)
	if len(keys) != 1 || keys[0].RevokedAt != nil {
		t.Errorf("a member changed the keys: %+v", keys)
	}
}

func TestWelcome(t *testing.T) {
	e := newEnv(t, Config{})
	ctx := context.Background()
	u := e.user("new@acme.test", lectern.RoleOwner, "")
	tok := lectern.NewSignInToken()
	e.secrets = append(e.secrets, tok, "a brand new password")
	if err := e.st.CreateSignInToken(ctx, &lectern.SignInToken{Hash: lectern.HashToken(tok), UserID: u.ID, ExpiresAt: time.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	old := e.browser("192.0.2.2") // a session that setting the password ends
	if err := old.e.h.startSession(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil), u); err != nil {
		t.Fatal(err)
	}
	b := e.browser("192.0.2.1")
	if s := b.do("GET", "/dashboard/welcome?token="+tok, nil); s != 200 || !b.has("Set your password") {
		t.Fatalf("welcome page: %d", s)
	}
	post := func(pw, confirm string) int {
		return b.do("POST", "/dashboard/welcome", url.Values{"csrf": {b.csrf()}, "token": {tok}, "password": {pw}, "confirm": {confirm}})
	}
	if s := post("a brand new password", "another password!"); s != http.StatusBadRequest {
		t.Errorf("passwords that differ: %d, want 400", s)
	}
	if s := post("short", "short"); s != http.StatusBadRequest || !b.has("The password has 5 characters") {
		t.Errorf("a short password: %d, want 400 saying why", s)
	}
	if s := post("a brand new password", "a brand new password"); s != http.StatusSeeOther {
		t.Fatalf("set password: %d\n%s", s, b.body)
	}
	if n, _ := e.st.DeleteUserSessions(ctx, u.ID); n != 1 {
		t.Errorf("sessions after setting the password: %d, want the new one only", n)
	}
	b.do("GET", "/dashboard/welcome?token="+tok, nil)
	if s := post("a brand new password", "a brand new password"); s != http.StatusNotFound {
		t.Errorf("the link used twice: %d, want 404", s)
	}
	if s := e.browser("192.0.2.3").signIn("new@acme.test", "a brand new password"); s != http.StatusSeeOther {
		t.Errorf("sign in with the new password: %d", s)
	}
}

func TestHostsAndHeaders(t *testing.T) {
	e := newEnv(t, Config{})
	site := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("the docs site's own page")) })
	m := e.h.Mount(site)
	get := func(host, path string) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		m.ServeHTTP(w, httptest.NewRequest("GET", "http://"+host+path, nil))
		return w
	}
	if w := get(docsDomain, "/dashboard/signin"); w.Body.String() != "the docs site's own page" || w.Header().Get("Set-Cookie") != "" {
		t.Errorf("a docs domain's /dashboard/signin: %d %q, want the site's page and no cookie", w.Code, w.Body.String())
	}
	if w := get("127.0.0.1:8080", "/v1/projects"); w.Body.String() != "the docs site's own page" {
		t.Error("Mount took a path outside /dashboard")
	}
	w := httptest.NewRecorder()
	e.h.ServeHTTP(w, httptest.NewRequest("GET", "http://"+docsDomain+"/dashboard/signin", nil))
	if w.Code != 404 {
		t.Errorf("the dashboard itself on a docs domain: %d, want 404", w.Code)
	}
	for _, host := range []string{serverHost, "127.0.0.1:8080", "localhost"} {
		w := get(host, "/dashboard/signin")
		if w.Code != 200 || !strings.Contains(w.Body.String(), "Sign in") {
			t.Errorf("sign-in page on %s: %d", host, w.Code)
		}
		h := w.Header()
		if csp := h.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") || strings.Contains(csp, "unsafe-inline") {
			t.Errorf("CSP %q", csp)
		}
		if h.Get("X-Frame-Options") != "DENY" || h.Get("Referrer-Policy") != "no-referrer" || h.Get("Cache-Control") != "no-store" {
			t.Errorf("headers %v", h)
		}
	}
	if w := get(serverHost, "/dashboard"); w.Code != http.StatusSeeOther {
		t.Errorf("/dashboard: %d, want a redirect", w.Code)
	}
	for _, a := range []string{"dashboard.css", "dashboard.js"} {
		if w := get(serverHost, "/dashboard/assets/"+a); w.Code != 200 || w.Body.Len() < 100 {
			t.Errorf("asset %s: %d", a, w.Code)
		}
	}
	if strings.Contains(get(serverHost, "/dashboard/signin").Body.String(), "<script>") {
		t.Error("a page has an inline script")
	}
}

func TestSecureCookies(t *testing.T) {
	e := newEnv(t, Config{Secure: true})
	b := e.browser("192.0.2.1")
	if b.signIn("owner@acme.test", ownerPW) != http.StatusSeeOther {
		t.Fatalf("sign in: %d\n%s", b.last.StatusCode, b.body)
	}
	c := b.cookies[securePrefix+sessionCookie]
	if c == nil || !c.Secure || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Path != "/" || c.Domain != "" {
		t.Fatalf("session cookie over https: %+v, want __Host-, Secure, HttpOnly, Lax, Path=/, no Domain", c)
	}
	if b.cookies[sessionCookie] != nil {
		t.Error("a cookie without the __Host- prefix over https")
	}
	if s := b.do("GET", "/dashboard/keys", nil); s != 200 {
		t.Errorf("keys with the __Host- cookie: %d", s)
	}
}

// TestLargeFormRefused: a form body over maxForm is not read: the right
// password in it does not sign in.
func TestLargeFormRefused(t *testing.T) {
	e := newEnv(t, Config{})
	e.user("big@acme.test", lectern.RoleOwner, "correct horse battery staple")
	b := e.browser("203.0.113.50")
	if s := b.do("GET", "/dashboard/signin", nil); s != 200 {
		t.Fatal(s)
	}
	s := b.do("POST", "/dashboard/signin", url.Values{"csrf": {b.csrf()}, "email": {"big@acme.test"},
		"password": {"correct horse battery staple"}, "pad": {strings.Repeat("x", maxForm)}})
	if s == 200 || s/100 == 3 {
		t.Errorf("a %d KiB form was read: %d", maxForm>>10, s)
	}
	if s := b.signIn("big@acme.test", "correct horse battery staple"); s/100 != 3 {
		t.Errorf("the same sign-in, small: %d", s)
	}
}
