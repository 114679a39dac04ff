package dashboard

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/actions"
	"lectern.dev/lectern/selfhost"
	"lectern.dev/lectern/store"
)

const exportsPlanMsg = "Static export needs the enterprise plan."

// exportsBrowser signs in as email and returns the browser.
func exportsBrowser(e *env, email, pw string) *browser {
	e.t.Helper()
	b := e.browser("192.0.2.40")
	if s := b.signIn(email, pw); s != http.StatusSeeOther {
		e.t.Fatalf("sign in as %s: %d", email, s)
	}
	return b
}

// exportsEnterprise moves acme to the enterprise plan.
func exportsEnterprise(e *env) {
	e.t.Helper()
	if err := e.st.SetOrgPlan(context.Background(), e.acme.ID, lectern.PlanEnterprise); err != nil {
		e.t.Fatal(err)
	}
}

// exportsStart posts the start form and returns its status.
func exportsStart(b *browser, domain, basePath string) int {
	b.e.t.Helper()
	if s := b.do("GET", "/dashboard/exports/new", nil); s != 200 {
		b.e.t.Fatalf("start form: %d", s)
	}
	return b.do("POST", "/dashboard/exports", url.Values{"csrf": {b.csrf()}, "domain": {domain}, "basePath": {basePath}})
}

// exportsList returns acme's exports.
func exportsList(e *env) []*lectern.ExportJob {
	e.t.Helper()
	list, err := e.st.ListExports(context.Background(), store.ExportFilter{OrgID: e.acme.ID}, store.Page{})
	if err != nil {
		e.t.Fatal(err)
	}
	return list
}

// exportsStarted starts an export of the project's domain as b and
// returns it.
func exportsStarted(b *browser) *lectern.ExportJob {
	b.e.t.Helper()
	if s := exportsStart(b, docsDomain, ""); s != http.StatusSeeOther {
		b.e.t.Fatalf("start export: %d\n%s", s, b.body)
	}
	list := exportsList(b.e)
	if len(list) == 0 || b.last.Header.Get("Location") != "/dashboard/exports/"+list[0].ID {
		b.e.t.Fatalf("start export went to %q; exports %v", b.last.Header.Get("Location"), list)
	}
	return list[0]
}

// exportsClaim leases export id as a worker would.
func exportsClaim(e *env, id string) store.Lease {
	e.t.Helper()
	j, l, err := e.st.ClaimJob(context.Background(), store.ClaimParams{Kinds: []string{store.KindExport}, Owner: "test-worker",
		Now: time.Now().Add(time.Second), LeaseFor: time.Hour})
	if err != nil || j == nil || j.ID != id {
		e.t.Fatalf("claim export %s: %v, %v", id, j, err)
	}
	return l
}

