package storetest

// Web analytics: events recorded in batches, their daily aggregates read
// per day (AnalyticsDaily) and per key (AnalyticsTop).

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

var analyticsCases = []testCase{
	{"RecordAndReport", testAnalyticsRecordAndReport},
	{"Isolation", testAnalyticsIsolation},
	{"Ranges", testAnalyticsRanges},
	{"LongRanges", testAnalyticsLongRanges},
	{"Top", testAnalyticsTop},
	{"ReadRefused", testAnalyticsReadRefused},
	{"Comments", testAnalyticsComments},
	{"CommentWindow", testAnalyticsCommentWindow},
	{"DeletedProject", testAnalyticsDeletedProject},
	{"Purge", testAnalyticsPurge},
	{"Prune", testAnalyticsPrune},
	{"Salt", testAnalyticsSalt},
	{"Bounds", testAnalyticsBounds},
	{"Refused", testAnalyticsRefused},
	{"LargeBatch", testAnalyticsLargeBatch},
	{"ConcurrentBatches", testAnalyticsConcurrent},
	{"RacesDeleteAndPurge", testAnalyticsRacesPurge},
}

// aDay is the first day of the analytics cases: a fixed UTC date.
var aDay = time.Date(2025, 3, 10, 0, 0, 0, 0, time.UTC)

// dayN returns the date n days after aDay.
func dayN(n int) time.Time { return aDay.AddDate(0, 0, n) }

// vis returns visitor n's hash: 32 hexadecimal digits.
func vis(n int) string { return fmt.Sprintf("%032x", 0xabc000+n) }

func pageview(p *lectern.Project, at time.Time, path, referrer string, visitor int) lectern.AnalyticsEvent {
	return lectern.AnalyticsEvent{ProjectID: p.ID, At: at, Kind: lectern.AnalyticsPageview, Path: path, Referrer: referrer, Visitor: vis(visitor)}
}

func searched(p *lectern.Project, at time.Time, query string, results int, clicked string, visitor int) lectern.AnalyticsEvent {
	return lectern.AnalyticsEvent{ProjectID: p.ID, At: at, Kind: lectern.AnalyticsSearch, Path: "/search-from", Query: query,
		Results: results, Clicked: clicked, Visitor: vis(visitor)}
}

func feedback(p *lectern.Project, at time.Time, path string, helpful bool, comment string, visitor int) lectern.AnalyticsEvent {
	return lectern.AnalyticsEvent{ProjectID: p.ID, At: at, Kind: lectern.AnalyticsFeedback, Path: path, Helpful: ptr(helpful),
		Comment: comment, Visitor: vis(visitor)}
}

// record records one batch, failing the test at once on an error.
func record(t *testing.T, s store.Store, events ...lectern.AnalyticsEvent) {
	t.Helper()
	must(t, s.RecordAnalytics(t.Context(), events), fmt.Sprintf("RecordAnalytics(%d events)", len(events)))
}

// aday is an expected AnalyticsDay: n, visitors, clicks, zero, yes, no.
func aday(d time.Time, c ...int64) lectern.AnalyticsDay {
	c = append(c, 0, 0, 0, 0, 0, 0)
	return lectern.AnalyticsDay{Day: d, N: c[0], Visitors: c[1], Clicks: c[2], Zero: c[3], Yes: c[4], No: c[5]}
}

// akey is an expected AnalyticsKey: n, visitors, clicks, zero, yes, no.
func akey(key string, c ...int64) lectern.AnalyticsKey {
	c = append(c, 0, 0, 0, 0, 0, 0)
	return lectern.AnalyticsKey{Key: key, N: c[0], Visitors: c[1], Clicks: c[2], Zero: c[3], Yes: c[4], No: c[5]}
}

