package dashboard

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/actions"
	"lectern.dev/lectern/httpapi"
	"lectern.dev/lectern/internal/csvfile"
	"lectern.dev/lectern/render/features"
	"lectern.dev/lectern/store"
)

// The analytics pages: a project's web analytics over a range of UTC days
// (views over time as a chart drawn on the server, top pages and
// referrers, searches and those that found nothing, feedback, assistant
// questions) and each report's CSV. They read the reports through the
// API's own code (httpapi.ReadAnalytics), so the page, its downloads and
// the API agree on every figure, on the range's rules and on the CSV's
// bytes. The building of the page's view is in analytics_view.go.

// analyticsPresets are the ranges offered as links, in days up to today.
var analyticsPresets = []int{7, 30, 90}

// analyticsDownloadRows is the length of the lists in a download: the
// page shows the top 10, a spreadsheet gets all the API gives.
const analyticsDownloadRows = store.MaxAnalyticsTop

// analyticsRoutes registers the analytics pages: views over time, top pages, searches, feedback, assistant questions, CSV.
func (h *Handler) analyticsRoutes(m router) {
	m.HandleFunc("GET "+Prefix+"analytics", h.signedIn(h.analytics))
	m.HandleFunc("GET "+Prefix+"analytics/{file}", h.signedIn(h.analyticsCSV))
}

// analyticsForm is the range form as the user sent it, shown again as
// typed when it is refused.
type analyticsForm struct {
	Project  string
	From, To string
	Limit    string
	Invalid  map[string]bool // the fields a refusal names: from, to, limit
}

// analyticsRange reads the analytics pages' query: the project's id and
// the range, checked as the API checks its from, to and limit (blank: the
// default, the 30 days up to today, UTC), today being now's UTC date. It
// returns the form as typed, and an EINVALID error whose message names
// the form's fields (From, To, Limit) when the range is refused. Other
// parameters are ignored: a browser's form sends what it holds.
func analyticsRange(vals url.Values, now time.Time) (analyticsForm, httpapi.AnalyticsQuery, error) {
	f := analyticsForm{Project: strings.TrimSpace(vals.Get("project")), From: strings.TrimSpace(vals.Get("from")),
		To: strings.TrimSpace(vals.Get("to")), Limit: strings.TrimSpace(vals.Get("limit"))}
	q, err := httpapi.ParseAnalyticsQuery(url.Values{"from": {f.From}, "to": {f.To}, "limit": {f.Limit}}, now)
	if err != nil {
		return f, q, analyticsRangeError(err)
	}
	return f, q, nil
}

// analyticsFieldLabels are the form's labels of the API's parameters.
var analyticsFieldLabels = map[string]string{"from": "From", "to": "To", "limit": "Limit"}

// analyticsRangeError rewrites the API's error about its query parameters
// in terms of the form: "From is after to (…)" for "Query parameter from:
// is after to (…)".
func analyticsRangeError(err error) error {
	e := lectern.AsError(err)
	if e == nil || e.Code != lectern.EINVALID || len(e.Fields) == 0 {
		return err
	}
	msgs := make([]string, len(e.Fields))
	for i, fe := range e.Fields {
		label := analyticsFieldLabels[fe.Field]
		if label == "" {
			label = fe.Field
		}
		msgs[i] = label + " " + fe.Message
	}
	return &lectern.Error{Code: lectern.EINVALID, Message: strings.Join(msgs, "; ") + ".", Fields: e.Fields}
}

// analyticsProject returns the organization's project the query names,
// or its first project when it names none (nil when it has none). Another
// organization's project, like a missing one, is rendered as a 404 and
// nil returned with ok false.
func (h *Handler) analyticsProject(w http.ResponseWriter, r *http.Request, ops *actions.Service, id string,
	projects []*lectern.Project) (p *lectern.Project, ok bool) {
	if id == "" {
		if len(projects) == 0 {
			return nil, true
		}
		return projects[0], true
	}
	p, err := ops.Project(r.Context(), sessionOf(r).user.OrgID, id)
	if err != nil {
		h.failed(w, r, "read project", err)
		return nil, false
	}
	return p, true
}

