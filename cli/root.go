// Package cli holds the lectern command's subcommands. Run is the whole
// program: it takes its arguments, environment and standard streams as
// parameters, so tests run it in-process exactly as a user would.
package cli

import (
	"context"
	"errors"
	"io"

	"github.com/spf13/cobra"
)

// Version information, set at build time with -ldflags.
var (
	Version = "dev"
	Commit  = "unknown"
	Date    = "unknown"
)

// OwnProcess is set by the lectern binary (cmd/lectern): Run owns the
// process, so serve, admin and migrate set its file creation mask to 077,
// and every file they create (the database, its -wal and -shm files,
// blobs, temporary files) is the owner's alone. Tests that run commands
// in-process leave it unset: the mask would apply to the whole test.
var OwnProcess bool

// env is the injected environment.
type env struct {
	getenv func(string) string
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}

// exitError carries a specific exit code.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// ExitCode returns the process exit code for an error returned by Run.
func ExitCode(err error) int {
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	if err != nil {
		return 1
	}
	return 0
}

// Run runs the lectern command with args (without the program name). It
// returns when the command is done or, for serve, when ctx ends and the
// server has shut down gracefully.
func Run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	e := &env{getenv: getenv, stdin: stdin, stdout: stdout, stderr: stderr}
	root := &cobra.Command{
		Use:           "lectern",
		Short:         "Lectern: documentation sites from git, served live and exported as static bundles",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       Version + " (commit " + Commit + ", built " + Date + ")",
	}
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.AddCommand(serveCmd(e), adminCmd(e), migrateCmd(e), buildCmd(e), selfhostCmd(e), versionCmd(e),
		updateCmd(e), exportCmd(e), projectsCmd(e), webhooksCmd(e), analyticsCmd(e), internalBuildCmd(e))
	return root.ExecuteContext(ctx)
}

func versionCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit and build date",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := io.WriteString(e.stdout, "lectern "+Version+"\ncommit "+Commit+"\nbuilt "+Date+"\n")
			return err
		},
	}
}
