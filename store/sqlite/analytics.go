package sqlite

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"strings"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
	"lectern.dev/lectern/store/internal/tally"
)

// Web analytics (store.Analytics). RecordAnalytics writes a batch in one
// immediate transaction with multi-row statements: the raw events, the
// visitors each aggregate counts (INSERT ... ON CONFLICT DO NOTHING
// RETURNING the rows inserted: only those add to Visitors), then the
// aggregates (INSERT ... ON CONFLICT DO UPDATE adding to the counts).
// Writes are serialized, so the projects checked at the start stay as
// they are until the commit.
//
// Prunes walk the projects and each project's rows through the primary
// keys and indexes that start with project_id, rather than keeping
// indexes by day or time only for them: every analytics row is of a
// project in the projects table, as RecordAnalytics writes only live
// projects' and PurgeProject drops a project's rows with it.

// Rows per multi-row statement, within SQLite's 32,766 variables.
const (
	eventChunk   = 400  // 11 variables a row
	visitorChunk = 1000 // 5
	sumChunk     = 500  // 10
	projectChunk = 500  // 1
)

// dayNum returns the stored day of t's UTC date: days since the epoch.
func dayNum(t time.Time) int64 { return lectern.AnalyticsDate(t).Unix() / 86400 }

// fromDayNum returns a stored day's midnight UTC.
func fromDayNum(n int64) time.Time { return time.Unix(n*86400, 0).UTC() }

// chunks calls fn with each run of up to size of n items: [i, j).
func chunks(n, size int, fn func(i, j int) error) error {
	for i := 0; i < n; i += size {
		if err := fn(i, min(i+size, n)); err != nil {
			return err
		}
	}
	return nil
}

// valuesSQL returns head followed by n rows of cols placeholders each.
func valuesSQL(head string, cols, n int) string {
	row := "(" + placeholders(cols) + ")"
	var b strings.Builder
	b.Grow(len(head) + n*(len(row)+2))
	b.WriteString(head)
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(row)
	}
	return b.String()
}

// dayKey names an aggregate by its stored columns.
type dayKey struct {
	project   string
	day       int64
	kind, key string
}

// RecordAnalytics stores a batch of events and adds them to their
// projects' daily aggregates, in one transaction.
func (s *Store) RecordAnalytics(ctx context.Context, events []lectern.AnalyticsEvent) error {
	evs, err := lectern.BoundAnalytics(events)
	if err != nil || len(evs) == 0 {
		return err
	}
	return wrap(s.tx(ctx, func(tx *sql.Tx) error {
		live, err := liveProjects(ctx, tx, tally.Projects(evs))
		if err != nil {
			return err
		}
		if evs = tally.Keep(evs, live); len(evs) == 0 {
			return nil
		}
		if err := insertEvents(ctx, tx, evs); err != nil {
			return err
		}
		rows := tally.Rows(evs)
		counted, err := countVisitors(ctx, tx, rows)
		if err != nil {
			return err
		}
		daily, weekly, totals := tally.Sums(rows, counted)
		for _, u := range []struct {
			head string
			sums []tally.Sum
		}{
			{`analytics_daily (project_id, kind, day, key`, daily},
			{`analytics_weekly (project_id, kind, week, key`, weekly},
			{`analytics_totals (project_id, kind, day`, totals},
		} {
			if err := addSums(ctx, tx, u.head, u.sums); err != nil {
				return err
			}
		}
		return nil
	}))
}

// addSums adds sums to the rows of an aggregate table, head naming it and
// its key columns (those of tally.Group but the key for totals).
func addSums(ctx context.Context, tx *sql.Tx, head string, sums []tally.Sum) error {
	keys := strings.Count(head, ",") + 1
	conflict := head[strings.IndexByte(head, '('):] + ")"
	return chunks(len(sums), sumChunk, func(i, j int) error {
		args := make([]any, 0, (j-i)*(keys+6))
		for _, x := range sums[i:j] {
			args = append(args, x.ProjectID, string(x.Kind), dayNum(x.Day))
			if keys == 4 {
				args = append(args, x.Key)
			}
			args = append(args, x.N, x.Visitors, x.Clicks, x.Zero, x.Yes, x.No)
		}
		_, err := tx.ExecContext(ctx, valuesSQL(`INSERT INTO `+head+`, n, visitors, clicks, zero, yes, no) VALUES `, keys+6, j-i)+
			` ON CONFLICT `+conflict+` DO UPDATE SET n = n + excluded.n, visitors = visitors + excluded.visitors,
			clicks = clicks + excluded.clicks, zero = zero + excluded.zero, yes = yes + excluded.yes, no = no + excluded.no`, args...)
		return err
	})
}

