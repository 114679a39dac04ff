package httpapi

import (
	"context"
	"net/http"

	"lectern.dev/lectern"
	"lectern.dev/lectern/assistant"
)

// Assistant answers questions from a project's live docs, as its site's
// assistant does; package sites implements it.
type Assistant interface {
	// AskLive answers msgs from deployment deploymentID of p as
	// server-sent events on w, or returns an error having written
	// nothing (ERATELIMITED, EUNAVAILABLE).
	AskLive(ctx context.Context, w http.ResponseWriter, p *lectern.Project, deploymentID, domain string, msgs []assistant.Message) error
}

// assistantMessage is POST /v1/assistant/{domain}/message: the answer of
// the assistant of the organization's site at domain, streamed as its
// site streams it (text/event-stream).
func (a *api) assistantMessage(w http.ResponseWriter, r *http.Request) {
	p, live, domain, msgs, err := a.assistantRequest(w, r)
	if err == nil {
		if as, ok := a.sites.(Assistant); ok {
			err = as.AskLive(r.Context(), w, p, live, domain, msgs)
		} else {
			err = lectern.Errorf(lectern.EUNAVAILABLE, "This server does not serve live sites, so it has no assistant.")
		}
	}
	if err != nil {
		writeError(w, r, a.log, err)
	}
}

// assistantRequest reads the request: the organization's project that
// owns the domain, its live deployment and the conversation.
func (a *api) assistantRequest(w http.ResponseWriter, r *http.Request) (*lectern.Project, string, string, []assistant.Message, error) {
	raw := r.PathValue("domain")
	notFound := lectern.Errorf(lectern.ENOTFOUND, "No project of your organization has the domain %q.", raw)
	domain, err := lectern.NormalizeDomain(raw)
	if err != nil {
		return nil, "", "", nil, notFound
	}
	// As an export finds its domain's project: the organization's own only.
	p, err := a.store.GetProjectByDomain(r.Context(), domain)
	if err == nil {
		err = ownedBy(r, p.OrgID, "domain", domain)
	}
	if lectern.ErrorCode(err) == lectern.ENOTFOUND {
		err = notFound
	}
	if err != nil {
		return nil, "", "", nil, err
	}
	live := p.LiveDeploymentID
	if err := requireJSON(r); err != nil {
		return nil, "", "", nil, err
	}
	body, err := readBody(w, r, assistant.MaxBody)
	if err != nil {
		return nil, "", "", nil, err
	}
	msgs, err := assistant.ParseRequest(body)
	if err != nil {
		return nil, "", "", nil, lectern.Errorf(lectern.EINVALID, "The request body is not a conversation: %s.", err)
	}
	switch {
	case p.DeploymentType == lectern.DeploymentAirGapped:
		return nil, "", "", nil, lectern.Errorf(lectern.ECONFLICT, "Project %s is air-gapped: the AI assistant is unavailable for air-gapped deployments.", p.ID)
	case live == "":
		return nil, "", "", nil, lectern.Errorf(lectern.ECONFLICT, "Project %s has no live deployment yet: trigger an update (POST /v1/project/update/%s) and ask once it succeeds.", p.ID, p.ID)
	}
	return p, live, domain, msgs, nil
}
