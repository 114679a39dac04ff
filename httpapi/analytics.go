package httpapi

import (
	"context"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

// The analytics reports, GET /v1/analytics/{projectId}/{views,searches,
// feedback,assistant}: what readers of a project's live sites did over a
// range of UTC days, as JSON or, with Accept: text/csv, one of the report's
// tables as CSV (analytics_csv.go). The assistant's report is in
// analytics_assistant.go.

// Bounds of a report's query.
const (
	// analyticsDefaultDays is the range of a report that names no from.
	analyticsDefaultDays = 30
	// analyticsMaxDays is the longest range, in days, a report covers:
	// two years, one of them a leap year, as --analytics-aggregate-retention
	// keeps by default.
	analyticsMaxDays = 731
)

// dayLayout is how days are written: a date, UTC.
const dayLayout = "2006-01-02"

// analyticsEpoch is the first day a report may name: no site counted
// anything before it (and the stores number days from it).
var analyticsEpoch = time.Unix(0, 0).UTC()

// analyticsQuery is a report's range, [from, to] in whole UTC days, and
// the length of its top lists.
type analyticsQuery struct {
	from, to time.Time // midnight UTC, to inclusive
	limit    int
}

// end is the store's exclusive end of the range: the day after to.
func (q analyticsQuery) end() time.Time { return q.to.AddDate(0, 0, 1) }

// days returns every day of the range, oldest first.
func (q analyticsQuery) days() []time.Time {
	var out []time.Time
	for d := q.from; !d.After(q.to); d = d.AddDate(0, 0, 1) {
		out = append(out, d)
	}
	return out
}

// parseAnalyticsQuery reads from, to and limit, refusing any other
// parameter (a misspelt from would otherwise silently report another
// range). now gives today's date, the default to.
func parseAnalyticsQuery(r *http.Request, now time.Time) (analyticsQuery, error) {
	vals := r.URL.Query()
	q := analyticsQuery{to: lectern.AnalyticsDate(now), limit: store.DefaultAnalyticsTop}
	var fields []lectern.FieldError
	bad := func(name, msg string) { fields = append(fields, lectern.FieldError{Field: name, Message: msg}) }
	names := make([]string, 0, len(vals))
	for name := range vals {
		names = append(names, name)
	}
	slices.Sort(names)
	var fromGiven bool
	for _, name := range names {
		vs := vals[name]
		if len(vs) > 1 {
			bad(name, "must be given once")
			continue
		}
		switch v := vs[0]; name {
		case "from", "to":
			d, ok := parseDay(v)
			if !ok {
				bad(name, "must be a date like 2026-01-31 (a UTC day) or an RFC 3339 time like 2026-01-31T09:00:00Z (its UTC day)")
			} else if d.Before(analyticsEpoch) {
				bad(name, "must be 1970-01-01 or later")
			} else if name == "from" {
				q.from, fromGiven = d, true
			} else {
				q.to = d
			}
		case "limit":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > store.MaxAnalyticsTop {
				bad(name, "must be a whole number from 1 to "+strconv.Itoa(store.MaxAnalyticsTop))
			} else {
				q.limit = n
			}
		default:
			bad(name, "is not a parameter of analytics reports: give from, to and limit only")
		}
	}
	if len(fields) > 0 {
		return q, queryErrors(fields)
	}
	if !fromGiven {
		q.from = q.to.AddDate(0, 0, -(analyticsDefaultDays - 1))
	}
	switch days := int(q.to.Sub(q.from)/(24*time.Hour)) + 1; {
	case q.from.After(q.to):
		return q, queryError("from", "is after to ("+q.from.Format(dayLayout)+" > "+q.to.Format(dayLayout)+"): give from at or before to")
	case days > analyticsMaxDays:
		return q, queryError("from", "makes the range "+strconv.Itoa(days)+" days long; a report covers at most "+
			strconv.Itoa(analyticsMaxDays)+" days: give a later from or an earlier to")
	}
	return q, nil
}

// parseDay reads a date (YYYY-MM-DD, a UTC day) or an RFC 3339 time,
// taken at its UTC date.
func parseDay(s string) (time.Time, bool) {
	if t, err := time.Parse(dayLayout, s); err == nil {
		return t, true
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return lectern.AnalyticsDate(t), true
	}
	return time.Time{}, false
}

// queryErrors is an EINVALID error naming every bad query parameter.
func queryErrors(fields []lectern.FieldError) error {
	if len(fields) == 1 {
		return queryError(fields[0].Field, fields[0].Message)
	}
	msgs := make([]string, len(fields))
	for i, f := range fields {
		msgs[i] = f.Field + " " + f.Message
	}
	return &lectern.Error{Code: lectern.EINVALID, Message: "Query parameters: " + strings.Join(msgs, "; ") + ".", Fields: fields}
}

// analyticsReport answers one report: the organization's project, the
// range, then build's report, written as JSON or as its CSV table.
func (a *api) analyticsReport(build func(ctx context.Context, p *lectern.Project, q analyticsQuery) (analyticsBody, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, err := a.ownedProject(r)
		var q analyticsQuery
		if err == nil {
			q, err = parseAnalyticsQuery(r, time.Now())
		}
		var body analyticsBody
		if err == nil {
			body, err = build(r.Context(), p, q)
		}
		if err != nil {
			writeError(w, r, a.log, err)
			return
		}
		w.Header().Set("Vary", "Accept")
		if wantsCSV(r.Header.Values("Accept")) {
			writeCSV(w, body.csvName(), body.table())
			return
		}
		writeJSON(w, http.StatusOK, body)
	})
}