// liveProjects returns which of ids name projects that are not deleted.
func liveProjects(ctx context.Context, tx *sql.Tx, ids []string) (map[string]bool, error) {
	live := map[string]bool{}
	err := chunks(len(ids), projectChunk, func(i, j int) error {
		args := make([]any, j-i)
		for k, id := range ids[i:j] {
			args[k] = id
		}
		got, err := readIDs(ctx, tx, `SELECT id FROM projects WHERE deleted_at IS NULL AND id IN (`+placeholders(j-i)+`)`, args...)
		for _, id := range got {
			live[id] = true
		}
		return err
	})
	return live, err
}

// insertEvents stores the raw events.
func insertEvents(ctx context.Context, tx *sql.Tx, evs []lectern.AnalyticsEvent) error {
	return chunks(len(evs), eventChunk, func(i, j int) error {
		args := make([]any, 0, (j-i)*11)
		for _, e := range evs[i:j] {
			var helpful sql.NullBool
			if e.Helpful != nil {
				helpful = sql.NullBool{Bool: *e.Helpful, Valid: true}
			}
			args = append(args, e.ProjectID, ts(e.At), string(e.Kind), e.Path, e.Referrer, tally.Visitor(e.Visitor), e.Query, e.Results,
				e.Clicked, helpful, e.Comment)
		}
		_, err := tx.ExecContext(ctx, valuesSQL(`INSERT INTO analytics_events (project_id, at, kind, path, referrer, visitor, query, results,
			clicked, helpful, comment) VALUES `, 11, j-i), args...)
		return err
	})
}

// countVisitors records the visitors of each row that its aggregate had
// not counted yet, and returns how many each row adds.
func countVisitors(ctx context.Context, tx *sql.Tx, rows []tally.Row) ([]int64, error) {
	type visitor struct {
		row int
		v   []byte
	}
	var vs []visitor
	index := make(map[dayKey]int, len(rows))
	for i, r := range rows {
		index[dayKey{r.ProjectID, dayNum(r.Day), string(r.Kind), r.Key}] = i
		for _, v := range r.Visitors {
			vs = append(vs, visitor{i, v})
		}
	}
	counted := make([]int64, len(rows))
	err := chunks(len(vs), visitorChunk, func(i, j int) error {
		args := make([]any, 0, (j-i)*5)
		for _, x := range vs[i:j] {
			r := rows[x.row]
			args = append(args, r.ProjectID, dayNum(r.Day), string(r.Kind), r.Key, x.v)
		}
		res, err := tx.QueryContext(ctx, valuesSQL(`INSERT INTO analytics_day_visitors (project_id, day, kind, key, visitor) VALUES `, 5, j-i)+
			` ON CONFLICT DO NOTHING RETURNING project_id, day, kind, key`, args...)
		if err != nil {
			return err
		}
		defer res.Close()
		for res.Next() {
			var k dayKey
			if err := res.Scan(&k.project, &k.day, &k.kind, &k.key); err != nil {
				return err
			}
			i, ok := index[k]
			if !ok {
				return errors.New("analytics: a counted visitor of no aggregate of the batch")
			}
			counted[i]++
		}
		return res.Err()
	})
	return counted, err
}

// liveProject is the condition that ?1 names a project that is not
// deleted.
const liveProject = `EXISTS (SELECT 1 FROM projects WHERE id = ?1 AND deleted_at IS NULL)`

