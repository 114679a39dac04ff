package dashboard

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"lectern.dev/lectern"
)

const (
	oidcClientID     = "lectern-dashboard"
	oidcClientSecret = "oidc-client-secret-4f9a2c7e1b"
	oidcUserEmail    = "sso@acme.test"
)

// oidcTestProvider is an OpenID Connect provider: discovery, a JWKS of an
// RSA key made for the test, an authorize endpoint that redirects back
// with a code at once (the user is signed in there), and a token endpoint
// that checks the client, the code (once) and PKCE, and returns an ID
// token signed with the key. Tests change what the next token says.
type oidcTestProvider struct {
	t   *testing.T
	srv *httptest.Server
	key *rsa.PrivateKey

	mu       sync.Mutex
	down     bool // discovery answers 500
	codes    map[string]oidcTestGrant
	tokens   int            // token requests answered with a token
	claims   map[string]any // merged into the next ID tokens (nil values removed)
	signWith *rsa.PrivateKey
	issued   []string // codes and ID tokens handed out: never to be logged
	lastAuth url.Values
	clock    func() time.Time // the dashboard's, for the tokens' times
}

type oidcTestGrant struct{ nonce, challenge, redirect string }

func newOIDCTestProvider(t *testing.T) *oidcTestProvider {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	p := &oidcTestProvider{t: t, key: key, codes: map[string]oidcTestGrant{}, claims: map[string]any{}, clock: time.Now}
	m := http.NewServeMux()
	m.HandleFunc("GET /.well-known/openid-configuration", p.discovery)
	m.HandleFunc("GET /jwks", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &key.PublicKey, KeyID: "k1", Algorithm: "RS256", Use: "sig"}}})
	})
	m.HandleFunc("GET /authorize", p.authorize)
	m.HandleFunc("POST /token", p.token)
	p.srv = httptest.NewServer(m)
	t.Cleanup(p.srv.Close)
	return p
}

func (p *oidcTestProvider) discovery(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	down := p.down
	p.mu.Unlock()
	if down {
		http.Error(w, "maintenance", http.StatusInternalServerError)
		return
	}
	u := p.srv.URL
	json.NewEncoder(w).Encode(map[string]any{"issuer": u, "authorization_endpoint": u + "/authorize", "token_endpoint": u + "/token",
		"jwks_uri": u + "/jwks", "response_types_supported": []string{"code"}, "subject_types_supported": []string{"public"},
		"id_token_signing_alg_values_supported": []string{"RS256"},
		"token_endpoint_auth_methods_supported": []string{"client_secret_basic", "client_secret_post"}})
}

func (p *oidcTestProvider) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lastAuth = q
	if q.Get("client_id") != oidcClientID || q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" ||
		!strings.Contains(" "+q.Get("scope")+" ", " openid ") {
		http.Error(w, "bad authorization request", http.StatusBadRequest)
		return
	}
	code := lectern.NewCSRFToken()
	p.codes[code] = oidcTestGrant{nonce: q.Get("nonce"), challenge: q.Get("code_challenge"), redirect: q.Get("redirect_uri")}
	p.issued = append(p.issued, code)
	http.Redirect(w, r, q.Get("redirect_uri")+"?"+url.Values{"code": {code}, "state": {q.Get("state")}}.Encode(), http.StatusFound)
}

