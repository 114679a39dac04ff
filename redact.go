package lectern

import (
	"net/url"
	"strings"
)

// RedactURL returns urlstr fit for logs and errors: user info becomes
// "***", as do query values whose names suggest a secret (secret, key,
// token, password). An unparseable URL is not repeated at all.
func RedactURL(urlstr string) string {
	u, err := url.Parse(urlstr)
	if err != nil {
		return "(unparseable URL)"
	}
	if u.User != nil {
		u.User = url.User("***")
	}
	q := u.Query()
	for k := range q {
		lk := strings.ToLower(k)
		if strings.Contains(lk, "secret") || strings.Contains(lk, "key") || strings.Contains(lk, "token") || strings.Contains(lk, "password") {
			q.Set(k, "***")
		}
	}
	u.RawQuery = q.Encode()
	return u.String()
}
