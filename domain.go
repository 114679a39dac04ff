package lectern

import (
	"net"
	"path"
	"strings"
)

// NormalizeDomain returns s as a lower-case DNS name, or an EINVALID error
// saying what is wrong. A domain is a DNS name only: no scheme, path, port,
// user info or trailing dot; labels of 1 to 63 letters, digits and inner
// hyphens; at most 253 characters. Upper case is accepted and lowered.
// IP addresses (and names that browsers read as IPv4 addresses: those
// whose last label is a number) and localhost are refused: they name a
// machine, not a site. Subdomains of localhost (docs.localhost) are DNS
// names, accepted here; ServerHosts.CheckDomain also refuses the names of
// the server itself.
func NormalizeDomain(s string) (string, error) {
	d, err := normalizeHostname(s)
	if err != nil {
		return "", err
	}
	if d == "localhost" {
		return "", Errorf(EINVALID, "domain localhost is the loopback host, not a DNS name of a site; for local testing use a subdomain such as docs.localhost")
	}
	if endsInNumber(d) {
		return "", Errorf(EINVALID, "domain %q is an IP address (or ends in a number, which browsers read as one); a domain must be a DNS name such as docs.example.com", d)
	}
	return d, nil
}

// normalizeHostname is NormalizeDomain's syntax check: it returns s as a
// lower-case hostname (IPv4-like names and localhost included).
func normalizeHostname(s string) (string, error) {
	d := strings.ToLower(strings.TrimSpace(s))
	if ip := net.ParseIP(strings.TrimSuffix(strings.TrimPrefix(d, "["), "]")); ip != nil {
		return "", Errorf(EINVALID, "domain %q is an IP address; a domain must be a DNS name such as docs.example.com", d)
	}
	switch {
	case d == "":
		return "", Errorf(EINVALID, "domain is required")
	case strings.Contains(d, "://"):
		return "", Errorf(EINVALID, "domain must be a hostname without a scheme such as https://")
	case strings.ContainsAny(d, "/?#"):
		return "", Errorf(EINVALID, "domain must be a hostname without a path")
	case strings.Contains(d, "@"):
		return "", Errorf(EINVALID, "domain must be a hostname without user info")
	case strings.Contains(d, ":"):
		return "", Errorf(EINVALID, "domain must be a hostname without a port")
	case strings.HasSuffix(d, "."):
		return "", Errorf(EINVALID, "domain must not end with a dot")
	case len(d) > 253:
		return "", Errorf(EINVALID, "domain is longer than 253 characters")
	}
	for _, label := range strings.Split(d, ".") {
		if label == "" {
			return "", Errorf(EINVALID, "domain has an empty label")
		}
		if len(label) > 63 {
			return "", Errorf(EINVALID, "domain label %q is longer than 63 characters", label)
		}
		if label[0] == '-' || label[len(label)-1] == '-' {
			return "", Errorf(EINVALID, "domain label %q starts or ends with a hyphen", label)
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
				return "", Errorf(EINVALID, "domain has an invalid character %q (use letters, digits, hyphens and dots; encode international names as xn--)", string(rune(c)))
			}
		}
	}
	return d, nil
}

// endsInNumber reports whether the last label of hostname h is a number
// (decimal, or hexadecimal with 0x), which makes URL parsers read h as an
// IPv4 address: 127.1, 0x7f.0.0.1, 2130706433.
func endsInNumber(h string) bool {
	last := h[strings.LastIndexByte(h, '.')+1:]
	if last == "" {
		return false
	}
	digits := "0123456789"
	if strings.HasPrefix(last, "0x") {
		last, digits = last[2:], "0123456789abcdef"
	}
	for i := 0; i < len(last); i++ {
		if strings.IndexByte(digits, last[i]) < 0 {
			return false
		}
	}
	return true
}

// NormalizeBasePath returns p as "" or "/a/b" (no trailing slash), or an
// EINVALID error: it must start with "/" and hold only URL-safe path
// characters, with no "." or ".." segments.
func NormalizeBasePath(p string) (string, error) {
	if p == "" || p == "/" {
		return "", nil
	}
	if !strings.HasPrefix(p, "/") {
		return "", Errorf(EINVALID, "basePath must start with /")
	}
	if len(p) > 200 {
		return "", Errorf(EINVALID, "basePath is longer than 200 characters")
	}
	p = strings.TrimRight(p, "/")
	for _, seg := range strings.Split(p[1:], "/") {
		if seg == "" || seg == "." || seg == ".." {
			return "", Errorf(EINVALID, "basePath has an empty, . or .. segment")
		}
		for i := 0; i < len(seg); i++ {
			c := seg[i]
			if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~", c) >= 0) {
				return "", Errorf(EINVALID, "basePath has an invalid character %q", string(rune(c)))
			}
		}
	}
	return p, nil
}

// SiteFiles returns the file names of a site that may serve a URL path,
// in order: "/" is index.html; "/guides/x" and "/guides/x/" are
// guides/x.html, else guides/x/index.html; a path with an extension names a
// file (or that name plus .html); an extensionless path may also name a
// file as it is, last. Live sites, the self-hosted runtime, lectern build --serve and the
// browser tests serve by this rule.
func SiteFiles(urlPath string) []string {
	p := strings.Trim(path.Clean("/"+urlPath), "/")
	if p == "" {
		return []string{"index.html"}
	}
	if strings.HasSuffix(urlPath, "/") {
		return []string{p + ".html", p + "/index.html"}
	}
	if path.Ext(p) != "" {
		return []string{p, p + ".html"}
	}
	return []string{p + ".html", p + "/index.html", p}
}

// NormalizeDocsRoot returns the folder of a repository's docs as a project
// keeps it: from "/", inside the repository (no ".."), without control
// characters, at most 1,024 bytes; an EINVALID error otherwise.
func NormalizeDocsRoot(root string) (string, error) {
	if !strings.HasPrefix(root, "/") {
		root = "/" + root
	}
	if strings.Contains(root, "..") || len(root) > 1024 || strings.ContainsFunc(root, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return "", Errorf(EINVALID, "docs root %q must be a folder inside the repository, without \"..\"", Truncate(root, 80))
	}
	return root, nil
}
