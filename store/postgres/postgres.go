// Package postgres implements store.Store on PostgreSQL (pgx/v5 with a
// connection pool), for running Lectern as several processes: any number of
// API and worker processes share one database.
//
// Migrations are embedded and versioned in a schema_migrations table. Open
// applies the pending ones under a PostgreSQL advisory lock, so processes
// starting at once apply each exactly once. The job queue claims with
// FOR UPDATE SKIP LOCKED and serializes claims of one job group with a
// transaction-scoped advisory lock, so many workers in many processes never
// run two jobs of a group at once.
//
// Errors: as package store describes; in addition, a database that cannot be
// reached (refused or dropped connections, a server shutting down or
// starting, too many connections, a serialization failure or deadlock) is a
// *lectern.Error with code lectern.EUNAVAILABLE and a RetryAfterSeconds,
// which the API answers with 503 and callers may retry.
package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/url"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

var _ store.Store = (*Store)(nil)

//go:embed migrations/*.sql
var migrations embed.FS

// Store is a store.Store on a PostgreSQL database, through a pool of
// connections. Hot reads use pgx's per-connection statement cache, so they
// are prepared once per connection.
type Store struct {
	pool      *pgxpool.Pool
	closeOnce sync.Once
	// applied lists the migrations Open applied, for lectern migrate to
	// say what it did.
	applied []int
	// claims is the organizations' order the Store's claims keep
	// (claimorder.go).
	claims claimOrders
}

// Open connects to the database at dsn (a postgres:// or postgresql:// URL;
// its query may set pgx and pgxpool options such as sslmode, connect_timeout,
// pool_max_conns or search_path), checks that it answers, and applies any
// pending migrations.
//
// The error never contains the URL's password: it says what failed
// (parsing, connecting, authenticating, migrating) with the server's message.
func Open(ctx context.Context, dsn string) (*Store, error) {
	cfg, err := poolConfig(dsn)
	if err != nil {
		return nil, err
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: %s", connectMessage(err))
	}
	s := &Store{pool: pool}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: %s", connectMessage(err))
	}
	if err := s.migrate(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: %w", err)
	}
	return s, nil
}

// poolConfig parses dsn and applies Lectern's defaults where the URL sets
// none: a connect timeout of 5 s and a pool of max(8, 2×CPUs) connections.
func poolConfig(dsn string) (*pgxpool.Config, error) {
	const form = "postgres://[user[:password]@]host[:port]/database[?options]"
	u, err := url.Parse(dsn)
	if err != nil {
		// The parse error quotes the URL: say what usually causes it instead.
		return nil, errors.New("postgres: invalid URL: the database URL must be " + form +
			", with any of : / ? # @ [ ] % in the user name or password percent-encoded (/ as %2F, @ as %40)")
	}
	if u.Scheme != "postgres" && u.Scheme != "postgresql" {
		return nil, errors.New("postgres: the database URL must be " + form)
	}
	q := u.Query()
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		// The parse error quotes the URL with its password masked on a best-
		// effort basis only: give the reason without the URL.
		msg := "invalid URL"
		var pe *pgconn.ParseConfigError
		if errors.As(err, &pe) && errors.Unwrap(pe) != nil {
			msg += ": " + errors.Unwrap(pe).Error()
		}
		return nil, errors.New("postgres: " + msg)
	}
	if !q.Has("connect_timeout") {
		cfg.ConnConfig.ConnectTimeout = 5 * time.Second
	}
	if !q.Has("pool_max_conns") {
		cfg.MaxConns = int32(max(8, 2*runtime.NumCPU()))
	}
	cfg.AfterConnect = func(ctx context.Context, c *pgx.Conn) error {
		// Times come back in UTC, as every store returns them.
		c.TypeMap().RegisterType(&pgtype.Type{Name: "timestamptz", OID: pgtype.TimestamptzOID,
			Codec: &pgtype.TimestamptzCodec{ScanLocation: time.UTC}})
		return nil
	}
	return cfg, nil
}

// connectMessage describes a failure to connect without repeating the URL.
func connectMessage(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case pe.Code == "28P01" || pe.Code == "28000":
			return "authentication failed: " + pe.Message + " (SQLSTATE " + pe.Code + ")"
		case pe.Code == "3D000":
			return "no such database: " + pe.Message
		}
		return "connect: " + pe.Message + " (SQLSTATE " + pe.Code + ")"
	}
	// pgconn's ConnectError names the user, database and address, never the
	// password. It lists one line per address tried: keep one line.
	msg := strings.ReplaceAll(err.Error(), ":\n\t", ": ")
	return "connect: " + strings.ReplaceAll(msg, "\n\t", "; ")
}

// lockKey is the advisory lock that serializes migrations of one schema.
const lockKey = `hashtextextended('lectern.migrate.' || current_schema(), 0)`

