package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// runArgs runs the lectern command in-process with no environment.
func runArgs(args ...string) (stdout, stderr string, err error) {
	var out, errb bytes.Buffer
	err = Run(context.Background(), args, func(string) string { return "" }, strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), err
}

// TestUnknownCommandsAndFlags: a command or flag that does not exist ends
// the command with a non-zero exit (a script must not think it worked),
// says which command it was given to, suggests the nearest commands or
// flags, and changes nothing; a command group run bare prints its help.
func TestUnknownCommandsAndFlags(t *testing.T) {
	t.Parallel()
	data := filepath.Join(t.TempDir(), "data")
	for _, c := range []struct {
		args []string
		want []string // in the error
		not  []string // not in the error
	}{
		{[]string{"admin", "project", "delet", "prj_x"},
			[]string{`unknown command "delet" for "lectern admin project"`, "Did you mean this?\n\tdelete\n", "Run 'lectern admin project --help'"}, nil},
		{[]string{"admin", "project", "frobnicate", "prj_x"},
			[]string{`unknown command "frobnicate" for "lectern admin project"; its commands are create, delete, deploy-key, list, update`}, []string{"Did you mean"}},
		{[]string{"admin", "org", "set-plna", "org_x"}, []string{`unknown command "set-plna" for "lectern admin org"`, "\tset-plan\n"}, nil},
		{[]string{"admin", "projct"}, []string{`unknown command "projct" for "lectern admin"`, "\tproject\n"}, nil},
		{[]string{"admin", "--data-dir", data, "projct", "list"}, []string{`unknown command "projct" for "lectern admin"`}, nil},
		{[]string{"serv"}, []string{`unknown command "serv" for "lectern"`, "\tserve\n"}, nil},
		{[]string{"help", "admin", "projct"}, []string{`unknown command "projct" for "lectern admin"`}, nil},
		{[]string{"export", "bundel", "exp_x"}, []string{`unknown command "bundel" for "lectern export"`, "\tbundle\n"}, nil},
		{[]string{"update", "cancle", "upd_x"}, []string{`unknown command "cancle" for "lectern update"`, "\tcancel\n"}, nil},
		{[]string{"selfhost", "keygn"}, []string{`unknown command "keygn" for "lectern selfhost"`, "\tkeygen\n"}, nil},
		{[]string{"admin", "project", "update", "prj_x", "--rep", "y", "--data-dir", data},
			[]string{`unknown flag: --rep for "lectern admin project update"`, "\t--repo\n", "\t--repo-token-file\n", "Run 'lectern admin project update --help' for its flags."},
			[]string{"--docs-root"}},
		{[]string{"admin", "project", "update", "prj_x", "--repository", "y"}, []string{"unknown flag: --repository", "\t--repo\n"}, []string{"--repo-token-file"}},
		{[]string{"admin", "project", "update", "prj_x", "--repo_token_file", "f"}, []string{"\t--repo-token-file\n"}, nil},
		{[]string{"admin", "project", "update", "prj_x", "-repo", "y"}, []string{`unknown flag -repo for "lectern admin project update" (a long flag takes two dashes)`, "\t--repo\n"}, nil},
		{[]string{"admin", "--databse-url", "x", "org", "list"}, []string{"unknown flag: --databse-url", "\t--database-url\n"}, nil},
		{[]string{"admin", "project", "update", "prj_x", "--zzz", "y"}, []string{"unknown flag: --zzz"}, []string{"Did you mean"}},
		{[]string{"update", "prj_x", "--wiat"}, []string{`unknown flag: --wiat for "lectern update"`, "\t--wait\n"}, nil},
		// The client commands' own refusal of a key on the command line stays.
		{[]string{"update", "prj_x", "--api-key", "k"}, []string{"there is no --api-key flag"}, nil},
	} {
		stdout, _, err := runArgs(c.args...)
		name := strings.Join(c.args, " ")
		if err == nil || ExitCode(err) == 0 {
			t.Errorf("lectern %s: exit %d, %v; want an error", name, ExitCode(err), err)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("lectern %s: error %q lacks %q", name, err, w)
			}
		}
		for _, w := range c.not {
			if strings.Contains(err.Error(), w) {
				t.Errorf("lectern %s: error %q has %q", name, err, w)
			}
		}
		if stdout != "" {
			t.Errorf("lectern %s printed %q on stdout", name, stdout)
		}
	}
	if _, err := os.Stat(data); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused command made its data folder: %v", err)
	}

	// A group run bare, or with "help", prints its help and exits 0.
	for _, c := range []struct {
		args []string
		path string
	}{
		{nil, "lectern"}, {[]string{"admin"}, "lectern admin"}, {[]string{"admin", "project"}, "lectern admin project"},
		{[]string{"admin", "project", "help"}, "lectern admin project"}, {[]string{"help", "admin", "project"}, "lectern admin project"},
		{[]string{"admin", "org"}, "lectern admin org"}, {[]string{"admin", "key"}, "lectern admin key"},
		{[]string{"admin", "user"}, "lectern admin user"}, {[]string{"project"}, "lectern project"}, {[]string{"webhook"}, "lectern webhook"},
	} {
		stdout, _, err := runArgs(c.args...)
		if err != nil || !strings.Contains(stdout, "Available Commands:") || !strings.Contains(stdout, "\n  "+c.path+" [command]\n") {
			t.Errorf("lectern %s: %v, printed %q; want the help of %q", strings.Join(c.args, " "), err, stdout, c.path)
		}
	}
}