// fmtDays formats days, each date in RFC 3339 (so that a day that is not
// midnight UTC shows).
func fmtDays(ds []lectern.AnalyticsDay) string {
	var b strings.Builder
	for _, d := range ds {
		fmt.Fprintf(&b, "[%s n=%d v=%d clicks=%d zero=%d yes=%d no=%d]", d.Day.Format(time.RFC3339Nano), d.N, d.Visitors, d.Clicks, d.Zero, d.Yes, d.No)
	}
	return "{" + b.String() + "}"
}

func fmtKeys(ks []lectern.AnalyticsKey) string {
	var b strings.Builder
	for _, k := range ks {
		fmt.Fprintf(&b, "[%q n=%d v=%d clicks=%d zero=%d yes=%d no=%d]", k.Key, k.N, k.Visitors, k.Clicks, k.Zero, k.Yes, k.No)
	}
	return "{" + b.String() + "}"
}

// wantDaily fails the test unless AnalyticsDaily(projectID, kind, from,
// to) is want.
func wantDaily(t *testing.T, s store.Store, what, projectID string, kind lectern.AnalyticsKind, from, to time.Time, want ...lectern.AnalyticsDay) {
	t.Helper()
	got, err := s.AnalyticsDaily(t.Context(), projectID, kind, from, to)
	if err != nil {
		t.Errorf("%s: AnalyticsDaily(%s): %v", what, kind, err)
		return
	}
	if g, w := fmtDays(got), fmtDays(want); g != w {
		t.Errorf("%s: AnalyticsDaily(%s, %s to %s):\n got  %s\n want %s", what, kind, fmtTime(&from), fmtTime(&to), g, w)
	}
}

// wantTop fails the test unless AnalyticsTop(projectID, kind, from, to,
// f) is want.
func wantTop(t *testing.T, s store.Store, what, projectID string, kind lectern.AnalyticsKind, from, to time.Time, f store.AnalyticsTopFilter, want ...lectern.AnalyticsKey) {
	t.Helper()
	got, err := s.AnalyticsTop(t.Context(), projectID, kind, from, to, f)
	if err != nil {
		t.Errorf("%s: AnalyticsTop(%s, %+v): %v", what, kind, f, err)
		return
	}
	if g, w := fmtKeys(got), fmtKeys(want); g != w {
		t.Errorf("%s: AnalyticsTop(%s, %s to %s, %+v):\n got  %s\n want %s", what, kind, fmtTime(&from), fmtTime(&to), f, g, w)
	}
}

// analyticsStored drops every analytics row the store holds (raw events,
// counted visitors, aggregates, salts of days before yesterday) and
// returns how many there were.
func analyticsStored(t *testing.T, s store.Store) int {
	t.Helper()
	far := time.Now().UTC().AddDate(10, 0, 0)
	n, err := s.PruneAnalytics(t.Context(), far, far, -1)
	must(t, err, "PruneAnalytics")
	return n
}

// rowsMadeBy returns how many analytics rows the events of a new project
// of org make, in a store that holds no other (analyticsStored emptied
// it): it records them, then drops every row to count them, so that
// tests compare what a store holds with what some events alone make,
// whatever its tables.
func rowsMadeBy(t *testing.T, s store.Store, org *lectern.Organization, events func(p *lectern.Project) []lectern.AnalyticsEvent) int {
	t.Helper()
	record(t, s, events(newProject(t, s, org.ID))...)
	n := analyticsStored(t, s)
	if n == 0 {
		t.Error("recorded events made no analytics rows")
	}
	return n
}

