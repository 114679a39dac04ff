package gitsource

import (
	"net"
	"net/netip"
	"net/url"
	"strings"

	"lectern.dev/lectern"
)

// CheckRemote validates a repository address that an organization gives
// through the API: an http:// or https:// URL to a host by name or public
// address, without credentials. Anything else is an EINVALID error that
// says what to do instead, and nothing is looked up on the disk or the
// network to decide. A local path or file:// URL names the server's own
// disk, which only the operator may point a project at (another tenant's
// repository could lie there); a loopback, private or link-local address
// would have the server fetch from its own network for the tenant;
// credentials in a URL would be kept in clear.
func CheckRemote(repoURL string) error {
	display := Redact(repoURL)
	scheme, _, ok := strings.Cut(repoURL, "://")
	if strings.TrimSpace(repoURL) == "" {
		return lectern.Errorf(lectern.EINVALID, "repository URL is empty")
	}
	if IsSSH(repoURL) {
		return lectern.Errorf(lectern.EINVALID,
			"repository %s is reached over SSH, which only the server's operator sets (lectern admin project update --repo); the project's Access page in the dashboard then shows the deploy key to add to the git host: give an https:// URL, or ask the operator", display)
	}
	if s := strings.ToLower(scheme); !ok || s != "http" && s != "https" {
		return lectern.Errorf(lectern.EINVALID,
			"repository %s is not an https:// or http:// URL: give one (a repository on the server's disk is the operator's to set: lectern admin project create --repo PATH, or lectern admin project update --repo PATH for an existing project)", display)
	}
	// An http(s) address is parsed as such, never as a path.
	src, err := parseHTTP(repoURL, display)
	if err != nil {
		return err
	}
	if src.hasCreds {
		return lectern.Errorf(lectern.EINVALID,
			"repository URL %s holds credentials, which would be kept in clear: give the URL without them, then store the token on the project's Access page in the dashboard (owners), where it is kept encrypted", display)
	}
	u, err := url.Parse(src.arg)
	if err != nil {
		return lectern.Errorf(lectern.EINVALID, "repository URL %s is not a valid URL", display)
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if lectern.NumericHost(host) {
		return lectern.Errorf(lectern.EINVALID, "repository URL %s writes its host as a number in a short form: give a host name", display)
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") || !strings.Contains(host, ".") && net.ParseIP(host) == nil {
		return lectern.Errorf(lectern.EINVALID, "repository URL %s names a host of the server's own network: give a public host name", display)
	}
	if ip, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil && !lectern.PublicAddr(ip) {
		return lectern.Errorf(lectern.EINVALID, "repository URL %s names an address of the server's own network: give a public host", display)
	}
	return nil
}

// CheckBranch validates a branch name as `git check-ref-format --branch`
// does.
func CheckBranch(name string) error { return checkBranch(name) }

// IsSSH reports whether repoURL is an SSH address (ssh://... or the
// user@host:path form), which FetchSSH fetches with a deploy key.
func IsSSH(repoURL string) bool {
	if scheme, _, ok := strings.Cut(repoURL, "://"); ok {
		return strings.EqualFold(scheme, "ssh")
	}
	c, s := strings.IndexByte(repoURL, ':'), strings.IndexByte(repoURL, '/')
	return c > 0 && (s < 0 || c < s) && !strings.Contains(repoURL[:c], "::") && !strings.HasPrefix(repoURL[c:], "::")
}
