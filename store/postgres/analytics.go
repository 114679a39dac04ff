package postgres

import (
	"context"
	"crypto/rand"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
	"lectern.dev/lectern/store/internal/tally"
)

// Web analytics (store.Analytics). RecordAnalytics writes a batch in one
// transaction of few round trips, each statement taking its rows as
// arrays (unnest): it key-share locks the batch's projects that are not
// deleted (so a DeleteProject or PurgeProject either waits for it or is
// seen, as RecordAssistantMessage does), inserts the raw events and the
// visitors each aggregate counts (ON CONFLICT DO NOTHING RETURNING the
// rows inserted: only those add to Visitors, and a visitor racing in
// another process's batch waits for it and is counted once), then adds to
// the aggregates. Rows go in the order tally sorts them, so concurrent
// batches take their row locks in one order and never deadlock.
//
// Prunes walk the projects and each project's rows through the primary
// keys and indexes that start with project_id, rather than keeping
// indexes by day or time only for them (every analytics row is of a
// project in the projects table, as RecordAnalytics writes only live
// projects' and PurgeProject drops a project's rows with it); rows other
// pruners hold are left to them (SKIP LOCKED).

// RecordAnalytics stores a batch of events and adds them to their
// projects' daily aggregates, in one transaction.
func (s *Store) RecordAnalytics(ctx context.Context, events []lectern.AnalyticsEvent) error {
	evs, err := lectern.BoundAnalytics(events)
	if err != nil || len(evs) == 0 {
		return err
	}
	return s.tx(ctx, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT id FROM projects WHERE id = ANY($1) AND deleted_at IS NULL ORDER BY id FOR KEY SHARE`, tally.Projects(evs))
		ids, err := collect(rows, err, func(r pgx.Row) (id string, err error) { return id, r.Scan(&id) })
		if err != nil {
			return err
		}
		live := map[string]bool{}
		for _, id := range ids {
			live[id] = true
		}
		if evs = tally.Keep(evs, live); len(evs) == 0 {
			return nil
		}
		groups := tally.Rows(evs)
		b := &pgx.Batch{}
		queueEvents(b, evs)
		counted := make([]int64, len(groups))
		queueVisitors(b, groups, counted)
		if err := tx.SendBatch(ctx, b).Close(); err != nil {
			return err
		}
		daily, weekly, totals := tally.Sums(groups, counted)
		b = &pgx.Batch{}
		queueSums(b, `analytics_daily AS a (project_id, kind, day, key`, daily)
		queueSums(b, `analytics_weekly AS a (project_id, kind, week, key`, weekly)
		queueSums(b, `analytics_totals AS a (project_id, kind, day`, totals)
		return tx.SendBatch(ctx, b).Close()
	})
}

// queueEvents queues the insert of the raw events.
func queueEvents(b *pgx.Batch, evs []lectern.AnalyticsEvent) {
	n := len(evs)
	project, at, kind, path, referrer := make([]string, n), make([]time.Time, n), make([]string, n), make([]string, n), make([]string, n)
	visitor, query, results, clicked := make([][]byte, n), make([]string, n), make([]int32, n), make([]string, n)
	helpful, comment := make([]*bool, n), make([]string, n)
	for i, e := range evs {
		project[i], at[i], kind[i], path[i], referrer[i] = e.ProjectID, e.At, string(e.Kind), e.Path, e.Referrer
		visitor[i], query[i], results[i], clicked[i] = tally.Visitor(e.Visitor), e.Query, int32(min(e.Results, 1<<31-1)), e.Clicked
		helpful[i], comment[i] = e.Helpful, e.Comment
	}
	b.Queue(`INSERT INTO analytics_events (project_id, at, kind, path, referrer, visitor, query, results, clicked, helpful, comment)
		SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::text[], $4::text[], $5::text[], $6::bytea[], $7::text[], $8::integer[],
			$9::text[], $10::boolean[], $11::text[])`, project, at, kind, path, referrer, visitor, query, results, clicked, helpful, comment)
}

// queueVisitors queues the insert of the visitors of each group that its
// aggregate had not counted yet, counting them in counted.
func queueVisitors(b *pgx.Batch, groups []tally.Row, counted []int64) {
	type key struct {
		project   string
		day       int64
		kind, key string
	}
	index := make(map[key]int, len(groups))
	var project, kind, k []string
	var day []time.Time
	var visitor [][]byte
	for i, g := range groups {
		index[key{g.ProjectID, g.Day.Unix(), string(g.Kind), g.Key}] = i
		for _, v := range g.Visitors {
			project, day, kind, k, visitor = append(project, g.ProjectID), append(day, g.Day), append(kind, string(g.Kind)), append(k, g.Key), append(visitor, v)
		}
	}
	b.Queue(`INSERT INTO analytics_day_visitors (project_id, day, kind, key, visitor)
		SELECT * FROM unnest($1::text[], $2::date[], $3::text[], $4::text[], $5::bytea[])
		ON CONFLICT DO NOTHING RETURNING project_id, day, kind, key`, project, day, kind, k, visitor).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			var x key
			var d time.Time
			if err := rows.Scan(&x.project, &d, &x.kind, &x.key); err != nil {
				return err
			}
			x.day = d.Unix()
			i, ok := index[x]
			if !ok {
				return errors.New("analytics: a counted visitor of no aggregate of the batch")
			}
			counted[i]++
		}
		return rows.Err()
	})
}

// queueSums queues the addition of sums to the rows of an aggregate
// table, head naming it (as a) and its key columns (those of tally.Group
// but the key for totals).
func queueSums(b *pgx.Batch, head string, sums []tally.Sum) {
	withKey := strings.HasSuffix(head, ", key")
	n := len(sums)
	project, kind, day, k := make([]string, n), make([]string, n), make([]time.Time, n), make([]string, n)
	counts := [6][]int64{}
	for c := range counts {
		counts[c] = make([]int64, n)
	}
	for i, x := range sums {
		project[i], kind[i], day[i], k[i] = x.ProjectID, string(x.Kind), x.Day, x.Key
		counts[0][i], counts[1][i], counts[2][i], counts[3][i], counts[4][i], counts[5][i] = x.N, x.Visitors, x.Clicks, x.Zero, x.Yes, x.No
	}
	args := []any{project, kind, day}
	cols := `$1::text[], $2::text[], $3::date[]`
	if withKey {
		args, cols = append(args, k), cols+`, $4::text[]`
	}
	for c := range counts {
		args = append(args, counts[c])
		cols += `, $` + strconv.Itoa(len(args)) + `::bigint[]`
	}
	conflict := head[strings.IndexByte(head, '(')+1:]
	b.Queue(`INSERT INTO `+head+`, n, visitors, clicks, zero, yes, no) SELECT * FROM unnest(`+cols+`)
		ON CONFLICT (`+conflict+`) DO UPDATE SET n = a.n + excluded.n, visitors = a.visitors + excluded.visitors,
		clicks = a.clicks + excluded.clicks, zero = a.zero + excluded.zero, yes = a.yes + excluded.yes, no = a.no + excluded.no`, args...)
}

// liveProject is the condition that $1 names a project that is not
// deleted.
const liveProject = `EXISTS (SELECT 1 FROM projects WHERE id = $1 AND deleted_at IS NULL)`

// AnalyticsDaily returns a project's totals of kind per day.
func (s *Store) AnalyticsDaily(ctx context.Context, projectID string, kind lectern.AnalyticsKind, from, to time.Time) ([]lectern.AnalyticsDay, error) {
	if err := store.CheckAnalyticsKind(kind); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT day, n, visitors, clicks, zero, yes, no FROM analytics_totals
		WHERE project_id = $1 AND kind = $2 AND day >= $3 AND day < $4 AND `+liveProject+` ORDER BY day`,
		text(projectID), string(kind), lectern.AnalyticsDate(from), lectern.AnalyticsDate(to))
	return collect(rows, err, func(row pgx.Row) (lectern.AnalyticsDay, error) {
		var d lectern.AnalyticsDay
		err := row.Scan(&d.Day, &d.N, &d.Visitors, &d.Clicks, &d.Zero, &d.Yes, &d.No)
		d.Day = d.Day.UTC()
		return d, err
	})
}

// AnalyticsTop returns a project's keys of kind with their sums over a
// range of days, the first of them: whole weeks read from the weekly
// aggregates, the days around them from the daily ones.
func (s *Store) AnalyticsTop(ctx context.Context, projectID string, kind lectern.AnalyticsKind, from, to time.Time, f store.AnalyticsTopFilter) ([]lectern.AnalyticsKey, error) {
	if err := store.CheckAnalyticsKind(kind); err != nil {
		return nil, err
	}
	limit, err := f.TopLimit()
	if err != nil {
		return nil, err
	}
	order := ` ORDER BY tn DESC, key`
	if f.ZeroOnly {
		order = ` HAVING sum(zero) > 0 ORDER BY tz DESC, tn DESC, key`
	}
	sp := tally.Split(from, to)
	const cols = `key, n, visitors, clicks, zero, yes, no`
	rows, err := s.pool.Query(ctx, `SELECT key, sum(n) AS tn, sum(visitors), sum(clicks), sum(zero) AS tz, sum(yes), sum(no) FROM (
			SELECT `+cols+` FROM analytics_weekly WHERE project_id = $1 AND kind = $2 AND week >= $3 AND week < $4
			UNION ALL SELECT `+cols+` FROM analytics_daily WHERE project_id = $1 AND kind = $2 AND day >= $5 AND day < $6
			UNION ALL SELECT `+cols+` FROM analytics_daily WHERE project_id = $1 AND kind = $2 AND day >= $7 AND day < $8) x
		WHERE `+liveProject+` GROUP BY key`+order+` LIMIT $9`, text(projectID), string(kind), sp.Weeks[0], sp.Weeks[1],
		sp.Days[0], sp.Days[1], sp.Days[2], sp.Days[3], limit)
	return collect(rows, err, func(row pgx.Row) (lectern.AnalyticsKey, error) {
		var k lectern.AnalyticsKey
		err := row.Scan(&k.Key, &k.N, &k.Visitors, &k.Clicks, &k.Zero, &k.Yes, &k.No)
		return k, err
	})
}

// ListAnalyticsComments returns a page of a project's feedback events
// with a comment, newest first.
func (s *Store) ListAnalyticsComments(ctx context.Context, projectID string, from, to time.Time, pg store.Page) ([]*lectern.AnalyticsEvent, error) {
	q := `SELECT id, project_id, at, kind, path, referrer, visitor, query, results, clicked, helpful, comment FROM analytics_events
		WHERE project_id = $1 AND comment <> '' AND ` + liveProject
	args := []any{text(projectID)}
	arg := func(v any) string {
		args = append(args, v)
		return `$` + strconv.Itoa(len(args))
	}
	if !from.IsZero() {
		q += ` AND at >= ` + arg(utc(from))
	}
	if !to.IsZero() {
		q += ` AND at < ` + arg(utc(to))
	}
	if pg.After != nil {
		id, err := store.AnalyticsCursorID(pg.After)
		if err != nil {
			return nil, err
		}
		q += ` AND (at, id) < (` + arg(utc(pg.After.At)) + `::timestamptz, ` + arg(id) + `::bigint)`
	}
	q += ` ORDER BY at DESC, id DESC`
	if pg.Limit > 0 {
		q += ` LIMIT ` + arg(pg.Limit)
	}
	rows, err := s.pool.Query(ctx, q, args...)
	return collect(rows, err, func(row pgx.Row) (*lectern.AnalyticsEvent, error) {
		var e lectern.AnalyticsEvent
		var kind string
		var visitor []byte
		if err := row.Scan(&e.ID, &e.ProjectID, &e.At, &kind, &e.Path, &e.Referrer, &visitor, &e.Query, &e.Results, &e.Clicked,
			&e.Helpful, &e.Comment); err != nil {
			return nil, err
		}
		e.At, e.Kind, e.Visitor = utc(e.At), lectern.AnalyticsKind(kind), hexString(visitor)
		return &e, nil
	})
}

// hexString returns b in lower-case hexadecimal.
func hexString(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 2*len(b))
	for i, c := range b {
		out[2*i], out[2*i+1] = digits[c>>4], digits[c&15]
	}
	return string(out)
}

