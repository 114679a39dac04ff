package storetest

// Web analytics: reads over ranges of many weeks, retention, and the
// salts of the visitors' hashes.

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

// testAnalyticsLongRanges: over 45 days from a Thursday, with keys seen on
// some days only, every range of days (whole weeks and parts of weeks,
// starting and ending on every weekday) reads the sums of its days.
func testAnalyticsLongRanges(t *testing.T, s store.Store) {
	p := newProject(t, s, newOrg(t, s).ID)
	start := dayN(-4) // a Thursday
	var events []lectern.AnalyticsEvent
	for d := range 45 {
		day := start.AddDate(0, 0, d)
		for k := range 4 {
			if (d+k)%(k+2) == 0 { // key k on some days
				continue
			}
			for v := range 1 + (d*k)%3 {
				events = append(events, pageview(p, day.Add(time.Duration(v)*time.Hour), fmt.Sprintf("/k%d", k), "", v+d%2),
					searched(p, day, fmt.Sprintf("q%d", k), (d+v)%2, "", v))
			}
		}
	}
	record(t, s, events...)
	m := model{}
	m.record(events...)
	for from := -1; from <= 45; from++ {
		for _, n := range []int{0, 1, 6, 7, 8, 13, 14, 15, 20, 21, 22, 29, 35, 46} {
			f, to := start.AddDate(0, 0, from), start.AddDate(0, 0, from+n)
			what := fmt.Sprintf("days %d to %d", from, from+n)
			wantDaily(t, s, what, p.ID, lectern.AnalyticsPageview, f, to, m.days(lectern.AnalyticsPageview, f, to)...)
			wantTop(t, s, what, p.ID, lectern.AnalyticsPageview, f, to, store.AnalyticsTopFilter{}, m.keys(lectern.AnalyticsPageview, f, to)...)
			wantTop(t, s, what, p.ID, lectern.AnalyticsSearch, f.Add(5*time.Hour), to.Add(time.Hour), store.AnalyticsTopFilter{},
				m.keys(lectern.AnalyticsSearch, f, to)...)
		}
	}
}