func (p *oidcTestProvider) token(w http.ResponseWriter, r *http.Request) {
	fail := func(code string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		json.NewEncoder(w).Encode(map[string]string{"error": code})
	}
	id, secret, ok := r.BasicAuth() // (the test's id and secret need no unescaping)
	if !ok {
		id, secret = r.PostFormValue("client_id"), r.PostFormValue("client_secret")
	}
	if id != oidcClientID || secret != oidcClientSecret {
		fail("invalid_client")
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	code := r.PostFormValue("code")
	g, found := p.codes[code]
	delete(p.codes, code) // a code works once
	sum := sha256.Sum256([]byte(r.PostFormValue("code_verifier")))
	switch {
	case r.PostFormValue("grant_type") != "authorization_code" || !found || r.PostFormValue("redirect_uri") != g.redirect:
		fail("invalid_grant")
		return
	case base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge:
		fail("invalid_grant") // PKCE: the verifier is not the challenge's
		return
	}
	now := p.clock()
	claims := map[string]any{"iss": p.srv.URL, "sub": "user-1", "aud": oidcClientID, "iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix(),
		"nonce": g.nonce, "email": oidcUserEmail, "email_verified": true}
	for k, v := range p.claims {
		if v == nil {
			delete(claims, k)
		} else {
			claims[k] = v
		}
	}
	key := p.key
	if p.signWith != nil {
		key = p.signWith
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: key}, (&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", "k1"))
	var jws *jose.JSONWebSignature
	if err == nil {
		payload, _ := json.Marshal(claims)
		jws, err = signer.Sign(payload)
	}
	if err != nil {
		p.t.Error(err)
		return
	}
	raw, _ := jws.CompactSerialize()
	p.tokens++
	p.issued = append(p.issued, raw)
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"access_token": "at-" + code, "token_type": "Bearer", "expires_in": 300, "id_token": raw})
}

// set changes what the next ID tokens say (a nil value leaves the claim out).
func (p *oidcTestProvider) set(claims map[string]any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for k, v := range claims {
		p.claims[k] = v
	}
}

func (p *oidcTestProvider) tokenCount() int { p.mu.Lock(); defer p.mu.Unlock(); return p.tokens }

// oidcEnv is a dashboard whose single sign-on is p, with the SSO user
// invited (no password) in acme. Every secret of the flow must stay out of
// the log.
func oidcEnv(t *testing.T, p *oidcTestProvider, cfg Config) *env {
	t.Helper()
	cfg.OIDC = &OIDCConfig{Issuer: p.srv.URL, ClientID: oidcClientID, ClientSecret: oidcClientSecret}
	e := newEnv(t, cfg)
	p.mu.Lock()
	p.clock = e.h.cfg.Now
	p.mu.Unlock()
	e.user(oidcUserEmail, lectern.RoleMember, "")
	e.secrets = append(e.secrets, oidcClientSecret)
	t.Cleanup(func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		out := e.logs.String()
		for _, s := range p.issued {
			if strings.Contains(out, s) {
				t.Errorf("the log holds a code or ID token of the provider (%.8s…)", s)
			}
		}
	})
	return e
}

