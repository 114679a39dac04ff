package storetest

// Web analytics: bounds and refusals, and batches large and concurrent.

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

// cutBytes is s within n bytes as the stores keep it: whole when it fits,
// else its longest prefix on a rune boundary of at most n-3 bytes and "…".
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for !utf8.ValidString(s[:cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// testAnalyticsBounds: RecordAnalytics keeps text within its bounds, cut
// at a rune boundary and ended with "…"; lower-cases visitors and
// referrers, normalises queries, trims comments, replaces invalid UTF-8
// and NUL characters, clears the fields that are not of an event's kind,
// and leaves the caller's events as they were.
func testAnalyticsBounds(t *testing.T, s store.Store) {
	p := newProject(t, s, newOrg(t, s).ID)
	d, to := dayN(0), dayN(1)
	longPath := strings.Repeat("/é", 300)          // 900 bytes: the cut falls inside a rune
	longRef := strings.Repeat("Ab.", 100)          // 300 bytes
	longQuery := strings.Repeat("ü", 150)          // 300 bytes
	longComment := strings.Repeat("ü", 2001)       // characters
	fitPath := "/" + strings.Repeat("p", 511)      // 512 bytes: kept whole
	fitComment := strings.Repeat("€", 2000) + "  " // trimmed, then 2000 characters
	upper := strings.ToUpper(vis(7))
	events := []lectern.AnalyticsEvent{
		pageview(p, d, longPath, longRef, 1),
		pageview(p, d, fitPath, "WWW.Example.COM", 1),
		pageview(p, d, "/bad\xff\x00x", "", 1),
		{ProjectID: p.ID, At: d, Kind: lectern.AnalyticsPageview, Path: "/upper", Visitor: upper, Query: "not a search", Helpful: ptr(true)},
		pageview(p, d, "/upper", "", 7), // the same visitor, lower-case
		searched(p, d, "  Deploy \t To  K8S ", 1, "", 1),
		searched(p, d, "deploy to k8s", 0, "", 2),
		searched(p, d, longQuery, 3, "/"+strings.Repeat("c", 600), 1),
		feedback(p, d, "/f", true, longComment, 1),
		feedback(p, d, "/f", false, fitComment, 2),
		{ProjectID: p.ID, At: d.Add(time.Hour), Kind: lectern.AnalyticsFeedback, Path: "/g", Visitor: vis(3), Helpful: ptr(false),
			Comment: "  \tnot bad\x00\n", Referrer: "r.example", Query: "q", Results: 4, Clicked: "/c"},
	}
	before := slices.Clone(events)
	record(t, s, events...)
	for i := range events {
		if fmtEvent(&events[i]) != fmtEvent(&before[i]) {
			t.Errorf("RecordAnalytics changed the caller's event %d:\n got  %s\n want %s", i, fmtEvent(&events[i]), fmtEvent(&before[i]))
		}
	}

	all := store.AnalyticsTopFilter{Limit: store.MaxAnalyticsTop}
	wantTop(t, s, "pages", p.ID, lectern.AnalyticsPageview, d, to, all, akey("/upper", 2, 1), akey("/bad\uFFFD\uFFFDx", 1, 1),
		akey(fitPath, 1, 1), akey(cutBytes(longPath, lectern.MaxAnalyticsPath), 1, 1))
	wantTop(t, s, "referrers", p.ID, lectern.AnalyticsReferrer, d, to, all,
		akey(cutBytes(strings.ToLower(longRef), lectern.MaxAnalyticsReferrer), 1, 1), akey("www.example.com", 1, 1))
	wantTop(t, s, "queries", p.ID, lectern.AnalyticsSearch, d, to, all, akey("deploy to k8s", 2, 2, 0, 1),
		akey(cutBytes(longQuery, lectern.MaxAnalyticsQuery), 1, 1, 1, 0))
	if k := cutBytes(longPath, lectern.MaxAnalyticsPath); len(k) > lectern.MaxAnalyticsPath || !utf8.ValidString(k) || len(k) < lectern.MaxAnalyticsPath-4 {
		t.Errorf("the cut path is %d bytes (valid UTF-8 %t)", len(k), utf8.ValidString(k))
	}

	cs := comments(t, s, p.ID, time.Time{}, time.Time{})
	if len(cs) != 3 {
		t.Fatalf("ListAnalyticsComments = %d comments, want 3", len(cs))
	}
	got := &lectern.AnalyticsEvent{ID: cs[0].ID, ProjectID: p.ID, At: d.Add(time.Hour), Kind: lectern.AnalyticsFeedback, Path: "/g",
		Visitor: vis(3), Helpful: ptr(false), Comment: "not bad\uFFFD"}
	if fmtEvent(cs[0]) != fmtEvent(got) {
		t.Errorf("a feedback with other kinds' fields:\n got  %s\n want %s", fmtEvent(cs[0]), fmtEvent(got))
	}
	byText := map[bool]string{}
	for _, c := range cs[1:] {
		byText[*c.Helpful] = c.Comment
	}
	wantText(t, "a long comment", byText[true], strings.Repeat("ü", lectern.MaxAnalyticsComment-1)+"…")
	wantText(t, "a comment within bounds", byText[false], strings.Repeat("€", 2000))
}

// testAnalyticsRefused: a batch with one bad event (no project, a kind
// that is not an event's, no time, a visitor that is not 32 hexadecimal
// digits, a pageview or feedback without path, a search without query or
// with negative results, a feedback without vote), or of more than
// lectern.MaxAnalyticsBatch events, is EINVALID and stores nothing; a
// batch of lectern.MaxAnalyticsBatch events is recorded.
func testAnalyticsRefused(t *testing.T, s store.Store) {
	p := newProject(t, s, newOrg(t, s).ID)
	d := dayN(0)
	good := pageview(p, d, "/a", "", 1)
	for _, c := range []struct {
		what   string
		change func(e *lectern.AnalyticsEvent)
	}{
		{"no project", func(e *lectern.AnalyticsEvent) { e.ProjectID = "" }},
		{"an unknown kind", func(e *lectern.AnalyticsEvent) { e.Kind = "click" }},
		{"no kind", func(e *lectern.AnalyticsEvent) { e.Kind = "" }},
		{"the kind visit", func(e *lectern.AnalyticsEvent) { e.Kind = lectern.AnalyticsVisit }},
		{"the kind referrer", func(e *lectern.AnalyticsEvent) { e.Kind = lectern.AnalyticsReferrer }},
		{"no time", func(e *lectern.AnalyticsEvent) { e.At = time.Time{} }},
		{"an address as visitor", func(e *lectern.AnalyticsEvent) { e.Visitor = "203.0.113.7" }},
		{"no visitor", func(e *lectern.AnalyticsEvent) { e.Visitor = "" }},
		{"a short visitor", func(e *lectern.AnalyticsEvent) { e.Visitor = vis(1)[1:] }},
		{"a long visitor", func(e *lectern.AnalyticsEvent) { e.Visitor = vis(1) + "0" }},
		{"a visitor not hexadecimal", func(e *lectern.AnalyticsEvent) { e.Visitor = strings.Repeat("g", 32) }},
		{"a pageview without path", func(e *lectern.AnalyticsEvent) { e.Path = "" }},
		{"a search without query", func(e *lectern.AnalyticsEvent) { *e = searched(p, d, " \t ", 1, "", 1) }},
		{"a search with negative results", func(e *lectern.AnalyticsEvent) { *e = searched(p, d, "x", -1, "", 1) }},
		{"a feedback without vote", func(e *lectern.AnalyticsEvent) { *e = feedback(p, d, "/a", true, "", 1); e.Helpful = nil }},
		{"a feedback without path", func(e *lectern.AnalyticsEvent) { *e = feedback(p, d, "", true, "", 1) }},
	} {
		bad := good
		c.change(&bad)
		err := s.RecordAnalytics(t.Context(), []lectern.AnalyticsEvent{good, good, bad})
		wantCode(t, err, lectern.EINVALID, "RecordAnalytics of a batch with "+c.what)
		if err != nil && !strings.Contains(err.Error(), "event 2") {
			t.Errorf("RecordAnalytics of a batch with %s: %q does not name the event (2)", c.what, err)
		}
	}
	big := make([]lectern.AnalyticsEvent, lectern.MaxAnalyticsBatch+1)
	for i := range big {
		big[i] = pageview(p, d, fmt.Sprintf("/%d", i%500), "", i)
	}
	wantCode(t, s.RecordAnalytics(t.Context(), big), lectern.EINVALID, fmt.Sprintf("RecordAnalytics of %d events", len(big)))
	wantDaily(t, s, "after refused batches", p.ID, lectern.AnalyticsVisit, d, dayN(1))
	if n := analyticsStored(t, s); n != 0 {
		t.Errorf("refused batches stored %d analytics rows", n)
	}

	record(t, s, big[:lectern.MaxAnalyticsBatch]...)
	wantDaily(t, s, "a batch at the limit", p.ID, lectern.AnalyticsVisit, d, dayN(1), aday(d, lectern.MaxAnalyticsBatch, lectern.MaxAnalyticsBatch))
	wantTop(t, s, "a batch at the limit", p.ID, lectern.AnalyticsPageview, d, dayN(1), store.AnalyticsTopFilter{Limit: 2}, akey("/0", 20, 20), akey("/1", 20, 20))
}

// tallied is the expected aggregate of one key and day.
type tallied struct {
	n, clicks, zero, yes, no int64
	visitors                 map[string]bool
}

// model counts events as store.Analytics describes it, independently of
// the stores: kind → day → key → counts.
type model map[lectern.AnalyticsKind]map[time.Time]map[string]*tallied

func (m model) add(kind lectern.AnalyticsKind, day time.Time, key, visitor string) *tallied {
	if m[kind] == nil {
		m[kind] = map[time.Time]map[string]*tallied{}
	}
	if m[kind][day] == nil {
		m[kind][day] = map[string]*tallied{}
	}
	c := m[kind][day][key]
	if c == nil {
		c = &tallied{visitors: map[string]bool{}}
		m[kind][day][key] = c
	}
	c.n++
	c.visitors[visitor] = true
	return c
}

func (m model) record(events ...lectern.AnalyticsEvent) {
	for _, e := range events {
		day := lectern.AnalyticsDate(e.At)
		switch e.Kind {
		case lectern.AnalyticsPageview:
			m.add(lectern.AnalyticsPageview, day, e.Path, e.Visitor)
			m.add(lectern.AnalyticsVisit, day, "", e.Visitor)
			if e.Referrer != "" {
				m.add(lectern.AnalyticsReferrer, day, e.Referrer, e.Visitor)
			}
		case lectern.AnalyticsSearch:
			c := m.add(lectern.AnalyticsSearch, day, e.Query, e.Visitor)
			if e.Clicked != "" {
				c.clicks++
			}
			if e.Results == 0 {
				c.zero++
			}
		case lectern.AnalyticsFeedback:
			c := m.add(lectern.AnalyticsFeedback, day, e.Path, e.Visitor)
			if *e.Helpful {
				c.yes++
			} else {
				c.no++
			}
		}
	}
}

// inRange reports whether day is one of the days of [from, to).
func inRange(day, from, to time.Time) bool {
	return !day.Before(lectern.AnalyticsDate(from)) && day.Before(lectern.AnalyticsDate(to))
}

// days returns the model's AnalyticsDaily of kind over [from, to).
func (m model) days(kind lectern.AnalyticsKind, from, to time.Time) []lectern.AnalyticsDay {
	var ds []lectern.AnalyticsDay
	for day, keys := range m[kind] {
		if !inRange(day, from, to) {
			continue
		}
		d := lectern.AnalyticsDay{Day: day}
		for _, c := range keys {
			d.N, d.Visitors, d.Clicks, d.Zero, d.Yes, d.No = d.N+c.n, d.Visitors+int64(len(c.visitors)), d.Clicks+c.clicks, d.Zero+c.zero, d.Yes+c.yes, d.No+c.no
		}
		ds = append(ds, d)
	}
	slices.SortFunc(ds, func(a, b lectern.AnalyticsDay) int { return a.Day.Compare(b.Day) })
	return ds
}

// keys returns the model's AnalyticsTop of kind over [from, to), in
// full.
func (m model) keys(kind lectern.AnalyticsKind, from, to time.Time) []lectern.AnalyticsKey {
	sums := map[string]*lectern.AnalyticsKey{}
	for day, keys := range m[kind] {
		if !inRange(day, from, to) {
			continue
		}
		for key, c := range keys {
			k := sums[key]
			if k == nil {
				k = &lectern.AnalyticsKey{Key: key}
				sums[key] = k
			}
			k.N, k.Visitors, k.Clicks, k.Zero, k.Yes, k.No = k.N+c.n, k.Visitors+int64(len(c.visitors)), k.Clicks+c.clicks, k.Zero+c.zero, k.Yes+c.yes, k.No+c.no
		}
	}
	var ks []lectern.AnalyticsKey
	for _, k := range sums {
		ks = append(ks, *k)
	}
	slices.SortFunc(ks, func(a, b lectern.AnalyticsKey) int {
		if a.N != b.N {
			return int(b.N - a.N)
		}
		return strings.Compare(a.Key, b.Key)
	})
	return ks
}

// wantModel fails the test unless p's daily and top reads over [from, to)
// are the model's, of every kind.
func wantModel(t *testing.T, s store.Store, what string, p *lectern.Project, m model, from, to time.Time) {
	t.Helper()
	for _, kind := range []lectern.AnalyticsKind{lectern.AnalyticsPageview, lectern.AnalyticsVisit, lectern.AnalyticsReferrer,
		lectern.AnalyticsSearch, lectern.AnalyticsFeedback} {
		wantDaily(t, s, what, p.ID, kind, from, to, m.days(kind, from, to)...)
		wantTop(t, s, what, p.ID, kind, from, to, store.AnalyticsTopFilter{Limit: store.MaxAnalyticsTop}, m.keys(kind, from, to)...)
	}
}

// testAnalyticsLargeBatch: 1,000 events of every kind over three days,
// recorded in one call, add up exactly.
func testAnalyticsLargeBatch(t *testing.T, s store.Store) {
	p := newProject(t, s, newOrg(t, s).ID)
	var events []lectern.AnalyticsEvent
	for i := range 1000 {
		at := dayN(i % 3).Add(time.Duration(i) * time.Minute)
		v := i % 101
		switch {
		case i%10 < 7:
			ref := []string{"", "a.example", "b.example"}[i%3]
			events = append(events, pageview(p, at, fmt.Sprintf("/p%d", i%37), ref, v))
		case i%10 < 9:
			clicked := ""
			if i%5 == 0 {
				clicked = "/r"
			}
			events = append(events, searched(p, at, fmt.Sprintf("q%d", i%13), i%4, clicked, v))
		default:
			events = append(events, feedback(p, at, fmt.Sprintf("/p%d", i%37), i%4 == 1, strings.Repeat("!", i%7/6), v))
		}
	}
	record(t, s, events...)
	m := model{}
	m.record(events...)
	wantModel(t, s, "1,000 events", p, m, dayN(0), dayN(3))
	if n := len(comments(t, s, p.ID, time.Time{}, time.Time{})); n != 14 {
		t.Errorf("ListAnalyticsComments = %d comments, want 14", n)
	}
}

// testAnalyticsConcurrent: batches recorded at once, whose visitors and
// keys overlap, add up exactly: each visitor counts once a day for each
// aggregate.
func testAnalyticsConcurrent(t *testing.T, s store.Store) {
	p := newProject(t, s, newOrg(t, s).ID)
	const writers, batches, size = 4, 5, 200
	all := make([][]lectern.AnalyticsEvent, writers*batches)
	for w := range writers {
		for b := range batches {
			var es []lectern.AnalyticsEvent
			for i := range size {
				at := dayN(i % 2).Add(time.Duration(w*batches+b) * time.Second)
				v := (w*7 + b*13 + i) % 150
				ref := ""
				if i%3 == 0 {
					ref = "r.example"
				}
				es = append(es, pageview(p, at, []string{"/a", "/b", "/c"}[i%3], ref, v))
				if i%10 == 0 {
					es = append(es, searched(p, at, []string{"x", "y"}[i%20/10], i%2, "", v))
				}
			}
			all[w*batches+b] = es
		}
	}
	var wg sync.WaitGroup
	errs := make([]error, writers)
	for w := range writers {
		wg.Go(func() {
			for b := range batches {
				if err := s.RecordAnalytics(t.Context(), all[w*batches+b]); err != nil && errs[w] == nil {
					errs[w] = err
				}
			}
		})
	}
	wg.Wait()
	for w, err := range errs {
		if err != nil {
			t.Errorf("writer %d: RecordAnalytics: %v", w, err)
		}
	}
	m := model{}
	for _, es := range all {
		m.record(es...)
	}
	wantModel(t, s, "concurrent batches", p, m, dayN(0), dayN(2))
}

// testAnalyticsRacesPurge races RecordAnalytics of batches that hold
// events of projects being deleted and purged, and of a project that
// stays: every call succeeds, the staying project's events are all
// counted, and no event of the purged projects is left behind.
func testAnalyticsRacesPurge(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	kept := newProject(t, s, org.ID)
	d := dayN(0)
	ps := make([]*lectern.Project, raceProjects)
	for i := range ps {
		ps[i] = newProject(t, s, org.ID)
		record(t, s, pageview(ps[i], d, "/old", "r.example", 1), feedback(ps[i], d, "/old", true, "old", 1))
	}
	const perProject = 4
	var wg sync.WaitGroup
	start := make(chan struct{})
	delErrs := make([]error, len(ps))
	recErrs := make([]error, len(ps)*perProject)
	for i, p := range ps {
		wg.Go(func() {
			<-start
			if delErrs[i] = s.DeleteProject(t.Context(), p.ID, time.Now().UTC()); delErrs[i] == nil {
				delErrs[i] = s.PurgeProject(t.Context(), p.ID)
			}
		})
		for j := range perProject {
			n := i*perProject + j
			wg.Go(func() {
				<-start
				recErrs[n] = s.RecordAnalytics(t.Context(), []lectern.AnalyticsEvent{pageview(p, d, "/new", "r.example", n),
					pageview(kept, d, "/k", "", n), feedback(p, d, "/new", false, "new", n), searched(p, d, "q", 0, "/x", n)})
			})
		}
	}
	close(start)
	wg.Wait()
	for i, err := range delErrs {
		if err != nil {
			t.Errorf("project %d: DeleteProject and PurgeProject racing RecordAnalytics: %v", i, err)
		}
	}
	for n, err := range recErrs {
		if err != nil {
			t.Errorf("RecordAnalytics %d racing DeleteProject: %v, want nil", n, err)
		}
	}
	calls := int64(len(recErrs))
	wantDaily(t, s, "the project that stays", kept.ID, lectern.AnalyticsVisit, d, dayN(1), aday(d, calls, calls))
	for _, p := range ps { // made again with the purged IDs: rows left behind would count
		createProjectAt(t, s, org.ID, rec{p.ID, us(time.Now().UTC())})
	}
	got := analyticsStored(t, s)
	if want := rowsMadeBy(t, s, org, func(p *lectern.Project) (es []lectern.AnalyticsEvent) {
		for n := range recErrs {
			es = append(es, pageview(p, d, "/k", "", n))
		}
		return es
	}); got != want {
		t.Errorf("the store held %d analytics rows after the purges, want %d (as many as the staying project's events make)", got, want)
	}
}