// migrate applies the embedded migrations that are not yet recorded, each in
// its own transaction, while holding a session advisory lock: processes
// starting at once wait for each other and apply each migration once.
func (s *Store) migrate(ctx context.Context) error {
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("migrate: %w", wrap(err))
	}
	defer conn.Release()
	var schema *string
	if err := conn.QueryRow(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
		return fmt.Errorf("migrate: %w", wrap(err))
	}
	if schema == nil {
		return errors.New("migrate: no schema of the search_path exists")
	}
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock(`+lockKey+`)`); err != nil {
		return fmt.Errorf("migrate: lock: %w", wrap(err))
	}
	defer func() {
		if _, err := conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(`+lockKey+`)`); err != nil {
			// Closing the session releases its locks.
			conn.Conn().Close(context.WithoutCancel(ctx))
		}
	}()
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    integer PRIMARY KEY,
		applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return fmt.Errorf("migrate: create schema_migrations: %w", wrap(err))
	}
	var applied int
	if err := conn.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&applied); err != nil {
		return fmt.Errorf("migrate: read schema version: %w", wrap(err))
	}
	if err := store.CheckSchemaVersion(applied, store.LatestMigration(names)); err != nil {
		return err
	}
	for _, name := range names {
		base := strings.TrimPrefix(name, "migrations/")
		v, err := store.MigrationVersion(name)
		if err != nil {
			return err
		}
		body, err := migrations.ReadFile(name)
		if err != nil {
			return err
		}
		ran := false
		err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			var done bool
			if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM schema_migrations WHERE version = $1)`, v).Scan(&done); err != nil {
				return err
			}
			if done {
				return nil
			}
			// No arguments: the simple protocol runs every statement of the file.
			if _, err := tx.Exec(ctx, string(body)); err != nil {
				return fmt.Errorf("apply migration %s: %w", base, err)
			}
			_, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version) VALUES ($1)`, v)
			ran = err == nil
			return err
		})
		if err != nil {
			return wrap(err)
		}
		if ran {
			s.applied = append(s.applied, v)
		}
	}
	return nil
}

// MigrationsApplied returns the versions of the migrations Open applied,
// in order: none when the database was up to date, or when another
// process applied them first.
func (s *Store) MigrationsApplied() []int { return slices.Clone(s.applied) }

// SchemaVersion returns the newest migration applied to the database.
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	err := s.pool.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&v)
	return v, wrap(err)
}

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error {
	var one int
	return wrap(s.pool.QueryRow(ctx, `SELECT 1`).Scan(&one))
}

// Close closes the pool, waiting for connections in use to be returned. It
// is safe to call more than once.
func (s *Store) Close() error {
	s.closeOnce.Do(s.pool.Close)
	return nil
}

// tx runs fn in a transaction, committing when it returns nil.
func (s *Store) tx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	return wrap(pgx.BeginFunc(ctx, s.pool, fn))
}

// retryAfter is the Retry-After, in seconds, of an unavailable database.
const retryAfter = 2

// wrap turns driver errors into lectern errors: a database that cannot be
// reached or asks to retry is EUNAVAILABLE; anything else stays internal.
func wrap(err error) error {
	if err == nil || lectern.AsError(err) != nil {
		return err
	}
	if unavailable(err) {
		return &lectern.Error{Code: lectern.EUNAVAILABLE, Message: "The database is unavailable; try again shortly.",
			RetryAfterSeconds: retryAfter, Err: err}
	}
	return err
}

// unavailable reports whether err says the database is out of reach for now
// rather than that the request was wrong.
func unavailable(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		// Classes 08 (connection exception) and 53 (insufficient resources:
		// too many connections, disk full); then shutting down or starting
		// up, serialization failure, deadlock, lock not available, and a
		// read-only transaction (a failover in progress).
		if strings.HasPrefix(pe.Code, "08") || strings.HasPrefix(pe.Code, "53") {
			return true
		}
		switch pe.Code {
		case "57P01", "57P02", "57P03", "40001", "40P01", "55P03", "25006":
			return true
		}
		return false
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	return errors.As(err, &ce) || errors.As(err, &ne) || pgconn.Timeout(err) || pgconn.SafeToRetry(err) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// isCode reports whether err is a server error with the SQLSTATE code.
func isCode(err error, code string) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == code
}

// Constraint violations.
const (
	uniqueViolation     = "23505"
	foreignKeyViolation = "23503"
)

// now returns the current time at stored precision.
func now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

// utc converts a time to UTC at stored precision.
func utc(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

// utcPtr converts a nullable time.
func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := utc(*t)
	return &u
}

// text makes free text (commit messages, summaries, job errors) storable in
// a text column: PostgreSQL refuses NUL characters and invalid UTF-8.
func text(s string) string {
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
}

// collect scans every row of a query's rows with scan; err is the
// query's, returned (wrapped) as is.
func collect[T any](rows pgx.Rows, err error, scan func(pgx.Row) (T, error)) ([]T, error) {
	if err != nil {
		return nil, wrap(err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (T, error) { return scan(r) })
	return out, wrap(err)
}

// lockRow runs query, a SELECT 1 of one row with its lock (FOR UPDATE,
// FOR KEY SHARE...), in tx: notFound when no row matches.
func lockRow(ctx context.Context, tx pgx.Tx, query string, notFound error, args ...any) error {
	var one int
	err := tx.QueryRow(ctx, query, args...).Scan(&one)
	if errors.Is(err, pgx.ErrNoRows) {
		return notFound
	}
	return err
}

// checkLease verifies inside tx that lease still holds its job, and locks
// the job's row until the transaction ends so no claim can take it meanwhile.
func checkLease(ctx context.Context, tx pgx.Tx, l store.Lease) error {
	var one int
	err := tx.QueryRow(ctx, `SELECT 1 FROM jobs WHERE id = $1 AND state = 'running' AND lease_owner = $2 AND lease_token = $3 FOR UPDATE`,
		l.JobID, l.Owner, l.Token).Scan(&one)
	if errors.Is(err, pgx.ErrNoRows) {
		return store.LeaseLost(l)
	}
	return err
}
