package dashboard

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/actions"
	"lectern.dev/lectern/store"
	"lectern.dev/lectern/webhooks"
)

var accessSecretRe = regexp.MustCompile(`value="(whsec_[^"]+)"`)

func accessHooks(t *testing.T, e *env, org string) []*lectern.Webhook {
	t.Helper()
	hooks, err := e.st.ListWebhooks(context.Background(), org, store.Page{})
	if err != nil {
		t.Fatal(err)
	}
	return hooks
}

func TestAccessWebhooks(t *testing.T) {
	e, b := accessEnv(t, true)
	if s := b.do("GET", "/dashboard/webhooks", nil); s != 200 || !b.has("Create webhook") || !b.has("no webhooks") ||
		!strings.Contains(b.body, `<label for="hook-url">Endpoint URL</label>`) || !strings.Contains(b.body, `<legend>Events</legend>`) ||
		!strings.Contains(b.body, `<label for="ev-update.failed">`) {
		t.Fatalf("webhooks page: %d\n%s", s, b.body)
	}
	tok := b.csrf()
	form := url.Values{"csrf": {tok}, "url": {"https://ci.example.com/hook"}, "event": {"update.failed", "export.completed"}}
	if s := b.do("POST", "/dashboard/webhooks", form); s != 200 || !b.has("Webhook created") || !strings.Contains(b.body, `data-copy-from="hook-secret"`) {
		t.Fatalf("create: %d\n%s", s, b.body)
	}
	m := accessSecretRe.FindStringSubmatch(b.body)
	if m == nil {
		t.Fatalf("the created page shows no secret:\n%s", b.body)
	}
	secret := html.UnescapeString(m[1])
	e.secrets = append(e.secrets, secret)
	hooks := accessHooks(t, e, e.acme.ID)
	if len(hooks) != 1 || hooks[0].URL != "https://ci.example.com/hook" || len(hooks[0].Events) != 2 {
		t.Fatalf("stored webhooks %+v", hooks)
	}
	hook := hooks[0]
	if got, err := e.h.cfg.Actions.Secrets.Open(hook.Secret, webhooks.SecretContext(hook.ID)); err != nil || string(got) != secret {
		t.Errorf("the secret shown is not the one stored: %v", err)
	}

	// Listed and shown without the secret.
	for _, path := range []string{"/dashboard/webhooks", "/dashboard/webhooks/" + hook.ID} {
		if s := b.do("GET", path, nil); s != 200 || !b.has("https://ci.example.com/hook") || !b.has("export.completed") || strings.Contains(b.body, "whsec_") {
			t.Errorf("GET %s: %d, want the webhook without its secret\n%s", path, s, b.body)
		}
	}
	if !b.has("No deliveries yet") || strings.Contains(b.body, "data-live") {
		t.Errorf("a new webhook's page: want no deliveries and nothing live\n%s", b.body)
	}

	// Deleting asks first.
	if s := b.do("GET", "/dashboard/webhooks/"+hook.ID+"/delete", nil); s != 200 || !b.has("Delete webhook") || len(accessHooks(t, e, e.acme.ID)) != 1 {
		t.Fatalf("delete confirmation: %d", s)
	}
	if s := b.do("POST", "/dashboard/webhooks/"+hook.ID+"/delete", url.Values{"csrf": {tok}}); s != http.StatusSeeOther {
		t.Fatalf("delete: %d\n%s", s, b.body)
	}
	if len(accessHooks(t, e, e.acme.ID)) != 0 {
		t.Error("the webhook is still there")
	}
	if s := b.do("GET", "/dashboard/webhooks/"+hook.ID, nil); s != http.StatusNotFound {
		t.Errorf("a deleted webhook's page: %d, want 404", s)
	}
	if b.do("GET", "/dashboard/webhooks?done=deleted", nil); !b.has("Deleted the webhook") {
		t.Error("no notice after deleting")
	}
}

