package cli

// serve's built-in TLS: certificates from files (reloaded when they
// change) or from an ACME CA through golang.org/x/crypto/acme/autocert,
// the rule that says which names may get one, and the plain-http
// redirect.

import (
	"context"
	"crypto/tls"
	"fmt"
	stdlog "log"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/pflag"
	"golang.org/x/crypto/acme"
	"golang.org/x/crypto/acme/autocert"

	"lectern.dev/lectern"
)

// tlsFlags are serve's built-in TLS settings.
type tlsFlags struct {
	certs, keys   string
	acme          bool
	acmeEmail     string
	acmeCache     string
	acmeDirectory string
	redirectAddr  string
	reloadEvery   time.Duration
}

func (t *tlsFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&t.certs, "tls-cert", "", "serve https on --addr with these certificate files (PEM, leaf then chain; comma-separated, one per --tls-key, chosen by the name the client asks for); reloaded when they change or on SIGHUP")
	fs.StringVar(&t.keys, "tls-key", "", "the private key files of --tls-cert, in the same order (PEM; keep them private: chmod 600)")
	fs.BoolVar(&t.acme, "tls-acme", false, "serve https on --addr with certificates from an ACME CA (Let's Encrypt unless --tls-acme-directory), ordered on first use for the --public-url host, --reserved-hosts written out, and projects' domains only; using it accepts the CA's terms of service")
	fs.StringVar(&t.acmeEmail, "tls-acme-email", "", "contact address given to the ACME CA for the account (optional)")
	fs.StringVar(&t.acmeCache, "tls-acme-cache", "", "folder where the ACME account and the certificates, with their private keys, are kept (default DATA_DIR/acme)")
	fs.StringVar(&t.acmeDirectory, "tls-acme-directory", autocert.DefaultACMEDirectory, "directory URL of the ACME CA (Let's Encrypt's staging one for trials, or your own CA's)")
	fs.StringVar(&t.redirectAddr, "tls-redirect-addr", "", "also listen for plain http here (usually :80): redirect to https, and answer ACME http-01 challenges (default none)")
	fs.DurationVar(&t.reloadEvery, "tls-reload-interval", 10*time.Second, "how often the --tls-cert and --tls-key files are checked for changes")
	fs.MarkHidden("tls-reload-interval")
}

// mode is how --addr is served: "off" (plain http), "files" or "acme".
func (t *tlsFlags) mode() string {
	switch {
	case t.acme:
		return "acme"
	case t.certs != "" || t.keys != "":
		return "files"
	}
	return "off"
}

// check refuses settings that do not fit together and loads the
// certificate files, so that a mistake stops serve before it binds or
// touches anything. certs is nil unless --tls-cert is given.
func (t *tlsFlags) check(publicURL string, log *slog.Logger) (certs *certFiles, err error) {
	mode := t.mode()
	if mode == "off" {
		if t.redirectAddr != "" {
			return nil, fmt.Errorf("--tls-redirect-addr redirects plain http to https: it needs --tls-cert or --tls-acme")
		}
		return nil, nil
	}
	if !strings.HasPrefix(publicURL, "https://") {
		return nil, fmt.Errorf("--public-url %s is http:// but --tls-cert or --tls-acme serves https: give https://HOST (download links and the dashboard use it)", lectern.RedactURL(publicURL))
	}
	if t.reloadEvery <= 0 {
		return nil, fmt.Errorf("--tls-reload-interval %s: give a positive duration", t.reloadEvery)
	}
	if mode == "acme" {
		if t.certs != "" || t.keys != "" {
			return nil, fmt.Errorf("--tls-acme and --tls-cert/--tls-key both give certificates: choose one")
		}
		if _, err := lectern.NormalizeDomain(publicHost(publicURL)); err != nil {
			return nil, fmt.Errorf("--tls-acme needs --public-url https://HOST with the server's DNS name (certificates are issued for names, not addresses or localhost); %s is not one", lectern.RedactURL(publicURL))
		}
		if u, err := url.Parse(t.acmeDirectory); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return nil, fmt.Errorf("--tls-acme-directory %q: give the ACME CA's directory URL, such as %s", t.acmeDirectory, autocert.DefaultACMEDirectory)
		}
		return nil, nil
	}
	if t.certs == "" || t.keys == "" {
		return nil, fmt.Errorf("--tls-cert and --tls-key go together: give the certificate files and their private keys")
	}
	certs, err = loadCertFiles(t.certs, t.keys, log)
	if err != nil {
		return nil, err
	}
	certs.warnUncovered(publicHost(publicURL))
	return certs, nil
}

// publicHost is the host name of a public URL.
func publicHost(publicURL string) string {
	u, err := url.Parse(publicURL)
	if err != nil {
		return ""
	}
	return lectern.HostName(u.Host)
}

// publicPort is the port clients reach a public URL on.
func publicPort(publicURL string) string {
	u, err := url.Parse(publicURL)
	if err != nil || u.Port() == "" {
		return "443"
	}
	return u.Port()
}