// analytics is the analytics page of a project and range.
func (h *Handler) analytics(w http.ResponseWriter, r *http.Request) {
	ops := h.actions(w, r)
	if ops == nil {
		return
	}
	projects, err := h.orgProjects(r, sessionOf(r).user.OrgID)
	if err != nil {
		h.internal(w, r, "list projects", err)
		return
	}
	now := h.cfg.Now()
	form, q, rangeErr := analyticsRange(r.URL.Query(), now)
	p, ok := h.analyticsProject(w, r, ops, form.Project, projects)
	if !ok {
		return
	}
	v := &analyticsView{Projects: projects, Project: p}
	d := page(r, "Analytics", "analytics", v)
	if p == nil {
		h.render(w, http.StatusOK, "analytics", d)
		return
	}
	form.Project = p.ID
	today := lectern.AnalyticsDate(now)
	status := http.StatusOK
	if rangeErr != nil {
		status = http.StatusBadRequest
		d.Message = lectern.ErrorMessage(rangeErr)
		form.Invalid = map[string]bool{}
		if e := lectern.AsError(rangeErr); e != nil {
			for _, fe := range e.Fields {
				form.Invalid[fe.Field] = true
			}
		}
	} else {
		form.From, form.To = q.From.Format(time.DateOnly), q.To.Format(time.DateOnly)
	}
	v.Form = form
	v.Presets = analyticsPresetLinks(p.ID, today, q, rangeErr == nil)
	switch {
	case rangeErr != nil:
	case !features.Live(p.DeploymentType).Analytics:
		v.Unavailable = analyticsUnavailable(p)
	default:
		v.Report, err = h.analyticsReport(r, p, q)
		if err != nil {
			h.failed(w, r, "read analytics", err)
			return
		}
	}
	h.render(w, status, "analytics", d)
}

// analyticsCSV is a report's CSV, as the API answers it with Accept:
// text/csv: /dashboard/analytics/{report}.csv?project=&from=&to=.
func (h *Handler) analyticsCSV(w http.ResponseWriter, r *http.Request) {
	report, ok := strings.CutSuffix(r.PathValue("file"), ".csv")
	if !ok || !slices.Contains(httpapi.AnalyticsReports, report) {
		h.fail(w, r, http.StatusNotFound, "There is no analytics download at this address: the reports are views, searches, feedback and assistant.")
		return
	}
	ops := h.actions(w, r)
	if ops == nil {
		return
	}
	projects, err := h.orgProjects(r, sessionOf(r).user.OrgID)
	if err != nil {
		h.internal(w, r, "list projects", err)
		return
	}
	form, q, err := analyticsRange(r.URL.Query(), h.cfg.Now())
	p, ok := h.analyticsProject(w, r, ops, form.Project, projects)
	if !ok {
		return
	}
	if p == nil {
		h.fail(w, r, http.StatusNotFound, "Your organization has no projects yet, so no analytics.")
		return
	}
	if err != nil {
		// The page says what is wrong, with the form to correct it.
		h.analytics(w, r)
		return
	}
	rep, err := httpapi.ReadAnalytics(r.Context(), h.store, p, report, q)
	if err != nil {
		h.failed(w, r, "read analytics", err)
		return
	}
	csvfile.Write(w, rep.FileName(), rep.Table())
}

// analyticsUnavailable says why a project has no web analytics on this
// server (the spec's feature table: cloud sites only are counted here).
func analyticsUnavailable(p *lectern.Project) string {
	switch p.DeploymentType {
	case lectern.DeploymentClientHosted:
		return "“" + p.Name + "” is client-hosted: its sites count their own web analytics, if their configuration turns them on " +
			"(lectern selfhost records them and serves its own read API, or sends them to the collector analytics.endpoint names). " +
			"This server records none for it, so there is nothing to show here."
	case lectern.DeploymentAirGapped:
		return "“" + p.Name + "” is air-gapped: web analytics are unavailable for air-gapped deployments, whose sites send nothing anywhere."
	}
	return "“" + p.Name + "” is a " + string(p.DeploymentType) + " project: this server records web analytics for cloud projects only."
}
