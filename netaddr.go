package lectern

import "net/netip"

// nonPublic are the ranges no tenant's request may make the server reach,
// besides those netip classifies (loopback, private, link-local,
// unspecified, multicast): carrier-grade NAT, and the IPv6 forms that
// embed an IPv4 address (IPv4-compatible, NAT64, 6to4), which could carry
// a private one.
var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("::/96"),
	netip.MustParsePrefix("64:ff9b::/96"),
	netip.MustParsePrefix("64:ff9b:1::/48"),
	netip.MustParsePrefix("2002::/16"),
}

// PublicAddr reports whether ip is a public unicast address: one that a
// tenant's webhook or repository may make the server connect to.
func PublicAddr(ip netip.Addr) bool {
	ip = ip.Unmap()
	if !ip.IsGlobalUnicast() || ip.IsPrivate() || ip.IsLoopback() || ip.IsLinkLocalUnicast() {
		return false
	}
	for _, p := range nonPublic {
		if p.Contains(ip) {
			return false
		}
	}
	return true
}

// NumericHost reports whether host looks like an address written in a
// form other than canonical dotted decimal or IPv6 (127.1, 0x7f.1,
// 0177.0.0.1, 2130706433), which resolvers read as an address: such a
// host is neither a name nor an address to check.
func NumericHost(host string) bool {
	if _, err := netip.ParseAddr(host); err == nil {
		return false
	}
	if host == "" {
		return false
	}
	for _, c := range host {
		if !(c >= '0' && c <= '9' || c == '.' || c == 'x' || c == 'X' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	// Hex letters alone make a name ("cafe.be" is not numeric): one digit
	// starting a label is needed.
	for _, label := range splitDots(host) {
		if label != "" && label[0] >= '0' && label[0] <= '9' {
			return true
		}
	}
	return false
}

func splitDots(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '.' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}
