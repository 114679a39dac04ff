package sqlite

import (
	"context"
	"database/sql"
	"time"

	"lectern.dev/lectern/store"
)

// watchPoll is how often WatchSites reads the changes of other processes;
// this process's own are read as soon as they commit (Store.poke).
const watchPoll = 250 * time.Millisecond

// watchBatch is how many changes WatchSites reads at a time.
const watchBatch = 1000

// WatchSites reads the rows that the triggers of migration 0012 add to
// site_changes, after the last it saw: as soon as a write transaction of
// this store commits, and every quarter of a second for the writes of
// other processes. A gap in the rows (the watch fell more than 10,000
// changes behind) or a failed read that later works again is told as the
// watch starting again.
func (s *Store) WatchSites(ctx context.Context, fn func(store.SiteChange)) error {
	poke := make(chan struct{}, 1)
	s.watchMu.Lock()
	if s.pokes == nil {
		s.pokes = map[chan struct{}]struct{}{}
	}
	s.pokes[poke] = struct{}{}
	s.watchMu.Unlock()
	defer func() {
		s.watchMu.Lock()
		delete(s.pokes, poke)
		s.watchMu.Unlock()
	}()
	tick := time.NewTicker(watchPoll)
	defer tick.Stop()
	var last int64
	watching := false
	for {
		if !watching {
			err := s.r.QueryRowContext(ctx, `SELECT coalesce(max(seq), 0) FROM site_changes`).Scan(&last)
			if err == nil {
				watching = true
				fn(store.SiteChange{Watching: true})
			}
		} else if err := s.readChanges(ctx, &last, fn); err != nil {
			watching = false
			if ctx.Err() == nil {
				fn(store.SiteChange{})
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-poke:
		case <-tick.C:
		}
	}
}

// readChanges tells fn of the changes after *last, and moves *last past
// them.
func (s *Store) readChanges(ctx context.Context, last *int64, fn func(store.SiteChange)) error {
	for {
		rows, err := s.r.QueryContext(ctx, `SELECT seq, project_id FROM site_changes WHERE seq > ? ORDER BY seq LIMIT ?`, *last, watchBatch)
		if err != nil {
			return err
		}
		n, err := tellChanges(rows, last, fn)
		if err != nil || n < watchBatch {
			return err
		}
	}
}

func tellChanges(rows *sql.Rows, last *int64, fn func(store.SiteChange)) (int, error) {
	defer rows.Close()
	n := 0
	for rows.Next() {
		var seq int64
		var project string
		if err := rows.Scan(&seq, &project); err != nil {
			return n, err
		}
		if seq > *last+1 && n == 0 {
			// Rows between were pruned (or a transaction that took
			// their numbers rolled back): say everything may have changed.
			fn(store.SiteChange{Watching: true})
		}
		*last = seq
		n++
		fn(store.SiteChange{ProjectID: project, Watching: true})
	}
	return n, rows.Err()
}

// poke wakes this store's watches after a write committed.
func (s *Store) poke() {
	s.watchMu.Lock()
	defer s.watchMu.Unlock()
	for c := range s.pokes {
		select {
		case c <- struct{}{}:
		default:
		}
	}
}