// oidcStart opens the sign-on link and follows the provider's redirect;
// it returns the callback's path and query, as the browser would open it.
func (b *browser) oidcStart(t *testing.T) string {
	t.Helper()
	if s := b.do("GET", "/dashboard/oidc/start", nil); s != http.StatusSeeOther {
		t.Fatalf("oidc/start: %d\n%s", s, b.body)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Get(b.last.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("the provider's authorize endpoint: %d", resp.StatusCode)
	}
	cb, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || cb.Host != serverHost || cb.Path != "/dashboard/oidc/callback" {
		t.Fatalf("the provider redirects to %q, want the dashboard's callback", resp.Header.Get("Location"))
	}
	return cb.RequestURI()
}

// oidcSignIn runs the whole flow and returns the callback's status.
func (b *browser) oidcSignIn(t *testing.T) int {
	t.Helper()
	return b.do("GET", b.oidcStart(t), nil)
}

// oidcRefused checks that the last answer is status with msg on the
// sign-in page, and that it signed nobody in.
func (b *browser) oidcRefused(t *testing.T, what string, status int, msg string) {
	t.Helper()
	if b.last.StatusCode != status || !b.has(msg) || !strings.Contains(b.body, `role="alert"`) {
		t.Errorf("%s: %d, want %d with %q in an alert\n%s", what, b.last.StatusCode, status, msg, b.body)
	}
	if b.cookies[sessionCookie] != nil || b.cookies[securePrefix+sessionCookie] != nil {
		t.Errorf("%s: a session cookie was set", what)
	}
}

func TestOIDCSignIn(t *testing.T) {
	p := newOIDCTestProvider(t)
	e := oidcEnv(t, p, Config{})
	b := e.browser("192.0.2.1")
	if b.do("GET", "/dashboard/signin", nil); !strings.Contains(b.body, `href="/dashboard/oidc/start"`) || !b.has("Sign in with single sign-on") {
		t.Fatalf("the sign-in page has no single sign-on link:\n%s", b.body)
	}
	cb := b.oidcStart(t)
	raw := strings.Join(b.last.Header["Set-Cookie"], "\n")
	c := b.cookies[oidcCookie]
	if c == nil || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Domain != "" || c.MaxAge <= 0 || c.MaxAge > 600 {
		t.Fatalf("the flow's cookie %q: want HttpOnly, SameSite=Lax, host-only, short-lived", raw)
	}
	auth := p.lastAuth
	if auth.Get("redirect_uri") != "http://"+serverHost+"/dashboard/oidc/callback" || auth.Get("nonce") == "" || auth.Get("state") == "" ||
		auth.Get("code_challenge") == "" || !strings.Contains(auth.Get("scope"), "email") {
		t.Errorf("authorization request %v: want the callback URL, a nonce, a state, a PKCE challenge and the email scope", auth)
	}
	if verifier := c.Value[strings.LastIndex(c.Value, ".")+1:]; strings.Contains(auth.Encode(), verifier) || strings.Contains(auth.Encode(), oidcClientSecret) {
		t.Error("the authorization request carries the verifier or the client secret")
	}
	if s := b.do("GET", cb, nil); s != http.StatusSeeOther || b.last.Header.Get("Location") != Prefix {
		t.Fatalf("callback: %d to %q, want 303 to %s\n%s", s, b.last.Header.Get("Location"), Prefix, b.body)
	}
	if b.cookies[oidcCookie] != nil {
		t.Error("the flow's cookie outlived its callback")
	}
	if b.cookies[sessionCookie] == nil {
		t.Fatal("no session after single sign-on")
	}
	if s := b.do("GET", "/dashboard/keys", nil); s != 200 || !b.has(oidcUserEmail) {
		t.Fatalf("keys page after single sign-on: %d\n%s", s, b.body)
	}
	// Signed in as themselves: their organization's projects, no other's key.
	if !b.has(e.project.ID) || b.has(e.otherKey.Hint) {
		t.Error("the SSO user sees the wrong organization")
	}
	if !strings.Contains(e.logs.String(), "signed in with single sign-on") {
		t.Error("the sign-in is not logged")
	}
}

func TestOIDCOffByDefault(t *testing.T) {
	e := newEnv(t, Config{})
	b := e.browser("192.0.2.1")
	if b.do("GET", "/dashboard/signin", nil); b.has("single sign-on") || strings.Contains(b.body, "oidc/start") {
		t.Error("the sign-in page offers single sign-on that is not configured")
	}
	for _, path := range []string{"/dashboard/oidc/start", "/dashboard/oidc/callback?code=x&state=y"} {
		if s := b.do("GET", path, nil); s != http.StatusNotFound {
			t.Errorf("%s without OIDC: %d, want 404", path, s)
		}
	}
}

func TestOIDCSecureCookie(t *testing.T) {
	p := newOIDCTestProvider(t)
	e := oidcEnv(t, p, Config{Secure: true})
	b := e.browser("192.0.2.1")
	cb := b.oidcStart(t)
	if c := b.cookies[securePrefix+oidcCookie]; c == nil || !c.Secure || c.Path != "/" || c.Domain != "" || b.cookies[oidcCookie] != nil {
		t.Fatalf("flow cookie over https: %+v, want __Host-, Secure, Path=/", c)
	}
	if !strings.HasPrefix(p.lastAuth.Get("redirect_uri"), "https://") {
		t.Errorf("redirect URL %q over https", p.lastAuth.Get("redirect_uri"))
	}
	if s := b.do("GET", cb, nil); s != http.StatusSeeOther || b.cookies[securePrefix+sessionCookie] == nil {
		t.Fatalf("callback over https: %d\n%s", s, b.body)
	}
}

func TestOIDCUnknownEmail(t *testing.T) {
	p := newOIDCTestProvider(t)
	e := oidcEnv(t, p, Config{})
	p.set(map[string]any{"email": "Stranger@Acme.test"})
	b := e.browser("192.0.2.1")
	b.oidcSignIn(t)
	b.oidcRefused(t, "unknown email", http.StatusForbidden, fmt.Sprintf(oidcUnknown, "stranger@acme.test"))
	if !b.has("invitation") {
		t.Error("the page does not say to ask for an invitation")
	}
	if _, err := e.st.GetUserByEmail(context.Background(), "stranger@acme.test"); lectern.ErrorCode(err) != lectern.ENOTFOUND {
		t.Errorf("single sign-on created an account: %v", err)
	}
}

func TestOIDCEmailNotVerified(t *testing.T) {
	p := newOIDCTestProvider(t)
	e := oidcEnv(t, p, Config{})
	for name, claims := range map[string]map[string]any{
		"false":          {"email_verified": false},
		"string false":   {"email_verified": "false"},
		"missing flag":   {"email_verified": nil},
		"no email":       {"email_verified": true, "email": nil},
		"not an address": {"email_verified": true, "email": "sso"},
	} {
		p.set(map[string]any{"email": oidcUserEmail, "email_verified": true})
		p.set(claims)
		b := e.browser("192.0.2.2")
		b.oidcSignIn(t)
		b.oidcRefused(t, name, http.StatusForbidden, oidcNoEmail)
	}
	// As some providers send it: the string "true" counts.
	p.set(map[string]any{"email": oidcUserEmail, "email_verified": "true"})
	if s := e.browser("192.0.2.3").oidcSignIn(t); s != http.StatusSeeOther {
		t.Errorf(`email_verified "true": %d, want 303`, s)
	}
}

func TestOIDCWrongState(t *testing.T) {
	p := newOIDCTestProvider(t)
	e := oidcEnv(t, p, Config{})
	b := e.browser("192.0.2.1")
	cb, _ := url.Parse(b.oidcStart(t))
	q := cb.Query()
	q.Set("state", lectern.NewCSRFToken())
	b.do("GET", cb.Path+"?"+q.Encode(), nil)
	b.oidcRefused(t, "wrong state", http.StatusBadRequest, oidcExpired)

	// The right callback, in a browser that did not start it (no cookie):
	// an attacker's code does not sign the victim in.
	b2 := e.browser("192.0.2.1")
	cb2 := b2.oidcStart(t)
	victim := e.browser("192.0.2.9")
	victim.do("GET", cb2, nil)
	victim.oidcRefused(t, "callback in another browser", http.StatusBadRequest, oidcExpired)
	for _, path := range []string{"/dashboard/oidc/callback", "/dashboard/oidc/callback?state=&code="} {
		victim.do("GET", path, nil)
		victim.oidcRefused(t, path, http.StatusBadRequest, oidcExpired)
	}
	if n := p.tokenCount(); n != 0 {
		t.Errorf("%d codes exchanged for callbacks that failed the state check, want 0", n)
	}
}

// TestOIDCTokenRefused: ID tokens that are not for this sign-in, this
// client or this provider, or are expired, sign nobody in.
func TestOIDCTokenRefused(t *testing.T) {
	p := newOIDCTestProvider(t)
	e := oidcEnv(t, p, Config{})
	otherKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		claims map[string]any
		key    *rsa.PrivateKey
	}{
		"wrong nonce":    {claims: map[string]any{"nonce": lectern.NewCSRFToken()}},
		"no nonce":       {claims: map[string]any{"nonce": nil}},
		"other audience": {claims: map[string]any{"aud": "another-client"}},
		"other issuer":   {claims: map[string]any{"iss": "https://evil.example"}},
		"expired":        {claims: map[string]any{"exp": time.Now().Add(-time.Minute).Unix()}},
		"other key":      {key: otherKey},
	} {
		p.mu.Lock()
		p.claims, p.signWith = map[string]any{}, c.key
		p.mu.Unlock()
		p.set(c.claims)
		b := e.browser("192.0.2.4")
		b.oidcSignIn(t)
		b.oidcRefused(t, name, http.StatusUnauthorized, oidcUnverified)
	}
}

