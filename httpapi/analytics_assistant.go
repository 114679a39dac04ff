package httpapi

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

// maxAssistantReport is the most questions the assistant's report reads:
// the newest of the range. Its totals and cited pages cover those only,
// and it says truncated when the range held more.
const maxAssistantReport = 10_000

// assistantReportPage is how many questions one read of the store takes.
const assistantReportPage = 200

// The assistant report.
type (
	assistantReport struct {
		reportHead
		// Truncated is set when the range held more than
		// maxAssistantReport questions: the report covers the newest.
		Truncated  bool            `json:"truncated"`
		Totals     assistantTotals `json:"totals"`
		Questions  []questionRow   `json:"questions"`
		CitedPages []citedPage     `json:"citedPages"`
	}
	assistantTotals struct {
		Questions   int64 `json:"questions"`
		Answered    int64 `json:"answered"`
		NotAnswered int64 `json:"notAnswered"`
		Helpful     int64 `json:"helpful"`
		NotHelpful  int64 `json:"notHelpful"`
	}
	questionRow struct {
		ID        string                  `json:"id"`
		At        time.Time               `json:"at"`
		Source    lectern.AssistantSource `json:"source"`
		Domain    string                  `json:"domain"`
		Question  string                  `json:"question"`
		Found     bool                    `json:"found"`
		Helpful   *bool                   `json:"helpful"`
		Citations []string                `json:"citations"`
	}
	citedPage struct {
		URL       string `json:"url"`
		Citations int64  `json:"citations"`
	}
)

func (a *api) assistantReport(ctx context.Context, p *lectern.Project, q analyticsQuery) (analyticsBody, error) {
	out := &assistantReport{reportHead: headOf("assistant", p, q), Questions: []questionRow{}, CitedPages: []citedPage{}}
	cited := map[string]int64{}
	truncated, err := a.eachAssistantMessage(ctx, p.ID, q, func(i int, m *lectern.AssistantMessage) {
		t := &out.Totals
		t.Questions++
		if m.Found {
			t.Answered++
		} else {
			t.NotAnswered++
		}
		if m.Helpful != nil && *m.Helpful {
			t.Helpful++
		} else if m.Helpful != nil {
			t.NotHelpful++
		}
		for _, u := range citedURLs(m.Citations) {
			cited[u]++
		}
		if i < q.limit {
			out.Questions = append(out.Questions, questionRow{ID: m.ID, At: m.CreatedAt.UTC(), Source: m.Source, Domain: m.Domain,
				Question: m.Question, Found: m.Found, Helpful: m.Helpful, Citations: urlsOf(m.Citations)})
		}
	})
	if err != nil {
		return nil, err
	}
	out.Truncated = truncated
	for u, n := range cited {
		out.CitedPages = append(out.CitedPages, citedPage{URL: u, Citations: n})
	}
	slices.SortFunc(out.CitedPages, func(x, y citedPage) int {
		return cmp.Or(cmp.Compare(y.Citations, x.Citations), strings.Compare(x.URL, y.URL))
	})
	out.CitedPages = out.CitedPages[:min(len(out.CitedPages), q.limit)]
	return out, nil
}

// eachAssistantMessage calls fn with the newest maxAssistantReport
// questions of the range, newest first, a page of the store at a time
// (none is kept: a report never holds more than a page of answers), and
// reports whether the range held more.
func (a *api) eachAssistantMessage(ctx context.Context, projectID string, q analyticsQuery, fn func(int, *lectern.AssistantMessage)) (bool, error) {
	f := store.AssistantFilter{Since: q.from, Until: q.end()}
	pg := store.Page{}
	n := 0
	for {
		// One more than the report takes, to tell whether there are more.
		pg.Limit = min(assistantReportPage, maxAssistantReport+1-n)
		batch, err := a.store.ListAssistantMessages(ctx, projectID, f, pg)
		if err != nil {
			return false, err
		}
		for _, m := range batch {
			if n == maxAssistantReport {
				return true, nil
			}
			fn(n, m)
			n++
		}
		if len(batch) < pg.Limit {
			return false, nil
		}
		last := batch[len(batch)-1]
		pg.After = &store.Cursor{At: last.CreatedAt, ID: last.ID}
	}
}

// urlsOf returns the URLs an answer cites, in order.
func urlsOf(cs []lectern.AssistantCitation) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.URL
	}
	return out
}

// citedURLs returns the pages an answer cites, each once: its citations'
// URLs without their #anchor.
func citedURLs(cs []lectern.AssistantCitation) []string {
	var out []string
	for _, c := range cs {
		u, _, _ := strings.Cut(c.URL, "#")
		if u != "" && !slices.Contains(out, u) {
			out = append(out, u)
		}
	}
	return out
}

// table is the assistant's CSV: the newest questions.
func (r *assistantReport) table() [][]string {
	rows := [][]string{{"at", "source", "domain", "found", "helpful", "question", "citations"}}
	for _, q := range r.Questions {
		helpful := ""
		if q.Helpful != nil {
			helpful = strconv.FormatBool(*q.Helpful)
		}
		rows = append(rows, []string{q.At.Format(time.RFC3339Nano), string(q.Source), q.Domain, strconv.FormatBool(q.Found),
			helpful, q.Question, strings.Join(q.Citations, " ")})
	}
	return rows
}
