package dashboard

import (
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/actions"
	"lectern.dev/lectern/httpapi"
	"lectern.dev/lectern/store"
)

// The exports pages: the organization's exports, start one (members
// too; the enterprise plan only), one export with its progress moving
// live, cancel it, and once it completed a signed download link with the
// `lectern selfhost` configuration that serves it. Every action goes
// through actions.Service with the signed-in user's organization, so
// another organization's exports are "not found" as missing ones are.

// exportsPerPage is how many exports the list shows at once.
const exportsPerPage = 25

// exportNotFound is the one answer for an export that is missing or
// another organization's, so that the two cannot be told apart.
const exportNotFound = "Your organization has no export with this id."

// exportRoutes registers the exports pages: start one, its live progress, the bundle link and the selfhost configuration, past exports.
func (h *Handler) exportRoutes(m router) {
	p := Prefix + "exports"
	m.HandleFunc("GET "+p, h.signedIn(h.exportList))
	m.HandleFunc("GET "+p+"/new", h.signedIn(h.exportNewForm))
	m.HandleFunc("POST "+p, h.signedIn(h.exportStart))
	m.HandleFunc("GET "+p+"/{id}", h.signedIn(h.exportShow))
	m.HandleFunc("GET "+p+"/{id}/live", h.signedIn(h.exportLive))
	m.HandleFunc("GET "+p+"/{id}/cancel", h.signedIn(h.exportCancelForm))
	m.HandleFunc("POST "+p+"/{id}/cancel", h.signedIn(h.exportCancel))
	m.HandleFunc("POST "+p+"/{id}/bundle", h.signedIn(h.exportBundle))
}

func init() {
	funcs["exports_size"] = exportSize
	funcs["exports_bytes"] = exportBytes
	funcs["exports_ended"] = exportEnded
}

// exportPlan says whether the organization's plan allows static export,
// and what to ask the server's operator when it does not: plans are set
// on the server (lectern admin), never from the dashboard.
type exportPlan struct {
	Allowed bool
	Plan    lectern.Plan
	OrgName string
	Command string
}

func (h *Handler) exportPlanOf(r *http.Request) (exportPlan, error) {
	o, err := h.store.GetOrg(r.Context(), sessionOf(r).user.OrgID)
	if err != nil {
		return exportPlan{}, err
	}
	return exportPlan{Allowed: o.Plan.AllowsStaticExport(), Plan: o.Plan, OrgName: o.Name,
		Command: "lectern admin org set-plan " + o.ID + " --plan " + string(lectern.PlanEnterprise)}, nil
}

// exportListView is the exports page.
type exportListView struct {
	Exports []*lectern.ExportJob
	Plan    exportPlan
	// Older is the next page's link, "" on the last page; Paged says
	// this is not the first page.
	Older string
	Paged bool
}

// exportList shows the organization's exports, newest first, a page at
// a time.
func (h *Handler) exportList(w http.ResponseWriter, r *http.Request) {
	pg, ok := listPage(r, exportsPerPage)
	if !ok {
		h.fail(w, r, http.StatusBadRequest, "This page link is broken: go back to the newest exports.")
		return
	}
	list, err := h.store.ListExports(r.Context(), store.ExportFilter{OrgID: sessionOf(r).user.OrgID}, pg)
	if err != nil {
		h.internal(w, r, "list exports", err)
		return
	}
	v := exportListView{Paged: pg.After != nil}
	list, older := trimPage(list, exportsPerPage, func(e *lectern.ExportJob) (time.Time, string) { return e.CreatedAt, e.ID })
	if older != "" {
		v.Older = Prefix + "exports?after=" + older
	}
	v.Exports = list
	if v.Plan, err = h.exportPlanOf(r); err != nil {
		h.internal(w, r, "read organization", err)
		return
	}
	h.render(w, http.StatusOK, "exports", page(r, "Exports", "exports", v))
}

// exportDomain is one choice of the start form.
type exportDomain struct {
	Domain, Project string
	Selected        bool
}

// exportNewView is the start form: the organization's domains and what
// the user chose or typed.
type exportNewView struct {
	Domains  []exportDomain
	Domain   string
	BasePath string
	Plan     exportPlan
	// Invalid names the field the error is about ("domain", "basePath").
	Invalid string
	// Running is the export already queued or running for the domain.
	Running string
}

// exportNewForm shows the start form; ?domain= chooses the domain.
func (h *Handler) exportNewForm(w http.ResponseWriter, r *http.Request) {
	h.exportNewPage(w, r, http.StatusOK, "", exportNewView{Domain: strings.ToLower(strings.TrimSpace(r.URL.Query().Get("domain")))})
}

