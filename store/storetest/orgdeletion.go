package storetest

import (
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

var orgDeletionCases = []testCase{
	{"Rename", testRenameOrg},
	{"DeleteConflictsWhileProjectsLive", testDeleteOrgLiveProjects},
	{"DeleteHidesOrgAndRevokesKeys", testDeleteOrg},
	{"ListDeletedAndPurge", testPurgeOrg},
}

// orgIDs returns the IDs ListOrgs lists, in its order.
func orgIDs(t *testing.T, s store.Store) []string {
	t.Helper()
	orgs, err := s.ListOrgs(t.Context())
	must(t, err, "ListOrgs")
	var ids []string
	for _, o := range orgs {
		ids = append(ids, o.ID)
	}
	return ids
}

// testRenameOrg: RenameOrg changes the name (seen by GetOrg and ListOrgs)
// and nothing else, not another organization; a missing organization is
// ENOTFOUND.
func testRenameOrg(t *testing.T, s store.Store) {
	o, other := newOrg(t, s), newOrg(t, s)
	must(t, s.RenameOrg(t.Context(), o.ID, "Acme Handbooks"), "RenameOrg")
	got := mustGet(t, s.GetOrg, o.ID)
	if got.Name != "Acme Handbooks" || got.Plan != o.Plan || !sameTime(got.CreatedAt, o.CreatedAt) {
		t.Errorf("GetOrg after RenameOrg = %+v, want name %q and plan %q, created %v", got, "Acme Handbooks", o.Plan, us(o.CreatedAt))
	}
	orgs, err := s.ListOrgs(t.Context())
	must(t, err, "ListOrgs")
	for _, g := range orgs {
		if want := map[string]string{o.ID: "Acme Handbooks", other.ID: other.Name}[g.ID]; g.Name != want {
			t.Errorf("ListOrgs: %s is named %q, want %q", g.ID, g.Name, want)
		}
	}
	if got := mustGet(t, s.GetOrg, other.ID); got.Name != other.Name {
		t.Errorf("RenameOrg renamed another organization to %q", got.Name)
	}
	err = s.RenameOrg(t.Context(), missingID(lectern.PrefixOrg), "x")
	wantCode(t, err, lectern.ENOTFOUND, "RenameOrg(missing)")
}

// testDeleteOrgLiveProjects: DeleteOrg is ECONFLICT and changes nothing
// (the organization stays, its keys unrevoked) while the organization has
// a project that is not deleted; it succeeds once every project is.
func testDeleteOrgLiveProjects(t *testing.T, s store.Store) {
	o := newOrg(t, s)
	p1, p2 := newProject(t, s, o.ID), newProject(t, s, o.ID)
	k := newKey(t, s, o.ID)
	must(t, s.DeleteProject(t.Context(), p1.ID, time.Now().UTC()), "DeleteProject(p1)")

	err := s.DeleteOrg(t.Context(), o.ID, time.Now().UTC())
	wantCode(t, err, lectern.ECONFLICT, "DeleteOrg with a live project")
	if got := mustGet(t, s.GetOrg, o.ID); got.Name != o.Name {
		t.Errorf("GetOrg after a refused DeleteOrg = %+v", got)
	}
	if ids := orgIDs(t, s); len(ids) != 1 || ids[0] != o.ID {
		t.Errorf("ListOrgs after a refused DeleteOrg = %v, want [%s]", ids, o.ID)
	}
	if got := mustGet(t, s.GetAPIKeyByHash, k.Hash); got.RevokedAt != nil {
		t.Errorf("key revoked at %v by a refused DeleteOrg", got.RevokedAt)
	}
	mustGet(t, s.GetProject, p2.ID)

	must(t, s.DeleteProject(t.Context(), p2.ID, time.Now().UTC()), "DeleteProject(p2)")
	must(t, s.DeleteOrg(t.Context(), o.ID, time.Now().UTC()), "DeleteOrg once its projects are deleted")
	_, err = s.GetOrg(t.Context(), o.ID)
	wantCode(t, err, lectern.ENOTFOUND, "GetOrg after DeleteOrg")
}

// testDeleteOrg: after DeleteOrg the organization is ENOTFOUND for GetOrg,
// RenameOrg, SetOrgPlan, CreateProject, CreateAPIKey and a second DeleteOrg, absent from
// ListOrgs, and its keys are revoked at the given time (still found by
// hash); another organization and its keys are untouched; a missing
// organization is ENOTFOUND.
func testDeleteOrg(t *testing.T, s store.Store) {
	o, other := newOrg(t, s), newOrg(t, s)
	k1, k2 := newKey(t, s, o.ID), newKey(t, s, o.ID)
	earlier := us(time.Now().UTC().Add(-time.Hour))
	must(t, s.RevokeAPIKey(t.Context(), k2.ID, earlier), "RevokeAPIKey")
	ko := newKey(t, s, other.ID)
	newProject(t, s, other.ID)

	at := us(time.Now().UTC().Add(-time.Minute))
	must(t, s.DeleteOrg(t.Context(), o.ID, at), "DeleteOrg")
	_, err := s.GetOrg(t.Context(), o.ID)
	wantCode(t, err, lectern.ENOTFOUND, "GetOrg(deleted)")
	if ids := orgIDs(t, s); len(ids) != 1 || ids[0] != other.ID {
		t.Errorf("ListOrgs after DeleteOrg = %v, want only %s", ids, other.ID)
	}
	got := mustGet(t, s.GetAPIKeyByHash, k1.Hash)
	wantTimePtr(t, "RevokedAt of the deleted organization's key", got.RevokedAt, at)
	if got := mustGet(t, s.GetAPIKeyByHash, k2.Hash); got.RevokedAt == nil {
		t.Errorf("the deleted organization's revoked key has no RevokedAt")
	}
	if got := mustGet(t, s.GetAPIKeyByHash, ko.Hash); got.RevokedAt != nil {
		t.Errorf("DeleteOrg revoked another organization's key (RevokedAt %v)", got.RevokedAt)
	}
	if got := mustGet(t, s.GetOrg, other.ID); got.Name != other.Name || got.Plan != other.Plan {
		t.Errorf("another organization after DeleteOrg = %+v", got)
	}

	err = s.RenameOrg(t.Context(), o.ID, "x")
	wantCode(t, err, lectern.ENOTFOUND, "RenameOrg(deleted)")
	err = s.SetOrgPlan(t.Context(), o.ID, lectern.PlanFree)
	wantCode(t, err, lectern.ENOTFOUND, "SetOrgPlan(deleted)")
	dom := domain()
	err = s.CreateProject(t.Context(), &lectern.Project{OrgID: o.ID, Name: "Late", Domains: []string{dom}, DeploymentType: lectern.DeploymentCloud})
	wantCode(t, err, lectern.ENOTFOUND, "CreateProject(deleted organization)")
	_, err = s.GetProjectByDomain(t.Context(), dom)
	wantCode(t, err, lectern.ENOTFOUND, "GetProjectByDomain after a refused CreateProject")
	late := lectern.NewAPIKey()
	err = s.CreateAPIKey(t.Context(), &lectern.APIKey{OrgID: o.ID, Name: "late", Hint: lectern.APIKeyHint(late), Hash: lectern.HashAPIKey(late)})
	wantCode(t, err, lectern.ENOTFOUND, "CreateAPIKey(deleted organization)")
	_, err = s.GetAPIKeyByHash(t.Context(), lectern.HashAPIKey(late))
	wantCode(t, err, lectern.ENOTFOUND, "GetAPIKeyByHash after a refused CreateAPIKey")

	err = s.DeleteOrg(t.Context(), o.ID, time.Now().UTC())
	wantCode(t, err, lectern.ENOTFOUND, "DeleteOrg(already deleted)")
	wantTimePtr(t, "RevokedAt after a second DeleteOrg", mustGet(t, s.GetAPIKeyByHash, k1.Hash).RevokedAt, at)
	err = s.DeleteOrg(t.Context(), missingID(lectern.PrefixOrg), time.Now().UTC())
	wantCode(t, err, lectern.ENOTFOUND, "DeleteOrg(missing)")
}

// testPurgeOrg: ListDeletedOrgs omits a deleted organization while any
// project row names it, deleted or not, and lists it (deleted before the
// given time, up to the limit; never a live one) once PurgeProject dropped
// them; PurgeOrg is ECONFLICT before, ENOTFOUND for a live or missing
// organization, and drops a deleted one and its keys; purging twice is
// ENOTFOUND.
func testPurgeOrg(t *testing.T, s store.Store) {
	a, live, bare := newOrg(t, s), newOrg(t, s), newOrg(t, s)
	p := newProject(t, s, a.ID)
	newProject(t, s, live.ID)
	ka := newKey(t, s, a.ID)
	kl := newKey(t, s, live.ID)
	deletedIDs := func(before time.Time, limit int) []string {
		t.Helper()
		orgs, err := s.ListDeletedOrgs(t.Context(), before, limit)
		must(t, err, "ListDeletedOrgs")
		var ids []string
		for _, o := range orgs {
			ids = append(ids, o.ID)
		}
		return ids
	}
	later := time.Now().UTC().Add(time.Hour)

	t0 := us(time.Now().UTC().Add(-2 * time.Hour))
	must(t, s.DeleteOrg(t.Context(), bare.ID, t0), "DeleteOrg(org without projects)")
	must(t, s.DeleteProject(t.Context(), p.ID, t0), "DeleteProject")
	must(t, s.DeleteOrg(t.Context(), a.ID, t0.Add(time.Hour)), "DeleteOrg")
	if got, want := deletedIDs(later, 10), []string{bare.ID}; !sameSet(got, want) {
		t.Errorf("ListDeletedOrgs while a deleted project names org a = %v, want %v", got, want)
	}
	err := s.PurgeOrg(t.Context(), a.ID)
	wantCode(t, err, lectern.ECONFLICT, "PurgeOrg while a deleted project names it")
	mustGet(t, s.GetAPIKeyByHash, ka.Hash)

	must(t, s.PurgeProject(t.Context(), p.ID), "PurgeProject")
	if got, want := deletedIDs(later, 10), []string{bare.ID, a.ID}; !sameSet(got, want) {
		t.Errorf("ListDeletedOrgs after PurgeProject = %v, want %v", got, want)
	}
	if got, want := deletedIDs(t0.Add(time.Minute), 10), []string{bare.ID}; !sameSet(got, want) {
		t.Errorf("ListDeletedOrgs(before org a was deleted) = %v, want %v", got, want)
	}
	if got := deletedIDs(t0.Add(-time.Minute), 10); len(got) != 0 {
		t.Errorf("ListDeletedOrgs(before any delete) = %v, want none", got)
	}
	if got := deletedIDs(later, 1); len(got) != 1 || (got[0] != a.ID && got[0] != bare.ID) {
		t.Errorf("ListDeletedOrgs(limit 1) = %v, want one of %s, %s", got, a.ID, bare.ID)
	}

	err = s.PurgeOrg(t.Context(), live.ID)
	wantCode(t, err, lectern.ENOTFOUND, "PurgeOrg(live organization)")
	mustGet(t, s.GetOrg, live.ID)
	mustGet(t, s.GetAPIKeyByHash, kl.Hash)
	err = s.PurgeOrg(t.Context(), missingID(lectern.PrefixOrg))
	wantCode(t, err, lectern.ENOTFOUND, "PurgeOrg(missing)")

	must(t, s.PurgeOrg(t.Context(), a.ID), "PurgeOrg")
	if got, want := deletedIDs(later, 10), []string{bare.ID}; !sameSet(got, want) {
		t.Errorf("ListDeletedOrgs after PurgeOrg = %v, want %v", got, want)
	}
	_, err = s.GetOrg(t.Context(), a.ID)
	wantCode(t, err, lectern.ENOTFOUND, "GetOrg(purged)")
	_, err = s.GetAPIKeyByHash(t.Context(), ka.Hash)
	wantCode(t, err, lectern.ENOTFOUND, "GetAPIKeyByHash(key of a purged organization)")
	err = s.PurgeOrg(t.Context(), a.ID)
	wantCode(t, err, lectern.ENOTFOUND, "PurgeOrg(already purged)")
	err = s.DeleteOrg(t.Context(), a.ID, time.Now().UTC())
	wantCode(t, err, lectern.ENOTFOUND, "DeleteOrg(purged)")

	must(t, s.PurgeOrg(t.Context(), bare.ID), "PurgeOrg(org without projects)")
	if got := deletedIDs(later, 10); len(got) != 0 {
		t.Errorf("ListDeletedOrgs after purging both = %v, want none", got)
	}
	if ids := orgIDs(t, s); len(ids) != 1 || ids[0] != live.ID {
		t.Errorf("ListOrgs = %v, want only %s", ids, live.ID)
	}
}
