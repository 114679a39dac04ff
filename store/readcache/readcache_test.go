package readcache_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
	"lectern.dev/lectern/store/readcache"
	"lectern.dev/lectern/store/sqlite"
	"lectern.dev/lectern/store/storetest"
)

// The wrapper with caching disabled must still be a conforming store.
func TestConformanceUncached(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return readcache.New(st, -1, -1)
	})
}

func TestCacheBounds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	c := readcache.New(st, 200*time.Millisecond, 200*time.Millisecond)
	org := &lectern.Organization{Name: "o", Plan: lectern.PlanEnterprise}
	st.CreateOrg(ctx, org)
	p := &lectern.Project{OrgID: org.ID, Name: "p", RepoURL: "r", Branch: "main", DocsRoot: "/", Domains: []string{"a.test"}, DeploymentType: lectern.DeploymentCloud}
	if err := st.CreateProject(ctx, p); err != nil {
		t.Fatal(err)
	}
	secret := lectern.NewAPIKey()
	hash := lectern.HashAPIKey(secret)

	// A miss is not cached: a key created after a failed lookup is found at once.
	if _, err := c.GetAPIKeyByHash(ctx, hash); lectern.ErrorCode(err) != lectern.ENOTFOUND {
		t.Fatalf("want not found, got %v", err)
	}
	k := &lectern.APIKey{OrgID: org.ID, Name: "k", Hint: "h", Hash: hash}
	if err := st.CreateAPIKey(ctx, k); err != nil {
		t.Fatal(err)
	}
	got, err := c.GetAPIKeyByHash(ctx, hash)
	if err != nil || got.RevokedAt != nil {
		t.Fatalf("new key: %v %v", got, err)
	}
	// A revocation is seen within the TTL, not before the cached copy ages.
	st.RevokeAPIKey(ctx, k.ID, time.Now())
	if got, _ := c.GetAPIKeyByHash(ctx, hash); got.RevokedAt != nil {
		t.Fatal("cached copy should still be the one read before the revocation")
	}
	time.Sleep(250 * time.Millisecond)
	if got, _ := c.GetAPIKeyByHash(ctx, hash); got.RevokedAt == nil {
		t.Fatal("revocation not seen after the TTL")
	}

	// Callers get copies: changing one does not change the cache.
	e := &lectern.ExportJob{OrgID: org.ID, ProjectID: p.ID, Domain: "a.test"}
	if err := st.CreateExport(ctx, e, store.ExportQuota{}); err != nil {
		t.Fatal(err)
	}
	a, _ := c.GetExport(ctx, e.ID)
	a.Status = "mangled"
	if b, _ := c.GetExport(ctx, e.ID); b.Status != lectern.ExportQueued {
		t.Fatalf("cache shared its value: %q", b.Status)
	}
}
