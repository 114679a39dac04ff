package dashboard

import (
	"net/http"
	"strings"

	"lectern.dev/lectern"
	"lectern.dev/lectern/actions"
	"lectern.dev/lectern/httpapi"
)

// orgManage is what only owners do on the organization page.
const orgManage = "invite members, change their roles and remove them"

// orgInviteView is the page that shows a new one-time sign-in link, once.
type orgInviteView struct {
	Member *lectern.User
	Link   *actions.SignInLink
	// Resent: a new link for someone invited before.
	Resent bool
}

// orgRemoveView is the confirmation page of a removal.
type orgRemoveView struct {
	Member *lectern.User
	Self   bool
}

// orgInvite creates a user of the organization, without a password, and
// shows the one-time link with which they set one: the same account and
// link as `lectern admin user create` makes.
func (h *Handler) orgInvite(w http.ResponseWriter, r *http.Request) {
	ops := h.ownerActions(w, r, orgManage)
	if ops == nil {
		return
	}
	s := sessionOf(r)
	form := orgInviteForm{Email: strings.TrimSpace(r.PostFormValue("email")), Role: lectern.Role(r.PostFormValue("role"))}
	role, err := lectern.ParseRole(string(form.Role))
	if err != nil {
		h.orgRender(w, r, http.StatusBadRequest, "Choose the new user's role: owner or member.", "", form)
		return
	}
	if _, err := lectern.NormalizeEmail(form.Email); err != nil {
		h.orgRender(w, r, http.StatusBadRequest, lectern.ErrorMessage(err), "", form)
		return
	}
	u := &lectern.User{Email: form.Email, Role: role}
	link, err := ops.AddUser(r.Context(), s.user.OrgID, u, h.publicURL(r))
	if code := lectern.ErrorCode(err); code == lectern.EINVALID || code == lectern.ECONFLICT {
		h.orgRender(w, r, httpapi.StatusOf(code), lectern.ErrorMessage(err), "", form)
		return
	}
	if err != nil {
		h.failed(w, r, "invite user", err)
		return
	}
	h.log.Info("dashboard: user invited", "user_id", u.ID, "org_id", u.OrgID, "role", string(u.Role), "by_user_id", s.user.ID)
	h.render(w, http.StatusOK, "invite", page(r, "Invitation", "org", orgInviteView{Member: u, Link: link}))
}

// orgResend makes a new one-time link for a user who has not set a
// password yet.
func (h *Handler) orgResend(w http.ResponseWriter, r *http.Request) {
	ops := h.ownerActions(w, r, orgManage)
	if ops == nil {
		return
	}
	s := sessionOf(r)
	if r.PathValue("id") == s.user.ID {
		h.orgRender(w, r, http.StatusConflict, "You change your own password on your account page, with your current one.", "", orgInviteForm{Role: lectern.RoleMember})
		return
	}
	u, link, err := ops.ResendInvitation(r.Context(), s.user.OrgID, r.PathValue("id"), h.publicURL(r))
	if lectern.ErrorCode(err) == lectern.ECONFLICT {
		h.orgRender(w, r, http.StatusConflict, lectern.ErrorMessage(err), "", orgInviteForm{Role: lectern.RoleMember})
		return
	}
	if err != nil {
		h.failed(w, r, "resend invitation", err)
		return
	}
	h.log.Info("dashboard: sign-in link made again", "user_id", u.ID, "org_id", u.OrgID, "by_user_id", s.user.ID)
	h.render(w, http.StatusOK, "invite", page(r, "New sign-in link", "org", orgInviteView{Member: u, Link: link, Resent: true}))
}

// orgSetRole makes a user of the organization an owner or a member. An
// owner may demote themselves while another owner remains; the page they
// get back, and every later one, is a member's. The store refuses,
// atomically, to leave the organization without an owner.
func (h *Handler) orgSetRole(w http.ResponseWriter, r *http.Request) {
	ops := h.ownerActions(w, r, orgManage)
	if ops == nil {
		return
	}
	s := sessionOf(r)
	again := func(status int, msg string) {
		h.orgRender(w, r, status, msg, "", orgInviteForm{Role: lectern.RoleMember})
	}
	u, err := ops.SetRole(r.Context(), s.user.OrgID, r.PathValue("id"), lectern.Role(r.PostFormValue("role")))
	switch code := lectern.ErrorCode(err); code {
	case "":
	case lectern.EINVALID:
		again(http.StatusBadRequest, "Choose the new role: owner or member. Nothing changed.")
		return
	case lectern.ECONFLICT:
		again(http.StatusConflict, lectern.ErrorMessage(err)+" Nothing changed.")
		return
	default:
		h.failed(w, r, "change role", err)
		return
	}
	h.log.Info("dashboard: role changed", "user_id", u.ID, "org_id", u.OrgID, "role", string(u.Role), "by_user_id", s.user.ID)
	notice := u.Email + " is now " + orgRoleName(u.Role) + "."
	if u.ID == s.user.ID {
		// This request read the user before the change: the page it
		// renders shows the role they now have.
		s.user = u
		notice = "You are now " + orgRoleName(u.Role) + " of the organization."
	}
	h.orgRender(w, r, http.StatusOK, "", notice, orgInviteForm{Role: lectern.RoleMember})
}

// orgRoleName is a role with its article, for notices.
func orgRoleName(r lectern.Role) string {
	if r == lectern.RoleOwner {
		return "an owner"
	}
	return "a member"
}

// orgRemoveForm asks to confirm a removal; the last owner's is refused
// here already.
func (h *Handler) orgRemoveForm(w http.ResponseWriter, r *http.Request) {
	ops := h.ownerActions(w, r, orgManage)
	if ops == nil {
		return
	}
	s := sessionOf(r)
	u, err := ops.User(r.Context(), s.user.OrgID, r.PathValue("id"))
	if err != nil {
		h.failed(w, r, "read user", err)
		return
	}
	users, err := ops.Users(r.Context(), s.user.OrgID)
	if err != nil {
		h.failed(w, r, "list users", err)
		return
	}
	if actions.LastOwner(users, u) {
		h.fail(w, r, http.StatusConflict, u.Email+" is the organization's only owner: make someone else an owner first, so that someone can still manage it.")
		return
	}
	h.render(w, http.StatusOK, "org_remove", page(r, "Remove member", "org", orgRemoveView{Member: u, Self: u.ID == s.user.ID}))
}

// orgRemove removes a user of the organization, ending their sessions.
// Removing oneself signs this browser out too.
func (h *Handler) orgRemove(w http.ResponseWriter, r *http.Request) {
	ops := h.ownerActions(w, r, orgManage)
	if ops == nil {
		return
	}
	s := sessionOf(r)
	u, err := ops.RemoveUser(r.Context(), s.user.OrgID, r.PathValue("id"))
	if lectern.ErrorCode(err) == lectern.ECONFLICT {
		h.orgRender(w, r, http.StatusConflict, lectern.ErrorMessage(err), "", orgInviteForm{Role: lectern.RoleMember})
		return
	}
	if err != nil {
		h.failed(w, r, "remove user", err)
		return
	}
	h.log.Info("dashboard: user removed", "user_id", u.ID, "org_id", u.OrgID, "by_user_id", s.user.ID)
	if u.ID == s.user.ID {
		h.setCookie(w, r, sessionCookie, "", -1)
		http.Redirect(w, r, Prefix+"signin?signedout=1", http.StatusSeeOther)
		return
	}
	h.orgRender(w, r, http.StatusOK, "", "Removed "+u.Email+": their sessions ended and their sign-in links no longer work.", orgInviteForm{Role: lectern.RoleMember})
}
