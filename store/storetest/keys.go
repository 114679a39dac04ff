package storetest

import (
	"bytes"
	"crypto/sha256"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

var keyCases = []testCase{
	{"CreateAndGetByHash", testKeyCreateGet},
	{"Revoke", testKeyRevoke},
	{"Touch", testKeyTouch},
	{"List", testKeyList},
}

func testKeyCreateGet(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	h := sha256.Sum256([]byte("lct_secret_one"))
	k := &lectern.APIKey{OrgID: org.ID, Name: "CI deploys", Hint: "lct_secr", Hash: h[:]}
	before := time.Now().Add(-time.Minute)
	must(t, s.CreateAPIKey(t.Context(), k), "CreateAPIKey")
	if !lectern.ValidID(lectern.PrefixKey, k.ID) {
		t.Errorf("CreateAPIKey set ID %q, want a %s ID", k.ID, lectern.PrefixKey)
	}
	if k.CreatedAt.Before(before) || k.CreatedAt.After(time.Now().Add(time.Minute)) {
		t.Errorf("CreateAPIKey set CreatedAt %v, want about now", k.CreatedAt)
	}
	other := newKey(t, s, org.ID)

	got := mustGet(t, s.GetAPIKeyByHash, h[:])
	if got.ID != k.ID || got.OrgID != org.ID || got.Name != "CI deploys" || got.Hint != "lct_secr" {
		t.Errorf("GetAPIKeyByHash = %+v, want %+v", got, k)
	}
	if !bytes.Equal(got.Hash, h[:]) {
		t.Errorf("GetAPIKeyByHash Hash = %x, want %x", got.Hash, h)
	}
	wantTime(t, "GetAPIKeyByHash CreatedAt", got.CreatedAt, k.CreatedAt)
	if got.LastUsedAt != nil || got.RevokedAt != nil {
		t.Errorf("new key has LastUsedAt %v, RevokedAt %v; want both nil", got.LastUsedAt, got.RevokedAt)
	}
	if got := mustGet(t, s.GetAPIKeyByHash, other.Hash); got.ID != other.ID {
		t.Errorf("GetAPIKeyByHash(other hash) = %s, want %s", got.ID, other.ID)
	}

	miss := sha256.Sum256([]byte("lct_not_a_key"))
	_, err := s.GetAPIKeyByHash(t.Context(), miss[:])
	wantCode(t, err, lectern.ENOTFOUND, "GetAPIKeyByHash(unknown hash)")
	// A prefix of a stored hash is not that hash.
	_, err = s.GetAPIKeyByHash(t.Context(), h[:16])
	wantCode(t, err, lectern.ENOTFOUND, "GetAPIKeyByHash(truncated hash)")
}

func testKeyRevoke(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	k := newKey(t, s, org.ID)
	other := newKey(t, s, org.ID)
	first := time.Now().UTC().Add(-time.Hour)
	must(t, s.RevokeAPIKey(t.Context(), k.ID, first), "RevokeAPIKey")

	got := mustGet(t, s.GetAPIKeyByHash, k.Hash) // still returned once revoked
	if got.ID != k.ID {
		t.Errorf("GetAPIKeyByHash of a revoked key = %s, want %s", got.ID, k.ID)
	}
	wantTimePtr(t, "RevokedAt", got.RevokedAt, first)

	must(t, s.RevokeAPIKey(t.Context(), k.ID, first.Add(30*time.Minute)), "RevokeAPIKey again")
	wantTimePtr(t, "RevokedAt after a second revoke", mustGet(t, s.GetAPIKeyByHash, k.Hash).RevokedAt, first)

	if got := mustGet(t, s.GetAPIKeyByHash, other.Hash); got.RevokedAt != nil {
		t.Errorf("revoking %s revoked %s too (RevokedAt %v)", k.ID, other.ID, got.RevokedAt)
	}
	err := s.RevokeAPIKey(t.Context(), missingID(lectern.PrefixKey), first)
	wantCode(t, err, lectern.ENOTFOUND, "RevokeAPIKey(missing)")
}

func testKeyTouch(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	k := newKey(t, s, org.ID)
	other := newKey(t, s, org.ID)
	at := time.Now().UTC()
	must(t, s.TouchAPIKey(t.Context(), k.ID, at), "TouchAPIKey")
	wantTimePtr(t, "LastUsedAt", mustGet(t, s.GetAPIKeyByHash, k.Hash).LastUsedAt, at)
	later := at.Add(90 * time.Second)
	must(t, s.TouchAPIKey(t.Context(), k.ID, later), "TouchAPIKey")
	got := mustGet(t, s.GetAPIKeyByHash, k.Hash)
	wantTimePtr(t, "LastUsedAt after a second use", got.LastUsedAt, later)
	if got.RevokedAt != nil {
		t.Errorf("TouchAPIKey set RevokedAt %v", got.RevokedAt)
	}
	if got := mustGet(t, s.GetAPIKeyByHash, other.Hash); got.LastUsedAt != nil {
		t.Errorf("touching %s touched %s too (LastUsedAt %v)", k.ID, other.ID, got.LastUsedAt)
	}
}

func testKeyList(t *testing.T, s store.Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	ka1, ka2 := newKey(t, s, a.ID), newKey(t, s, a.ID)
	kb := newKey(t, s, b.ID)
	must(t, s.RevokeAPIKey(t.Context(), ka2.ID, time.Now()), "RevokeAPIKey")

	ids := func(orgID string) []string {
		t.Helper()
		ks, err := s.ListAPIKeys(t.Context(), orgID)
		must(t, err, "ListAPIKeys")
		var out []string
		for _, k := range ks {
			out = append(out, k.ID)
			if orgID != "" && k.OrgID != orgID {
				t.Errorf("ListAPIKeys(%s) returned key %s of org %s", orgID, k.ID, k.OrgID)
			}
			if k.ID == ka2.ID && k.RevokedAt == nil {
				t.Errorf("ListAPIKeys: revoked key %s has no RevokedAt", k.ID)
			}
			if k.ID == ka1.ID && (k.Name != ka1.Name || k.Hint != ka1.Hint) {
				t.Errorf("ListAPIKeys: key %+v, want %+v", k, ka1)
			}
		}
		return out
	}
	if got, want := ids(a.ID), []string{ka1.ID, ka2.ID}; !sameSet(got, want) {
		t.Errorf("ListAPIKeys(org a) = %v, want %v (revoked keys included)", got, want)
	}
	if got, want := ids(b.ID), []string{kb.ID}; !sameSet(got, want) {
		t.Errorf("ListAPIKeys(org b) = %v, want %v", got, want)
	}
	if got, want := ids(""), []string{ka1.ID, ka2.ID, kb.ID}; !sameSet(got, want) {
		t.Errorf("ListAPIKeys(all) = %v, want %v", got, want)
	}
}
