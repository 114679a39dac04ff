package httpapi_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/httpapi"
)

// Visitors of the seeded analytics: day-hashes, 32 hex digits.
var (
	visitorA = strings.Repeat("a", 32)
	visitorB = strings.Repeat("b", 32)
	visitorC = strings.Repeat("c", 32)
)

// at is a time on day d (1 to 4) of March 2025, at hour h UTC.
func at(d, h int) time.Time { return time.Date(2025, 3, d, h, 0, 0, 0, time.UTC) }

// seedAnalytics records, for the enterprise project, page views, searches,
// votes and assistant questions on 1 and 3 March 2025, and some on 28
// February and 4 March, outside the range the tests ask for; and a view of
// the free organization's project, which no report of the enterprise's
// may count.
func (e *env) seedAnalytics(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	p := e.entProj.ID
	yes, no := true, false
	view := func(when time.Time, v, path, ref string) lectern.AnalyticsEvent {
		return lectern.AnalyticsEvent{ProjectID: p, At: when, Kind: lectern.AnalyticsPageview, Visitor: v, Path: path, Referrer: ref}
	}
	search := func(when time.Time, v, q string, results int, clicked string) lectern.AnalyticsEvent {
		return lectern.AnalyticsEvent{ProjectID: p, At: when, Kind: lectern.AnalyticsSearch, Visitor: v, Path: "/", Query: q, Results: results, Clicked: clicked}
	}
	vote := func(when time.Time, v, path string, helpful *bool, comment string) lectern.AnalyticsEvent {
		return lectern.AnalyticsEvent{ProjectID: p, At: when, Kind: lectern.AnalyticsFeedback, Visitor: v, Path: path, Helpful: helpful, Comment: comment}
	}
	events := []lectern.AnalyticsEvent{
		view(at(1, 8), visitorA, "/quickstart", "www.google.com"),
		view(at(1, 9), visitorA, "/quickstart", ""),
		view(at(1, 10), visitorB, "/guides/deploy", "www.google.com"),
		view(at(1, 11), visitorB, "/quickstart", "news.ycombinator.com"),
		view(at(3, 8), visitorA, "/quickstart", ""),
		view(at(3, 9), visitorC, "@SUM(1+1)", ""),
		view(time.Date(2025, 2, 28, 23, 59, 0, 0, time.UTC), visitorA, "/quickstart", "www.google.com"),
		view(at(4, 0), visitorA, "/quickstart", ""),

		search(at(1, 8), visitorA, "Install", 3, "/quickstart"),
		search(at(1, 9), visitorB, "install", 3, ""),
		search(at(1, 10), visitorA, "rollback", 0, ""),
		search(at(1, 11), visitorB, "=1+2", 0, ""),
		search(at(3, 8), visitorC, "rollback", 0, ""),
		search(at(3, 9), visitorC, "  INSTALL ", 2, "/quickstart"),
		search(at(4, 1), visitorC, "rollback", 0, ""),

		vote(at(1, 8), visitorA, "/quickstart", &yes, "Clear, thanks"),
		vote(at(1, 9), visitorB, "/quickstart", &no, ""),
		vote(at(1, 10), visitorB, "/guides/deploy", &no, "+cmd missing steps"),
		vote(at(3, 9), visitorC, "/guides/deploy", &no, `=HYPERLINK("http://x")`),
		vote(at(4, 2), visitorC, "/guides/deploy", &no, "too late"),
	}
	events = append(events, lectern.AnalyticsEvent{ProjectID: e.freeProj.ID, At: at(1, 8), Kind: lectern.AnalyticsPageview,
		Visitor: visitorA, Path: "/quickstart", Referrer: "www.google.com"})
	if err := e.raw.RecordAnalytics(ctx, events); err != nil {
		t.Fatal(err)
	}
	cite := func(urls ...string) []lectern.AssistantCitation {
		var cs []lectern.AssistantCitation
		for _, u := range urls {
			cs = append(cs, lectern.AssistantCitation{Title: "T", URL: u})
		}
		return cs
	}
	for _, m := range []*lectern.AssistantMessage{
		{ID: "ask_1", ProjectID: p, Source: lectern.AssistantFromSite, Domain: entDomain, Question: "How do I install?", Answer: "Run it.",
			Found: true, Citations: cite("/quickstart#install", "/quickstart#verify", "/guides/deploy"), Helpful: &yes, CreatedAt: at(1, 8)},
		{ID: "ask_2", ProjectID: p, Source: lectern.AssistantFromAPI, Question: "How do I roll back?", Answer: "No answer was found.",
			Helpful: &no, CreatedAt: at(1, 9)},
		{ID: "ask_3", ProjectID: p, Source: lectern.AssistantFromMCP, Question: "=cmd|' /C calc'!A0", Answer: "See deploy.",
			Found: true, Citations: cite("/guides/deploy#rolling-back"), CreatedAt: at(3, 10)},
		{ID: "ask_4", ProjectID: p, Source: lectern.AssistantFromSite, Domain: entDomain, Question: "Too late?", CreatedAt: at(4, 0)},
		{ID: "ask_5", ProjectID: e.freeProj.ID, Source: lectern.AssistantFromSite, Domain: freeDomain, Question: "Free?", CreatedAt: at(1, 8)},
	} {
		if err := e.raw.RecordAssistantMessage(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
}

// wantJSON fails unless body is the JSON want (whatever the spacing and
// the order of keys).
func wantJSON(t *testing.T, what string, body []byte, want string) {
	t.Helper()
	var got, exp any
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatalf("%s: not JSON: %v: %s", what, err, body)
	}
	if err := json.Unmarshal([]byte(want), &exp); err != nil {
		t.Fatalf("%s: the test's JSON: %v", what, err)
	}
	if !reflect.DeepEqual(got, exp) {
		t.Errorf("%s:\n got %s\nwant %s", what, body, strings.Join(strings.Fields(want), " "))
	}
}

// TestAnalyticsReports: each report of a range counts exactly the
// project's events of its days (not those of the days around it, not
// another project's): totals, every day, the top lists in order, the
// newest comments and questions.
func TestAnalyticsReports(t *testing.T) {
	t.Parallel()
	e := newEnv(t, httpapi.Config{}, nil)
	e.seedAnalytics(t)
	base := "/v1/analytics/" + e.entProj.ID
	get := func(path string) []byte {
		t.Helper()
		resp, body := e.do(t, req("GET", base+path, e.entKey, nil))
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" || resp.Header.Get("Vary") != "Accept" {
			t.Fatalf("GET %s: %d %s %v", path, resp.StatusCode, body, resp.Header)
		}
		return body
	}
	head := `"projectId": "` + e.entProj.ID + `", "from": "2025-03-01", "to": "2025-03-03",`

	wantJSON(t, "views", get("/views?from=2025-03-01&to=2025-03-03"), `{`+head+`
		"totals": {"views": 6, "visitors": 4},
		"days": [{"day": "2025-03-01", "views": 4, "visitors": 2}, {"day": "2025-03-02", "views": 0, "visitors": 0},
			{"day": "2025-03-03", "views": 2, "visitors": 2}],
		"pages": [{"path": "/quickstart", "views": 4, "visitors": 3}, {"path": "/guides/deploy", "views": 1, "visitors": 1},
			{"path": "@SUM(1+1)", "views": 1, "visitors": 1}],
		"referrers": [{"host": "www.google.com", "views": 2, "visitors": 2}, {"host": "news.ycombinator.com", "views": 1, "visitors": 1}]}`)
	wantJSON(t, "views, limit 1", get("/views?from=2025-03-01&to=2025-03-03&limit=1"), `{`+head+`
		"totals": {"views": 6, "visitors": 4},
		"days": [{"day": "2025-03-01", "views": 4, "visitors": 2}, {"day": "2025-03-02", "views": 0, "visitors": 0},
			{"day": "2025-03-03", "views": 2, "visitors": 2}],
		"pages": [{"path": "/quickstart", "views": 4, "visitors": 3}],
		"referrers": [{"host": "www.google.com", "views": 2, "visitors": 2}]}`)

	wantJSON(t, "searches", get("/searches?from=2025-03-01&to=2025-03-03"), `{`+head+`
		"totals": {"searches": 6, "clicks": 2, "noResults": 3, "clickThrough": 0.333},
		"days": [{"day": "2025-03-01", "searches": 4, "clicks": 1, "noResults": 2}, {"day": "2025-03-02", "searches": 0, "clicks": 0, "noResults": 0},
			{"day": "2025-03-03", "searches": 2, "clicks": 1, "noResults": 1}],
		"queries": [{"query": "install", "searches": 3, "clicks": 2, "noResults": 0, "clickThrough": 0.667},
			{"query": "rollback", "searches": 2, "clicks": 0, "noResults": 2, "clickThrough": 0},
			{"query": "=1+2", "searches": 1, "clicks": 0, "noResults": 1, "clickThrough": 0}],
		"noResults": [{"query": "rollback", "searches": 2}, {"query": "=1+2", "searches": 1}]}`)

	wantJSON(t, "feedback", get("/feedback?from=2025-03-01&to=2025-03-03&limit=2"), `{`+head+`
		"totals": {"helpful": 1, "notHelpful": 3},
		"days": [{"day": "2025-03-01", "helpful": 1, "notHelpful": 2}, {"day": "2025-03-02", "helpful": 0, "notHelpful": 0},
			{"day": "2025-03-03", "helpful": 0, "notHelpful": 1}],
		"pages": [{"path": "/guides/deploy", "helpful": 0, "notHelpful": 2}, {"path": "/quickstart", "helpful": 1, "notHelpful": 1}],
		"comments": [{"at": "2025-03-03T09:00:00Z", "path": "/guides/deploy", "helpful": false, "comment": "=HYPERLINK(\"http://x\")"},
			{"at": "2025-03-01T10:00:00Z", "path": "/guides/deploy", "helpful": false, "comment": "+cmd missing steps"}]}`)

	wantJSON(t, "assistant", get("/assistant?from=2025-03-01&to=2025-03-03"), `{`+head+`
		"truncated": false,
		"totals": {"questions": 3, "answered": 2, "notAnswered": 1, "helpful": 1, "notHelpful": 1},
		"questions": [
			{"id": "ask_3", "at": "2025-03-03T10:00:00Z", "source": "mcp", "domain": "", "question": "=cmd|' /C calc'!A0", "found": true,
				"helpful": null, "citations": ["/guides/deploy#rolling-back"]},
			{"id": "ask_2", "at": "2025-03-01T09:00:00Z", "source": "api", "domain": "", "question": "How do I roll back?", "found": false,
				"helpful": false, "citations": []},
			{"id": "ask_1", "at": "2025-03-01T08:00:00Z", "source": "site", "domain": "docs.ent.test", "question": "How do I install?", "found": true,
				"helpful": true, "citations": ["/quickstart#install", "/quickstart#verify", "/guides/deploy"]}],
		"citedPages": [{"url": "/guides/deploy", "citations": 2}, {"url": "/quickstart", "citations": 1}]}`)

	// A range without events: zeros for each day, empty lists. An RFC 3339
	// time counts as its UTC date: 23:30 at -05:00 on 2 March is 3 March.
	wantJSON(t, "views of an empty day", get("/views?from=2025-03-02T23:30:00-05:00&to=2025-03-02T23:30:00-05:00"), `{
		"projectId": "`+e.entProj.ID+`", "from": "2025-03-03", "to": "2025-03-03",
		"totals": {"views": 2, "visitors": 2}, "days": [{"day": "2025-03-03", "views": 2, "visitors": 2}],
		"pages": [{"path": "/quickstart", "views": 1, "visitors": 1}, {"path": "@SUM(1+1)", "views": 1, "visitors": 1}], "referrers": []}`)
	wantJSON(t, "assistant of an empty range", get("/assistant?from=2024-01-01&to=2024-01-01"), `{
		"projectId": "`+e.entProj.ID+`", "from": "2024-01-01", "to": "2024-01-01", "truncated": false,
		"totals": {"questions": 0, "answered": 0, "notAnswered": 0, "helpful": 0, "notHelpful": 0}, "questions": [], "citedPages": []}`)
	wantJSON(t, "feedback of an empty range", get("/feedback?from=2024-01-01&to=2024-01-01"), `{
		"projectId": "`+e.entProj.ID+`", "from": "2024-01-01", "to": "2024-01-01",
		"totals": {"helpful": 0, "notHelpful": 0}, "days": [{"day": "2024-01-01", "helpful": 0, "notHelpful": 0}], "pages": [], "comments": []}`)
}

