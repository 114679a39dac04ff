package postgres_test

import (
	"fmt"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
	"lectern.dev/lectern/store/postgres"
	"lectern.dev/lectern/store/postgres/pgtest"
)

// TestClaimOrderKeptAcrossProcesses checks what a Store's kept order of
// the organizations (claimorder.go) may and may not do when another
// process queues jobs: an organization it does not know yet is served
// at once when the order kept has no job left, and first (it has
// nothing running) once the order is OrderFor old.
func TestClaimOrderKeptAcrossProcesses(t *testing.T) {
	pgtest.BaseURL(t)
	dsn := pgtest.URL(t)
	open := func() *postgres.Store {
		s, err := postgres.Open(t.Context(), dsn)
		if err != nil {
			t.Fatalf("postgres.Open: %v", err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	s1, s2 := open(), open() // two processes
	org := func() *lectern.Organization {
		o := &lectern.Organization{Name: "Org " + lectern.NewID("x_"), Plan: lectern.PlanEnterprise}
		if err := s1.CreateOrg(t.Context(), o); err != nil {
			t.Fatal(err)
		}
		return o
	}
	update := func(s *postgres.Store, o *lectern.Organization) string {
		p := &lectern.Project{OrgID: o.ID, Name: "Project " + lectern.NewID("x_"), RepoURL: "https://git.example.com/a/docs.git",
			Branch: "main", Domains: []string{fmt.Sprintf("docs-%s.example.com", lectern.NewID("x"))}, DeploymentType: lectern.DeploymentCloud}
		if err := s.CreateProject(t.Context(), p); err != nil {
			t.Fatal(err)
		}
		u := &lectern.Update{ProjectID: p.ID, OrgID: o.ID, Status: lectern.UpdateQueued, Source: "api"}
		if err := s.CreateUpdate(t.Context(), u); err != nil {
			t.Fatal(err)
		}
		return u.ID
	}
	claim := func(s *postgres.Store, at time.Time) string {
		t.Helper()
		j, _, err := s.ClaimJob(t.Context(), store.ClaimParams{Kinds: []string{store.KindUpdate}, Owner: "w", Now: at, LeaseFor: time.Hour, OrgLimit: 5})
		if err != nil {
			t.Fatal(err)
		}
		if j == nil {
			return ""
		}
		return j.ID
	}
	t0 := time.Now().UTC().Add(time.Second) // (after the jobs' creation)

	// The order kept runs dry: the organization queued since is read.
	a, b := org(), org()
	a1 := update(s1, a)
	if got := claim(s1, t0); got != a1 {
		t.Fatalf("first claim = %q, want %s", got, a1)
	}
	b1 := update(s2, b)
	if got := claim(s1, t0); got != b1 {
		t.Errorf("claim after another process queued the only job = %q, want %s", got, b1)
	}

	// The order kept still has jobs: once it is OrderFor old, the
	// organization with nothing running comes first.
	c, d := org(), org()
	c1, c2, c3 := update(s1, c), update(s1, c), update(s1, c)
	if got := claim(s1, t0); got != c1 {
		t.Fatalf("claim of c's first job = %q, want %s", got, c1)
	}
	d1 := update(s2, d)
	time.Sleep(postgres.OrderFor)
	if got := claim(s1, t0.Add(postgres.OrderFor)); got != d1 {
		t.Errorf("claim OrderFor after another process queued d's job = %q, want %s (c has one running)", got, d1)
	}
	for _, want := range []string{c2, c3} {
		if got := claim(s1, t0.Add(postgres.OrderFor)); got != want {
			t.Errorf("claim = %q, want c's next job %s", got, want)
		}
	}
	if got := claim(s1, t0.Add(postgres.OrderFor)); got != "" {
		t.Errorf("claim of an empty queue = %q, want none", got)
	}
}
