package store

import (
	"context"
	"strconv"
	"time"

	"lectern.dev/lectern"
)

// Analytics keeps the web analytics of live docs sites (cookieless): raw
// events for a short while, and daily aggregates per project, day, kind
// and key, written as the events are recorded, for reports over long
// ranges (implementations may keep sums of them too, per week or per day
// over the keys, written in the same transaction, so that a report of a
// year reads few rows). A deleted project has no analytics for every
// method (reads: none; RecordAnalytics skips its events), and
// PurgeProject drops them.
//
// Days are UTC dates. A range [from, to) of days is taken at the UTC
// dates of from and to: the days from from's date up to, not including,
// to's date (from and to at the same date: no day).
type Analytics interface {
	// RecordAnalytics stores a batch of events in one transaction, as
	// lectern.BoundAnalytics copies them (the caller's are left as they
	// are; EINVALID, storing nothing, for a batch of more than
	// lectern.MaxAnalyticsBatch events or with one bad event).
	// For each event it keeps the raw event, with a new ID, and adds it to
	// the daily aggregates of its project and At's UTC date:
	//
	//	pageview  the aggregates (pageview, Path), (visit, "") and,
	//	          when Referrer is not "", (referrer, Referrer)
	//	search    (search, Query): Clicks when Clicked is not "",
	//	          Zero when Results is 0
	//	feedback  (feedback, Path): Yes or No
	//
	// Each adds 1 to N, and 1 to Visitors when the aggregate had not yet
	// counted the event's Visitor that day (the store keeps which visitors
	// each aggregate counted, for as long as raw events), so Visitors is
	// exact across batches and processes. Events of a project that is
	// missing or deleted are skipped without an error (a site's beacon may
	// race the project's deletion): nothing says how many.
	RecordAnalytics(ctx context.Context, events []lectern.AnalyticsEvent) error
	// AnalyticsDaily returns, for each day of [from, to) on which the
	// project has aggregates of kind (a kind of event, visit or referrer),
	// their sums over the keys, oldest day first. EINVALID for another
	// kind; none for a missing or deleted project.
	AnalyticsDaily(ctx context.Context, projectID string, kind lectern.AnalyticsKind, from, to time.Time) ([]lectern.AnalyticsDay, error)
	// AnalyticsTop returns the keys of kind with aggregates on days of
	// [from, to), each with its sums over those days (Visitors: the sum
	// of each day's distinct visitors), the f.Limit first of them: by N,
	// highest first, then by Key (bytewise); with f.ZeroOnly, only those
	// with Zero > 0 (searches that found nothing), by Zero, highest first,
	// then by N, highest first, then by Key. EINVALID for an unknown kind
	// or a limit out of range; none for a missing or deleted project. A
	// range reaching back before the aggregates PruneAnalytics kept may
	// count the dropped days of the week that straddles dailyBefore.
	AnalyticsTop(ctx context.Context, projectID string, kind lectern.AnalyticsKind, from, to time.Time, f AnalyticsTopFilter) ([]lectern.AnalyticsKey, error)
	// ListAnalyticsComments returns the project's stored feedback events
	// with a comment, At in [from, to) (a zero from or to: no bound),
	// newest first (At descending, then ID descending), one page of them;
	// a page's Cursor is AnalyticsCursor of its last event. EINVALID for
	// a cursor whose ID is not an event's; none for a missing or deleted
	// project.
	ListAnalyticsComments(ctx context.Context, projectID string, from, to time.Time, pg Page) ([]*lectern.AnalyticsEvent, error)
	// AnalyticsSalt returns the salt of day's UTC date,
	// lectern.AnalyticsSaltLen random bytes made by the first call for
	// that date: every later call, in any process sharing the database,
	// returns the same bytes, also when first calls race. Collectors hash
	// visitors with it (and cache it for the day); PruneAnalytics drops
	// the salts of days before yesterday, after which the day's visitor
	// hashes can no longer be linked to anyone (salts of today and
	// yesterday are kept, for collectors whose clocks differ or which
	// straddle midnight).
	AnalyticsSalt(ctx context.Context, day time.Time) ([]byte, error)
	// PruneAnalytics drops, of every project, up to limit (a negative
	// limit: all) rows of each kind it keeps: the raw events at before
	// rawBefore; the visitors counted by the aggregates of days before
	// the date of rawBefore; the aggregates of days before the date of
	// dailyBefore (and their weekly sums of weeks that ended before it);
	// and the salts of days before yesterday (by the store's clock). It
	// returns how many rows it dropped in all: call it again until it
	// returns 0. A day's late events, recorded once its counted visitors
	// are dropped, may count a visitor twice.
	PruneAnalytics(ctx context.Context, rawBefore, dailyBefore time.Time, limit int) (int, error)
}

// AnalyticsTopFilter shapes an AnalyticsTop list.
type AnalyticsTopFilter struct {
	// Limit is the most keys returned: 1 to MaxAnalyticsTop, 0 for
	// DefaultAnalyticsTop.
	Limit int
	// ZeroOnly keeps the keys with searches that found nothing.
	ZeroOnly bool
}

// Bounds of AnalyticsTopFilter.Limit.
const (
	DefaultAnalyticsTop = 10
	MaxAnalyticsTop     = 1000
)

// TopLimit returns the number of keys f asks for, or EINVALID when its
// Limit is out of range.
func (f AnalyticsTopFilter) TopLimit() (int, error) {
	switch {
	case f.Limit == 0:
		return DefaultAnalyticsTop, nil
	case f.Limit < 0 || f.Limit > MaxAnalyticsTop:
		return 0, lectern.Errorf(lectern.EINVALID, "an analytics top list holds 1 to %d keys, not %d", MaxAnalyticsTop, f.Limit)
	}
	return f.Limit, nil
}

// CheckAnalyticsKind returns EINVALID unless kind names daily aggregates.
func CheckAnalyticsKind(kind lectern.AnalyticsKind) error {
	if !kind.Reported() {
		return lectern.Errorf(lectern.EINVALID, "unknown analytics kind %q: use pageview, search, feedback, visit or referrer", kind)
	}
	return nil
}

// AnalyticsCursor returns the place of e in ListAnalyticsComments' list:
// its time and its ID in decimal.
func AnalyticsCursor(e *lectern.AnalyticsEvent) *Cursor {
	return &Cursor{At: e.At, ID: strconv.FormatInt(e.ID, 10)}
}

// AnalyticsCursorID returns the event ID of a cursor of
// ListAnalyticsComments, or EINVALID when it names no event.
func AnalyticsCursorID(c *Cursor) (int64, error) {
	id, err := strconv.ParseInt(c.ID, 10, 64)
	if err != nil || id < 0 {
		return 0, lectern.Errorf(lectern.EINVALID, "the cursor %q names no analytics event: use the ID of the last event of the previous page", c.ID)
	}
	return id, nil
}
