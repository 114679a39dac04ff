package lectern

import (
	"strings"
	"time"
)

// AnalyticsKind is the kind of an analytics event, or of a daily aggregate
// of them.
type AnalyticsKind string

// The kinds of events a live docs site records (cookieless: a visitor is a
// hash that changes every day, never an address).
const (
	AnalyticsPageview AnalyticsKind = "pageview" // a page was viewed
	AnalyticsSearch   AnalyticsKind = "search"   // the site's search was used
	AnalyticsFeedback AnalyticsKind = "feedback" // a reader rated a page
)

// The kinds of daily aggregates the stores derive from pageviews, besides
// one per kind of event.
const (
	// AnalyticsVisit is the site's day: its key is "", N the pageviews
	// and Visitors the distinct visitors who viewed a page that day.
	AnalyticsVisit AnalyticsKind = "visit"
	// AnalyticsReferrer counts the pageviews of each referring host
	// (direct and internal views, Referrer "", are not counted).
	AnalyticsReferrer AnalyticsKind = "referrer"
)

// Bounds of a stored AnalyticsEvent, in bytes unless said otherwise. Text
// beyond them is cut at a rune boundary and ended with "…" within the
// bound (see AnalyticsEvent.Bound).
const (
	MaxAnalyticsPath     = 512  // Path and Clicked
	MaxAnalyticsReferrer = 253  // a host name's longest
	MaxAnalyticsQuery    = 200  // a search's query
	MaxAnalyticsComment  = 2000 // characters (runes) of a feedback's comment
	// AnalyticsVisitorLen is the length of a Visitor: 32 hexadecimal
	// digits, 128 bits of a hash.
	AnalyticsVisitorLen = 32
	// MaxAnalyticsBatch is the most events one RecordAnalytics call takes.
	MaxAnalyticsBatch = 10_000
	// AnalyticsSaltLen is the length, in bytes, of a day's salt.
	AnalyticsSaltLen = 32
)

// AnalyticsEvent is one thing a reader did on a live docs site, as the
// site's collector reports it and the store keeps it for a while (its
// daily aggregates are kept longer).
type AnalyticsEvent struct {
	// ID is set by the store: the event's place among those stored (a
	// positive integer, higher for later inserts). It is ignored on input.
	ID        int64  `json:"id"`
	ProjectID string `json:"projectId"`
	// At is when it happened; the event counts on At's UTC date.
	At   time.Time     `json:"at"`
	Kind AnalyticsKind `json:"kind"`
	// Path is the page's path in the site ("/guides/x"); for a search,
	// the page it was made from ("" allowed).
	Path string `json:"path"`
	// Referrer is a pageview's referring host ("www.google.com"), "" for
	// a direct or internal view.
	Referrer string `json:"referrer,omitempty"`
	// Visitor is the hex hash of (the day's salt, address, user agent,
	// domain): it tells one day's visitors apart and names no one.
	Visitor string `json:"-"`
	// Query is a search's query, normalised (trimmed, lower-case, runs of
	// white space made one space).
	Query string `json:"query,omitempty"`
	// Results is the number of a search's results (0: none found).
	Results int `json:"results,omitempty"`
	// Clicked is the path of the search result the reader followed, ""
	// for none.
	Clicked string `json:"clicked,omitempty"`
	// Helpful is a feedback's vote; Comment its optional text.
	Helpful *bool  `json:"helpful,omitempty"`
	Comment string `json:"comment,omitempty"`
}

// AnalyticsDay is the sum of one kind's daily aggregates over their keys
// for one UTC day.
type AnalyticsDay struct {
	Day time.Time `json:"day"` // midnight UTC
	// N counts events (pageviews for visit and referrer).
	N int64 `json:"n"`
	// Visitors counts the distinct visitors of each key that day, summed
	// over the keys: for visit, whose only key is "", the site's distinct
	// visitors of the day.
	Visitors int64 `json:"visitors"`
	Clicks   int64 `json:"clicks"` // searches whose reader followed a result
	Zero     int64 `json:"zero"`   // searches without results
	Yes      int64 `json:"yes"`    // feedback votes: helpful
	No       int64 `json:"no"`     // feedback votes: not helpful
}

// AnalyticsKey is the sum of one key's daily aggregates over a range of
// days: a page's (pageview, feedback), a query's (search), a referring
// host's (referrer), or the site's ("" of visit). Its counts are
// AnalyticsDay's, Visitors summing each day's distinct visitors: a
// visitor who came back on three days counts three times.
type AnalyticsKey struct {
	Key      string `json:"key"`
	N        int64  `json:"n"`
	Visitors int64  `json:"visitors"`
	Clicks   int64  `json:"clicks"`
	Zero     int64  `json:"zero"`
	Yes      int64  `json:"yes"`
	No       int64  `json:"no"`
}