func TestAccessWebhookBadInput(t *testing.T) {
	e, b := accessEnv(t, true)
	b.do("GET", "/dashboard/webhooks", nil)
	tok := b.csrf()
	for _, c := range []struct {
		url    string
		events []string
		want   string
	}{
		{"http://127.0.0.1:9/hook", []string{"update.failed"}, "The endpoint URL names an address of the server's own network"},
		{"https://10.0.0.7/hook", []string{"update.failed"}, "own network"},
		{"https://localhost/hook", []string{"export.failed"}, "own network"},
		{"ftp://ci.example.com/hook", []string{"update.failed"}, "scheme"},
		{"https://ci.example.com/hook", nil, "Choose at least one event"},
		{"https://ci.example.com/hook", []string{"update.done"}, "unknown event"},
	} {
		s := b.do("POST", "/dashboard/webhooks", url.Values{"csrf": {tok}, "url": {c.url}, "event": c.events})
		if s != http.StatusBadRequest || !strings.Contains(b.body, `role="alert"`) || !b.has(c.want) || !b.has("No webhook was created") ||
			!strings.Contains(b.body, `value="`+c.url+`"`) {
			t.Errorf("%s %v: %d, want 400 with the form again saying %q\n%s", c.url, c.events, s, c.want, b.body)
		}
		for _, ev := range c.events {
			if ev != "update.done" && !strings.Contains(b.body, `value="`+ev+`" checked`) {
				t.Errorf("%s: the event %s is not checked again", c.url, ev)
			}
		}
	}
	if hooks := accessHooks(t, e, e.acme.ID); len(hooks) != 0 {
		t.Fatalf("refused forms stored %v", hooks)
	}
	// http:// is accepted, as the API accepts it; private targets when
	// the operator allows them.
	for _, u := range []string{"http://ci.example.com/hook", "http://127.0.0.1:9/hook"} {
		if u == "http://127.0.0.1:9/hook" {
			e.h.cfg.Actions.WebhookAllowPrivate = true
		}
		if s := b.do("POST", "/dashboard/webhooks", url.Values{"csrf": {tok}, "url": {u}, "event": {"update.failed"}}); s != 200 {
			t.Errorf("create %s: %d\n%s", u, s, b.body)
		}
		if m := accessSecretRe.FindStringSubmatch(b.body); m != nil {
			e.secrets = append(e.secrets, html.UnescapeString(m[1]))
		}
	}
	if hooks := accessHooks(t, e, e.acme.ID); len(hooks) != 2 {
		t.Errorf("webhooks: %d, want 2", len(hooks))
	}
}

func TestAccessWebhookLimitAndNoKey(t *testing.T) {
	e, b := accessEnv(t, true)
	ctx := context.Background()
	ev := []string{"export.failed"}
	for i := range actions.MaxWebhooks {
		u := "https://ci.example.com/" + string(rune('a'+i))
		if _, secret, err := e.h.cfg.Actions.CreateWebhook(ctx, e.acme.ID, actions.WebhookRequest{URL: &u, Events: &ev}); err != nil {
			t.Fatal(err)
		} else {
			e.secrets = append(e.secrets, secret)
		}
	}
	if b.do("GET", "/dashboard/webhooks", nil); b.has("Create webhook") || !b.has("the most it may have") {
		t.Errorf("a full organization's page offers to create:\n%s", b.body)
	}
	if s := b.do("POST", "/dashboard/webhooks", url.Values{"csrf": {b.csrf()}, "url": {"https://ci.example.com/z"}, "event": ev}); s != http.StatusConflict || !b.has("No webhook was created") {
		t.Errorf("create past the limit: %d\n%s", s, b.body)
	}

	e2, b2 := accessEnv(t, false)
	if b2.do("GET", "/dashboard/webhooks", nil); !b2.has("no secret key") || b2.has("Create webhook") {
		t.Errorf("webhooks page without a secret key:\n%s", b2.body)
	}
	if s := b2.do("POST", "/dashboard/webhooks", url.Values{"csrf": {b2.csrf()}, "url": {"https://ci.example.com/z"}, "event": ev}); s != http.StatusServiceUnavailable {
		t.Errorf("create without a secret key: %d", s)
	}
	if len(accessHooks(t, e2, e2.acme.ID)) != 0 {
		t.Error("a webhook was created without a secret key")
	}
}

