package dashboard

import (
	"net/http"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/actions"
)

// orgRoutes registers the organization page: plan, features by deployment type, members and invitations, the user's password and sessions.
func (h *Handler) orgRoutes(m router) {
	m.HandleFunc("GET "+Prefix+"org", h.signedIn(h.orgPage))
	m.HandleFunc("POST "+Prefix+"org/members", h.signedIn(h.orgInvite))
	m.HandleFunc("POST "+Prefix+"org/members/{id}/invitation", h.signedIn(h.orgResend))
	m.HandleFunc("POST "+Prefix+"org/members/{id}/role", h.signedIn(h.orgSetRole))
	m.HandleFunc("GET "+Prefix+"org/members/{id}/remove", h.signedIn(h.orgRemoveForm))
	m.HandleFunc("POST "+Prefix+"org/members/{id}/remove", h.signedIn(h.orgRemove))
	m.HandleFunc("GET "+Prefix+"org/account", h.signedIn(h.orgAccount))
	m.HandleFunc("POST "+Prefix+"org/account/password", h.signedIn(h.orgChangePassword))
	m.HandleFunc("POST "+Prefix+"org/account/signout-everywhere", h.signedIn(h.orgSignOutEverywhere))
}

// orgView is the organization page.
type orgView struct {
	Org *lectern.Organization
	// Export says whether the plan includes static export.
	Export   bool
	Types    []orgType
	Features []orgFeature
	// Others are the projects of a type outside the feature table (none
	// unless the store holds an old or unknown type).
	Others  []*lectern.Project
	Members []orgMember
	// Invite is the invitation form as the owner filled it in.
	Invite orgInviteForm
}

// orgType is a column of the feature table: a deployment type and this
// organization's projects of that type.
type orgType struct {
	Type     lectern.DeploymentType
	Label    string
	Projects []*lectern.Project
}

// orgFeature is a row of the feature table.
type orgFeature struct {
	Label string
	Cells []orgCell
	// NeedsPlan: the feature is in the table but the organization's
	// plan does not include it (static export below enterprise).
	NeedsPlan bool
}

// orgCell is how one deployment type offers a feature.
type orgCell struct {
	Availability lectern.Availability
}

// orgMember is a row of the members table.
type orgMember struct {
	*lectern.User
	// Pending: no password set yet (the invitation's link not used).
	Pending     bool
	LockedUntil *time.Time
	// LastOwner: removing or demoting them is refused.
	LastOwner bool
	Self      bool
}

// orgInviteForm is what the invitation form holds.
type orgInviteForm struct {
	Email string
	Role  lectern.Role
}

// orgTypeLabels are the spec's names of the deployment types, in the
// order of its table's columns.
var orgTypeLabels = []struct {
	Type  lectern.DeploymentType
	Label string
}{{lectern.DeploymentCloud, "Cloud"}, {lectern.DeploymentClientHosted, "Client-hosted"}, {lectern.DeploymentAirGapped, "Air-gapped"}}

// orgFeatureLabels are the spec's names of the features.
var orgFeatureLabels = map[lectern.Feature]string{
	lectern.FeatureSearch:       "Documentation search",
	lectern.FeatureAssistant:    "AI assistant",
	lectern.FeatureAnalytics:    "Web analytics",
	lectern.FeaturePlayground:   "API playground (“Try it”)",
	lectern.FeatureStaticExport: "Static export bundle",
}

// orgPage shows the organization.
func (h *Handler) orgPage(w http.ResponseWriter, r *http.Request) {
	h.orgRender(w, r, http.StatusOK, "", "", orgInviteForm{Role: lectern.RoleMember})
}

// orgRender renders the organization page with an error or a notice, and
// the invitation form as given (so a refused one is shown again).
func (h *Handler) orgRender(w http.ResponseWriter, r *http.Request, status int, msg, notice string, invite orgInviteForm) {
	ops := h.actions(w, r)
	if ops == nil {
		return
	}
	s := sessionOf(r)
	org, err := h.store.GetOrg(r.Context(), s.user.OrgID)
	if err != nil {
		h.failed(w, r, "read organization", err)
		return
	}
	projects, err := h.orgProjects(r, org.ID)
	if err != nil {
		h.internal(w, r, "list projects", err)
		return
	}
	users, err := ops.Users(r.Context(), org.ID)
	if err != nil {
		h.failed(w, r, "list users", err)
		return
	}
	v := &orgView{Org: org, Export: org.Plan.AllowsStaticExport(), Invite: invite}
	v.Types, v.Others = orgColumns(projects)
	v.Features = orgFeatures(v.Export)
	now := h.cfg.Now()
	for _, u := range users {
		m := orgMember{User: u, Pending: u.PasswordHash == "", LastOwner: actions.LastOwner(users, u), Self: u.ID == s.user.ID}
		if u.Locked(now) {
			m.LockedUntil = &u.LockedUntil
		}
		v.Members = append(v.Members, m)
	}
	d := page(r, "Organization", "org", v)
	d.Message, d.Notice = msg, notice
	h.render(w, status, "org", d)
}

// orgColumns sorts projects into the feature table's columns, keeping
// their order; a project of a type outside the table goes to others.
func orgColumns(projects []*lectern.Project) (cols []orgType, others []*lectern.Project) {
	index := map[lectern.DeploymentType]int{}
	for i, t := range orgTypeLabels {
		cols = append(cols, orgType{Type: t.Type, Label: t.Label})
		index[t.Type] = i
	}
	for _, p := range projects {
		if i, ok := index[p.DeploymentType]; ok {
			cols[i].Projects = append(cols[i].Projects, p)
		} else {
			others = append(others, p)
		}
	}
	return cols, others
}

// orgFeatures is the spec's feature table, read from lectern's (the one
// place availability is decided), with static export marked when the
// plan lacks it.
func orgFeatures(export bool) []orgFeature {
	var rows []orgFeature
	for _, f := range lectern.Features {
		row := orgFeature{Label: orgFeatureLabels[f], NeedsPlan: f == lectern.FeatureStaticExport && !export}
		if row.Label == "" {
			row.Label = string(f)
		}
		for _, t := range orgTypeLabels {
			a, _ := lectern.FeatureAvailability(t.Type, f)
			row.Cells = append(row.Cells, orgCell{Availability: a})
		}
		rows = append(rows, row)
	}
	return rows
}