func TestOIDCReplay(t *testing.T) {
	p := newOIDCTestProvider(t)
	e := oidcEnv(t, p, Config{})
	b := e.browser("192.0.2.1")
	cb := b.oidcStart(t)
	flow := b.cookies[oidcCookie]
	if s := b.do("GET", cb, nil); s != http.StatusSeeOther {
		t.Fatalf("first callback: %d\n%s", s, b.body)
	}
	// The same browser again: its flow ended with the first callback.
	again := e.browser("192.0.2.1")
	again.cookies[oidcCookie] = flow
	again.do("GET", cb, nil)
	if again.last.StatusCode != http.StatusUnauthorized || !again.has(oidcExpired) || again.cookies[sessionCookie] != nil {
		t.Errorf("a replayed callback with its flow cookie: %d, want 401 (the code was used)\n%s", again.last.StatusCode, again.body)
	}
	delete(b.cookies, sessionCookie)
	b.do("GET", cb, nil)
	b.oidcRefused(t, "a replayed callback", http.StatusBadRequest, oidcExpired)
}

func TestOIDCProviderError(t *testing.T) {
	p := newOIDCTestProvider(t)
	e := oidcEnv(t, p, Config{})
	b := e.browser("192.0.2.1")
	cb, _ := url.Parse(b.oidcStart(t))
	b.do("GET", cb.Path+"?"+url.Values{"error": {"access_denied"}, "error_description": {"Call +1 555 0100 now"}, "state": {cb.Query().Get("state")}}.Encode(), nil)
	b.oidcRefused(t, "access_denied", http.StatusUnauthorized, oidcRefused+" (access_denied).")
	if b.has("555 0100") {
		t.Error("the page repeats the provider's error_description")
	}
	b.do("GET", "/dashboard/oidc/callback?error=%3Cb%3Ecall+us%3C%2Fb%3E", nil)
	b.oidcRefused(t, "odd error code", http.StatusUnauthorized, oidcRefused+".")
	if b.has("call us") {
		t.Error("the page repeats an error code that is not one")
	}
}

