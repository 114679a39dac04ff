package postgres_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
	"lectern.dev/lectern/store/postgres"
	"lectern.dev/lectern/store/postgres/pgtest"
)

// Benchmarks of the web analytics on PostgreSQL (TEST_DATABASE_URL):
// figures only; the targets are 1,000 events well under 100 ms, and a
// 90-day report of a busy site's year under 100 ms.

// benchStore opens a store in a fresh schema with one project, and a pool
// on the same schema.
func benchStore(b *testing.B) (*postgres.Store, *pgxpool.Pool, *lectern.Project) {
	b.Helper()
	ctx := context.Background()
	dsn := pgtest.URL(b)
	s, err := postgres.Open(ctx, dsn)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pool.Close)
	org := &lectern.Organization{Name: "Bench", Plan: lectern.PlanEnterprise}
	if err := s.CreateOrg(ctx, org); err != nil {
		b.Fatal(err)
	}
	p := &lectern.Project{OrgID: org.ID, Name: "Bench", RepoURL: "https://git.example.com/a/b.git", Branch: "main",
		Domains: []string{"bench.example.com"}, DeploymentType: lectern.DeploymentCloud}
	if err := s.CreateProject(ctx, p); err != nil {
		b.Fatal(err)
	}
	return s, pool, p
}

// benchBatch returns batch n of 1,000 events of a busy site: pageviews of
// 2,000 pages (a third referred), searches and feedback, by visitors of a
// pool of 20,000, on one day.
func benchBatch(projectID string, day time.Time, n int) []lectern.AnalyticsEvent {
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

func BenchmarkRecordAnalytics(b *testing.B) {
	s, _, p := benchStore(b)
	day := lectern.AnalyticsDate(time.Now())
	ctx := context.Background()
	n := 0
	for b.Loop() {
		if err := s.RecordAnalytics(ctx, benchBatch(p.ID, day, n)); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.ReportMetric(float64(n*1000)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(b.Elapsed().Seconds()*1000/float64(n), "ms/batch")
}

// BenchmarkAnalyticsReport reads a 90-day report (the daily visits and
// pageviews, the top pages, queries and referrers) of a year of a busy
// site's aggregates, every day of it with views of each of its 2,000
// pages, 300 queries, 40 referrers and 100 rated pages: 890,965 daily
// rows.
func BenchmarkAnalyticsReport(b *testing.B) {
	s, pool, p := benchStore(b)
	ctx := context.Background()
	today := lectern.AnalyticsDate(time.Now())
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO analytics_daily (project_id, kind, day, key, n, visitors, clicks, zero, yes, no)
		SELECT $1, x.kind, d.day, CASE x.kind WHEN 'visit' THEN '' ELSE x.kind || '-' || k.i END,
			1 + (k.i * 7 + d.i) % 50, 1 + (k.i * 7 + d.i) % 40, CASE x.kind WHEN 'search' THEN k.i % 3 ELSE 0 END,
			CASE x.kind WHEN 'search' THEN k.i % 2 ELSE 0 END, CASE x.kind WHEN 'feedback' THEN 2 ELSE 0 END,
			CASE x.kind WHEN 'feedback' THEN 1 ELSE 0 END
		FROM (VALUES ('pageview', 2000), ('search', 300), ('referrer', 40), ('feedback', 100), ('visit', 1)) x(kind, keys)
		JOIN generate_series(0, 1999) k(i) ON k.i < x.keys
		CROSS JOIN (SELECT i, ($2::date - i) AS day FROM generate_series(0, 364) i) d`, []any{p.ID, today}},
		// The weekly sums and the day's totals, as RecordAnalytics keeps them.
		{`INSERT INTO analytics_weekly (project_id, kind, week, key, n, visitors, clicks, zero, yes, no)
		SELECT project_id, kind, date_trunc('week', day)::date, key, sum(n), sum(visitors), sum(clicks), sum(zero), sum(yes), sum(no)
		FROM analytics_daily GROUP BY 1, 2, 3, 4`, nil},
		{`INSERT INTO analytics_totals (project_id, kind, day, n, visitors, clicks, zero, yes, no)
		SELECT project_id, kind, day, sum(n), sum(visitors), sum(clicks), sum(zero), sum(yes), sum(no)
		FROM analytics_daily GROUP BY 1, 2, 3`, nil},
		{`ANALYZE`, nil},
	} {
		if _, err := pool.Exec(ctx, q.sql, q.args...); err != nil {
			b.Fatal(err)
		}
	}
	from, to := today.AddDate(0, 0, -89), today.AddDate(0, 0, 1)
	b.ResetTimer()
	for b.Loop() {
		for _, kind := range []lectern.AnalyticsKind{lectern.AnalyticsVisit, lectern.AnalyticsPageview} {
			if ds, err := s.AnalyticsDaily(ctx, p.ID, kind, from, to); err != nil || len(ds) != 90 {
				b.Fatalf("AnalyticsDaily(%s) = %d days, %v", kind, len(ds), err)
			}
		}
		for _, kind := range []lectern.AnalyticsKind{lectern.AnalyticsPageview, lectern.AnalyticsSearch, lectern.AnalyticsReferrer} {
			if ks, err := s.AnalyticsTop(ctx, p.ID, kind, from, to, store.AnalyticsTopFilter{}); err != nil || len(ks) != 10 {
				b.Fatalf("AnalyticsTop(%s) = %d keys, %v", kind, len(ks), err)
			}
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()*1000/float64(b.N), "ms/report")
}
