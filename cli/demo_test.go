package cli_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"lectern.dev/lectern/cli"
)

// runDemo runs "lectern serve --demo" on dataDir until stdout holds want,
// and returns its stdout, its log and a stop function.
func runDemo(t *testing.T, dataDir, want string) (string, *syncBuffer, string, func()) {
	t.Helper()
	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	out, logs := &syncBuffer{}, &syncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- cli.Run(ctx, []string{"serve", "--demo", "--addr", addr, "--data-dir", dataDir}, noEnv, strings.NewReader(""), out, logs)
	}()
	stop := func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("serve --demo: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("serve --demo did not stop")
		}
	}
	deadline := time.Now().Add(90 * time.Second)
	for !strings.Contains(out.String(), want) {
		select {
		case err := <-done:
			t.Fatalf("serve --demo ended: %v\n%s\n%s", err, out, logs)
		default:
		}
		if time.Now().After(deadline) {
			stop()
			t.Fatalf("no %q after 90s; stdout:\n%s\nlog:\n%s", want, out, logs)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return out.String(), logs, "http://" + addr, stop
}

// TestServeDemo: on an empty data folder, serve --demo deploys its example
// site and prints a key that works, the live site's address and commands
// to paste; run again on the same folder, it seeds nothing more.
func TestServeDemo(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	out, logs, base, stop := runDemo(t, data, "The Lectern demo is ready")
	key := ""
	for _, f := range strings.Fields(out) {
		if strings.HasPrefix(f, "lct_") {
			key = f
			break
		}
	}
	if key == "" {
		t.Fatalf("no API key printed:\n%s", out)
	}
	saved, err := os.ReadFile(filepath.Join(data, "demo-api-key"))
	if err != nil || strings.TrimSpace(string(saved)) != key {
		t.Errorf("demo-api-key holds %q (%v), want the printed key", saved, err)
	}
	if fi, err := os.Stat(filepath.Join(data, "demo-api-key")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("demo-api-key mode %v (%v), want 0600", fi.Mode().Perm(), err)
	}
	for _, want := range []string{"Live site:  " + strings.Replace(base, "127.0.0.1", "docs.localhost", 1) + "/",
		"lectern export --domain docs.localhost --wait", "lectern update prj_", "export LECTERN_API_URL=" + base} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	// The live site is up, components rendered.
	if code, body := page(t, base, "docs.localhost", "/"); code != 200 || !strings.Contains(body, "Welcome") {
		t.Errorf("live home page: %d %.300s", code, body)
	}
	if code, body := page(t, base, "docs.localhost:8080", "/guides/components"); code != 200 || !strings.Contains(body, "lc-tabs") {
		t.Errorf("components page: %d %.300s", code, body)
	}
	// The key works: the demo organization is enterprise, so exports start.
	if code, job, _ := call(t, "POST", base+"/v1/static-export/jobs", key, map[string]any{"domain": "docs.localhost"}); code != 202 {
		t.Errorf("export with the demo key: %d %v", code, job)
	} else if final := pollExport(t, base, key, job["jobId"].(string), false); final["status"] != "completed" {
		t.Errorf("demo export: %v", final)
	}
	if strings.Contains(logs.String(), key) {
		t.Error("the demo key appears in the log")
	}
	stop()

	// Again on the same folder: nothing new is seeded, no key is shown.
	out, _, _, stop = runDemo(t, data, "already set up")
	defer stop()
	if strings.Contains(out, "lct_") {
		t.Errorf("the second run printed a key:\n%s", out)
	}
	if !strings.Contains(out, "demo-api-key") {
		t.Errorf("the second run does not say where the key is:\n%s", out)
	}
}

// --demo needs a process that runs both the API and the workers.
func TestServeDemoNeedsRoleAll(t *testing.T) {
	t.Parallel()
	var errb syncBuffer
	err := cli.Run(context.Background(), []string{"serve", "--demo", "--role", "api", "--data-dir", t.TempDir()}, noEnv, strings.NewReader(""), &errb, &errb)
	if err == nil || !strings.Contains(err.Error(), "--demo needs --role all") {
		t.Errorf("serve --demo --role api: %v", err)
	}
}