// AnalyticsDaily returns a project's totals of kind per day.
func (s *Store) AnalyticsDaily(ctx context.Context, projectID string, kind lectern.AnalyticsKind, from, to time.Time) ([]lectern.AnalyticsDay, error) {
	if err := store.CheckAnalyticsKind(kind); err != nil {
		return nil, err
	}
	rows, err := s.r.QueryContext(ctx, `SELECT day, n, visitors, clicks, zero, yes, no FROM analytics_totals
		WHERE project_id = ?1 AND kind = ?2 AND day >= ?3 AND day < ?4 AND `+liveProject+` ORDER BY day`,
		projectID, string(kind), dayNum(from), dayNum(to))
	return collect(rows, err, func(row interface{ Scan(...any) error }) (lectern.AnalyticsDay, error) {
		var d lectern.AnalyticsDay
		var day int64
		err := row.Scan(&day, &d.N, &d.Visitors, &d.Clicks, &d.Zero, &d.Yes, &d.No)
		d.Day = fromDayNum(day)
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
		order = ` HAVING tz > 0 ORDER BY tz DESC, tn DESC, key`
	}
	sp := tally.Split(from, to)
	const cols = `key, n, visitors, clicks, zero, yes, no`
	rows, err := s.r.QueryContext(ctx, `SELECT key, sum(n) AS tn, sum(visitors), sum(clicks), sum(zero) AS tz, sum(yes), sum(no) FROM (
			SELECT `+cols+` FROM analytics_weekly WHERE project_id = ?1 AND kind = ?2 AND week >= ?3 AND week < ?4
			UNION ALL SELECT `+cols+` FROM analytics_daily WHERE project_id = ?1 AND kind = ?2 AND day >= ?5 AND day < ?6
			UNION ALL SELECT `+cols+` FROM analytics_daily WHERE project_id = ?1 AND kind = ?2 AND day >= ?7 AND day < ?8)
		WHERE `+liveProject+` GROUP BY key`+order+` LIMIT ?9`, projectID, string(kind), dayNum(sp.Weeks[0]), dayNum(sp.Weeks[1]),
		dayNum(sp.Days[0]), dayNum(sp.Days[1]), dayNum(sp.Days[2]), dayNum(sp.Days[3]), limit)
	return collect(rows, err, func(row interface{ Scan(...any) error }) (lectern.AnalyticsKey, error) {
		var k lectern.AnalyticsKey
		err := row.Scan(&k.Key, &k.N, &k.Visitors, &k.Clicks, &k.Zero, &k.Yes, &k.No)
		return k, err
	})
}

// ListAnalyticsComments returns a page of a project's feedback events
// with a comment, newest first.
func (s *Store) ListAnalyticsComments(ctx context.Context, projectID string, from, to time.Time, pg store.Page) ([]*lectern.AnalyticsEvent, error) {
	// Without statistics SQLite takes analytics_events_project_at and
	// reads every event of the range; the partial index holds the few
	// with a comment.
	q := `SELECT id, project_id, at, kind, path, referrer, visitor, query, results, clicked, helpful, comment FROM analytics_events
		INDEXED BY analytics_events_comments WHERE project_id = ?1 AND comment <> '' AND ` + liveProject
	args := []any{projectID}
	if !from.IsZero() {
		q += ` AND at >= ?`
		args = append(args, ts(from))
	}
	if !to.IsZero() {
		q += ` AND at < ?`
		args = append(args, ts(to))
	}
	if pg.After != nil {
		id, err := store.AnalyticsCursorID(pg.After)
		if err != nil {
			return nil, err
		}
		at := ts(pg.After.At)
		q += ` AND (at < ? OR (at = ? AND id < ?))`
		args = append(args, at, at, id)
	}
	q += ` ORDER BY at DESC, id DESC`
	if pg.Limit > 0 {
		q += ` LIMIT ?`
		args = append(args, pg.Limit)
	}
	rows, err := s.r.QueryContext(ctx, q, args...)
	return collect(rows, err, func(row interface{ Scan(...any) error }) (*lectern.AnalyticsEvent, error) {
		var e lectern.AnalyticsEvent
		var at int64
		var kind string
		var visitor []byte
		var helpful sql.NullBool
		if err := row.Scan(&e.ID, &e.ProjectID, &at, &kind, &e.Path, &e.Referrer, &visitor, &e.Query, &e.Results, &e.Clicked,
			&helpful, &e.Comment); err != nil {
			return nil, err
		}
		e.At, e.Kind, e.Visitor = fromTS(at), lectern.AnalyticsKind(kind), hexString(visitor)
		if helpful.Valid {
			e.Helpful = &helpful.Bool
		}
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
// first call: INSERT OR IGNORE, then read what the database holds.
func (s *Store) AnalyticsSalt(ctx context.Context, day time.Time) ([]byte, error) {
	d := dayNum(day)
	var salt []byte
	err := s.r.QueryRowContext(ctx, `SELECT salt FROM analytics_salts WHERE day = ?`, d).Scan(&salt)
	if err == nil || !errors.Is(err, sql.ErrNoRows) {
		return salt, wrap(err)
	}
	fresh := make([]byte, lectern.AnalyticsSaltLen)
	rand.Read(fresh)
	if _, err := s.w.ExecContext(ctx, `INSERT OR IGNORE INTO analytics_salts (day, salt) VALUES (?, ?)`, d, fresh); err != nil {
		return nil, wrap(err)
	}
	err = s.w.QueryRowContext(ctx, `SELECT salt FROM analytics_salts WHERE day = ?`, d).Scan(&salt)
	return salt, wrap(err)
}

// PruneAnalytics drops old raw events, counted visitors, aggregates and
// salts, up to limit of each.
func (s *Store) PruneAnalytics(ctx context.Context, rawBefore, dailyBefore time.Time, limit int) (int, error) {
	yesterday := dayNum(time.Now()) - 1
	total := 0
	for _, c := range []struct {
		q   string
		arg int64
	}{
		{`DELETE FROM analytics_events WHERE id IN (SELECT e.id FROM projects p CROSS JOIN analytics_events e
			ON e.project_id = p.id AND e.at < ?1 LIMIT ?2)`, ts(rawBefore)},
		{`DELETE FROM analytics_day_visitors WHERE (project_id, day, kind, key, visitor) IN (SELECT v.project_id, v.day, v.kind, v.key, v.visitor
			FROM projects p CROSS JOIN analytics_day_visitors v ON v.project_id = p.id AND v.day < ?1 LIMIT ?2)`, dayNum(rawBefore)},
		{`DELETE FROM analytics_daily WHERE (project_id, kind, day, key) IN (SELECT d.project_id, d.kind, d.day, d.key
			FROM projects p CROSS JOIN analytics_daily d ON d.project_id = p.id
				AND d.kind IN ('pageview', 'search', 'feedback', 'visit', 'referrer') AND d.day < ?1 LIMIT ?2)`, dayNum(dailyBefore)},
		{`DELETE FROM analytics_weekly WHERE (project_id, kind, week, key) IN (SELECT w.project_id, w.kind, w.week, w.key
			FROM projects p CROSS JOIN analytics_weekly w ON w.project_id = p.id
				AND w.kind IN ('pageview', 'search', 'feedback', 'visit', 'referrer') AND w.week <= ?1 - 7 LIMIT ?2)`, dayNum(dailyBefore)},
		{`DELETE FROM analytics_totals WHERE (project_id, kind, day) IN (SELECT t.project_id, t.kind, t.day
			FROM projects p CROSS JOIN analytics_totals t ON t.project_id = p.id
				AND t.kind IN ('pageview', 'search', 'feedback', 'visit', 'referrer') AND t.day < ?1 LIMIT ?2)`, dayNum(dailyBefore)},
		{`DELETE FROM analytics_salts WHERE day IN (SELECT day FROM analytics_salts WHERE day < ?1 LIMIT ?2)`, yesterday},
	} {
		res, err := s.w.ExecContext(ctx, c.q, c.arg, limit)
		if err != nil {
			return total, wrap(err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return total, wrap(err)
		}
		total += int(n)
	}
	return total, nil
}