// TestAnalyticsCSV: with Accept: text/csv, each report answers its table
// as RFC 4180 CSV with a header row, readers' text that a spreadsheet
// would run as a formula defused with a quote; other Accept headers get
// JSON.
func TestAnalyticsCSV(t *testing.T) {
	t.Parallel()
	e := newEnv(t, httpapi.Config{}, nil)
	e.seedAnalytics(t)
	base := "/v1/analytics/" + e.entProj.ID
	csvOf := func(report, accept string) (string, string) {
		t.Helper()
		r := req("GET", base+"/"+report+"?from=2025-03-01&to=2025-03-03", e.entKey, nil)
		r.Header.Set("Accept", accept)
		resp, body := e.do(t, r)
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d %s", report, resp.StatusCode, body)
		}
		return resp.Header.Get("Content-Type"), string(body)
	}
	for _, c := range []struct{ report, want string }{
		{"views", "path,views,visitors\r\n/quickstart,4,3\r\n/guides/deploy,1,1\r\n'@SUM(1+1),1,1\r\n"},
		{"searches", "query,searches,clicks,noResults,clickThrough\r\ninstall,3,2,0,0.667\r\nrollback,2,0,2,0\r\n'=1+2,1,0,1,0\r\n"},
		{"feedback", "at,path,helpful,comment\r\n2025-03-03T09:00:00Z,/guides/deploy,false,\"'=HYPERLINK(\"\"http://x\"\")\"\r\n" +
			"2025-03-01T10:00:00Z,/guides/deploy,false,'+cmd missing steps\r\n2025-03-01T08:00:00Z,/quickstart,true,\"Clear, thanks\"\r\n"},
		{"assistant", "at,source,domain,found,helpful,question,citations\r\n" +
			"2025-03-03T10:00:00Z,mcp,,true,,'=cmd|' /C calc'!A0,/guides/deploy#rolling-back\r\n" +
			"2025-03-01T09:00:00Z,api,,false,false,How do I roll back?,\r\n" +
			"2025-03-01T08:00:00Z,site,docs.ent.test,true,true,How do I install?,/quickstart#install /quickstart#verify /guides/deploy\r\n"},
	} {
		ct, body := csvOf(c.report, "text/csv")
		if ct != "text/csv; charset=utf-8" || body != c.want {
			t.Errorf("%s as CSV: %s\n%q\nwant\n%q", c.report, ct, body, c.want)
		}
	}
	r := req("GET", base+"/views?from=2025-03-01&to=2025-03-03", e.entKey, nil)
	r.Header.Set("Accept", "text/csv")
	resp, _ := e.do(t, r)
	if cd := resp.Header.Get("Content-Disposition"); cd != "attachment; filename=analytics-views-"+e.entProj.ID+"-2025-03-01-to-2025-03-03.csv" {
		t.Errorf("Content-Disposition %q", cd)
	}

	// Negotiation: CSV when asked for at least as much as JSON.
	for accept, csv := range map[string]bool{
		"text/csv; q=0.5, application/json": false,
		"application/json; q=0.2, text/csv": true,
		"application/json, text/csv":        true,
		"text/csv; q=0":                     false,
		"TEXT/CSV":                          true,
		"*/*":                               false,
		"text/*":                            false,
		"text/html,application/xhtml+xml,*/*;q=0.8": false,
		"": false,
	} {
		ct, _ := csvOf("views", accept)
		if got := strings.HasPrefix(ct, "text/csv"); got != csv {
			t.Errorf("Accept %q: Content-Type %q", accept, ct)
		}
	}
}

