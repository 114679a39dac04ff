package client

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// AnalyticsOptions are the range and list length of an analytics report.
type AnalyticsOptions struct {
	// From and To are the first and last day of the report, both
	// included, taken at their UTC dates. A zero To is today (UTC); a zero
	// From, 29 days before To (a 30-day report). The server refuses a From
	// after To and a range over 731 days.
	From, To time.Time
	// Limit is how many rows each list holds at most, 1 to 1000; 0 for
	// the server's default, 10.
	Limit int
}

// query returns the query string of a report.
func (o AnalyticsOptions) query() string {
	q := url.Values{}
	if !o.From.IsZero() {
		q.Set("from", o.From.UTC().Format(time.DateOnly))
	}
	if !o.To.IsZero() {
		q.Set("to", o.To.UTC().Format(time.DateOnly))
	}
	if o.Limit != 0 {
		q.Set("limit", strconv.Itoa(o.Limit))
	}
	if len(q) == 0 {
		return ""
	}
	return "?" + q.Encode()
}

// report reads one analytics report of a project into out.
func (c *Client) report(ctx context.Context, name, projectID string, opts AnalyticsOptions, out any) error {
	if projectID == "" {
		return errors.New("analytics " + name + ": no project ID given")
	}
	return c.do(ctx, request{method: http.MethodGet, path: "/analytics/" + url.PathEscape(projectID) + "/" + name + opts.query(), out: out})
}