// exportNewPage renders the start form with status and msg.
func (h *Handler) exportNewPage(w http.ResponseWriter, r *http.Request, status int, msg string, v exportNewView) {
	projects, err := h.orgProjects(r, sessionOf(r).user.OrgID)
	if err != nil {
		h.internal(w, r, "list projects", err)
		return
	}
	for _, p := range projects {
		for _, d := range p.Domains {
			v.Domains = append(v.Domains, exportDomain{Domain: d, Project: p.Name, Selected: d == v.Domain})
		}
	}
	slices.SortFunc(v.Domains, func(a, b exportDomain) int { return strings.Compare(a.Domain, b.Domain) })
	if v.Plan, err = h.exportPlanOf(r); err != nil {
		h.internal(w, r, "read organization", err)
		return
	}
	d := page(r, "Start an export", "exports", v)
	d.Message = msg
	h.render(w, status, "export_new", d)
}

// exportStart starts an export of one of the organization's domains and
// sends the browser to its page.
func (h *Handler) exportStart(w http.ResponseWriter, r *http.Request) {
	ops := h.actions(w, r)
	if ops == nil {
		return
	}
	v := exportNewView{Domain: strings.ToLower(strings.TrimSpace(r.PostFormValue("domain"))), BasePath: strings.TrimSpace(r.PostFormValue("basePath"))}
	again := func(status int, invalid, msg string) {
		v.Invalid = invalid
		h.exportNewPage(w, r, status, msg, v)
	}
	if v.Domain == "" {
		again(http.StatusBadRequest, "domain", "Choose the domain to export.")
		return
	}
	domain, err := lectern.NormalizeDomain(v.Domain)
	if err != nil {
		again(http.StatusBadRequest, "domain", "The domain is not valid: "+lectern.ErrorMessage(err)+".")
		return
	}
	base, err := lectern.NormalizeBasePath(v.BasePath)
	if err != nil {
		again(http.StatusBadRequest, "basePath", "The base path is not valid: "+strings.TrimPrefix(lectern.ErrorMessage(err), "basePath ")+
			". Give a path such as /docs, or leave it empty for the root.")
		return
	}
	s := sessionOf(r)
	e, err := ops.StartExport(r.Context(), s.user.OrgID, domain, base)
	var le *lectern.Error
	errors.As(err, &le)
	switch code := lectern.ErrorCode(err); code {
	case "":
	case lectern.EPLAN:
		// The form's plan notice says what to do; an alert would repeat it.
		again(http.StatusForbidden, "", "")
		return
	case lectern.ENOTFOUND:
		again(http.StatusNotFound, "domain", "Your organization has no project with the domain "+domain+": choose one of the list.")
		return
	case lectern.EEXPORTINPROGRESS:
		v.Running = le.JobID
		again(http.StatusConflict, "", "An export of "+domain+" is already queued or running: follow it, or cancel it before starting another.")
		return
	case lectern.ERATELIMITED:
		again(http.StatusTooManyRequests, "", "Your organization has started the most exports allowed in an hour. Try again in "+
			exportWait(le.RetryAfterSeconds)+".")
		return
	default:
		h.failed(w, r, "start export", err)
		return
	}
	h.log.Info("dashboard: export started", "export_id", e.ID, "org_id", e.OrgID, "user_id", s.user.ID)
	http.Redirect(w, r, Prefix+"exports/"+e.ID, http.StatusSeeOther)
}

// exportWait says how long a wait of secs seconds is, roughly.
func exportWait(secs int) string {
	switch {
	case secs <= 1:
		return "a second"
	case secs < 90:
		return strconv.Itoa(secs) + " seconds"
	}
	return "about " + strconv.Itoa((secs+59)/60) + " minutes"
}

// exportView is one export's page and its live part.
type exportView struct {
	Job *lectern.ExportJob
	// Project is its project's name ("" once the project was deleted).
	Project string
	// Link is the download link just signed, with what to paste.
	Link *exportLink
	// Queue says where it waits while queued.
	Queue *lectern.QueueInfo
}

// Live says the export may still change: its part keeps polling.
func (v exportView) Live() bool { return !v.Job.Status.Terminal() }

