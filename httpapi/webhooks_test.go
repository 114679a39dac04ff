package httpapi_test

import (
	"database/sql"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"lectern.dev/lectern"
	"lectern.dev/lectern/httpapi"
	"lectern.dev/lectern/secrets"
)

func webhookEnv(t *testing.T, allowPrivate bool) *env {
	key, err := secrets.Parse(secrets.Generate())
	if err != nil {
		t.Fatal(err)
	}
	return newEnv(t, httpapi.Config{Secrets: key, WebhookAllowPrivate: allowPrivate}, nil)
}

// TestWebhooks: a webhook is created with its secret shown once, listed
// and read without it, refused for a private endpoint, bounded in number,
// and deleted; another organization's is 404 on every route.
func TestWebhooks(t *testing.T) {
	t.Parallel()
	e := webhookEnv(t, false)
	resp, body := e.do(t, req("POST", "/v1/webhooks", e.entKey, []byte(`{"url":"https://ci.example.com/hook","events":["update.succeeded","update.failed","update.succeeded"]}`)))
	m := decode(t, body)
	id, _ := m["id"].(string)
	secret, _ := m["secret"].(string)
	if resp.StatusCode != http.StatusCreated || !strings.HasPrefix(id, lectern.PrefixWebhook) || !strings.HasPrefix(secret, "whsec_") ||
		fmt.Sprint(m["events"]) != "[update.succeeded update.failed]" || resp.Header.Get("Location") != "/v1/webhooks/"+id {
		t.Fatalf("create: %d %s", resp.StatusCode, body)
	}
	e.remember(secret)
	for _, path := range []string{"/v1/webhooks/" + id, "/v1/webhooks"} {
		resp, body := e.do(t, req("GET", path, e.entKey, nil))
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), id) || strings.Contains(string(body), "whsec_") ||
			strings.Contains(string(body), secret[6:]) {
			t.Errorf("GET %s: %d %s", path, resp.StatusCode, body)
		}
	}
	if p := e.list(t, "/v1/webhooks/"+id+"/deliveries", e.entKey); len(p.Items) != 0 {
		t.Errorf("deliveries of a new webhook: %v", p.Items)
	}
	for _, r := range []*http.Request{
		req("GET", "/v1/webhooks/"+id, e.freeKey, nil),
		req("GET", "/v1/webhooks/"+id+"/deliveries", e.freeKey, nil),
		req("DELETE", "/v1/webhooks/"+id, e.freeKey, nil),
	} {
		resp, body := e.do(t, r)
		wantProblem(t, resp, body, http.StatusNotFound, lectern.ENOTFOUND)
	}
	if p := e.list(t, "/v1/webhooks", e.freeKey); len(p.Items) != 0 {
		t.Errorf("another organization lists %v", p.Items)
	}
	for _, c := range []struct{ body, field string }{
		{`{"url":"http://127.0.0.1:9/hook","events":["update.failed"]}`, "url"},
		{`{"url":"http://169.254.169.254/","events":["update.failed"]}`, "url"},
		{`{"url":"https://ci.example.com/hook","events":[]}`, "events"},
		{`{"url":"https://ci.example.com/hook","events":["update.done"]}`, "events"},
		{`{"events":["update.failed"]}`, "url"},
		{`{"url":"https://ci.example.com/hook","events":["update.failed"],"secret":"x"}`, "secret"},
	} {
		resp, body := e.do(t, req("POST", "/v1/webhooks", e.entKey, []byte(c.body)))
		p := wantProblem(t, resp, body, http.StatusBadRequest, lectern.EINVALID)
		if f := p.fields(); len(f) == 0 || f[0] != c.field {
			t.Errorf("%s: errors %v, want %s", c.body, f, c.field)
		}
	}
	for i := 1; i < 20; i++ {
		resp, body := e.do(t, req("POST", "/v1/webhooks", e.entKey, []byte(fmt.Sprintf(`{"url":"https://ci.example.com/%d","events":["export.failed"]}`, i))))
		if resp.StatusCode != http.StatusCreated {
			t.Fatalf("webhook %d: %d %s", i, resp.StatusCode, body)
		}
		e.remember(decode(t, body)["secret"].(string))
	}
	resp, body = e.do(t, req("POST", "/v1/webhooks", e.entKey, []byte(`{"url":"https://ci.example.com/21","events":["export.failed"]}`)))
	wantProblem(t, resp, body, http.StatusConflict, lectern.ECONFLICT)

	resp, body = e.do(t, req("DELETE", "/v1/webhooks/"+id, e.entKey, nil))
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("delete: %d %s", resp.StatusCode, body)
	}
	for _, r := range []*http.Request{req("GET", "/v1/webhooks/"+id, e.entKey, nil), req("DELETE", "/v1/webhooks/"+id, e.entKey, nil)} {
		resp, body := e.do(t, r)
		wantProblem(t, resp, body, http.StatusNotFound, lectern.ENOTFOUND)
	}
}

// TestWebhookPrivateTargetsAllowed: with WebhookAllowPrivate, an endpoint
// on loopback is accepted; without the secret key, no webhook is made.
func TestWebhookPrivateTargetsAllowed(t *testing.T) {
	t.Parallel()
	e := webhookEnv(t, true)
	resp, body := e.do(t, req("POST", "/v1/webhooks", e.entKey, []byte(`{"url":"http://127.0.0.1:9/hook","events":["update.failed"]}`)))
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("a loopback endpoint with private targets allowed: %d %s", resp.StatusCode, body)
	}
	e.remember(decode(t, body)["secret"].(string))
	plain := newEnv(t, httpapi.Config{}, nil)
	resp, body = plain.do(t, req("POST", "/v1/webhooks", plain.entKey, []byte(`{"url":"https://ci.example.com/hook","events":["update.failed"]}`)))
	wantProblem(t, resp, body, http.StatusServiceUnavailable, lectern.EUNAVAILABLE)
}

// TestWebhookSecretNotReplayed: a create retried with the same
// Idempotency-Key gets a conflict naming the webhook, never the secret
// again, and the stored answer does not hold it.
func TestWebhookSecretNotReplayed(t *testing.T) {
	t.Parallel()
	e := webhookEnv(t, false)
	body := []byte(`{"url":"https://ci.example.com/hook","events":["update.failed"]}`)
	r := req("POST", "/v1/webhooks", e.entKey, body)
	r.Header.Set("Idempotency-Key", "make-hook-1")
	resp, first := e.do(t, r)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create: %d %s", resp.StatusCode, first)
	}
	m := decode(t, first)
	secret, id := m["secret"].(string), m["id"].(string)
	e.remember(secret)
	r = req("POST", "/v1/webhooks", e.entKey, body)
	r.Header.Set("Idempotency-Key", "make-hook-1")
	resp, again := e.do(t, r)
	p := wantProblem(t, resp, again, http.StatusConflict, lectern.ECONFLICT)
	if !strings.Contains(p.Detail, id) || strings.Contains(string(again), "whsec_") || resp.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("the retry: %s", again)
	}
	db, err := sql.Open("sqlite", e.dbPath+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM idempotency WHERE instr(CAST(body AS TEXT), 'whsec_') > 0`).Scan(&n); err != nil || n != 0 {
		t.Errorf("stored answers holding a secret: %d (%v)", n, err)
	}
	if p := e.list(t, "/v1/webhooks", e.entKey); len(p.Items) != 1 {
		t.Errorf("webhooks after a retried create: %v", p.Items)
	}
}