// analyticsBody is a report: its JSON body, and the table its CSV holds.
type analyticsBody interface {
	table() [][]string
	csvName() string
}

// reportHead is what every report starts with.
type reportHead struct {
	ProjectID string `json:"projectId"`
	From      string `json:"from"`
	To        string `json:"to"`
	report    string
}

func headOf(report string, p *lectern.Project, q analyticsQuery) reportHead {
	return reportHead{ProjectID: p.ID, From: q.from.Format(dayLayout), To: q.to.Format(dayLayout), report: report}
}

// csvName is the file name a report's CSV is offered as.
func (h reportHead) csvName() string {
	return "analytics-" + h.report + "-" + h.ProjectID + "-" + h.From + "-to-" + h.To + ".csv"
}

// dailyOf returns the project's daily sums of kind for every day of the
// range, a zero for each day without events, oldest first.
func (a *api) dailyOf(ctx context.Context, p *lectern.Project, kind lectern.AnalyticsKind, q analyticsQuery) ([]lectern.AnalyticsDay, error) {
	got, err := a.store.AnalyticsDaily(ctx, p.ID, kind, q.from, q.end())
	if err != nil {
		return nil, err
	}
	byDay := make(map[int64]lectern.AnalyticsDay, len(got))
	for _, d := range got {
		byDay[d.Day.Unix()] = d
	}
	days := q.days()
	out := make([]lectern.AnalyticsDay, len(days))
	for i, d := range days {
		out[i] = byDay[d.Unix()]
		out[i].Day = d
	}
	return out, nil
}

// topOf returns the first keys of kind over the range.
func (a *api) topOf(ctx context.Context, p *lectern.Project, kind lectern.AnalyticsKind, q analyticsQuery, zeroOnly bool) ([]lectern.AnalyticsKey, error) {
	return a.store.AnalyticsTop(ctx, p.ID, kind, q.from, q.end(), store.AnalyticsTopFilter{Limit: q.limit, ZeroOnly: zeroOnly})
}

// ratio is part/whole rounded to 3 decimals, 0 for no whole.
func ratio(part, whole int64) float64 {
	if whole <= 0 {
		return 0
	}
	return math.Round(float64(part)/float64(whole)*1000) / 1000
}

