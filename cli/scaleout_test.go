package cli_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"lectern.dev/lectern/store/postgres/pgtest"
)

// The tests in this file run Lectern as several processes of the real
// binary on one PostgreSQL database (a schema of their own) and one S3
// server (TEST_S3_URL; object keys carry unique ids, so tests sharing the
// bucket never collide): API-only processes take the requests, worker-only
// processes run the jobs.

// sharedBinary is the lectern binary built once for the tests that run at
// the same time, removed when the last of them ends.
var sharedBinary struct {
	mu    sync.Mutex
	users int
	dir   string
	path  string
}

func lecternBinary(t *testing.T) string {
	t.Helper()
	sharedBinary.mu.Lock()
	defer sharedBinary.mu.Unlock()
	if sharedBinary.users == 0 {
		dir, err := os.MkdirTemp("", "lectern-bin-")
		if err != nil {
			t.Fatal(err)
		}
		bin := filepath.Join(dir, "lectern")
		if out, err := exec.Command("go", "build", "-o", bin, "../cmd/lectern").CombinedOutput(); err != nil {
			os.RemoveAll(dir)
			t.Fatalf("go build: %v\n%s", err, out)
		}
		sharedBinary.dir, sharedBinary.path = dir, bin
	}
	sharedBinary.users++
	t.Cleanup(func() {
		sharedBinary.mu.Lock()
		defer sharedBinary.mu.Unlock()
		if sharedBinary.users--; sharedBinary.users == 0 {
			os.RemoveAll(sharedBinary.dir)
		}
	})
	return sharedBinary.path
}

// node is one lectern serve process of a cluster.
type node struct {
	*proc
	name, url string
}

// startNodes starts lectern serve processes at once (so they migrate the
// fresh schema together) and waits until each is healthy. Each spec is a
// name and the process's own flags.
func startNodes(t *testing.T, bin, dsn, blobURL string, specs ...[]string) []*node {
	t.Helper()
	var nodes []*node
	for _, spec := range specs {
		addr := freeAddr(t)
		args := append([]string{"serve", "--addr", addr, "--data-dir", t.TempDir(), "--database-url", dsn, "--blob-url", blobURL,
			"--shutdown-timeout", "1s", "--rate-limit", "1000", "--exports-per-hour", "0"}, spec[1:]...)
		cmd := exec.Command(bin, withSecretKey(t, args)...)
		logs := &syncBuffer{}
		cmd.Stdout, cmd.Stderr = logs, logs
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		p := &proc{cmd: cmd, logs: logs, exited: make(chan struct{}), done: make(chan error, 1)}
		go func() {
			p.err = cmd.Wait()
			close(p.exited)
			p.done <- p.err
		}()
		t.Cleanup(func() {
			cmd.Process.Kill()
			<-p.exited
			if t.Failed() {
				t.Logf("log of %s:\n%s", spec[0], logs.String())
			}
		})
		nodes = append(nodes, &node{proc: p, name: spec[0], url: "http://" + addr})
	}
	for _, n := range nodes {
		waitHealthy(t, n.url, n.done)
	}
	return nodes
}

// kill stops the node with SIGKILL and waits for it to exit.
func (n *node) kill(t *testing.T) {
	t.Helper()
	if err := n.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-n.exited
}

// jobLine is a worker's log line for the start or the end of a job run.
var jobLine = regexp.MustCompile(`msg="job (started|finished)" job=(\S+) kind=\S+ attempt=(\d+)`)

// jobEvent is one such line: which worker started or finished which
// attempt.
type jobEvent struct {
	worker, event string
	attempt       int
}

func (e jobEvent) String() string {
	return fmt.Sprintf("%s %s attempt %d", e.worker, e.event, e.attempt)
}