// TestEveryCommandRefusesUnknowns walks the whole command tree: at any
// depth, an unknown subcommand and an unknown flag are errors naming the
// command, never its help with exit 0.
func TestEveryCommandRefusesUnknowns(t *testing.T) {
	t.Parallel()
	var paths [][]string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		paths = append(paths, path)
		for _, sub := range c.Commands() {
			walk(sub, append(append([]string(nil), path...), sub.Name()))
		}
	}
	root := newRoot(&env{getenv: func(string) string { return "" }, stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}})
	walk(root, nil)
	groups := 0
	for _, path := range paths {
		c, _, err := root.Find(path)
		if err != nil {
			t.Fatal(err)
		}
		cmdPath := c.CommandPath()
		if c.Name() == "help" {
			continue // added at run time
		}
		stdout, _, err := runArgs(append(path, "--zz-no-such-flag")...)
		if err == nil || !strings.Contains(err.Error(), `unknown flag: --zz-no-such-flag for "`+cmdPath+`"`) || stdout != "" {
			t.Errorf("%s --zz-no-such-flag: %v (stdout %q)", cmdPath, err, stdout)
		}
		// A command whose positional argument could be anything (update
		// PROJECT_ID) cannot tell a mistyped subcommand from an id.
		if !c.HasSubCommands() || c.Runnable() && c.ValidateArgs([]string{"zz-no-such"}) == nil {
			continue
		}
		groups++
		stdout, _, err = runArgs(append(path, "zz-no-such")...)
		if err == nil || ExitCode(err) == 0 || !strings.Contains(err.Error(), `unknown command "zz-no-such" for "`+cmdPath+`"`) || stdout != "" {
			t.Errorf("%s zz-no-such: %v (stdout %q)", cmdPath, err, stdout)
		}
	}
	if groups < 8 {
		t.Errorf("checked %d commands with subcommands; the walk missed some", groups)
	}
}

func TestFlagIsClose(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		typed, name string
		want        bool
	}{
		{"repo", "repo", true},
		{"rep", "repo-token-file", true},       // a prefix
		{"repository", "repo", true},           // longer than the flag
		{"token", "repo-token-file", true},     // one of its words
		{"wiat", "wait", true},                 // a typo
		{"database_url", "database-url", true}, // underscores
		{"Domain", "domain", true},
		{"zzz", "wait", false},
		{"r", "repo", false}, // too short to say
		{"json", "name", false},
		{"repo", "org", false},
	} {
		if got := flagIsClose(c.typed, c.name); got != c.want {
			t.Errorf("flagIsClose(%q, %q) = %v, want %v", c.typed, c.name, got, c.want)
		}
	}
}
