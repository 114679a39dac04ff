package webhooks

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"

	"lectern.dev/lectern"
)

// SecretPrefix starts every signing secret; the rest is base64.
const SecretPrefix = "whsec_"

// NewSecret returns a fresh signing secret: whsec_ and 32 random bytes in
// base64.
func NewSecret() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic("webhooks: no randomness: " + err.Error())
	}
	return SecretPrefix + base64.StdEncoding.EncodeToString(b)
}

// maxURL bounds an endpoint's URL.
const maxURL = 2048

// CheckURL validates an endpoint's URL: http:// or https://, a host, no
// user information or fragment; unless allowPrivate, a host that is an
// address must be public, and "localhost" and single-label names are
// refused. Names are resolved only when a delivery connects (Client).
func CheckURL(raw string, allowPrivate bool) (string, error) {
	bad := func(msg string) (string, error) {
		return "", lectern.Errorf(lectern.EINVALID, "%s", msg)
	}
	if len(raw) > maxURL {
		return bad(fmt.Sprintf("is longer than %d bytes", maxURL))
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	switch {
	case err != nil || u.Host == "" || u.Opaque != "":
		return bad("is not an absolute http:// or https:// URL")
	case u.Scheme != "http" && u.Scheme != "https":
		return bad(fmt.Sprintf("uses the scheme %q: use https:// (or http://)", u.Scheme))
	case u.User != nil:
		return bad("holds user information: the signature authenticates deliveries, give the URL without it")
	case u.Fragment != "":
		return bad("has a #fragment, which is never sent")
	}
	if !allowPrivate {
		host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
		if lectern.NumericHost(host) {
			return bad("writes its host as a number in a short form: give a host name or a dotted address")
		}
		if ip, err := netip.ParseAddr(host); err == nil {
			if !lectern.PublicAddr(ip) {
				return bad("names an address of the server's own network (loopback, private or link-local): give a public endpoint, or ask the operator to allow private targets")
			}
		} else if host == "localhost" || strings.HasSuffix(host, ".localhost") || !strings.Contains(host, ".") {
			return bad("names a host of the server's own network: give a public endpoint, or ask the operator to allow private targets")
		}
	}
	return u.String(), nil
}

// errPrivate is the error of a connection refused for its address (the
// address is for the operator's log, not the tenant's attempt record).
type errPrivate struct{ addr string }

func (e errPrivate) Error() string {
	return "the endpoint resolves to " + e.addr + ", an address of the server's own network, which deliveries do not reach"
}

// Client returns the HTTP client deliveries are sent with: timeout per
// attempt, no redirects followed (a redirect is the endpoint's answer),
// and, unless allowPrivate, every connection's address checked as it is
// made.
func Client(timeout time.Duration, allowPrivate bool) *http.Client {
	d := &net.Dialer{Timeout: timeout}
	if !allowPrivate {
		d.Control = func(network, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil || !lectern.PublicAddr(ap.Addr()) {
				return errPrivate{address}
			}
			return nil
		}
	}
	tr := &http.Transport{
		Proxy:                 nil, // a proxy would take the check's place
		DialContext:           d.DialContext,
		TLSHandshakeTimeout:   timeout,
		ResponseHeaderTimeout: timeout,
		MaxIdleConnsPerHost:   2,
		IdleConnTimeout:       30 * time.Second,
	}
	return &http.Client{Transport: tr, Timeout: timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}
