// Package sqlite implements store.Store on an embedded SQLite database
// (modernc.org/sqlite, no cgo). It is Lectern's default store: one file,
// shared safely by the server and operator commands running at the same
// time (WAL mode, a busy timeout, and immediate write transactions).
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

var _ store.Store = (*Store)(nil)

//go:embed migrations/*.sql
var migrations embed.FS

// Store is a store.Store on one SQLite file. Writes go through a single
// connection; reads use a pool.
type Store struct {
	w, r *sql.DB
	// Prepared statements of the hottest reads (every authenticated
	// request looks up its key; CI clients poll jobs and updates).
	keyByHash, exportByID, updateByID, domainLive *sql.Stmt
	closeOnce                                     sync.Once
	closeErr                                      error
	// applied lists the migrations Open applied, for lectern migrate to
	// say what it did.
	applied []int
	// pokes wake the running WatchSites after a write commits.
	watchMu sync.Mutex
	pokes   map[chan struct{}]struct{}
}

// Open opens (creating if needed) the database file at path and applies any
// pending migrations. The error names the path; it is a plain error because
// a store that cannot open is an operator's problem, not a request's.
func Open(ctx context.Context, path string) (*Store, error) {
	dsn := func(extra string) string {
		q := url.Values{}
		for _, p := range []string{"busy_timeout(10000)", "journal_mode(WAL)", "foreign_keys(1)", "synchronous(NORMAL)", "secure_delete(1)"} {
			q.Add("_pragma", p)
		}
		if extra != "" {
			q.Set("_txlock", extra)
		}
		return "file:" + path + "?" + q.Encode()
	}
	w, err := sql.Open("sqlite", dsn("immediate"))
	if err != nil {
		return nil, fmt.Errorf("open sqlite %s: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	w.SetConnMaxIdleTime(0)
	r, err := sql.Open("sqlite", dsn(""))
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("open sqlite %s: %w", path, err)
	}
	r.SetMaxOpenConns(8)
	r.SetMaxIdleConns(8)
	s := &Store{w: w, r: r}
	if err := s.migrate(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("sqlite %s: %w", path, err)
	}
	for _, p := range []struct {
		stmt **sql.Stmt
		q    string
	}{
		{&s.keyByHash, `SELECT ` + keyCols + ` FROM api_keys WHERE hash = ?`},
		{&s.exportByID, `SELECT ` + exportCols + ` FROM exports WHERE id = ?`},
		{&s.updateByID, updateSelect},
		{&s.domainLive, `SELECT d.project_id, coalesce(p.live_deployment_id, '') FROM domains d JOIN projects p ON p.id = d.project_id WHERE d.domain = ?`},
	} {
		if *p.stmt, err = r.PrepareContext(ctx, p.q); err != nil {
			s.Close()
			return nil, fmt.Errorf("sqlite %s: prepare: %w", path, err)
		}
	}
	return s, nil
}

// migrate applies the embedded migrations that are not yet recorded, each
// in its own immediate transaction, so concurrent starters apply each once.
func (s *Store) migrate(ctx context.Context) error {
	if _, err := s.w.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)`); err != nil {
		return fmt.Errorf("create schema_migrations: %w", err)
	}
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	var applied int
	if err := s.w.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&applied); err != nil {
		return fmt.Errorf("read schema version: %w", err)
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
		err = s.tx(ctx, func(tx *sql.Tx) error {
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE version = ?`, v).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				return nil
			}
			if _, err := tx.ExecContext(ctx, string(body)); err != nil {
				return fmt.Errorf("apply migration %s: %w", base, err)
			}
			_, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)`, v, ts(time.Now()))
			ran = err == nil
			return err
		})
		if err != nil {
			return err
		}
		if ran {
			s.applied = append(s.applied, v)
		}
	}
	if applied < store.LatestMigration(names) {
		// A migration may drop what must not stay on disk (the clear
		// link-signing key of earlier releases): secure_delete overwrote
		// the pages, and the write-ahead log is emptied of their old
		// versions.
		s.truncateWAL(ctx)
	}
	return nil
}

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error {
	var one int
	if err := s.r.QueryRowContext(ctx, `SELECT 1`).Scan(&one); err != nil {
		return wrap(err)
	}
	return nil
}

// Close closes both connection pools; later calls return the first result.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		for _, st := range []*sql.Stmt{s.keyByHash, s.exportByID, s.updateByID, s.domainLive} {
			if st != nil {
				st.Close()
			}
		}
		s.closeErr = errors.Join(s.w.Close(), s.r.Close())
	})
	return s.closeErr
}

// tx runs fn in an immediate write transaction.
func (s *Store) tx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return wrap(err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return wrap(err)
	}
	s.poke()
	return nil
}

// wrap turns driver errors into lectern errors: a busy or locked database is
// EUNAVAILABLE (try again), anything else stays internal.
func wrap(err error) error {
	if err == nil {
		return nil
	}
	if lectern.AsError(err) != nil {
		return err
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
			return &lectern.Error{Code: lectern.EUNAVAILABLE, Message: "The database is busy; try again.", RetryAfterSeconds: 1, Err: err}
		}
	}
	return err
}

func isUnique(err error) bool {
	var se *sqlite.Error
	if errors.As(err, &se) {
		c := se.Code()
		return c == sqlite3.SQLITE_CONSTRAINT_UNIQUE || c == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
	}
	return false
}

// ts converts a time to stored microseconds.
func ts(t time.Time) int64 { return t.UTC().UnixMicro() }

// fromTS converts stored microseconds to a UTC time.
func fromTS(v int64) time.Time { return time.UnixMicro(v).UTC() }

// fromNull converts a nullable stored time.
func fromNull(v sql.NullInt64) *time.Time {
	if !v.Valid {
		return nil
	}
	t := fromTS(v.Int64)
	return &t
}

// now returns the current time at stored precision.
func now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

// checkLease verifies inside tx that lease still holds its job.
func checkLease(ctx context.Context, tx *sql.Tx, l store.Lease) error {
	var n int
	err := tx.QueryRowContext(ctx, `SELECT count(*) FROM jobs WHERE id = ? AND state = 'running' AND lease_owner = ? AND lease_token = ?`,
		l.JobID, l.Owner, l.Token).Scan(&n)
	if err != nil {
		return err
	}
	if n == 0 {
		return store.LeaseLost(l)
	}
	return nil
}

// collect reads every row of a query (rows and err as QueryContext
// returned them) with scan, and closes them.
func collect[T any](rows *sql.Rows, err error, scan func(interface{ Scan(...any) error }) (T, error)) ([]T, error) {
	if err != nil {
		return nil, wrap(err)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, wrap(err)
		}
		out = append(out, v)
	}
	return out, wrap(rows.Err())
}

// placeholders returns "?, ?, ..." for n arguments.
func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

// MigrationsApplied returns the versions of the migrations Open applied,
// in order: none when the database was up to date, or when another
// process applied them first.
func (s *Store) MigrationsApplied() []int { return slices.Clone(s.applied) }

// SchemaVersion returns the newest migration applied to the database.
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	err := s.r.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&v)
	return v, wrap(err)
}
