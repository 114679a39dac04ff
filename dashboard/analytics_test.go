package dashboard

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"lectern.dev/lectern"
	"lectern.dev/lectern/password"
)

// Visitors of the seeded analytics: day-hashes, 32 hex digits.
var (
	analyticsVisitorA = strings.Repeat("a", 32)
	analyticsVisitorB = strings.Repeat("b", 32)
	analyticsVisitorC = strings.Repeat("c", 32)
)

// analyticsAt is a time on day d of March 2025, at hour h UTC.
func analyticsAt(d, h int) time.Time { return time.Date(2025, 3, d, h, 0, 0, 0, time.UTC) }

// analyticsSeed records, for project p, page views, searches, votes and
// assistant questions on 1 and 3 March 2025, and some on 28 February and 4
// March, outside the range the tests ask for (the API's tests' events).
func (e *env) analyticsSeed(p *lectern.Project) {
	e.t.Helper()
	ctx := context.Background()
	yes, no := true, false
	view := func(when time.Time, v, path, ref string) lectern.AnalyticsEvent {
		return lectern.AnalyticsEvent{ProjectID: p.ID, At: when, Kind: lectern.AnalyticsPageview, Visitor: v, Path: path, Referrer: ref}
	}
	search := func(when time.Time, v, q string, results int, clicked string) lectern.AnalyticsEvent {
		return lectern.AnalyticsEvent{ProjectID: p.ID, At: when, Kind: lectern.AnalyticsSearch, Visitor: v, Path: "/", Query: q, Results: results, Clicked: clicked}
	}
	vote := func(when time.Time, v, path string, helpful *bool, comment string) lectern.AnalyticsEvent {
		return lectern.AnalyticsEvent{ProjectID: p.ID, At: when, Kind: lectern.AnalyticsFeedback, Visitor: v, Path: path, Helpful: helpful, Comment: comment}
	}
	A, B, C := analyticsVisitorA, analyticsVisitorB, analyticsVisitorC
	events := []lectern.AnalyticsEvent{
		view(analyticsAt(1, 8), A, "/quickstart", "www.google.com"),
		view(analyticsAt(1, 9), A, "/quickstart", ""),
		view(analyticsAt(1, 10), B, "/guides/deploy", "www.google.com"),
		view(analyticsAt(1, 11), B, "/quickstart", "news.ycombinator.com"),
		view(analyticsAt(3, 8), A, "/quickstart", ""),
		view(analyticsAt(3, 9), C, "@SUM(1+1)", ""),
		view(time.Date(2025, 2, 28, 23, 59, 0, 0, time.UTC), A, "/quickstart", "www.google.com"),
		view(analyticsAt(4, 0), A, "/quickstart", ""),

		search(analyticsAt(1, 8), A, "Install", 3, "/quickstart"),
		search(analyticsAt(1, 9), B, "install", 3, ""),
		search(analyticsAt(1, 10), A, "rollback", 0, ""),
		search(analyticsAt(1, 11), B, "=1+2", 0, ""),
		search(analyticsAt(3, 8), C, "rollback", 0, ""),
		search(analyticsAt(3, 9), C, "  INSTALL ", 2, "/quickstart"),
		search(analyticsAt(4, 1), C, "rollback", 0, ""),

		vote(analyticsAt(1, 8), A, "/quickstart", &yes, "Clear, thanks"),
		vote(analyticsAt(1, 9), B, "/quickstart", &no, ""),
		vote(analyticsAt(1, 10), B, "/guides/deploy", &no, "+cmd missing steps"),
		vote(analyticsAt(3, 9), C, "/guides/deploy", &no, `=HYPERLINK("http://x")`),
		vote(analyticsAt(4, 2), C, "/guides/deploy", &no, "too late"),
	}
	if err := e.st.RecordAnalytics(ctx, events); err != nil {
		e.t.Fatal(err)
	}
	cite := func(urls ...string) []lectern.AssistantCitation {
		var cs []lectern.AssistantCitation
		for _, u := range urls {
			cs = append(cs, lectern.AssistantCitation{Title: "T", URL: u})
		}
		return cs
	}
	for _, m := range []*lectern.AssistantMessage{
		{ID: "ask_1" + p.ID, ProjectID: p.ID, Source: lectern.AssistantFromSite, Domain: docsDomain, Question: "How do I install?", Answer: "Run it.",
			Found: true, Citations: cite("/quickstart#install", "/quickstart#verify", "/guides/deploy"), Helpful: &yes, CreatedAt: analyticsAt(1, 8)},
		{ID: "ask_2" + p.ID, ProjectID: p.ID, Source: lectern.AssistantFromAPI, Question: "How do I roll back?", Answer: "No answer was found.",
			Helpful: &no, CreatedAt: analyticsAt(1, 9)},
		{ID: "ask_3" + p.ID, ProjectID: p.ID, Source: lectern.AssistantFromMCP, Question: "=cmd|' /C calc'!A0", Answer: "See deploy.",
			Found: true, Citations: cite("/guides/deploy#rolling-back"), CreatedAt: analyticsAt(3, 10)},
		{ID: "ask_4" + p.ID, ProjectID: p.ID, Source: lectern.AssistantFromSite, Domain: docsDomain, Question: "Too late?", CreatedAt: analyticsAt(4, 0)},
	} {
		if err := e.st.RecordAssistantMessage(ctx, m); err != nil {
			e.t.Fatal(err)
		}
	}
}

