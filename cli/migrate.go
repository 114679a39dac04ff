package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"lectern.dev/lectern/store/postgres"
	"lectern.dev/lectern/store/sqlite"
)

// schemaVersioner is a store that reports its schema version: every store
// openStore opens is one.
type schemaVersioner interface {
	SchemaVersion(ctx context.Context) (int, error)
}

var (
	_ schemaVersioner = (*postgres.Store)(nil)
	_ schemaVersioner = (*sqlite.Store)(nil)
)

// migrateCmd applies the store's pending migrations. serve and admin do so
// too when they open the store; migrate lets an operator do it first, e.g.
// before rolling out new API and worker processes.
func migrateCmd(e *env) *cobra.Command {
	sf := &storageFlags{}
	cmd := &cobra.Command{
		Use:   "migrate",
		Short: "Apply pending database migrations and print the schema version",
		Long: `Apply the database migrations this lectern knows and the database has not
had yet, then print the schema version. It takes the same storage settings
as serve (--database-url, --data-dir). Processes starting at once are safe:
on PostgreSQL the migrations run under an advisory lock, each exactly once.`,
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
			n, err := st.(schemaVersioner).SchemaVersion(c.Context())
			if err != nil {
				return fmt.Errorf("schema version of %s: %w", sf.databaseLabel(), err)
			}
			_, err = fmt.Fprintf(e.stdout, "database %s is at schema version %d\n", sf.databaseLabel(), n)
			return err
		},
	}
	sf.register(cmd.Flags())
	return cmd
}
