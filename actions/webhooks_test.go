package actions

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"lectern.dev/lectern"
	"lectern.dev/lectern/secrets"
	"lectern.dev/lectern/store"
	"lectern.dev/lectern/store/sqlite"
	"lectern.dev/lectern/webhooks"
)

// testOrgs is a store with two organizations, acme (with a project) and
// other, and a Service with a secret key.
type testOrgs struct {
	s           *Service
	acme, other string
	project     *lectern.Project
}

func newTestOrgs(t *testing.T, repoURL string) *testOrgs {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "lectern.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	var ids []string
	for _, name := range []string{"Acme", "Other"} {
		o := &lectern.Organization{Name: name, Plan: lectern.PlanFree}
		if err := st.CreateOrg(ctx, o); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, o.ID)
	}
	p := &lectern.Project{OrgID: ids[0], Name: "Docs", RepoURL: repoURL, Branch: "main", DocsRoot: "/",
		Domains: []string{"docs.acme.test"}, DeploymentType: lectern.DeploymentCloud}
	if err := st.CreateProject(ctx, p); err != nil {
		t.Fatal(err)
	}
	key, err := secrets.Parse(secrets.Generate())
	if err != nil {
		t.Fatal(err)
	}
	return &testOrgs{s: &Service{Store: st, Secrets: key}, acme: ids[0], other: ids[1], project: p}
}

func strp(s string) *string { return &s }

