package storetest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

// The claim benchmarks of every store (issue 22: figures only; the target
// is a fair claim at least as fast as the claim it replaced). A queue of
// 10,000 jobs is claimed by workers at once, round after round, by the
// store's ClaimJob ("fair") and, on a table filled the same way, by the
// claim before issue 22 that the store's benchmark file keeps as a
// baseline ("today": the oldest available job, one queue for every
// organization). Each worker keeps the job it claimed running (under its
// lease) until its next claim. Between rounds, with the timer stopped,
// each worker ends the job it held, and for each job claimed a new one of
// the same organization and project is queued, as a new trigger would (its
// project is busy until the claimed job ends), so the queue keeps its
// 10,000 jobs. Both claims do exactly this same work; only the claims are
// timed.

// ClaimQueue is one shape of the benchmarks' queue.
type ClaimQueue struct {
	Name string
	// BigJobs queued jobs belong to one organization, and SmallOrgs other
	// organizations have SmallJobs each, spread evenly among them by age.
	BigJobs, SmallOrgs, SmallJobs int
	// Done finished jobs are in the table too, older than the queued ones:
	// an update's job is kept once done, so a busy server's table holds
	// many more finished jobs than queued ones.
	Done int
	// Workers claim at once in each round.
	Workers int
}

// ClaimQueues are the shapes BenchClaim10k measures.
var ClaimQueues = []ClaimQueue{
	{Name: "orgs=101/workers=1", BigJobs: 9000, SmallOrgs: 100, SmallJobs: 10, Workers: 1},
	{Name: "orgs=101/workers=4", BigJobs: 9000, SmallOrgs: 100, SmallJobs: 10, Workers: 4},
	{Name: "orgs=1/workers=1", BigJobs: 10000, Workers: 1},
	{Name: "orgs=101+done=100k/workers=1", BigJobs: 9000, SmallOrgs: 100, SmallJobs: 10, Done: 100000, Workers: 1},
	{Name: "orgs=101+done=100k/workers=4", BigJobs: 9000, SmallOrgs: 100, SmallJobs: 10, Done: 100000, Workers: 4},
}

// ClaimOrgLimit is the fair claim's limit of jobs running per organization
// in the benchmarks: lectern serve's default --org-jobs.
const ClaimOrgLimit = 2

// BenchJob is one row of the jobs table the claim benchmarks fill.
type BenchJob struct {
	ID, Kind, GroupKey, OrgID string
	// State is queued or done.
	State     string
	Priority  int
	CreatedAt time.Time
}

// Jobs returns q's rows for the organizations orgs (the busy one first,
// then at least q.SmallOrgs others): the queued jobs a millisecond apart,
// the newest an hour before now, every tenth one of a small organization
// (when there are any); and the done ones, older still, nine in ten of the
// busy organization. One job in ten is an export (no group, priority 1);
// every update has a project of its own.
func (q ClaimQueue) Jobs(now time.Time, orgs []string) []BenchJob {
	queued := q.BigJobs + q.SmallOrgs*q.SmallJobs
	small := 0
	if q.SmallOrgs > 0 {
		small = queued / (q.SmallOrgs * q.SmallJobs)
	}
	first := now.Add(-time.Hour).Add(-time.Duration(queued+q.Done) * time.Millisecond)
	jobs := make([]BenchJob, 0, queued+q.Done)
	add := func(i int, org, state string) {
		j := BenchJob{ID: fmt.Sprintf("job_%07d", i), Kind: store.KindUpdate, GroupKey: fmt.Sprintf("prj_%07d", i),
			OrgID: org, State: state, CreatedAt: first.Add(time.Duration(i) * time.Millisecond)}
		if (i+i/10)%10 == 3 {
			j.Kind, j.GroupKey = store.KindExport, ""
		}
		j.Priority = store.JobPriority(j.Kind)
		jobs = append(jobs, j)
	}
	for i := range q.Done {
		org := orgs[0]
		if i%10 == 5 && q.SmallOrgs > 0 {
			org = orgs[1+i/10%q.SmallOrgs]
		}
		add(i, org, "done")
	}
	smallSeen := 0
	for k := range queued {
		org := orgs[0]
		if small > 0 && k%small == small/2 && smallSeen < q.SmallOrgs*q.SmallJobs {
			org = orgs[1+smallSeen%q.SmallOrgs]
			smallSeen++
		}
		add(q.Done+k, org, "queued")
	}
	return jobs
}