// exportFind returns the action service and the organization's export
// the path names, or renders the error (404 for another organization's).
func (h *Handler) exportFind(w http.ResponseWriter, r *http.Request) (*actions.Service, *exportView) {
	ops := h.actions(w, r)
	if ops == nil {
		return nil, nil
	}
	e, err := ops.Export(r.Context(), sessionOf(r).user.OrgID, r.PathValue("id"))
	if err != nil {
		h.exportFailed(w, r, "read export", err)
		return nil, nil
	}
	v := &exportView{Job: e}
	if e.Status == lectern.ExportQueued {
		v.Queue = h.queueInfo(r, ops, e.ID)
	}
	p, err := h.store.GetProject(r.Context(), e.ProjectID)
	switch {
	case err == nil && p.OrgID == e.OrgID:
		v.Project = p.Name
	case err != nil && lectern.ErrorCode(err) != lectern.ENOTFOUND:
		h.internal(w, r, "read project", err)
		return nil, nil
	}
	return ops, v
}

// exportFailed renders an action's error, every ENOTFOUND as
// exportNotFound.
func (h *Handler) exportFailed(w http.ResponseWriter, r *http.Request, what string, err error) {
	if lectern.ErrorCode(err) == lectern.ENOTFOUND {
		h.fail(w, r, http.StatusNotFound, exportNotFound)
		return
	}
	h.failed(w, r, what, err)
}

// exportPage renders one export's page.
func (h *Handler) exportPage(w http.ResponseWriter, r *http.Request, status int, v *exportView, msg, notice string) {
	d := page(r, "Export of "+v.Job.Domain, "exports", *v)
	d.Message, d.Notice = msg, notice
	h.render(w, status, "export", d)
}

// exportShow shows one export.
func (h *Handler) exportShow(w http.ResponseWriter, r *http.Request) {
	if _, v := h.exportFind(w, r); v != nil {
		h.exportPage(w, r, http.StatusOK, v, "", "")
	}
}

// exportLive is the export page's live part: status, progress, page
// count; without data-live once the export ended.
func (h *Handler) exportLive(w http.ResponseWriter, r *http.Request) {
	if _, v := h.exportFind(w, r); v != nil {
		h.renderPart(w, "export", "live", page(r, "", "exports", *v))
	}
}

// exportCancelForm asks to confirm a cancellation; an export that ended
// has nothing to cancel, so it goes back to its page.
func (h *Handler) exportCancelForm(w http.ResponseWriter, r *http.Request) {
	_, v := h.exportFind(w, r)
	if v == nil {
		return
	}
	if !v.Live() {
		http.Redirect(w, r, Prefix+"exports/"+v.Job.ID, http.StatusSeeOther)
		return
	}
	h.render(w, http.StatusOK, "export_cancel", page(r, "Cancel export", "exports", *v))
}

// exportCancel cancels a queued or running export (members too).
func (h *Handler) exportCancel(w http.ResponseWriter, r *http.Request) {
	ops, v := h.exportFind(w, r)
	if v == nil {
		return
	}
	e, err := ops.CancelExport(r.Context(), sessionOf(r).user.OrgID, v.Job.ID)
	if lectern.ErrorCode(err) == lectern.ECONFLICT {
		if _, v = h.exportFind(w, r); v != nil {
			h.exportPage(w, r, http.StatusConflict, v, "This export ended before it could be canceled: there is nothing to cancel.", "")
		}
		return
	}
	if err != nil {
		h.exportFailed(w, r, "cancel export", err)
		return
	}
	h.log.Info("dashboard: export canceled", "export_id", e.ID, "org_id", e.OrgID, "user_id", sessionOf(r).user.ID)
	v.Job = e
	h.exportPage(w, r, http.StatusOK, v, "", "Export canceled: it stops and builds no bundle.")
}

// exportBundle signs a fresh download link to a completed export's
// bundle and shows it with the selfhost configuration. The link is never
// logged: until it expires it opens the bundle to anyone.
func (h *Handler) exportBundle(w http.ResponseWriter, r *http.Request) {
	ops, v := h.exportFind(w, r)
	if v == nil {
		return
	}
	link, err := ops.Bundle(r.Context(), sessionOf(r).user.OrgID, v.Job.ID)
	switch code := lectern.ErrorCode(err); code {
	case "":
	case lectern.ENOTCOMPLETED, lectern.EJOBFAILED:
		h.exportPage(w, r, httpapi.StatusOf(code), v, lectern.ErrorMessage(err), "")
		return
	default:
		h.exportFailed(w, r, "sign bundle link", err)
		return
	}
	p, err := h.store.GetProject(r.Context(), v.Job.ProjectID)
	typ := lectern.DeploymentClientHosted
	if err == nil && p.DeploymentType == lectern.DeploymentAirGapped {
		typ = lectern.DeploymentAirGapped
	}
	v.Link = exportLinkOf(link, v.Job, typ)
	h.log.Info("dashboard: bundle link signed", "export_id", v.Job.ID, "org_id", v.Job.OrgID, "user_id", sessionOf(r).user.ID)
	h.exportPage(w, r, http.StatusOK, v, "", "")
}

