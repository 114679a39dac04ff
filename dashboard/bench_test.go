package dashboard

// The dashboard's page-time benchmark (issue 19: every page's server time
// with 1,000 projects and 100,000 updates in the store, target p99 under
// 50 ms, on both stores). Figures only: the times are printed, never
// asserted; what is asserted is that every page answered 200 with what
// it must show, so the figures are never those of an error page.
//
//	LECTERN_BENCH_DASHBOARD=1 go test ./dashboard -run TestBenchDashboardPages -v -timeout 30m
//	LECTERN_BENCH_DASHBOARD=1 TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test?sslmode=disable go test ./dashboard -run TestBenchDashboardPages -v -timeout 30m
//
// LECTERN_BENCH_DASHBOARD_N sets the requests per page (default 200);
// LECTERN_BENCH_DASHBOARD_DB=FILE seeds the SQLite database in FILE (a new
// one) and keeps it, to look at query plans (sqlite3 FILE).
// To measure a new page, add its path to benchPages.

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"lectern.dev/lectern"
	"lectern.dev/lectern/actions"
	"lectern.dev/lectern/blobstore"
	"lectern.dev/lectern/secrets"
	"lectern.dev/lectern/store"
	"lectern.dev/lectern/store/postgres"
	"lectern.dev/lectern/store/postgres/pgtest"
	"lectern.dev/lectern/store/sqlite"
)

// benchTarget is the target for a page's p99.
const benchTarget = 50 * time.Millisecond

// benchPage is a measured page: its path, and what its answer must
// contain. Both may name the seeded records (benchSeed.vars): {pid} the
// measured project, {uid} its newest update (built, with a 50-line log),
// {did} its previous deployment, {eid} its newest export (completed),
// {kid} an API key, {wid} the webhook, {mid} a member; expectations also
// {pname}, {domain}, {org}, {log} (the update's last log line), {sha7}
// (the deployment's commit), {kname}, {hookurl}, {email} (the signed-in
// owner's) and {memail}. An expectation holds when the answer contains
// any of its "|"-separated forms, compared case-insensitively.
type benchPage struct {
	path   string
	expect []string
}

var benchPages = []benchPage{
	{"/dashboard/keys", []string{"{pid}", "{oldpid}"}}, // every project's id, the oldest too
	{"/dashboard/keys/{kid}/revoke", []string{"{kname}"}},
	{"/dashboard/projects", []string{"{pname}"}},
	{"/dashboard/projects/new", []string{"repository"}},
	{"/dashboard/projects/{pid}", []string{"{pname}"}},
	{"/dashboard/projects/{pid}/edit", []string{"{pname}"}},
	{"/dashboard/projects/{pid}/delete", []string{"{pname}"}},
	{"/dashboard/projects/{pid}/updates", []string{"{uid}"}},
	{"/dashboard/projects/{pid}/updates/{uid}", []string{"{log}"}},
	{"/dashboard/projects/{pid}/updates/{uid}/live", []string{"success|succeeded"}},
	{"/dashboard/projects/{pid}/deployments", []string{"{did}|{sha7}"}},
	{"/dashboard/projects/{pid}/deployments/{did}/promote", []string{"{did}|{sha7}"}},
	{"/dashboard/projects/{pid}/access", []string{"{pname}"}},
	{"/dashboard/exports", []string{"{domain}"}},
	{"/dashboard/exports/new", []string{"{domain}"}},
	{"/dashboard/exports/{eid}", []string{"{domain}"}},
	{"/dashboard/exports/{eid}/live", []string{"completed"}},
	{"/dashboard/analytics?project={pid}", []string{"{pname}"}},
	{"/dashboard/analytics/views.csv?project={pid}", []string{"/docs/page-"}},
	{"/dashboard/webhooks", []string{"{hookurl}"}},
	{"/dashboard/webhooks/{wid}", []string{"{hookurl}"}},
	{"/dashboard/webhooks/{wid}/deliveries", []string{"delivered"}},
	{"/dashboard/org", []string{"{org}"}},
	{"/dashboard/org/account", []string{"{email}"}},
	{"/dashboard/org/members/{mid}/remove", []string{"{memail}"}},
}

// benchNoPage is the answer of a path no area serves yet (routes' catch-all).
const benchNoPage = "There is no dashboard page at this address"

