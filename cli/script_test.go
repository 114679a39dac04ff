package cli_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	lecternpkg "lectern.dev/lectern"
	"lectern.dev/lectern/cli"
)

// TestMain makes this test binary the lectern command of the scripts in
// testdata/script: run as "lectern", it does what cmd/lectern's main does.
//
// Run with the arguments "internal-build", it is the child process in
// which the servers that the tests start in-process render (os.Executable
// is this binary).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "internal-build" {
		os.Exit(cli.Report(os.Stderr, cli.Run(context.Background(), os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr)))
	}
	testscript.Main(m, map[string]func(){
		"lectern": func() {
			cli.OwnProcess = true
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			err := cli.Run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr)
			stop()
			os.Exit(cli.Report(os.Stderr, err))
		},
	})
}

// TestScripts runs the client commands (update, export) as a user does,
// against one real lectern serve shared by the scripts. Each script uses
// projects and domains of its own, so they run in parallel.
func TestScripts(t *testing.T) {
	t.Parallel()
	vars := scriptFixture(t)
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			for k, v := range vars {
				env.Setenv(k, v)
			}
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exitcode": cmdExitCode,
			"json":     cmdJSON,
			"capture":  cmdCapture,
			"checksum": cmdChecksum,
			"sleep":    cmdSleep,
		},
	})
}

// scriptFixture starts lectern serve with two organizations (enterprise
// and pro), their projects, keys and key files, and returns the variables
// the scripts see.
func scriptFixture(t *testing.T) map[string]string {
	data := t.TempDir()
	srv := startServe(t, data, "--exports-per-hour", "0")
	admin := func(args ...string) string {
		return lastLine(lectern(t, append([]string{"admin", "--data-dir", data}, args...)...))
	}
	ent := admin("org", "create", "--name", "Acme", "--plan", "enterprise")
	pro := admin("org", "create", "--name", "Smallco", "--plan", "pro")
	good, _ := newRepo(t, smallSite("Install the **acme** CLI."))
	broken, _ := newRepo(t, map[string]string{"docs.json": `{"name": "Acme", "navigation": [`, "index.mdx": "# Broken\n"})
	big, _ := newRepo(t, bigSite(1500)) // an update that takes seconds
	project := func(org, name, repo string, domains ...string) string {
		args := []string{"project", "create", "--org", org, "--name", name, "--repo", repo}
		for _, d := range domains {
			args = append(args, "--domain", d)
		}
		return admin(args...)
	}
	vars := map[string]string{
		"LECTERN_API_URL": srv.url,
		"API_URL":         srv.url,
		"PRJ_OK":          project(ent, "Docs", good, "update-ok.acme.test"),
		"PRJ_BROKEN":      project(ent, "Broken", broken, "broken.acme.test"),
		"PRJ_SLOW":        project(ent, "Slow", good, "slow.acme.test"),
		"PRJ_PRO":         project(pro, "Pro docs", good, "pro.acme.test"),
		"PRJ_NEW":         project(ent, "Never deployed", good, "new.acme.test"),
		"PRJ_LIFE":        project(ent, "Lifecycle", good, "life.acme.test"),
		"PRJ_BIG":         project(ent, "Big", big, "big.acme.test"),
		"PRJ_ADMIN":       project(pro, "Operated", good, "admin.acme.test"),
		"DATA_DIR":        data,
		"PRO_ORG":         pro,
	}
	site := project(ent, "Site", good, "export-wait.acme.test", "export-json.acme.test", "export-bundle.acme.test", "export-timeout.acme.test", "export-list.acme.test")
	entKey := admin("key", "create", "--org", ent, "--name", "ci")
	proKey := admin("key", "create", "--org", pro, "--name", "ci")
	revoked := admin("key", "create", "--org", ent, "--name", "old")
	var keyID string
	for _, line := range strings.Split(lectern(t, "admin", "--data-dir", data, "key", "list", "--org", ent), "\n") {
		if f := strings.Fields(line); len(f) > 2 && f[2] == "old" {
			keyID = f[0]
		}
	}
	admin("key", "revoke", keyID)
	// The exports need a live deployment.
	if st := waitUpdate(t, srv.url, entKey, trigger(t, srv.url, entKey, site)); st["status"] != "success" {
		t.Fatalf("deploying the export project: %v", st)
	}
	keys := t.TempDir()
	for name, key := range map[string]string{"ENT": entKey, "PRO": proKey, "REVOKED": revoked, "UNKNOWN": lecternpkg.NewAPIKey()} {
		path := filepath.Join(keys, strings.ToLower(name)+".key")
		// Written as a person would: with a line break after the key.
		if err := os.WriteFile(path, []byte(key+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		vars[name+"_KEY"], vars[name+"_KEY_FILE"] = key, path
	}
	return vars
}

// cmdExitCode runs a command as exec does and checks its exit status:
// exitcode N command [args...].
func cmdExitCode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exitcode N command [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exitcode: %v", err)
	}
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		got = ee.ExitCode()
	case err != nil:
		ts.Fatalf("%s: %v", args[1], err)
	}
	if got != want {
		ts.Fatalf("%s exited with status %d, want %d", args[1], got, want)
	}
}

