package postgres

import (
	"context"
	"io/fs"
	"slices"
	"sort"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"lectern.dev/lectern/store"
	"lectern.dev/lectern/store/postgres/pgtest"
)

// TestMigrationsApplied: Open reports the migrations it applied (all on a
// new schema, only the newest on a database of the previous release, none
// on an up-to-date one), so that lectern migrate says what it did.
func TestMigrationsApplied(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(names)
	latest := store.LatestMigration(names)
	var all []int
	for _, n := range names {
		v, err := store.MigrationVersion(n)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, v)
	}

	fresh := pgtest.URL(t)
	s, err := Open(ctx, fresh)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.MigrationsApplied(); !slices.Equal(got, all) {
		t.Errorf("new schema: applied %v, want %v", got, all)
	}
	s.Close()
	s, err = Open(ctx, fresh)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.MigrationsApplied(); len(got) != 0 {
		t.Errorf("up-to-date schema: applied %v, want none", got)
	}
	s.Close()

	// A database of the previous release: every migration but the newest,
	// applied as that release did.
	older := pgtest.URL(t)
	pool, err := pgxpool.New(ctx, older)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if _, err := pool.Exec(ctx, `CREATE TABLE schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		t.Fatal(err)
	}
	for i, n := range names[:len(names)-1] {
		body, err := migrations.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := pool.Exec(ctx, string(body)); err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		if _, err := pool.Exec(ctx, `INSERT INTO schema_migrations (version) VALUES ($1)`, all[i]); err != nil {
			t.Fatal(err)
		}
	}
	s, err = Open(ctx, older)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := s.MigrationsApplied(); !slices.Equal(got, []int{latest}) {
		t.Errorf("database of the previous release: applied %v, want [%d]", got, latest)
	}
	if v, err := s.SchemaVersion(ctx); err != nil || v != latest {
		t.Errorf("schema version %d, %v; want %d", v, err, latest)
	}
}
