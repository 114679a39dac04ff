package gitsource

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"lectern.dev/lectern"
)

// source is a validated repository address.
type source struct {
	display string // Redact(repoURL), for messages and logs
	arg     string // what git is given: an absolute path or a URL without userinfo
	local   bool   // a local path or file:// URL

	// For http(s) URLs with userinfo: the credentials, handed to git through
	// the environment, and the scheme://host[:port] they are scoped to.
	username, password string
	hasCreds           bool
	credURL            string

	// For SSH addresses (FetchSSH): the deploy key and pinned host keys,
	// and the host keys the fetch trusted.
	ssh     bool
	auth    *SSHAuth
	learned string
}

// secrets returns the strings that must never appear in a message.
func (s *source) secrets() []string {
	if !s.hasCreds {
		return nil
	}
	var out []string
	add := func(v string) {
		if len(v) < 3 { // too short to scrub without mangling messages
			return
		}
		out = append(out, v, url.PathEscape(v), url.QueryEscape(v))
	}
	add(s.password)
	if s.password == "" {
		add(s.username) // a lone username is often a token
	}
	return out
}

const supported = "use an https://, http:// or file:// URL or a local path"

// parseSource validates repoURL and works out how to hand it to git.
func parseSource(repoURL string) (*source, error) {
	display := Redact(repoURL)
	invalid := func(format string, args ...any) error {
		return lectern.Errorf(lectern.EINVALID, format, args...)
	}
	if strings.TrimSpace(repoURL) == "" {
		return nil, invalid("repository URL is empty")
	}
	if hasControl(repoURL) {
		return nil, invalid("repository URL %q contains control characters", display)
	}
	if strings.HasPrefix(repoURL, "-") {
		return nil, invalid(`repository URL %s must not start with "-"`, display)
	}

	// Git's remote-helper syntax "<transport>::<address>" (ext::, fd::, ...).
	if i := strings.Index(repoURL, "::"); i > 0 && isSchemeName(repoURL[:i]) {
		return nil, invalid("repository URL %s uses the unsupported transport %q: %s",
			display, repoURL[:i], supported)
	}

	if i := strings.Index(repoURL, "://"); i >= 0 {
		scheme := strings.ToLower(repoURL[:i])
		switch scheme {
		case "http", "https":
			return parseHTTP(repoURL, display)
		case "file":
			return parseFileURL(repoURL, display)
		}
		if !isSchemeName(scheme) {
			return nil, invalid("repository URL %s is not a valid URL", display)
		}
		return nil, invalid("repository URL %s uses the unsupported scheme %q: %s", display, scheme, supported)
	}

	// A local path. Git reads "host:path" (a colon before any slash) as an
	// SSH address, which is not supported.
	if c := strings.IndexByte(repoURL, ':'); c >= 0 {
		if s := strings.IndexByte(repoURL, '/'); s < 0 || c < s {
			return nil, invalid("repository URL %s looks like an SSH address (host:path), which is not supported: %s",
				display, supported)
		}
	}
	return localSource(repoURL, display)
}

func parseHTTP(repoURL, display string) (*source, error) {
	if strings.ContainsAny(repoURL, " \t") {
		return nil, lectern.Errorf(lectern.EINVALID,
			"repository URL %s must not contain spaces (write them as %%20)", display)
	}
	u, err := url.Parse(repoURL)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return nil, &lectern.Error{Code: lectern.EINVALID,
			Message: "repository URL " + display + " is not a valid URL", Err: redactedErr(err, repoURL)}
	}
	if u.Fragment != "" || strings.HasSuffix(repoURL, "#") {
		return nil, lectern.Errorf(lectern.EINVALID, "repository URL %s must not contain a #fragment", display)
	}
	if strings.HasPrefix(u.Host, "-") || strings.HasPrefix(u.Hostname(), "-") {
		return nil, lectern.Errorf(lectern.EINVALID, "repository URL %s has an invalid host", display)
	}
	s := &source{display: display, credURL: strings.ToLower(u.Scheme) + "://" + u.Host}
	if u.User != nil {
		s.username = u.User.Username()
		s.password, _ = u.User.Password()
		s.hasCreds = true
		if hasControl(s.username) || hasControl(s.password) {
			return nil, lectern.Errorf(lectern.EINVALID,
				"repository URL %s has control characters in its credentials", display)
		}
		u.User = nil
	}
	s.arg = u.String()
	return s, nil
}