// testAnalyticsRecordAndReport: pageviews, searches and feedback recorded
// in two batches over two days add up, per day and per key, with exact
// counts: a visitor's repeated views, in one batch or two, count once a
// day for each aggregate, and again on another day; an event counts on
// its UTC date whatever its time's zone.
func testAnalyticsRecordAndReport(t *testing.T, s store.Store) {
	p := newProject(t, s, newOrg(t, s).ID)
	const a, b, c = 1, 2, 3
	d1, d2 := dayN(0), dayN(1)
	at := func(d time.Time, hm string) time.Time {
		x, err := time.Parse("15:04", hm)
		must(t, err, "time")
		return d.Add(time.Duration(x.Hour())*time.Hour + time.Duration(x.Minute())*time.Minute)
	}
	google := "www.google.com"
	record(t, s,
		pageview(p, at(d1, "09:00"), "/guides/x", google, a),
		pageview(p, at(d1, "09:05"), "/guides/x", "", a),
		pageview(p, at(d1, "09:10"), "/intro", "", a),
		pageview(p, at(d1, "10:00"), "/guides/x", google, b),
		searched(p, at(d1, "10:01"), "deploy", 3, "/guides/deploy", a),
		searched(p, at(d1, "10:02"), "deploy", 3, "", b),
		searched(p, at(d1, "10:03"), "kubernetes", 0, "", b),
		feedback(p, at(d1, "10:04"), "/guides/x", true, "Clear.", a),
		feedback(p, at(d1, "10:05"), "/guides/x", false, "", b),
	)
	// Late on d1 in UTC, though d2 where the reader is.
	elsewhere := time.FixedZone("UTC+5:30", 5*3600+1800)
	record(t, s,
		pageview(p, d1.Add(24*time.Hour-time.Microsecond).In(elsewhere), "/guides/x", "", a),
		pageview(p, at(d2, "00:00"), "/intro", google, c),
		pageview(p, at(d2, "08:00"), "/guides/x", "", a),
		searched(p, at(d2, "08:01"), "deploy", 2, "", c),
		searched(p, at(d2, "08:02"), "kubernetes", 0, "", c),
		searched(p, at(d2, "08:03"), "kubernetes", 0, "", a),
	)
	from, to := d1, dayN(2)
	wantDaily(t, s, "pageviews", p.ID, lectern.AnalyticsPageview, from, to, aday(d1, 5, 3), aday(d2, 2, 2))
	wantDaily(t, s, "visits", p.ID, lectern.AnalyticsVisit, from, to, aday(d1, 5, 2), aday(d2, 2, 2))
	wantDaily(t, s, "referrers", p.ID, lectern.AnalyticsReferrer, from, to, aday(d1, 2, 2), aday(d2, 1, 1))
	wantDaily(t, s, "searches", p.ID, lectern.AnalyticsSearch, from, to, aday(d1, 3, 3, 1, 1), aday(d2, 3, 3, 0, 2))
	wantDaily(t, s, "feedback", p.ID, lectern.AnalyticsFeedback, from, to, aday(d1, 2, 2, 0, 0, 1, 1))

	all := store.AnalyticsTopFilter{}
	wantTop(t, s, "pages", p.ID, lectern.AnalyticsPageview, from, to, all, akey("/guides/x", 5, 3), akey("/intro", 2, 2))
	wantTop(t, s, "the site", p.ID, lectern.AnalyticsVisit, from, to, all, akey("", 7, 4))
	wantTop(t, s, "referrers", p.ID, lectern.AnalyticsReferrer, from, to, all, akey(google, 3, 3))
	wantTop(t, s, "queries", p.ID, lectern.AnalyticsSearch, from, to, all, akey("deploy", 3, 3, 1, 0), akey("kubernetes", 3, 3, 0, 3))
	wantTop(t, s, "queries without results", p.ID, lectern.AnalyticsSearch, from, to, store.AnalyticsTopFilter{ZeroOnly: true},
		akey("kubernetes", 3, 3, 0, 3))
	wantTop(t, s, "rated pages", p.ID, lectern.AnalyticsFeedback, from, to, all, akey("/guides/x", 2, 2, 0, 0, 1, 1))

	// One day alone.
	wantTop(t, s, "pages of d2", p.ID, lectern.AnalyticsPageview, d2, to, all, akey("/guides/x", 1, 1), akey("/intro", 1, 1))
	wantDaily(t, s, "visits of d1", p.ID, lectern.AnalyticsVisit, d1, d2, aday(d1, 5, 2))

	// A third batch: a visitor counted on d1 by another batch is not
	// counted again; a new one is.
	record(t, s, pageview(p, at(d1, "11:00"), "/guides/x", google, b), pageview(p, at(d1, "12:00"), "/guides/x", "", c))
	wantDaily(t, s, "visits after a third batch", p.ID, lectern.AnalyticsVisit, from, to, aday(d1, 7, 3), aday(d2, 2, 2))
	wantTop(t, s, "pages after a third batch", p.ID, lectern.AnalyticsPageview, from, to, all, akey("/guides/x", 7, 4), akey("/intro", 2, 2))
	wantTop(t, s, "referrers after a third batch", p.ID, lectern.AnalyticsReferrer, from, to, all, akey(google, 4, 3))

	// An empty batch records nothing and is no error.
	record(t, s)
	must(t, s.RecordAnalytics(t.Context(), nil), "RecordAnalytics(nil)")
	wantDaily(t, s, "visits after empty batches", p.ID, lectern.AnalyticsVisit, from, to, aday(d1, 7, 3), aday(d2, 2, 2))
}

