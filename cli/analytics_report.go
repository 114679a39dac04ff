package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"lectern.dev/lectern/client"
)

// analyticsCmd is lectern analytics: a project's web analytics, the four
// reports of the API summed up for a terminal.
func analyticsCmd(e *env) *cobra.Command {
	af := &apiFlags{}
	var from, to string
	var limit int
	cmd := &cobra.Command{
		Use:   "analytics PROJECT_ID",
		Short: "Summarize a project's web analytics: views, searches, feedback, assistant questions",
		Long: `Print what readers did on a project's live sites over a range of UTC days,
through a Lectern server's API (--api-url or LECTERN_API_URL; the key in
LECTERN_API_KEY or --api-key-file): page views and visitors with the top pages
and referrers, searches with their click-through and the queries that found
nothing, "Was this helpful?" votes per page with the newest comments, and the
questions asked to the assistant, answered or not, with the pages its answers
cited.

--from and --to are days (2026-01-31) or RFC 3339 times (their UTC day), both
included; by default the 30 days up to today. --limit is the length of each
list. --json prints the four reports as the API answers them, in one object
{"views", "searches", "feedback", "assistant"}. For a spreadsheet, ask the API
itself with Accept: text/csv (docs/api.md).`,
		Example: `  lectern analytics prj_01hzy3k6q2v9d8e7f6g5h4j3k2
  lectern analytics prj_01hzy3k6q2v9d8e7f6g5h4j3k2 --from 2026-01-01 --to 2026-03-31 --limit 20`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts, err := analyticsOptions(c, from, to, limit)
			if err != nil {
				return usageError(err)
			}
			return af.call(c, e, func(ctx context.Context, cl *client.Client) error {
				r, err := readAnalytics(ctx, cl, args[0], opts)
				if err != nil {
					return fmt.Errorf("analytics of %s: %w", args[0], err)
				}
				if af.json {
					return printJSON(e.stdout, r)
				}
				return r.print(e.stdout)
			})
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&from, "from", "", "the first day, like 2026-01-01 (default: 29 days before --to)")
	fl.StringVar(&to, "to", "", "the last day, included (default: today, UTC)")
	fl.IntVar(&limit, "limit", 10, "rows of each list, 1 to 1000")
	return af.apiCommand(e, cmd)
}

// analyticsOptions checks the flags before any request.
func analyticsOptions(c *cobra.Command, from, to string, limit int) (client.AnalyticsOptions, error) {
	var opts client.AnalyticsOptions
	var err error
	if opts.From, err = reportDay("--from", from); err != nil {
		return opts, err
	}
	if opts.To, err = reportDay("--to", to); err != nil {
		return opts, err
	}
	if limit < 1 || limit > 1000 {
		return opts, fmt.Errorf("--limit %d: give 1 to 1000", limit)
	}
	if c.Flags().Changed("limit") {
		opts.Limit = limit
	}
	return opts, nil
}

// reportDay reads a day flag: a date or an RFC 3339 time; "" is none.
func reportDay(flag, s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("%s %q is not a day: give a date like 2026-01-31 or an RFC 3339 time like 2026-01-31T09:00:00Z", flag, s)
}

// analyticsReports are the four reports of one range, as --json prints
// them.
type analyticsReports struct {
	Views     *client.AnalyticsViews     `json:"views"`
	Searches  *client.AnalyticsSearches  `json:"searches"`
	Feedback  *client.AnalyticsFeedback  `json:"feedback"`
	Assistant *client.AnalyticsAssistant `json:"assistant"`
}

func readAnalytics(ctx context.Context, cl *client.Client, projectID string, opts client.AnalyticsOptions) (*analyticsReports, error) {
	var r analyticsReports
	var err error
	if r.Views, err = cl.AnalyticsViews(ctx, projectID, opts); err != nil {
		return nil, err
	}
	// The later reports ask for the range the first one settled on, so
	// that a run across midnight does not mix two ranges.
	opts.From, _ = time.Parse(time.DateOnly, r.Views.From)
	opts.To, _ = time.Parse(time.DateOnly, r.Views.To)
	if r.Searches, err = cl.AnalyticsSearches(ctx, projectID, opts); err != nil {
		return nil, err
	}
	if r.Feedback, err = cl.AnalyticsFeedback(ctx, projectID, opts); err != nil {
		return nil, err
	}
	if r.Assistant, err = cl.AnalyticsAssistant(ctx, projectID, opts); err != nil {
		return nil, err
	}
	return &r, nil
}