// jobEvents reads the job lines of the workers' logs, by job id.
func jobEvents(workers ...*node) map[string][]jobEvent {
	out := map[string][]jobEvent{}
	for _, w := range workers {
		for _, m := range jobLine.FindAllStringSubmatch(w.logs.String(), -1) {
			a, _ := strconv.Atoi(m[3])
			out[m[2]] = append(out[m[2]], jobEvent{worker: w.name, event: m[1], attempt: a})
		}
	}
	return out
}

// runsLine is a lectern_job_runs_total sample.
var runsLine = regexp.MustCompile(`(?m)^lectern_job_runs_total\{kind="(\w+)",outcome="(\w+)"\} (\d+)$`)

// jobRuns sums lectern_job_runs_total of the nodes by "kind/outcome".
func jobRuns(t *testing.T, nodes ...*node) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, n := range nodes {
		for _, m := range runsLine.FindAllStringSubmatch(metrics(t, n.url), -1) {
			v, _ := strconv.Atoi(m[3])
			out[m[1]+"/"+m[2]] += v
		}
	}
	return out
}

// openDB connects to the test's schema, to check the jobs, updates and
// deployments the processes recorded.
func openDB(t *testing.T, dsn string) *pgxpool.Pool {
	t.Helper()
	db, err := pgxpool.New(context.Background(), pgtest.WithParams(t, dsn, map[string]string{"pool_max_conns": "1"}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	return db
}

// jobStates returns each job's state and attempt count.
func jobStates(t *testing.T, db *pgxpool.Pool) map[string]string {
	t.Helper()
	rows, err := db.Query(context.Background(), `SELECT id, state, attempt FROM jobs`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var id, state string
		var attempt int
		if err := rows.Scan(&id, &state, &attempt); err != nil {
			t.Fatal(err)
		}
		out[id] = fmt.Sprintf("%s/%d", state, attempt)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// deploymentsOf returns the ids of the deployments recorded for an update.
func deploymentsOf(t *testing.T, db *pgxpool.Pool, updateID string) []string {
	t.Helper()
	rows, err := db.Query(context.Background(), `SELECT id FROM deployments WHERE update_id = $1`, updateID)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	return ids
}

func liveDeployment(t *testing.T, db *pgxpool.Pool, projectID string) string {
	t.Helper()
	var live *string
	if err := db.QueryRow(context.Background(), `SELECT live_deployment_id FROM projects WHERE id = $1`, projectID).Scan(&live); err != nil {
		t.Fatal(err)
	}
	if live == nil {
		return ""
	}
	return *live
}

// statusCacheGap is longer than the API's read cache of polled jobs and
// updates (readcache.DefaultStatusTTL, 100 ms): a process asked again
// after it reads the database afresh.
const statusCacheGap = 110 * time.Millisecond

// waitUpdateOn polls an update alternately on the API processes until it
// is terminal.
func waitUpdateOn(t *testing.T, apis []*node, key, id string, within time.Duration) map[string]any {
	t.Helper()
	deadline := time.Now().Add(within)
	for i := 0; time.Now().Before(deadline); i++ {
		code, st, _ := call(t, "GET", apis[i%len(apis)].url+"/v1/project/update-status/"+id, key, nil)
		if code != 200 {
			t.Fatalf("update status %s: %d %v", id, code, st)
		}
		switch st["status"] {
		case "success", "failure", "superseded":
			return st
		}
		time.Sleep(30 * time.Millisecond)
	}
	t.Fatalf("update %s not finished after %s", id, within)
	return nil
}

// waitExportOn polls an export alternately on the API processes until it
// is terminal.
func waitExportOn(t *testing.T, apis []*node, key, id string, within time.Duration) map[string]any {
	t.Helper()
	deadline := time.Now().Add(within)
	for i := 0; time.Now().Before(deadline); i++ {
		code, j, _ := call(t, "GET", apis[i%len(apis)].url+"/v1/static-export/jobs/"+id, key, nil)
		if code != 200 {
			t.Fatalf("export %s: %d %v", id, code, j)
		}
		if j["status"] == "completed" || j["status"] == "failed" {
			return j
		}
		time.Sleep(30 * time.Millisecond)
	}
	t.Fatalf("export %s not finished after %s", id, within)
	return nil
}

// revSite is a docs site of n pages at a revision: every page, the 404
// page included, names the revision in the site name ("Docs rev-one"), and
// the quickstart names the domain. Page guides/only-REV exists in that
// revision only.
func revSite(rev, domain string, n int) map[string]string {
	files := map[string]string{
		"index.mdx":                   "---\ntitle: Welcome\n---\n\nWelcome to " + domain + ".\n",
		"quickstart.mdx":              "---\ntitle: Quickstart\n---\n\nRevision " + rev + " of " + domain + ".\n",
		"guides/only-" + rev + ".mdx": "---\ntitle: Only in " + rev + "\n---\n\nThis page exists in " + rev + " only.\n",
	}
	pages := []string{`"index"`, `"quickstart"`, `"guides/only-` + rev + `"`}
	for i := 3; i < n; i++ {
		name := fmt.Sprintf("guides/page-%02d", i)
		pages = append(pages, `"`+name+`"`)
		files[name+".mdx"] = fmt.Sprintf("---\ntitle: Page %d\n---\n\n## Part %d\n\n%s\n", i, i, strings.Repeat("Words about the product. ", 40))
	}
	files["docs.json"] = `{"name": "Docs ` + rev + `", "navigation": {"groups": [{"group": "Guides", "pages": [` + strings.Join(pages, ", ") + `]}]}}`
	return files
}

// commitRev replaces the repository's docs by revSite(rev, ...).
func commitRev(t *testing.T, repo, rev, domain string, n int) string {
	t.Helper()
	files := revSite(rev, domain, n)
	entries, _ := filepath.Glob(filepath.Join(repo, "guides", "only-*.mdx"))
	for _, e := range entries {
		name := "guides/" + filepath.Base(e)
		if _, ok := files[name]; !ok {
			files[name] = "\x00delete"
		}
	}
	return commitFiles(t, repo, files, "Docs "+rev)
}

// TestScaleOutAcrossProcesses runs two API processes and two worker
// processes on one PostgreSQL schema and one S3 server, drives updates and
// exports of several organizations through both API processes, and checks
// that each job ran exactly once (worker logs, the workers' job metrics,
// the attempts recorded in the database, one deployment per update), that
// every result reads the same from either API process, and that progress
// polled alternately from both moves forward.
func TestScaleOutAcrossProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("runs four lectern processes")
	}
	t.Parallel()
	dsn := pgtest.URL(t)
	blobURL := s3URL(t)
	bin := lecternBinary(t)
	db := openDB(t, dsn)
	nodes := startNodes(t, bin, dsn, blobURL,
		[]string{"api-a", "--role", "api"}, []string{"api-b", "--role", "api"},
		[]string{"worker-a", "--role", "worker", "--render-page-delay", "200ms"},
		[]string{"worker-b", "--role", "worker", "--render-page-delay", "200ms"})
	apis, workers := nodes[:2], nodes[2:]
	admin := func(args ...string) string {
		return lastLine(lectern(t, append([]string{"admin", "--database-url", dsn}, args...)...))
	}

	// Three organizations with two projects each; the first project has a
	// bigger site, whose export is watched as it runs.
	type project struct {
		id, key, domain, repo string
		pages                 int
	}
	var projects []*project
	for o := range 3 {
		org := admin("org", "create", "--name", fmt.Sprintf("Org %d", o), "--plan", "enterprise")
		key := admin("key", "create", "--org", org, "--name", "ci")
		for p := range 2 {
			pr := &project{key: key, domain: fmt.Sprintf("p%d.org%d.scale.test", p, o), pages: 3}
			if o == 0 && p == 0 {
				pr.pages = 12
			}
			pr.repo, _ = newRepo(t, revSite("rev-one", pr.domain, pr.pages))
			pr.id = admin("project", "create", "--org", org, "--name", fmt.Sprintf("Docs %d", p), "--repo", pr.repo, "--domain", pr.domain)
			projects = append(projects, pr)
		}
	}

	// Round one: an update of every project, through both API processes.
	var updates, secondUpdates, exports []string
	for i, p := range projects {
		updates = append(updates, trigger(t, apis[i%2].url, p.key, p.id))
	}
	for i, p := range projects {
		if st := waitUpdateOn(t, apis, p.key, updates[i], 60*time.Second); st["status"] != "success" {
			t.Fatalf("update of %s: %v", p.domain, st)
		}
	}

	// Round two: a new revision of every project and an export of every
	// domain at once. The first export is started with an Idempotency-Key
	// on one API process and replayed by the other.
	for i, p := range projects {
		commitRev(t, p.repo, "rev-two", p.domain, p.pages)
		id := trigger(t, apis[(i+1)%2].url, p.key, p.id)
		updates, secondUpdates = append(updates, id), append(secondUpdates, id)
		hdr := map[string]string{}
		if i == 0 {
			hdr["Idempotency-Key"] = "scale-out-export-1"
		}
		code, job, _ := callWith(t, "POST", apis[i%2].url+"/v1/static-export/jobs", p.key, hdr, map[string]any{"domain": p.domain})
		if code != 202 {
			t.Fatalf("start export of %s: %d %v", p.domain, code, job)
		}
		exports = append(exports, job["jobId"].(string))
		if i == 0 {
			code, again, _ := callWith(t, "POST", apis[1].url+"/v1/static-export/jobs", p.key, hdr, map[string]any{"domain": p.domain})
			if code != 202 || again["jobId"] != job["jobId"] {
				t.Fatalf("the other API process did not replay the export start: %d %v, want job %v", code, again, job["jobId"])
			}
		}
	}

	// Progress of the big export, polled alternately from both API
	// processes (each asked again only after its status cache expired),
	// never goes back and moves as seen from each.
	big := projects[0]
	lastP, lastN := -1.0, -1.0
	seen := map[string]map[float64]bool{apis[0].name: {}, apis[1].name: {}}
	deadline := time.Now().Add(60 * time.Second)
	for i := 0; ; i++ {
		api := apis[i%2]
		code, j, _ := call(t, "GET", api.url+"/v1/static-export/jobs/"+exports[0], big.key, nil)
		if code != 200 {
			t.Fatalf("export %s on %s: %d %v", exports[0], api.name, code, j)
		}
		p, n := j["progress"].(float64), j["pageCount"].(float64)
		if p < lastP || n < lastN {
			t.Fatalf("%s reports progress %v and %v pages after %v and %v", api.name, p, n, lastP, lastN)
		}
		lastP, lastN = p, n
		seen[api.name][p] = true
		if j["status"] == "completed" || j["status"] == "failed" {
			if j["status"] != "completed" || n != 12 {
				t.Fatalf("big export: %v", j)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("big export not finished: %v", j)
		}
		time.Sleep(statusCacheGap / 2)
	}
	for name, s := range seen {
		t.Logf("%s reported progress %v", name, slices.Sorted(maps.Keys(s)))
		if len(s) < 3 {
			t.Errorf("%s reported the running export's progress only as %v", name, s)
		}
	}

	for i, p := range projects {
		if st := waitUpdateOn(t, apis, p.key, secondUpdates[i], 60*time.Second); st["status"] != "success" {
			t.Fatalf("second update of %s: %v", p.domain, st)
		}
		if j := waitExportOn(t, apis, p.key, exports[i], 60*time.Second); j["status"] != "completed" || j["pageCount"] != float64(p.pages) {
			t.Fatalf("export of %s: %v", p.domain, j)
		}
	}
	time.Sleep(statusCacheGap)

	// Every result reads the same from either API process; both sign a
	// link to the same bundle, and both links download it.
	for i, p := range projects {
		for _, id := range []string{updates[i], secondUpdates[i]} {
			_, a, _ := call(t, "GET", apis[0].url+"/v1/project/update-status/"+id, p.key, nil)
			_, b, _ := call(t, "GET", apis[1].url+"/v1/project/update-status/"+id, p.key, nil)
			if fmt.Sprint(a) != fmt.Sprint(b) {
				t.Errorf("update %s reads differently:\n%s: %v\n%s: %v", id, apis[0].name, a, apis[1].name, b)
			}
		}
		_, a, _ := call(t, "GET", apis[0].url+"/v1/static-export/jobs/"+exports[i], p.key, nil)
		_, b, _ := call(t, "GET", apis[1].url+"/v1/static-export/jobs/"+exports[i], p.key, nil)
		if fmt.Sprint(a) != fmt.Sprint(b) {
			t.Errorf("export %s reads differently:\n%s: %v\n%s: %v", exports[i], apis[0].name, a, apis[1].name, b)
		}
		la, lb := bundleLink(t, apis[0].url, p.key, exports[i]), bundleLink(t, apis[1].url, p.key, exports[i])
		if la["sha256"] != lb["sha256"] || la["sizeBytes"] != lb["sizeBytes"] {
			t.Errorf("export %s: the API processes link different bundles: %v and %v", exports[i], la, lb)
		}
		for _, l := range []map[string]any{la, lb} {
			if m := download(t, l, p.domain+"-export-"); m.JobID != exports[i] || m.PageCount != p.pages {
				t.Errorf("bundle of %s: manifest %+v", exports[i], m)
			}
		}
		for _, api := range apis {
			if code, body := page(t, api.url, p.domain, "/quickstart"); code != 200 || !strings.Contains(body, "Revision rev-two of "+p.domain) {
				t.Errorf("%s serves %s/quickstart: %d %.200s", api.name, p.domain, code, body)
			}
		}
	}

	// Each job ran once, on one worker, at its first attempt.
	all := append(append([]string{}, updates...), exports...)
	events := jobEvents(workers...)
	perWorker := map[string]int{}
	for _, id := range all {
		ev := events[id]
		if len(ev) != 2 || ev[0].event != "started" || ev[1].event != "finished" || ev[0].worker != ev[1].worker ||
			ev[0].attempt != 1 || ev[1].attempt != 1 {
			t.Errorf("job %s ran %v, want started and finished once, at attempt 1, by one worker", id, ev)
			continue
		}
		perWorker[ev[0].worker]++
	}
	if len(events) != len(all) {
		t.Errorf("the workers ran %d jobs, want %d", len(events), len(all))
	}
	for _, w := range workers {
		if perWorker[w.name] == 0 {
			t.Errorf("%s ran no job (runs per worker: %v)", w.name, perWorker)
		}
		if l := w.logs.String(); strings.Contains(l, "retrying") || strings.Contains(l, "lease lost") || strings.Contains(l, "level=ERROR") {
			t.Errorf("%s retried, lost a lease or logged an error:\n%s", w.name, l)
		}
	}
	t.Logf("jobs run per worker: %v", perWorker)
	want := map[string]int{"update/done": len(updates), "export/done": len(exports)}
	// A worker counts a run just after it records the job's end.
	got := jobRuns(t, workers...)
	for deadline := time.Now().Add(5 * time.Second); fmt.Sprint(got) != fmt.Sprint(want) && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
		got = jobRuns(t, workers...)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("job runs counted by the workers: %v, want %v", got, want)
	}
	states := jobStates(t, db)
	for _, id := range all {
		if states[id] != "done/1" {
			t.Errorf("job %s is %s in the database, want done/1", id, states[id])
		}
	}
	if len(states) != len(all) {
		t.Errorf("the database holds %d jobs, want %d: %v", len(states), len(all), states)
	}
	for i, p := range projects {
		for _, id := range []string{updates[i], secondUpdates[i]} {
			if deps := deploymentsOf(t, db, id); len(deps) != 1 {
				t.Errorf("update %s recorded deployments %v, want one", id, deps)
			} else if id == secondUpdates[i] && liveDeployment(t, db, p.id) != deps[0] {
				t.Errorf("project %s: live deployment %s, want %s", p.id, liveDeployment(t, db, p.id), deps[0])
			}
		}
	}
}

// TestScaleOutWorkerKilled kills, with SIGKILL, the worker process running
// an export and then the one running an update, each in the middle of the
// job. The other worker takes the job over once its lease expires and
// completes it as its second attempt; meanwhile the bundle endpoint of
// both API processes answers job_not_completed until the archive is
// complete and linked, and the live site, read through both API processes
// all along, serves the complete old deployment until the complete new one
// replaces it. No job is left queued or running.
func TestScaleOutWorkerKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("runs and kills lectern processes")
	}
	t.Parallel()
	dsn := pgtest.URL(t)
	blobURL := s3URL(t)
	bin := lecternBinary(t)
	db := openDB(t, dsn)
	slow := []string{"--role", "worker", "--job-lease", "2s", "--render-page-delay", "300ms", "--update-page-delay", "250ms"}
	nodes := startNodes(t, bin, dsn, blobURL, []string{"api-a", "--role", "api"}, []string{"api-b", "--role", "api"},
		append([]string{"worker-a"}, slow...), append([]string{"worker-b"}, slow...))
	apis, workers := nodes[:2], nodes[2:]
	admin := func(args ...string) string {
		return lastLine(lectern(t, append([]string{"admin", "--database-url", dsn}, args...)...))
	}
	const domain, pages = "crash.scale.test", 8
	org := admin("org", "create", "--name", "Acme", "--plan", "enterprise")
	key := admin("key", "create", "--org", org, "--name", "ci")
	repo, _ := newRepo(t, revSite("rev-one", domain, pages))
	prj := admin("project", "create", "--org", org, "--name", "Docs", "--repo", repo, "--domain", domain)
	first := trigger(t, apis[0].url, key, prj)
	if st := waitUpdateOn(t, apis, key, first, 60*time.Second); st["status"] != "success" {
		t.Fatalf("first update: %v", st)
	}

	// runningOn returns the worker that started the job's first attempt.
	runningOn := func(id string) *node {
		for _, e := range jobEvents(workers...)[id] {
			if e.event == "started" && e.attempt == 1 {
				for _, w := range workers {
					if w.name == e.worker {
						return w
					}
				}
			}
		}
		return nil
	}
	// takenOver checks that the job's first attempt never finished and its
	// second, on another worker, did, and that the database counts two.
	takenOver := func(id string, killed *node) {
		t.Helper()
		ev := jobEvents(workers...)[id]
		var finished []jobEvent
		for _, e := range ev {
			if e.event == "finished" {
				finished = append(finished, e)
			}
		}
		if len(finished) != 1 || finished[0].attempt != 2 || finished[0].worker == killed.name {
			t.Errorf("job %s: %v, want one finished run, the second attempt, not on the killed %s", id, ev, killed.name)
		}
		if st := jobStates(t, db)[id]; st != "done/2" {
			t.Errorf("job %s is %s in the database, want done/2", id, st)
		}
	}

	// An export: the worker running it is killed once it has rendered a
	// page. One loop polls the job and asks for its bundle, alternately on
	// the two API processes, each asked again only after its status cache
	// expired.
	code, job, _ := call(t, "POST", apis[0].url+"/v1/static-export/jobs", key, map[string]any{"domain": domain})
	if code != 202 {
		t.Fatalf("start export: %d %v", code, job)
	}
	exp := job["jobId"].(string)
	var killed *node
	var killedAt time.Time
	var sha string
	lastP, rank := -1.0, map[string]int{"queued": 0, "running": 1, "completed": 2}
	lastRank := 0
	downloaded := map[string]bool{}
	deadline := time.Now().Add(60 * time.Second)
	for i := 0; len(downloaded) < 2; i++ {
		if time.Now().After(deadline) {
			t.Fatalf("export not completed and linked by both API processes; last status rank %d, progress %v", lastRank, lastP)
		}
		api := apis[i%2]
		code, j, _ := call(t, "GET", api.url+"/v1/static-export/jobs/"+exp, key, nil)
		if code != 200 || j["status"] == "failed" {
			t.Fatalf("export on %s: %d %v", api.name, code, j)
		}
		p, r := j["progress"].(float64), rank[j["status"].(string)]
		if p < lastP || r < lastRank {
			t.Fatalf("%s reports %v at %v%% after rank %d at %v%%", api.name, j["status"], p, lastRank, lastP)
		}
		lastP, lastRank = p, r
		code, link, _ := call(t, "POST", api.url+"/v1/static-export/jobs/"+exp+"/bundle", key, nil)
		switch {
		case code == 409 && link["code"] == "job_not_completed" && sha == "" && j["status"] != "completed":
		case code == 200:
			if sha == "" {
				sha = link["sha256"].(string)
			}
			if link["sha256"] != sha {
				t.Fatalf("%s links a bundle with sha256 %v, earlier %v", api.name, link["sha256"], sha)
			}
			if !downloaded[api.name] {
				if m := download(t, link, domain+"-export-"); m.JobID != exp || m.PageCount != pages {
					t.Fatalf("bundle manifest %+v", m)
				}
				downloaded[api.name] = true
			}
		default:
			t.Fatalf("bundle of %v export on %s (bundle linked before: %t): %d %v", j["status"], api.name, sha != "", code, link)
		}
		if killed == nil && j["status"] == "running" && p > 0 {
			if killed = runningOn(exp); killed == nil {
				t.Fatalf("export %s is running but no worker logged its start", exp)
			}
			killed.kill(t)
			killedAt = time.Now()
			t.Logf("killed %s at %v%% of export %s", killed.name, p, exp)
		}
		time.Sleep(statusCacheGap / 2)
	}
	if killed == nil {
		t.Fatal("the export was never seen running, so no worker was killed")
	}
	if took := time.Since(killedAt); took > 15*time.Second {
		t.Errorf("the export was completed %s after its worker was killed, with a 2s lease", took)
	} else {
		t.Logf("the export was completed and linked %s after the kill", took.Round(time.Millisecond))
	}
	takenOver(exp, killed)

	// A new worker replaces the killed one; the update's turn.
	survivor := workers[0]
	if survivor == killed {
		survivor = workers[1]
	}
	workers = append([]*node{survivor}, startNodes(t, bin, dsn, blobURL, append([]string{"worker-c"}, slow...))...)

	// An update to a new revision: the worker building it is killed while
	// it renders. A reader asks the live site, through both API processes,
	// for pages of both revisions all along: every answer is a whole
	// revision, the old one until the new one is live.
	commitRev(t, repo, "rev-two", domain, pages)
	revPages := map[string][]string{
		"rev-one": {"/", "/quickstart", "/guides/only-rev-one", "/guides/page-05"},
		"rev-two": {"/", "/quickstart", "/guides/only-rev-two", "/guides/page-05"},
	}
	paths := []string{"/", "/quickstart", "/guides/only-rev-one", "/guides/only-rev-two", "/guides/page-05"}
	stopReader := make(chan struct{})
	readerDone := make(chan map[string]int)
	go func() {
		counts, current := map[string]int{}, "rev-one"
		defer func() { readerDone <- counts }()
		for i := 0; ; i++ {
			select {
			case <-stopReader:
				return
			default:
			}
			api, path := apis[i%2], paths[i%len(paths)]
			req, _ := http.NewRequest("GET", api.url+path, nil)
			req.Host = domain
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Errorf("live site %s on %s: %v", path, api.name, err)
				return
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			rev := ""
			for _, r := range []string{"rev-one", "rev-two"} {
				if bytes.Contains(body, []byte("Docs "+r)) {
					rev += r
				}
			}
			want := 404
			if rev != "" && slices.Contains(revPages[rev], path) {
				want = 200
			}
			switch {
			case rev != "rev-one" && rev != "rev-two", resp.StatusCode != want:
				t.Errorf("live site %s on %s: %d of revision %q, want a whole revision", path, api.name, resp.StatusCode, rev)
				return
			case rev == "rev-one" && current == "rev-two":
				t.Errorf("live site %s on %s went back to rev-one after serving rev-two", path, api.name)
				return
			}
			current = rev
			counts[rev]++
			time.Sleep(5 * time.Millisecond)
		}
	}()

	upd := trigger(t, apis[1].url, key, prj)
	var victim *node
	deadline = time.Now().Add(30 * time.Second)
	for i := 0; victim == nil; i++ {
		_, st, _ := call(t, "GET", apis[i%2].url+"/v1/project/update-status/"+upd, key, nil)
		if st["status"] != "queued" && st["status"] != "in_progress" {
			t.Fatalf("update ended before its worker could be killed: %v", st)
		}
		if st["status"] == "in_progress" {
			victim = runningOn(upd)
		}
		if time.Now().After(deadline) {
			t.Fatalf("update never seen in progress: %v", st)
		}
		time.Sleep(30 * time.Millisecond)
	}
	time.Sleep(700 * time.Millisecond) // into rendering: 8 pages at 250ms each
	if _, st, _ := call(t, "GET", apis[0].url+"/v1/project/update-status/"+upd, key, nil); st["status"] != "in_progress" {
		t.Fatalf("update no longer in progress when its worker was to be killed: %v", st)
	}
	victim.kill(t)
	killedAt = time.Now()
	t.Logf("killed %s during update %s", victim.name, upd)
	st := waitUpdateOn(t, apis, key, upd, 30*time.Second)
	if st["status"] != "success" {
		t.Fatalf("update after the kill: %v", st)
	}
	if took := time.Since(killedAt); took > 15*time.Second {
		t.Errorf("the update succeeded %s after its worker was killed, with a 2s lease", took)
	} else {
		t.Logf("the update succeeded %s after the kill", took.Round(time.Millisecond))
	}
	time.Sleep(300 * time.Millisecond) // the reader sees the new revision
	close(stopReader)
	counts := <-readerDone
	t.Logf("live site answers per revision while the update ran: %v", counts)
	if counts["rev-one"] == 0 || counts["rev-two"] == 0 {
		t.Errorf("the live site was read %v times per revision, want both", counts)
	}
	takenOver(upd, victim)
	deps := deploymentsOf(t, db, upd)
	if len(deps) != 1 || liveDeployment(t, db, prj) != deps[0] {
		t.Errorf("update %s recorded deployments %v; live is %s", upd, deps, liveDeployment(t, db, prj))
	}

	// Nothing is left queued or running, in the database or the gauge.
	for id, s := range jobStates(t, db) {
		if !strings.HasPrefix(s, "done/") {
			t.Errorf("job %s is left %s", id, s)
		}
	}
	alive := workers[0]
	if alive == victim {
		alive = workers[1]
	}
	m := metrics(t, alive.url)
	for _, kind := range []string{"update", "export"} {
		for _, state := range []string{"queued", "running"} {
			if line := fmt.Sprintf(`lectern_jobs{kind=%q,state=%q} 0`, kind, state); !strings.Contains(m, line) {
				t.Errorf("jobs gauge lacks %s:\n%s", line, grep(m, "lectern_jobs{"))
			}
		}
	}
}
