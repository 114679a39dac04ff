package dashboard

import (
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/secrets"
	"lectern.dev/lectern/store"
	"lectern.dev/lectern/store/storetest"
	"lectern.dev/lectern/webhooks"
)

// The page benchmark's organization, seeded through the store's own
// methods (the ones the API and the workers use), so every row is one the
// server could have written:
//
//   - 1,000 projects, each with 100 updates: every tenth one is built
//     (claimed, started, finished with a 50-line log: 7 successes with a
//     deployment and 3 failures), the nine before it are superseded by the
//     next trigger, as quick pushes do. The janitor's rule is then applied
//     (DeleteDeployment): a project keeps its live deployment and the 3
//     newest others.
//   - 300 exports: 10 completed ones for each of the 30 newest projects.
//   - one webhook of every event, so each finished update and export
//     stored its delivery (10,300), each then sent as a worker would
//     (claimed, its attempt recorded: delivered, one in 20 after a 503).
//   - a month of web analytics for the measured project (30,000 events).
//   - 20 users, 10 API keys.
//
// Updates are queued in rounds: round i triggers one update of every
// project at once (benchWorkers at a time); in a build round the workers
// then claim every queued job and finish it. A project has at most one
// queued update at any moment, so CreateUpdate's supersede touches one
// row, and claims of different projects never wait for each other.
const (
	benchProjects         = 1000
	benchUpdatesPer       = 100
	benchBuildEvery       = 10 // every tenth update is built, the others superseded
	benchFailEvery        = 30 // of the built ones, those of round i%30 == 29 fail
	benchKeepDeployments  = 4  // the live one and the 3 newest others, as the janitor keeps
	benchLogLines         = 50
	benchExportProjects   = 30
	benchExportsPer       = 10
	benchUsers            = 20
	benchKeys             = 10
	benchAnalyticsDays    = 30
	benchRetryEvery       = 20 // one delivery in 20 is answered 503 first
	benchWorkers          = 16
	benchOrgName          = "Benchmark Org"
	benchUpdateRoundEvery = 2 * time.Hour
)

// benchSeed is what the seeding made: the measured project (the newest,
// so first in every list) and the ids the page paths name.
type benchSeed struct {
	org        *lectern.Organization
	owner      *lectern.User
	project    *lectern.Project
	oldest     *lectern.Project    // the first project made: last in every list
	update     *lectern.Update     // the project's newest update: built, with a log
	lastLog    string              // its log's last line
	deployment *lectern.Deployment // the project's previous deployment (a rollback's target)
	export     *lectern.ExportJob  // the project's newest export, completed
	member     *lectern.User
	key        *lectern.APIKey
	webhook    *lectern.Webhook
	token      string // the owner's session token (the cookie's value)
	took       map[string]time.Duration
	order      []string
}

func (s *benchSeed) phase(name string, start time.Time) {
	s.took[name] = time.Since(start)
	s.order = append(s.order, name)
}