func TestBenchDashboardPages(t *testing.T) {
	if os.Getenv("LECTERN_BENCH_DASHBOARD") != "1" {
		t.Skip("the dashboard page benchmark runs with LECTERN_BENCH_DASHBOARD=1 (add -v to see the figures)")
	}
	n := 200
	if v := os.Getenv("LECTERN_BENCH_DASHBOARD_N"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 {
			t.Fatalf("LECTERN_BENCH_DASHBOARD_N=%q: want a number of requests", v)
		}
	}
	t.Run("sqlite", func(t *testing.T) {
		path := os.Getenv("LECTERN_BENCH_DASHBOARD_DB")
		if path == "" {
			path = t.TempDir() + "/lectern.db"
		} else if _, err := os.Stat(path); err == nil {
			t.Fatalf("LECTERN_BENCH_DASHBOARD_DB=%s exists: name a new file", path)
		}
		st, err := sqlite.Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		benchStore(t, "sqlite", st, st, n, nil)
	})
	t.Run("postgres", func(t *testing.T) {
		if os.Getenv(pgtest.EnvURL) == "" {
			t.Skipf("%s is not set: to measure PostgreSQL too, run with %s=postgres://USER@HOST:5432/DB?sslmode=disable (a schema of its own is made and dropped)",
				pgtest.EnvURL, pgtest.EnvURL)
		}
		ctx := context.Background()
		dsn := pgtest.URL(t) // a pool of 4, as every test's
		// Seeding runs benchWorkers transactions at once, and need not
		// wait for each commit's flush to disk (the rows are the same);
		// the measured store is a server's, with its own pool.
		seeder, err := postgres.Open(ctx, pgtest.WithParams(t, dsn, map[string]string{"pool_max_conns": strconv.Itoa(benchWorkers),
			"synchronous_commit": "off"}))
		if err != nil {
			t.Fatal(err)
		}
		defer seeder.Close()
		st, err := postgres.Open(ctx, pgtest.WithParams(t, dsn, map[string]string{"pool_max_conns": "8"}))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		benchStore(t, "postgres", seeder, st, n, func() {
			// What autovacuum does after a bulk load on a running server:
			// dead rows of the superseded updates and finished jobs
			// cleared, and the planner's statistics.
			pool, err := pgxpool.New(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer pool.Close()
			if _, err := pool.Exec(ctx, "VACUUM ANALYZE"); err != nil {
				t.Fatal(err)
			}
		})
	})
}

// benchStore seeds the store through seeder, then measures every page of
// benchPages n times on st (the same database).
func benchStore(t *testing.T, name string, seeder, st store.Store, n int, afterSeed func()) {
	key, err := secrets.Parse(secrets.Generate())
	if err != nil {
		t.Fatal(err)
	}
	s := benchSeedStore(t, seeder, key)
	if afterSeed != nil {
		start := time.Now()
		afterSeed()
		s.phase("vacuum, analyze", start)
	}
	fmt.Printf("\n%s: seeded in\n%s", name, s.benchPhases())

	cs := &benchCounting{Store: st, calls: map[string]*benchCall{}}
	hosts, _ := lectern.NewServerHosts("https://" + serverHost)
	logs := &syncBuffer{}
	// As serve configures it (cli/serve.go), on the store itself.
	h := New(slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn})), cs, Config{
		Hosts: hosts, PublicURL: "https://" + serverHost,
		Actions: &actions.Service{Store: cs, Jobs: &countNotifier{}, Hosts: hosts, Secrets: key,
			Links: &blobstore.LocalLinks{PublicURL: "https://" + serverHost, Key: []byte(strings.Repeat("k", 32))}},
	})
	t.Cleanup(func() {
		if t.Failed() && logs.String() != "" {
			t.Logf("the dashboard's log:\n%s", logs)
		}
	})
	vars := s.vars()
	ids := strings.NewReplacer(vars...)

	var rows []string
	for _, pg := range benchPages {
		path := ids.Replace(pg.path)
		get := func() (*httptest.ResponseRecorder, time.Duration) {
			r := httptest.NewRequest("GET", "http://"+serverHost+path, nil)
			r.AddCookie(&http.Cookie{Name: sessionCookie, Value: s.token})
			w := httptest.NewRecorder()
			start := time.Now()
			h.ServeHTTP(w, r)
			return w, time.Since(start)
		}
		w, _ := get()
		if w.Code == http.StatusNotFound && strings.Contains(w.Body.String(), benchNoPage) {
			rows = append(rows, fmt.Sprintf("%-8s %-52s skipped: no such page (yet)", name, pg.path))
			continue
		}
		if w.Code != http.StatusOK {
			t.Errorf("%s %s: %d, want 200\n%.2000s", name, pg.path, w.Code, w.Body.String())
			continue
		}
		if !benchHas(t, name, pg, ids, w.Body.String()) {
			continue
		}
		for range 5 { // warm the caches and prepared statements
			get()
		}
		cs.reset()
		times := make([]time.Duration, n)
		for i := range times {
			w, times[i] = get()
			if w.Code != http.StatusOK {
				t.Fatalf("%s %s: request %d answered %d", name, pg.path, i, w.Code)
			}
		}
		slices.Sort(times)
		p99 := times[(len(times)*99+99)/100-1]
		mark := "ok"
		if p99 > benchTarget {
			mark = "OVER"
		}
		rows = append(rows, fmt.Sprintf("%-8s %-52s %8s %8s %8s %6.1f  %-4s %s", name, pg.path, benchMS(times[len(times)/2]), benchMS(p99),
			benchMS(times[len(times)-1]), float64(w.Body.Len())/1024, mark, cs.summary(n)))
	}
	fmt.Printf("\n%d requests per page, one at a time; target p99 < %v; store calls per request (mean ms each)\n", n, benchTarget)
	fmt.Printf("%-8s %-52s %8s %8s %8s %6s  %-4s %s\n", "store", "page", "p50", "p99", "max", "KB", "", "store calls")
	for _, r := range rows {
		fmt.Println(r)
	}
}

