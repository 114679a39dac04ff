package storetest

// Web analytics: the comments of feedback events, read from the raw
// events; deleted and purged projects; retention.

import (
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

// commentLister lists ListAnalyticsComments(projectID, from, to),
// checking that each event is a feedback of projectID with a comment.
func commentLister(t *testing.T, s store.Store, projectID string, from, to time.Time) lister {
	return func(pg store.Page) ([]rec, error) {
		es, err := s.ListAnalyticsComments(t.Context(), projectID, from, to, pg)
		var rs []rec
		for _, e := range es {
			if e.ProjectID != projectID || e.Kind != lectern.AnalyticsFeedback || e.Comment == "" {
				t.Errorf("ListAnalyticsComments(%s) returned event %d of project %s, kind %s, comment %q", projectID, e.ID, e.ProjectID, e.Kind, e.Comment)
			}
			if c := store.AnalyticsCursor(e); c.ID != strconv.FormatInt(e.ID, 10) || !c.At.Equal(e.At) {
				t.Errorf("AnalyticsCursor(event %d at %v) = %+v", e.ID, e.At, c)
			}
			rs = append(rs, rec{strconv.FormatInt(e.ID, 10), e.At})
		}
		return rs, err
	}
}

// comments returns ListAnalyticsComments(projectID, from, to) in full.
func comments(t *testing.T, s store.Store, projectID string, from, to time.Time) []*lectern.AnalyticsEvent {
	t.Helper()
	es, err := s.ListAnalyticsComments(t.Context(), projectID, from, to, store.Page{})
	must(t, err, "ListAnalyticsComments")
	return es
}

// commentTexts returns the comments of es, in order.
func commentTexts(es []*lectern.AnalyticsEvent) []string {
	var cs []string
	for _, e := range es {
		cs = append(cs, e.Comment)
	}
	return cs
}

// testAnalyticsComments: ListAnalyticsComments lists a project's feedback
// events with a comment, every field as recorded, newest first and by ID,
// highest first, among equal times (later calls have higher IDs), in
// pages that walk the list once; never events without a comment, nor
// another project's.
func testAnalyticsComments(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	p, q := newProject(t, s, org.ID), newProject(t, s, org.ID)
	base := pagingBase()
	at := func(i int) time.Time { return base.Add(time.Duration(pagingOffsets[i]) * time.Minute) }
	// One call per comment, in pagingOrder: not by time, and within each
	// group of equal times neither up nor down.
	for _, i := range pagingOrder {
		record(t, s, feedback(p, at(i), fmt.Sprintf("/page/%d", i), i%2 == 0, fmt.Sprintf("comment %d", i), i),
			feedback(q, at(i), "/q", true, fmt.Sprintf("q's comment %d", i), i))
	}
	// Three in one call at one time; and what is no comment.
	record(t, s, feedback(p, at(4), "/same", true, "same a", 20), feedback(p, at(4), "/same", false, "same b", 21),
		feedback(p, at(4), "/same", true, "same c", 22),
		feedback(p, at(4), "/none", true, "", 23), feedback(p, at(4), "/blank", true, " \n\t ", 24),
		pageview(p, at(4), "/viewed", "", 25), searched(p, at(4), "comment", 0, "", 26))

	got := comments(t, s, p.ID, time.Time{}, time.Time{})
	var want []string
	// Newest first: the minutes 3, 2 (with the three of one call), 1, 0;
	// within a minute the later call first.
	byTime := map[int][]string{}
	for _, i := range pagingOrder {
		byTime[pagingOffsets[i]] = append([]string{fmt.Sprintf("comment %d", i)}, byTime[pagingOffsets[i]]...)
	}
	for m := 3; m >= 0; m-- {
		if m == pagingOffsets[4] {
			want = append(want, "(same)", "(same)", "(same)")
		}
		want = append(want, byTime[m]...)
	}
	texts := commentTexts(got)
	if len(texts) != len(want) {
		t.Fatalf("ListAnalyticsComments(p) = %d comments %q, want %d", len(texts), texts, len(want))
	}
	var same []string
	for i := range want {
		if want[i] == "(same)" {
			same = append(same, texts[i])
			continue
		}
		if texts[i] != want[i] {
			t.Errorf("ListAnalyticsComments(p): comment %d is %q, want %q (all: %q)", i, texts[i], want[i], texts)
		}
	}
	if !sameSet(same, []string{"same a", "same b", "same c"}) {
		t.Errorf("ListAnalyticsComments(p): the comments of one call are %q, want same a, b and c", same)
	}
	for i, e := range got {
		if e.ID <= 0 {
			t.Errorf("comment %q has ID %d, want a positive one", e.Comment, e.ID)
		}
		if i > 0 && !(e.At.Before(got[i-1].At) || e.At.Equal(got[i-1].At) && e.ID < got[i-1].ID) {
			t.Errorf("comment %d (%v, ID %d) is listed after comment %d (%v, ID %d)", i, e.At, e.ID, i-1, got[i-1].At, got[i-1].ID)
		}
	}
	// Every field, as recorded: the newest is the last call's of minute 3.
	last := -1
	for _, i := range pagingOrder {
		if pagingOffsets[i] == 3 {
			last = i
		}
	}
	if want := (lectern.AnalyticsEvent{ID: got[0].ID, ProjectID: p.ID, At: at(last), Kind: lectern.AnalyticsFeedback, Path: fmt.Sprintf("/page/%d", last),
		Visitor: vis(last), Helpful: ptr(last%2 == 0), Comment: fmt.Sprintf("comment %d", last)}); fmtEvent(got[0]) != fmtEvent(&want) {
		t.Errorf("the newest comment:\n got  %s\n want %s", fmtEvent(got[0]), fmtEvent(&want))
	}

	var rs []rec
	for _, e := range got {
		rs = append(rs, rec{strconv.FormatInt(e.ID, 10), e.At})
	}
	wantPages(t, "ListAnalyticsComments(p)", commentLister(t, s, p.ID, time.Time{}, time.Time{}), rs)
	if qs := commentTexts(comments(t, s, q.ID, time.Time{}, time.Time{})); len(qs) != len(pagingOrder) {
		t.Errorf("ListAnalyticsComments(q) = %q, want its %d comments", qs, len(pagingOrder))
	}
	wantPages(t, "ListAnalyticsComments(project without comments)", commentLister(t, s, newProject(t, s, org.ID).ID, time.Time{}, time.Time{}), nil)
	wantPages(t, "ListAnalyticsComments(missing project)", commentLister(t, s, missingID(lectern.PrefixProject), time.Time{}, time.Time{}), nil)

	for _, id := range []string{"", "x", "ask_01", "-2", "1.5"} {
		_, err := s.ListAnalyticsComments(t.Context(), p.ID, time.Time{}, time.Time{}, store.Page{Limit: 2, After: &store.Cursor{At: base, ID: id}})
		wantCode(t, err, lectern.EINVALID, fmt.Sprintf("ListAnalyticsComments after a cursor of ID %q", id))
	}
}

// fmtEvent formats every field of an event, At at microseconds.
func fmtEvent(e *lectern.AnalyticsEvent) string {
	helpful := "nil"
	if e.Helpful != nil {
		helpful = strconv.FormatBool(*e.Helpful)
	}
	return fmt.Sprintf("{ID:%d ProjectID:%s At:%s Kind:%s Path:%q Referrer:%q Visitor:%q Query:%q Results:%d Clicked:%q Helpful:%s Comment:%q}",
		e.ID, e.ProjectID, fmtTime(&e.At), e.Kind, e.Path, e.Referrer, e.Visitor, e.Query, e.Results, e.Clicked, helpful, e.Comment)
}

// testAnalyticsCommentWindow: ListAnalyticsComments selects the comments
// at or after from and before to (a zero one: no bound), whatever the
// times' zones.
func testAnalyticsCommentWindow(t *testing.T, s store.Store) {
	p := newProject(t, s, newOrg(t, s).ID)
	base := pagingBase()
	at := func(minutes int) time.Time { return base.Add(time.Duration(minutes) * time.Minute) }
	for n, i := range pagingOrder {
		record(t, s, feedback(p, at(pagingOffsets[i]), "/a", true, fmt.Sprintf("c%d", n), n))
	}
	var all []rec
	for _, e := range comments(t, s, p.ID, time.Time{}, time.Time{}) {
		all = append(all, rec{strconv.FormatInt(e.ID, 10), e.At})
	}
	elsewhere := time.FixedZone("UTC+5:30", 5*3600+1800)
	const micro = time.Microsecond
	for _, c := range []struct {
		from, to time.Time
		n        int
	}{
		{time.Time{}, time.Time{}, 9},
		{at(1), time.Time{}, 8},
		{at(1).Add(micro), time.Time{}, 5},
		{time.Time{}, at(3), 5},
		{time.Time{}, at(3).Add(micro), 9},
		{at(1), at(3), 4},
		{at(2), at(2).Add(micro), 1},
		{at(1).In(elsewhere), at(3).In(elsewhere), 4},
		{at(1), at(1), 0},
		{at(3), at(1), 0},
		{at(4), time.Time{}, 0},
	} {
		want := selectWindow(all, store.AssistantFilter{Since: c.from, Until: c.to}) // the same window

		if len(want) != c.n {
			t.Fatalf("window %v to %v selects %d comments, want %d", c.from, c.to, len(want), c.n)
		}
		wantPages(t, fmt.Sprintf("ListAnalyticsComments(%s to %s)", fmtTime(&c.from), fmtTime(&c.to)), commentLister(t, s, p.ID, c.from, c.to), want)
	}
}

// testAnalyticsDeletedProject: events of a deleted or missing project are
// skipped without an error, and stored for the others of the batch; a
// project deleted once it has analytics has none for every read, and its
// new events are skipped.
func testAnalyticsDeletedProject(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	p, gone := newProject(t, s, org.ID), newProject(t, s, org.ID)
	must(t, s.DeleteProject(t.Context(), gone.ID, time.Now().UTC()), "DeleteProject")
	missing := &lectern.Project{ID: missingID(lectern.PrefixProject)}
	d := dayN(0)
	record(t, s, pageview(gone, d, "/a", "r.example", 1), pageview(p, d, "/a", "r.example", 1), pageview(missing, d, "/a", "", 2),
		feedback(gone, d, "/a", true, "gone", 1), feedback(p, d, "/a", true, "hi", 1), searched(missing, d, "x", 0, "", 1))
	to := dayN(1)
	wantDaily(t, s, "p", p.ID, lectern.AnalyticsVisit, d, to, aday(d, 1, 1))
	wantTop(t, s, "p", p.ID, lectern.AnalyticsReferrer, d, to, store.AnalyticsTopFilter{}, akey("r.example", 1, 1))
	wantDaily(t, s, "a deleted project", gone.ID, lectern.AnalyticsVisit, d, to)
	wantDaily(t, s, "a missing project", missing.ID, lectern.AnalyticsSearch, d, to)
	if cs := commentTexts(comments(t, s, p.ID, time.Time{}, time.Time{})); !slices.Equal(cs, []string{"hi"}) {
		t.Errorf("p's comments = %q, want [hi]", cs)
	}

	must(t, s.DeleteProject(t.Context(), p.ID, time.Now().UTC()), "DeleteProject(p)")
	record(t, s, pageview(p, d, "/b", "", 3), feedback(p, d, "/b", false, "after", 3))
	wantDaily(t, s, "p once deleted", p.ID, lectern.AnalyticsVisit, d, to)
	wantDaily(t, s, "p once deleted", p.ID, lectern.AnalyticsFeedback, d, to)
	wantTop(t, s, "p once deleted", p.ID, lectern.AnalyticsPageview, d, to, store.AnalyticsTopFilter{})
	if cs := comments(t, s, p.ID, time.Time{}, time.Time{}); len(cs) != 0 {
		t.Errorf("p's comments once deleted = %q, want none", commentTexts(cs))
	}
	got := analyticsStored(t, s)
	if want := rowsMadeBy(t, s, org, func(x *lectern.Project) []lectern.AnalyticsEvent {
		return []lectern.AnalyticsEvent{pageview(x, d, "/a", "r.example", 1), feedback(x, d, "/a", true, "hi", 1)}
	}); got != want {
		t.Errorf("the store held %d analytics rows, want %d (as many as p's first two events make)", got, want)
	}
}

// testAnalyticsPurge: PurgeProject drops the project's analytics (a
// project made again with its ID has none) and no other project's.
func testAnalyticsPurge(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	p, q, empty := newProject(t, s, org.ID), newProject(t, s, org.ID), newProject(t, s, org.ID)
	d := dayN(0)
	var ps []lectern.AnalyticsEvent
	for i := range 20 {
		ps = append(ps, pageview(p, dayN(i%3), fmt.Sprintf("/%d", i%4), "r.example", i%5), searched(p, d, "x", i%2, "/c", i),
			feedback(p, dayN(-i), "/f", i%3 == 0, "note", i))
	}
	qEvents := func(q *lectern.Project) []lectern.AnalyticsEvent {
		return []lectern.AnalyticsEvent{pageview(q, d, "/a", "", 1), pageview(q, d, "/a", "", 2), searched(q, d, "x", 0, "", 1)}
	}
	record(t, s, append(ps, qEvents(q)...)...)
	for _, x := range []*lectern.Project{p, empty} {
		must(t, s.DeleteProject(t.Context(), x.ID, time.Now().UTC()), "DeleteProject")
		must(t, s.PurgeProject(t.Context(), x.ID), "PurgeProject")
	}
	// A project made again with p's ID (free once p is purged) has no
	// analytics: none of p's is left behind.
	again := createProjectAt(t, s, org.ID, rec{p.ID, us(time.Now().UTC())})
	for _, kind := range []lectern.AnalyticsKind{lectern.AnalyticsPageview, lectern.AnalyticsVisit, lectern.AnalyticsReferrer,
		lectern.AnalyticsSearch, lectern.AnalyticsFeedback} {
		wantDaily(t, s, "a new project with a purged one's ID", again.ID, kind, dayN(-30), dayN(30))
		wantTop(t, s, "a new project with a purged one's ID", again.ID, kind, dayN(-30), dayN(30), store.AnalyticsTopFilter{})
	}
	if cs := comments(t, s, again.ID, time.Time{}, time.Time{}); len(cs) != 0 {
		t.Errorf("a new project with a purged one's ID has %d comments, want none", len(cs))
	}
	to := dayN(1)
	wantDaily(t, s, "q after p's purge", q.ID, lectern.AnalyticsVisit, d, to, aday(d, 2, 2))
	wantTop(t, s, "q after p's purge", q.ID, lectern.AnalyticsSearch, d, to, store.AnalyticsTopFilter{}, akey("x", 1, 1, 0, 1))
	if got, want := analyticsStored(t, s), rowsMadeBy(t, s, org, qEvents); got != want {
		t.Errorf("the store held %d analytics rows after p's purge, want %d (as many as q's events make)", got, want)
	}
}
