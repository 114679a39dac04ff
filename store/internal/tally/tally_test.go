package tally

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"lectern.dev/lectern"
)

var monday = time.Date(2025, 3, 10, 0, 0, 0, 0, time.UTC)

func TestWeek(t *testing.T) {
	t.Parallel()
	for d := -10; d < 20; d++ {
		day := monday.AddDate(0, 0, d).Add(13 * time.Hour)
		w := Week(day)
		if w.Weekday() != time.Monday || day.Sub(w) < 0 || day.Sub(w) >= 7*24*time.Hour || w != lectern.AnalyticsDate(w) {
			t.Errorf("Week(%v) = %v, want the Monday at or before its date, at midnight UTC", day, w)
		}
	}
	if w := Week(time.Time{}); w != (time.Time{}) { // 1 January of year 1 is a Monday
		t.Errorf("Week(zero) = %v", w)
	}
}

// Split covers each day of [from, to) once: whole weeks from the weekly
// aggregates, the rest from the daily ones.
func TestSplit(t *testing.T) {
	t.Parallel()
	west := time.FixedZone("UTC-7", -7*3600)
	for f := -3; f < 25; f++ {
		for n := -2; n < 30; n++ {
			from, to := monday.AddDate(0, 0, f).Add(5*time.Hour), monday.AddDate(0, 0, f+n).Add(20*time.Hour).In(west)
			sp := Split(from, to)
			count := map[time.Time]int{}
			days := func(a, b time.Time) {
				for d := a; d.Before(b); d = d.AddDate(0, 0, 1) {
					count[d]++
				}
			}
			for w := sp.Weeks[0]; w.Before(sp.Weeks[1]); w = w.AddDate(0, 0, 7) {
				if w.Weekday() != time.Monday {
					t.Fatalf("Split(%d, %d): a week from %v", f, f+n, w)
				}
				days(w, w.AddDate(0, 0, 7))
			}
			days(sp.Days[0], sp.Days[1])
			days(sp.Days[2], sp.Days[3])
			want := map[time.Time]int{}
			for d := lectern.AnalyticsDate(from); d.Before(lectern.AnalyticsDate(to)); d = d.AddDate(0, 0, 1) {
				want[d] = 1
			}
			if fmt.Sprint(count) != fmt.Sprint(want) {
				t.Fatalf("Split(%v, %v) = %+v covers %v, want %v", from, to, sp, count, want)
			}
			if whole := n - 1; f >= 0 && whole >= 13 && !sp.Weeks[0].Before(sp.Weeks[1]) {
				t.Errorf("Split(%d, %d) reads no whole week", f, f+n)
			}
		}
	}
}

func event(project string, day int, kind lectern.AnalyticsKind, key, ref string, visitor int) lectern.AnalyticsEvent {
	e := lectern.AnalyticsEvent{ProjectID: project, At: monday.AddDate(0, 0, day).Add(time.Hour), Kind: kind, Path: key, Referrer: ref,
		Visitor: fmt.Sprintf("%032x", visitor)}
	switch kind {
	case lectern.AnalyticsSearch:
		e.Query, e.Results, e.Clicked = key, visitor%2, map[bool]string{true: "/c"}[visitor%3 == 0]
	case lectern.AnalyticsFeedback:
		helpful := visitor%2 == 0
		e.Helpful = &helpful
	}
	return e
}

func fmtSums(ss []Sum) string {
	out := ""
	for _, s := range ss {
		out += fmt.Sprintf("[%s %s %s %q n=%d v=%d c=%d z=%d y=%d no=%d]", s.ProjectID, s.Kind, s.Day.Format("01-02"), s.Key, s.N, s.Visitors,
			s.Clicks, s.Zero, s.Yes, s.No)
	}
	return out
}

