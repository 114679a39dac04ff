package dashboard

import (
	"net/http"

	"lectern.dev/lectern"
	"lectern.dev/lectern/password"
)

// Messages of the account page.
const (
	orgPasswordChanged  = "Your password is changed, and your other sessions ended: sign in again with it elsewhere."
	orgWrongPassword    = "Your current password is wrong: nothing changed."
	orgTooManyAttempts  = "Too many password attempts from your address: wait a minute, then try again."
	orgPasswordsDiffer  = "The two new passwords differ: type the same one twice."
	orgNoPasswordToEdit = "Your account has no password to change: ask an owner of your organization for a sign-in link to set one."
)

// orgAccountView is the account page.
type orgAccountView struct {
	HasPassword bool
	MinLen      int
	MaxLen      int
}

// orgAccount shows the signed-in user's account: password and sessions.
func (h *Handler) orgAccount(w http.ResponseWriter, r *http.Request) {
	notice := ""
	if r.URL.Query().Has("changed") {
		notice = orgPasswordChanged
	}
	h.orgAccountRender(w, r, http.StatusOK, "", notice)
}

func (h *Handler) orgAccountRender(w http.ResponseWriter, r *http.Request, status int, msg, notice string) {
	u := sessionOf(r).user
	d := page(r, "Your account", "org", orgAccountView{HasPassword: u.PasswordHash != "", MinLen: password.MinLen, MaxLen: password.MaxLen})
	d.Message, d.Notice = msg, notice
	h.render(w, status, "org_account", d)
}

// orgChangePassword replaces the user's password once they have given the
// current one, then ends their other sessions: whoever else was signed in
// as them (with the old password) is signed out. Wrong current passwords
// spend the address's sign-in attempts and count toward the account's
// lock-out, as at sign-in, so this form cannot be used to guess one.
func (h *Handler) orgChangePassword(w http.ResponseWriter, r *http.Request) {
	u := sessionOf(r).user
	again := func(status int, msg string) { h.orgAccountRender(w, r, status, msg, "") }
	if u.PasswordHash == "" {
		again(http.StatusConflict, orgNoPasswordToEdit)
		return
	}
	current, pw := r.PostFormValue("current"), r.PostFormValue("password")
	if pw != r.PostFormValue("confirm") {
		again(http.StatusBadRequest, orgPasswordsDiffer)
		return
	}
	if err := password.Check(pw); err != nil {
		again(http.StatusBadRequest, lectern.ErrorMessage(err))
		return
	}
	if !h.allowAttempt(r) {
		again(http.StatusTooManyRequests, orgTooManyAttempts)
		return
	}
	now := h.cfg.Now()
	if u.Locked(now) {
		again(http.StatusForbidden, orgLockedMessage(u))
		return
	}
	ok, err := password.Verify(current, u.PasswordHash)
	if err != nil {
		h.log.Error("dashboard: unreadable password hash", "user_id", u.ID, "err", err)
	}
	if !ok {
		after, err := h.store.RecordSignIn(r.Context(), u.ID, false, now, lectern.SignInLockAfter, lectern.SignInLockFor)
		if err != nil {
			h.internal(w, r, "record password attempt", err)
			return
		}
		h.log.Info("dashboard: wrong current password", "user_id", u.ID)
		if after.Locked(now) {
			again(http.StatusForbidden, orgLockedMessage(after))
			return
		}
		again(http.StatusBadRequest, orgWrongPassword)
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
		h.internal(w, r, "change password", err)
		return
	}
	h.log.Info("dashboard: password changed, other sessions ended", "user_id", u.ID)
	// A new session has a new CSRF token: the page is loaded again with it.
	http.Redirect(w, r, Prefix+"org/account?changed=1", http.StatusSeeOther)
}

func orgLockedMessage(u *lectern.User) string {
	return "Too many wrong passwords: your account is locked until " + u.LockedUntil.UTC().Format("2006-01-02 15:04 UTC") +
		". Wait until then, and try again."
}

// orgSignOutEverywhere ends every session of the user, this one included.
func (h *Handler) orgSignOutEverywhere(w http.ResponseWriter, r *http.Request) {
	u := sessionOf(r).user
	n, err := h.store.DeleteUserSessions(r.Context(), u.ID)
	if err != nil {
		h.internal(w, r, "sign out everywhere", err)
		return
	}
	h.log.Info("dashboard: signed out everywhere", "user_id", u.ID, "sessions", n)
	h.setCookie(w, r, sessionCookie, "", -1)
	http.Redirect(w, r, Prefix+"signin?signedout=1", http.StatusSeeOther)
}
