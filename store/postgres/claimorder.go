package postgres

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

// orderFor is how long a Store claims in the order of the organizations
// it last read (readClaimOrder) before it reads it again, by the claims'
// clock (ClaimParams.Now) and by its own: reading it is most of a
// claim's cost when many organizations wait (one index probe for each),
// and a worker claims many jobs in that time. The order is kept up to
// date with the Store's own claims; what other processes claimed, and
// organizations whose first job was queued by another process, show in
// the next read. A claim that finds no job in a kept order reads it
// again before it gives up, so a kept order delays no job: it only
// orders organizations by what was running up to orderFor ago.
const orderFor = 250 * time.Millisecond

// claimOrders are a Store's last reads of the organizations' order, by
// the kinds claimed (joined), and the organizations its claims try now.
type claimOrders struct {
	mu     sync.Mutex
	kept   map[string]*keptOrder
	trying map[string]int
}

// keptOrder is an order read, and when: by the claim's clock, and by
// this process's (a test's claims may all be of one time).
type keptOrder struct {
	read, readHere time.Time
	orgs           []orgOrder
}

// orgOrder is an organization of the order: its plan, its jobs running,
// when it last claimed one (zero for never), whether it has a job whose
// lease expired, and its jobs queued.
type orgOrder struct {
	id, plan string
	running  int
	claimed  time.Time
	expired  bool
	queued   int // its jobs queued, at most 2 read
}

// readClaimOrder returns the organizations that may have an available job
// (queued ones, listed by a skip scan of the index jobs_queue, and those
// with a lease expired), in the order ClaimJob serves them: fewest jobs
// of p's kinds running, then the oldest last claim (none first), then by
// id; with their plans, jobs running, whether they have a job whose lease
// expired, when they last claimed one and their jobs queued (at most two
// counted). It is read outside the claim's transaction: pickAndLease
// checks the limit again.
func readClaimOrder(ctx context.Context, db *pgxpool.Pool, p store.ClaimParams, at time.Time) ([]orgOrder, error) {
	rows, err := db.Query(ctx, claimOrderSQL, at, p.Kinds)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var orgs []orgOrder
	for rows.Next() {
		var o orgOrder
		var claimed *time.Time
		if err := rows.Scan(&o.id, &o.plan, &o.running, &o.expired, &claimed, &o.queued); err != nil {
			return nil, err
		}
		if claimed != nil {
			o.claimed = utc(*claimed)
		}
		orgs = append(orgs, o)
	}
	return orgs, rows.Err()
}

// order returns the organizations to try, in order, for a claim of p at
// at: those under their limit, then (from an order kept) a few at it;
// and whether they come from an order kept (not read now, nor when fresh
// is set).
func (c *claimOrders) order(ctx context.Context, db *pgxpool.Pool, p store.ClaimParams, at time.Time, fresh bool) ([]claimant, bool, error) {
	kinds := strings.Join(p.Kinds, ",")
	c.mu.Lock()
	k := c.kept[kinds]
	kept := !fresh && k != nil && len(k.orgs) > 0 && !at.Before(k.read) && at.Sub(k.read) < orderFor &&
		time.Since(k.readHere) < orderFor
	c.mu.Unlock()
	if !kept {
		orgs, err := readClaimOrder(ctx, db, p, at)
		if err != nil {
			return nil, false, err
		}
		k = &keptOrder{read: at, readHere: time.Now(), orgs: orgs}
		c.mu.Lock()
		if c.kept == nil {
			c.kept = map[string]*keptOrder{}
		}
		c.kept[kinds] = k
		c.mu.Unlock()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var free, full []claimant
	for _, o := range k.orgs {
		cl := claimant{id: o.id, limit: p.LimitFor(lectern.Plan(o.plan)), expired: o.expired, queued: o.queued}
		switch {
		case cl.limit == 0 || o.running < cl.limit:
			free = append(free, cl)
		case kept && len(full) < maxFullTries:
			// At its limit when read, or by the Store's claims since:
			// its jobs may have ended since, which the order kept does
			// not know (pickAndLease checks).
			full = append(full, cl)
		}
	}
	return append(free, full...), kept, nil
}

// maxFullTries bounds the organizations at their limit in an order kept
// that a claim tries, after the others, before it reads the order again.
const maxFullTries = 2

// start and end bracket a claim's try of organization org. start
// reports whether no other claim of the Store tries org now, unless
// anyway is set (a claim that found no other): claims at once go to
// different organizations, not to the same one's lock. end says whether
// it got a job at at, which moves org down the order kept (one more job
// running, claimed last), or not, which drops org from it until the
// next read (it has no job available now), unless another claim of the
// Store tries it still.
func (c *claimOrders) start(org string, anyway bool) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.trying[org] > 0 && !anyway {
		return false
	}
	if c.trying == nil {
		c.trying = map[string]int{}
	}
	c.trying[org]++
	return true
}

func (c *claimOrders) end(org string, claimed bool, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.trying[org]--; c.trying[org] <= 0 {
		delete(c.trying, org)
	} else if !claimed {
		return // (the other claim's end says)
	}
	for _, k := range c.kept {
		k.end(org, claimed, at)
	}
}

// end moves org in k as claimOrders.end says.
func (k *keptOrder) end(org string, claimed bool, at time.Time) {
	i := slices.IndexFunc(k.orgs, func(o orgOrder) bool { return o.id == org })
	if i < 0 {
		return
	}
	o := k.orgs[i]
	k.orgs = slices.Delete(k.orgs, i, i+1)
	if !claimed {
		return
	}
	o.running++
	o.claimed = at
	o.queued = max(o.queued-1, 0)
	// Back in the order, after those it now comes after.
	j := i
	for j < len(k.orgs) && !orderBefore(o, k.orgs[j]) {
		j++
	}
	k.orgs = slices.Insert(k.orgs, j, o)
}

// orderBefore reports whether a comes before b in readClaimOrder's order, as
// far as a claim changes it (an organization that just claimed goes
// after those with as many jobs running that claimed no later).
func orderBefore(a, b orgOrder) bool {
	if a.running != b.running {
		return a.running < b.running
	}
	return a.claimed.Before(b.claimed)
}

// forget drops the orders kept: an update or export was queued, whose
// organization a claim of the Store then finds at once. (Other jobs
// queued, webhook deliveries and retries, show in the next read.)
func (c *claimOrders) forget() {
	c.mu.Lock()
	clear(c.kept)
	c.mu.Unlock()
}
