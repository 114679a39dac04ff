// Package storetest is the conformance suite of store.Store. Every
// implementation (SQLite, PostgreSQL) runs it from its own tests:
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) store.Store {
//			s, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "db.sqlite"))
//			if err != nil {
//				t.Fatal(err)
//			}
//			return s
//		})
//	}
//
// The suite checks behaviour only: what the methods return and how later
// calls observe earlier ones, as the doc comments of package store describe
// it. It never looks at tables or SQL. Times are compared after truncation to
// microseconds, the precision every implementation keeps.
package storetest

import (
	"testing"

	"lectern.dev/lectern/store"
)

// testCase is one subtest, run against its own fresh store.
type testCase struct {
	name string
	fn   func(t *testing.T, s store.Store)
}

// Run runs the conformance suite against a Store implementation. newStore returns a fresh, empty,
// migrated store for each call (the implementation's test decides how: a temp SQLite file, a fresh PostgreSQL schema).
func Run(t *testing.T, newStore func(t *testing.T) store.Store) {
	t.Helper()
	groups := []struct {
		name  string
		cases []testCase
	}{
		{"Orgs", orgCases},
		{"Projects", projectCases},
		{"Keys", keyCases},
		{"Updates", updateCases},
		{"Leases", leaseCases},
		{"Exports", exportCases},
		{"Jobs", jobCases},
		{"Fairness", fairnessCases},
		{"Idempotency", idempotencyCases},
		{"RateLimits", rateLimitCases},
		{"Lifecycle", lifecycleCases},
		{"Paging", pagingCases},
		{"ProjectChange", projectChangeCases},
		{"ProjectDeletion", projectDeletionCases},
		{"OrgDeletion", orgDeletionCases},
		{"Cancel", cancelCases},
		{"Promote", promoteCases},
		{"Webhooks", webhookCases},
		{"WebhookOutbox", outboxCases},
		{"Assistant", assistantCases},
		{"Analytics", analyticsCases},
		{"Accounts", accountCases},
	}
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			t.Parallel()
			for _, tc := range g.cases {
				t.Run(tc.name, func(t *testing.T) {
					t.Parallel()
					s := newStore(t)
					if s == nil {
						t.Fatal("newStore returned a nil store")
					}
					t.Cleanup(func() {
						// Close is safe to call more than once, so this may
						// run before or after the implementation's own cleanup.
						if err := s.Close(); err != nil {
							t.Errorf("Close: %v", err)
						}
					})
					tc.fn(t, s)
				})
			}
		})
	}
}
