package dashboard

import (
	"net/http"

	"lectern.dev/lectern"
	"lectern.dev/lectern/actions"
	"lectern.dev/lectern/gitsource"
	"lectern.dev/lectern/httpapi"
)

// A project's Access page: how the server reaches its repository. Every
// member sees it; owners set or remove the token of an https repository
// and make or rotate the SSH deploy key. Neither secret ever comes back
// to the browser: the token is write-only, and of the key pair only the
// public half is shown. Webhooks belong to the organization, not the
// project (webhooks.go), so the page links to them.

// accessRoutes registers a project's access page (repository credentials
// and SSH deploy key) and the organization's webhooks.
func (h *Handler) accessRoutes(m router) {
	m.HandleFunc("GET "+Prefix+"projects/{id}/access", h.signedIn(h.access))
	m.HandleFunc("POST "+Prefix+"projects/{id}/access/token", h.signedIn(h.setRepoToken))
	m.HandleFunc("GET "+Prefix+"projects/{id}/access/token/remove", h.signedIn(h.removeRepoTokenForm))
	m.HandleFunc("POST "+Prefix+"projects/{id}/access/token/remove", h.signedIn(h.removeRepoToken))
	m.HandleFunc("POST "+Prefix+"projects/{id}/access/deploy-key", h.signedIn(h.makeDeployKey))
	m.HandleFunc("GET "+Prefix+"projects/{id}/access/deploy-key/rotate", h.signedIn(h.rotateDeployKeyForm))
	m.HandleFunc("POST "+Prefix+"projects/{id}/access/deploy-key/rotate", h.signedIn(h.rotateDeployKey))
	h.webhookRoutes(m)
}

// accessView is the access page's own data.
type accessView struct {
	Project *lectern.Project
	Repo    string // the repository URL without credentials
	// NoKey: the server has no secret key, so nothing can be stored.
	NoKey bool
	HTTPS bool // the repository is fetched over http(s): a token applies
	SSH   bool // over SSH: the deploy key applies
	// HasToken: credentials are stored (their value is never read here).
	HasToken bool
	// TokenUser is the user name typed into the token form, shown again
	// with an error; DefaultUser the one used when it is left empty.
	TokenUser, DefaultUser string
	// HasDeployKey: a deploy key is stored; DeployKey is its public half
	// (nil when the server cannot read it).
	HasDeployKey bool
	DeployKey    *actions.DeployKey
	// DeployKeyError says why the stored key cannot be shown.
	DeployKeyError string
	HostKeys       []actions.HostKey
}

// confirmView is a confirmation page's data: the question, and the form
// that answers yes.
type confirmView struct {
	Heading, Text, Action, Button, Back string
	Danger                              bool
}

// accessNotices are the notices of ?done= after an action (post, then
// redirect, so a reload does not send a token again).
var accessNotices = map[string]string{
	"token-saved":   "Saved the repository token, encrypted. The next update fetches with it.",
	"token-removed": "Removed the repository token. The next update fetches without credentials.",
	"key-made":      "Made the deploy key. Add its public key to the repository's host before the next update.",
	"key-rotated":   "Made a new deploy key; the old one no longer works. Add the new public key to the repository's host, and remove the old one there.",
}

// accessProject returns the organization's project named by the path and
// the action service, or renders the error (another organization's
// project is as unknown as a missing one).
func (h *Handler) accessProject(w http.ResponseWriter, r *http.Request) (*actions.Service, *lectern.Project) {
	ops := h.actions(w, r)
	if ops == nil {
		return nil, nil
	}
	p, err := ops.Project(r.Context(), sessionOf(r).user.OrgID, r.PathValue("id"))
	if lectern.ErrorCode(err) == lectern.ENOTFOUND {
		h.fail(w, r, http.StatusNotFound, "Your organization has no project with this id.")
		return nil, nil
	}
	if err != nil {
		h.failed(w, r, "read project", err)
		return nil, nil
	}
	return ops, p
}

func accessURL(p *lectern.Project) string { return Prefix + "projects/" + p.ID + "/access" }

// access shows the project's repository credentials and deploy key.
func (h *Handler) access(w http.ResponseWriter, r *http.Request) {
	ops, p := h.accessProject(w, r)
	if p == nil {
		return
	}
	h.accessPage(w, r, ops, p, http.StatusOK, "", "", accessNotices[r.URL.Query().Get("done")])
}

func (h *Handler) accessPage(w http.ResponseWriter, r *http.Request, ops *actions.Service, p *lectern.Project, status int, msg, user, notice string) {
	v := &accessView{Project: p, Repo: showRepo(p.RepoURL), NoKey: ops.Secrets == nil, SSH: gitsource.IsSSH(p.RepoURL),
		HasToken: p.RepoCredentials != "", HasDeployKey: p.DeployKey != "", TokenUser: user, DefaultUser: actions.DefaultRepoUser,
		HostKeys: actions.PinnedHostKeys(p.KnownHosts)}
	v.HTTPS = actions.CheckRepoTokenURL(p.RepoURL) == nil
	if _, u, _, _ := actions.SplitUserinfo(p.RepoURL); u != "" {
		v.DefaultUser = u
	}
	if p.DeployKey != "" && ops.Secrets != nil {
		dk, err := actions.OpenDeployKey(ops.Secrets, p)
		if err != nil {
			// A key sealed with another secret key: the page says so, and
			// owners can rotate it. The cause (the server's key ids, its
			// operator's instructions) is the operator's: it goes to the log.
			h.log.Warn("dashboard: open deploy key", "project_id", p.ID, "err", err)
			v.DeployKeyError = "The project's deploy key cannot be read by this server (it was made with another secret key, or is damaged): rotate it to make a new pair, then add the new public key to the git host."
		}
		v.DeployKey = dk
	}
	d := page(r, "Access · "+p.Name, "projects", v)
	d.Message, d.Notice = msg, notice
	h.render(w, status, "access", d)
}

