package postgres_test

import (
	"testing"

	"lectern.dev/lectern/store"
	"lectern.dev/lectern/store/postgres"
	"lectern.dev/lectern/store/postgres/pgtest"
	"lectern.dev/lectern/store/storetest"
)

func TestConformance(t *testing.T) {
	pgtest.BaseURL(t)
	storetest.Run(t, func(t *testing.T) store.Store {
		s, err := postgres.Open(t.Context(), pgtest.URL(t))
		if err != nil {
			t.Fatalf("postgres.Open: %v", err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}

func TestSiteWatch(t *testing.T) {
	pgtest.BaseURL(t)
	storetest.RunSiteWatch(t, func(t *testing.T) (store.Store, store.Store) {
		url := pgtest.URL(t)
		var pair [2]store.Store
		for i := range pair {
			s, err := postgres.Open(t.Context(), url)
			if err != nil {
				t.Fatalf("postgres.Open: %v", err)
			}
			t.Cleanup(func() { s.Close() })
			pair[i] = s
		}
		return pair[0], pair[1]
	})
}
