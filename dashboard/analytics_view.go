package dashboard

import (
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/client"
	"lectern.dev/lectern/dashboard/chart"
	"lectern.dev/lectern/httpapi"
)

// analyticsView is the analytics page's view.
type analyticsView struct {
	Projects []*lectern.Project
	Project  *lectern.Project // nil: the organization has no project
	Form     analyticsForm
	Presets  []analyticsPreset
	// Unavailable says why the project has no web analytics here.
	Unavailable string
	// Report is nil when the range was refused or analytics are
	// unavailable.
	Report *analyticsReportView
}

// MaxDays is the longest range, for the form's help.
func (analyticsView) MaxDays() int { return httpapi.AnalyticsMaxDays }

// analyticsPreset is a link to the days up to today.
type analyticsPreset struct {
	Days    int
	URL     string
	Current bool
}

// analyticsReportView is the four reports of the range, as the API gives
// them, and the chart of the views.
type analyticsReportView struct {
	From, To  string
	Days      int
	Chart     template.HTML // chart.Bars escapes what it writes
	Views     *client.AnalyticsViews
	Searches  *client.AnalyticsSearches
	Feedback  *client.AnalyticsFeedback
	Assistant *client.AnalyticsAssistant
	// CSV are the download links, by report.
	CSV map[string]string
}

// analyticsPresetLinks returns the preset ranges of project id; the one
// that is q is current (when q was accepted).
func analyticsPresetLinks(id string, today time.Time, q httpapi.AnalyticsQuery, accepted bool) []analyticsPreset {
	out := make([]analyticsPreset, len(analyticsPresets))
	for i, n := range analyticsPresets {
		from := today.AddDate(0, 0, -(n - 1))
		out[i] = analyticsPreset{Days: n, Current: accepted && q.From.Equal(from) && q.To.Equal(today),
			URL: Prefix + "analytics?" + url.Values{"project": {id}, "from": {from.Format(time.DateOnly)}, "to": {today.Format(time.DateOnly)}}.Encode()}
	}
	return out
}

// analyticsReport reads the four reports of p over q.
func (h *Handler) analyticsReport(r *http.Request, p *lectern.Project, q httpapi.AnalyticsQuery) (*analyticsReportView, error) {
	v := &analyticsReportView{Views: &client.AnalyticsViews{}, Searches: &client.AnalyticsSearches{}, Feedback: &client.AnalyticsFeedback{},
		Assistant: &client.AnalyticsAssistant{}, CSV: map[string]string{}}
	outs := map[string]any{"views": v.Views, "searches": v.Searches, "feedback": v.Feedback, "assistant": v.Assistant}
	for _, name := range httpapi.AnalyticsReports {
		rep, err := httpapi.ReadAnalytics(r.Context(), h.store, p, name, q)
		if err == nil {
			err = rep.Decode(outs[name])
		}
		if err != nil {
			return nil, err
		}
	}
	v.From, v.To, v.Days = v.Views.From, v.Views.To, len(v.Views.Days)
	for _, name := range httpapi.AnalyticsReports {
		v.CSV[name] = Prefix + "analytics/" + name + ".csv?" + url.Values{"project": {p.ID}, "from": {v.From}, "to": {v.To},
			"limit": {strconv.Itoa(analyticsDownloadRows)}}.Encode()
	}
	v.Chart = template.HTML(viewsChart(v.Views).SVG())
	return v, nil
}

// viewsChart is the chart of the views per day.
func viewsChart(r *client.AnalyticsViews) chart.Bars {
	b := chart.Bars{ID: "views-chart", Title: "Views per day, " + r.From + " to " + r.To, Unit: "views", Empty: "No days in the range"}
	best := -1
	for i, d := range r.Days {
		b.Points = append(b.Points, chart.Point{Label: d.Day, Value: d.Views})
		if best < 0 || d.Views > r.Days[best].Views {
			best = i
		}
	}
	if r.Totals.Views == 0 || best < 0 {
		b.Desc = "No views from " + r.From + " to " + r.To + "."
	} else {
		b.Desc = analyticsNum(r.Totals.Views) + " views in " + strconv.Itoa(len(r.Days)) + " days, from " + r.From + " to " + r.To +
			"; the most, " + analyticsNum(r.Days[best].Views) + ", on " + r.Days[best].Day + ". The table below holds every day."
	}
	return b
}

func init() {
	funcs["analytics_num"] = analyticsNum
	funcs["analytics_percent"] = func(r float64) string { return strconv.FormatFloat(r*100, 'f', 1, 64) + "%" }
	funcs["analytics_vote"] = func(v *bool) string {
		switch {
		case v == nil:
			return "not rated"
		case *v:
			return "helpful"
		}
		return "not helpful"
	}
}

// analyticsNum writes a count with thousands separators: 12,345.
func analyticsNum(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