// config returns the TLS configuration of --addr (nil for plain http)
// and the handler of the plain-http redirect listener.
func (t *tlsFlags) config(certs *certFiles, policy autocert.HostPolicy, dataDir, publicURL string) (*tls.Config, http.Handler) {
	redirect := httpsRedirect(publicPort(publicURL))
	switch t.mode() {
	case "files":
		return &tls.Config{MinVersion: tls.VersionTLS12, GetCertificate: certs.getCertificate}, redirect
	case "acme":
		cache := t.acmeCache
		if cache == "" {
			cache = filepath.Join(dataDir, "acme")
		}
		m := &autocert.Manager{Prompt: autocert.AcceptTOS, Cache: autocert.DirCache(cache), HostPolicy: policy,
			Email: t.acmeEmail, Client: &acme.Client{DirectoryURL: t.acmeDirectory, UserAgent: "lectern/" + Version}}
		cfg := m.TLSConfig() // answers tls-alpn-01 challenges on --addr
		cfg.MinVersion = tls.VersionTLS12
		return cfg, m.HTTPHandler(redirect) // and http-01 ones on the redirect listener
	}
	return nil, redirect
}

// httpsRedirect sends plain-http GET and HEAD requests to the same URL
// over https, on the public URL's port. Other methods are refused rather
// than redirected: an API client configured with http:// should fail
// loudly, not keep sending its key in clear text before each redirect.
func httpsRedirect(port string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := lectern.HostName(r.Host)
		if host == "" {
			http.Error(w, "This server answers over https only.", http.StatusBadRequest)
			return
		}
		if strings.Contains(host, ":") { // IPv6
			host = "[" + host + "]"
		}
		if port != "443" {
			host += ":" + port
		}
		target := "https://" + host + r.URL.RequestURI()
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			http.Error(w, "This server answers over https only: send the request to "+target, http.StatusBadRequest)
			return
		}
		http.Redirect(w, r, target, http.StatusPermanentRedirect)
	})
}

// domainResolver is the store's lookup of project domains.
type domainResolver interface {
	ResolveDomain(ctx context.Context, domain string) (projectID, liveDeploymentID string, err error)
}

// certNames are the server's own names a certificate may be issued for:
// the public URL's host, the listen address's, and the reserved hosts
// written out. "*.example.com" patterns are not: if any name under them
// could get a certificate, anyone able to make up a subdomain (wildcard
// DNS) could have the server order certificates at will. IP addresses and
// loopback names are left out, as no public CA issues certificates for
// them.
func certNames(publicURL, addr, reservedHosts string) map[string]bool {
	names := map[string]bool{}
	for _, n := range append([]string{publicHost(publicURL), lectern.HostName(addr)}, strings.Split(reservedHosts, ",")...) {
		d, err := lectern.NormalizeDomain(lectern.HostName(strings.TrimSpace(n)))
		if err == nil && !strings.HasSuffix(d, ".localhost") {
			names[d] = true
		}
	}
	return names
}

// certPolicy says whether a certificate may be issued for a host name:
// one of the server's own names (own, from certNames), or the domain of a
// project that exists in the store. Anyone can put any name in a TLS
// hello or a Host header, so without this rule a stranger could make the
// server order certificates for names of their choosing and spend the
// CA's rate limits, which are counted per account and per domain, that
// the tenants' real sites need.
func certPolicy(own map[string]bool, hosts *lectern.ServerHosts, domains domainResolver) autocert.HostPolicy {
	return func(ctx context.Context, name string) error {
		h := lectern.HostName(name)
		if own[h] {
			return nil
		}
		d, err := hosts.CheckDomain(h)
		if err != nil {
			return fmt.Errorf("lectern: no certificate for %q: %s", name, lectern.ErrorMessage(err))
		}
		if strings.HasSuffix(d, ".localhost") {
			return fmt.Errorf("lectern: no certificate for %q: no public CA issues certificates for .localhost names", d)
		}
		if _, _, err := domains.ResolveDomain(ctx, d); err != nil {
			if lectern.ErrorCode(err) == lectern.ENOTFOUND {
				return fmt.Errorf("lectern: no certificate for %q: it is neither the server's own name nor a project's domain", d)
			}
			return fmt.Errorf("lectern: no certificate for %q now: the store could not tell whether a project has it: %s", d, lectern.ErrorMessage(err))
		}
		return nil
	}
}

// certAllowedHandler answers GET /tls-allowed?domain=NAME with 200 when
// the certificate policy allows NAME, else 403: the "ask" endpoint of a
// reverse proxy that orders certificates on demand (Caddy's
// on_demand_tls), so that it follows the same rule as built-in ACME.
func certAllowedHandler(policy autocert.HostPolicy) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := policy(r.Context(), r.URL.Query().Get("domain")); err != nil {
			http.Error(w, strings.TrimPrefix(err.Error(), "lectern: "), http.StatusForbidden)
			return
		}
		fmt.Fprintln(w, "allowed")
	})
}

// certFiles are the certificates of --tls-cert and --tls-key: loaded at
// start, and again when a file changes (checked every --tls-reload-interval,
// which sees renewals that replace files or the symbolic links to them, as
// certbot and Kubernetes secrets do) or on SIGHUP, so a renewal needs no
// restart. A set that does not load keeps the previous one serving.
type certFiles struct {
	log   *slog.Logger
	pairs [][2]string // certificate file, key file
	certs atomic.Pointer[[]tls.Certificate]
	stamp string // the files' sizes and times when last read
}