// benchSeedStore fills st with the benchmark's organization; key seals
// the webhook's secret.
func benchSeedStore(t *testing.T, st store.Store, key *secrets.Key) *benchSeed {
	t.Helper()
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Second)
	s := &benchSeed{took: map[string]time.Duration{}}

	start := time.Now()
	s.org = &lectern.Organization{Name: benchOrgName, Plan: lectern.PlanEnterprise, CreatedAt: now.AddDate(0, -6, 0)}
	if err := st.CreateOrg(ctx, s.org); err != nil {
		t.Fatal(err)
	}
	for i := range benchUsers {
		role := lectern.RoleMember
		if i < 3 {
			role = lectern.RoleOwner
		}
		u := &lectern.User{OrgID: s.org.ID, Email: fmt.Sprintf("user%02d@bench.test", i), Role: role, CreatedAt: now.AddDate(0, -5, i)}
		if err := st.CreateUser(ctx, u); err != nil {
			t.Fatal(err)
		}
		switch i {
		case 0:
			s.owner = u
		case benchUsers - 1:
			s.member = u
		}
	}
	for i := range benchKeys {
		secret := lectern.NewAPIKey()
		k := &lectern.APIKey{OrgID: s.org.ID, Name: fmt.Sprintf("CI %d", i), Hint: lectern.APIKeyHint(secret), Hash: lectern.HashAPIKey(secret),
			CreatedAt: now.AddDate(0, -4, i)}
		if err := st.CreateAPIKey(ctx, k); err != nil {
			t.Fatal(err)
		}
		s.key = k
	}
	s.webhook = &lectern.Webhook{ID: lectern.NewID(lectern.PrefixWebhook), OrgID: s.org.ID, URL: "https://hooks.bench.test/lectern",
		Events: lectern.Events, CreatedAt: now.AddDate(0, -4, 0)}
	s.webhook.Secret = key.Seal([]byte(webhooks.NewSecret()), webhooks.SecretContext(s.webhook.ID))
	if err := st.CreateWebhook(ctx, s.webhook, 0); err != nil {
		t.Fatal(err)
	}
	// The session the requests carry, as startSession makes it.
	s.token = lectern.NewSessionToken()
	if err := st.CreateSession(ctx, &lectern.Session{Hash: lectern.HashToken(s.token), UserID: s.owner.ID, CSRF: lectern.NewCSRFToken(),
		CreatedAt: now, ExpiresAt: now.Add(lectern.SessionIdleTTL)}); err != nil {
		t.Fatal(err)
	}

	projects := make([]*lectern.Project, benchProjects)
	benchParallel(t, benchProjects, func(j int) error {
		p := &lectern.Project{OrgID: s.org.ID, Name: fmt.Sprintf("Bench docs %04d", j), RepoURL: fmt.Sprintf("https://git.example.com/bench/docs-%04d.git", j),
			Branch: "main", DocsRoot: "/", Domains: []string{fmt.Sprintf("docs-%04d.bench.test", j)}, DeploymentType: lectern.DeploymentCloud,
			CreatedAt: now.AddDate(0, -3, 0).Add(time.Duration(j) * time.Minute)}
		projects[j] = p
		return st.CreateProject(ctx, p)
	})
	s.project = projects[benchProjects-1]
	s.oldest = projects[0]
	s.phase("org, users, keys, projects", start)

	start = time.Now()
	var built, sent atomic.Int64
	var tries sync.Map // the deliveries attempted once
	for i := range benchUpdatesPer {
		at := now.Add(-time.Duration(benchUpdatesPer-i) * benchUpdateRoundEvery)
		ups := make([]*lectern.Update, benchProjects)
		benchParallel(t, benchProjects, func(j int) error {
			ups[j] = &lectern.Update{ProjectID: projects[j].ID, Source: "webhook", CreatedAt: at.Add(time.Duration(j) * time.Millisecond)}
			return st.CreateUpdate(ctx, ups[j])
		})
		if i%benchBuildEvery != benchBuildEvery-1 {
			continue
		}
		byID := make(map[string]*lectern.Update, len(ups))
		for _, u := range ups {
			byID[u.ID] = u
		}
		fail := i%benchFailEvery == benchFailEvery-1
		n := benchClaimAll(t, st, store.KindUpdate, func(lease store.Lease) error {
			u := byID[lease.JobID]
			if u == nil {
				return fmt.Errorf("claimed %s, which is no update of round %d", lease.JobID, i)
			}
			return benchBuild(ctx, st, lease, u, fail)
		})
		if n != benchProjects {
			t.Fatalf("round %d: built %d updates, want %d", i, n, benchProjects)
		}
		built.Add(int64(n))
		sent.Add(int64(benchSend(t, st, &tries)))
	}
	s.phase(fmt.Sprintf("%d updates (%d built, %d webhook attempts)", benchProjects*benchUpdatesPer, built.Load(), sent.Load()), start)

	start = time.Now()
	benchParallel(t, benchProjects, func(j int) error {
		ds, err := st.ListDeployments(ctx, projects[j].ID, store.Page{})
		if err != nil {
			return err
		}
		for _, d := range ds[min(len(ds), benchKeepDeployments):] {
			if err := st.DeleteDeployment(ctx, d.ID); err != nil {
				return err
			}
		}
		return nil
	})
	s.phase("janitor's deployment trim", start)

	start = time.Now()
	for k := range benchExportsPer {
		at := now.AddDate(0, 0, -benchExportsPer+k)
		for j := benchProjects - benchExportProjects; j < benchProjects; j++ {
			p := projects[j]
			e := &lectern.ExportJob{OrgID: s.org.ID, ProjectID: p.ID, Domain: p.Domains[0], CreatedAt: at.Add(time.Duration(j) * time.Second)}
			if err := st.CreateExport(ctx, e, store.ExportQuota{}); err != nil {
				t.Fatal(err)
			}
		}
		benchClaimAll(t, st, store.KindExport, func(lease store.Lease) error {
			return benchExport(ctx, st, lease, at)
		})
		benchSend(t, st, &tries)
	}
	s.phase(fmt.Sprintf("%d exports", benchExportsPer*benchExportProjects), start)

	start = time.Now()
	today := lectern.AnalyticsDate(now)
	for d := range benchAnalyticsDays {
		if err := st.RecordAnalytics(ctx, storetest.AnalyticsBatch(s.project.ID, today.AddDate(0, 0, -d), d)); err != nil {
			t.Fatal(err)
		}
	}
	s.phase(fmt.Sprintf("%d analytics events", benchAnalyticsDays*1000), start)

	// What the measured pages must show.
	var err error
	if s.project, err = st.GetProject(ctx, s.project.ID); err != nil {
		t.Fatal(err)
	}
	ups, err := st.ListUpdates(ctx, s.project.ID, store.Page{Limit: 1})
	if err != nil || len(ups) != 1 {
		t.Fatalf("the measured project's updates: %d, %v", len(ups), err)
	}
	if s.update, err = st.GetUpdate(ctx, ups[0].ID); err != nil || len(s.update.Logs) != benchLogLines || s.update.Status != lectern.UpdateSuccess {
		t.Fatalf("the measured update %+v, %v: want a success with a %d-line log", s.update, err, benchLogLines)
	}
	s.lastLog = s.update.Logs[len(s.update.Logs)-1]
	ds, err := st.ListDeployments(ctx, s.project.ID, store.Page{Limit: 2})
	if err != nil || len(ds) != 2 || ds[0].ID != s.project.LiveDeploymentID {
		t.Fatalf("the measured project's deployments: %+v, %v; want the live one and another", ds, err)
	}
	s.deployment = ds[1]
	exps, err := st.ListExports(ctx, store.ExportFilter{OrgID: s.org.ID, Domain: s.project.Domains[0]}, store.Page{Limit: 1})
	if err != nil || len(exps) != 1 || exps[0].Status != lectern.ExportCompleted {
		t.Fatalf("the measured project's exports: %+v, %v", exps, err)
	}
	s.export = exps[0]
	return s
}