// analyticsProject creates a project of org.
func (e *env) analyticsProject(org *lectern.Organization, name, domain string, t lectern.DeploymentType) *lectern.Project {
	e.t.Helper()
	p := &lectern.Project{OrgID: org.ID, Name: name, RepoURL: "https://git.example/" + domain + ".git", Branch: "main", DocsRoot: "/",
		Domains: []string{domain}, DeploymentType: t}
	if err := e.st.CreateProject(context.Background(), p); err != nil {
		e.t.Fatal(err)
	}
	return p
}

// analyticsSignedIn returns a browser signed in as email.
func (e *env) analyticsSignedIn(email, pw string) *browser {
	e.t.Helper()
	b := e.browser("192.0.2.40")
	if s := b.signIn(email, pw); s != http.StatusSeeOther {
		e.t.Fatalf("sign in as %s: %d", email, s)
	}
	return b
}

var analyticsBarRe = regexp.MustCompile(`<rect class="chart-bar"[^>]*><title>([^<]*)</title></rect>`)

// TestAnalyticsPage: the page of a range shows the views per day as a
// chart of one bar per day and as a table of the same figures, the
// totals, top pages and referrers, searches and those that found
// nothing, votes and comments, and the assistant's questions, all of this
// project and these days only, readers' text escaped.
func TestAnalyticsPage(t *testing.T) {
	e := newEnv(t, Config{})
	e.analyticsSeed(e.project)
	other := e.analyticsProject(e.acme, "Acme API", "api.acme.test", lectern.DeploymentCloud)
	e.st.RecordAnalytics(context.Background(), []lectern.AnalyticsEvent{{ProjectID: other.ID, At: analyticsAt(2, 8),
		Kind: lectern.AnalyticsPageview, Visitor: analyticsVisitorA, Path: "/other-project-page"}})
	b := e.analyticsSignedIn("owner@acme.test", ownerPW)
	if s := b.do("GET", "/dashboard/analytics?project="+e.project.ID+"&from=2025-03-01&to=2025-03-03", nil); s != 200 {
		t.Fatalf("analytics page: %d\n%s", s, b.body)
	}
	bars := analyticsBarRe.FindAllStringSubmatch(b.body, -1)
	if len(bars) != 3 || bars[0][1] != "2025-03-01: 4 views" || bars[1][1] != "2025-03-02: 0 views" || bars[2][1] != "2025-03-03: 2 views" {
		t.Errorf("the chart's bars: %q, want 3 days of 4, 0 and 2 views", bars)
	}
	for _, want := range []string{
		// The chart's text alternative and the table of the same figures.
		`<title id="views-chart-title">Views per day, 2025-03-01 to 2025-03-03</title>`,
		"6 views in 3 days, from 2025-03-01 to 2025-03-03; the most, 4, on 2025-03-01.",
		`<caption>Views and visitors per day</caption>`,
		`<tr><th scope="row">2025-03-01</th><td>4</td><td>2</td></tr>`,
		`<tr><th scope="row">2025-03-02</th><td>0</td><td>0</td></tr>`,
		`<tr><th scope="row">2025-03-03</th><td>2</td><td>2</td></tr>`,
		// Totals and lists.
		`<dt>Views</dt><dd>6</dd>`, `<dt>Visitors</dt><dd>4</dd>`,
		`<th scope="row"><code>/quickstart</code></th><td class="num">4</td><td class="num">3</td>`,
		`<th scope="row"><code>@SUM(1&#43;1)</code></th>`,
		`<th scope="row">www.google.com</th><td class="num">2</td>`,
		`<dt>Searches</dt><dd>6</dd>`, `<dt>Found nothing</dt><dd>3</dd>`,
		`<th scope="row">install</th><td class="num">3</td><td class="num">66.7%</td>`,
		`<th scope="row">rollback</th><td class="num">2</td></tr>`,
		`<th scope="row">=1&#43;2</th><td class="num">1</td></tr>`,
		`<dt>Helpful</dt><dd>1</dd>`, `<dt>Not helpful</dt><dd>3</dd>`,
		`<blockquote>=HYPERLINK(&#34;http://x&#34;)</blockquote>`, `<blockquote>Clear, thanks</blockquote>`,
		`<dt>Questions</dt><dd>3</dd>`, `<dt>Answered</dt><dd>2</dd>`,
		`<th scope="row">How do I install?</th>`, `<td>site (docs.acme.test)</td>`,
		`<th scope="row"><code>/guides/deploy</code></th><td class="num">2</td>`,
		// Downloads of this project and range.
		`href="/dashboard/analytics/views.csv?from=2025-03-01&amp;limit=1000&amp;project=` + e.project.ID + `&amp;to=2025-03-03"`,
		`href="/dashboard/analytics/assistant.csv?`,
	} {
		if !strings.Contains(b.body, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	for _, not := range []string{"too late", "Too late?", "/other-project-page", "style=", "<script>"} {
		if strings.Contains(b.body, not) {
			t.Errorf("the page holds %q (another day's or project's, or inline script or style)", not)
		}
	}
	// The form shows the range; the picker offers both projects, this one chosen.
	for _, want := range []string{`<label for="a-from">From</label>`, `id="a-from" name="from" type="date" value="2025-03-01"`,
		`value="2025-03-03"`, `<option value="` + e.project.ID + `" selected>Acme docs</option>`, `<option value="` + other.ID + `">Acme API</option>`} {
		if !strings.Contains(b.body, want) {
			t.Errorf("the form lacks %s", want)
		}
	}

	// The other project, chosen in the picker.
	if s := b.do("GET", "/dashboard/analytics?project="+other.ID+"&from=2025-03-01&to=2025-03-03", nil); s != 200 ||
		!b.has("/other-project-page") || b.has("/quickstart") {
		t.Errorf("the other project's page: %d", s)
	}
}

// TestAnalyticsDefaults: without a query the page shows the
// organization's first project over the 30 days up to today, the 30-day
// preset current; the presets link to 7, 30 and 90 days.
func TestAnalyticsDefaults(t *testing.T) {
	e := newEnv(t, Config{})
	today := lectern.AnalyticsDate(e.now)
	e.st.RecordAnalytics(context.Background(), []lectern.AnalyticsEvent{{ProjectID: e.project.ID, At: today.Add(time.Hour),
		Kind: lectern.AnalyticsPageview, Visitor: analyticsVisitorA, Path: "/today"}})
	b := e.analyticsSignedIn("owner@acme.test", ownerPW)
	if s := b.do("GET", "/dashboard/analytics", nil); s != 200 {
		t.Fatalf("analytics page: %d\n%s", s, b.body)
	}
	day := func(d time.Time) string { return d.Format(time.DateOnly) }
	bars := analyticsBarRe.FindAllStringSubmatch(b.body, -1)
	if len(bars) != 30 || bars[29][1] != day(today)+": 1 views" || bars[0][1] != day(today.AddDate(0, 0, -29))+": 0 views" {
		t.Errorf("default range: %d bars, want 30 up to today's view", len(bars))
	}
	if !b.has(`value="`+day(today.AddDate(0, 0, -29))+`"`) || !b.has("/today") || !b.has(`<option value="`+e.project.ID+`" selected>`) {
		t.Error("the form does not show the default range and project")
	}
	for _, n := range []int{7, 30, 90} {
		link := `<a href="/dashboard/analytics?from=` + day(today.AddDate(0, 0, -(n-1))) + `&amp;project=` + e.project.ID + `&amp;to=` + day(today) + `"`
		if n == 30 {
			link += ` aria-current="true"`
		}
		if !strings.Contains(b.body, link+">") {
			t.Errorf("no %d-day preset %s", n, link)
		}
	}
}

// TestAnalyticsBadRange: a reversed, malformed or too long range is a 400
// that says what is wrong with the form's field, shows the form again as
// typed and no figures; a download asked with it gets the same.
func TestAnalyticsBadRange(t *testing.T) {
	e := newEnv(t, Config{})
	e.analyticsSeed(e.project)
	b := e.analyticsSignedIn("owner@acme.test", ownerPW)
	for _, c := range []struct{ query, field, msg string }{
		{"from=2025-03-05&to=2025-03-01", "from", "From is after to (2025-03-05 &gt; 2025-03-01): give from at or before to."},
		{"from=2025-02-30&to=2025-03-01", "from", "From must be a date like 2026-01-31"},
		{"from=2025-03-01&to=yesterday", "to", "To must be a date like 2026-01-31"},
		{"from=1969-12-31&to=2025-03-01", "from", "From must be 1970-01-01 or later."},
		{"from=2023-01-01&to=2025-01-01", "from", "From makes the range 732 days long; a report covers at most 731 days"},
		{"from=2025-03-01&to=2025-03-03&limit=0", "limit", "Limit must be a whole number from 1 to 1000."},
	} {
		for _, path := range []string{"/dashboard/analytics", "/dashboard/analytics/views.csv"} {
			s := b.do("GET", path+"?project="+e.project.ID+"&"+c.query, nil)
			if s != http.StatusBadRequest || !strings.Contains(b.body, `<div class="alert error" role="alert">`+c.msg) {
				t.Errorf("%s?%s: %d, want 400 saying %q\n%.3000s", path, c.query, s, c.msg, b.body)
				continue
			}
			if !strings.Contains(b.body, `<form method="get" action="/dashboard/analytics"`) || strings.Contains(b.body, "chart-bar") ||
				strings.Contains(b.body, "quickstart") {
				t.Errorf("%s?%s: want the form and no figures", path, c.query)
			}
			vals, _ := url.ParseQuery(c.query)
			if c.field != "limit" && !strings.Contains(b.body, `name="`+c.field+`" type="date" value="`+vals.Get(c.field)+`" aria-describedby="range-help" aria-invalid="true"`) {
				t.Errorf("%s?%s: the %s field is not shown as typed and marked invalid", path, c.query, c.field)
			}
		}
	}
}

// TestAnalyticsOtherOrganization: another organization's project is not
// found, exactly as a missing one, on the page and for every download,
// and nothing of it shows.
func TestAnalyticsOtherOrganization(t *testing.T) {
	e := newEnv(t, Config{})
	theirs := e.analyticsProject(e.other, "Other docs", "docs.other.test", lectern.DeploymentCloud)
	e.analyticsSeed(theirs)
	missing := "prj_00000000000000000000000000"
	b := e.analyticsSignedIn("owner@acme.test", ownerPW)
	for _, path := range []string{"/dashboard/analytics", "/dashboard/analytics/views.csv", "/dashboard/analytics/searches.csv",
		"/dashboard/analytics/feedback.csv", "/dashboard/analytics/assistant.csv"} {
		s := b.do("GET", path+"?from=2025-03-01&to=2025-03-03&project="+theirs.ID, nil)
		got := strings.ReplaceAll(b.body, theirs.ID, "ID")
		if s != http.StatusNotFound || strings.Contains(got, "quickstart") || strings.Contains(got, "Other docs") {
			t.Errorf("%s of another organization's project: %d, want 404 and nothing of it", path, s)
		}
		s2 := b.do("GET", path+"?from=2025-03-01&to=2025-03-03&project="+missing, nil)
		if s2 != s || strings.ReplaceAll(b.body, missing, "ID") != got {
			t.Errorf("%s: another organization's project and a missing one answer differently (%d, %d)", path, s, s2)
		}
	}
	// A bad range does not tell either: not found comes first.
	if s := b.do("GET", "/dashboard/analytics?from=x&project="+theirs.ID, nil); s != http.StatusNotFound {
		t.Errorf("another organization's project with a bad range: %d, want 404", s)
	}
}

// TestAnalyticsCSV: each report's download is the API's CSV of the
// report (header, rows, formulas defused), an attachment named after the
// report, project and range; an unknown report is not found.
func TestAnalyticsCSV(t *testing.T) {
	e := newEnv(t, Config{})
	e.analyticsSeed(e.project)
	b := e.analyticsSignedIn("owner@acme.test", ownerPW)
	for _, c := range []struct{ report, want string }{
		{"views", "path,views,visitors\r\n/quickstart,4,3\r\n/guides/deploy,1,1\r\n'@SUM(1+1),1,1\r\n"},
		{"searches", "query,searches,clicks,noResults,clickThrough\r\ninstall,3,2,0,0.667\r\nrollback,2,0,2,0\r\n'=1+2,1,0,1,0\r\n"},
		{"feedback", "at,path,helpful,comment\r\n2025-03-03T09:00:00Z,/guides/deploy,false,\"'=HYPERLINK(\"\"http://x\"\")\"\r\n" +
			"2025-03-01T10:00:00Z,/guides/deploy,false,'+cmd missing steps\r\n2025-03-01T08:00:00Z,/quickstart,true,\"Clear, thanks\"\r\n"},
		{"assistant", "at,source,domain,found,helpful,question,citations\r\n" +
			"2025-03-03T10:00:00Z,mcp,,true,,'=cmd|' /C calc'!A0,/guides/deploy#rolling-back\r\n" +
			"2025-03-01T09:00:00Z,api,,false,false,How do I roll back?,\r\n" +
			"2025-03-01T08:00:00Z,site,docs.acme.test,true,true,How do I install?,/quickstart#install /quickstart#verify /guides/deploy\r\n"},
	} {
		s := b.do("GET", "/dashboard/analytics/"+c.report+".csv?project="+e.project.ID+"&from=2025-03-01&to=2025-03-03", nil)
		h := b.last.Header
		if s != 200 || h.Get("Content-Type") != "text/csv; charset=utf-8" || b.body != c.want {
			t.Errorf("%s.csv: %d %s\n%q\nwant\n%q", c.report, s, h.Get("Content-Type"), b.body, c.want)
		}
		if cd := h.Get("Content-Disposition"); cd != "attachment; filename=analytics-"+c.report+"-"+e.project.ID+"-2025-03-01-to-2025-03-03.csv" {
			t.Errorf("%s.csv: Content-Disposition %q", c.report, cd)
		}
	}
	// limit shortens the lists, as the API's does.
	if s := b.do("GET", "/dashboard/analytics/views.csv?project="+e.project.ID+"&from=2025-03-01&to=2025-03-03&limit=1", nil); s != 200 ||
		b.body != "path,views,visitors\r\n/quickstart,4,3\r\n" {
		t.Errorf("views.csv with limit 1: %d %q", s, b.body)
	}
	for _, file := range []string{"visits.csv", "views.json", "views", ".csv"} {
		if s := b.do("GET", "/dashboard/analytics/"+file+"?project="+e.project.ID, nil); s != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", file, s)
		}
	}
}

// TestAnalyticsMember: a member reads the page and downloads as an owner
// does; the pages take no POST.
func TestAnalyticsMember(t *testing.T) {
	e := newEnv(t, Config{})
	e.analyticsSeed(e.project)
	b := e.analyticsSignedIn("member@acme.test", memberPW)
	if s := b.do("GET", "/dashboard/analytics?from=2025-03-01&to=2025-03-03", nil); s != 200 || len(analyticsBarRe.FindAllString(b.body, -1)) != 3 ||
		!b.has("How do I install?") {
		t.Errorf("member's analytics page: %d", s)
	}
	if s := b.do("GET", "/dashboard/analytics/feedback.csv?from=2025-03-01&to=2025-03-03", nil); s != 200 || !strings.Contains(b.body, "Clear, thanks") {
		t.Errorf("member's feedback.csv (the first project by default): %d %q", s, b.body)
	}
	b.do("GET", "/dashboard/analytics", nil)
	tok := b.csrf()
	for _, path := range []string{"/dashboard/analytics", "/dashboard/analytics/views.csv"} {
		if s := b.do("POST", path, url.Values{"csrf": {tok}}); (s != http.StatusNotFound && s != http.StatusMethodNotAllowed) || strings.Contains(b.body, "chart-bar") {
			t.Errorf("POST %s: %d, want 404 or 405", path, s)
		}
	}
	// Signed out: to the sign-in page.
	if s := e.browser("192.0.2.41").do("GET", "/dashboard/analytics/views.csv", nil); s != http.StatusSeeOther {
		t.Errorf("views.csv without a session: %d, want 303", s)
	}
}

// TestAnalyticsNotCloud: a project whose deployment type has no web
// analytics on this server gets a page that says so, without a chart.
func TestAnalyticsNotCloud(t *testing.T) {
	e := newEnv(t, Config{})
	for _, c := range []struct {
		typ  lectern.DeploymentType
		want string
	}{{lectern.DeploymentClientHosted, "is client-hosted: its sites count their own web analytics"},
		{lectern.DeploymentAirGapped, "web analytics are unavailable for air-gapped deployments"}} {
		p := e.analyticsProject(e.acme, "Docs "+string(c.typ), string(c.typ)+".acme.test", c.typ)
		e.analyticsSeed(p)
		b := e.analyticsSignedIn("owner@acme.test", ownerPW)
		s := b.do("GET", "/dashboard/analytics?project="+p.ID+"&from=2025-03-01&to=2025-03-03", nil)
		if s != 200 || !b.has(c.want) || strings.Contains(b.body, "<svg") || strings.Contains(b.body, "quickstart") {
			t.Errorf("%s project: %d, want the page to say %q without a chart\n%s", c.typ, s, c.want, b.body)
		}
	}
}

// TestAnalyticsNoProjects: an organization without projects gets a page
// that says so, and no download.
func TestAnalyticsNoProjects(t *testing.T) {
	e := newEnv(t, Config{})
	hash, err := password.Hash(ownerPW)
	if err != nil {
		t.Fatal(err)
	}
	u := &lectern.User{OrgID: e.other.ID, Email: "owner@other.test", Role: lectern.RoleOwner, PasswordHash: hash, PasswordSetAt: e.now}
	if err := e.st.CreateUser(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	e.analyticsSeed(e.project)
	b := e.analyticsSignedIn("owner@other.test", ownerPW)
	if s := b.do("GET", "/dashboard/analytics", nil); s != 200 || !b.has("Your organization has no projects yet") || b.has("Acme docs") {
		t.Errorf("analytics without projects: %d\n%s", s, b.body)
	}
	if s := b.do("GET", "/dashboard/analytics/views.csv", nil); s != http.StatusNotFound || b.has("quickstart") {
		t.Errorf("views.csv without projects: %d, want 404", s)
	}
}

// FuzzAnalyticsRange: whatever the form sends, the range is either
// refused with EINVALID and a message naming a field of the form, or
// accepted as whole UTC days, from at or before to, at most 731 days,
// not before 1970; the form keeps what was typed.
func FuzzAnalyticsRange(f *testing.F) {
	for _, s := range [][2]string{{"", ""}, {"2025-03-01", "2025-03-03"}, {"2025-03-05", "2025-03-01"}, {"2025-02-30", ""},
		{"2023-01-01", "2025-01-01"}, {"1969-12-31", "1970-01-01"}, {"2025-03-01T23:30:00-05:00", "9999-12-31T23:59:59-23:59"},
		{"0000-01-01", "9999-12-31"}, {" 2025-03-01 ", "\x00"}} {
		f.Add(s[0], s[1])
	}
	now := time.Date(2026, 1, 31, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, from, to string) {
		form, q, err := analyticsRange(url.Values{"from": {from}, "to": {to}, "project": {"prj_x"}}, now)
		if form.From != strings.TrimSpace(from) || form.To != strings.TrimSpace(to) || form.Project != "prj_x" {
			t.Fatalf("the form %+v does not keep what was typed", form)
		}
		if err != nil {
			msg := lectern.ErrorMessage(err)
			if lectern.ErrorCode(err) != lectern.EINVALID || !utf8.ValidString(msg) ||
				!(strings.HasPrefix(msg, "From ") || strings.HasPrefix(msg, "To ")) {
				t.Fatalf("refused with %v (%q)", lectern.ErrorCode(err), msg)
			}
			return
		}
		days := q.To.Sub(q.From) / (24 * time.Hour)
		if q.From.After(q.To) || days+1 > 731 || q.From.Before(time.Unix(0, 0)) ||
			!q.From.Equal(lectern.AnalyticsDate(q.From)) || !q.To.Equal(lectern.AnalyticsDate(q.To)) || q.From.Location() != time.UTC {
			t.Fatalf("accepted %q to %q as %v to %v", from, to, q.From, q.To)
		}
	})
}