// readJSON parses stdout, stderr or a file as one JSON object.
func readJSON(ts *testscript.TestScript, name string) map[string]any {
	text := ts.ReadFile(name)
	dec := json.NewDecoder(strings.NewReader(text))
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		ts.Fatalf("%s is not a JSON object: %v\n%s", name, err, text)
	}
	if dec.More() {
		ts.Fatalf("%s holds more than one JSON value:\n%s", name, text)
	}
	return m
}

// jsonField returns the value at a dotted path (a number indexes an
// array), and whether it is there.
func jsonField(m map[string]any, path string) (any, bool) {
	var v any = m
	for _, k := range strings.Split(path, ".") {
		if list, ok := v.([]any); ok { // a number indexes an array
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 || i >= len(list) {
				return nil, false
			}
			v = list[i]
			continue
		}
		o, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = o[k]; !ok {
			return nil, false
		}
	}
	return v, true
}

func jsonText(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// cmdJSON checks that stdout, stderr or a file is one JSON object whose
// fields are present and not null, each matching its regexp when one is
// given: json stdout|stderr|FILE key[=regexp]... (keys may be dotted).
func cmdJSON(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: json stdout|stderr|FILE key[=regexp]...")
	}
	m := readJSON(ts, args[0])
	for _, a := range args[1:] {
		key, pattern, hasPattern := strings.Cut(a, "=")
		v, ok := jsonField(m, key)
		if !ok || v == nil {
			ts.Fatalf("%s: no %s in %v", args[0], key, m)
		}
		if hasPattern && !regexp.MustCompile(pattern).MatchString(jsonText(v)) {
			ts.Fatalf("%s: %s is %q, which does not match %q", args[0], key, jsonText(v), pattern)
		}
	}
}

// cmdSleep waits: sleep DURATION.
func cmdSleep(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: sleep DURATION")
	}
	d, err := time.ParseDuration(args[0])
	if err != nil {
		ts.Fatalf("sleep: %v", err)
	}
	time.Sleep(d)
}

// cmdCapture sets a variable to the last line of stdout or stderr, or to
// a JSON field of it: capture NAME stdout|stderr [key].
func cmdCapture(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: capture NAME stdout|stderr [key]")
	}
	var val string
	if len(args) == 3 {
		v, ok := jsonField(readJSON(ts, args[1]), args[2])
		if !ok {
			ts.Fatalf("capture: no %s in %s", args[2], args[1])
		}
		val = jsonText(v)
	} else {
		lines := strings.Split(strings.TrimSpace(ts.ReadFile(args[1])), "\n")
		val = strings.TrimSpace(lines[len(lines)-1])
	}
	if val == "" {
		ts.Fatalf("capture: %s gives an empty value", args[1])
	}
	ts.Setenv(args[0], val)
}

// cmdChecksum sets SHA256 and SIZE to a file's SHA-256 and size:
// checksum FILE.
func cmdChecksum(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: checksum FILE")
	}
	data, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	sum := sha256.Sum256(data)
	ts.Setenv("SHA256", hex.EncodeToString(sum[:]))
	ts.Setenv("SIZE", fmt.Sprint(len(data)))
}