// showRepo is a repository URL as pages show it: without credentials.
func showRepo(repoURL string) string {
	if clean, _, _, ok := actions.SplitUserinfo(repoURL); ok {
		return clean
	}
	return gitsource.Redact(repoURL)
}

// setRepoToken stores the token of the project's https repository. A bad
// token is refused with the form shown again, without it: a token is
// never written into a page.
func (h *Handler) setRepoToken(w http.ResponseWriter, r *http.Request) {
	if !h.requireOwner(w, r, "set repository credentials") {
		return
	}
	ops, p := h.accessProject(w, r)
	if p == nil {
		return
	}
	user := r.PostFormValue("user")
	s := sessionOf(r)
	_, err := ops.SetRepoToken(r.Context(), s.user.OrgID, p.ID, user, r.PostFormValue("token"))
	switch code := lectern.ErrorCode(err); {
	case err == nil:
	case code == lectern.EINVALID || code == lectern.EUNAVAILABLE:
		h.accessPage(w, r, ops, p, httpapi.StatusOf(code), lectern.ErrorMessage(err)+" Nothing was stored.", user, "")
		return
	default:
		h.failed(w, r, "set repository token", err)
		return
	}
	h.log.Info("dashboard: repository token set", "project_id", p.ID, "org_id", p.OrgID, "user_id", s.user.ID)
	http.Redirect(w, r, accessURL(p)+"?done=token-saved", http.StatusSeeOther)
}

func (h *Handler) removeRepoTokenForm(w http.ResponseWriter, r *http.Request) {
	if !h.requireOwner(w, r, "remove repository credentials") {
		return
	}
	_, p := h.accessProject(w, r)
	if p == nil {
		return
	}
	h.render(w, http.StatusOK, "access-confirm", page(r, "Remove repository token", "projects", confirmView{
		Heading: "Remove the repository token",
		Text: "Remove the token of " + p.Name + "'s repository (" + showRepo(p.RepoURL) + ")? The next update fetches without credentials, " +
			"which fails for a private repository until a token is set again.",
		Action: accessURL(p) + "/token/remove", Button: "Remove token", Back: accessURL(p), Danger: true}))
}

func (h *Handler) removeRepoToken(w http.ResponseWriter, r *http.Request) {
	if !h.requireOwner(w, r, "remove repository credentials") {
		return
	}
	ops, p := h.accessProject(w, r)
	if p == nil {
		return
	}
	s := sessionOf(r)
	if _, err := ops.ClearRepoToken(r.Context(), s.user.OrgID, p.ID); err != nil {
		h.failed(w, r, "remove repository token", err)
		return
	}
	h.log.Info("dashboard: repository token removed", "project_id", p.ID, "org_id", p.OrgID, "user_id", s.user.ID)
	http.Redirect(w, r, accessURL(p)+"?done=token-removed", http.StatusSeeOther)
}

// makeDeployKey makes the project's deploy key when it has none; with one
// it changes nothing (replacing a key goes through rotate's confirmation).
func (h *Handler) makeDeployKey(w http.ResponseWriter, r *http.Request) {
	h.deployKey(w, r, false)
}

func (h *Handler) rotateDeployKeyForm(w http.ResponseWriter, r *http.Request) {
	if !h.requireOwner(w, r, "manage deploy keys") {
		return
	}
	_, p := h.accessProject(w, r)
	if p == nil {
		return
	}
	h.render(w, http.StatusOK, "access-confirm", page(r, "Rotate deploy key", "projects", confirmView{
		Heading: "Rotate the deploy key",
		Text: "Make a new deploy key for " + p.Name + "? The current key stops working at once: updates fail until the new public key " +
			"is added to the repository's host (" + showRepo(p.RepoURL) + "). Remove the old key there afterwards.",
		Action: accessURL(p) + "/deploy-key/rotate", Button: "Rotate key", Back: accessURL(p), Danger: true}))
}

func (h *Handler) rotateDeployKey(w http.ResponseWriter, r *http.Request) {
	h.deployKey(w, r, true)
}

func (h *Handler) deployKey(w http.ResponseWriter, r *http.Request, rotate bool) {
	if !h.requireOwner(w, r, "manage deploy keys") {
		return
	}
	ops, p := h.accessProject(w, r)
	if p == nil {
		return
	}
	s := sessionOf(r)
	had := p.DeployKey != ""
	dk, err := ops.MakeDeployKey(r.Context(), s.user.OrgID, p.ID, rotate)
	switch code := lectern.ErrorCode(err); {
	case err == nil:
	case code == lectern.EUNAVAILABLE || code == lectern.ECONFLICT:
		h.accessPage(w, r, ops, p, httpapi.StatusOf(code), lectern.ErrorMessage(err), "", "")
		return
	default:
		h.failed(w, r, "make deploy key", err)
		return
	}
	done := "key-made"
	switch {
	case rotate && had:
		done = "key-rotated"
	case had:
		http.Redirect(w, r, accessURL(p), http.StatusSeeOther) // it had one already: nothing changed
		return
	}
	h.log.Info("dashboard: deploy key made", "project_id", p.ID, "org_id", p.OrgID, "user_id", s.user.ID,
		"fingerprint", dk.Fingerprint, "rotated", rotate && had)
	http.Redirect(w, r, accessURL(p)+"?done="+done, http.StatusSeeOther)
}