func TestOIDCProviderDown(t *testing.T) {
	gone := newOIDCTestProvider(t)
	gone.srv.Close()
	e := oidcEnv(t, gone, Config{})
	b := e.browser("192.0.2.1")
	if s := b.do("GET", "/dashboard/oidc/start", nil); s != http.StatusServiceUnavailable || !b.has(oidcUnreachable) || b.has("connection refused") {
		t.Errorf("provider unreachable: %d, want 503 with a clear message and no Go error\n%s", s, b.body)
	}
	if !strings.Contains(b.body, `id="password"`) {
		t.Error("the page does not offer the password form instead")
	}

	// A provider that fails discovery, then recovers: the next sign-in
	// discovers it again.
	p := newOIDCTestProvider(t)
	p.down = true
	e = oidcEnv(t, p, Config{})
	b = e.browser("192.0.2.2")
	if s := b.do("GET", "/dashboard/oidc/start", nil); s != http.StatusServiceUnavailable || !b.has(oidcUnreachable) || b.has("maintenance") {
		t.Errorf("discovery failing: %d, want 503 with a clear message\n%s", s, b.body)
	}
	p.mu.Lock()
	p.down = false
	p.mu.Unlock()
	if s := b.oidcSignIn(t); s != http.StatusSeeOther {
		t.Errorf("sign-in after the provider came back: %d\n%s", s, b.body)
	}

	// Down between the redirect and the callback: the code cannot be
	// exchanged.
	b = e.browser("192.0.2.3")
	cb := b.oidcStart(t)
	p.srv.Close()
	b.do("GET", cb, nil)
	b.oidcRefused(t, "token endpoint down", http.StatusServiceUnavailable, oidcUnreachable)
}

