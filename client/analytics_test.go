package client_test

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/client"
	"lectern.dev/lectern/store/sqlite"
)

// TestAnalytics: through the client, against a real server: the four
// reports of a project whose site was visited, searched, rated and asked
// (the question through the API, the rest recorded in the server's
// database as its sites' collector does), over the default range and
// over one day; a bad range and another organization's project are
// refused.
func TestAnalytics(t *testing.T) {
	t.Parallel()
	f := startServer(t)
	tn := f.tenant(t, "pro", f.good, true, "stats")
	other := f.tenant(t, "pro", f.good, false, "nostats")
	c := newClient(t, f.url, tn.key)
	ctx := testContext(t)

	today := lectern.AnalyticsDate(time.Now())
	yesterday := today.AddDate(0, 0, -1).Add(12 * time.Hour)
	if _, err := c.Ask(ctx, tn.domains[0], []client.AssistantMessage{{Role: "user", Content: "How do I install the acme CLI?"}}, nil); err != nil {
		t.Fatal(err)
	}
	st, err := sqlite.Open(context.Background(), filepath.Join(f.data, "lectern.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	yes := true
	visitor := strings.Repeat("0123456789abcdef", 2)
	ev := func(at time.Time, kind lectern.AnalyticsKind) lectern.AnalyticsEvent {
		return lectern.AnalyticsEvent{ProjectID: tn.project, At: at, Kind: kind, Visitor: visitor, Path: "/quickstart"}
	}
	events := []lectern.AnalyticsEvent{ev(yesterday, lectern.AnalyticsPageview), ev(today, lectern.AnalyticsPageview),
		ev(today, lectern.AnalyticsSearch), ev(today, lectern.AnalyticsSearch), ev(today, lectern.AnalyticsFeedback)}
	events[0].Referrer = "www.google.com"
	events[2].Query, events[2].Results, events[2].Clicked = "install", 2, "/quickstart"
	events[3].Query = "uninstall"
	events[4].Helpful, events[4].Comment = &yes, "Worked first time."
	if err := st.RecordAnalytics(context.Background(), events); err != nil {
		t.Fatal(err)
	}

	day := today.Format(time.DateOnly)
	v, err := c.AnalyticsViews(ctx, tn.project, client.AnalyticsOptions{})
	if !lectern.AnalyticsDate(time.Now()).Equal(today) {
		t.Skip("the UTC date changed during the test")
	}
	if err != nil || v.ProjectID != tn.project || v.To != day || len(v.Days) != 30 || v.Totals != (client.AnalyticsViewCount{Views: 2, Visitors: 2}) ||
		!slices.Equal(v.Pages, []client.AnalyticsPageViews{{Path: "/quickstart", Views: 2, Visitors: 2}}) ||
		!slices.Equal(v.Referrers, []client.AnalyticsReferrer{{Host: "www.google.com", Views: 1, Visitors: 1}}) {
		t.Fatalf("AnalyticsViews: %+v, %v", v, err)
	}
	v, err = c.AnalyticsViews(ctx, tn.project, client.AnalyticsOptions{From: yesterday, To: yesterday})
	if err != nil || v.From != v.To || len(v.Days) != 1 || v.Days[0].Views != 1 {
		t.Fatalf("AnalyticsViews of yesterday: %+v, %v", v, err)
	}
	s, err := c.AnalyticsSearches(ctx, tn.project, client.AnalyticsOptions{Limit: 1})
	if err != nil || s.Totals != (client.AnalyticsSearchTotals{Searches: 2, Clicks: 1, NoResults: 1, ClickThrough: 0.5}) || len(s.Queries) != 1 ||
		s.Queries[0] != (client.AnalyticsQuery{Query: "install", Searches: 1, Clicks: 1, ClickThrough: 1}) ||
		!slices.Equal(s.NoResults, []client.AnalyticsNoResultQuery{{Query: "uninstall", Searches: 1}}) {
		t.Fatalf("AnalyticsSearches: %+v, %v", s, err)
	}
	fb, err := c.AnalyticsFeedback(ctx, tn.project, client.AnalyticsOptions{})
	if err != nil || fb.Totals != (client.AnalyticsVotes{Helpful: 1}) || len(fb.Comments) != 1 ||
		fb.Comments[0].Comment != "Worked first time." || !fb.Comments[0].At.Equal(today) {
		t.Fatalf("AnalyticsFeedback: %+v, %v", fb, err)
	}
	a, err := c.AnalyticsAssistant(ctx, tn.project, client.AnalyticsOptions{})
	if err != nil || a.Truncated || a.Totals != (client.AnalyticsAssistantTotals{Questions: 1, Answered: 1}) || len(a.Questions) != 1 ||
		a.Questions[0].Source != "api" || a.Questions[0].Question != "How do I install the acme CLI?" || a.Questions[0].Helpful != nil ||
		len(a.CitedPages) == 0 || a.CitedPages[0].URL != "/quickstart" {
		t.Fatalf("AnalyticsAssistant: %+v, %v", a, err)
	}

	var e *client.Error
	_, err = c.AnalyticsViews(ctx, tn.project, client.AnalyticsOptions{From: today, To: yesterday})
	if !errors.As(err, &e) || e.Code != client.CodeInvalidRequest || len(e.Fields) != 1 || e.Fields[0].Field != "from" {
		t.Fatalf("from after to: %v, want invalid_request naming from", err)
	}
	if _, err := newClient(t, f.url, other.key).AnalyticsAssistant(ctx, tn.project, client.AnalyticsOptions{}); !errors.As(err, &e) || e.Code != client.CodeNotFound {
		t.Fatalf("another organization's project: %v, want not_found", err)
	}
	if _, err := c.AnalyticsFeedback(ctx, "", client.AnalyticsOptions{}); err == nil {
		t.Fatal("no project ID: no error")
	}
}