// benchHas reports whether body holds every expectation of pg, failing the
// test where it does not.
func benchHas(t *testing.T, name string, pg benchPage, vars *strings.Replacer, body string) bool {
	t.Helper()
	lower := strings.ToLower(body)
	ok := true
	for _, e := range pg.expect {
		forms := strings.Split(vars.Replace(e), "|")
		if !slices.ContainsFunc(forms, func(f string) bool {
			f = strings.ToLower(f)
			return strings.Contains(lower, f) || strings.Contains(lower, benchEscape(f))
		}) {
			t.Errorf("%s %s: the page lacks %q (%s)\n%.3000s", name, pg.path, vars.Replace(e), e, body)
			ok = false
		}
	}
	return ok
}

func benchMS(d time.Duration) string {
	return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 2, 64) + "ms"
}

// benchEscape is text as html/template writes it into a page.
func benchEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;").Replace(s)
}

// benchCounting is the store the measured dashboard uses: it counts and
// times the read methods pages call (and the session's), so the table says
// which query a slow page spends its time in: a call count that grows
// with the rows is an N+1, a slow single call a missing index or an
// unbounded list. Methods it does not list pass through uncounted.
type benchCounting struct {
	store.Store
	mu    sync.Mutex
	calls map[string]*benchCall
}

type benchCall struct {
	n     int
	spent time.Duration
}

func (c *benchCounting) track(name string, start time.Time) {
	d := time.Since(start)
	c.mu.Lock()
	defer c.mu.Unlock()
	k := c.calls[name]
	if k == nil {
		k = &benchCall{}
		c.calls[name] = k
	}
	k.n++
	k.spent += d
}

func (c *benchCounting) reset() { c.mu.Lock(); clear(c.calls); c.mu.Unlock() }

// summary lists the calls of n requests, per request, most time first.
func (c *benchCounting) summary(n int) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	names := make([]string, 0, len(c.calls))
	for k := range c.calls {
		names = append(names, k)
	}
	slices.SortFunc(names, func(a, b string) int { return int(c.calls[b].spent - c.calls[a].spent) })
	parts := make([]string, len(names))
	for i, k := range names {
		v := c.calls[k]
		parts[i] = fmt.Sprintf("%s×%g (%.2f)", k, float64(v.n)/float64(n), float64(v.spent.Microseconds())/1000/float64(v.n))
	}
	return strings.Join(parts, " ")
}

// The counted methods: what the dashboard's pages read.