// testAnalyticsIsolation: the same visitor on the same page and day of
// two projects (of one organization and of another) counts in each, and
// each project reports its own events only.
func testAnalyticsIsolation(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	p, q, r := newProject(t, s, org.ID), newProject(t, s, org.ID), newProject(t, s, newOrg(t, s).ID)
	d := dayN(0)
	record(t, s, pageview(p, d, "/a", "x.example", 1), pageview(q, d, "/a", "x.example", 1), pageview(q, d, "/b", "", 2))
	record(t, s, pageview(r, d, "/a", "", 1), searched(r, d, "a", 0, "", 1), feedback(q, d, "/a", true, "ok", 1))
	to := dayN(1)
	wantDaily(t, s, "p's visits", p.ID, lectern.AnalyticsVisit, d, to, aday(d, 1, 1))
	wantDaily(t, s, "q's visits", q.ID, lectern.AnalyticsVisit, d, to, aday(d, 2, 2))
	wantDaily(t, s, "r's visits", r.ID, lectern.AnalyticsVisit, d, to, aday(d, 1, 1))
	wantTop(t, s, "p's pages", p.ID, lectern.AnalyticsPageview, d, to, store.AnalyticsTopFilter{}, akey("/a", 1, 1))
	wantTop(t, s, "q's pages", q.ID, lectern.AnalyticsPageview, d, to, store.AnalyticsTopFilter{}, akey("/a", 1, 1), akey("/b", 1, 1))
	wantTop(t, s, "r's referrers", r.ID, lectern.AnalyticsReferrer, d, to, store.AnalyticsTopFilter{})
	wantTop(t, s, "q's referrers", q.ID, lectern.AnalyticsReferrer, d, to, store.AnalyticsTopFilter{}, akey("x.example", 1, 1))
	wantDaily(t, s, "p's searches", p.ID, lectern.AnalyticsSearch, d, to)
	wantDaily(t, s, "r's searches", r.ID, lectern.AnalyticsSearch, d, to, aday(d, 1, 1, 0, 1))
	wantDaily(t, s, "p's feedback", p.ID, lectern.AnalyticsFeedback, d, to)
	wantDaily(t, s, "q's feedback", q.ID, lectern.AnalyticsFeedback, d, to, aday(d, 1, 1, 0, 0, 1, 0))
	missing := missingID(lectern.PrefixProject)
	wantDaily(t, s, "a missing project", missing, lectern.AnalyticsVisit, d, to)
	wantTop(t, s, "a missing project", missing, lectern.AnalyticsPageview, d, to, store.AnalyticsTopFilter{})
	wantDaily(t, s, "a project ID with bad bytes", p.ID+"\x00\xff", lectern.AnalyticsVisit, d, to)
	wantTop(t, s, "a project ID with bad bytes", p.ID+"\xff", lectern.AnalyticsPageview, d, to, store.AnalyticsTopFilter{})
}

