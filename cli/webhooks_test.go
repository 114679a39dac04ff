package cli_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"lectern.dev/lectern/client"
)

// TestWebhookEndToEnd: against a real serve (private targets allowed),
// a webhook made with the CLI receives the update's event signed with the
// secret the CLI printed; the receiver's first answer is a 500, and the
// delivery is retried with the same webhook-id until it answers 204;
// lectern webhook deliveries lists both attempts.
func TestWebhookEndToEnd(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	srv := startServe(t, data, "--webhook-allow-private")
	admin := func(args ...string) string {
		return lastLine(lectern(t, append([]string{"admin", "--data-dir", data}, args...)...))
	}
	org := admin("org", "create", "--name", "Hooks", "--plan", "pro")
	repo, _ := newRepo(t, smallSite("Hooks."))
	prj := admin("project", "create", "--org", org, "--name", "Docs", "--repo", repo, "--domain", "hooks.acme.test")
	keyFile := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(keyFile, []byte(admin("key", "create", "--org", org, "--name", "ci")), 0o600); err != nil {
		t.Fatal(err)
	}
	api := []string{"--api-url", srv.url, "--api-key-file", keyFile}

	var mu sync.Mutex
	var got []*http.Request
	var bodies [][]byte
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		got, bodies = append(got, r), append(bodies, body)
		first := len(got) == 1
		mu.Unlock()
		if first {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer recv.Close()
	out := lectern(t, append([]string{"webhook", "create", "--url", recv.URL + "/hook", "--event", "update.succeeded,update.failed"}, api...)...)
	secret := lastLine(out)
	hookID := strings.Fields(out)[2]
	if !strings.HasPrefix(secret, "whsec_") || !strings.HasPrefix(hookID, "whk_") {
		t.Fatalf("webhook create printed %q", out)
	}
	if st := waitUpdate(t, srv.url, strings.TrimSpace(readFile(t, keyFile)), trigger(t, srv.url, strings.TrimSpace(readFile(t, keyFile)), prj)); st["status"] != "success" {
		t.Fatalf("update: %v", st)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d requests reached the receiver in 30s, want a retry after the 500", n)
		}
	}
	mu.Lock()
	for i, r := range got {
		ev, err := client.VerifyWebhook(secret, r.Header, bodies[i])
		if err != nil || ev.Type != "update.succeeded" {
			t.Errorf("request %d: %v %+v", i, err, ev)
		}
		if r.Header.Get("webhook-id") != got[0].Header.Get("webhook-id") {
			t.Errorf("request %d has another webhook-id", i)
		}
	}
	mu.Unlock()
	// The receiver's answer is recorded a moment after it is sent.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		list := lectern(t, append([]string{"webhook", "deliveries", hookID}, api...)...)
		if strings.Contains(list, "update.succeeded") && strings.Contains(list, " delivered ") && strings.Contains(list, " 2 ") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("webhook deliveries:\n%s", list)
		}
	}
	if strings.Contains(srv.logs.String(), secret[6:]) {
		t.Errorf("the server's log holds the webhook secret")
	}
	lectern(t, append([]string{"webhook", "delete", hookID}, api...)...)
	if list := lectern(t, append([]string{"webhook", "list"}, api...)...); strings.Contains(list, hookID) {
		t.Errorf("webhook list after delete:\n%s", list)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
