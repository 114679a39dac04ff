package dashboard

import (
	"context"
	"crypto/subtle"
	"net/http"
	"strings"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/httpapi"
	"lectern.dev/lectern/password"
)

// Cookie names. Browsers take a __Host- cookie only when it is Secure,
// so over plain http (a server on localhost before TLS is set up) the
// cookies go without the prefix: they are still host-only (no Domain),
// Path=/, HttpOnly and SameSite=Lax, so a docs domain never gets them.
const (
	sessionCookie     = "lectern_session"
	preSessionCookie  = "lectern_csrf"
	securePrefix      = "__Host-"
	csrfField         = "csrf"
	vagueSignInError  = "Email or password is wrong, or the account is locked for a while."
	tooManyAttempts   = "Too many sign-in attempts from your address: wait a minute, then try again."
	badFormError      = "The form expired or did not come from this page: reload the page and send it again."
	signInPageMessage = "Your session ended: sign in again."
)

func (h *Handler) cookieName(r *http.Request, name string) string {
	if h.secure(r) {
		return securePrefix + name
	}
	return name
}

func (h *Handler) setCookie(w http.ResponseWriter, r *http.Request, name, value string, maxAge int) {
	http.SetCookie(w, &http.Cookie{Name: h.cookieName(r, name), Value: value, Path: "/", MaxAge: maxAge,
		HttpOnly: true, Secure: h.secure(r), SameSite: http.SameSiteLaxMode})
}

// signedInKey is the context key of the request's session.
type signedInKey struct{}

// signedIn is a request's session and user.
type signedIn struct {
	session *lectern.Session
	user    *lectern.User
	hash    []byte
}

func sessionOf(r *http.Request) *signedIn {
	s, _ := r.Context().Value(signedInKey{}).(*signedIn)
	return s
}

// touchEvery is how often a session's expiry is moved on.
const touchEvery = time.Minute

// signedIn runs next for a request with a live session, which it extends
// (sliding expiry), and whose form, on a POST, carries the session's CSRF
// token. Without a session a GET goes to the sign-in page and a POST is
// refused.
func (h *Handler) signedIn(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		now := h.cfg.Now()
		c, err := r.Cookie(h.cookieName(r, sessionCookie))
		var s *lectern.Session
		var hash []byte
		if err == nil && strings.HasPrefix(c.Value, lectern.SessionTokenPrefix) {
			hash = lectern.HashToken(c.Value)
			s, err = h.store.GetSessionByHash(r.Context(), hash, now)
		} else {
			err = lectern.Errorf(lectern.ENOTFOUND, "no session")
		}
		var u *lectern.User
		if err == nil {
			u, err = h.store.GetUser(r.Context(), s.UserID)
		}
		if lectern.ErrorCode(err) == lectern.ENOTFOUND {
			if r.Method == http.MethodGet {
				http.Redirect(w, r, Prefix+"signin", http.StatusSeeOther)
				return
			}
			h.fail(w, r, http.StatusForbidden, signInPageMessage)
			return
		}
		if err != nil {
			h.internal(w, r, "read session", err)
			return
		}
		// The expiry slides at most once a minute: a write per page (and
		// per live part's poll) would cost more than the page.
		if now.Sub(s.LastSeenAt) >= touchEvery {
			if err := h.store.TouchSession(r.Context(), hash, now, now.Add(lectern.SessionIdleTTL)); err != nil && lectern.ErrorCode(err) != lectern.ENOTFOUND {
				h.log.Warn("dashboard: extend session", "session_id", s.ID, "err", err)
			}
		}
		si := &signedIn{session: s, user: u, hash: hash}
		r = r.WithContext(context.WithValue(r.Context(), signedInKey{}, si))
		if r.Method == http.MethodPost && !sameToken(r.PostFormValue(csrfField), s.CSRF) {
			h.fail(w, r, http.StatusForbidden, badFormError)
			return
		}
		next(w, r)
	}
}

