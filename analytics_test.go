package lectern_test

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"lectern.dev/lectern"
)

const visitor = "0123456789abcdef0123456789abcdef"

func boolPtr(v bool) *bool { return &v }

// fmtEvent formats every field of an event.
func fmtEvent(e lectern.AnalyticsEvent) string {
	helpful := "nil"
	if e.Helpful != nil {
		helpful = fmt.Sprint(*e.Helpful)
	}
	return fmt.Sprintf("{ID:%d ProjectID:%q At:%s Kind:%q Path:%q Referrer:%q Visitor:%q Query:%q Results:%d Clicked:%q Helpful:%s Comment:%q}",
		e.ID, e.ProjectID, e.At.Format(time.RFC3339Nano), e.Kind, e.Path, e.Referrer, e.Visitor, e.Query, e.Results, e.Clicked, helpful, e.Comment)
}

// Bound keeps each kind's fields, normalised and within bounds, and clears
// the others.
func TestAnalyticsEventBound(t *testing.T) {
	t.Parallel()
	east := time.FixedZone("UTC+2", 2*3600)
	at := time.Date(2025, 3, 10, 1, 30, 0, 123456789, east)
	wantAt := time.Date(2025, 3, 9, 23, 30, 0, 123456000, time.UTC)
	for _, c := range []struct {
		name    string
		in, out lectern.AnalyticsEvent
	}{
		{"pageview",
			lectern.AnalyticsEvent{ID: 7, ProjectID: "prj_1", At: at, Kind: lectern.AnalyticsPageview, Path: "/guides/x", Referrer: "WWW.Google.com",
				Visitor: strings.ToUpper(visitor), Query: "q", Results: 3, Clicked: "/c", Helpful: boolPtr(true), Comment: "c"},
			lectern.AnalyticsEvent{ID: 7, ProjectID: "prj_1", At: wantAt, Kind: lectern.AnalyticsPageview, Path: "/guides/x",
				Referrer: "www.google.com", Visitor: visitor}},
		{"search",
			lectern.AnalyticsEvent{ProjectID: "prj_1", At: at, Kind: lectern.AnalyticsSearch, Referrer: "r.example", Visitor: visitor,
				Query: "  How  TO\tDeploy ", Results: 0, Clicked: "/guides/deploy", Helpful: boolPtr(false), Comment: "c"},
			lectern.AnalyticsEvent{ProjectID: "prj_1", At: wantAt, Kind: lectern.AnalyticsSearch, Visitor: visitor, Query: "how to deploy",
				Clicked: "/guides/deploy"}},
		{"feedback",
			lectern.AnalyticsEvent{ProjectID: "prj_1", At: at, Kind: lectern.AnalyticsFeedback, Path: "/p", Referrer: "r.example", Visitor: visitor,
				Query: "q", Results: 2, Clicked: "/c", Helpful: boolPtr(false), Comment: " \n Too short.\x00\xff \t"},
			lectern.AnalyticsEvent{ProjectID: "prj_1", At: wantAt, Kind: lectern.AnalyticsFeedback, Path: "/p", Visitor: visitor,
				Helpful: boolPtr(false), Comment: "Too short.\uFFFD\uFFFD"}},
	} {
		e := c.in
		if err := e.Bound(); err != nil {
			t.Errorf("%s: Bound: %v", c.name, err)
			continue
		}
		if got, want := fmtEvent(e), fmtEvent(c.out); got != want {
			t.Errorf("%s: Bound:\n got  %s\n want %s", c.name, got, want)
		}
		if e.At.Location() != time.UTC {
			t.Errorf("%s: Bound left At in %v, want UTC", c.name, e.At.Location())
		}
	}
}