// countCell writes a count for a CSV cell.
func countCell(n int64) string { return strconv.FormatInt(n, 10) }

// The views report.
type (
	viewsReport struct {
		reportHead
		Totals    viewCount     `json:"totals"`
		Days      []viewDay     `json:"days"`
		Pages     []pageViews   `json:"pages"`
		Referrers []referrerRow `json:"referrers"`
	}
	viewCount struct {
		Views    int64 `json:"views"`
		Visitors int64 `json:"visitors"`
	}
	viewDay struct {
		Day string `json:"day"`
		viewCount
	}
	pageViews struct {
		Path string `json:"path"`
		viewCount
	}
	referrerRow struct {
		Host string `json:"host"`
		viewCount
	}
)

func (a *api) viewsReport(ctx context.Context, p *lectern.Project, q analyticsQuery) (analyticsBody, error) {
	days, err := a.dailyOf(ctx, p, lectern.AnalyticsVisit, q)
	if err != nil {
		return nil, err
	}
	pages, err := a.topOf(ctx, p, lectern.AnalyticsPageview, q, false)
	if err != nil {
		return nil, err
	}
	refs, err := a.topOf(ctx, p, lectern.AnalyticsReferrer, q, false)
	if err != nil {
		return nil, err
	}
	out := &viewsReport{reportHead: headOf("views", p, q), Days: make([]viewDay, len(days)),
		Pages: make([]pageViews, len(pages)), Referrers: make([]referrerRow, len(refs))}
	for i, d := range days {
		out.Days[i] = viewDay{Day: d.Day.Format(dayLayout), viewCount: viewCount{d.N, d.Visitors}}
		out.Totals.Views += d.N
		out.Totals.Visitors += d.Visitors
	}
	for i, k := range pages {
		out.Pages[i] = pageViews{Path: k.Key, viewCount: viewCount{k.N, k.Visitors}}
	}
	for i, k := range refs {
		out.Referrers[i] = referrerRow{Host: k.Key, viewCount: viewCount{k.N, k.Visitors}}
	}
	return out, nil
}

// table is the views' CSV: the top pages.
func (v *viewsReport) table() [][]string {
	rows := [][]string{{"path", "views", "visitors"}}
	for _, p := range v.Pages {
		rows = append(rows, []string{p.Path, countCell(p.Views), countCell(p.Visitors)})
	}
	return rows
}

// The searches report.
type (
	searchesReport struct {
		reportHead
		Totals    searchTotals  `json:"totals"`
		Days      []searchDay   `json:"days"`
		Queries   []queryRow    `json:"queries"`
		NoResults []noResultRow `json:"noResults"`
	}
	searchCount struct {
		Searches  int64 `json:"searches"`
		Clicks    int64 `json:"clicks"`
		NoResults int64 `json:"noResults"`
	}
	searchTotals struct {
		searchCount
		ClickThrough float64 `json:"clickThrough"`
	}
	searchDay struct {
		Day string `json:"day"`
		searchCount
	}
	queryRow struct {
		Query string `json:"query"`
		searchCount
		ClickThrough float64 `json:"clickThrough"`
	}
	noResultRow struct {
		Query    string `json:"query"`
		Searches int64  `json:"searches"`
	}
)

