package lectern

import (
	"net/netip"
	"testing"
)

func TestPublicAddr(t *testing.T) {
	for s, want := range map[string]bool{
		"93.184.216.34": true, "2606:2800:220:1::1": true,
		"127.0.0.1": false, "10.1.2.3": false, "172.16.0.1": false, "192.168.1.1": false, "169.254.169.254": false,
		"100.64.0.1": false, "0.0.0.0": false, "::1": false, "fd00::1": false, "fe80::1": false,
		"::ffff:127.0.0.1": false, "::127.0.0.1": false, "64:ff9b::a00:1": false, "2002:a00:1::": false, "224.0.0.1": false,
	} {
		if got := PublicAddr(netip.MustParseAddr(s)); got != want {
			t.Errorf("PublicAddr(%s) = %v, want %v", s, got, want)
		}
	}
}

func TestNumericHost(t *testing.T) {
	for s, want := range map[string]bool{
		"127.1": true, "0x7f.1": true, "0177.0.0.1": true, "2130706433": true, "0x7f000001": true,
		"127.0.0.1": false, "ci.example.com": false, "cafe.be": false, "deadbeef": false, "::1": false, "": false,
	} {
		if got := NumericHost(s); got != want {
			t.Errorf("NumericHost(%q) = %v, want %v", s, got, want)
		}
	}
}
