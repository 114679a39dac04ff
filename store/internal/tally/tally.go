// Package tally groups a batch of analytics events into the rows that
// RecordAnalytics writes: the daily aggregates the events add to, and the
// visitors each aggregate counts. Both stores use it, so they count alike.
package tally

import (
	"bytes"
	"cmp"
	"encoding/hex"
	"slices"
	"strings"
	"time"

	"lectern.dev/lectern"
)

// Group names a daily aggregate.
type Group struct {
	ProjectID string
	Kind      lectern.AnalyticsKind
	Day       time.Time // midnight UTC
	Key       string
}

// Row is what a batch adds to one daily aggregate.
type Row struct {
	Group
	N, Clicks, Zero, Yes, No int64
	// Visitors are the distinct visitors of the row's events (16 bytes
	// each), in increasing order.
	Visitors [][]byte
}

// Rows returns the daily aggregates that events, brought within bounds
// (lectern.BoundAnalytics), add to, as store.Analytics describes them,
// sorted by project, kind, day and key: the order writers take the rows
// in, so that concurrent writers never wait for each other in a circle.
func Rows(events []lectern.AnalyticsEvent) []Row {
	rows := map[Group]*Row{}
	seen := map[Group]map[string]bool{}
	add := func(e *lectern.AnalyticsEvent, kind lectern.AnalyticsKind, key string, visitor []byte) *Row {
		k := Group{ProjectID: e.ProjectID, Kind: kind, Day: lectern.AnalyticsDate(e.At), Key: key}
		r := rows[k]
		if r == nil {
			r = &Row{Group: k}
			rows[k] = r
			seen[k] = map[string]bool{}
		}
		r.N++
		if !seen[k][string(visitor)] {
			seen[k][string(visitor)] = true
			r.Visitors = append(r.Visitors, visitor)
		}
		return r
	}
	for i := range events {
		e := &events[i]
		v := Visitor(e.Visitor)
		switch e.Kind {
		case lectern.AnalyticsPageview:
			add(e, lectern.AnalyticsPageview, e.Path, v)
			add(e, lectern.AnalyticsVisit, "", v)
			if e.Referrer != "" {
				add(e, lectern.AnalyticsReferrer, e.Referrer, v)
			}
		case lectern.AnalyticsSearch:
			r := add(e, lectern.AnalyticsSearch, e.Query, v)
			if e.Clicked != "" {
				r.Clicks++
			}
			if e.Results == 0 {
				r.Zero++
			}
		case lectern.AnalyticsFeedback:
			r := add(e, lectern.AnalyticsFeedback, e.Path, v)
			if e.Helpful != nil && *e.Helpful {
				r.Yes++
			} else {
				r.No++
			}
		}
	}
	out := make([]Row, 0, len(rows))
	for _, r := range rows {
		slices.SortFunc(r.Visitors, bytes.Compare)
		out = append(out, *r)
	}
	slices.SortFunc(out, func(a, b Row) int { return compare(a.Group, b.Group) })
	return out
}

// Visitor returns the 16 bytes of a visitor's 32 hexadecimal digits, as
// the stores keep them (nil when they are not hexadecimal, which
// lectern.AnalyticsEvent.Bound refuses).
func Visitor(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		return nil
	}
	return b
}

// Projects returns the distinct projects of events, sorted.
func Projects(events []lectern.AnalyticsEvent) []string {
	var ids []string
	for i := range events {
		ids = append(ids, events[i].ProjectID)
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// Keep returns the events whose project is in live (events is reused).
func Keep(events []lectern.AnalyticsEvent, live map[string]bool) []lectern.AnalyticsEvent {
	return slices.DeleteFunc(events, func(e lectern.AnalyticsEvent) bool { return !live[e.ProjectID] })
}

// Sum is what a batch adds to an aggregate: a day's (Day its date), a
// week's (Day its Monday) or a day's total over the keys (Key "").
type Sum struct {
	Group
	N, Visitors, Clicks, Zero, Yes, No int64
}

func (s *Sum) add(r *Row, visitors int64) {
	s.N, s.Visitors, s.Clicks, s.Zero, s.Yes, s.No = s.N+r.N, s.Visitors+visitors, s.Clicks+r.Clicks, s.Zero+r.Zero, s.Yes+r.Yes, s.No+r.No
}

// Sums returns what rows add to the daily aggregates, counting visitors[i]
// new visitors for rows[i] (those its aggregate had not counted yet);
// to the weekly aggregates, their sums per week; and to the day's totals
// of each kind, their sums over the keys. Each is sorted as Rows sorts.
func Sums(rows []Row, visitors []int64) (daily, weekly, totals []Sum) {
	daily = make([]Sum, len(rows))
	weeks := map[Group]*Sum{}
	days := map[Group]*Sum{}
	for i := range rows {
		r := &rows[i]
		daily[i].Group = r.Group
		daily[i].add(r, visitors[i])
		for _, x := range []struct {
			m map[Group]*Sum
			g Group
		}{{weeks, Group{r.ProjectID, r.Kind, Week(r.Day), r.Key}}, {days, Group{r.ProjectID, r.Kind, r.Day, ""}}} {
			s := x.m[x.g]
			if s == nil {
				s = &Sum{Group: x.g}
				x.m[x.g] = s
			}
			s.add(r, visitors[i])
		}
	}
	return daily, sorted(weeks), sorted(days)
}

func sorted(m map[Group]*Sum) []Sum {
	out := make([]Sum, 0, len(m))
	for _, s := range m {
		out = append(out, *s)
	}
	slices.SortFunc(out, func(a, b Sum) int { return compare(a.Group, b.Group) })
	return out
}

func compare(a, b Group) int {
	return cmp.Or(strings.Compare(a.ProjectID, b.ProjectID), strings.Compare(string(a.Kind), string(b.Kind)),
		a.Day.Compare(b.Day), strings.Compare(a.Key, b.Key))
}

// Week returns the Monday of the week of day (midnight UTC): weekly
// aggregates sum the days from it to the Sunday after.
func Week(day time.Time) time.Time {
	day = lectern.AnalyticsDate(day)
	return day.AddDate(0, 0, -((int(day.Weekday()) + 6) % 7))
}

// Span is how a read over the days [From, To) is made: the weeks [Weeks[0],
// Weeks[1]) (Mondays; empty when Weeks[0] is not before Weeks[1]) from the
// weekly aggregates, and the other days, Days[0] to Days[1] and Days[2] to
// Days[3] (each empty when its start is not before its end), from the
// daily aggregates.
type Span struct {
	Weeks [2]time.Time
	Days  [4]time.Time
}

// Split returns how to read the days from the UTC date of from up to, not
// including, the UTC date of to: the whole weeks between them from the
// weekly aggregates, the days before and after those from the daily ones.
func Split(from, to time.Time) Span {
	f, t := lectern.AnalyticsDate(from), lectern.AnalyticsDate(to)
	w1 := Week(f)
	if w1.Before(f) {
		w1 = w1.AddDate(0, 0, 7)
	}
	w2 := Week(t)
	if !w1.Before(w2) { // no whole week
		return Span{Weeks: [2]time.Time{w1, w1}, Days: [4]time.Time{f, t, t, t}}
	}
	return Span{Weeks: [2]time.Time{w1, w2}, Days: [4]time.Time{f, w1, w2, t}}
}