// ClaimTable is what the claim benchmarks need of a store besides its
// claims: rows written straight into its jobs table.
type ClaimTable interface {
	// InsertJobs adds the rows (queued ones due at their creation).
	InsertJobs(ctx context.Context, jobs []BenchJob) error
	// EndJob marks job id done and drops its lease, as its worker does.
	EndJob(ctx context.Context, id string) error
}

// ClaimFunc claims a job as store.Jobs.ClaimJob does.
type ClaimFunc func(ctx context.Context, p store.ClaimParams) (*store.Job, store.Lease, error)

// ClaimBench is one store's side of BenchClaim10k: a fresh, empty store
// for each measurement, its table, and its two claims on it.
type ClaimBench struct {
	// Open returns a fresh store, its table, the claim before issue 22
	// (today) and its ClaimJob (fair), all on the same database.
	Open func(b *testing.B) (st store.Store, t ClaimTable, today, fair ClaimFunc)
}

// ClaimResult is what one measurement found.
type ClaimResult struct {
	Claims, Empty int
	PerSecond     float64 // claims per second of claiming
	MeanMS        float64 // mean time of one claim
	SmallShare    float64 // percentage of the claims given to the small organizations
}

// BenchClaim10k measures every queue of ClaimQueues with both claims of cb,
// side by side, and prints a table of the figures (on the standard output:
// a parent benchmark's log shows only with -v).
func BenchClaim10k(b *testing.B, cb ClaimBench) {
	type row struct {
		name        string
		today, fair ClaimResult
	}
	var rows []row
	for _, q := range ClaimQueues {
		r := row{name: q.Name}
		for _, side := range []string{"today", "fair"} {
			b.Run(q.Name+"/"+side, func(b *testing.B) {
				st, t, today, fair := cb.Open(b)
				claim, limit := today, 0
				if side == "fair" {
					claim, limit = fair, ClaimOrgLimit
				}
				res := benchClaims(b, st, t, claim, limit, q)
				if side == "fair" {
					r.fair = res
				} else {
					r.today = res
				}
			})
		}
		rows = append(rows, r)
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "claims of 10,000 queued jobs (fair: --org-jobs %d; today: the claim before issue 22)\n", ClaimOrgLimit)
	fmt.Fprintf(&sb, "| %-30s | %12s | %12s | %10s | %10s | %10s | %11s | %11s |\n", "queue", "today cl/s", "fair cl/s", "fair/today",
		"today ms", "fair ms", "today small", "fair small")
	for _, r := range rows {
		ratio := "-"
		if r.today.PerSecond > 0 {
			ratio = fmt.Sprintf("%.2fx", r.fair.PerSecond/r.today.PerSecond)
		}
		fmt.Fprintf(&sb, "| %-30s | %12.0f | %12.0f | %10s | %10.3f | %10.3f | %10.1f%% | %10.1f%% |\n", r.name,
			r.today.PerSecond, r.fair.PerSecond, ratio, r.today.MeanMS, r.fair.MeanMS, r.today.SmallShare, r.fair.SmallShare)
	}
	fmt.Print(sb.String())
}

