package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store/sqlite"
)

// A database migrated by a newer release is refused at Open, saying so,
// rather than used with tables this binary does not understand.
func TestOpenRefusesNewerSchema(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "lectern.db")
	s, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO schema_migrations (version, applied_at) VALUES (99999, 0)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = sqlite.Open(ctx, path)
	if err == nil || lectern.ErrorCode(err) != lectern.EINVALID || !strings.Contains(err.Error(), "schema version 99999, newer than this lectern") {
		t.Fatalf("Open of a newer schema: %v", err)
	}
	// Reopening with what it knows still works for the current version.
	if _, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "fresh.db")); err != nil {
		t.Fatalf("fresh database: %v", err)
	}
}