// exportLink is a signed bundle link with the lines to paste: download
// it, check it, and serve it with lectern selfhost.
type exportLink struct {
	*actions.BundleLink
	File string
	// Curl downloads the bundle; Verify checks its SHA-256.
	Curl, Verify string
	// Type is the deployment type of the selfhost configuration Config;
	// an air-gapped one names the bundle file at Path instead of the
	// link, which it cannot reach.
	Type   lectern.DeploymentType
	Path   string
	Config string
	Rows   int
	// Check validates the configuration; Run serves the site.
	Check, Run string
}

// exportConfigFile is the name the selfhost configuration is shown for.
const exportConfigFile = "lectern.yaml"

// exportAirGappedDir is where the air-gapped configuration expects the
// bundle file to be carried in.
const exportAirGappedDir = "/srv/lectern/"

func exportLinkOf(b *actions.BundleLink, e *lectern.ExportJob, typ lectern.DeploymentType) *exportLink {
	file := e.Domain + "-export.tar.gz"
	if e.Bundle != nil && e.Bundle.FileName != "" {
		file = e.Bundle.FileName
	}
	l := &exportLink{BundleLink: b, File: file, Type: typ,
		Curl:   "curl -fLo " + exportShellQuote(file) + " " + exportShellQuote(b.BundleURL),
		Verify: "echo " + exportShellQuote(b.SHA256+"  "+file) + " | sha256sum -c -",
		Check:  "lectern selfhost --config " + exportConfigFile + " --check",
		Run:    "lectern selfhost --config " + exportConfigFile + " --addr 0.0.0.0:8090 --cache-dir /var/cache/lectern"}
	source := b.BundleURL
	if typ == lectern.DeploymentAirGapped {
		l.Path = exportAirGappedDir + file
		source = l.Path
	}
	l.Config = exportSelfhostConfig(typ, source, b.Version, b.ExpiresAt)
	l.Rows = strings.Count(l.Config, "\n") + 1
	return l
}

// exportSelfhostConfig is the smallest lectern selfhost configuration
// (docs/selfhost.md) that serves the bundle at source, pinned to its
// version: client-hosted with search on (it is configurable there, and
// off unless asked for), or air-gapped, which offers no search.
func exportSelfhostConfig(typ lectern.DeploymentType, source, version string, expires time.Time) string {
	var b strings.Builder
	if typ == lectern.DeploymentAirGapped {
		b.WriteString("# Carry the bundle file in to " + exportAirGappedDir + " first: an air-gapped host reaches no link.\n")
	} else {
		b.WriteString("# The link works until " + expires.UTC().Format(time.RFC3339) + "; selfhost keeps the verified bundle in its cache.\n")
	}
	b.WriteString("deployment:\n  type: " + string(typ) + "\n")
	b.WriteString("staticExport:\n  enabled: true\n  bundleUrl: " + exportYAMLQuote(source) + "\n")
	if version != "" && !strings.ContainsFunc(version, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		b.WriteString("  version: " + exportYAMLQuote(version) + "\n")
	}
	if typ == lectern.DeploymentClientHosted {
		b.WriteString("features:\n  search: true\n")
	}
	return b.String()
}

// exportYAMLQuote writes s as a single-quoted YAML scalar, in which only
// the quote itself needs escaping (doubled): a signed link's & ? = % stay
// as they are.
func exportYAMLQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// exportShellQuote quotes s for a POSIX shell when it holds anything but
// plainly safe characters.
func exportShellQuote(s string) string {
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("-._/:=@", r))
	}) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// exportSize is a size in bytes as people read it: 4.2 MB.
func exportSize(n int64) string {
	const unit = 1000
	if n < unit {
		return strconv.FormatInt(n, 10) + " bytes"
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	return strconv.FormatFloat(float64(n)/float64(div), 'f', 1, 64) + " " + string("kMGTP"[exp]) + "B"
}

// exportBytes writes n with thousands separators: 4,404,019.
func exportBytes(n int64) string {
	s := strconv.FormatInt(n, 10)
	if n < 0 {
		return s
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// exportEnded is when an export ended: completed or failed at its
// completion time, canceled at its last change; nil while it runs.
func exportEnded(e *lectern.ExportJob) *time.Time {
	switch {
	case !e.Status.Terminal():
		return nil
	case e.CompletedAt != nil:
		return e.CompletedAt
	}
	return &e.UpdatedAt
}