// AnalyticsSalt returns the salt of day's UTC date, making it on the
// first call: INSERT ... ON CONFLICT DO NOTHING, then read, in a statement
// of its own (a snapshot taken after a racing insert that won committed),
// what the database holds.
func (s *Store) AnalyticsSalt(ctx context.Context, day time.Time) ([]byte, error) {
	d := lectern.AnalyticsDate(day)
	var salt []byte
	err := s.pool.QueryRow(ctx, `SELECT salt FROM analytics_salts WHERE day = $1`, d).Scan(&salt)
	if err == nil || !errors.Is(err, pgx.ErrNoRows) {
		return salt, wrap(err)
	}
	fresh := make([]byte, lectern.AnalyticsSaltLen)
	rand.Read(fresh)
	if _, err := s.pool.Exec(ctx, `INSERT INTO analytics_salts (day, salt) VALUES ($1, $2) ON CONFLICT (day) DO NOTHING`, d, fresh); err != nil {
		return nil, wrap(err)
	}
	err = s.pool.QueryRow(ctx, `SELECT salt FROM analytics_salts WHERE day = $1`, d).Scan(&salt)
	return salt, wrap(err)
}

// kinds are the kinds of aggregates, for prunes that walk a project's
// rows kind by kind.
const kinds = `'{pageview,search,feedback,visit,referrer}'::text[]`

