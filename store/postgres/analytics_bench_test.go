package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store/postgres"
	"lectern.dev/lectern/store/postgres/pgtest"
	"lectern.dev/lectern/store/storetest"
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

func BenchmarkRecordAnalytics(b *testing.B) {
	s, _, p := benchStore(b)
	storetest.BenchRecordAnalytics(b, s, p.ID)
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
	storetest.BenchAnalyticsReport(b, s, p.ID)
}