func TestOIDCLockedUser(t *testing.T) {
	p := newOIDCTestProvider(t)
	e := oidcEnv(t, p, Config{})
	u, err := e.st.GetUserByEmail(context.Background(), oidcUserEmail)
	if err != nil {
		t.Fatal(err)
	}
	for range lectern.SignInLockAfter {
		if u, err = e.st.RecordSignIn(context.Background(), u.ID, false, e.now, lectern.SignInLockAfter, lectern.SignInLockFor); err != nil {
			t.Fatal(err)
		}
	}
	if !u.Locked(e.now) {
		t.Fatal("the user is not locked")
	}
	b := e.browser("192.0.2.1")
	b.oidcSignIn(t)
	b.oidcRefused(t, "locked user", http.StatusForbidden, oidcLocked)
	after, _ := e.st.GetUser(context.Background(), u.ID)
	if !after.Locked(e.now) {
		t.Error("single sign-on lifted the lock")
	}
	e.advance(lectern.SignInLockFor + time.Second)
	if s := b.oidcSignIn(t); s != http.StatusSeeOther {
		t.Errorf("after the lock-out: %d, want 303", s)
	}
}

// TestOIDCSecretNotLogged: the client secret reaches the provider but no
// log, also when the provider refuses the client (oidcEnv checks the log
// for it, and for every code and ID token, at the end).
func TestOIDCSecretNotLogged(t *testing.T) {
	p := newOIDCTestProvider(t)
	e := oidcEnv(t, p, Config{})
	b := e.browser("192.0.2.1")
	if s := b.oidcSignIn(t); s != http.StatusSeeOther {
		t.Fatalf("sign-in: %d", s)
	}
	e.h.cfg.OIDC.ClientSecret = "wrong-" + oidcClientSecret
	e.secrets = append(e.secrets, e.h.cfg.OIDC.ClientSecret)
	b2 := e.browser("192.0.2.2")
	b2.oidcSignIn(t)
	b2.oidcRefused(t, "client refused", http.StatusUnauthorized, oidcExpired)
	if !strings.Contains(e.logs.String(), "invalid_client") {
		t.Error("the log does not say why the provider refused")
	}
	if b2.has(oidcClientSecret) {
		t.Error("the page shows the client secret")
	}
}

// TestOIDCCallbacksRateLimited: callbacks spend the client address's
// sign-in attempts (docs/operations.md, "Single sign-on"), the refused
// sign-ins too, shared with the password form; past SignInsPerMinute the
// next is refused with 429 before the code is exchanged, while another
// address still signs in. (Callbacks refused for their state, or that
// carry the provider's error=, end before the limiter: only those of a
// live flow are counted here.)
func TestOIDCCallbacksRateLimited(t *testing.T) {
	p := newOIDCTestProvider(t)
	e := oidcEnv(t, p, Config{})
	const addr = "192.0.2.50"
	for i := range SignInsPerMinute {
		email := oidcUserEmail
		want := http.StatusSeeOther
		if i%3 == 0 {
			email, want = "stranger@acme.test", http.StatusForbidden
		}
		p.set(map[string]any{"email": email})
		if s := e.browser(addr).oidcSignIn(t); s != want {
			t.Fatalf("callback %d of %d from one address: %d, want %d", i+1, SignInsPerMinute, s, want)
		}
	}
	p.set(map[string]any{"email": oidcUserEmail})
	exchanged := p.tokenCount()
	b := e.browser(addr)
	b.oidcSignIn(t)
	b.oidcRefused(t, "one callback too many", http.StatusTooManyRequests, tooManyAttempts)
	if n := p.tokenCount(); n != exchanged {
		t.Errorf("the refused callback's code was exchanged (%d tokens, want %d)", n, exchanged)
	}
	if s := b.signIn(e.owner.Email, ownerPW); s != http.StatusTooManyRequests {
		t.Errorf("the password form from the same address: %d, want 429 (one budget)", s)
	}
	if other := e.browser("192.0.2.51"); other.oidcSignIn(t) != http.StatusSeeOther {
		t.Errorf("another address: %d, want 303\n%s", other.last.StatusCode, other.body)
	}
	e.advance(time.Minute)
	if s := e.browser(addr).oidcSignIn(t); s != http.StatusSeeOther {
		t.Errorf("a minute later, the same address: %d, want 303", s)
	}
}