// print writes the summary: a line of totals per report, and its lists
// as tables.
func (r *analyticsReports) print(w io.Writer) error {
	p := &summary{w: w}
	v, s, f, a := r.Views, r.Searches, r.Feedback, r.Assistant
	p.line("Analytics of %s, %s to %s (UTC days)", v.ProjectID, v.From, v.To)

	p.line("\nViews:      %d views, %d visitors (each day's distinct visitors, summed)", v.Totals.Views, v.Totals.Visitors)
	p.table("Top pages", []string{"PATH", "VIEWS", "VISITORS"}, len(v.Pages), func(i int) []string {
		return []string{v.Pages[i].Path, num(v.Pages[i].Views), num(v.Pages[i].Visitors)}
	})
	p.table("Top referrers", []string{"HOST", "VIEWS", "VISITORS"}, len(v.Referrers), func(i int) []string {
		return []string{v.Referrers[i].Host, num(v.Referrers[i].Views), num(v.Referrers[i].Visitors)}
	})

	p.line("\nSearches:   %d searches, %d followed to a result (%s click-through), %d found nothing",
		s.Totals.Searches, s.Totals.Clicks, ratePercent(s.Totals.ClickThrough), s.Totals.NoResults)
	p.table("Top searches", []string{"QUERY", "SEARCHES", "CLICK-THROUGH", "NO RESULTS"}, len(s.Queries), func(i int) []string {
		q := s.Queries[i]
		return []string{q.Query, num(q.Searches), ratePercent(q.ClickThrough), num(q.NoResults)}
	})
	p.table("Searches that found nothing", []string{"QUERY", "SEARCHES"}, len(s.NoResults), func(i int) []string {
		return []string{s.NoResults[i].Query, num(s.NoResults[i].Searches)}
	})

	p.line("\nFeedback:   %d helpful, %d not helpful", f.Totals.Helpful, f.Totals.NotHelpful)
	p.table("Feedback per page", []string{"PATH", "HELPFUL", "NOT HELPFUL"}, len(f.Pages), func(i int) []string {
		return []string{f.Pages[i].Path, num(f.Pages[i].Helpful), num(f.Pages[i].NotHelpful)}
	})
	p.table("Newest comments", []string{"DAY", "PATH", "VOTE", "COMMENT"}, len(f.Comments), func(i int) []string {
		c := f.Comments[i]
		vote := "not helpful"
		if c.Helpful {
			vote = "helpful"
		}
		return []string{c.At.UTC().Format(time.DateOnly), c.Path, vote, c.Comment}
	})

	t := a.Totals
	p.line("\nAssistant:  %d questions, %d answered, %d not answered; rated %d helpful, %d not helpful", t.Questions, t.Answered,
		t.NotAnswered, t.Helpful, t.NotHelpful)
	if a.Truncated {
		p.line("            (the range held more: these are its 10,000 newest questions)")
	}
	p.table("Pages the answers cited most", []string{"URL", "ANSWERS"}, len(a.CitedPages), func(i int) []string {
		return []string{a.CitedPages[i].URL, num(a.CitedPages[i].Citations)}
	})
	return p.err
}

// summary writes lines and tables, keeping the first error.
type summary struct {
	w   io.Writer
	err error
}

func (p *summary) line(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format+"\n", args...)
	}
}

// table writes a titled, indented table of n rows, or "none".
func (p *summary) table(title string, header []string, n int, row func(i int) []string) {
	p.line("\n%s", title)
	if n == 0 {
		p.line("  none")
		return
	}
	if p.err != nil {
		return
	}
	tw := tabwriter.NewWriter(p.w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  "+strings.Join(header, "\t"))
	for i := range n {
		cells := row(i)
		for j, c := range cells {
			cells[j] = terminalText(c, 60)
		}
		fmt.Fprintln(tw, "  "+strings.Join(cells, "\t"))
	}
	p.err = tw.Flush()
}

func num(n int64) string { return strconv.FormatInt(n, 10) }

// ratePercent writes a ratio of 0 to 1 as a percentage.
func ratePercent(r float64) string { return strconv.FormatFloat(r*100, 'f', 1, 64) + "%" }

// terminalText makes readers' text safe to print in a table on a
// terminal: control and formatting characters (escape sequences, line
// breaks, tabs, bidirectional overrides) become U+FFFD, and text longer
// than max characters is cut with "…". Empty text is "-".
func terminalText(s string, max int) string {
	if s == "" {
		return "-"
	}
	var b strings.Builder
	n := 0
	for _, r := range s {
		if n == max-1 && utf8.RuneCountInString(s) > max {
			b.WriteString("…")
			break
		}
		if r != ' ' && !unicode.IsGraphic(r) {
			r = unicode.ReplacementChar
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}