var exportsBundle = lectern.Bundle{FileName: "docs.acme.test-export-2025-01-31.tar.gz", SizeBytes: 4404019,
	SHA256: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", Version: "4f1c2a9e8b7d-exp"}

// exportsComplete finishes the leased export with exportsBundle.
func exportsComplete(e *env, l store.Lease) {
	e.t.Helper()
	b := exportsBundle
	b.Key = "exports/" + l.JobID + "/" + b.FileName
	if err := e.st.FinishExport(context.Background(), l, store.ExportResult{Status: lectern.ExportCompleted, PageCount: 42, Bundle: &b, At: time.Now()}); err != nil {
		e.t.Fatal(err)
	}
}

func TestExportsFreePlan(t *testing.T) {
	e := newEnv(t, Config{})
	b := exportsBrowser(e, "member@acme.test", memberPW)
	command := "lectern admin org set-plan " + e.acme.ID + " --plan enterprise"
	for _, path := range []string{"/dashboard/exports", "/dashboard/exports/new"} {
		if s := b.do("GET", path, nil); s != 200 || !b.has(exportsPlanMsg) || !b.has(command) || !b.has("operator") {
			t.Errorf("%s on the free plan: %d; want the enterprise message and the operator's command", path, s)
		}
	}
	if !b.has(`<option value="docs.acme.test"`) {
		t.Error("the start form does not offer the project's domain")
	}
	if s := exportsStart(b, docsDomain, ""); s != http.StatusForbidden || !b.has(exportsPlanMsg) || !b.has(command) || !b.has(`role="alert"`) {
		t.Fatalf("start on the free plan: %d, want 403 with the enterprise message\n%s", s, b.body)
	}
	if n := len(exportsList(e)); n != 0 || e.jobs.n.Load() != 0 {
		t.Errorf("a free plan's start created %d exports and queued %d jobs", n, e.jobs.n.Load())
	}
	exportsEnterprise(e)
	if b.do("GET", "/dashboard/exports/new", nil); b.has(exportsPlanMsg) {
		t.Error("the enterprise plan still gets the plan message")
	}
}

// TestExportsFollow: a member starts an export; its page moves live while
// it runs and stops polling once it completed.
func TestExportsFollow(t *testing.T) {
	e := newEnv(t, Config{})
	exportsEnterprise(e)
	b := exportsBrowser(e, "member@acme.test", memberPW)
	if b.do("GET", "/dashboard/exports/new?domain="+docsDomain, nil); !b.has(`<option value="docs.acme.test" selected>`) {
		t.Error("?domain= does not choose the domain")
	}
	if s := exportsStart(b, "Docs.Acme.Test", "/guides/"); s != http.StatusSeeOther {
		t.Fatalf("member starts an export: %d\n%s", s, b.body)
	}
	list := exportsList(e)
	if len(list) != 1 || list[0].Domain != docsDomain || list[0].BasePath != "/guides" || list[0].ProjectID != e.project.ID {
		t.Fatalf("exports after the start: %+v", list)
	}
	if n := e.jobs.n.Load(); n != 1 {
		t.Errorf("jobs notified: %d, want 1", n)
	}
	x := list[0]
	if s := b.do("GET", "/dashboard/exports/"+x.ID, nil); s != 200 || !b.has(`data-live="/dashboard/exports/`+x.ID+`/live"`) ||
		!b.has(`<label for="export-progress">Progress</label>`) || !b.has("queued") || !b.has("/cancel") ||
		!b.has(`<dd id="export-queue">1st of your organization&#39;s jobs to start; the workers are busy.</dd>`) {
		t.Fatalf("queued export's page: %d\n%s", s, b.body)
	}

	// A second start of the same domain points to the running one.
	if s := exportsStart(b, docsDomain, ""); s != http.StatusConflict || !b.has("already queued or running") || !b.has(`href="/dashboard/exports/`+x.ID+`"`) {
		t.Errorf("start while one runs: %d, want 409 linking the running export\n%s", s, b.body)
	}
	if len(exportsList(e)) != 1 {
		t.Error("the refused start created an export")
	}
	if s := b.do("POST", "/dashboard/exports/"+x.ID+"/bundle", url.Values{"csrf": {b.csrf()}}); s != http.StatusConflict || !b.has("poll it until status is completed") {
		t.Errorf("bundle of a queued export: %d, want 409 saying it has not completed", s)
	}

	l := exportsClaim(e, x.ID)
	if err := e.st.SetExportProgress(context.Background(), l, 40, 17, time.Now()); err != nil {
		t.Fatal(err)
	}
	if s := b.do("GET", "/dashboard/exports/"+x.ID+"/live", nil); s != 200 || !strings.HasPrefix(strings.TrimSpace(b.body), `<section id="export-live"`) ||
		!b.has(`data-live=`) || !b.has(`value="40"`) || !b.has(`<dd id="export-pages">17</dd>`) || b.has("<html") {
		t.Fatalf("live part while running: %d\n%s", s, b.body)
	}
	exportsComplete(e, l)
	if s := b.do("GET", "/dashboard/exports/"+x.ID+"/live", nil); s != 200 || b.has("data-live") || !b.has("completed") ||
		!b.has(`value="100"`) || !b.has(`<dd id="export-pages">42</dd>`) || !b.has("Generate download link") || b.has("/cancel") {
		t.Fatalf("live part once completed: %d; want no data-live, the bundle button and no cancel\n%s", s, b.body)
	}
	if s := b.do("GET", "/dashboard/exports/"+x.ID, nil); s != 200 || b.has("data-live") {
		t.Errorf("completed export's page still polls: %d", s)
	}
	if s := b.do("GET", "/dashboard/exports", nil); s != 200 || !b.has(`href="/dashboard/exports/`+x.ID+`"`) || !b.has("docs.acme.test/guides") || !b.has("completed") {
		t.Errorf("exports list: %d\n%s", s, b.body)
	}
}

var exportsInputRe = regexp.MustCompile(`id="(bundle-url|bundle-curl|selfhost-run|selfhost-check)" type="text" readonly value="([^"]*)"`)
var exportsConfigRe = regexp.MustCompile(`(?s)<textarea id="selfhost-config"[^>]*>(.*?)</textarea>`)

// exportsLinkPage reads the bundle page's copyable lines and the selfhost
// configuration, loaded with selfhost's own loader.
func exportsLinkPage(b *browser) (map[string]string, *selfhost.Config) {
	b.e.t.Helper()
	lines := map[string]string{}
	for _, m := range exportsInputRe.FindAllStringSubmatch(b.body, -1) {
		lines[m[1]] = html.UnescapeString(m[2])
	}
	m := exportsConfigRe.FindStringSubmatch(b.body)
	if m == nil {
		b.e.t.Fatalf("no selfhost configuration on the page:\n%s", b.body)
	}
	file := filepath.Join(b.e.t.TempDir(), "lectern.yaml")
	if err := os.WriteFile(file, []byte(html.UnescapeString(m[1])), 0o600); err != nil {
		b.e.t.Fatal(err)
	}
	cfg, err := selfhost.LoadConfig(file, func(string) string { return "" })
	if err != nil {
		b.e.t.Fatalf("selfhost refuses the configuration the page shows: %v\n%s", err, html.UnescapeString(m[1]))
	}
	return lines, cfg
}

func TestExportsBundleLink(t *testing.T) {
	e := newEnv(t, Config{})
	exportsEnterprise(e)
	b := exportsBrowser(e, "member@acme.test", memberPW)
	x := exportsStarted(b)
	exportsComplete(e, exportsClaim(e, x.ID))
	b.do("GET", "/dashboard/exports/"+x.ID, nil)
	tok := b.csrf()
	if s := b.do("POST", "/dashboard/exports/"+x.ID+"/bundle", url.Values{}); s != http.StatusForbidden || b.has("_lectern/download") {
		t.Errorf("bundle without the CSRF token: %d, want 403 and no link", s)
	}
	if s := b.do("POST", "/dashboard/exports/"+x.ID+"/bundle", url.Values{"csrf": {tok}}); s != 200 {
		t.Fatalf("bundle: %d\n%s", s, b.body)
	}
	for _, want := range []string{exportsBundle.SHA256, exportsBundle.Version, "4,404,019 bytes", "4.4 MB", "Expires", `data-copy-from="bundle-url"`,
		`data-copy-from="bundle-curl"`, `data-copy-from="selfhost-config"`, "Generate a new download link"} {
		if !b.has(want) {
			t.Errorf("the bundle page lacks %q", want)
		}
	}
	lines, cfg := exportsLinkPage(b)
	link := lines["bundle-url"]
	if !strings.HasPrefix(link, "https://"+serverHost+"/_lectern/download/exports/"+x.ID+"/") || !strings.Contains(link, "signature=") {
		t.Fatalf("bundle URL %q, want a signed link to the export's archive", link)
	}
	if want := "curl -fLo " + exportsBundle.FileName + " '" + link + "'"; lines["bundle-curl"] != want {
		t.Errorf("curl line %q, want %q", lines["bundle-curl"], want)
	}
	if lines["selfhost-check"] != "lectern selfhost --config lectern.yaml --check" || !strings.HasPrefix(lines["selfhost-run"], "lectern selfhost --config lectern.yaml") {
		t.Errorf("selfhost command lines %q, %q", lines["selfhost-check"], lines["selfhost-run"])
	}
	if cfg.Type != lectern.DeploymentClientHosted || cfg.BundleURL != link || cfg.Version != exportsBundle.Version || !cfg.Features[lectern.FeatureSearch] {
		t.Errorf("selfhost reads the configuration as %s, %q, version %q, search %v; want client-hosted with the link, its version and search",
			cfg.Type, cfg.BundleURL, cfg.Version, cfg.Features[lectern.FeatureSearch])
	}
	if strings.Contains(e.logs.String(), "signature=") {
		t.Error("the signed link reached the log")
	}

	// An air-gapped project's configuration names the file carried in.
	air := lectern.DeploymentAirGapped
	if _, err := e.st.UpdateProject(context.Background(), e.project.ID, store.ProjectChange{DeploymentType: &air}); err != nil {
		t.Fatal(err)
	}
	if s := b.do("POST", "/dashboard/exports/"+x.ID+"/bundle", url.Values{"csrf": {tok}}); s != 200 {
		t.Fatalf("bundle of the air-gapped project: %d", s)
	}
	if _, cfg = exportsLinkPage(b); cfg.Type != air || cfg.BundleURL != "/srv/lectern/"+exportsBundle.FileName {
		t.Errorf("air-gapped configuration: %s with %q, want air-gapped with the carried-in file", cfg.Type, cfg.BundleURL)
	}
}

func TestExportsCancel(t *testing.T) {
	e := newEnv(t, Config{})
	exportsEnterprise(e)
	b := exportsBrowser(e, "member@acme.test", memberPW)
	x := exportsStarted(b)
	if s := b.do("GET", "/dashboard/exports/"+x.ID+"/cancel", nil); s != 200 || !b.has("Cancel export") || !b.has("Keep it running") {
		t.Fatalf("cancel confirmation: %d", s)
	}
	tok := b.csrf()
	if s := b.do("POST", "/dashboard/exports/"+x.ID+"/cancel", url.Values{}); s != http.StatusForbidden {
		t.Errorf("cancel without the CSRF token: %d, want 403", s)
	}
	if got, _ := e.st.GetExport(context.Background(), x.ID); got.Status != lectern.ExportQueued {
		t.Fatalf("after the confirmation page and a tokenless POST: %s, want queued", got.Status)
	}
	if s := b.do("POST", "/dashboard/exports/"+x.ID+"/cancel", url.Values{"csrf": {tok}}); s != 200 || !b.has("Export canceled") || b.has("data-live") {
		t.Fatalf("member cancels: %d\n%s", s, b.body)
	}
	if got, _ := e.st.GetExport(context.Background(), x.ID); got.Status != lectern.ExportCanceled {
		t.Errorf("status after cancel: %s", got.Status)
	}
	if s := b.do("POST", "/dashboard/exports/"+x.ID+"/cancel", url.Values{"csrf": {tok}}); s != http.StatusConflict || !b.has("nothing to cancel") {
		t.Errorf("cancel again: %d, want 409", s)
	}
	if s := b.do("GET", "/dashboard/exports/"+x.ID+"/cancel", nil); s != http.StatusSeeOther {
		t.Errorf("confirmation of an ended export: %d, want a redirect to its page", s)
	}
	if s := b.do("POST", "/dashboard/exports/"+x.ID+"/bundle", url.Values{"csrf": {tok}}); s != http.StatusConflict || !b.has("was canceled") {
		t.Errorf("bundle of a canceled export: %d, want 409", s)
	}

	// A failed export shows why.
	y := exportsStarted(b)
	l := exportsClaim(e, y.ID)
	err := e.st.FinishExport(context.Background(), l, store.ExportResult{Status: lectern.ExportFailed, At: time.Now(),
		Error: &lectern.JobError{Code: "no_live_deployment", Message: "The domain has no live deployment."}})
	if err != nil {
		t.Fatal(err)
	}
	if s := b.do("GET", "/dashboard/exports/"+y.ID+"/live", nil); s != 200 || b.has("data-live") || !b.has("The domain has no live deployment.") || !b.has(`role="alert"`) {
		t.Errorf("failed export's live part: %d\n%s", s, b.body)
	}
}

// TestExportsOtherOrg: another organization's export answers 404 on
// every route, exactly as a missing one, and is left as it was.
func TestExportsOtherOrg(t *testing.T) {
	e := newEnv(t, Config{})
	ctx := context.Background()
	exportsEnterprise(e)
	if err := e.st.SetOrgPlan(ctx, e.other.ID, lectern.PlanEnterprise); err != nil {
		t.Fatal(err)
	}
	op := &lectern.Project{OrgID: e.other.ID, Name: "Other docs", RepoURL: "https://git.example/other.git", Branch: "main",
		DocsRoot: "/", Domains: []string{"docs.other.test"}, DeploymentType: lectern.DeploymentCloud}
	if err := e.st.CreateProject(ctx, op); err != nil {
		t.Fatal(err)
	}
	ox := &lectern.ExportJob{OrgID: e.other.ID, ProjectID: op.ID, Domain: "docs.other.test"}
	if err := e.st.CreateExport(ctx, ox, store.ExportQuota{}); err != nil {
		t.Fatal(err)
	}
	b := exportsBrowser(e, "owner@acme.test", ownerPW)
	b.do("GET", "/dashboard/exports", nil)
	tok := b.csrf()
	if b.has(ox.ID) || b.has("docs.other.test") {
		t.Error("the exports list shows another organization's export")
	}
	var bodies []string
	for _, id := range []string{ox.ID, lectern.NewID("exp_")} {
		for _, rt := range []struct{ method, path string }{{"GET", ""}, {"GET", "/live"}, {"GET", "/cancel"}, {"POST", "/cancel"}, {"POST", "/bundle"}} {
			if s := b.do(rt.method, "/dashboard/exports/"+id+rt.path, url.Values{"csrf": {tok}}); s != http.StatusNotFound || !b.has(exportNotFound) {
				t.Errorf("%s %s of %s: %d, want 404", rt.method, rt.path, id, s)
			}
			bodies = append(bodies, strings.ReplaceAll(b.body, id, "ID"))
		}
	}
	for i := range 5 {
		if bodies[i] != bodies[i+5] {
			t.Errorf("route %d answers another organization's export differently from a missing one", i)
		}
	}
	if got, _ := e.st.GetExport(ctx, ox.ID); got.Status != lectern.ExportQueued {
		t.Errorf("another organization's export is now %s", got.Status)
	}
	if s := exportsStart(b, "docs.other.test", ""); s != http.StatusNotFound || !b.has("no project with the domain docs.other.test") {
		t.Errorf("start an export of another organization's domain: %d, want 404", s)
	}
	if n := len(exportsList(e)); n != 0 || e.jobs.n.Load() != 0 {
		t.Errorf("%d exports created for another organization's domain", n)
	}
}

func TestExportsBadInput(t *testing.T) {
	e := newEnv(t, Config{})
	exportsEnterprise(e)
	b := exportsBrowser(e, "owner@acme.test", ownerPW)
	if s := exportsStart(b, docsDomain, "guides/../x"); s != http.StatusBadRequest || !b.has("The base path is not valid") ||
		!b.has(`value="guides/../x"`) || !b.has(`aria-invalid="true"`) || !b.has(`<option value="docs.acme.test" selected>`) {
		t.Errorf("bad base path: %d, want 400 with the form as typed\n%s", s, b.body)
	}
	if s := exportsStart(b, "", ""); s != http.StatusBadRequest || !b.has("Choose the domain to export.") {
		t.Errorf("no domain: %d, want 400", s)
	}
	if s := exportsStart(b, "https://docs.acme.test", ""); s != http.StatusBadRequest || !b.has("The domain is not valid") {
		t.Errorf("a URL as domain: %d, want 400", s)
	}
	b.do("GET", "/dashboard/exports/new", nil)
	if s := b.do("POST", "/dashboard/exports", url.Values{"domain": {docsDomain}}); s != http.StatusForbidden {
		t.Errorf("start without the CSRF token: %d, want 403", s)
	}
	if n := len(exportsList(e)); n != 0 || e.jobs.n.Load() != 0 {
		t.Fatalf("refused starts created %d exports", n)
	}

	// The hourly quota: a clear message, and nothing created.
	e.h.cfg.Actions.ExportsPerHour = 1
	x := exportsStarted(b)
	if _, err := e.st.CancelExport(context.Background(), x.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	if s := exportsStart(b, docsDomain, ""); s != http.StatusTooManyRequests || !b.has("the most exports allowed in an hour") || !b.has("Try again in") {
		t.Errorf("start beyond the quota: %d, want 429 with when to retry\n%s", s, b.body)
	}
	if n := len(exportsList(e)); n != 1 {
		t.Errorf("exports after the refused start: %d, want 1", n)
	}
}

func TestExportsPaging(t *testing.T) {
	e := newEnv(t, Config{})
	ctx := context.Background()
	t0 := time.Now().Add(-time.Hour).Truncate(time.Second)
	var ids []string
	for i := range exportsPerPage + 2 {
		x := &lectern.ExportJob{OrgID: e.acme.ID, ProjectID: e.project.ID, Domain: docsDomain, CreatedAt: t0.Add(time.Duration(i) * time.Second)}
		if err := e.st.CreateExport(ctx, x, store.ExportQuota{}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.st.CancelExport(ctx, x.ID, time.Now()); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, x.ID)
	}
	b := exportsBrowser(e, "member@acme.test", memberPW)
	b.do("GET", "/dashboard/exports", nil)
	older := regexp.MustCompile(`<a href="([^"]+)">Older</a>`).FindStringSubmatch(b.body)
	if older == nil || !b.has(ids[len(ids)-1]) || !b.has(ids[2]) || b.has(ids[1]) {
		t.Fatalf("first page: want the newest %d exports and an Older link\n%s", exportsPerPage, b.body)
	}
	if s := b.do("GET", html.UnescapeString(older[1]), nil); s != 200 || !b.has(ids[0]) || !b.has(ids[1]) || b.has(ids[2]) || b.has(">Older<") || !b.has(">Newest<") {
		t.Errorf("second page: %d; want the two oldest and a Newest link", s)
	}
	if s := b.do("GET", "/dashboard/exports?after=not-a-cursor", nil); s != http.StatusBadRequest {
		t.Errorf("broken cursor: %d, want 400", s)
	}
}

// TestExportsSelfhostFlags: every flag of the command lines the bundle
// page shows is one that lectern selfhost declares (cli/selfhost.go; the
// cli package imports this one, so its command cannot run here).
func TestExportsSelfhostFlags(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "cli", "selfhost.go"))
	if err != nil {
		t.Fatal(err)
	}
	declared := map[string]bool{}
	for _, m := range regexp.MustCompile(`fs\.\w+Var\(&f\.\w+, "([a-z-]+)"`).FindAllStringSubmatch(string(src), -1) {
		declared[m[1]] = true
	}
	if !declared["config"] {
		t.Fatalf("found no flag declarations in cli/selfhost.go: %v", declared)
	}
	l := exportLinkOf(&actions.BundleLink{BundleURL: "https://" + serverHost + "/x.tar.gz", SHA256: exportsBundle.SHA256, Version: "v1"},
		&lectern.ExportJob{Domain: docsDomain}, lectern.DeploymentClientHosted)
	for _, line := range []string{l.Check, l.Run} {
		if !strings.HasPrefix(line, "lectern selfhost ") {
			t.Errorf("%q does not run lectern selfhost", line)
		}
		for _, m := range regexp.MustCompile(`--([a-z-]+)`).FindAllStringSubmatch(line, -1) {
			if !declared[m[1]] {
				t.Errorf("%q uses --%s, which lectern selfhost does not declare", line, m[1])
			}
		}
	}
}