// vars are the placeholders of benchPages and their values, as
// strings.NewReplacer takes them.
func (s *benchSeed) vars() []string {
	return []string{"{pid}", s.project.ID, "{oldpid}", s.oldest.ID, "{uid}", s.update.ID, "{did}", s.deployment.ID, "{eid}", s.export.ID,
		"{kid}", s.key.ID, "{wid}", s.webhook.ID, "{mid}", s.member.ID,
		"{pname}", s.project.Name, "{domain}", s.project.Domains[0], "{org}", s.org.Name, "{log}", s.lastLog,
		"{sha7}", s.deployment.Commit.SHA[:7], "{kname}", s.key.Name, "{hookurl}", s.webhook.URL,
		"{email}", s.owner.Email, "{memail}", s.member.Email}
}

// benchBuild runs update u under lease as a worker would: started, then
// finished after a 50-line log, as a failure or with a deployment.
func benchBuild(ctx context.Context, st store.Store, lease store.Lease, u *lectern.Update, fail bool) error {
	started := u.CreatedAt.Add(2 * time.Second)
	if err := st.StartUpdate(ctx, lease, started); err != nil {
		return err
	}
	sum := sha1.Sum([]byte(u.ID))
	c := &lectern.Commit{SHA: hex.EncodeToString(sum[:]), Ref: "refs/heads/main", Message: "Update the guides (" + u.ID[len(u.ID)-6:] + ")"}
	r := store.UpdateResult{Commit: c, EndedAt: started.Add(94 * time.Second)}
	logs := make([]string, 0, benchLogLines)
	logs = append(logs, "Fetching https://git.example.com/bench/docs.git, branch main (shallow)",
		"Fetched "+c.SHA[:7]+" \""+c.Message+"\" in 1.4 s",
		"Reading docs.json: 3 tabs, 11 groups, 120 pages, 2 OpenAPI documents")
	for k := len(logs); k < benchLogLines-3; k++ {
		logs = append(logs, fmt.Sprintf("Rendered guides/section-%02d/page-%03d.mdx (%d KB, %d ms, 2 snippets, 14 links checked)", k/10, k, 8+k%17, 3+k%11))
	}
	if fail {
		r.Status, r.Summary = lectern.UpdateFailure, "The build failed: snippets/install.mdx: unclosed <Steps> element at line 42."
		logs = append(logs, "warning: guides/section-04/page-044.mdx: the image /img/flow.png does not exist",
			"error: snippets/install.mdx:42:1: unclosed <Steps> element",
			"The build failed after 90.2 s: update "+u.ID+" leaves the live deployment as it was")
	} else {
		d := &lectern.Deployment{ID: lectern.NewID(lectern.PrefixDeployment), ProjectID: u.ProjectID, Commit: *c, PageCount: 120, CreatedAt: r.EndedAt}
		r.Status, r.Summary, r.Deployment = lectern.UpdateSuccess, "Deployed 120 pages.", d
		logs = append(logs, "Built the search index: 120 pages, 48 shards, 1.9 MB",
			"Uploaded 412 files (18.3 MB) and the source snapshot (2.1 MB)",
			"Published deployment "+d.ID+" of update "+u.ID+": 120 pages live")
	}
	r.Logs = logs
	return st.FinishUpdate(ctx, lease, r)
}

