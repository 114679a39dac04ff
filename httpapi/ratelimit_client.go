package httpapi

import (
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"lectern.dev/lectern"
)

// limitClient applies the per-client-address limit (Config.ClientRateLimit)
// before authentication, so that requests with unknown, revoked or
// malformed keys are limited as well as those with good ones.
func (a *api) limitClient(next http.Handler) http.Handler {
	if a.cfg.ClientRateLimit.Rate <= 0 {
		return next
	}
	limit := []string{strconv.Itoa(a.cfg.ClientRateLimit.Burst)}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ok, _, reset := a.clientLimiter.Allow(r.Context(), clientAddr(r, a.cfg.TrustedProxies), time.Now())
		if !ok {
			h := w.Header()
			h["Ratelimit-Limit"] = limit
			h["Ratelimit-Remaining"] = smallNumber(0)
			h["Ratelimit-Reset"] = smallNumber(max(reset, 1))
			writeError(w, r, a.log, &lectern.Error{Code: lectern.ERATELIMITED, RetryAfterSeconds: max(reset, 1),
				Message: "Too many requests from this address; retry after the number of seconds in Retry-After."})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// clientAddr returns the address a request's rate limit is counted by: the
// connection's peer, or, when the peer is a trusted proxy, the nearest
// address in X-Forwarded-For that is not one (the header is read right to
// left, since only the entries added by trusted proxies can be believed).
// IPv6 addresses are counted by their /64 network, which one client
// usually holds whole.
// ClientAddr returns the address of the client of r: the connection's,
// or, from a proxy of trusted, the last address of X-Forwarded-For that
// is not a trusted proxy's; an IPv6 address as its /64.
func ClientAddr(r *http.Request, trusted []netip.Prefix) string { return clientAddr(r, trusted) }

func clientAddr(r *http.Request, trusted []netip.Prefix) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return r.RemoteAddr
	}
	ip = ip.Unmap().WithZone("")
	if len(trusted) > 0 && inPrefixes(ip, trusted) {
		hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
		for i := len(hops) - 1; i >= 0; i-- {
			hop, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
			if err != nil {
				break
			}
			ip = hop.Unmap().WithZone("")
			if !inPrefixes(ip, trusted) {
				break
			}
		}
	}
	if ip.Is6() {
		p, _ := ip.Prefix(64)
		return p.String()
	}
	return ip.String()
}

func inPrefixes(ip netip.Addr, ps []netip.Prefix) bool {
	for _, p := range ps {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// ParseTrustedProxies parses a comma-separated list of addresses and
// networks (10.0.0.0/8, 192.0.2.7, fd00::/8) of trusted reverse proxies.
func ParseTrustedProxies(list string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, s := range strings.Split(list, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if p, err := netip.ParsePrefix(s); err == nil {
			out = append(out, p.Masked())
			continue
		}
		ip, err := netip.ParseAddr(s)
		if err != nil {
			return nil, lectern.Errorf(lectern.EINVALID, "%q is not an IP address or network such as 10.0.0.0/8", s)
		}
		ip = ip.Unmap()
		out = append(out, netip.PrefixFrom(ip, ip.BitLen()))
	}
	return out, nil
}
