package cli_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"lectern.dev/lectern/store/postgres/pgtest"
)

// TestScaleOutSwitchSeenTogether: two API processes on PostgreSQL keep
// what the site's host resolves to (each has served it before), and a
// worker process publishes a new deployment. Both serve it within a second
// of the update's success, and within a second of each other: the
// database's NOTIFY tells them, not the end of a cache's time.
func TestScaleOutSwitchSeenTogether(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three lectern processes")
	}
	t.Parallel()
	dsn := pgtest.URL(t)
	blobURL := s3URL(t)
	bin := lecternBinary(t)
	nodes := startNodes(t, bin, dsn, blobURL,
		[]string{"api-a", "--role", "api"}, []string{"api-b", "--role", "api"},
		[]string{"worker", "--role", "worker"})
	apis := nodes[:2]
	admin := func(args ...string) string {
		return lastLine(lectern(t, append([]string{"admin", "--database-url", dsn}, args...)...))
	}
	org := admin("org", "create", "--name", "Switch", "--plan", "enterprise")
	key := admin("key", "create", "--org", org, "--name", "ci")
	const domain = "switch.scale.test"
	repo, _ := newRepo(t, revSite("rev-one", domain, 3))
	project := admin("project", "create", "--org", org, "--name", "Docs", "--repo", repo, "--domain", domain)
	if st := waitUpdateOn(t, apis, key, trigger(t, apis[0].url, key, project), 60*time.Second); st["status"] != "success" {
		t.Fatalf("first update: %v", st)
	}
	for _, api := range apis {
		for range 5 { // served, and so kept
			if code, body := page(t, api.url, domain, "/quickstart"); code != 200 || !strings.Contains(body, "Revision rev-one") {
				t.Fatalf("%s serves %d %.200s, want rev-one", api.name, code, body)
			}
		}
	}

	commitRev(t, repo, "rev-two", domain, 3)
	id := trigger(t, apis[1].url, key, project)
	// From now on each API process is asked every 10 ms until it serves
	// the new revision; when each first did is recorded.
	seen := make([]time.Time, len(apis))
	var wg sync.WaitGroup
	for i, api := range apis {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for deadline := time.Now().Add(90 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
				if code, body := page(t, api.url, domain, "/quickstart"); code == 200 && strings.Contains(body, "Revision rev-two") {
					seen[i] = time.Now()
					return
				}
			}
		}()
	}
	st := waitUpdateOn(t, apis, key, id, 60*time.Second)
	success := time.Now()
	if st["status"] != "success" {
		t.Fatalf("second update: %v", st)
	}
	wg.Wait()
	for i, api := range apis {
		if seen[i].IsZero() {
			t.Fatalf("%s never served the new deployment", api.name)
		}
		if d := seen[i].Sub(success); d > time.Second {
			t.Errorf("%s served the new deployment %s after the update's success was read, want within a second", api.name, d)
		}
	}
	if d := seen[0].Sub(seen[1]).Abs(); d > time.Second {
		t.Errorf("the API processes served the new deployment %s apart, want within a second", d)
	}
	t.Logf("served by %s %s and by %s %s after the update's success was read", apis[0].name, seen[0].Sub(success), apis[1].name, seen[1].Sub(success))
}
