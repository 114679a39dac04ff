package dashboard

import (
	"net/http"

	"lectern.dev/lectern"
)

// keys shows the organization's API keys and projects.
func (h *Handler) keys(w http.ResponseWriter, r *http.Request) {
	h.keysPage(w, r, http.StatusOK, "", "")
}

func (h *Handler) keysPage(w http.ResponseWriter, r *http.Request, status int, msg, notice string) {
	s := sessionOf(r)
	keys, err := h.store.ListAPIKeys(r.Context(), s.user.OrgID)
	if err != nil {
		h.internal(w, r, "list API keys", err)
		return
	}
	projects, err := h.orgProjects(r, s.user.OrgID)
	if err != nil {
		h.internal(w, r, "list projects", err)
		return
	}
	h.render(w, status, "keys", pageData{Title: "API keys", User: s.user, CSRF: s.session.CSRF, Keys: keys, Project: projects,
		Owner: s.user.Role == lectern.RoleOwner, Message: msg, Notice: notice, Nav: "keys"})
}

// ownerOnly refuses a member with a 403 page and reports whether the user
// is an owner.
func (h *Handler) ownerOnly(w http.ResponseWriter, r *http.Request) bool {
	return h.requireOwner(w, r, "manage API keys")
}

// createKey creates a key and shows it, this once.
func (h *Handler) createKey(w http.ResponseWriter, r *http.Request) {
	if !h.ownerOnly(w, r) {
		return
	}
	ops := h.actions(w, r)
	if ops == nil {
		return
	}
	s := sessionOf(r)
	k, secret, err := ops.CreateAPIKey(r.Context(), s.user.OrgID, r.PostFormValue("name"))
	if lectern.ErrorCode(err) == lectern.EINVALID {
		h.keysPage(w, r, http.StatusBadRequest, lectern.ErrorMessage(err), "")
		return
	}
	if err != nil {
		h.internal(w, r, "create API key", err)
		return
	}
	h.log.Info("dashboard: API key created", "key_id", k.ID, "org_id", k.OrgID, "user_id", s.user.ID)
	h.render(w, http.StatusOK, "created", pageData{Title: "API key created", User: s.user, CSRF: s.session.CSRF, Key: k, Secret: secret})
}

// orgKey returns the organization's key named by the path, or renders a
// 404 (another organization's key is as unknown as a missing one).
func (h *Handler) orgKey(w http.ResponseWriter, r *http.Request) *lectern.APIKey {
	s := sessionOf(r)
	keys, err := h.store.ListAPIKeys(r.Context(), s.user.OrgID)
	if err != nil {
		h.internal(w, r, "list API keys", err)
		return nil
	}
	id := r.PathValue("id")
	for _, k := range keys {
		if k.ID == id && k.OrgID == s.user.OrgID {
			return k
		}
	}
	h.fail(w, r, http.StatusNotFound, "Your organization has no API key with this id.")
	return nil
}

// revokeForm asks to confirm a revocation.
func (h *Handler) revokeForm(w http.ResponseWriter, r *http.Request) {
	if !h.ownerOnly(w, r) {
		return
	}
	k := h.orgKey(w, r)
	if k == nil {
		return
	}
	s := sessionOf(r)
	h.render(w, http.StatusOK, "revoke", pageData{Title: "Revoke API key", User: s.user, CSRF: s.session.CSRF, Key: k})
}

// revokeKey revokes a key of the organization.
func (h *Handler) revokeKey(w http.ResponseWriter, r *http.Request) {
	if !h.ownerOnly(w, r) {
		return
	}
	k := h.orgKey(w, r)
	if k == nil {
		return
	}
	if err := h.store.RevokeAPIKey(r.Context(), k.ID, h.cfg.Now()); err != nil {
		h.internal(w, r, "revoke API key", err)
		return
	}
	h.log.Info("dashboard: API key revoked", "key_id", k.ID, "org_id", k.OrgID, "user_id", sessionOf(r).user.ID)
	h.keysPage(w, r, http.StatusOK, "", "Revoked the key “"+k.Name+"”: the API refuses it from now on.")
}