// Text over its bound is cut at a rune boundary and ended with "…" within
// the bound; text at its bound is kept whole.
func TestAnalyticsEventBoundCuts(t *testing.T) {
	t.Parallel()
	at := time.Date(2025, 3, 10, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name  string
		in    string
		max   int
		runes bool
		set   func(e *lectern.AnalyticsEvent, s string)
		get   func(e *lectern.AnalyticsEvent) string
	}{
		{"path", "/" + strings.Repeat("é", 400), lectern.MaxAnalyticsPath, false,
			func(e *lectern.AnalyticsEvent, s string) { e.Kind, e.Path = lectern.AnalyticsPageview, s },
			func(e *lectern.AnalyticsEvent) string { return e.Path }},
		{"referrer", strings.Repeat("€", 100), lectern.MaxAnalyticsReferrer, false,
			func(e *lectern.AnalyticsEvent, s string) {
				e.Kind, e.Path, e.Referrer = lectern.AnalyticsPageview, "/", s
			},
			func(e *lectern.AnalyticsEvent) string { return e.Referrer }},
		{"query", strings.Repeat("ü", 150), lectern.MaxAnalyticsQuery, false,
			func(e *lectern.AnalyticsEvent, s string) { e.Kind, e.Query = lectern.AnalyticsSearch, s },
			func(e *lectern.AnalyticsEvent) string { return e.Query }},
		{"clicked", "/" + strings.Repeat("€", 200), lectern.MaxAnalyticsPath, false,
			func(e *lectern.AnalyticsEvent, s string) {
				e.Kind, e.Query, e.Clicked = lectern.AnalyticsSearch, "q", s
			},
			func(e *lectern.AnalyticsEvent) string { return e.Clicked }},
		{"comment", strings.Repeat("日", lectern.MaxAnalyticsComment+5), lectern.MaxAnalyticsComment, true,
			func(e *lectern.AnalyticsEvent, s string) {
				e.Kind, e.Path, e.Helpful, e.Comment = lectern.AnalyticsFeedback, "/", boolPtr(true), s
			},
			func(e *lectern.AnalyticsEvent) string { return e.Comment }},
	} {
		size := func(s string) int {
			if c.runes {
				return utf8.RuneCountInString(s)
			}
			return len(s)
		}
		e := lectern.AnalyticsEvent{ProjectID: "prj_1", At: at, Visitor: visitor}
		c.set(&e, c.in)
		if err := e.Bound(); err != nil {
			t.Fatalf("%s: Bound: %v", c.name, err)
		}
		got := c.get(&e)
		if !utf8.ValidString(got) || !strings.HasSuffix(got, "…") || size(got) > c.max || !strings.HasPrefix(c.in, strings.TrimSuffix(got, "…")) {
			t.Errorf("%s: cut to %q (%d), want a prefix of the text, whole runes, ended with … within %d", c.name, got, size(got), c.max)
		}
		if longest := size(got) + 3; !c.runes && longest < c.max {
			t.Errorf("%s: cut to %d bytes, shorter than needed for %d", c.name, size(got), c.max)
		}
		// At the bound: whole.
		fit := strings.Repeat("a", c.max)
		if c.name == "path" || c.name == "clicked" {
			fit = "/" + fit[1:]
		}
		e = lectern.AnalyticsEvent{ProjectID: "prj_1", At: at, Visitor: visitor}
		c.set(&e, fit)
		if err := e.Bound(); err != nil || c.get(&e) != fit {
			t.Errorf("%s at its bound: %q (%v), want it whole", c.name, c.get(&e), err)
		}
	}
}

// Bound refuses what no collector should send, with EINVALID.
func TestAnalyticsEventBoundRefuses(t *testing.T) {
	t.Parallel()
	at := time.Date(2025, 3, 10, 0, 0, 0, 0, time.UTC)
	ok := func() lectern.AnalyticsEvent {
		return lectern.AnalyticsEvent{ProjectID: "prj_1", At: at, Kind: lectern.AnalyticsPageview, Path: "/", Visitor: visitor}
	}
	for name, change := range map[string]func(e *lectern.AnalyticsEvent){
		"no project":          func(e *lectern.AnalyticsEvent) { e.ProjectID = "" },
		"an unknown kind":     func(e *lectern.AnalyticsEvent) { e.Kind = "click" },
		"visit":               func(e *lectern.AnalyticsEvent) { e.Kind = lectern.AnalyticsVisit },
		"referrer":            func(e *lectern.AnalyticsEvent) { e.Kind = lectern.AnalyticsReferrer },
		"no time":             func(e *lectern.AnalyticsEvent) { e.At = time.Time{} },
		"an IPv4 address":     func(e *lectern.AnalyticsEvent) { e.Visitor = "203.0.113.9" },
		"an IPv6 address":     func(e *lectern.AnalyticsEvent) { e.Visitor = "2001:db8::1" },
		"a short visitor":     func(e *lectern.AnalyticsEvent) { e.Visitor = visitor[:31] },
		"a long visitor":      func(e *lectern.AnalyticsEvent) { e.Visitor = visitor + "a" },
		"a non-hex visitor":   func(e *lectern.AnalyticsEvent) { e.Visitor = "z" + visitor[1:] },
		"a pageview, no path": func(e *lectern.AnalyticsEvent) { e.Path = "" },
		"a search, no query":  func(e *lectern.AnalyticsEvent) { e.Kind, e.Query = lectern.AnalyticsSearch, " \t\n" },
		"negative results":    func(e *lectern.AnalyticsEvent) { e.Kind, e.Query, e.Results = lectern.AnalyticsSearch, "q", -1 },
		"a feedback, no vote": func(e *lectern.AnalyticsEvent) { e.Kind = lectern.AnalyticsFeedback },
		"a feedback, no path": func(e *lectern.AnalyticsEvent) {
			e.Kind, e.Path, e.Helpful = lectern.AnalyticsFeedback, "", boolPtr(true)
		},
	} {
		e := ok()
		change(&e)
		if err := e.Bound(); lectern.ErrorCode(err) != lectern.EINVALID {
			t.Errorf("Bound of an event with %s: %v, want %s", name, err, lectern.EINVALID)
		}
	}
	e := ok()
	if err := e.Bound(); err != nil {
		t.Errorf("Bound of a good event: %v", err)
	}
}