// TestAnalyticsQuery: the range defaults to the 30 days up to today;
// bad, reversed, too long ranges, bad limits and unknown parameters are
// refused with the parameter named.
func TestAnalyticsQuery(t *testing.T) {
	t.Parallel()
	e := newEnv(t, httpapi.Config{}, nil)
	today := lectern.AnalyticsDate(time.Now())
	noon := func(d time.Time) time.Time { return d.Add(12 * time.Hour) }
	var events []lectern.AnalyticsEvent
	for _, d := range []time.Time{today, today.AddDate(0, 0, -29), today.AddDate(0, 0, -30)} {
		events = append(events, lectern.AnalyticsEvent{ProjectID: e.entProj.ID, At: noon(d), Kind: lectern.AnalyticsPageview, Visitor: visitorA, Path: "/"})
	}
	if err := e.raw.RecordAnalytics(context.Background(), events); err != nil {
		t.Fatal(err)
	}
	base := "/v1/analytics/" + e.entProj.ID + "/views"
	views := func(query string) (from, to string, days int, total float64) {
		t.Helper()
		resp, body := e.do(t, req("GET", base+query, e.entKey, nil))
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d %s", query, resp.StatusCode, body)
		}
		m := decode(t, body)
		return m["from"].(string), m["to"].(string), len(m["days"].([]any)), m["totals"].(map[string]any)["views"].(float64)
	}
	day := func(d time.Time) string { return d.Format("2006-01-02") }
	from, to, days, total := views("")
	if !lectern.AnalyticsDate(time.Now()).Equal(today) {
		t.Skip("the UTC date changed during the test")
	}
	if from != day(today.AddDate(0, 0, -29)) || to != day(today) || days != 30 || total != 2 {
		t.Errorf("default range: %s to %s, %d days, %v views; want 30 days to %s, 2 views", from, to, days, total, day(today))
	}
	if from, to, days, total = views("?from=" + day(today.AddDate(0, 0, -30))); to != day(today) || days != 31 || total != 3 {
		t.Errorf("from only: %s to %s, %d days, %v views", from, to, days, total)
	}
	if from, to, days, total = views("?to=" + day(today.AddDate(0, 0, -1))); from != day(today.AddDate(0, 0, -30)) || days != 30 || total != 2 {
		t.Errorf("to only: %s to %s, %d days, %v views", from, to, days, total)
	}
	if _, _, days, _ = views("?from=2023-01-02&to=2025-01-01"); days != 731 {
		t.Errorf("the longest range: %d days", days)
	}

	for _, c := range []struct{ query, field string }{
		{"?from=yesterday", "from"},
		{"?from=2025-02-30", "from"},
		{"?from=1969-12-31&to=1970-01-01", "from"},
		{"?to=2025-3-1", "to"},
		{"?to=2025-03-01T10:00:00", "to"}, // no zone
		{"?from=2025-03-02&to=2025-03-01", "from"},
		{"?from=2023-01-01&to=2025-01-01", "from"}, // 732 days
		{"?limit=0", "limit"},
		{"?limit=1001", "limit"},
		{"?limit=ten", "limit"},
		{"?limit=5&limit=6", "limit"},
		{"?form=2025-03-01", "form"},
		{"?cursor=abc", "cursor"},
	} {
		resp, body := e.do(t, req("GET", base+c.query, e.entKey, nil))
		p := wantProblem(t, resp, body, 400, lectern.EINVALID)
		if fs := p.fields(); len(fs) != 1 || fs[0] != c.field {
			t.Errorf("%s: fields %v, want %s (%s)", c.query, fs, c.field, p.Detail)
		}
	}
	resp, body := e.do(t, req("GET", base+"?from=x&limit=0&page=2", e.entKey, nil))
	if p := wantProblem(t, resp, body, 400, lectern.EINVALID); !reflect.DeepEqual(p.fields(), []string{"from", "limit", "page"}) {
		t.Errorf("every bad parameter: %v (%s)", p.fields(), p.Detail)
	}
}

