package sqlite_test

import (
	"path/filepath"
	"testing"

	"lectern.dev/lectern/store"
	"lectern.dev/lectern/store/sqlite"
	"lectern.dev/lectern/store/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		s, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "db.sqlite"))
		if err != nil {
			t.Fatalf("sqlite.Open: %v", err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}

func TestSiteWatch(t *testing.T) {
	storetest.RunSiteWatch(t, func(t *testing.T) (store.Store, store.Store) {
		path := filepath.Join(t.TempDir(), "db.sqlite")
		var pair [2]store.Store
		for i := range pair {
			s, err := sqlite.Open(t.Context(), path)
			if err != nil {
				t.Fatalf("sqlite.Open: %v", err)
			}
			t.Cleanup(func() { s.Close() })
			pair[i] = s
		}
		return pair[0], pair[1]
	})
}