// testAnalyticsPrune: PruneAnalytics drops the raw events before
// rawBefore, the visitors counted on days before its date (a late event
// then counts its visitor again), and the aggregates of days, and of whole
// weeks, before the date of dailyBefore, up to limit of each kind; it
// returns how many rows it dropped, 0 when there is nothing to drop.
func testAnalyticsPrune(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	p := newProject(t, s, org.ID)
	d0, d1, d2, d3 := dayN(0), dayN(1), dayN(2), dayN(3)
	ten := 10 * time.Hour
	for i, d := range []time.Time{d0, d1, d2} {
		record(t, s, feedback(p, d.Add(ten), "/a", true, fmt.Sprintf("c%d", i), 1), pageview(p, d.Add(ten), "/a", "", 1))
	}
	prune := func(rawBefore, dailyBefore time.Time, limit int, some bool) {
		t.Helper()
		n, err := s.PruneAnalytics(t.Context(), rawBefore, dailyBefore, limit)
		must(t, err, "PruneAnalytics")
		if (n > 0) != some {
			t.Errorf("PruneAnalytics(raw before %s, daily before %s, limit %d) = %d, want some: %t", fmtTime(&rawBefore), fmtTime(&dailyBefore), limit, n, some)
		}
	}
	wantComments := func(what string, want ...string) {
		t.Helper()
		if cs := commentTexts(comments(t, s, p.ID, time.Time{}, time.Time{})); !slices.Equal(cs, want) {
			t.Errorf("%s: comments %q, want %q", what, cs, want)
		}
	}
	top := store.AnalyticsTopFilter{}
	prune(d1.Add(ten), d1, 0, false)
	wantComments("after a prune of limit 0", "c2", "c1", "c0")
	wantDaily(t, s, "after a prune of limit 0", p.ID, lectern.AnalyticsVisit, d0, d3, aday(d0, 1, 1), aday(d1, 1, 1), aday(d2, 1, 1))

	// d0's events and aggregates; d1's events are at rawBefore: kept.
	prune(d1.Add(ten), d1, -1, true)
	prune(d1.Add(ten), d1, -1, false)
	wantComments("after the first prune", "c2", "c1")
	wantDaily(t, s, "after the first prune", p.ID, lectern.AnalyticsVisit, d0, d3, aday(d1, 1, 1), aday(d2, 1, 1))
	wantTop(t, s, "after the first prune", p.ID, lectern.AnalyticsFeedback, d0, d3, top, akey("/a", 2, 2, 0, 0, 2, 0))
	prune(d1.Add(ten+time.Microsecond), d1, -1, true)
	wantComments("after the second prune", "c2")
	wantDaily(t, s, "after the second prune", p.ID, lectern.AnalyticsVisit, d0, d3, aday(d1, 1, 1), aday(d2, 1, 1))
	// d1's counted visitors are kept: visitor 1 is not counted again.
	record(t, s, pageview(p, d1.Add(11*time.Hour), "/a", "", 1))
	wantDaily(t, s, "a late event after the second prune", p.ID, lectern.AnalyticsVisit, d0, d3, aday(d1, 2, 1), aday(d2, 1, 1))
	// The late event, and d1's counted visitors: visitor 1 counts again.
	prune(d2, d1, -1, true)
	record(t, s, pageview(p, d1.Add(12*time.Hour), "/a", "", 1))
	wantDaily(t, s, "a late event after the third prune", p.ID, lectern.AnalyticsVisit, d0, d3, aday(d1, 3, 2), aday(d2, 1, 1))
	wantComments("after the third prune", "c2")
	// Aggregates are dropped by dailyBefore's date alone.
	prune(d0, d2.Add(23*time.Hour), -1, true)
	prune(d0, d2.Add(23*time.Hour), -1, false)
	wantDaily(t, s, "after dropping d1's aggregates", p.ID, lectern.AnalyticsVisit, d0, d3, aday(d2, 1, 1))
	wantTop(t, s, "after dropping d1's aggregates", p.ID, lectern.AnalyticsFeedback, d0, d3, top, akey("/a", 1, 1, 0, 0, 1, 0))
	wantComments("after dropping d1's aggregates", "c2")

	// Whole weeks: the week of d0 (a Monday) to d6, then d7.
	analyticsStored(t, s)
	var week []lectern.AnalyticsEvent
	for d := range 8 {
		week = append(week, pageview(p, dayN(d), "/w", "", d%2), pageview(p, dayN(d), fmt.Sprintf("/d%d", d), "", 9))
	}
	record(t, s, week...)
	wantTop(t, s, "a week and a day", p.ID, lectern.AnalyticsPageview, d0, dayN(14), store.AnalyticsTopFilter{Limit: 2}, akey("/w", 8, 8), akey("/d0", 1, 1))
	prune(d0, dayN(7), -1, true)
	wantTop(t, s, "a week and a day once the week is dropped", p.ID, lectern.AnalyticsPageview, d0, dayN(14), top, akey("/d7", 1, 1), akey("/w", 1, 1))
	wantDaily(t, s, "a week and a day once the week is dropped", p.ID, lectern.AnalyticsVisit, d0, dayN(14), aday(dayN(7), 2, 2))

	// By limit: each call drops at most one raw event of five, and all
	// the calls drop as many rows as the events make.
	analyticsStored(t, s)
	five := func(x *lectern.Project) (es []lectern.AnalyticsEvent) {
		for v := range 5 {
			es = append(es, pageview(x, d0.Add(time.Duration(v)*time.Minute), "/a", "", v), feedback(x, d0, "/a", true, fmt.Sprint(v), v))
		}
		return es
	}
	record(t, s, five(p)...)
	far := time.Now().UTC().AddDate(1, 0, 0)
	total, calls := 0, 0
	for ; calls < 100; calls++ {
		n, err := s.PruneAnalytics(t.Context(), far, far, 1)
		must(t, err, "PruneAnalytics")
		if n == 0 {
			break
		}
		total += n
		if got := len(comments(t, s, p.ID, time.Time{}, time.Time{})); got < 4-calls {
			t.Errorf("after %d calls of PruneAnalytics(limit 1), %d comments are left, want at least %d", calls+1, got, 4-calls)
		}
	}
	if want := rowsMadeBy(t, s, org, five); total != want || calls < 10 {
		t.Errorf("PruneAnalytics(limit 1) dropped %d rows in %d calls, want %d in at least 10 (one raw event a call)", total, calls, want)
	}
}