// Recorded reports whether events of kind k can be recorded: pageview,
// search or feedback.
func (k AnalyticsKind) Recorded() bool {
	return k == AnalyticsPageview || k == AnalyticsSearch || k == AnalyticsFeedback
}

// Reported reports whether k names daily aggregates: a kind of event,
// visit or referrer.
func (k AnalyticsKind) Reported() bool {
	return k.Recorded() || k == AnalyticsVisit || k == AnalyticsReferrer
}

// AnalyticsDate returns the UTC date of t, as midnight UTC: the day an
// event at t counts on.
func AnalyticsDate(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// Bound brings e within the bounds above, in place, as the stores keep
// it: At in UTC at microseconds; text made valid UTF-8 without NUL
// characters (as AssistantMessage.Bound does); Visitor and Referrer
// lower-case; Query normalised again; Comment trimmed of surrounding white
// space; each text longer than its bound cut at a rune boundary and ended
// with "…" within the bound; and the fields that are not of e's kind
// cleared (a pageview keeps Path, Referrer and Visitor; a search Path,
// Visitor, Query, Results and Clicked; a feedback Path, Visitor, Helpful
// and Comment). ID is left as it is: the store sets it.
//
// It refuses (EINVALID) what no collector should send: no project, a kind
// other than pageview, search or feedback, a zero At, a Visitor that is
// not 32 hexadecimal digits, a pageview or feedback without Path, a
// search without Query or with negative Results, a feedback without
// Helpful.
func (e *AnalyticsEvent) Bound() error {
	e.ProjectID = cleanText(e.ProjectID)
	if e.ProjectID == "" {
		return Errorf(EINVALID, "an analytics event needs its project")
	}
	if !e.Kind.Recorded() {
		return Errorf(EINVALID, "unknown analytics event kind %q: use pageview, search or feedback", e.Kind)
	}
	if e.At.IsZero() {
		return Errorf(EINVALID, "an analytics event needs its time")
	}
	e.At = e.At.UTC().Truncate(time.Microsecond)
	e.Visitor = strings.ToLower(e.Visitor)
	if !isHex(e.Visitor, AnalyticsVisitorLen) {
		return Errorf(EINVALID, "an analytics event's visitor must be a hash of %d hexadecimal digits, never an address", AnalyticsVisitorLen)
	}
	e.Path = clipBytes(cleanText(e.Path), MaxAnalyticsPath)
	switch e.Kind {
	case AnalyticsPageview:
		e.Referrer = clipBytes(strings.ToLower(cleanText(e.Referrer)), MaxAnalyticsReferrer)
		e.Query, e.Results, e.Clicked, e.Helpful, e.Comment = "", 0, "", nil, ""
	case AnalyticsSearch:
		e.Query = clipBytes(NormalizeQuery(cleanText(e.Query)), MaxAnalyticsQuery)
		if e.Query == "" {
			return Errorf(EINVALID, "a search event needs its query")
		}
		if e.Results < 0 {
			return Errorf(EINVALID, "a search event's result count is %d: it cannot be negative", e.Results)
		}
		e.Clicked = clipBytes(cleanText(e.Clicked), MaxAnalyticsPath)
		e.Referrer, e.Helpful, e.Comment = "", nil, ""
	case AnalyticsFeedback:
		if e.Helpful == nil {
			return Errorf(EINVALID, "a feedback event needs its vote (Helpful)")
		}
		helpful := *e.Helpful // not the caller's variable
		e.Helpful = &helpful
		e.Comment = clipRunes(strings.TrimSpace(cleanText(e.Comment)), MaxAnalyticsComment)
		e.Referrer, e.Query, e.Results, e.Clicked = "", "", 0, ""
	}
	if e.Path == "" && e.Kind != AnalyticsSearch {
		return Errorf(EINVALID, "a %s event needs the page's path", e.Kind)
	}
	return nil
}

// BoundAnalytics returns copies of events, each brought within bounds by
// Bound, leaving events as they are. It refuses (EINVALID, naming the
// first bad event by its index) a batch with a bad event, and a batch of
// more than MaxAnalyticsBatch events.
func BoundAnalytics(events []AnalyticsEvent) ([]AnalyticsEvent, error) {
	if len(events) > MaxAnalyticsBatch {
		return nil, Errorf(EINVALID, "a batch of %d analytics events is more than the %d one call takes: split it", len(events), MaxAnalyticsBatch)
	}
	out := make([]AnalyticsEvent, len(events))
	for i := range events {
		out[i] = events[i]
		if err := out[i].Bound(); err != nil {
			return nil, Errorf(EINVALID, "analytics event %d: %s", i, err.Error())
		}
	}
	return out, nil
}

// NormalizeQuery returns a search query as analytics keeps it: lower-case,
// trimmed, each run of white space made one space.
func NormalizeQuery(q string) string {
	return strings.Join(strings.Fields(strings.ToLower(q)), " ")
}

// isHex reports whether s is n lower-case hexadecimal digits.
func isHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