func TestWebhookCreateAndOwnership(t *testing.T) {
	o := newTestOrgs(t, "https://git.example/acme.git")
	ctx := context.Background()
	events := []string{"update.failed", "export.completed", "update.failed"}
	hook, secret, err := o.s.CreateWebhook(ctx, o.acme, WebhookRequest{URL: strp(" https://ci.example.com/hook "), Events: &events})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(hook.ID, lectern.PrefixWebhook) || hook.OrgID != o.acme || hook.URL != "https://ci.example.com/hook" ||
		fmt.Sprint(hook.Events) != "[update.failed export.completed]" {
		t.Errorf("created %+v", hook)
	}
	if !strings.HasPrefix(secret, webhooks.SecretPrefix) || strings.Contains(hook.Secret, secret) {
		t.Fatalf("secret %q, stored %q: want whsec_ shown, sealed stored", secret, hook.Secret)
	}
	stored, err := o.s.Store.GetWebhook(ctx, hook.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := o.s.Secrets.Open(stored.Secret, webhooks.SecretContext(hook.ID)); err != nil || string(got) != secret {
		t.Errorf("the stored secret opens to %q, %v", got, err)
	}
	if _, err := o.s.Secrets.Open(stored.Secret, webhooks.SecretContext("whk_other")); err == nil {
		t.Error("the sealed secret opens for another webhook")
	}

	// Another organization sees none of it.
	if list, err := o.s.Webhooks(ctx, o.other, store.Page{}); err != nil || len(list) != 0 {
		t.Errorf("another organization lists %v, %v", list, err)
	}
	if _, err := o.s.Webhook(ctx, o.other, hook.ID); lectern.ErrorCode(err) != lectern.ENOTFOUND {
		t.Errorf("another organization reads it: %v", err)
	}
	if _, err := o.s.Deliveries(ctx, o.other, hook.ID, store.Page{}); lectern.ErrorCode(err) != lectern.ENOTFOUND {
		t.Errorf("another organization reads its deliveries: %v", err)
	}
	if _, err := o.s.DeleteWebhook(ctx, o.other, hook.ID); lectern.ErrorCode(err) != lectern.ENOTFOUND {
		t.Errorf("another organization deletes it: %v", err)
	}
	if list, _ := o.s.Webhooks(ctx, o.acme, store.Page{}); len(list) != 1 {
		t.Fatalf("after another organization's delete: %v", list)
	}
	if ds, err := o.s.Deliveries(ctx, o.acme, hook.ID, store.Page{}); err != nil || len(ds) != 0 {
		t.Errorf("deliveries of a new webhook: %v, %v", ds, err)
	}
	if _, err := o.s.DeleteWebhook(ctx, o.acme, hook.ID); err != nil {
		t.Fatal(err)
	}
	for name, err := range map[string]error{
		"read":       func() error { _, err := o.s.Webhook(ctx, o.acme, hook.ID); return err }(),
		"deliveries": func() error { _, err := o.s.Deliveries(ctx, o.acme, hook.ID, store.Page{}); return err }(),
		"delete":     func() error { _, err := o.s.DeleteWebhook(ctx, o.acme, hook.ID); return err }(),
	} {
		if lectern.ErrorCode(err) != lectern.ENOTFOUND {
			t.Errorf("%s a deleted webhook: %v", name, err)
		}
	}
}

func TestWebhookRefused(t *testing.T) {
	o := newTestOrgs(t, "https://git.example/acme.git")
	ctx := context.Background()
	one := []string{"update.failed"}
	for _, c := range []struct {
		what   string
		req    WebhookRequest
		fields string
	}{
		{"loopback", WebhookRequest{URL: strp("http://127.0.0.1:9/hook"), Events: &one}, "[url]"},
		{"private", WebhookRequest{URL: strp("https://10.1.2.3/hook"), Events: &one}, "[url]"},
		{"localhost", WebhookRequest{URL: strp("https://localhost/hook"), Events: &one}, "[url]"},
		{"ftp", WebhookRequest{URL: strp("ftp://ci.example.com/hook"), Events: &one}, "[url]"},
		{"user info", WebhookRequest{URL: strp("https://u:p@ci.example.com/hook"), Events: &one}, "[url]"},
		{"no URL", WebhookRequest{Events: &one}, "[url]"},
		{"no events", WebhookRequest{URL: strp("https://ci.example.com/hook"), Events: &[]string{}}, "[events]"},
		{"unknown event", WebhookRequest{URL: strp("https://ci.example.com/hook"), Events: &[]string{"update.done"}}, "[events]"},
		{"both", WebhookRequest{}, "[url events]"},
	} {
		_, _, err := o.s.CreateWebhook(ctx, o.acme, c.req)
		le, _ := err.(*lectern.Error)
		var fields []string
		if le != nil {
			for _, f := range le.Fields {
				fields = append(fields, f.Field)
			}
		}
		if lectern.ErrorCode(err) != lectern.EINVALID || fmt.Sprint(fields) != c.fields {
			t.Errorf("%s: %v (fields %v), want EINVALID naming %s", c.what, err, fields, c.fields)
		}
	}
	if list, _ := o.s.Webhooks(ctx, o.acme, store.Page{}); len(list) != 0 {
		t.Errorf("refused creates stored %v", list)
	}

	// Private targets when the operator allows them.
	o.s.WebhookAllowPrivate = true
	if _, _, err := o.s.CreateWebhook(ctx, o.acme, WebhookRequest{URL: strp("http://127.0.0.1:9/hook"), Events: &one}); err != nil {
		t.Errorf("a loopback endpoint with private targets allowed: %v", err)
	}

	// Without a secret key: a bad request is still EINVALID, a good one
	// EUNAVAILABLE, and nothing is stored.
	o.s.Secrets = nil
	if _, _, err := o.s.CreateWebhook(ctx, o.acme, WebhookRequest{URL: strp("https://ci.example.com/x")}); lectern.ErrorCode(err) != lectern.EINVALID {
		t.Errorf("a bad request without a key: %v", err)
	}
	if _, _, err := o.s.CreateWebhook(ctx, o.acme, WebhookRequest{URL: strp("https://ci.example.com/x"), Events: &one}); lectern.ErrorCode(err) != lectern.EUNAVAILABLE ||
		!strings.Contains(lectern.ErrorMessage(err), "secret key") {
		t.Errorf("without a key: %v", err)
	}
	if list, _ := o.s.Webhooks(ctx, o.acme, store.Page{}); len(list) != 1 {
		t.Errorf("webhooks after a create without a key: %d, want 1", len(list))
	}
}

func TestWebhookLimit(t *testing.T) {
	o := newTestOrgs(t, "https://git.example/acme.git")
	ctx := context.Background()
	one := []string{"export.failed"}
	for i := range MaxWebhooks {
		if _, _, err := o.s.CreateWebhook(ctx, o.acme, WebhookRequest{URL: strp(fmt.Sprintf("https://ci.example.com/%d", i)), Events: &one}); err != nil {
			t.Fatalf("webhook %d: %v", i, err)
		}
	}
	if _, _, err := o.s.CreateWebhook(ctx, o.acme, WebhookRequest{URL: strp("https://ci.example.com/last"), Events: &one}); lectern.ErrorCode(err) != lectern.ECONFLICT {
		t.Errorf("webhook %d: %v, want ECONFLICT", MaxWebhooks+1, err)
	}
	if _, _, err := o.s.CreateWebhook(ctx, o.other, WebhookRequest{URL: strp("https://ci.example.com/other"), Events: &one}); err != nil {
		t.Errorf("another organization's first webhook: %v", err)
	}
}
