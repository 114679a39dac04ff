// Package pgtest gives tests a PostgreSQL database of their own: a fresh
// schema in the database named by TEST_DATABASE_URL, dropped when the test
// ends, so tests run in parallel without seeing each other's rows.
//
// Without TEST_DATABASE_URL the tests use the local server's "test"
// database (LocalURL) when it answers at once, so that a plain
// `go test ./...` runs them on a machine with PostgreSQL: `go test` shows
// nothing of a passing package, so a skip would go unnoticed. When no such
// server answers, a test that asks for PostgreSQL is skipped, saying why,
// except in CI (CI=true), where an unset TEST_DATABASE_URL fails it: CI must
// run every store, on the database it names.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"lectern.dev/lectern"
)

// EnvURL is the environment variable naming the test database.
const EnvURL = "TEST_DATABASE_URL"

// LocalURL is the database the tests use when TEST_DATABASE_URL is unset
// and it answers: the local server's "test" database, as .ci/run sets it up.
const LocalURL = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

// probeTimeout bounds how long looking for the local server may take when
// something listens but does not answer; a closed port fails at once.
const probeTimeout = 2 * time.Second

// local is the outcome of looking for the local server, once per test
// binary: every test of a package would find the same.
var local struct {
	once sync.Once
	err  error
}

// BaseURL returns TEST_DATABASE_URL, or LocalURL when that is unset and the
// local server answers. Otherwise it skips the test, saying how to run it;
// in CI an unset TEST_DATABASE_URL fails the test instead.
func BaseURL(t testing.TB) string {
	t.Helper()
	u, err := resolve(os.Getenv, func() error {
		local.once.Do(func() { local.err = probe(context.Background(), LocalURL) })
		return local.err
	})
	switch {
	case errors.Is(err, errCI):
		t.Fatal(err)
	case err != nil:
		t.Skip(err)
	}
	return u
}

// errCI is the error of an unset TEST_DATABASE_URL in CI.
var errCI = fmt.Errorf("%s is not set: CI runs the PostgreSQL tests (e.g. %s=%s)", EnvURL, EnvURL, LocalURL)

// resolve returns the database of the tests: TEST_DATABASE_URL; or, outside
// CI, LocalURL when probeLocal finds it answering. Its error says why there
// is none (errCI in CI) and how to name one.
func resolve(getenv func(string) string, probeLocal func() error) (string, error) {
	if u := getenv(EnvURL); u != "" {
		return u, nil
	}
	if getenv("CI") == "true" {
		return "", errCI
	}
	if err := probeLocal(); err != nil {
		return "", fmt.Errorf("skipping the PostgreSQL tests: %s is not set and the local PostgreSQL (%s) is not usable: %v; "+
			"set %s=postgres://USER:PASSWORD@HOST:5432/DB?sslmode=disable to run them", EnvURL, LocalURL, err, EnvURL)
	}
	return LocalURL, nil
}

// probe connects to dsn and runs a query, giving up after probeTimeout. Its
// error says what to do when the server answers but refuses: a missing
// database, or a login it does not accept.
func probe(ctx context.Context, dsn string) error {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return err
	}
	cfg.ConnectTimeout = probeTimeout
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err == nil {
		defer conn.Close(context.Background())
		_, err = conn.Exec(ctx, "SELECT 1")
	}
	var pgErr *pgconn.PgError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &pgErr) && pgErr.Code == "3D000": // invalid_catalog_name
		return fmt.Errorf("database %q does not exist (create it: createdb -h %s -p %d -U %s %s)",
			cfg.Database, cfg.Host, cfg.Port, cfg.User, cfg.Database)
	case errors.As(err, &pgErr) && (pgErr.Code == "28000" || pgErr.Code == "28P01"): // invalid_authorization_specification, invalid_password
		return fmt.Errorf("the server refused user %q: %s", cfg.User, pgErr.Message)
	}
	return err
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