// PruneAnalytics drops old raw events, counted visitors, aggregates and
// salts, up to limit of each.
func (s *Store) PruneAnalytics(ctx context.Context, rawBefore, dailyBefore time.Time, limit int) (int, error) {
	rawDay, dailyDay := lectern.AnalyticsDate(rawBefore), lectern.AnalyticsDate(dailyBefore)
	yesterday := lectern.AnalyticsDate(time.Now()).AddDate(0, 0, -1)
	total := 0
	for _, c := range []struct {
		q   string
		arg any
	}{
		{`DELETE FROM analytics_events WHERE id = ANY(ARRAY(SELECT e.id FROM projects p JOIN analytics_events e
			ON e.project_id = p.id AND e.at < $1 LIMIT $2 FOR UPDATE OF e SKIP LOCKED))`, utc(rawBefore)},
		{`DELETE FROM analytics_day_visitors WHERE ctid = ANY(ARRAY(SELECT v.ctid FROM projects p JOIN analytics_day_visitors v
			ON v.project_id = p.id AND v.day < $1 LIMIT $2 FOR UPDATE OF v SKIP LOCKED))`, rawDay},
		{`DELETE FROM analytics_daily WHERE ctid = ANY(ARRAY(SELECT d.ctid FROM projects p JOIN analytics_daily d
			ON d.project_id = p.id AND d.kind = ANY(` + kinds + `) AND d.day < $1 LIMIT $2 FOR UPDATE OF d SKIP LOCKED))`, dailyDay},
		{`DELETE FROM analytics_weekly WHERE ctid = ANY(ARRAY(SELECT w.ctid FROM projects p JOIN analytics_weekly w
			ON w.project_id = p.id AND w.kind = ANY(` + kinds + `) AND w.week <= $1::date - 7 LIMIT $2 FOR UPDATE OF w SKIP LOCKED))`, dailyDay},
		{`DELETE FROM analytics_totals WHERE ctid = ANY(ARRAY(SELECT t.ctid FROM projects p JOIN analytics_totals t
			ON t.project_id = p.id AND t.kind = ANY(` + kinds + `) AND t.day < $1 LIMIT $2 FOR UPDATE OF t SKIP LOCKED))`, dailyDay},
		{`DELETE FROM analytics_salts WHERE day = ANY(ARRAY(SELECT day FROM analytics_salts WHERE day < $1
			LIMIT $2 FOR UPDATE SKIP LOCKED))`, yesterday},
	} {
		tag, err := s.pool.Exec(ctx, c.q, c.arg, limitArg(limit))
		if err != nil {
			return total, wrap(err)
		}
		total += int(tag.RowsAffected())
	}
	return total, nil
}
