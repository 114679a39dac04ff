package dashboard

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"lectern.dev/lectern"
)

// Single sign-on through an OpenID Connect provider: the authorization code
// flow with PKCE, a state and a nonce. The browser carries the flow's
// secrets in a short-lived host-only cookie, so any process of the server
// can take the callback. Only users who already have an account (an owner
// or the CLI invited them) may sign in this way: the provider vouches for
// an email address, and the address names the account.

// OIDCConfig is the OpenID Connect provider users may sign in with.
// Discovery happens on first use, and again after a failure, so that the
// server starts while the provider is down; use a config with one Handler
// only, through a pointer.
type OIDCConfig struct {
	// Issuer is the provider's issuer URL, exactly as its discovery
	// document names it.
	Issuer string
	// ClientID and ClientSecret are the dashboard's client at the
	// provider. The secret never reaches a log or a page.
	ClientID, ClientSecret string
	// Client makes the requests to the provider; nil is a client with a
	// timeout of oidcTimeout.
	Client *http.Client

	mu       sync.Mutex
	provider *oidc.Provider
}

const (
	// oidcCookie holds "state.nonce.verifier" between the redirect to the
	// provider and the callback.
	oidcCookie = "lectern_oidc"
	// oidcFlowTTL is how long a user has at the provider.
	oidcFlowTTL = 10 * time.Minute
	// oidcTimeout bounds each request to the provider, so that a hung
	// provider holds no sign-in for long.
	oidcTimeout = 10 * time.Second
)

// What the sign-in page says when single sign-on fails. None repeats what
// the provider sent besides its error code.
const (
	oidcUnreachable = "The single sign-on provider cannot be reached just now. Try again in a moment, or sign in with your password."
	oidcExpired     = "This single sign-on attempt expired, was already used, or was started in another browser: start again."
	oidcRefused     = "The single sign-on provider did not complete the sign-in"
	oidcUnverified  = "The single sign-on provider's answer could not be verified: start again. If it keeps failing, tell your administrator."
	oidcNoEmail     = "Your single sign-on account has no verified email address, so it cannot be matched to a dashboard account. " +
		"Ask an owner of your organization to invite you with your verified address."
	oidcUnknown = "There is no dashboard account for %s. Ask an owner of your organization for an invitation, then sign in again."
	oidcLocked  = "This account is locked for a while after too many failed sign-ins: try again later."
)

// providerErrorCode keeps a provider's error= only when it looks like an
// RFC 6749 code, so that a crafted link cannot put words on the page.
var providerErrorCode = regexp.MustCompile(`^[a-z_]{1,64}$`)

// oidcRoutes registers sign-in through an OpenID Connect provider, when
// one is configured.
func (h *Handler) oidcRoutes(m router) {
	if h.cfg.OIDC == nil {
		return
	}
	m.HandleFunc("GET "+Prefix+"oidc/start", h.oidcStart)
	m.HandleFunc("GET "+Prefix+"oidc/callback", h.oidcCallback)
}

// client is the HTTP client for the provider.
func (c *OIDCConfig) client() *http.Client {
	if c.Client != nil {
		return c.Client
	}
	return &http.Client{Timeout: oidcTimeout}
}

// discover returns the provider, reading its discovery document the first
// time; a failure is not kept, so the next sign-in tries again.
func (c *OIDCConfig) discover(ctx context.Context) (*oidc.Provider, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.provider != nil {
		return c.provider, nil
	}
	ctx, cancel := context.WithTimeout(oidc.ClientContext(ctx, c.client()), oidcTimeout)
	defer cancel()
	p, err := oidc.NewProvider(ctx, c.Issuer)
	if err != nil {
		return nil, err
	}
	c.provider = p
	return p, nil
}

// oauth returns the OAuth 2 client of a request: its redirect URL is the
// server's public URL.
func (h *Handler) oauth(r *http.Request, p *oidc.Provider) *oauth2.Config {
	return &oauth2.Config{ClientID: h.cfg.OIDC.ClientID, ClientSecret: h.cfg.OIDC.ClientSecret, Endpoint: p.Endpoint(),
		RedirectURL: h.publicURL(r) + Prefix + "oidc/callback", Scopes: []string{oidc.ScopeOpenID, "email"}}
}

// oidcProvider returns the provider, or renders that it cannot be reached.
func (h *Handler) oidcProvider(w http.ResponseWriter, r *http.Request) *oidc.Provider {
	p, err := h.cfg.OIDC.discover(r.Context())
	if err != nil {
		h.log.Warn("dashboard: single sign-on provider unreachable", "issuer", h.cfg.OIDC.Issuer, "err", err)
		w.Header().Set("Retry-After", "10")
		h.oidcFail(w, r, http.StatusServiceUnavailable, oidcUnreachable)
		return nil
	}
	return p
}

// oidcFail shows the sign-in page with msg, so that the user can start
// again or use their password.
func (h *Handler) oidcFail(w http.ResponseWriter, r *http.Request, status int, msg string) {
	h.render(w, status, "signin", pageData{Title: "Sign in", CSRF: h.preSessionCSRF(w, r), Message: msg})
}

// oidcStart sends the browser to the provider, with the flow's state,
// nonce and PKCE verifier in a cookie.
func (h *Handler) oidcStart(w http.ResponseWriter, r *http.Request) {
	p := h.oidcProvider(w, r)
	if p == nil {
		return
	}
	state, nonce, verifier := lectern.NewCSRFToken(), lectern.NewCSRFToken(), oauth2.GenerateVerifier()
	h.setCookie(w, r, oidcCookie, state+"."+nonce+"."+verifier, int(oidcFlowTTL/time.Second))
	http.Redirect(w, r, h.oauth(r, p).AuthCodeURL(state, oidc.Nonce(nonce), oauth2.S256ChallengeOption(verifier)), http.StatusSeeOther)
}

