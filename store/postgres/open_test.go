package postgres_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"lectern.dev/lectern/store/postgres"
	"lectern.dev/lectern/store/postgres/pgtest"
)

// TestConcurrentOpenMigratesOnce starts several processes' worth of stores
// on one fresh schema at once: every Open succeeds, and each migration is
// applied once.
func TestConcurrentOpenMigratesOnce(t *testing.T) {
	t.Parallel()
	dsn := pgtest.URL(t)
	const n = 6
	var (
		wg     sync.WaitGroup
		start  = make(chan struct{})
		stores [n]*postgres.Store
		errs   [n]error
	)
	for i := range n {
		wg.Go(func() {
			<-start
			stores[i], errs[i] = postgres.Open(context.Background(), dsn)
		})
	}
	close(start)
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Errorf("Open %d: %v", i, errs[i])
			continue
		}
		defer stores[i].Close()
	}
	if t.Failed() {
		return
	}
	conn, err := pgxpool.New(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	rows, err := conn.Query(t.Context(), `SELECT version, count(*) OVER (PARTITION BY version) FROM schema_migrations ORDER BY version`)
	if err != nil {
		t.Fatal(err)
	}
	var versions []int
	for rows.Next() {
		var v, c int
		if err := rows.Scan(&v, &c); err != nil {
			t.Fatal(err)
		}
		if c != 1 {
			t.Errorf("migration %d recorded %d times", v, c)
		}
		versions = append(versions, v)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(versions) == 0 || versions[0] != 1 {
		t.Fatalf("schema_migrations versions %v, want 1 and up", versions)
	}
	got, err := stores[0].SchemaVersion(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if want := versions[len(versions)-1]; got != want {
		t.Errorf("SchemaVersion = %d, want %d", got, want)
	}
	// Opening again applies nothing and keeps the version.
	again, err := postgres.Open(t.Context(), dsn)
	if err != nil {
		t.Fatalf("Open on a migrated schema: %v", err)
	}
	defer again.Close()
	if v, err := again.SchemaVersion(t.Context()); err != nil || v != got {
		t.Errorf("SchemaVersion after reopening = %d, %v; want %d", v, err, got)
	}
}

// TestOpenErrorsHideThePassword checks that a failure to connect or to
// parse says what went wrong without the URL's password.
func TestOpenErrorsHideThePassword(t *testing.T) {
	t.Parallel()
	base := pgtest.BaseURL(t)
	const secret = "s3cr3t-Pa55word"
	for _, c := range []struct {
		name, dsn, want string
	}{
		{"unknown role", withUser(t, base, "no_such_role_lectern", secret), "authentication failed"},
		{"refused", "postgres://lectern:" + secret + "@127.0.0.1:1/db?connect_timeout=2", "connect"},
		{"bad port", "postgres://lectern:" + secret + "@127.0.0.1:notaport/db", "invalid URL"},
		{"bad option", "postgres://lectern:" + secret + "@127.0.0.1/db?sslmode=sometimes", "invalid URL"},
		{"not postgres", "mysql://lectern:" + secret + "@127.0.0.1/db", "postgres://"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s, err := postgres.Open(t.Context(), c.dsn)
			if err == nil {
				s.Close()
				t.Fatalf("Open(%s) succeeded, want an error", c.name)
			}
			if strings.Contains(err.Error(), secret) {
				t.Errorf("Open error shows the password: %v", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("Open error %q, want it to mention %q", err, c.want)
			}
		})
	}
}

// withUser returns dsn with its user and password replaced.
func withUser(t *testing.T, dsn, user, password string) string {
	t.Helper()
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("postgres://%s:%s@%s:%d/%s?sslmode=disable&connect_timeout=5", user, password, cfg.Host, cfg.Port, cfg.Database)
}
