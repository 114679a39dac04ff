package store

import "context"

// SiteChange is what WatchSites tells its caller.
type SiteChange struct {
	// ProjectID is the project whose live sites may now resolve
	// differently: one of its domains was added or removed, its live
	// deployment changed, or it was deleted or purged. It is empty when
	// Watching changes: then anything may have changed.
	ProjectID string
	// Watching says whether changes are being told. It is true in the
	// first call and after the watch resumed, false once it broke (the
	// connection to the database lost): until a later call says true
	// again, changes may go untold, so nothing the caller keeps can be
	// trusted.
	Watching bool
}

// SiteWatch tells of the changes to what domains resolve to, made by any
// process sharing the database.
type SiteWatch interface {
	// WatchSites calls fn for every committed change to what
	// ResolveDomain answers, made by this process or any other on the
	// same database, in order and never two calls at once, until ctx
	// ends; then it returns ctx's error. Its first call says Watching:
	// true once it is following changes. PostgreSQL tells at once
	// (LISTEN/NOTIFY); SQLite finds other processes' changes within a
	// quarter of a second. A change may be told more than once, and
	// several changes of one project may be told once.
	WatchSites(ctx context.Context, fn func(SiteChange)) error
}
