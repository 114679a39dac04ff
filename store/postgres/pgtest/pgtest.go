// Package pgtest gives tests a PostgreSQL database of their own: a fresh
// schema in the database named by TEST_DATABASE_URL, dropped when the test
// ends, so tests run in parallel without seeing each other's rows.
//
// Without TEST_DATABASE_URL a test that asks for PostgreSQL is skipped,
// except in CI (CI=true), where it fails: CI must run every store.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"lectern.dev/lectern"
)

// EnvURL is the environment variable naming the test database.
const EnvURL = "TEST_DATABASE_URL"

// BaseURL returns TEST_DATABASE_URL, skipping the test when it is unset
// outside CI and failing it in CI.
func BaseURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv(EnvURL)
	if u == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set: CI runs the PostgreSQL tests (e.g. %s=postgres://postgres@127.0.0.1:5432/test?sslmode=disable)", EnvURL, EnvURL)
		}
		t.Skipf("%s is not set: skipping the PostgreSQL tests", EnvURL)
	}
	return u
}

// URL creates a fresh, empty schema and returns TEST_DATABASE_URL with its
// search_path set to it (and a small pool, as many tests run at once). The
// schema is dropped when the test ends.
func URL(t testing.TB) string {
	t.Helper()
	base := BaseURL(t)
	var b [6]byte
	rand.Read(b[:])
	schema := "lectern_test_" + hex.EncodeToString(b[:])
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("connect to %s: %v", lectern.RedactURL(base), err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `CREATE SCHEMA `+schema); err != nil {
		t.Fatalf("create schema %s: %v", schema, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Errorf("drop schema %s: connect: %v", schema, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, `DROP SCHEMA `+schema+` CASCADE`); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	return WithParams(t, base, map[string]string{"search_path": schema, "pool_max_conns": "4"})
}

// WithParams returns dsn with the query parameters set.
func WithParams(t testing.TB, dsn string, params map[string]string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatalf("%s is not a URL", EnvURL)
	}
	q := u.Query()
	for k, v := range params {
		q.Set(k, v)
	}
	u.RawQuery = q.Encode()
	return u.String()
}
