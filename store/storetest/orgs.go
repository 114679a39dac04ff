package storetest

import (
	"slices"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

var orgCases = []testCase{
	{"CreateSetsIDAndCreatedAt", testOrgCreate},
	{"CreateKeepsGivenIDAndCreatedAt", testOrgCreateGiven},
	{"GetMissing", testOrgGetMissing},
	{"ListOldestFirst", testOrgList},
	{"SetPlan", testOrgSetPlan},
}

func testOrgCreate(t *testing.T, s store.Store) {
	before := time.Now().Add(-time.Minute)
	o := &lectern.Organization{Name: "Acme Docs", Plan: lectern.PlanPro}
	must(t, s.CreateOrg(t.Context(), o), "CreateOrg")
	if !lectern.ValidID(lectern.PrefixOrg, o.ID) {
		t.Errorf("CreateOrg set ID %q, want an %s ID", o.ID, lectern.PrefixOrg)
	}
	if o.CreatedAt.Before(before) || o.CreatedAt.After(time.Now().Add(time.Minute)) {
		t.Errorf("CreateOrg set CreatedAt %v, want about now", o.CreatedAt)
	}
	got := mustGet(t, s.GetOrg, o.ID)
	if got.ID != o.ID || got.Name != "Acme Docs" || got.Plan != lectern.PlanPro {
		t.Errorf("GetOrg = %+v, want %+v", got, o)
	}
	wantTime(t, "GetOrg CreatedAt", got.CreatedAt, o.CreatedAt)

	o2 := newOrg(t, s)
	if o2.ID == o.ID {
		t.Errorf("two organizations got the same ID %s", o.ID)
	}
}

func testOrgCreateGiven(t *testing.T, s store.Store) {
	created := time.Date(2024, 3, 1, 12, 30, 45, 123456789, time.UTC)
	o := &lectern.Organization{ID: lectern.NewID(lectern.PrefixOrg), Name: "Given", Plan: lectern.PlanFree, CreatedAt: created}
	id := o.ID
	must(t, s.CreateOrg(t.Context(), o), "CreateOrg")
	if o.ID != id {
		t.Errorf("CreateOrg replaced the given ID %s with %s", id, o.ID)
	}
	got := mustGet(t, s.GetOrg, id)
	if got.Name != "Given" || got.Plan != lectern.PlanFree {
		t.Errorf("GetOrg = %+v", got)
	}
	wantTime(t, "GetOrg CreatedAt", got.CreatedAt, created)
}

func testOrgGetMissing(t *testing.T, s store.Store) {
	newOrg(t, s)
	_, err := s.GetOrg(t.Context(), missingID(lectern.PrefixOrg))
	wantCode(t, err, lectern.ENOTFOUND, "GetOrg(missing)")
}

func testOrgList(t *testing.T, s store.Store) {
	orgs, err := s.ListOrgs(t.Context())
	must(t, err, "ListOrgs")
	if len(orgs) != 0 {
		t.Errorf("ListOrgs on an empty store = %d organizations", len(orgs))
	}
	base := time.Now().UTC().Add(-24 * time.Hour)
	// Created out of order: the list follows CreatedAt, not insertion.
	var want [3]string
	for _, i := range []int{2, 0, 1} {
		o := &lectern.Organization{Name: "Org", Plan: lectern.PlanFree, CreatedAt: base.Add(time.Duration(i) * time.Hour)}
		must(t, s.CreateOrg(t.Context(), o), "CreateOrg")
		want[i] = o.ID
	}
	orgs, err = s.ListOrgs(t.Context())
	must(t, err, "ListOrgs")
	var got []string
	for _, o := range orgs {
		got = append(got, o.ID)
	}
	if !slices.Equal(got, want[:]) {
		t.Errorf("ListOrgs = %v, want oldest first %v", got, want)
	}
	if len(orgs) == 3 {
		wantTime(t, "ListOrgs[0].CreatedAt", orgs[0].CreatedAt, base)
		if orgs[0].Plan != lectern.PlanFree || orgs[0].Name != "Org" {
			t.Errorf("ListOrgs[0] = %+v, fields not round-tripped", orgs[0])
		}
	}
}

func testOrgSetPlan(t *testing.T, s store.Store) {
	o := newOrg(t, s) // enterprise
	other := newOrg(t, s)
	must(t, s.SetOrgPlan(t.Context(), o.ID, lectern.PlanFree), "SetOrgPlan")
	if got := mustGet(t, s.GetOrg, o.ID).Plan; got != lectern.PlanFree {
		t.Errorf("plan after SetOrgPlan(free) = %q", got)
	}
	if got := mustGet(t, s.GetOrg, other.ID).Plan; got != lectern.PlanEnterprise {
		t.Errorf("SetOrgPlan changed another organization's plan to %q", got)
	}
	must(t, s.SetOrgPlan(t.Context(), o.ID, lectern.PlanPro), "SetOrgPlan")
	if got := mustGet(t, s.GetOrg, o.ID).Plan; got != lectern.PlanPro {
		t.Errorf("plan after SetOrgPlan(pro) = %q", got)
	}
	err := s.SetOrgPlan(t.Context(), missingID(lectern.PrefixOrg), lectern.PlanPro)
	wantCode(t, err, lectern.ENOTFOUND, "SetOrgPlan(missing)")
}
