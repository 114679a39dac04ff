package selfhost

import (
	"net/url"
	"strconv"
	"time"

	"lectern.dev/lectern"
)

// RedactLink returns a bundle link fit for logs and errors: lectern.RedactURL
// hides user info, and the whole query string, which holds the signature of
// a presigned link, becomes "***".
func RedactLink(link string) string {
	// The query and fragment go first, then the URL is redacted: parsing
	// RedactURL's answer again would write its *** as %2A%2A%2A.
	u, err := url.Parse(link)
	if err != nil {
		return lectern.RedactURL(link)
	}
	hadQuery := u.RawQuery != "" || u.ForceQuery
	u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = "", false, "", ""
	r := lectern.RedactURL(u.String())
	if hadQuery {
		r += "?***"
	}
	return r
}

// LinkExpiry returns when a presigned bundle link expires, read from its
// query string, and ok false when the link does not say. It knows
// Lectern's own links (expires, Unix seconds), S3 (X-Amz-Date and
// X-Amz-Expires), Google Cloud Storage (X-Goog-Date and X-Goog-Expires),
// Azure SAS (se) and CloudFront (Expires).
func LinkExpiry(link string) (t time.Time, ok bool) {
	u, err := url.Parse(link)
	if err != nil {
		return time.Time{}, false
	}
	q := u.Query()
	unix := func(s string) (time.Time, bool) {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n <= 0 {
			return time.Time{}, false
		}
		return time.Unix(n, 0).UTC(), true
	}
	signedFor := func(date, secs string) (time.Time, bool) {
		d, err := time.Parse("20060102T150405Z", q.Get(date))
		n, err2 := strconv.Atoi(q.Get(secs))
		if err != nil || err2 != nil || n < 0 {
			return time.Time{}, false
		}
		return d.Add(time.Duration(n) * time.Second), true
	}
	switch {
	case q.Has("expires"):
		return unix(q.Get("expires"))
	case q.Has("Expires"):
		return unix(q.Get("Expires"))
	case q.Has("X-Amz-Expires"):
		return signedFor("X-Amz-Date", "X-Amz-Expires")
	case q.Has("X-Goog-Expires"):
		return signedFor("X-Goog-Date", "X-Goog-Expires")
	case q.Has("se") && q.Has("sig"):
		t, err := time.Parse(time.RFC3339, q.Get("se"))
		return t.UTC(), err == nil
	}
	return time.Time{}, false
}
