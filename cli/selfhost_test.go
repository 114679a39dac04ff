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

// runSelfhost runs "lectern selfhost args..." to its end with the given
// environment and returns stdout, stderr and the error.
func runSelfhost(t *testing.T, env map[string]string, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	err := cli.Run(context.Background(), append([]string{"selfhost"}, args...), func(k string) string { return env[k] },
		strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), err
}

func TestSelfhostCheck(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "lectern.yaml")
	os.WriteFile(cfg, []byte(`deployment: {type: client-hosted}
staticExport: {enabled: true, bundleUrl: "https://docs.acme.test/_lectern/download/b.tar.gz?expires=4102444800&nonce=n&signature=topsecret"}
features: {search: true}
`), 0o644)
	out, _, err := runSelfhost(t, map[string]string{"LECTERN_CACHE_DIR": "/var/cache/lectern"}, "--config", cfg, "--check", "--addr", "0.0.0.0:9000")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"is valid", "client-hosted", "?***", "expires 2100-01-01T00:00:00Z", "features.search          on",
		"features.analytics       off", "addr                     0.0.0.0:9000", "cache-dir                /var/cache/lectern"} {
		if !strings.Contains(out, want) {
			t.Errorf("--check output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "topsecret") {
		t.Errorf("--check shows the signature:\n%s", out)
	}

	t.Log("an unavailable feature is refused, naming feature and type")
	_, _, err = runSelfhost(t, map[string]string{"LECTERN_DEPLOYMENT_TYPE": "air-gapped"}, "--config", cfg, "--check")
	if err == nil || !strings.Contains(err.Error(), "features.search: feature search is unavailable for deployment type air-gapped") {
		t.Fatalf("air-gapped search: %v", err)
	}
	if cli.ExitCode(err) == 0 {
		t.Fatal("exit code 0")
	}

	t.Log("no configuration at all")
	_, _, err = runSelfhost(t, nil, "--check")
	if err == nil || !strings.Contains(err.Error(), "--config") || !strings.Contains(err.Error(), "deployment.type: missing") {
		t.Fatalf("no configuration: %v", err)
	}
}