// testAnalyticsSalt: AnalyticsSalt returns one random salt per UTC date,
// the same on every call (also from racing first calls); PruneAnalytics
// drops the salts of days before yesterday, and a day's salt asked again
// afterwards is a new one.
func testAnalyticsSalt(t *testing.T, s store.Store) {
	salt := func(day time.Time) []byte {
		t.Helper()
		b, err := s.AnalyticsSalt(t.Context(), day)
		must(t, err, "AnalyticsSalt")
		if len(b) != lectern.AnalyticsSaltLen || slices.Equal(b, make([]byte, len(b))) {
			t.Fatalf("AnalyticsSalt(%v) = %x, want %d random bytes", day, b, lectern.AnalyticsSaltLen)
		}
		return b
	}
	start := time.Now().UTC()
	today := lectern.AnalyticsDate(start)
	s0 := salt(start)
	east := time.FixedZone("UTC+14", 14*3600)
	for _, at := range []time.Time{today, today.Add(24*time.Hour - time.Microsecond), today.Add(time.Hour).In(east)} {
		if b := salt(at); !slices.Equal(b, s0) {
			t.Errorf("AnalyticsSalt(%v) = %x, want today's %x", at, b, s0)
		}
	}
	yesterday, tomorrow, old := salt(today.AddDate(0, 0, -1)), salt(today.AddDate(0, 0, 1)), salt(today.AddDate(0, 0, -10))
	for _, b := range [][]byte{yesterday, tomorrow, old} {
		if slices.Equal(b, s0) {
			t.Errorf("another day has today's salt %x", s0)
		}
	}
	if slices.Equal(yesterday, old) || slices.Equal(tomorrow, old) || slices.Equal(yesterday, tomorrow) {
		t.Error("two days have one salt")
	}

	// Racing first calls of one day get one salt.
	day := today.AddDate(0, 0, 2)
	got := make([][]byte, 8)
	errs := make([]error, len(got))
	ready := make(chan struct{})
	done := make(chan int)
	for i := range got {
		go func() {
			<-ready
			got[i], errs[i] = s.AnalyticsSalt(t.Context(), day)
			done <- i
		}()
	}
	close(ready)
	for range got {
		<-done
	}
	for i := range got {
		if errs[i] != nil || !slices.Equal(got[i], got[0]) || len(got[i]) != lectern.AnalyticsSaltLen {
			t.Errorf("racing AnalyticsSalt %d = %x, %v; want the same salt as call 0 (%x)", i, got[i], errs[i], got[0])
		}
	}

	n, err := s.PruneAnalytics(t.Context(), today.AddDate(-1, 0, 0), today.AddDate(-1, 0, 0), -1)
	must(t, err, "PruneAnalytics")
	if lectern.AnalyticsDate(time.Now()) != today {
		t.Log("the UTC date changed during the test: yesterday is another day; not checking the prune")
		return
	}
	if n != 1 {
		t.Errorf("PruneAnalytics dropped %d rows, want 1 (the salt of 10 days ago)", n)
	}
	if b := salt(today.AddDate(0, 0, -10)); slices.Equal(b, old) {
		t.Errorf("the salt of 10 days ago is the same after PruneAnalytics: %x", b)
	}
	for _, c := range []struct {
		day  time.Time
		want []byte
	}{{today, s0}, {today.AddDate(0, 0, -1), yesterday}, {today.AddDate(0, 0, 1), tomorrow}, {day, got[0]}} {
		if b := salt(c.day); !slices.Equal(b, c.want) {
			t.Errorf("the salt of %v changed after PruneAnalytics: %x, want %x", c.day, b, c.want)
		}
	}
}