// oidcFlow reads (and clears) the flow's cookie: a callback is answered
// once, so a replayed one finds no flow.
func (h *Handler) oidcFlow(w http.ResponseWriter, r *http.Request) (state, nonce, verifier string, ok bool) {
	c, err := r.Cookie(h.cookieName(r, oidcCookie))
	if err != nil {
		return "", "", "", false
	}
	h.setCookie(w, r, oidcCookie, "", -1)
	parts := strings.Split(c.Value, ".")
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" || parts[2] == "" {
		return "", "", "", false
	}
	return parts[0], parts[1], parts[2], true
}

// oidcCallback finishes a sign-in: it checks the state, exchanges the
// code, verifies the ID token and its nonce, and signs in the account of
// the token's verified email.
func (h *Handler) oidcCallback(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	state, nonce, verifier, ok := h.oidcFlow(w, r)
	if code := q.Get("error"); code != "" {
		msg := oidcRefused + "."
		if providerErrorCode.MatchString(code) {
			msg = oidcRefused + " (" + code + ")."
		}
		if code == "access_denied" {
			msg += " You cancelled it, or the provider does not let you into this application."
		}
		h.log.Info("dashboard: single sign-on refused by the provider", "error", providerErrorCode.FindString(code))
		h.oidcFail(w, r, http.StatusUnauthorized, msg)
		return
	}
	if !ok || q.Get("code") == "" || !sameToken(q.Get("state"), state) {
		h.oidcFail(w, r, http.StatusBadRequest, oidcExpired)
		return
	}
	if !h.allowAttempt(r) {
		h.oidcFail(w, r, http.StatusTooManyRequests, tooManyAttempts)
		return
	}
	p := h.oidcProvider(w, r)
	if p == nil {
		return
	}
	ctx, cancel := context.WithTimeout(oidc.ClientContext(r.Context(), h.cfg.OIDC.client()), oidcTimeout)
	defer cancel()
	tok, err := h.oauth(r, p).Exchange(ctx, q.Get("code"), oauth2.VerifierOption(verifier))
	if err != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) {
			// The provider answered: a used or expired code, or a client
			// it does not know. Its body is not logged: it may echo what
			// was sent.
			h.log.Warn("dashboard: single sign-on code refused by the provider", "error", providerErrorCode.FindString(re.ErrorCode))
			h.oidcFail(w, r, http.StatusUnauthorized, oidcExpired)
			return
		}
		h.log.Warn("dashboard: single sign-on provider unreachable", "issuer", h.cfg.OIDC.Issuer, "err", err)
		h.oidcFail(w, r, http.StatusServiceUnavailable, oidcUnreachable)
		return
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		h.log.Warn("dashboard: single sign-on: the provider sent no ID token")
		h.oidcFail(w, r, http.StatusBadGateway, oidcUnverified)
		return
	}
	id, err := p.Verifier(&oidc.Config{ClientID: h.cfg.OIDC.ClientID, Now: h.cfg.Now}).Verify(ctx, raw)
	if err == nil && !sameToken(id.Nonce, nonce) {
		err = errors.New("the ID token's nonce is not this sign-in's")
	}
	if err != nil {
		h.log.Warn("dashboard: single sign-on: ID token refused", "err", err)
		h.oidcFail(w, r, http.StatusUnauthorized, oidcUnverified)
		return
	}
	h.oidcSignIn(w, r, id)
}

// oidcSignIn signs in the account of a verified ID token's email.
func (h *Handler) oidcSignIn(w http.ResponseWriter, r *http.Request, id *oidc.IDToken) {
	var claims struct {
		Email         string `json:"email"`
		EmailVerified any    `json:"email_verified"`
	}
	if err := id.Claims(&claims); err != nil {
		h.log.Warn("dashboard: single sign-on: unreadable claims", "err", err)
		h.oidcFail(w, r, http.StatusUnauthorized, oidcUnverified)
		return
	}
	// Some providers send the flag as a string.
	verified := claims.EmailVerified == true || claims.EmailVerified == "true"
	email, err := lectern.NormalizeEmail(claims.Email)
	if !verified || err != nil {
		h.log.Info("dashboard: single sign-on refused: no verified email", "email_verified", verified)
		h.oidcFail(w, r, http.StatusForbidden, oidcNoEmail)
		return
	}
	u, err := h.store.GetUserByEmail(r.Context(), email)
	if lectern.ErrorCode(err) == lectern.ENOTFOUND {
		h.log.Info("dashboard: single sign-on refused: no account for the email")
		h.oidcFail(w, r, http.StatusForbidden, fmt.Sprintf(oidcUnknown, email))
		return
	}
	if err != nil {
		h.internal(w, r, "single sign-on", err)
		return
	}
	// The provider's word does not lift a lock-out, nor clear the count
	// of failed passwords: it proves nothing about the password.
	if u.Locked(h.cfg.Now()) {
		h.log.Info("dashboard: single sign-on refused: account locked", "user_id", u.ID)
		h.oidcFail(w, r, http.StatusForbidden, oidcLocked)
		return
	}
	if err := h.startSession(w, r, u); err != nil {
		h.internal(w, r, "create session", err)
		return
	}
	h.log.Info("dashboard: signed in with single sign-on", "user_id", u.ID)
	http.Redirect(w, r, Prefix, http.StatusSeeOther)
}