// testAnalyticsRanges: reads cover the days from the UTC date of from up
// to, not including, the UTC date of to, whatever the times' hours and
// zones.
func testAnalyticsRanges(t *testing.T, s store.Store) {
	p := newProject(t, s, newOrg(t, s).ID)
	var events []lectern.AnalyticsEvent
	for i := range 5 { // day i: i+1 pageviews of /i by visitors 0..i
		for v := range i + 1 {
			events = append(events, pageview(p, dayN(i).Add(time.Duration(v)*time.Hour), fmt.Sprintf("/%d", i), "", v))
		}
	}
	record(t, s, events...)
	days := func(ns ...int) []lectern.AnalyticsDay {
		var ds []lectern.AnalyticsDay
		for _, n := range ns {
			ds = append(ds, aday(dayN(n), int64(n+1), int64(n+1)))
		}
		return ds
	}
	keys := func(ns ...int) []lectern.AnalyticsKey {
		var ks []lectern.AnalyticsKey
		for i := len(ns) - 1; i >= 0; i-- { // the busiest first
			ks = append(ks, akey(fmt.Sprintf("/%d", ns[i]), int64(ns[i]+1), int64(ns[i]+1)))
		}
		return ks
	}
	west := time.FixedZone("UTC-8", -8*3600)
	const micro = time.Microsecond
	for _, c := range []struct {
		from, to time.Time
		want     []int
	}{
		{dayN(0), dayN(5), []int{0, 1, 2, 3, 4}},
		{dayN(1), dayN(3), []int{1, 2}},
		{dayN(1).Add(24*time.Hour - micro), dayN(3), []int{1, 2}}, // from's date
		{dayN(1), dayN(3).Add(12 * time.Hour), []int{1, 2}},       // to's date, excluded
		{dayN(1), dayN(3).Add(-micro), []int{1}},                  // to's date is 2
		{dayN(1).In(west), dayN(3).In(west), []int{1, 2}},         // the same instants elsewhere
		{dayN(2), dayN(3), []int{2}},
		{dayN(2), dayN(2), nil},
		{dayN(3), dayN(1), nil},
		{dayN(5), dayN(9), nil},
		{time.Time{}, dayN(2), []int{0, 1}}, // from the beginning
		{dayN(-30), dayN(30), []int{0, 1, 2, 3, 4}},
	} {
		what := fmt.Sprintf("%s to %s", fmtTime(&c.from), fmtTime(&c.to))
		wantDaily(t, s, what, p.ID, lectern.AnalyticsPageview, c.from, c.to, days(c.want...)...)
		wantTop(t, s, what, p.ID, lectern.AnalyticsPageview, c.from, c.to, store.AnalyticsTopFilter{}, keys(c.want...)...)
	}
}