// TestAnalyticsScope: reports are of the key's organization's projects
// only: another organization's project, an unknown one and a deleted one
// are not found, a request without a key unauthorized, and another
// method not allowed.
func TestAnalyticsScope(t *testing.T) {
	t.Parallel()
	e := newEnv(t, httpapi.Config{}, nil)
	e.seedAnalytics(t)
	gone := e.project(e.ent.ID, "gone.ent.test")
	if err := e.raw.RecordAnalytics(context.Background(), []lectern.AnalyticsEvent{{ProjectID: gone.ID, At: at(1, 8),
		Kind: lectern.AnalyticsPageview, Visitor: visitorA, Path: "/"}}); err != nil {
		t.Fatal(err)
	}
	if err := e.raw.DeleteProject(context.Background(), gone.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	for _, report := range []string{"views", "searches", "feedback", "assistant"} {
		for _, c := range []struct{ key, project string }{{e.freeKey, e.entProj.ID}, {e.entKey, e.freeProj.ID},
			{e.entKey, "prj_00000000000000000000000000"}, {e.entKey, gone.ID}} {
			resp, body := e.do(t, req("GET", "/v1/analytics/"+c.project+"/"+report+"?from=2025-03-01&to=2025-03-03", c.key, nil))
			if p := wantProblem(t, resp, body, 404, lectern.ENOTFOUND); p != nil && strings.Contains(string(body), "quickstart") {
				t.Errorf("%s of %s: the problem shows analytics: %s", report, c.project, body)
			}
		}
		// Not found comes before a bad query: nothing tells whether the project exists.
		resp, body := e.do(t, req("GET", "/v1/analytics/"+e.entProj.ID+"/"+report+"?limit=0", e.freeKey, nil))
		wantProblem(t, resp, body, 404, lectern.ENOTFOUND)
		resp, body = e.do(t, req("GET", "/v1/analytics/"+e.entProj.ID+"/"+report, "", nil))
		wantProblem(t, resp, body, 401, lectern.EUNAUTHORIZED)
		resp, body = e.doUnchecked(t, req("POST", "/v1/analytics/"+e.entProj.ID+"/"+report, e.entKey, nil))
		wantProblem(t, resp, body, 405, lectern.EMETHOD)
	}
	resp, body := e.doUnchecked(t, req("GET", "/v1/analytics/"+e.entProj.ID+"/visits", e.entKey, nil))
	wantProblem(t, resp, body, 404, lectern.ENOTFOUND)
}

// TestAnalyticsAssistantTruncated: the assistant's report reads the
// 10,000 newest questions of its range, a page at a time, and says when
// the range held more.
func TestAnalyticsAssistantTruncated(t *testing.T) {
	t.Parallel()
	e := newEnv(t, httpapi.Config{}, nil)
	ctx := context.Background()
	// 10,000 answered questions on 1 March, one not answered the day before.
	for i := range 10_001 {
		m := &lectern.AssistantMessage{ProjectID: e.entProj.ID, Source: lectern.AssistantFromAPI, Question: "q",
			Found: true, CreatedAt: at(1, 0).Add(time.Duration(i) * time.Second)}
		if i == 0 {
			m.Found, m.CreatedAt = false, at(1, 0).Add(-time.Hour)
		}
		if err := e.raw.RecordAssistantMessage(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		from      string
		truncated bool
	}{{"2025-03-01", false}, {"2025-02-28", true}} {
		resp, body := e.do(t, req("GET", "/v1/analytics/"+e.entProj.ID+"/assistant?to=2025-03-01&limit=2&from="+c.from, e.entKey, nil))
		if resp.StatusCode != 200 {
			t.Fatalf("%d %s", resp.StatusCode, body)
		}
		m := decode(t, body)
		totals := m["totals"].(map[string]any)
		// Truncated, the oldest question, the one not answered, is left out.
		if m["truncated"] != c.truncated || totals["questions"] != 10_000.0 || totals["answered"] != 10_000.0 || len(m["questions"].([]any)) != 2 {
			t.Errorf("from %s: truncated %v, totals %v", c.from, m["truncated"], totals)
		}
	}
}
