package sqlite

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"lectern.dev/lectern/store"
)

// A watch that falls more than 10,000 changes behind (the log keeps no
// more) says so as it resumes: a call with Watching true and no project,
// which tells its caller to forget everything, not only the projects it
// still finds in the log.
func TestSiteWatchGapForgetsAll(t *testing.T) {
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "db.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	events := make(chan store.SiteChange, 20000)
	go s.WatchSites(ctx, func(c store.SiteChange) { events <- c })
	if c := <-events; !c.Watching || c.ProjectID != "" {
		t.Fatalf("first call %+v", c)
	}
	// 10,050 changes in one transaction, written past the store's
	// methods (as another process would): the log keeps the last 10,000.
	if _, err := s.w.ExecContext(ctx, `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10050)
		INSERT INTO site_changes(project_id) SELECT 'prj_' || i FROM n`); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(10 * time.Second)
	for {
		select {
		case c := <-events:
			if c.ProjectID == "" && c.Watching {
				return // told to forget everything
			}
			if c.ProjectID == "prj_1" {
				t.Fatal("a pruned change was told")
			}
			if c.ProjectID != "" {
				t.Fatalf("told of %s before saying it fell behind", c.ProjectID)
			}
		case <-deadline:
			t.Fatal("the watch never said it fell behind")
		}
	}
}