// benchExport runs an export under lease: progress, then completed with
// its bundle.
func benchExport(ctx context.Context, st store.Store, lease store.Lease, at time.Time) error {
	if err := st.SetExportProgress(ctx, lease, 50, 60, at.Add(20*time.Second)); err != nil {
		return err
	}
	sum := sha256.Sum256([]byte(lease.JobID))
	return st.FinishExport(ctx, lease, store.ExportResult{Status: lectern.ExportCompleted, PageCount: 120, At: at.Add(45 * time.Second),
		Bundle: &lectern.Bundle{Key: "exports/" + lease.JobID + "/bundle.tar.gz", FileName: "docs-export-" + at.Format("2006-01-02") + ".tar.gz",
			SizeBytes: 18_300_000, SHA256: hex.EncodeToString(sum[:]), Version: "1.0.0"}})
}

// benchSend sends the queued webhook deliveries as a worker would, as
// they come (a backlog of them would make each claim sort it): delivered
// at once, but one in benchRetryEvery answered 503 first and retried.
// It returns the attempts.
func benchSend(t *testing.T, st store.Store, tries *sync.Map) int {
	return benchClaimAll(t, st, store.KindWebhook, func(lease store.Lease) error {
		sum := sha256.Sum256([]byte(lease.JobID))
		if _, again := tries.LoadOrStore(lease.JobID, true); !again && sum[0]%benchRetryEvery == 0 {
			return st.RecordAttempt(context.Background(), lease, lectern.DeliveryAttempt{At: time.Now(), StatusCode: 503,
				Error: "503 Service Unavailable", DurationMS: 2400}, time.Now())
		}
		return st.RecordAttempt(context.Background(), lease, lectern.DeliveryAttempt{At: time.Now(), StatusCode: 200, DurationMS: 85}, time.Time{})
	})
}

// benchClaimAll claims the queued jobs of kind with benchWorkers workers
// and runs each; it returns how many ran. A PostgreSQL claim skips the
// rows other claimers hold locked, so a worker may find none while some
// are left: the last pass runs alone until the queue is empty.
func benchClaimAll(t *testing.T, st store.Store, kind string, run func(store.Lease) error) int {
	t.Helper()
	var n atomic.Int64
	var failed atomic.Value
	claim := func() bool {
		_, lease, err := st.ClaimJob(context.Background(), store.ClaimParams{Kinds: []string{kind}, Owner: "bench",
			Now: time.Now(), LeaseFor: time.Hour})
		if err == nil && lease.JobID != "" {
			err = run(lease)
			n.Add(1)
		}
		if err != nil {
			failed.CompareAndSwap(nil, err)
			return false
		}
		return lease.JobID != ""
	}
	var wg sync.WaitGroup
	for range benchWorkers {
		wg.Go(func() {
			for claim() {
			}
		})
	}
	wg.Wait()
	for claim() {
	}
	if err, _ := failed.Load().(error); err != nil {
		t.Fatalf("run %s jobs: %v", kind, err)
	}
	return int(n.Load())
}

// benchParallel runs f(0..n-1) on benchWorkers goroutines, failing the
// test on the first error.
func benchParallel(t *testing.T, n int, f func(i int) error) {
	t.Helper()
	var next atomic.Int64
	var failed atomic.Value
	var wg sync.WaitGroup
	for range benchWorkers {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n || failed.Load() != nil {
					return
				}
				if err := f(i); err != nil {
					failed.CompareAndSwap(nil, err)
					return
				}
			}
		})
	}
	wg.Wait()
	if err, _ := failed.Load().(error); err != nil {
		t.Fatal(err)
	}
}

// benchPhases is the seeding's time per phase, for the report.
func (s *benchSeed) benchPhases() string {
	var b strings.Builder
	var total time.Duration
	for _, name := range s.order {
		fmt.Fprintf(&b, "  %-60s %8.1f s\n", name, s.took[name].Seconds())
		total += s.took[name]
	}
	fmt.Fprintf(&b, "  %-60s %8.1f s\n", "total", total.Seconds())
	return b.String()
}