// BoundAnalytics bounds copies, leaving the caller's events as they are,
// names the first bad event, and takes at most MaxAnalyticsBatch.
func TestBoundAnalytics(t *testing.T) {
	t.Parallel()
	at := time.Date(2025, 3, 10, 0, 0, 0, 0, time.UTC)
	helpful := true
	events := []lectern.AnalyticsEvent{
		{ProjectID: "prj_1", At: at, Kind: lectern.AnalyticsPageview, Path: "/a", Visitor: strings.ToUpper(visitor), Query: "x"},
		{ProjectID: "prj_1", At: at, Kind: lectern.AnalyticsFeedback, Path: "/a", Visitor: visitor, Helpful: &helpful},
	}
	before := []string{fmtEvent(events[0]), fmtEvent(events[1])}
	out, err := lectern.BoundAnalytics(events)
	if err != nil {
		t.Fatal(err)
	}
	if fmtEvent(events[0]) != before[0] || fmtEvent(events[1]) != before[1] {
		t.Errorf("BoundAnalytics changed the caller's events: %s, %s", fmtEvent(events[0]), fmtEvent(events[1]))
	}
	if out[0].Visitor != visitor || out[0].Query != "" {
		t.Errorf("BoundAnalytics returned %s, want it bounded", fmtEvent(out[0]))
	}
	*out[1].Helpful = false
	if !helpful {
		t.Error("the bounded copy's vote is the caller's variable")
	}

	bad := append(events, lectern.AnalyticsEvent{ProjectID: "prj_1", At: at, Kind: "click", Visitor: visitor})
	if _, err := lectern.BoundAnalytics(bad); lectern.ErrorCode(err) != lectern.EINVALID || !strings.Contains(err.Error(), "event 2:") {
		t.Errorf("BoundAnalytics of a batch whose event 2 is bad: %v", err)
	}
	full := make([]lectern.AnalyticsEvent, lectern.MaxAnalyticsBatch+1)
	for i := range full {
		full[i] = events[0]
	}
	if _, err := lectern.BoundAnalytics(full); lectern.ErrorCode(err) != lectern.EINVALID {
		t.Errorf("BoundAnalytics of %d events: %v, want %s", len(full), err, lectern.EINVALID)
	}
	if out, err := lectern.BoundAnalytics(full[:lectern.MaxAnalyticsBatch]); err != nil || len(out) != lectern.MaxAnalyticsBatch {
		t.Errorf("BoundAnalytics of %d events: %d, %v", lectern.MaxAnalyticsBatch, len(out), err)
	}
}

func TestAnalyticsDate(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   time.Time
		want string
	}{
		{time.Date(2025, 3, 10, 0, 0, 0, 0, time.UTC), "2025-03-10T00:00:00Z"},
		{time.Date(2025, 3, 10, 23, 59, 59, 999999999, time.UTC), "2025-03-10T00:00:00Z"},
		{time.Date(2025, 3, 11, 1, 0, 0, 0, time.FixedZone("UTC+2", 7200)), "2025-03-10T00:00:00Z"},
		{time.Date(2025, 3, 10, 20, 0, 0, 0, time.FixedZone("UTC-5", -18000)), "2025-03-11T00:00:00Z"},
	} {
		if got := lectern.AnalyticsDate(c.in).Format(time.RFC3339Nano); got != c.want {
			t.Errorf("AnalyticsDate(%v) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestAnalyticsKinds(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		kind               lectern.AnalyticsKind
		recorded, reported bool
	}{
		{lectern.AnalyticsPageview, true, true}, {lectern.AnalyticsSearch, true, true}, {lectern.AnalyticsFeedback, true, true},
		{lectern.AnalyticsVisit, false, true}, {lectern.AnalyticsReferrer, false, true},
		{"", false, false}, {"Pageview", false, false}, {"click", false, false},
	} {
		if c.kind.Recorded() != c.recorded || c.kind.Reported() != c.reported {
			t.Errorf("%q: Recorded %t, Reported %t; want %t, %t", c.kind, c.kind.Recorded(), c.kind.Reported(), c.recorded, c.reported)
		}
	}
}
