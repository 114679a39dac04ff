package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"lectern.dev/lectern/cli"
)

// TestSettingsFromEnvironmentAndFile starts serve with its address and
// data folder from LECTERN_* variables and JSON logs from a config file,
// then lists and revokes a key with the admin commands.
func TestSettingsFromEnvironmentAndFile(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	addr := freeAddr(t)
	cfg := filepath.Join(t.TempDir(), "lectern.yaml")
	os.WriteFile(cfg, []byte("log-format: json\nbundle-url-ttl: 2m\n"), 0o644)
	env := map[string]string{"LECTERN_ADDR": addr, "LECTERN_DATA_DIR": data, "LECTERN_CONFIG": cfg, "LECTERN_RATE_LIMIT": "1000"}
	getenv := func(k string) string { return env[k] }
	ctx, cancel := context.WithCancel(context.Background())
	logs := &syncBuffer{}
	done := make(chan error, 1)
	go func() { done <- cli.Run(ctx, []string{"serve"}, getenv, strings.NewReader(""), io.Discard, logs) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	}()
	waitHealthy(t, "http://"+addr, done)

	var first map[string]any
	line, _, _ := strings.Cut(logs.String(), "\n")
	if err := json.Unmarshal([]byte(line), &first); err != nil {
		t.Fatalf("log is not JSON: %q", line)
	}
	started := logs.String()
	if !strings.Contains(started, `"addr":"`+addr+`"`) || !strings.Contains(started, filepath.Join(data, "lectern.db")) {
		t.Fatalf("start-up log does not say where it listens and stores:\n%s", started)
	}

	org := lastLine(lectern(t, "admin", "--data-dir", data, "org", "create", "--name", "Acme", "--plan", "enterprise"))
	var created map[string]any
	out := lectern(t, "admin", "--data-dir", data, "--json", "key", "create", "--org", org, "--name", "ci")
	if err := json.Unmarshal([]byte(out), &created); err != nil || !strings.HasPrefix(created["key"].(string), "lct_") {
		t.Fatalf("key create --json: %q %v", out, err)
	}
	key, keyID := created["key"].(string), created["id"].(string)
	list := lectern(t, "admin", "--data-dir", data, "key", "list", "--org", org)
	if !strings.Contains(list, keyID) || strings.Contains(list, key) || !strings.Contains(list, "active") {
		t.Fatalf("key list must show the key's id and state, never the key:\n%s", list)
	}
	base := "http://" + addr
	if code, _, _ := call(t, "GET", base+"/v1/static-export/jobs/exp_00000000000000000000000000", key, nil); code != 404 {
		t.Fatalf("working key: %d", code)
	}
	if got := lastLine(lectern(t, "admin", "--data-dir", data, "key", "revoke", keyID)); got != keyID {
		t.Fatalf("revoke printed %q", got)
	}
	// A revoked key stops working within --key-cache-ttl (1s by default).
	deadline := time.Now().Add(3 * time.Second)
	for {
		code, p, _ := call(t, "GET", base+"/v1/static-export/jobs/exp_00000000000000000000000000", key, nil)
		if code == 401 && p["code"] == "invalid_api_key" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("revoked key still accepted after 3s: %d %v", code, p)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(lectern(t, "admin", "--data-dir", data, "key", "list"), "revoked") {
		t.Fatal("key list does not show the revocation")
	}
}

func TestSettingsRefused(t *testing.T) {
	t.Parallel()
	cfg := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(cfg, []byte("adress: 127.0.0.1:1\n"), 0o644)
	for name, c := range map[string]struct {
		args []string
		env  map[string]string
		want string
	}{
		"unknown config key": {[]string{"serve", "--config", cfg}, nil, `unknown setting "adress"`},
		"bad env value":      {[]string{"serve"}, map[string]string{"LECTERN_BUNDLE_URL_TTL": "soon"}, "LECTERN_BUNDLE_URL_TTL"},
		"bad role":           {[]string{"serve", "--role", "both", "--data-dir", t.TempDir()}, nil, "--role"},
		"bad log format":     {[]string{"serve", "--log-format", "xml"}, nil, "--log-format"},
		"embed host with a scheme": {[]string{"serve", "--embed-hosts", "https://www.youtube.com", "--data-dir", t.TempDir()}, nil,
			`--embed-hosts: embed host "https://www.youtube.com" has a scheme`},
		"embed host wildcard": {[]string{"serve", "--data-dir", t.TempDir()}, map[string]string{"LECTERN_EMBED_HOSTS": "*.youtube.com"}, "wildcard"},
		"bad plan":            {[]string{"admin", "--data-dir", t.TempDir(), "org", "create", "--name", "x", "--plan", "gold"}, nil, "unknown plan"},
		"bad domain":          {[]string{"admin", "--data-dir", t.TempDir(), "project", "create", "--org", "org_x", "--name", "x", "--repo", "/r", "--domain", "https://x.test"}, nil, "scheme"},
	} {
		var errb bytes.Buffer
		err := cli.Run(context.Background(), c.args, func(k string) string { return c.env[k] }, strings.NewReader(""), io.Discard, &errb)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", name, err, c.want)
		}
	}
}