func parseFileURL(repoURL, display string) (*source, error) {
	u, err := url.Parse(repoURL)
	if err != nil {
		return nil, &lectern.Error{Code: lectern.EINVALID,
			Message: "repository URL " + display + " is not a valid URL", Err: redactedErr(err, repoURL)}
	}
	switch {
	case u.User != nil:
		return nil, lectern.Errorf(lectern.EINVALID, "file URL %s must not contain credentials", display)
	case u.Host != "" && !strings.EqualFold(u.Host, "localhost"):
		return nil, lectern.Errorf(lectern.EINVALID,
			"file URL %s names the host %q; only local files (file:///path) are supported", display, u.Host)
	case u.RawQuery != "" || u.Fragment != "" || u.ForceQuery || strings.HasSuffix(repoURL, "#"):
		return nil, lectern.Errorf(lectern.EINVALID, "file URL %s must not contain a query or #fragment", display)
	case !strings.HasPrefix(u.Path, "/"):
		return nil, lectern.Errorf(lectern.EINVALID, "file URL %s must hold an absolute path (file:///path)", display)
	}
	return localSource(u.Path, display)
}

func localSource(path, display string) (*source, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, &lectern.Error{Code: lectern.EINVALID,
			Message: "repository path " + display + " is not a valid path", Err: err}
	}
	if _, err := os.Stat(abs); err != nil {
		return nil, &lectern.Error{Code: lectern.ENOTFOUND,
			Message: "repository " + display + " not found or not readable", Err: err}
	}
	return &source{display: display, arg: abs, local: true}, nil
}

// redactedErr keeps err for logs unless its text could hold a secret of
// repoURL (url.Parse errors quote the whole URL).
func redactedErr(err error, repoURL string) error {
	if err == nil {
		return nil
	}
	if strings.Contains(err.Error(), repoURL) {
		return &redacted{strings.ReplaceAll(err.Error(), repoURL, Redact(repoURL))}
	}
	return err
}

type redacted struct{ s string }

func (e *redacted) Error() string { return e.s }

// Redact returns repoURL with the secret part of its userinfo replaced by
// "***", for logs and error messages: https://user:token@host/x becomes
// https://user:***@host/x, and a lone user name (often a token, as in
// https://token@host/x) becomes ***. URLs without userinfo are returned
// unchanged, and so is the user name of an ssh:// URL (git@host). Malformed URLs are redacted generously: when in doubt, everything
// before the last "@" of the address part is hidden. Redact never fails.
func Redact(repoURL string) string {
	i := strings.Index(repoURL, "://")
	if i < 0 {
		// scp-like "user@host:path": userinfo before the first slash, and only
		// when a colon marks it as a host (a local path is left alone).
		head := repoURL
		if s := strings.IndexByte(repoURL, '/'); s >= 0 {
			head = repoURL[:s]
		}
		if at := strings.LastIndexByte(head, '@'); at >= 0 && strings.Contains(head[at:], ":") {
			if !strings.Contains(repoURL[:at], ":") {
				return repoURL // an SSH user name (git@host:path) is no secret
			}
			return redactUserinfo(repoURL[:at]) + repoURL[at:]
		}
		return repoURL
	}
	start := i + 3
	rest := repoURL[start:]
	if strings.EqualFold(repoURL[:i], "ssh") && !strings.Contains(rest[:max(strings.IndexAny(rest, "/?#"), 0)], ":") {
		return repoURL // an SSH user name is no secret (the deploy key is)
	}
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	authority := rest[:end]
	if at := strings.LastIndexByte(authority, '@'); at >= 0 {
		return repoURL[:start] + redactUserinfo(authority[:at]) + rest[at:]
	}
	// No "@" in the authority, but a password holding "/", "?" or "#" cuts
	// it short: "https://user:pa/ss@host" has the "port" "pa". If the port
	// is not a number and an "@" follows, hide everything up to that "@".
	if c := strings.LastIndexByte(authority, ':'); c >= 0 && !strings.HasSuffix(authority, "]") {
		if port := authority[c+1:]; !isDigits(port) {
			if at := strings.LastIndexByte(rest, '@'); at >= 0 {
				return repoURL[:start] + "***" + rest[at:]
			}
		}
	}
	return repoURL
}

func redactUserinfo(userinfo string) string {
	if user, _, ok := strings.Cut(userinfo, ":"); ok {
		return user + ":***"
	}
	return "***"
}

// redactText scrubs the secrets of src and the userinfo of every URL out of
// text written by git.
func redactText(text string, src *source) string {
	for _, s := range src.secrets() {
		text = strings.ReplaceAll(text, s, "***")
	}
	var b strings.Builder
	for {
		i := strings.Index(text, "://")
		if i < 0 {
			b.WriteString(text)
			return b.String()
		}
		start := i + 3
		b.WriteString(text[:start])
		text = text[start:]
		end := strings.IndexAny(text, "/?# \t\n'\"`<>")
		if end < 0 {
			end = len(text)
		}
		if at := strings.LastIndexByte(text[:end], '@'); at >= 0 {
			b.WriteString(redactUserinfo(text[:at]))
			text = text[at:]
		}
	}
}

func isSchemeName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return true
}

func isDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true // "" counts: "host:" is a valid, empty port
}

func hasControl(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return true
		}
	}
	return false
}
