package cli_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"lectern.dev/lectern/cli"
)

func TestBuildCommand(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "site")
	run := func(args ...string) (string, string, error) {
		var o, e bytes.Buffer
		err := cli.Run(context.Background(), args, noEnv, strings.NewReader(""), &o, &e)
		return o.String(), e.String(), err
	}
	stdout, stderr, err := run("build", "--out", out, "--export", "../../shared/corpus/mintlify-starter")
	if err != nil {
		t.Fatalf("build: %v\n%s", err, stderr)
	}
	if !strings.Contains(stdout, "Built 17 pages") || !strings.Contains(stdout, "export form") {
		t.Fatalf("summary: %q", stdout)
	}
	if !strings.Contains(stderr, "warning: essentials/") {
		t.Fatalf("warnings not listed with file names: %q", stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "quickstart.html")); err != nil {
		t.Fatal("quickstart.html missing")
	}

	broken := t.TempDir()
	os.WriteFile(filepath.Join(broken, "docs.json"), []byte(`{"name": "x", "navigation": [`), 0o644)
	_, _, err = run("build", "--out", out, broken)
	if err == nil || cli.ExitCode(err) != 1 || !strings.Contains(err.Error(), "docs.json") {
		t.Fatalf("broken config: %v (exit %d)", err, cli.ExitCode(err))
	}
	if _, err := os.Stat(filepath.Join(out, "quickstart.html")); err != nil {
		t.Fatal("a failed build removed the previous output")
	}
	if _, _, err := run("build", "--out", out, filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Fatal("missing source accepted")
	}
}