func (a *api) searchesReport(ctx context.Context, p *lectern.Project, q analyticsQuery) (analyticsBody, error) {
	days, err := a.dailyOf(ctx, p, lectern.AnalyticsSearch, q)
	if err != nil {
		return nil, err
	}
	queries, err := a.topOf(ctx, p, lectern.AnalyticsSearch, q, false)
	if err != nil {
		return nil, err
	}
	zero, err := a.topOf(ctx, p, lectern.AnalyticsSearch, q, true)
	if err != nil {
		return nil, err
	}
	out := &searchesReport{reportHead: headOf("searches", p, q), Days: make([]searchDay, len(days)),
		Queries: make([]queryRow, len(queries)), NoResults: make([]noResultRow, len(zero))}
	for i, d := range days {
		c := searchCount{d.N, d.Clicks, d.Zero}
		out.Days[i] = searchDay{Day: d.Day.Format(dayLayout), searchCount: c}
		out.Totals.Searches += c.Searches
		out.Totals.Clicks += c.Clicks
		out.Totals.NoResults += c.NoResults
	}
	out.Totals.ClickThrough = ratio(out.Totals.Clicks, out.Totals.Searches)
	for i, k := range queries {
		out.Queries[i] = queryRow{Query: k.Key, searchCount: searchCount{k.N, k.Clicks, k.Zero}, ClickThrough: ratio(k.Clicks, k.N)}
	}
	for i, k := range zero {
		out.NoResults[i] = noResultRow{Query: k.Key, Searches: k.Zero}
	}
	return out, nil
}

// table is the searches' CSV: the top queries.
func (s *searchesReport) table() [][]string {
	rows := [][]string{{"query", "searches", "clicks", "noResults", "clickThrough"}}
	for _, q := range s.Queries {
		rows = append(rows, []string{q.Query, countCell(q.Searches), countCell(q.Clicks), countCell(q.NoResults),
			strconv.FormatFloat(q.ClickThrough, 'f', -1, 64)})
	}
	return rows
}

// The feedback report.
type (
	feedbackReport struct {
		reportHead
		Totals   votes         `json:"totals"`
		Days     []feedbackDay `json:"days"`
		Pages    []pageVotes   `json:"pages"`
		Comments []commentRow  `json:"comments"`
	}
	votes struct {
		Helpful    int64 `json:"helpful"`
		NotHelpful int64 `json:"notHelpful"`
	}
	feedbackDay struct {
		Day string `json:"day"`
		votes
	}
	pageVotes struct {
		Path string `json:"path"`
		votes
	}
	commentRow struct {
		At      time.Time `json:"at"`
		Path    string    `json:"path"`
		Helpful bool      `json:"helpful"`
		Comment string    `json:"comment"`
	}
)

func (a *api) feedbackReport(ctx context.Context, p *lectern.Project, q analyticsQuery) (analyticsBody, error) {
	days, err := a.dailyOf(ctx, p, lectern.AnalyticsFeedback, q)
	if err != nil {
		return nil, err
	}
	pages, err := a.topOf(ctx, p, lectern.AnalyticsFeedback, q, false)
	if err != nil {
		return nil, err
	}
	comments, err := a.store.ListAnalyticsComments(ctx, p.ID, q.from, q.end(), store.Page{Limit: q.limit})
	if err != nil {
		return nil, err
	}
	out := &feedbackReport{reportHead: headOf("feedback", p, q), Days: make([]feedbackDay, len(days)),
		Pages: make([]pageVotes, len(pages)), Comments: make([]commentRow, 0, len(comments))}
	for i, d := range days {
		out.Days[i] = feedbackDay{Day: d.Day.Format(dayLayout), votes: votes{d.Yes, d.No}}
		out.Totals.Helpful += d.Yes
		out.Totals.NotHelpful += d.No
	}
	for i, k := range pages {
		out.Pages[i] = pageVotes{Path: k.Key, votes: votes{k.Yes, k.No}}
	}
	for _, e := range comments {
		out.Comments = append(out.Comments, commentRow{At: e.At.UTC(), Path: e.Path, Helpful: e.Helpful != nil && *e.Helpful, Comment: e.Comment})
	}
	return out, nil
}

// table is the feedback's CSV: the comments.
func (f *feedbackReport) table() [][]string {
	rows := [][]string{{"at", "path", "helpful", "comment"}}
	for _, c := range f.Comments {
		rows = append(rows, []string{c.At.Format(time.RFC3339Nano), c.Path, strconv.FormatBool(c.Helpful), c.Comment})
	}
	return rows
}