// testAnalyticsTop: AnalyticsTop sorts keys by N, highest first, then by
// Key bytewise; keeps the first Limit (10 by default, up to 1000); with
// ZeroOnly keeps the queries that found nothing, by Zero, then N, then
// Key.
func testAnalyticsTop(t *testing.T, s store.Store) {
	p := newProject(t, s, newOrg(t, s).ID)
	d := dayN(0)
	var events []lectern.AnalyticsEvent
	// Pages /p00 to /p11: /p<i> viewed 12-i/2 times (pairs tie), plus two
	// pages whose order is bytewise ("/B" before "/a", "/é" last).
	var want []lectern.AnalyticsKey
	for i := range 12 {
		n := 12 - i/2
		for v := range n {
			events = append(events, pageview(p, d.Add(time.Duration(v)*time.Minute), fmt.Sprintf("/p%02d", i), "", v))
		}
		want = append(want, akey(fmt.Sprintf("/p%02d", i), int64(n), int64(n)))
	}
	for _, path := range []string{"/é", "/a", "/B"} {
		events = append(events, pageview(p, d, path, "", 99))
	}
	tail := []lectern.AnalyticsKey{akey("/B", 1, 1), akey("/a", 1, 1), akey("/é", 1, 1)}
	// Queries: zero-result searches 3, 1, 2, 2 and other searches.
	for _, q := range []struct {
		query      string
		zero, more int
	}{{"alpha", 3, 0}, {"beta", 1, 5}, {"gamma", 2, 1}, {"delta", 2, 0}, {"found", 0, 9}} {
		for i := range q.zero {
			events = append(events, searched(p, d, q.query, 0, "", i))
		}
		for i := range q.more {
			events = append(events, searched(p, d, q.query, 4, "/x", i))
		}
	}
	record(t, s, events...)
	to := dayN(1)
	wantTop(t, s, "default limit", p.ID, lectern.AnalyticsPageview, d, to, store.AnalyticsTopFilter{}, want[:10]...)
	wantTop(t, s, "limit 3", p.ID, lectern.AnalyticsPageview, d, to, store.AnalyticsTopFilter{Limit: 3}, want[:3]...)
	wantTop(t, s, "limit 1", p.ID, lectern.AnalyticsPageview, d, to, store.AnalyticsTopFilter{Limit: 1}, want[0])
	all := append(want, tail...)
	wantTop(t, s, "limit 1000", p.ID, lectern.AnalyticsPageview, d, to, store.AnalyticsTopFilter{Limit: store.MaxAnalyticsTop}, all...)
	wantTop(t, s, "limit 14", p.ID, lectern.AnalyticsPageview, d, to, store.AnalyticsTopFilter{Limit: 14}, all[:14]...)
	wantTop(t, s, "queries", p.ID, lectern.AnalyticsSearch, d, to, store.AnalyticsTopFilter{},
		akey("found", 9, 9, 9, 0), akey("beta", 6, 5, 5, 1), akey("alpha", 3, 3, 0, 3), akey("gamma", 3, 2, 1, 2), akey("delta", 2, 2, 0, 2))
	wantTop(t, s, "queries without results", p.ID, lectern.AnalyticsSearch, d, to, store.AnalyticsTopFilter{ZeroOnly: true},
		akey("alpha", 3, 3, 0, 3), akey("gamma", 3, 2, 1, 2), akey("delta", 2, 2, 0, 2), akey("beta", 6, 5, 5, 1))
	wantTop(t, s, "queries without results, limit 2", p.ID, lectern.AnalyticsSearch, d, to, store.AnalyticsTopFilter{ZeroOnly: true, Limit: 2},
		akey("alpha", 3, 3, 0, 3), akey("gamma", 3, 2, 1, 2))
	wantTop(t, s, "pages without results", p.ID, lectern.AnalyticsPageview, d, to, store.AnalyticsTopFilter{ZeroOnly: true})
}

// testAnalyticsReadRefused: reads of an unknown kind, and AnalyticsTop
// with a limit out of range, are EINVALID.
func testAnalyticsReadRefused(t *testing.T, s store.Store) {
	p := newProject(t, s, newOrg(t, s).ID)
	record(t, s, pageview(p, dayN(0), "/a", "", 1))
	from, to := dayN(0), dayN(1)
	for _, kind := range []lectern.AnalyticsKind{"", "click", "Pageview", "visits"} {
		_, err := s.AnalyticsDaily(t.Context(), p.ID, kind, from, to)
		wantCode(t, err, lectern.EINVALID, fmt.Sprintf("AnalyticsDaily(kind %q)", kind))
		_, err = s.AnalyticsTop(t.Context(), p.ID, kind, from, to, store.AnalyticsTopFilter{})
		wantCode(t, err, lectern.EINVALID, fmt.Sprintf("AnalyticsTop(kind %q)", kind))
	}
	for _, limit := range []int{-1, store.MaxAnalyticsTop + 1} {
		_, err := s.AnalyticsTop(t.Context(), p.ID, lectern.AnalyticsPageview, from, to, store.AnalyticsTopFilter{Limit: limit})
		wantCode(t, err, lectern.EINVALID, fmt.Sprintf("AnalyticsTop(limit %d)", limit))
	}
	wantTop(t, s, "after refused reads", p.ID, lectern.AnalyticsPageview, from, to, store.AnalyticsTopFilter{}, akey("/a", 1, 1))
}
