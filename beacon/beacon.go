package beacon

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"path"
	"regexp"
	"strings"
	"unicode/utf8"

	"lectern.dev/lectern"
)

// MaxBody bounds an event's body: room for a comment of 2,000 characters
// of any script (up to 4 bytes each in UTF-8) and the rest of the event.
const MaxBody = 12 << 10

// body is what a page sends: JSON text.
type body struct {
	Type     string `json:"type"` // pageview (when empty), search, feedback
	Path     string `json:"path"`
	Referrer string `json:"referrer"`
	Title    string `json:"title"`
	TS       string `json:"ts"`
	Query    string `json:"query"`
	Results  *int   `json:"results"`
	Clicked  string `json:"clicked"`
	Helpful  *bool  `json:"helpful"`
	Comment  string `json:"comment"`
}

// Parse reads an event's body, sent from a page of host, into an event
// (without its project, time or visitor), or says what is wrong with it.
func Parse(data []byte, host string) (lectern.AnalyticsEvent, error) {
	var b body
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		return lectern.AnalyticsEvent{}, errors.New(`the body must be a JSON event: {"type": "pageview", "path": "/..."}`)
	}
	if _, err := dec.Token(); err != io.EOF {
		return lectern.AnalyticsEvent{}, errors.New("the body has data after the event")
	}
	ev := lectern.AnalyticsEvent{}
	var ok bool
	if ev.Path, ok = PagePath(b.Path); !ok {
		return ev, errors.New(`"path" must be a path of the site, such as /guides/x`)
	}
	switch b.Type {
	case "", "pageview":
		ev.Kind = lectern.AnalyticsPageview
		ev.Referrer = referrerHost(b.Referrer, host)
	case "search":
		ev.Kind = lectern.AnalyticsSearch
		ev.Query = lectern.NormalizeQuery(b.Query)
		if ev.Query == "" || b.Results == nil || *b.Results < 0 {
			return ev, errors.New(`a search has a "query" and its number of "results"`)
		}
		ev.Results = *b.Results
		if b.Clicked != "" {
			if ev.Clicked, ok = PagePath(b.Clicked); !ok {
				return ev, errors.New(`"clicked" must be a path of the site`)
			}
		}
	case "feedback":
		ev.Kind = lectern.AnalyticsFeedback
		if b.Helpful == nil {
			return ev, errors.New(`a feedback has "helpful": true or false`)
		}
		ev.Helpful = b.Helpful
		ev.Comment = strings.TrimSpace(b.Comment)
	default:
		return ev, errors.New(`"type" is pageview, search or feedback`)
	}
	if !utf8.ValidString(ev.Query) || !utf8.ValidString(ev.Comment) {
		return ev, errors.New("the event is not valid UTF-8")
	}
	return ev, nil
}

// PagePath returns the path of a page URL or path ("/x", "/x?y#z"), or
// false when it is none of a site's (an absolute URL, a relative path).
func PagePath(raw string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "" || u.Host != "" || !strings.HasPrefix(u.Path, "/") || len(u.Path) > lectern.MaxAnalyticsPath {
		return "", false
	}
	p := path.Clean(u.Path)
	if strings.HasSuffix(u.Path, "/") && p != "/" {
		p += "/"
	}
	return p, true
}

// referrerHost is the referring host of a page view: "" for a direct
// view, a view from the site itself, or a referrer that is no http(s) URL.
func referrerHost(raw, host string) string {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return ""
	}
	h := strings.ToLower(u.Hostname())
	if h == host || len(h) > lectern.MaxAnalyticsReferrer {
		return ""
	}
	return h
}

// bots matches the user agents of crawlers, monitors, preview makers,
// headless browsers and scripts: their page views are not readers'.
var bots = regexp.MustCompile(`(?i)bot|crawl|spider|slurp|headless|lighthouse|preview|monitor|curl|wget|python|go-http|java/|httpclient|okhttp|phantom|facebookexternalhit|embedly|pingdom|uptime`)

// Counted reports whether r's event is a reader's: a user agent that is
// no robot's, and no prefetch.
func Counted(r *http.Request) bool {
	ua := r.Header.Get("User-Agent")
	if ua == "" || bots.MatchString(ua) {
		return false
	}
	for _, h := range []string{"Sec-Purpose", "Purpose", "X-Purpose", "X-Moz"} {
		if strings.Contains(strings.ToLower(r.Header.Get(h)), "prefetch") {
			return false
		}
	}
	return true
}

// SameSite reports whether r comes from the site's own pages: its
// Origin (or, without one, its Referer) names host, or neither is sent.
func SameSite(r *http.Request, host string) bool {
	for _, h := range []string{r.Header.Get("Origin"), r.Header.Get("Referer")} {
		if h == "" {
			continue
		}
		u, err := url.Parse(h)
		return err == nil && strings.EqualFold(u.Hostname(), host)
	}
	return true
}

// VisitorHash names a visitor for a day: a hash of the day's salt, the
// address, the user agent and the site, of which nothing is kept.
func VisitorHash(salt []byte, addr, ua, host string) string {
	h := sha256.New()
	h.Write(salt)
	for _, s := range []string{addr, ua, host} {
		h.Write([]byte{0})
		h.Write([]byte(s))
	}
	return hex.EncodeToString(h.Sum(nil))[:lectern.AnalyticsVisitorLen]
}