// Rows groups events by aggregate, with their distinct visitors; Sums
// adds them up per day, per week and per day over the keys.
func TestRowsAndSums(t *testing.T) {
	t.Parallel()
	pv, se, fb := lectern.AnalyticsPageview, lectern.AnalyticsSearch, lectern.AnalyticsFeedback
	events := []lectern.AnalyticsEvent{
		event("p", 0, pv, "/a", "r.x", 1), event("p", 0, pv, "/a", "", 1), event("p", 0, pv, "/b", "r.x", 2),
		event("p", 1, pv, "/a", "", 1), event("p", 7, pv, "/a", "", 1),
		event("p", 0, se, "q", "", 3), event("p", 0, se, "q", "", 4), event("p", 0, fb, "/a", "", 1), event("p", 0, fb, "/a", "", 2),
		event("o", 0, pv, "/a", "", 1),
	}
	rows := Rows(events)
	var got []string
	for _, r := range rows {
		got = append(got, fmt.Sprintf("%s %s %s %q n=%d v=%d", r.ProjectID, r.Kind, r.Day.Format("01-02"), r.Key, r.N, len(r.Visitors)))
	}
	want := []string{
		`o pageview 03-10 "/a" n=1 v=1`, `o visit 03-10 "" n=1 v=1`,
		`p feedback 03-10 "/a" n=2 v=2`,
		`p pageview 03-10 "/a" n=2 v=1`, `p pageview 03-10 "/b" n=1 v=1`, `p pageview 03-11 "/a" n=1 v=1`, `p pageview 03-17 "/a" n=1 v=1`,
		`p referrer 03-10 "r.x" n=2 v=2`, `p search 03-10 "q" n=2 v=2`,
		`p visit 03-10 "" n=3 v=2`, `p visit 03-11 "" n=1 v=1`, `p visit 03-17 "" n=1 v=1`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("Rows:\n got  %q\n want %q", got, want)
	}
	for _, r := range rows {
		if !slices.IsSortedFunc(r.Visitors, func(a, b []byte) int { return slices.Compare(a, b) }) || len(r.Visitors) > 0 && len(r.Visitors[0]) != 16 {
			t.Errorf("row %v: visitors %x, want 16 bytes each, sorted", r.Group, r.Visitors)
		}
	}

	counted := make([]int64, len(rows))
	for i := range rows {
		counted[i] = int64(len(rows[i].Visitors)) - int64(i%2) // as if some were counted before
	}
	daily, weekly, totals := Sums(rows, counted)
	if len(daily) != len(rows) || daily[3].N != 2 || daily[3].Visitors != counted[3] {
		t.Errorf("daily sums: %s", fmtSums(daily))
	}
	// counted: 1 0 2 0 1 0 1 1 2 1 1 0 (rows in order).
	wantWeekly := `[o pageview 03-10 "/a" n=1 v=1 c=0 z=0 y=0 no=0][o visit 03-10 "" n=1 v=0 c=0 z=0 y=0 no=0]` +
		`[p feedback 03-10 "/a" n=2 v=2 c=0 z=0 y=1 no=1][p pageview 03-10 "/a" n=3 v=0 c=0 z=0 y=0 no=0]` +
		`[p pageview 03-10 "/b" n=1 v=1 c=0 z=0 y=0 no=0][p pageview 03-17 "/a" n=1 v=1 c=0 z=0 y=0 no=0]` +
		`[p referrer 03-10 "r.x" n=2 v=1 c=0 z=0 y=0 no=0][p search 03-10 "q" n=2 v=2 c=1 z=1 y=0 no=0]` +
		`[p visit 03-10 "" n=4 v=2 c=0 z=0 y=0 no=0][p visit 03-17 "" n=1 v=0 c=0 z=0 y=0 no=0]`
	if got := fmtSums(weekly); got != wantWeekly {
		t.Errorf("weekly sums:\n got  %s\n want %s", got, wantWeekly)
	}
	wantTotals := `[o pageview 03-10 "" n=1 v=1 c=0 z=0 y=0 no=0][o visit 03-10 "" n=1 v=0 c=0 z=0 y=0 no=0]` +
		`[p feedback 03-10 "" n=2 v=2 c=0 z=0 y=1 no=1][p pageview 03-10 "" n=3 v=1 c=0 z=0 y=0 no=0]` +
		`[p pageview 03-11 "" n=1 v=0 c=0 z=0 y=0 no=0][p pageview 03-17 "" n=1 v=1 c=0 z=0 y=0 no=0]` +
		`[p referrer 03-10 "" n=2 v=1 c=0 z=0 y=0 no=0][p search 03-10 "" n=2 v=2 c=1 z=1 y=0 no=0]` +
		`[p visit 03-10 "" n=3 v=1 c=0 z=0 y=0 no=0][p visit 03-11 "" n=1 v=1 c=0 z=0 y=0 no=0][p visit 03-17 "" n=1 v=0 c=0 z=0 y=0 no=0]`
	if got := fmtSums(totals); got != wantTotals {
		t.Errorf("totals:\n got  %s\n want %s", got, wantTotals)
	}

	if ps := Projects(events); !slices.Equal(ps, []string{"o", "p"}) {
		t.Errorf("Projects = %q", ps)
	}
	if kept := Keep(slices.Clone(events), map[string]bool{"o": true}); len(kept) != 1 || kept[0].ProjectID != "o" {
		t.Errorf("Keep(o) = %d events", len(kept))
	}
}
