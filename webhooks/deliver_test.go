package webhooks_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/client"
	"lectern.dev/lectern/jobs"
	"lectern.dev/lectern/secrets"
	"lectern.dev/lectern/store"
	"lectern.dev/lectern/store/sqlite"
	"lectern.dev/lectern/webhooks"
)

// receiver is an endpoint that records what it is sent and answers each
// request with the next of its statuses (then 204).
type receiver struct {
	*httptest.Server
	mu       sync.Mutex
	got      []received
	statuses []int
}

type received struct {
	header http.Header
	body   []byte
}

func newReceiver(t *testing.T, statuses ...int) *receiver {
	r := &receiver{statuses: statuses}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.got = append(r.got, received{req.Header.Clone(), body})
		status := http.StatusNoContent
		if len(r.statuses) > 0 {
			status, r.statuses = r.statuses[0], r.statuses[1:]
		}
		r.mu.Unlock()
		w.WriteHeader(status)
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) requests() []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]received(nil), r.got...)
}

// fixture is a store with an organization, a project, and a running
// runner of webhook deliveries.
type fixture struct {
	st     store.Store
	key    *secrets.Key
	org    *lectern.Organization
	prj    *lectern.Project
	runner *jobs.Runner
}

func newFixture(t *testing.T, dbPath string) *fixture {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	key, err := secrets.Parse(secrets.Generate())
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{st: st, key: key}
	f.org = &lectern.Organization{Name: "Hooks", Plan: lectern.PlanEnterprise}
	if err := st.CreateOrg(ctx, f.org); err != nil {
		t.Fatal(err)
	}
	f.prj = &lectern.Project{OrgID: f.org.ID, Name: "Docs", RepoURL: "https://git.example.com/docs.git", Branch: "main", DocsRoot: "/",
		Domains: []string{"h" + lectern.NewID("")[14:] + ".example.com"}, DeploymentType: lectern.DeploymentCloud}
	if err := st.CreateProject(ctx, f.prj); err != nil {
		t.Fatal(err)
	}
	return f
}

// start runs the deliveries with a fast retry schedule.
func (f *fixture) start(t *testing.T) {
	d := &webhooks.Deliverer{Log: slog.New(slog.DiscardHandler), Store: f.st, Key: f.key,
		Client: webhooks.Client(2*time.Second, true), Schedule: []time.Duration{100 * time.Millisecond}, Window: time.Hour}
	f.runner = jobs.NewRunner(slog.New(slog.DiscardHandler), f.st, map[string]jobs.Handler{store.KindWebhook: d},
		jobs.Config{Workers: 2, Poll: 20 * time.Millisecond, LeaseFor: 3 * time.Second}, nil)
	if err := f.runner.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.runner.Stop)
}

// hook creates a webhook for events at url and returns it with its secret.
func (f *fixture) hook(t *testing.T, url string, events ...lectern.Event) (*lectern.Webhook, string) {
	t.Helper()
	secret := webhooks.NewSecret()
	w := &lectern.Webhook{ID: lectern.NewID(lectern.PrefixWebhook), OrgID: f.org.ID, URL: url, Events: events}
	w.Secret = f.key.Seal([]byte(secret), webhooks.SecretContext(w.ID))
	if err := f.st.CreateWebhook(context.Background(), w, 0); err != nil {
		t.Fatal(err)
	}
	return w, secret
}

