package sqlite

import (
	"context"
	"database/sql"
	"io/fs"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"lectern.dev/lectern/store"
)

// TestMigrationsApplied: Open reports the migrations it applied (all on a
// new database, only the newest on a database of the previous release,
// none on an up-to-date one), so that lectern migrate says what it did.
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

	fresh := filepath.Join(t.TempDir(), "fresh.db")
	s, err := Open(ctx, fresh)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.MigrationsApplied(); !slices.Equal(got, all) {
		t.Errorf("new database: applied %v, want %v", got, all)
	}
	s.Close()
	s, err = Open(ctx, fresh)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.MigrationsApplied(); len(got) != 0 {
		t.Errorf("up-to-date database: applied %v, want none", got)
	}
	s.Close()

	// A database of the previous release: every migration but the newest,
	// applied as that release did.
	older := filepath.Join(t.TempDir(), "older.db")
	db, err := sql.Open("sqlite", "file:"+older+"?_pragma=foreign_keys(1)")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	for i, n := range names[:len(names)-1] {
		body, err := migrations.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(string(body)); err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		if _, err := db.Exec(`INSERT INTO schema_migrations (version, applied_at) VALUES (?, 0)`, all[i]); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
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
