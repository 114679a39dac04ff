package postgres_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store/postgres"
	"lectern.dev/lectern/store/postgres/pgtest"
)

// A database migrated by a newer release is refused at Open, saying so,
// rather than used with tables this binary does not understand.
func TestOpenRefusesNewerSchema(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := pgtest.URL(t)
	s, err := postgres.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if _, err := pool.Exec(ctx, `INSERT INTO schema_migrations (version) VALUES (99999)`); err != nil {
		t.Fatal(err)
	}
	_, err = postgres.Open(ctx, dsn)
	if err == nil || lectern.ErrorCode(err) != lectern.EINVALID || !strings.Contains(err.Error(), "schema version 99999, newer than this lectern") {
		t.Fatalf("Open of a newer schema: %v", err)
	}
}
