package lectern

import (
	"net"
	"strings"
)

// loopbackNames are the host names that name this machine rather than a
// site, whatever the server's settings.
var loopbackNames = map[string]bool{"localhost": true, "localhost.localdomain": true, "ip6-localhost": true, "ip6-loopback": true}

// ServerHosts are the host names on which the server answers as itself (its
// API, health, readiness and metrics, and any page of its own) and never
// as a project's site. They are: no host at all, every IP address (and
// name read as one), localhost and the other loopback names, and the names
// the server is given: its public URL's host, its listen address's host
// and the hosts an operator reserves, each an exact name or a pattern
// "*.example.com" (every subdomain of example.com, not example.com itself).
// No project may have one of them as a domain.
//
// A nil *ServerHosts holds only the names every server has.
type ServerHosts struct {
	exact    map[string]bool
	suffixes []string // ".example.com" for "*.example.com"
}

// NewServerHosts returns the server hosts with names added: host names,
// host:port pairs, URLs (their host is taken) or "*.domain" patterns.
// Empty names are skipped; an invalid one is an EINVALID error naming it.
func NewServerHosts(names ...string) (*ServerHosts, error) {
	s := &ServerHosts{exact: map[string]bool{}}
	for _, n := range names {
		if err := s.add(n); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (s *ServerHosts) add(name string) error {
	name = strings.TrimSpace(name)
	if i := strings.Index(name, "://"); i >= 0 {
		name = name[i+3:]
		if j := strings.IndexAny(name, "/?#"); j >= 0 {
			name = name[:j]
		}
		if j := strings.LastIndexByte(name, '@'); j >= 0 {
			name = name[j+1:]
		}
	}
	h := HostName(name)
	if h == "" || net.ParseIP(h) != nil {
		return nil // no name, or always a server host
	}
	if rest, ok := strings.CutPrefix(h, "*."); ok {
		d, err := normalizeHostname(rest)
		if err != nil {
			return Errorf(EINVALID, "reserved host %q: %s", name, ErrorMessage(err))
		}
		s.suffixes = append(s.suffixes, "."+d)
		return nil
	}
	d, err := normalizeHostname(h)
	if err != nil {
		return Errorf(EINVALID, "reserved host %q: %s (use a host name, or *.example.com for every subdomain)", name, ErrorMessage(err))
	}
	s.exact[d] = true
	return nil
}

// HostName returns the host name of a Host header or host:port: lower
// case, without port, IPv6 brackets or a trailing dot.
func HostName(host string) string {
	h := host
	if hh, _, err := net.SplitHostPort(host); err == nil {
		h = hh
	} else if len(h) >= 2 && h[0] == '[' && h[len(h)-1] == ']' {
		h = h[1 : len(h)-1]
	}
	return strings.TrimSuffix(strings.ToLower(h), ".")
}

// Contains reports whether host (a Host header: it may carry a port) is
// one of the server's own hosts.
func (s *ServerHosts) Contains(host string) bool {
	h := HostName(host)
	if h == "" || loopbackNames[h] || net.ParseIP(h) != nil || endsInNumber(h) {
		return true
	}
	if s == nil {
		return false
	}
	if s.exact[h] {
		return true
	}
	for _, suf := range s.suffixes {
		if strings.HasSuffix(h, suf) {
			return true
		}
	}
	return false
}

// CheckDomain normalizes a project domain (NormalizeDomain) and refuses it,
// with an EINVALID error, when it is one of the server's own hosts.
func (s *ServerHosts) CheckDomain(domain string) (string, error) {
	d, err := NormalizeDomain(domain)
	if err != nil {
		return "", err
	}
	if s.Contains(d) {
		return "", Errorf(EINVALID, "domain %s is one of this server's own host names (its public URL's host, its listen address's host or a reserved host): the server answers there itself, so no site may use it; choose another domain", d)
	}
	return d, nil
}

// MaxDomains bounds a project's domains.
const MaxDomains = 50

// CheckDomains normalizes a project's domains with CheckDomain, keeping
// their order and each once: one to MaxDomains of them. An EINVALID error
// names the domain at fault.
func (s *ServerHosts) CheckDomains(domains []string) ([]string, error) {
	if len(domains) == 0 || len(domains) > MaxDomains {
		return nil, Errorf(EINVALID, "a project has 1 to %d domains", MaxDomains)
	}
	seen := map[string]bool{}
	out := make([]string, 0, len(domains))
	for _, d := range domains {
		n, err := s.CheckDomain(d)
		if err != nil {
			return nil, Errorf(EINVALID, "%q: %s", d, ErrorMessage(err))
		}
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out, nil
}