// benchClaims fills st's table with q's jobs and claims them with claim,
// q.Workers at once per round, checking that no claim hands out a job of
// a project that has another job running, nor (limit > 0) more jobs of
// one organization than limit at once.
func benchClaims(b *testing.B, st store.Store, t ClaimTable, claim ClaimFunc, limit int, q ClaimQueue) ClaimResult {
	ctx := context.Background()
	orgs := make([]string, 1+q.SmallOrgs)
	for i := range orgs {
		o := &lectern.Organization{Name: fmt.Sprintf("Org %d", i), Plan: lectern.PlanPro}
		if err := st.CreateOrg(ctx, o); err != nil {
			b.Fatal(err)
		}
		orgs[i] = o.ID
	}
	seed := q.Jobs(time.Now(), orgs)
	if err := t.InsertJobs(ctx, seed); err != nil {
		b.Fatal(err)
	}
	rows := make(map[string]BenchJob, len(seed))
	for _, j := range seed {
		rows[j.ID] = j
	}
	small := map[string]bool{}
	for _, o := range orgs[1:] {
		small[o] = true
	}
	held := make([]*store.Job, q.Workers) // each worker's running job
	got := make([]*store.Job, q.Workers)
	took := make([]time.Duration, q.Workers)
	errs := make([]error, q.Workers)
	var res ClaimResult
	var claiming time.Duration
	var smallClaims, next int
	for b.Loop() {
		var wg sync.WaitGroup
		for w := range q.Workers {
			wg.Go(func() {
				p := store.ClaimParams{Kinds: []string{store.KindUpdate, store.KindExport}, Owner: fmt.Sprintf("bench-%d", w),
					Now: time.Now(), LeaseFor: 15 * time.Second, OrgLimit: limit}
				t0 := time.Now()
				got[w], _, errs[w] = claim(ctx, p)
				took[w] = time.Since(t0)
			})
		}
		wg.Wait()
		b.StopTimer()
		running := map[string]int{}
		groups := map[string]string{}
		for _, h := range held {
			if h != nil {
				running[rows[h.ID].OrgID]++
				if h.GroupKey != "" {
					groups[h.GroupKey] = h.ID
				}
			}
		}
		var queue []BenchJob
		for w, j := range got {
			if errs[w] != nil {
				b.Fatalf("claim: %v", errs[w])
			}
			claiming += took[w]
			if j == nil {
				res.Empty++
				continue
			}
			row, ok := rows[j.ID]
			if !ok {
				b.Fatalf("claimed %s, a job the benchmark did not queue", j.ID)
			}
			if other, busy := groups[j.GroupKey]; busy {
				b.Fatalf("claimed %s of project %s while %s of it runs", j.ID, j.GroupKey, other)
			}
			if j.GroupKey != "" {
				groups[j.GroupKey] = j.ID
			}
			running[row.OrgID]++
			if limit > 0 && running[row.OrgID] > limit {
				b.Fatalf("claimed %s: %d jobs of organization %s run at once, over its limit of %d", j.ID, running[row.OrgID], row.OrgID, limit)
			}
			res.Claims++
			if small[row.OrgID] {
				smallClaims++
			}
			next++
			queue = append(queue, BenchJob{ID: fmt.Sprintf("job_new_%07d", next), Kind: row.Kind, GroupKey: row.GroupKey,
				OrgID: row.OrgID, State: "queued", Priority: row.Priority, CreatedAt: time.Now()})
		}
		for w, j := range got {
			if h := held[w]; h != nil {
				if err := t.EndJob(ctx, h.ID); err != nil {
					b.Fatal(err)
				}
			}
			held[w] = j
		}
		if err := t.InsertJobs(ctx, queue); err != nil {
			b.Fatal(err)
		}
		for _, j := range queue {
			rows[j.ID] = j
		}
		b.StartTimer()
	}
	if res.Claims == 0 {
		b.Fatal("no job was claimed")
	}
	res.PerSecond = float64(res.Claims) / b.Elapsed().Seconds()
	res.MeanMS = claiming.Seconds() * 1000 / float64(res.Claims+res.Empty)
	res.SmallShare = 100 * float64(smallClaims) / float64(res.Claims)
	b.ReportMetric(res.PerSecond, "claims/s")
	b.ReportMetric(res.MeanMS, "ms/claim")
	b.ReportMetric(res.SmallShare, "small-org-%")
	if res.Empty > 0 {
		b.ReportMetric(float64(res.Empty), "empty-claims")
	}
	return res
}
