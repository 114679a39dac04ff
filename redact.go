package lectern

import (
	"net/url"
	"regexp"
	"strings"
)

// redactedPassword stands for the password while url.URL.String writes
// the user info, then becomes "***": String would percent-encode a literal
// "***" as "%2A%2A%2A".
const redactedPassword = "lectern-redacted-password"

// roleSchemes are the URL schemes whose user name is a role, not a
// credential: it is what the server's own errors name anyway.
var roleSchemes = map[string]bool{"postgres": true, "postgresql": true, "ssh": true}

// keySchemes are the URL schemes of buckets, whose user name would be an
// access key's id: half of a credential, hidden with its secret.
var keySchemes = map[string]bool{"s3": true, "gs": true, "azblob": true}

// notSecretParams are query parameters whose names look like secrets but
// whose values are not: PostgreSQL's sslkey and sslcert name files.
var notSecretParams = map[string]bool{"sslkey": true, "sslcert": true, "sslrootcert": true, "sslcrl": true, "sslcrldir": true}

// RedactURL returns urlstr fit for logs and errors, hiding only what is
// secret, as "***" (not percent-encoded):
//
//   - a password: postgres://lectern:***@db:5432/lectern;
//   - a user name without a password, except for postgres:// (a role) and
//     ssh://, since over https:// a lone user name is often a token; and
//     any user name of a bucket (s3://), an access key's id;
//   - the values of query parameters whose names suggest a secret
//     (password, sslpassword, secret, token, key, signature, credential,
//     sig; not sslkey and the other paths to files), and the user info of
//     URLs held in the other parameters (an S3 endpoint);
//   - the fragment, which no setting needs.
//
// A PostgreSQL connection string of keywords (host=db password=...) has
// the values of its secret keywords hidden the same way. An unparseable URL
// is not repeated at all, since whatever made it unparseable may be a
// password: only its scheme is named.
func RedactURL(urlstr string) string {
	if !strings.Contains(urlstr, "://") && isKeywords(urlstr) {
		return redactKeywords(urlstr)
	}
	u, err := url.Parse(urlstr)
	if err != nil {
		return unparseable(urlstr)
	}
	if u.User == nil && u.Port() != "" && u.Host != "" {
		// "postgres://user:12?3@db/x" parses as the host "user" on port 12,
		// the rest of the password becoming the query: an "@" after the
		// host then ended a user info, and all before it is hidden.
		if i := strings.LastIndexByte(urlstr, '@'); i > strings.Index(urlstr, u.Host) {
			rest := RedactURL(u.Scheme + "://" + urlstr[i+1:])
			return u.Scheme + "://***@" + strings.TrimPrefix(rest, u.Scheme+"://")
		}
	}
	var hiddenUser bool
	if u.User != nil {
		scheme := strings.ToLower(u.Scheme)
		if _, has := u.User.Password(); has && !keySchemes[scheme] {
			u.User = url.UserPassword(u.User.Username(), redactedPassword)
		} else if has || !roleSchemes[scheme] {
			u.User, hiddenUser = nil, true
		}
	}
	u.RawQuery = redactParams(u.RawQuery)
	u.ForceQuery = false
	u.Fragment, u.RawFragment = "", ""
	s := strings.Replace(u.String(), ":"+redactedPassword+"@", ":***@", 1)
	if hiddenUser {
		s = strings.Replace(s, "://", "://***@", 1)
	}
	return s
}

// unparseable names the scheme of a URL that does not parse, and nothing
// else of it.
func unparseable(urlstr string) string {
	scheme, _, ok := strings.Cut(urlstr, "://")
	if !ok || scheme == "" || strings.IndexFunc(scheme, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.')
	}) >= 0 {
		return "(unparseable URL)"
	}
	return "(unparseable " + scheme + ":// URL)"
}

// redactParams hides the values of secret parameters of a raw query,
// keeping the others as they were written, in their order.
func redactParams(raw string) string {
	if raw == "" {
		return ""
	}
	parts := strings.Split(raw, "&")
	for i, p := range parts {
		k, v, hasValue := strings.Cut(p, "=")
		name, err := url.QueryUnescape(k)
		if err != nil {
			parts[i] = "***"
			continue
		}
		if !hasValue {
			continue
		}
		if secretParam(name) {
			parts[i] = k + "=***"
			continue
		}
		// A URL as a value (an S3 endpoint) may hold its own credentials.
		if val, err := url.QueryUnescape(v); err != nil {
			parts[i] = k + "=***"
		} else if strings.Contains(val, "://") && strings.Contains(val, "@") {
			parts[i] = k + "=" + RedactURL(val)
		}
	}
	return strings.Join(parts, "&")
}

// secretParam reports whether a query parameter's value is a secret, by
// its name.
func secretParam(name string) bool {
	n := strings.ToLower(name)
	if notSecretParams[n] {
		return false
	}
	for _, s := range []string{"password", "passwd", "secret", "token", "key", "signature", "credential"} {
		if strings.Contains(n, s) {
			return true
		}
	}
	return n == "sig" || n == "pwd" || n == "pass"
}

// spacedEquals is an "=" with the spaces libpq allows around it.
var spacedEquals = regexp.MustCompile(`\s*=\s*`)

// isKeywords reports whether s is a connection string of keywords
// ("host=db user=lectern password=..."), not a path: an "=" comes before
// any "/" or "?".
func isKeywords(s string) bool {
	eq := strings.IndexByte(s, '=')
	end := strings.IndexAny(s, "/?")
	return eq > 0 && (end < 0 || eq < end)
}

// redactKeywords hides the values of the secret keywords of a connection
// string. A quoted value may hold spaces, which make the words ambiguous:
// such a string is not repeated.
func redactKeywords(s string) string {
	if strings.ContainsAny(s, `'"\`) {
		return "(unparseable connection string)"
	}
	words := strings.Fields(spacedEquals.ReplaceAllString(s, "="))
	for i, w := range words {
		if k, _, ok := strings.Cut(w, "="); ok && secretParam(strings.TrimSpace(k)) {
			words[i] = k + "=***"
		}
	}
	return strings.Join(words, " ")
}
