package cli

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"lectern.dev/lectern/store/postgres"
	"lectern.dev/lectern/store/sqlite"
)

// migrator is a store that reports its schema version and the migrations
// its Open applied: every store openStore opens is one.
type migrator interface {
	SchemaVersion(ctx context.Context) (int, error)
	MigrationsApplied() []int
}

var (
	_ migrator = (*postgres.Store)(nil)
	_ migrator = (*sqlite.Store)(nil)
)

// migrateCmd applies the store's pending migrations. serve and admin do so
// too when they open the store; migrate lets an operator do it first, e.g.
// before rolling out new API and worker processes.
func migrateCmd(e *env) *cobra.Command {
	sf := &storageFlags{}
	cmd := &cobra.Command{
		Use:   "migrate",
		Short: "Apply pending database migrations and say which, and the schema version",
		Long: `Apply the database migrations this lectern knows and the database has not
had yet, then say which it applied (or that there was nothing to apply) and
the schema version. It takes the same storage settings as serve
(--database-url, --data-dir). Processes starting at once are safe: on
PostgreSQL the migrations run under an advisory lock, each exactly once.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := resolveFlags(c.Flags(), e.getenv); err != nil {
				return err
			}
			st, err := sf.openStore(c.Context(), stderrLogger(e))
			if err != nil {
				return err
			}
			defer st.Close()
			m := st.(migrator)
			n, err := m.SchemaVersion(c.Context())
			if err != nil {
				return fmt.Errorf("schema version of %s: %w", sf.databaseLabel(), err)
			}
			_, err = fmt.Fprintf(e.stdout, "database %s: %s\n", sf.databaseLabel(), migrateSummary(m.MigrationsApplied(), n))
			return err
		},
	}
	sf.register(cmd.Flags())
	return cmd
}

// migrateSummary says what migrate did: which migrations it applied, and
// the schema version the database is at now.
func migrateSummary(applied []int, version int) string {
	if len(applied) == 0 {
		return fmt.Sprintf("nothing to apply: already at schema version %d", version)
	}
	return fmt.Sprintf("applied %s; the database is now at schema version %d", versionList(applied), version)
}

// versionList names migrations: "migration 12", "migrations 11 to 12", or,
// when another process applied some of the range at the same time,
// "migrations 10, 12".
func versionList(v []int) string {
	if len(v) == 1 {
		return fmt.Sprintf("migration %d", v[0])
	}
	if v[len(v)-1]-v[0] == len(v)-1 {
		return fmt.Sprintf("migrations %d to %d", v[0], v[len(v)-1])
	}
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return "migrations " + strings.Join(s, ", ")
}