// deploy runs an update of the project to success, as a worker does.
func (f *fixture) deploy(t *testing.T) *lectern.Update {
	t.Helper()
	ctx := context.Background()
	u := &lectern.Update{ProjectID: f.prj.ID, Source: "api"}
	if err := f.st.CreateUpdate(ctx, u); err != nil {
		t.Fatal(err)
	}
	job, lease, err := f.st.ClaimJob(ctx, store.ClaimParams{Kinds: []string{store.KindUpdate}, Owner: "t", Now: time.Now(), LeaseFor: time.Minute})
	if err != nil || job == nil {
		t.Fatalf("claim: %v %v", job, err)
	}
	d := &lectern.Deployment{ProjectID: f.prj.ID, Commit: lectern.Commit{SHA: strings.Repeat("a", 40), Ref: "main"}, PageCount: 2}
	if err := f.st.FinishUpdate(ctx, lease, store.UpdateResult{Status: lectern.UpdateSuccess, Summary: "Deployed 2 pages.", Deployment: d, EndedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	return u
}

// waitDelivery waits until the webhook's only delivery has ended.
func waitDelivery(t *testing.T, st store.Store, hookID string) *lectern.Delivery {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		ds, err := st.ListDeliveries(context.Background(), hookID, store.Page{})
		if err != nil {
			t.Fatal(err)
		}
		if len(ds) == 1 && ds[0].Status != lectern.DeliveryPending {
			return ds[0]
		}
	}
	t.Fatalf("the delivery to %s did not end", hookID)
	return nil
}

// TestDeliveries: an update that succeeds is sent, signed, to the
// webhooks that take its event, once each: retried after 500s with the
// same webhook-id, each attempt recorded; the signature checks out with
// the client package and with the shell snippet of docs/ci.md; a webhook
// for other events gets nothing.
func TestDeliveries(t *testing.T) {
	f := newFixture(t, filepath.Join(t.TempDir(), "db.sqlite"))
	flaky := newReceiver(t, 500, 500)
	steady := newReceiver(t)
	other := newReceiver(t)
	hFlaky, secret := f.hook(t, flaky.URL, lectern.EventUpdateSucceeded, lectern.EventUpdateFailed)
	hSteady, _ := f.hook(t, steady.URL, lectern.EventUpdateSucceeded)
	hOther, _ := f.hook(t, other.URL, lectern.EventExportCompleted)
	f.start(t)
	u := f.deploy(t)

	d := waitDelivery(t, f.st, hFlaky.ID)
	if d.Status != lectern.DeliveryDelivered || len(d.Attempts) != 3 || d.Attempts[0].StatusCode != 500 || d.Attempts[2].StatusCode != 204 {
		t.Fatalf("the flaky endpoint's delivery: %+v", d)
	}
	waitDelivery(t, f.st, hSteady.ID)
	reqs := flaky.requests()
	if len(reqs) != 3 {
		t.Fatalf("the flaky endpoint got %d requests, want 3", len(reqs))
	}
	for i, r := range reqs {
		if id := r.header.Get("webhook-id"); id != d.ID {
			t.Errorf("attempt %d: webhook-id %q, want %s on every attempt", i, id, d.ID)
		}
		ev, err := client.VerifyWebhook(secret, r.header, r.body)
		if err != nil {
			t.Fatalf("attempt %d: the signature does not verify: %v", i, err)
		}
		var data struct {
			StatusID string `json:"statusId"`
			Status   string `json:"status"`
		}
		if err := json.Unmarshal(ev.Data, &data); err != nil || ev.Type != "update.succeeded" || data.StatusID != u.ID || data.Status != "success" {
			t.Errorf("attempt %d: event %+v, data %s", i, ev, ev.Data)
		}
		if _, err := client.VerifyWebhook(webhooks.NewSecret(), r.header, r.body); err == nil {
			t.Errorf("attempt %d verifies with another secret", i)
		}
	}
	if n := len(steady.requests()); n != 1 {
		t.Errorf("the steady endpoint got %d requests, want 1", n)
	}
	time.Sleep(300 * time.Millisecond) // no late repeats
	if n := len(flaky.requests()); n != 3 {
		t.Errorf("the flaky endpoint got %d requests after delivery, want 3", n)
	}
	if n := len(other.requests()); n != 0 {
		t.Errorf("the export webhook got %d requests for an update", n)
	}
	verifyWithShell(t, secret, reqs[2])
	if ds, _ := f.st.ListDeliveries(context.Background(), hOther.ID, store.Page{}); len(ds) != 0 {
		t.Errorf("deliveries for a webhook of other events: %+v", ds)
	}
}

// verifyWithShell runs the verification snippet of docs/ci.md on a
// delivery, and on the same delivery with its body changed.
func verifyWithShell(t *testing.T, secret string, r received) {
	t.Helper()
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Skip("openssl is not installed: the shell snippet of docs/ci.md is not checked")
	}
	doc, err := os.ReadFile("../docs/ci.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(doc), "<!-- verify.sh -->\n```sh\n")
	script, _, ok2 := strings.Cut(after, "```")
	if !ok || !ok2 {
		t.Fatal("docs/ci.md has no verify.sh snippet")
	}
	path := filepath.Join(t.TempDir(), "verify.sh")
	if err := os.WriteFile(path, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	run := func(body []byte) (string, error) {
		cmd := exec.Command("sh", path, r.header.Get("webhook-id"), r.header.Get("webhook-timestamp"), r.header.Get("webhook-signature"))
		cmd.Env = append(os.Environ(), "WEBHOOK_SECRET="+secret)
		cmd.Stdin = bytes.NewReader(body)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := run(r.body); err != nil || !strings.Contains(out, "signature ok") {
		t.Errorf("docs/ci.md's verify.sh refuses a good delivery: %v: %s", err, out)
	}
	if out, err := run(append(append([]byte{}, r.body...), ' ')); err == nil {
		t.Errorf("docs/ci.md's verify.sh accepts a changed body: %s", out)
	}
	// A timestamp header is checked before it is used: bash would run the
	// command of an arithmetic index.
	if _, err := exec.LookPath("bash"); err == nil {
		marker := filepath.Join(t.TempDir(), "ran")
		cmd := exec.Command("bash", path, r.header.Get("webhook-id"), "now[$(touch "+marker+")]", r.header.Get("webhook-signature"))
		cmd.Env = append(os.Environ(), "WEBHOOK_SECRET="+secret)
		cmd.Stdin = bytes.NewReader(r.body)
		if out, err := cmd.CombinedOutput(); err == nil {
			t.Errorf("verify.sh accepts a timestamp that is not a number: %s", out)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Errorf("verify.sh ran a command from the webhook-timestamp header")
		}
	}
}

// TestDeliverySurvivesRestart: a delivery whose endpoint fails while the
// server stops is sent by the next server on the same database.
func TestDeliverySurvivesRestart(t *testing.T) {
	db := filepath.Join(t.TempDir(), "db.sqlite")
	f := newFixture(t, db)
	down := newReceiver(t, 503)
	h, _ := f.hook(t, down.URL, lectern.EventUpdateSucceeded)
	f.start(t)
	f.deploy(t)
	for deadline := time.Now().Add(10 * time.Second); len(down.requests()) == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no first attempt")
		}
	}
	f.runner.Stop()
	f.st.Close()

	g := newFixture(t, db) // a new process, the same database
	g.key = f.key
	g.start(t)
	d := waitDelivery(t, g.st, h.ID)
	if d.Status != lectern.DeliveryDelivered || len(d.Attempts) != 2 {
		t.Fatalf("after the restart: %+v", d)
	}
}
