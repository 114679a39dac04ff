package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"lectern.dev/lectern/store"
)

// Back-off of WatchSites between attempts to listen again.
const (
	watchRetryFirst = 250 * time.Millisecond
	watchRetryMax   = 5 * time.Second
)

// WatchSites listens, on a connection of its own (not one of the pool's),
// to the schema's channel that the triggers of migration 0011 notify at
// every commit that changes what a domain resolves to. When the
// connection breaks it says so (Watching: false) and connects again,
// waiting a quarter of a second, then twice as long each time up to 5 s.
func (s *Store) WatchSites(ctx context.Context, fn func(store.SiteChange)) error {
	wait := watchRetryFirst
	watching := false
	for {
		conn, err := s.listen(ctx)
		if err == nil {
			watching, wait = true, watchRetryFirst
			fn(store.SiteChange{Watching: true})
			for {
				n, err := conn.WaitForNotification(ctx)
				if err != nil {
					break
				}
				fn(store.SiteChange{ProjectID: n.Payload, Watching: true})
			}
			closeCtx, cancel := context.WithTimeout(context.Background(), time.Second)
			conn.Close(closeCtx)
			cancel()
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if watching {
			watching = false
			fn(store.SiteChange{})
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, watchRetryMax)
	}
}

// listen opens a connection with the pool's settings and listens on the
// schema's channel of site changes.
func (s *Store) listen(ctx context.Context) (*pgx.Conn, error) {
	conn, err := pgx.ConnectConfig(ctx, s.pool.Config().ConnConfig.Copy())
	if err != nil {
		return nil, err
	}
	var channel string
	err = conn.QueryRow(ctx, `SELECT 'lectern_sites_' || left(md5(current_schema()), 16)`).Scan(&channel)
	if err == nil {
		_, err = conn.Exec(ctx, "LISTEN "+pgx.Identifier{channel}.Sanitize())
	}
	if err != nil {
		conn.Close(context.Background())
		return nil, err
	}
	return conn, nil
}
