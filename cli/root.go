// Package cli holds the lectern command's subcommands. Run is the whole
// program: it takes its arguments, environment and standard streams as
// parameters, so tests run it in-process exactly as a user would.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"lectern.dev/lectern/internal/editdist"
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
	root := newRoot(e)
	root.SetArgs(args)
	return root.ExecuteContext(ctx)
}

// newRoot builds the whole command tree.
func newRoot(e *env) *cobra.Command {
	root := &cobra.Command{
		Use:           "lectern",
		Short:         "Lectern: documentation sites from git, served live and exported as static bundles",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       Version + " (commit " + Commit + ", built " + Date + ")",
	}
	root.SetIn(e.stdin)
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	root.AddCommand(serveCmd(e), adminCmd(e), migrateCmd(e), buildCmd(e), selfhostCmd(e), versionCmd(e),
		updateCmd(e), exportCmd(e), projectsCmd(e), webhooksCmd(e), analyticsCmd(e), internalBuildCmd(e))
	root.SetHelpCommand(helpCmd(root))
	// Cobra adds its completion command when it runs: added now, it is
	// made strict too.
	root.InitDefaultCompletionCmd()
	strictTree(root)
	return root
}

// helpCmd is "lectern help [COMMAND...]". Cobra's own shows the root's
// help, and exits 0, for a command that does not exist.
func helpCmd(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		RunE: func(_ *cobra.Command, args []string) error {
			c, rest, err := root.Find(args)
			if err != nil {
				return err
			}
			if len(rest) > 0 {
				return unknownCommand(c, rest[0])
			}
			return c.Help()
		},
	}
}

// strictTree makes every command of the tree refuse what it does not know,
// with an error (a non-zero exit) that suggests what was meant:
//
//   - a command group (lectern admin project) prints its help only when
//     run with no argument (or "help"); cobra's default prints the help and
//     exits 0 for any argument, so a script's "lectern admin project
//     delet prj_x" would seem to have worked;
//   - a command with both arguments and subcommands (lectern export)
//     names its subcommands when an argument it refuses is close to one;
//   - an unknown flag names the command's flags that are close to it.
func strictTree(root *cobra.Command) {
	var cmds []*cobra.Command
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		cmds = append(cmds, c)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	// Each command's flag error handler, found before any is replaced: a
	// command without its own inherits its parent's, which must not be
	// wrapped twice.
	prev := make([]func(*cobra.Command, error) error, len(cmds))
	for i, c := range cmds {
		prev[i] = c.FlagErrorFunc()
	}
	for i, c := range cmds {
		onFlagError := prev[i]
		c.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
			return unknownFlag(c, onFlagError(c, err))
		})
		if !c.HasSubCommands() {
			continue
		}
		c.SuggestionsMinimumDistance = 2
		if !c.Runnable() {
			// Runnable now only to refuse arguments: its usage line is
			// "lectern admin project", which prints this help.
			c.DisableFlagsInUseLine = true
			c.Args = func(c *cobra.Command, args []string) error {
				if len(args) == 0 || len(args) == 1 && args[0] == "help" {
					return nil
				}
				return unknownCommand(c, args[0])
			}
			c.RunE = func(c *cobra.Command, _ []string) error { return c.Help() }
			continue
		}
		check := c.Args
		if check == nil {
			check = cobra.ArbitraryArgs
		}
		c.Args = func(c *cobra.Command, args []string) error {
			err := check(c, args)
			if err != nil && len(args) > 0 && (len(c.SuggestionsFor(args[0])) > 0 || strings.HasPrefix(err.Error(), "unknown command")) {
				return unknownCommand(c, args[0])
			}
			return err
		}
	}
}

// unknownCommand is the error for a subcommand c does not have: the
// closest ones, or else all of them, and where they are described.
func unknownCommand(c *cobra.Command, name string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "unknown command %q for %q", name, c.CommandPath())
	if s := c.SuggestionsFor(name); len(s) > 0 {
		b.WriteString("\n\nDid you mean this?\n")
		for _, n := range s {
			fmt.Fprintf(&b, "\t%s\n", n)
		}
	} else {
		var names []string
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() {
				names = append(names, sub.Name())
			}
		}
		fmt.Fprintf(&b, "; its commands are %s", strings.Join(names, ", "))
	}
	fmt.Fprintf(&b, "\nRun '%s --help' for usage.", c.CommandPath())
	return errors.New(b.String())
}

// unknownFlag adds to pflag's "unknown flag: --repo" the flags of c that
// are close to it (a typo, a prefix, one word of several, a long flag
// written with one dash), and where the flags are described. Other
// errors are returned as they are.
func unknownFlag(c *cobra.Command, err error) error {
	var ne *pflag.NotExistError
	if !errors.As(err, &ne) {
		return err
	}
	name := ne.GetSpecifiedName()
	if group := ne.GetSpecifiedShortnames(); len(group) > 1 {
		// -repo is read as the shorthands -r -e -p -o: the long flag
		// --repo was probably meant.
		name = group
	}
	var near []string
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden && flagIsClose(name, f.Name) {
			near = append(near, "--"+f.Name)
		}
	})
	var b strings.Builder
	if name != ne.GetSpecifiedName() {
		fmt.Fprintf(&b, "unknown flag -%s for %q (a long flag takes two dashes)", name, c.CommandPath())
	} else {
		fmt.Fprintf(&b, "%s for %q", err, c.CommandPath())
	}
	if len(near) > 0 {
		b.WriteString("\n\nDid you mean this?\n")
		for _, n := range near {
			fmt.Fprintf(&b, "\t%s\n", n)
		}
	}
	fmt.Fprintf(&b, "\nRun '%s --help' for its flags.", c.CommandPath())
	return &usageHint{msg: b.String(), err: err}
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

// usageHint is an error with what to do about it; errors.As still finds
// the error underneath.
type usageHint struct {
	msg string
	err error
}

func (e *usageHint) Error() string { return e.msg }
func (e *usageHint) Unwrap() error { return e.err }

// flagIsClose reports whether the flag name was probably meant by typed:
// a typo (at most two edits, on names long enough for that to say
// something), a prefix of it (--repo for --repo-url), it a prefix of
// typed (--repository for --repo), or typed one of its words
// (--token for --repo-token-file).
func flagIsClose(typed, name string) bool {
	t, n := strings.ToLower(strings.ReplaceAll(typed, "_", "-")), strings.ToLower(name)
	if t == n {
		return true
	}
	if len(t) >= 2 && strings.HasPrefix(n, t) || len(n) >= 3 && strings.HasPrefix(t, n) {
		return true
	}
	if len(t) >= 3 && slices.Contains(strings.Split(n, "-"), t) {
		return true
	}
	return len(t) >= 4 && editdist.Levenshtein(t, n) <= 2
}