// sameToken compares a sent token with the expected one in constant time;
// an empty one never matches.
func sameToken(got, want string) bool {
	return want != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// preSessionCSRF returns the double-submit token of the sign-in and
// welcome forms: the cookie's, or a new one it sets.
func (h *Handler) preSessionCSRF(w http.ResponseWriter, r *http.Request) string {
	if c, err := r.Cookie(h.cookieName(r, preSessionCookie)); err == nil && len(c.Value) == len(lectern.NewCSRFToken()) {
		return c.Value
	}
	tok := lectern.NewCSRFToken()
	h.setCookie(w, r, preSessionCookie, tok, 0)
	return tok
}

// checkPreSessionCSRF reports whether a sign-in or welcome form sent back
// the token of its cookie.
func (h *Handler) checkPreSessionCSRF(r *http.Request) bool {
	c, err := r.Cookie(h.cookieName(r, preSessionCookie))
	return err == nil && sameToken(r.PostFormValue(csrfField), c.Value)
}

// allowAttempt spends one of the client address's sign-in attempts.
func (h *Handler) allowAttempt(r *http.Request) bool {
	ok, _, _ := h.limiter.Allow(r.Context(), "signin:"+httpapi.ClientAddr(r, h.cfg.TrustedProxies), h.cfg.Now())
	return ok
}

// startSession creates a session of u and sets its cookie.
func (h *Handler) startSession(w http.ResponseWriter, r *http.Request, u *lectern.User) error {
	tok := lectern.NewSessionToken()
	now := h.cfg.Now()
	s := &lectern.Session{Hash: lectern.HashToken(tok), UserID: u.ID, CSRF: lectern.NewCSRFToken(), CreatedAt: now,
		ExpiresAt: now.Add(lectern.SessionIdleTTL)}
	if err := h.store.CreateSession(r.Context(), s); err != nil {
		return err
	}
	h.setCookie(w, r, sessionCookie, tok, 0)
	return nil
}

func (h *Handler) signInForm(w http.ResponseWriter, r *http.Request) {
	d := pageData{Title: "Sign in", CSRF: h.preSessionCSRF(w, r)}
	if r.URL.Query().Has("signedout") {
		d.Notice = "You are signed out."
	}
	h.render(w, http.StatusOK, "signin", d)
}

// signIn checks an email and password. Unknown email, wrong password and
// a locked account get one answer, after the same work.
func (h *Handler) signIn(w http.ResponseWriter, r *http.Request) {
	email := strings.TrimSpace(r.PostFormValue("email"))
	again := func(status int, msg string) {
		h.render(w, status, "signin", pageData{Title: "Sign in", CSRF: h.preSessionCSRF(w, r), Message: msg, Email: email})
	}
	if !h.checkPreSessionCSRF(r) {
		again(http.StatusForbidden, badFormError)
		return
	}
	if !h.allowAttempt(r) {
		again(http.StatusTooManyRequests, tooManyAttempts)
		return
	}
	now := h.cfg.Now()
	pw := r.PostFormValue("password")
	u, err := h.store.GetUserByEmail(r.Context(), email)
	if err != nil && lectern.ErrorCode(err) != lectern.ENOTFOUND && lectern.ErrorCode(err) != lectern.EINVALID {
		h.internal(w, r, "sign in", err)
		return
	}
	if err != nil || u.Locked(now) || u.PasswordHash == "" {
		password.Verify(pw, h.dummyHash()) // the same work as a real check
		again(http.StatusUnauthorized, vagueSignInError)
		return
	}
	ok, err := password.Verify(pw, u.PasswordHash)
	if err != nil {
		h.log.Error("dashboard: unreadable password hash", "user_id", u.ID, "err", err)
	}
	if _, err := h.store.RecordSignIn(r.Context(), u.ID, ok, now, lectern.SignInLockAfter, lectern.SignInLockFor); err != nil {
		h.internal(w, r, "record sign-in", err)
		return
	}
	if !ok {
		h.log.Info("dashboard: failed sign-in", "user_id", u.ID)
		again(http.StatusUnauthorized, vagueSignInError)
		return
	}
	if err := h.startSession(w, r, u); err != nil {
		h.internal(w, r, "create session", err)
		return
	}
	http.Redirect(w, r, Prefix+"projects", http.StatusSeeOther)
}

func (h *Handler) dummyHash() string {
	h.dummyOnce.Do(func() { h.dummy, _ = password.Hash(lectern.NewCSRFToken()) })
	return h.dummy
}

func (h *Handler) signOut(w http.ResponseWriter, r *http.Request) {
	if err := h.store.DeleteSession(r.Context(), sessionOf(r).hash); err != nil {
		h.internal(w, r, "sign out", err)
		return
	}
	h.setCookie(w, r, sessionCookie, "", -1)
	http.Redirect(w, r, Prefix+"signin?signedout=1", http.StatusSeeOther)
}

func (h *Handler) welcomeForm(w http.ResponseWriter, r *http.Request) {
	h.render(w, http.StatusOK, "welcome", pageData{Title: "Set your password", CSRF: h.preSessionCSRF(w, r),
		Token: r.URL.Query().Get("token")})
}

// welcome spends a one-time sign-in token: it sets the user's password,
// ends their other sessions and signs them in.
func (h *Handler) welcome(w http.ResponseWriter, r *http.Request) {
	tok := r.PostFormValue("token")
	again := func(status int, msg string) {
		h.render(w, status, "welcome", pageData{Title: "Set your password", CSRF: h.preSessionCSRF(w, r), Token: tok, Message: msg})
	}
	if !h.checkPreSessionCSRF(r) {
		again(http.StatusForbidden, badFormError)
		return
	}
	if !h.allowAttempt(r) {
		again(http.StatusTooManyRequests, tooManyAttempts)
		return
	}
	pw := r.PostFormValue("password")
	if pw != r.PostFormValue("confirm") {
		again(http.StatusBadRequest, "The two passwords differ: type the same one twice.")
		return
	}
	if err := password.Check(pw); err != nil {
		again(http.StatusBadRequest, lectern.ErrorMessage(err))
		return
	}
	now := h.cfg.Now()
	u, err := h.store.UseSignInToken(r.Context(), lectern.HashToken(tok), now)
	if lectern.ErrorCode(err) == lectern.ENOTFOUND {
		again(http.StatusNotFound, "This sign-in link is unknown, was used already or has expired: ask an owner of your organization for a new one (Organization, then “New sign-in link”), or the server's operator.")
		return
	}
	if err != nil {
		h.internal(w, r, "use sign-in link", err)
		return
	}
	hash, err := password.Hash(pw)
	if err == nil {
		err = h.store.SetPassword(r.Context(), u.ID, hash, now)
	}
	if err == nil {
		_, err = h.store.DeleteUserSessions(r.Context(), u.ID)
	}
	if err == nil {
		err = h.startSession(w, r, u)
	}
	if err != nil {
		h.internal(w, r, "set password", err)
		return
	}
	http.Redirect(w, r, Prefix+"projects", http.StatusSeeOther)
}