func TestAccessWebhookMemberAndOtherOrganization(t *testing.T) {
	e, owner := accessEnv(t, true)
	ctx := context.Background()
	u, ev := "https://ci.example.com/acme", []string{"update.failed"}
	mine, s1, err := e.h.cfg.Actions.CreateWebhook(ctx, e.acme.ID, actions.WebhookRequest{URL: &u, Events: &ev})
	if err != nil {
		t.Fatal(err)
	}
	ou := "https://ci.example.com/other-org"
	theirs, s2, err := e.h.cfg.Actions.CreateWebhook(ctx, e.other.ID, actions.WebhookRequest{URL: &ou, Events: &ev})
	if err != nil {
		t.Fatal(err)
	}
	e.secrets = append(e.secrets, s1, s2)

	// Another organization's webhook is not found, for the owner too.
	owner.do("GET", "/dashboard/webhooks", nil)
	if owner.has(ou) {
		t.Error("the list shows another organization's webhook")
	}
	tok := owner.csrf()
	for _, id := range []string{theirs.ID, "whk_missing"} {
		for _, c := range []struct{ method, path string }{{"GET", ""}, {"GET", "/deliveries"}, {"GET", "/delete"}, {"POST", "/delete"}} {
			if s := owner.do(c.method, "/dashboard/webhooks/"+id+c.path, url.Values{"csrf": {tok}}); s != http.StatusNotFound || owner.has(ou) {
				t.Errorf("%s %s of %s: %d, want 404", c.method, c.path, id, s)
			}
		}
	}
	if len(accessHooks(t, e, e.other.ID)) != 1 {
		t.Error("another organization's webhook was deleted")
	}

	// A member sees the webhooks and their deliveries, and changes none.
	b := e.browser("192.0.2.2")
	b.signIn("member@acme.test", memberPW)
	if s := b.do("GET", "/dashboard/webhooks", nil); s != 200 || !b.has(u) || b.has("Create webhook") || b.has("/delete") {
		t.Fatalf("member's webhooks page: %d\n%s", s, b.body)
	}
	if s := b.do("GET", "/dashboard/webhooks/"+mine.ID, nil); s != 200 || !b.has(u) || b.has("Delete webhook") {
		t.Errorf("member's webhook page: %d", s)
	}
	mtok := b.csrf()
	for _, c := range []struct{ method, path string }{{"POST", "/dashboard/webhooks"}, {"GET", "/dashboard/webhooks/" + mine.ID + "/delete"}, {"POST", "/dashboard/webhooks/" + mine.ID + "/delete"}} {
		if s := b.do(c.method, c.path, url.Values{"csrf": {mtok}, "url": {"https://ci.example.com/m"}, "event": ev}); s != http.StatusForbidden {
			t.Errorf("member %s %s: %d, want 403", c.method, c.path, s)
		}
	}
	if hooks := accessHooks(t, e, e.acme.ID); len(hooks) != 1 {
		t.Errorf("a member changed the webhooks: %d", len(hooks))
	}

	// CSRF.
	for _, path := range []string{"/dashboard/webhooks", "/dashboard/webhooks/" + mine.ID + "/delete"} {
		if s := owner.do("POST", path, url.Values{"url": {"https://ci.example.com/c"}, "event": ev}); s != http.StatusForbidden {
			t.Errorf("POST %s without a CSRF token: %d, want 403", path, s)
		}
	}
	if hooks := accessHooks(t, e, e.acme.ID); len(hooks) != 1 {
		t.Errorf("requests without a CSRF token changed the webhooks: %d", len(hooks))
	}
}

// TestAccessWebhookDeliveries: deliveries are listed newest first with
// their status, attempts and response; the list is live while one is
// pending and stops once none is.
func TestAccessWebhookDeliveries(t *testing.T) {
	e, b := accessEnv(t, true)
	ctx := context.Background()
	u, ev := "https://ci.example.com/hook", []string{"update.canceled"}
	hook, secret, err := e.h.cfg.Actions.CreateWebhook(ctx, e.acme.ID, actions.WebhookRequest{URL: &u, Events: &ev})
	if err != nil {
		t.Fatal(err)
	}
	e.secrets = append(e.secrets, secret)
	upd := &lectern.Update{ProjectID: e.project.ID, Source: "test"}
	if err := e.st.CreateUpdate(ctx, upd); err != nil {
		t.Fatal(err)
	}
	if _, err := e.st.CancelUpdate(ctx, upd.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	page := "/dashboard/webhooks/" + hook.ID
	live := `data-live="` + page + `/deliveries"`
	if s := b.do("GET", page, nil); s != 200 || !b.has("update.canceled") || !b.has("pending") || !b.has("none yet") || !strings.Contains(b.body, live) {
		t.Fatalf("a pending delivery: %d\n%s", s, b.body)
	}

	// One failed attempt: still pending, the response shown.
	claim := func(now time.Time) store.Lease {
		job, lease, err := e.st.ClaimJob(ctx, store.ClaimParams{Kinds: []string{store.KindWebhook}, Owner: "t", Now: now, LeaseFor: time.Minute})
		if err != nil || job == nil {
			t.Fatalf("claim the delivery: %v, %v", job, err)
		}
		return lease
	}
	now := time.Now()
	if err := e.st.RecordAttempt(ctx, claim(now), lectern.DeliveryAttempt{At: now, StatusCode: 502, DurationMS: 12}, now.Add(5*time.Second)); err != nil {
		t.Fatal(err)
	}
	if s := b.do("GET", page+"/deliveries", nil); s != 200 || !strings.HasPrefix(strings.TrimSpace(b.body), `<div id="deliveries"`) ||
		!strings.Contains(b.body, live) || !b.has("HTTP 502") || !b.has("next try") || strings.Contains(b.body, "<html") {
		t.Fatalf("the live part after a failed attempt: %d\n%s", s, b.body)
	}

	// Delivered: the part stops polling.
	later := now.Add(6 * time.Second)
	if err := e.st.RecordAttempt(ctx, claim(later), lectern.DeliveryAttempt{At: later, StatusCode: 204, DurationMS: 8}, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if s := b.do("GET", page+"/deliveries", nil); s != 200 || strings.Contains(b.body, "data-live") || !b.has("delivered") || !b.has("HTTP 204") {
		t.Fatalf("the live part once delivered: %d\n%s", s, b.body)
	}
	if b.do("GET", page, nil); !b.has("delivered") || !regexp.MustCompile(`<td>2\s*<details>`).MatchString(b.body) {
		t.Errorf("the page once delivered: want 2 attempts\n%s", b.body)
	}
}
