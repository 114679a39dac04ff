package httpapi

import (
	"context"
	"encoding/json"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/internal/csvfile"
	"lectern.dev/lectern/store"
)

// wantsCSV reports whether the Accept headers ask for CSV: they name
// text/csv with a non-zero quality, no lower than application/json's. Any
// other Accept, none included, gets JSON, as everywhere in the API.
func wantsCSV(accept []string) bool {
	qCSV, qJSON := -1.0, -1.0
	for _, h := range accept {
		for _, part := range strings.Split(h, ",") {
			typ, params, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err != nil {
				continue
			}
			q := 1.0
			if s, ok := params["q"]; ok {
				if v, err := strconv.ParseFloat(s, 64); err == nil && v >= 0 && v <= 1 {
					q = v
				}
			}
			switch typ {
			case "text/csv":
				qCSV = max(qCSV, q)
			case "application/json":
				qJSON = max(qJSON, q)
			}
		}
	}
	return qCSV > 0 && qCSV >= qJSON
}

// writeCSV answers rows, a header row first, as csvfile writes them
// (RFC 4180, formulas defused), offered for download as name.
func writeCSV(w http.ResponseWriter, name string, rows [][]string) { csvfile.Write(w, name, rows) }

// The reports for other readers than the API's handlers: the dashboard
// shows and offers for download exactly what the API answers, through the
// same code (the range's rules and messages, the reports, their CSV).

// AnalyticsReports are the names of the analytics reports, as in their
// paths.
var AnalyticsReports = []string{"views", "searches", "feedback", "assistant"}

// AnalyticsMaxDays is the longest range, in days, a report covers.
const AnalyticsMaxDays = analyticsMaxDays

// AnalyticsQuery is a report's range, From to To in whole UTC days (both
// midnight UTC, To included), and the length of its lists.
type AnalyticsQuery struct {
	From, To time.Time
	Limit    int
}

// ParseAnalyticsQuery reads from, to and limit from vals as the API's
// reports read their query ("" or absent: the default), today being now's
// UTC date: the same defaults, bounds and EINVALID errors, whose Fields
// name the parameters. vals must hold nothing else.
func ParseAnalyticsQuery(vals url.Values, now time.Time) (AnalyticsQuery, error) {
	clean := url.Values{}
	for name, vs := range vals {
		if len(vs) != 1 || vs[0] != "" {
			clean[name] = vs
		}
	}
	// parseAnalyticsQuery reads a request's query; this one is never sent.
	q, err := parseAnalyticsQuery(&http.Request{URL: &url.URL{RawQuery: clean.Encode()}}, now)
	if err != nil {
		return AnalyticsQuery{}, err
	}
	return AnalyticsQuery{From: q.from, To: q.to, Limit: q.limit}, nil
}

// AnalyticsReport is one report as the API answers it.
type AnalyticsReport struct{ body analyticsBody }

// ReadAnalytics builds report (one of AnalyticsReports) of project p over
// q, as GET /v1/analytics/{projectId}/{report} does; ENOTFOUND for
// another report. Whether p is the caller's is the caller's business.
func ReadAnalytics(ctx context.Context, st store.Store, p *lectern.Project, report string, q AnalyticsQuery) (*AnalyticsReport, error) {
	a := &api{store: st}
	build := map[string]func(context.Context, *lectern.Project, analyticsQuery) (analyticsBody, error){
		"views": a.viewsReport, "searches": a.searchesReport, "feedback": a.feedbackReport, "assistant": a.assistantReport,
	}[report]
	if build == nil {
		return nil, lectern.Errorf(lectern.ENOTFOUND, "there is no analytics report %q: use views, searches, feedback or assistant", report)
	}
	if q.Limit == 0 {
		q.Limit = store.DefaultAnalyticsTop
	}
	body, err := build(ctx, p, analyticsQuery{from: lectern.AnalyticsDate(q.From), to: lectern.AnalyticsDate(q.To), limit: q.Limit})
	if err != nil {
		return nil, err
	}
	return &AnalyticsReport{body: body}, nil
}

// FileName is the name the report's CSV is offered as.
func (r *AnalyticsReport) FileName() string { return r.body.csvName() }

// Table is the report's CSV table, its header row first (not yet defused:
// csvfile does that as it writes).
func (r *AnalyticsReport) Table() [][]string { return r.body.table() }

// Decode stores the report's JSON body in out, as json.Unmarshal would
// the API's answer (the client package's types mirror it).
func (r *AnalyticsReport) Decode(out any) error {
	b, err := json.Marshal(r.body)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}