func (c *benchCounting) GetSessionByHash(ctx context.Context, hash []byte, at time.Time) (*lectern.Session, error) {
	defer c.track("GetSessionByHash", time.Now())
	return c.Store.GetSessionByHash(ctx, hash, at)
}
func (c *benchCounting) TouchSession(ctx context.Context, hash []byte, at, expiresAt time.Time) error {
	defer c.track("TouchSession", time.Now())
	return c.Store.TouchSession(ctx, hash, at, expiresAt)
}
func (c *benchCounting) GetUser(ctx context.Context, id string) (*lectern.User, error) {
	defer c.track("GetUser", time.Now())
	return c.Store.GetUser(ctx, id)
}
func (c *benchCounting) ListUsers(ctx context.Context, orgID string) ([]*lectern.User, error) {
	defer c.track("ListUsers", time.Now())
	return c.Store.ListUsers(ctx, orgID)
}
func (c *benchCounting) GetOrg(ctx context.Context, id string) (*lectern.Organization, error) {
	defer c.track("GetOrg", time.Now())
	return c.Store.GetOrg(ctx, id)
}
func (c *benchCounting) ListAPIKeys(ctx context.Context, orgID string) ([]*lectern.APIKey, error) {
	defer c.track("ListAPIKeys", time.Now())
	return c.Store.ListAPIKeys(ctx, orgID)
}
func (c *benchCounting) GetProject(ctx context.Context, id string) (*lectern.Project, error) {
	defer c.track("GetProject", time.Now())
	return c.Store.GetProject(ctx, id)
}
func (c *benchCounting) GetProjectByDomain(ctx context.Context, domain string) (*lectern.Project, error) {
	defer c.track("GetProjectByDomain", time.Now())
	return c.Store.GetProjectByDomain(ctx, domain)
}
func (c *benchCounting) ListProjects(ctx context.Context, orgID string, pg store.Page) ([]*lectern.Project, error) {
	defer c.track("ListProjects", time.Now())
	return c.Store.ListProjects(ctx, orgID, pg)
}
func (c *benchCounting) GetDeployment(ctx context.Context, id string) (*lectern.Deployment, error) {
	defer c.track("GetDeployment", time.Now())
	return c.Store.GetDeployment(ctx, id)
}
func (c *benchCounting) ListDeployments(ctx context.Context, projectID string, pg store.Page) ([]*lectern.Deployment, error) {
	defer c.track("ListDeployments", time.Now())
	return c.Store.ListDeployments(ctx, projectID, pg)
}
func (c *benchCounting) GetUpdate(ctx context.Context, id string) (*lectern.Update, error) {
	defer c.track("GetUpdate", time.Now())
	return c.Store.GetUpdate(ctx, id)
}
func (c *benchCounting) ListUpdates(ctx context.Context, projectID string, pg store.Page) ([]*lectern.Update, error) {
	defer c.track("ListUpdates", time.Now())
	return c.Store.ListUpdates(ctx, projectID, pg)
}
func (c *benchCounting) GetExport(ctx context.Context, id string) (*lectern.ExportJob, error) {
	defer c.track("GetExport", time.Now())
	return c.Store.GetExport(ctx, id)
}
func (c *benchCounting) ListExports(ctx context.Context, f store.ExportFilter, pg store.Page) ([]*lectern.ExportJob, error) {
	defer c.track("ListExports", time.Now())
	return c.Store.ListExports(ctx, f, pg)
}
func (c *benchCounting) GetWebhook(ctx context.Context, id string) (*lectern.Webhook, error) {
	defer c.track("GetWebhook", time.Now())
	return c.Store.GetWebhook(ctx, id)
}
func (c *benchCounting) ListWebhooks(ctx context.Context, orgID string, pg store.Page) ([]*lectern.Webhook, error) {
	defer c.track("ListWebhooks", time.Now())
	return c.Store.ListWebhooks(ctx, orgID, pg)
}
func (c *benchCounting) ListDeliveries(ctx context.Context, webhookID string, pg store.Page) ([]*lectern.Delivery, error) {
	defer c.track("ListDeliveries", time.Now())
	return c.Store.ListDeliveries(ctx, webhookID, pg)
}
func (c *benchCounting) AnalyticsDaily(ctx context.Context, projectID string, kind lectern.AnalyticsKind, from, to time.Time) ([]lectern.AnalyticsDay, error) {
	defer c.track("AnalyticsDaily", time.Now())
	return c.Store.AnalyticsDaily(ctx, projectID, kind, from, to)
}
func (c *benchCounting) AnalyticsTop(ctx context.Context, projectID string, kind lectern.AnalyticsKind, from, to time.Time, f store.AnalyticsTopFilter) ([]lectern.AnalyticsKey, error) {
	defer c.track("AnalyticsTop", time.Now())
	return c.Store.AnalyticsTop(ctx, projectID, kind, from, to, f)
}
func (c *benchCounting) ListAnalyticsComments(ctx context.Context, projectID string, from, to time.Time, pg store.Page) ([]*lectern.AnalyticsEvent, error) {
	defer c.track("ListAnalyticsComments", time.Now())
	return c.Store.ListAnalyticsComments(ctx, projectID, from, to, pg)
}
func (c *benchCounting) ListAssistantMessages(ctx context.Context, projectID string, f store.AssistantFilter, pg store.Page) ([]*lectern.AssistantMessage, error) {
	defer c.track("ListAssistantMessages", time.Now())
	return c.Store.ListAssistantMessages(ctx, projectID, f, pg)
}
