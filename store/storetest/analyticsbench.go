package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

// The web analytics benchmarks of every store (figures only; the targets
// are 1,000 events well under 100 ms, and a 90-day report of a year of a
// busy site under 100 ms). A store seeds the year of aggregates its own
// fast way; the events and the reads are the same for all.

// AnalyticsBatch returns batch n of 1,000 events of a busy site:
// pageviews of 2,000 pages (a third referred), searches and feedback, by
// visitors of a pool of 20,000, on one day.
func AnalyticsBatch(projectID string, day time.Time, n int) []lectern.AnalyticsEvent {
	events := make([]lectern.AnalyticsEvent, 1000)
	for i := range events {
		k := n*1000 + i
		e := lectern.AnalyticsEvent{ProjectID: projectID, At: day.Add(time.Duration(k%86400) * time.Second),
			Visitor: fmt.Sprintf("%032x", (k*7919)%20000), Path: fmt.Sprintf("/docs/page-%d", (k*31)%2000)}
		switch {
		case i%10 < 7:
			e.Kind = lectern.AnalyticsPageview
			if i%3 == 0 {
				e.Referrer = fmt.Sprintf("www.site-%d.example", k%40)
			}
		case i%10 < 9:
			e.Kind, e.Query, e.Results = lectern.AnalyticsSearch, fmt.Sprintf("query %d", k%300), k%5
			if k%4 == 0 {
				e.Clicked = "/docs/page-1"
			}
		default:
			helpful := k%3 == 0
			e.Kind, e.Helpful = lectern.AnalyticsFeedback, &helpful
			if k%5 == 0 {
				e.Comment = "This page could say more about it."
			}
		}
		events[i] = e
	}
	return events
}

// BenchRecordAnalytics records batches of AnalyticsBatch into st for
// project projectID, reporting events/s and ms/batch.
func BenchRecordAnalytics(b *testing.B, st store.Store, projectID string) {
	day := lectern.AnalyticsDate(time.Now())
	ctx := context.Background()
	n := 0
	for b.Loop() {
		if err := st.RecordAnalytics(ctx, AnalyticsBatch(projectID, day, n)); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.ReportMetric(float64(n*1000)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(b.Elapsed().Seconds()*1000/float64(n), "ms/batch")
}

// BenchAnalyticsReport reads the 90-day report ending today (the daily
// visits and pageviews, the top pages, queries and referrers) of project
// projectID, whose year of aggregates the caller has seeded: every day
// with views of 2,000 pages, 300 queries, 40 referrers and 100 rated
// pages. It reports ms/report.
func BenchAnalyticsReport(b *testing.B, st store.Store, projectID string) {
	ctx := context.Background()
	today := lectern.AnalyticsDate(time.Now())
	from, to := today.AddDate(0, 0, -89), today.AddDate(0, 0, 1)
	b.ResetTimer()
	for b.Loop() {
		for _, kind := range []lectern.AnalyticsKind{lectern.AnalyticsVisit, lectern.AnalyticsPageview} {
			if ds, err := st.AnalyticsDaily(ctx, projectID, kind, from, to); err != nil || len(ds) != 90 {
				b.Fatalf("AnalyticsDaily(%s) = %d days, %v", kind, len(ds), err)
			}
		}
		for _, kind := range []lectern.AnalyticsKind{lectern.AnalyticsPageview, lectern.AnalyticsSearch, lectern.AnalyticsReferrer} {
			if ks, err := st.AnalyticsTop(ctx, projectID, kind, from, to, store.AnalyticsTopFilter{}); err != nil || len(ks) != 10 {
				b.Fatalf("AnalyticsTop(%s) = %d keys, %v", kind, len(ks), err)
			}
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()*1000/float64(b.N), "ms/report")
}
