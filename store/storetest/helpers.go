package storetest

import (
	"context"
	"crypto/sha256"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

// now returns the current time in UTC, one second ahead so that records the
// store has just stamped with its own clock are already due.
func now() time.Time { return time.Now().UTC().Add(time.Second) }

// us truncates a time to the microsecond precision the stores keep.
func us(t time.Time) time.Time { return t.Truncate(time.Microsecond) }

// sameTime reports whether two times are equal at microsecond precision.
func sameTime(a, b time.Time) bool { return us(a).Equal(us(b)) }

func wantTime(t *testing.T, what string, got, want time.Time) {
	t.Helper()
	if !sameTime(got, want) {
		t.Errorf("%s = %v, want %v", what, got, us(want))
	}
}

func wantTimePtr(t *testing.T, what string, got *time.Time, want time.Time) {
	t.Helper()
	if got == nil {
		t.Errorf("%s = nil, want %v", what, us(want))
		return
	}
	wantTime(t, what, *got, want)
}

// wantCode fails the test unless err carries the lectern error code.
func wantCode(t *testing.T, err error, code, what string) {
	t.Helper()
	if got := lectern.ErrorCode(err); got != code {
		t.Errorf("%s: error code %q (err %v), want %q", what, got, err, code)
	}
}

// must fails the test at once on an unexpected error.
func must(t *testing.T, err error, what string) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// unique returns a short unique lower-case token.
func unique() string { return strings.TrimPrefix(lectern.NewID("x_"), "x_") }

// domain returns a fresh, normalized domain name.
func domain() string { return "docs-" + unique() + ".example.com" }

// missingID returns a well-formed ID that names nothing.
func missingID(prefix string) string { return lectern.NewID(prefix) }

func newOrg(t *testing.T, s store.Store) *lectern.Organization {
	t.Helper()
	o := &lectern.Organization{Name: "Org " + unique(), Plan: lectern.PlanEnterprise}
	must(t, s.CreateOrg(t.Context(), o), "CreateOrg")
	return o
}

// newProject stores a project of orgID with the given domains, or one fresh
// domain when none is given.
func newProject(t *testing.T, s store.Store, orgID string, domains ...string) *lectern.Project {
	t.Helper()
	if len(domains) == 0 {
		domains = []string{domain()}
	}
	p := &lectern.Project{
		OrgID:          orgID,
		Name:           "Project " + unique(),
		RepoURL:        "https://git.example.com/acme/docs.git",
		Branch:         "main",
		DocsRoot:       "docs",
		Domains:        domains,
		DeploymentType: lectern.DeploymentCloud,
	}
	must(t, s.CreateProject(t.Context(), p), "CreateProject")
	return p
}

func newKey(t *testing.T, s store.Store, orgID string) *lectern.APIKey {
	t.Helper()
	secret := "lct_" + unique()
	h := sha256.Sum256([]byte(secret))
	k := &lectern.APIKey{OrgID: orgID, Name: "key " + unique(), Hint: secret[:8], Hash: h[:]}
	must(t, s.CreateAPIKey(t.Context(), k), "CreateAPIKey")
	return k
}

func newUpdate(t *testing.T, s store.Store, p *lectern.Project) *lectern.Update {
	t.Helper()
	u := &lectern.Update{ProjectID: p.ID, OrgID: p.OrgID, Status: lectern.UpdateQueued, Source: "api"}
	must(t, s.CreateUpdate(t.Context(), u), "CreateUpdate")
	return u
}

// newExport stores a queued export of dom (a domain of p); a zero createdAt
// lets the store stamp it.
func newExport(t *testing.T, s store.Store, p *lectern.Project, dom string, createdAt time.Time) *lectern.ExportJob {
	t.Helper()
	e := &lectern.ExportJob{
		OrgID:     p.OrgID,
		ProjectID: p.ID,
		Domain:    dom,
		BasePath:  "/docs",
		Status:    lectern.ExportQueued,
		CreatedAt: createdAt,
		UpdatedAt: createdAt,
	}
	must(t, s.CreateExport(t.Context(), e, store.ExportQuota{}), "CreateExport "+dom)
	return e
}

// mustGet returns get(key), the record a store's Get method reads, failing
// the test on an error.
func mustGet[K, T any](t *testing.T, get func(context.Context, K) (T, error), key K) T {
	t.Helper()
	v, err := get(t.Context(), key)
	must(t, err, fmt.Sprintf("reading %v", key))
	return v
}

// claim calls ClaimJob and fails the test on an error or on a job returned
// with an inconsistent lease.
func claim(t *testing.T, s store.Store, kind, owner string, at time.Time, leaseFor time.Duration) (*store.Job, store.Lease) {
	t.Helper()
	j, l, err := s.ClaimJob(t.Context(), store.ClaimParams{Kinds: []string{kind}, Owner: owner, Now: at, LeaseFor: leaseFor})
	must(t, err, "ClaimJob")
	if j == nil {
		if l != (store.Lease{}) {
			t.Errorf("ClaimJob returned no job but lease %+v, want the zero Lease", l)
		}
		return nil, l
	}
	if j.Kind != kind {
		t.Errorf("ClaimJob(Kinds [%s]) returned job %s of kind %q", kind, j.ID, j.Kind)
	}
	if l.JobID != j.ID || l.Owner != owner {
		t.Errorf("ClaimJob: lease %+v does not name job %s and owner %q", l, j.ID, owner)
	}
	return j, l
}

// mustClaim claims a job and fails at once when there is none.
func mustClaim(t *testing.T, s store.Store, kind, owner string, at time.Time, leaseFor time.Duration) (*store.Job, store.Lease) {
	t.Helper()
	j, l := claim(t, s, kind, owner, at, leaseFor)
	if j == nil {
		t.Fatalf("ClaimJob(%s, owner %s, now %v): no job, want one", kind, owner, at)
	}
	return j, l
}

// mustClaimID claims a job and fails at once unless it is the job id.
func mustClaimID(t *testing.T, s store.Store, kind, owner, id string, at time.Time, leaseFor time.Duration) (*store.Job, store.Lease) {
	t.Helper()
	j, l := mustClaim(t, s, kind, owner, at, leaseFor)
	if j.ID != id {
		t.Fatalf("ClaimJob returned job %s, want %s", j.ID, id)
	}
	return j, l
}

// claimNone fails the test when ClaimJob returns a job.
func claimNone(t *testing.T, s store.Store, kind, owner string, at time.Time, why string) {
	t.Helper()
	if j, _ := claim(t, s, kind, owner, at, time.Minute); j != nil {
		t.Errorf("ClaimJob(%s, now %v) returned job %s (attempt %d); want none: %s", kind, at, j.ID, j.Attempt, why)
	}
}

// drain claims every available job of kind at the given time and returns
// their IDs.
func drain(t *testing.T, s store.Store, kind string, at time.Time) []string {
	t.Helper()
	var ids []string
	for i := 0; ; i++ {
		if i > 1000 {
			t.Fatalf("ClaimJob keeps returning jobs: %v", ids[:10])
		}
		j, _ := claim(t, s, kind, fmt.Sprintf("drainer-%d", i), at, time.Hour)
		if j == nil {
			return ids
		}
		ids = append(ids, j.ID)
	}
}

func sorted(ss []string) []string {
	ss = slices.Clone(ss)
	slices.Sort(ss)
	return ss
}

func sameSet(a, b []string) bool { return slices.Equal(sorted(a), sorted(b)) }
