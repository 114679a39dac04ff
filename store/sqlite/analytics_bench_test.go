package sqlite

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
	"lectern.dev/lectern/store/storetest"
)

// Benchmarks of the web analytics: figures only (go test -bench Analytics
// ./store/sqlite); the targets are 1,000 events well under 100 ms, and a
// 90-day report of a busy site's year under 100 ms.

// benchStore opens a store in a temporary file with one project.
func benchStore(b *testing.B) (*Store, *lectern.Project) {
	b.Helper()
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	org := &lectern.Organization{Name: "Bench", Plan: lectern.PlanEnterprise}
	if err := s.CreateOrg(ctx, org); err != nil {
		b.Fatal(err)
	}
	p := &lectern.Project{OrgID: org.ID, Name: "Bench", RepoURL: "https://git.example.com/a/b.git", Branch: "main",
		Domains: []string{"bench.example.com"}, DeploymentType: lectern.DeploymentCloud}
	if err := s.CreateProject(ctx, p); err != nil {
		b.Fatal(err)
	}
	return s, p
}

func BenchmarkRecordAnalytics(b *testing.B) {
	s, p := benchStore(b)
	storetest.BenchRecordAnalytics(b, s, p.ID)
}

// BenchmarkAnalyticsReport reads a 90-day report of a year of a busy
// site's aggregates, every day of it with views of each of its 2,000
// pages, 300 queries, 40 referrers and 100 rated pages: 890,965 daily rows.
func BenchmarkAnalyticsReport(b *testing.B) {
	s, p := benchStore(b)
	ctx := context.Background()
	today := lectern.AnalyticsDate(time.Now())
	first := dayNum(today) - 364
	_, err := s.w.ExecContext(ctx, `WITH RECURSIVE d(day) AS (SELECT ?2 UNION ALL SELECT day + 1 FROM d WHERE day < ?2 + 364),
		k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 1999),
		x(kind, keys) AS (VALUES ('pageview', 2000), ('search', 300), ('referrer', 40), ('feedback', 100), ('visit', 1))
		INSERT INTO analytics_daily (project_id, kind, day, key, n, visitors, clicks, zero, yes, no)
		SELECT ?1, x.kind, d.day, CASE x.kind WHEN 'visit' THEN '' ELSE x.kind || '-' || k.i END,
			1 + (k.i * 7 + d.day) % 50, 1 + (k.i * 7 + d.day) % 40, CASE x.kind WHEN 'search' THEN k.i % 3 ELSE 0 END,
			CASE x.kind WHEN 'search' THEN k.i % 2 ELSE 0 END, CASE x.kind WHEN 'feedback' THEN 2 ELSE 0 END,
			CASE x.kind WHEN 'feedback' THEN 1 ELSE 0 END
		FROM x JOIN k ON k.i < x.keys CROSS JOIN d`, p.ID, first)
	if err != nil {
		b.Fatal(err)
	}
	// The weekly sums and the day's totals, as RecordAnalytics keeps them.
	for _, q := range []string{
		`INSERT INTO analytics_weekly (project_id, kind, week, key, n, visitors, clicks, zero, yes, no)
			SELECT project_id, kind, day - (day + 3) % 7, key, sum(n), sum(visitors), sum(clicks), sum(zero), sum(yes), sum(no)
			FROM analytics_daily GROUP BY 1, 2, 3, 4`,
		`INSERT INTO analytics_totals (project_id, kind, day, n, visitors, clicks, zero, yes, no)
			SELECT project_id, kind, day, sum(n), sum(visitors), sum(clicks), sum(zero), sum(yes), sum(no)
			FROM analytics_daily GROUP BY 1, 2, 3`,
	} {
		if _, err := s.w.ExecContext(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
	var rows int
	s.r.QueryRowContext(ctx, `SELECT count(*) FROM analytics_daily`).Scan(&rows)
	b.Logf("%d aggregate rows", rows)
	from, to := today.AddDate(0, 0, -89), today.AddDate(0, 0, 1)
	for _, kind := range []lectern.AnalyticsKind{lectern.AnalyticsVisit, lectern.AnalyticsPageview, lectern.AnalyticsSearch} {
		t0 := time.Now()
		s.AnalyticsDaily(ctx, p.ID, kind, from, to)
		t1 := time.Now()
		s.AnalyticsTop(ctx, p.ID, kind, from, to, store.AnalyticsTopFilter{})
		b.Logf("%s: daily %v, top %v", kind, t1.Sub(t0), time.Since(t1))
	}
	storetest.BenchAnalyticsReport(b, s, p.ID)
}