// AnalyticsViews returns the page views of the project's live sites over
// a range of days (GET /analytics/{projectId}/views): totals, every day,
// the top pages and referring hosts. A project of another organization,
// or none, is a not_found *Error; a bad range an invalid_request *Error
// whose Fields name the parameter.
func (c *Client) AnalyticsViews(ctx context.Context, projectID string, opts AnalyticsOptions) (*AnalyticsViews, error) {
	var out AnalyticsViews
	if err := c.report(ctx, "views", projectID, opts, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// AnalyticsSearches returns the searches on the project's live sites
// over a range of days (GET /analytics/{projectId}/searches): totals,
// every day, the top queries with their click-through, and the queries
// that most often found nothing.
func (c *Client) AnalyticsSearches(ctx context.Context, projectID string, opts AnalyticsOptions) (*AnalyticsSearches, error) {
	var out AnalyticsSearches
	if err := c.report(ctx, "searches", projectID, opts, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// AnalyticsFeedback returns the readers' votes on the project's pages
// over a range of days (GET /analytics/{projectId}/feedback): totals,
// every day, the pages with the most votes and the newest comments.
func (c *Client) AnalyticsFeedback(ctx context.Context, projectID string, opts AnalyticsOptions) (*AnalyticsFeedback, error) {
	var out AnalyticsFeedback
	if err := c.report(ctx, "feedback", projectID, opts, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// AnalyticsAssistant returns the questions asked to the project's
// assistant over a range of days (GET /analytics/{projectId}/assistant):
// totals, the newest questions and the pages answers cited most, over at
// most the 10,000 newest questions of the range (Truncated says when
// there were more).
func (c *Client) AnalyticsAssistant(ctx context.Context, projectID string, opts AnalyticsOptions) (*AnalyticsAssistant, error) {
	var out AnalyticsAssistant
	if err := c.report(ctx, "assistant", projectID, opts, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// The reports' types mirror the schemas of the same names. Days are UTC
// dates written YYYY-MM-DD; visitors are each day's distinct visitors,
// summed over the days.

// AnalyticsViews is the page views report (schema AnalyticsViews).
type AnalyticsViews struct {
	ProjectID string             `json:"projectId"`
	From      string             `json:"from"`
	To        string             `json:"to"`
	Totals    AnalyticsViewCount `json:"totals"`
	// Days holds every day of the range, oldest first, zeros included.
	Days      []AnalyticsViewDay   `json:"days"`
	Pages     []AnalyticsPageViews `json:"pages"`
	Referrers []AnalyticsReferrer  `json:"referrers"`
}

// AnalyticsViewCount is views and visitors (schema AnalyticsViewCount).
type AnalyticsViewCount struct {
	Views    int64 `json:"views"`
	Visitors int64 `json:"visitors"`
}

// AnalyticsViewDay is one day's views (schema AnalyticsViewDay).
type AnalyticsViewDay struct {
	Day      string `json:"day"`
	Views    int64  `json:"views"`
	Visitors int64  `json:"visitors"`
}

// AnalyticsPageViews is a page's views (schema AnalyticsPageViews).
type AnalyticsPageViews struct {
	Path     string `json:"path"`
	Views    int64  `json:"views"`
	Visitors int64  `json:"visitors"`
}

// AnalyticsReferrer is a referring host's views (schema AnalyticsReferrer).
type AnalyticsReferrer struct {
	Host     string `json:"host"`
	Views    int64  `json:"views"`
	Visitors int64  `json:"visitors"`
}

// AnalyticsSearches is the searches report (schema AnalyticsSearches).
type AnalyticsSearches struct {
	ProjectID string                `json:"projectId"`
	From      string                `json:"from"`
	To        string                `json:"to"`
	Totals    AnalyticsSearchTotals `json:"totals"`
	Days      []AnalyticsSearchDay  `json:"days"`
	Queries   []AnalyticsQuery      `json:"queries"`
	// NoResults are the queries that most often found nothing.
	NoResults []AnalyticsNoResultQuery `json:"noResults"`
}

// AnalyticsSearchTotals is the searches of the range (schema
// AnalyticsSearchTotals). ClickThrough is Clicks / Searches, 0 to 1, to 3
// decimals.
type AnalyticsSearchTotals struct {
	Searches     int64   `json:"searches"`
	Clicks       int64   `json:"clicks"`
	NoResults    int64   `json:"noResults"`
	ClickThrough float64 `json:"clickThrough"`
}

// AnalyticsSearchDay is one day's searches (schema AnalyticsSearchDay).
type AnalyticsSearchDay struct {
	Day       string `json:"day"`
	Searches  int64  `json:"searches"`
	Clicks    int64  `json:"clicks"`
	NoResults int64  `json:"noResults"`
}

// AnalyticsQuery is a query's searches (schema AnalyticsQuery).
type AnalyticsQuery struct {
	Query        string  `json:"query"`
	Searches     int64   `json:"searches"`
	Clicks       int64   `json:"clicks"`
	NoResults    int64   `json:"noResults"`
	ClickThrough float64 `json:"clickThrough"`
}

// AnalyticsNoResultQuery is a query that found nothing, Searches times
// (schema AnalyticsNoResultQuery).
type AnalyticsNoResultQuery struct {
	Query    string `json:"query"`
	Searches int64  `json:"searches"`
}

// AnalyticsFeedback is the feedback report (schema AnalyticsFeedback).
type AnalyticsFeedback struct {
	ProjectID string                  `json:"projectId"`
	From      string                  `json:"from"`
	To        string                  `json:"to"`
	Totals    AnalyticsVotes          `json:"totals"`
	Days      []AnalyticsFeedbackDay  `json:"days"`
	Pages     []AnalyticsPageFeedback `json:"pages"`
	// Comments are the newest first; the server keeps them
	// --analytics-retention (30 days by default).
	Comments []AnalyticsComment `json:"comments"`
}

// AnalyticsVotes is votes (schema AnalyticsVotes).
type AnalyticsVotes struct {
	Helpful    int64 `json:"helpful"`
	NotHelpful int64 `json:"notHelpful"`
}

// AnalyticsFeedbackDay is one day's votes (schema AnalyticsFeedbackDay).
type AnalyticsFeedbackDay struct {
	Day        string `json:"day"`
	Helpful    int64  `json:"helpful"`
	NotHelpful int64  `json:"notHelpful"`
}

// AnalyticsPageFeedback is a page's votes (schema AnalyticsPageFeedback).
type AnalyticsPageFeedback struct {
	Path       string `json:"path"`
	Helpful    int64  `json:"helpful"`
	NotHelpful int64  `json:"notHelpful"`
}

// AnalyticsComment is a comment left with a vote (schema
// AnalyticsComment).
type AnalyticsComment struct {
	At      time.Time `json:"at"`
	Path    string    `json:"path"`
	Helpful bool      `json:"helpful"`
	Comment string    `json:"comment"`
}

// AnalyticsAssistant is the assistant's report (schema
// AnalyticsAssistant).
type AnalyticsAssistant struct {
	ProjectID string `json:"projectId"`
	From      string `json:"from"`
	To        string `json:"to"`
	// Truncated is set when the range held more than 10,000 questions:
	// Totals and CitedPages cover the newest 10,000.
	Truncated  bool                     `json:"truncated"`
	Totals     AnalyticsAssistantTotals `json:"totals"`
	Questions  []AnalyticsQuestion      `json:"questions"`
	CitedPages []AnalyticsCitedPage     `json:"citedPages"`
}

// AnalyticsAssistantTotals counts questions (schema
// AnalyticsAssistantTotals).
type AnalyticsAssistantTotals struct {
	Questions   int64 `json:"questions"`
	Answered    int64 `json:"answered"`
	NotAnswered int64 `json:"notAnswered"`
	Helpful     int64 `json:"helpful"`
	NotHelpful  int64 `json:"notHelpful"`
}

// AnalyticsQuestion is a question asked to the assistant (schema
// AnalyticsQuestion).
type AnalyticsQuestion struct {
	ID string    `json:"id"`
	At time.Time `json:"at"`
	// Source is "site", "api" or "mcp".
	Source string `json:"source"`
	// Domain is the docs domain asked, "" through the API.
	Domain   string `json:"domain"`
	Question string `json:"question"`
	Found    bool   `json:"found"`
	// Helpful is the reader's rating, nil when not rated.
	Helpful   *bool    `json:"helpful"`
	Citations []string `json:"citations"`
}

// AnalyticsCitedPage is a page answers cited (schema AnalyticsCitedPage).
type AnalyticsCitedPage struct {
	URL       string `json:"url"`
	Citations int64  `json:"citations"`
}