func loadCertFiles(certList, keyList string, log *slog.Logger) (*certFiles, error) {
	certs, keys := splitList(certList), splitList(keyList)
	if len(certs) != len(keys) {
		return nil, fmt.Errorf("--tls-cert names %d files and --tls-key %d: give one key file per certificate file, in the same order", len(certs), len(keys))
	}
	c := &certFiles{log: log}
	for i := range certs {
		c.pairs = append(c.pairs, [2]string{certs[i], keys[i]})
	}
	list, stamp, err := c.read()
	if err != nil {
		return nil, err
	}
	c.certs.Store(&list)
	c.stamp = stamp
	c.logLoaded("TLS certificates loaded", "start", list)
	return c, nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// read loads every pair. The stamp is taken first, so that a file written
// while it reads is read again at the next check.
func (c *certFiles) read() ([]tls.Certificate, string, error) {
	stamp := c.stat()
	list := make([]tls.Certificate, 0, len(c.pairs))
	for _, p := range c.pairs {
		cert, err := tls.LoadX509KeyPair(p[0], p[1])
		if err != nil {
			return nil, stamp, fmt.Errorf("--tls-cert %s with --tls-key %s: %w", p[0], p[1], err)
		}
		list = append(list, cert)
	}
	return list, stamp, nil
}

func (c *certFiles) stat() string {
	var b strings.Builder
	for _, p := range c.pairs {
		for _, name := range p {
			if fi, err := os.Stat(name); err == nil {
				fmt.Fprintf(&b, "%d/%d;", fi.Size(), fi.ModTime().UnixNano())
			} else {
				b.WriteString("-;")
			}
		}
	}
	return b.String()
}

// getCertificate picks the first certificate valid for the name the
// client asks for (SNI), else the first one.
func (c *certFiles) getCertificate(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	list := *c.certs.Load()
	for i := range list {
		if hello.SupportsCertificate(&list[i]) == nil {
			return &list[i], nil
		}
	}
	return &list[0], nil
}

// watch reloads the certificates when their files change or on hup,
// until ctx ends.
func (c *certFiles) watch(ctx context.Context, every time.Duration, hup <-chan os.Signal) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
			c.reload("SIGHUP", true)
		case <-tick.C:
			c.reload("the files changed", false)
		}
	}
}

func (c *certFiles) reload(why string, force bool) {
	if !force && c.stat() == c.stamp {
		return
	}
	list, stamp, err := c.read()
	c.stamp = stamp
	if err != nil {
		c.log.Warn("TLS certificates not reloaded: the previous ones are still served; fix the files (they are read again when they change, or on SIGHUP)",
			"why", why, "err", err)
		return
	}
	c.certs.Store(&list)
	c.logLoaded("TLS certificates reloaded", why, list)
}

func (c *certFiles) logLoaded(msg, why string, list []tls.Certificate) {
	for i, cert := range list {
		leaf := cert.Leaf
		c.log.Info(msg, "why", why, "file", c.pairs[i][0], "names", strings.Join(leaf.DNSNames, ","), "expires", leaf.NotAfter.UTC().Format(time.RFC3339))
		if left := time.Until(leaf.NotAfter); left < 14*24*time.Hour {
			c.log.Warn("a TLS certificate has expired or expires within 14 days: renew it (the new files are picked up without a restart)",
				"file", c.pairs[i][0], "expires", leaf.NotAfter.UTC().Format(time.RFC3339))
		}
	}
}

// warnUncovered logs a warning when no certificate is valid for host,
// the public URL's: browsers and the CLI would refuse the API.
func (c *certFiles) warnUncovered(host string) {
	for _, cert := range *c.certs.Load() {
		if cert.Leaf.VerifyHostname(host) == nil {
			return
		}
	}
	c.log.Warn("no --tls-cert certificate names the --public-url host: clients will refuse the API and the dashboard; add it to a certificate", "host", host)
}

// sighup returns a channel that receives SIGHUP, and the function that
// stops it.
func sighup() (<-chan os.Signal, func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGHUP)
	return ch, func() { signal.Stop(ch) }
}

// serverErrorLog is the error log of serve's http.Servers: failed TLS
// handshakes are logged at debug level, since anyone on the internet
// causes them (scanners, clients that do not trust the certificate, names
// the certificate policy refuses), except those the ACME CA caused, which
// an operator must see; everything else is a warning.
func serverErrorLog(log *slog.Logger) *stdlog.Logger {
	return stdlog.New(logWriter(func(p []byte) {
		line := strings.TrimSpace(string(p))
		level := slog.LevelWarn
		if strings.Contains(line, "TLS handshake error") && !strings.Contains(line, "acme") {
			level = slog.LevelDebug
		}
		log.Log(context.Background(), level, line)
	}), "", 0)
}

type logWriter func([]byte)

func (w logWriter) Write(p []byte) (int, error) { w(p); return len(p), nil }
