package cli

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"lectern.dev/lectern"
	"lectern.dev/lectern/httpapi"
	"lectern.dev/lectern/store"
	"lectern.dev/lectern/store/postgres"
	"lectern.dev/lectern/store/sqlite"
)

// storageFlags are the settings that locate Lectern's data; serve and
// admin share them.
type storageFlags struct {
	dataDir       string
	databaseURL   string
	blobURL       string
	secretKeyFile string
	config        string
}

func (s *storageFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&s.dataDir, "data-dir", "./lectern-data", "folder for the embedded database and blob store (env LECTERN_DATA_DIR)")
	fs.StringVar(&s.databaseURL, "database-url", "", "database URL: postgres://USER:PASSWORD@HOST:PORT/DATABASE?sslmode=... for several processes, or sqlite://PATH (default: sqlite in --data-dir) (env LECTERN_DATABASE_URL)")
	fs.StringVar(&s.blobURL, "blob-url", "", "blob store URL: file:///PATH, or s3://BUCKET?region=R[&endpoint=URL&use_path_style=true] with credentials from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (default: blobs in --data-dir) (env LECTERN_BLOB_URL)")
	fs.StringVar(&s.secretKeyFile, "secret-key-file", "", "file holding the secret key that encrypts repository credentials (base64 of 32 bytes; or the key itself in env LECTERN_SECRET_KEY); required with PostgreSQL or S3, generated in --data-dir otherwise (env LECTERN_SECRET_KEY_FILE)")
	fs.StringVar(&s.config, "config", "", "YAML config file whose keys are flag names (env LECTERN_CONFIG)")
}

// databaseLabel describes the database for logs, without credentials.
func (s *storageFlags) databaseLabel() string {
	if s.databaseURL == "" {
		return "sqlite://" + filepath.Join(s.dataDir, "lectern.db")
	}
	return lectern.RedactURL(s.databaseURL)
}

// isPostgres reports whether the database is PostgreSQL, shared by several
// processes.
func (s *storageFlags) isPostgres() bool {
	return strings.HasPrefix(s.databaseURL, "postgres://") || strings.HasPrefix(s.databaseURL, "postgresql://")
}

// openStore opens the configured database, creating the data folder for
// the embedded default, and applies pending migrations. Local data is
// made private first (see secureData). Errors name the setting and never
// show the URL's password.
func (s *storageFlags) openStore(ctx context.Context, log *slog.Logger) (store.Store, error) {
	if err := s.secureData(log); err != nil {
		return nil, fmt.Errorf("data folder: %w", err)
	}
	u := s.databaseURL
	switch {
	case s.isPostgres():
		st, err := postgres.Open(ctx, u)
		if err != nil {
			return nil, fmt.Errorf("--database-url (LECTERN_DATABASE_URL) %s: %w", s.databaseLabel(), err)
		}
		return st, nil
	case u == "":
		return sqlite.Open(ctx, filepath.Join(s.dataDir, "lectern.db"))
	case strings.HasPrefix(u, "sqlite://"):
		path := strings.TrimPrefix(u, "sqlite://")
		if path == "" {
			return nil, fmt.Errorf("--database-url %q has no path", u)
		}
		return sqlite.Open(ctx, path)
	}
	return nil, fmt.Errorf("--database-url (LECTERN_DATABASE_URL): unsupported scheme in %s (use postgres://, postgresql:// or sqlite://PATH)", s.databaseLabel())
}

// rateLimiter returns an API rate limiter whose budgets, named within
// scope ("api-key" per key, "org" per organization), are shared through
// the database, so that they hold across every API process on it
// (several may share PostgreSQL, or one SQLite file); nil when the limit
// is off.
func (s *storageFlags) rateLimiter(st store.Store, scope string, cfg httpapi.RateLimit, log *slog.Logger) httpapi.Limiter {
	if cfg.Rate <= 0 {
		return nil
	}
	return httpapi.NewSharedLimiterIn(st, scope, cfg, log)
}

// blobURLOrDefault returns the blob store URL.
func (s *storageFlags) blobURLOrDefault() (string, error) {
	if s.blobURL != "" {
		return s.blobURL, nil
	}
	abs, err := filepath.Abs(filepath.Join(s.dataDir, "blobs"))
	if err != nil {
		return "", err
	}
	return "file://" + filepath.ToSlash(abs), nil
}
