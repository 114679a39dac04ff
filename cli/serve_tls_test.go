package cli_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"lectern.dev/lectern/cli"
)

// testCert is a self-signed certificate made for a test, and its files.
type testCert struct {
	cert              *x509.Certificate
	certFile, keyFile string
	certPEM, keyPEM   []byte
}

// makeCert makes a self-signed certificate for names with the serial
// number serial, and writes it and its key into dir as NAME.pem and
// NAME.key.
func makeCert(t *testing.T, dir, name string, serial int64, names ...string) *testCert {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: names[0]}, DNSNames: names,
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(90 * 24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true, IsCA: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	c := &testCert{cert: cert, certFile: filepath.Join(dir, name+".pem"), keyFile: filepath.Join(dir, name+".key"),
		certPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		keyPEM:  pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})}
	writeAtomic(t, c.certFile, c.certPEM)
	writeAtomic(t, c.keyFile, c.keyPEM)
	return c
}

// writeAtomic replaces a file as certbot and Kubernetes do: a new file
// renamed over the old one.
func writeAtomic(t *testing.T, name string, data []byte) {
	t.Helper()
	tmp := name + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, name); err != nil {
		t.Fatal(err)
	}
}

// tlsClient is an https client that trusts roots and connects to addr
// whatever the URL's host, so that URLs name the host the client asks
// for (SNI, Host). It follows no redirects and keeps no connections.
func tlsClient(addr string, roots ...*x509.Certificate) *http.Client {
	pool := x509.NewCertPool()
	for _, c := range roots {
		pool.AddCert(c)
	}
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, DisableKeepAlives: true, ForceAttemptHTTP2: true,
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, network, addr)
		}}
	return &http.Client{Transport: tr, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// servedSerial is the serial number of the certificate addr shows to a
// client asking for name.
func servedSerial(t *testing.T, addr, name string) int64 {
	t.Helper()
	conn, err := tls.Dial("tcp", addr, &tls.Config{ServerName: name, InsecureSkipVerify: true})
	if err != nil {
		t.Fatalf("TLS handshake with %s for %s: %v", addr, name, err)
	}
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0].SerialNumber.Int64()
}

// waitSerial waits until addr shows name the certificate with serial.
func waitSerial(t *testing.T, s *server, addr, name string, serial int64) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for servedSerial(t, addr, name) != serial {
		if time.Now().After(deadline) {
			t.Fatalf("%s still shows certificate %d, not the renewed %d:\n%s", name, servedSerial(t, addr, name), serial, s.logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// startServeOn runs serve on addr with args until the test ends, and
// waits until ready says it answers.
func startServeOn(t *testing.T, dataDir, addr string, ready func(logs string) bool, args ...string) *server {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	logs := &syncBuffer{}
	done := make(chan error, 1)
	args = append([]string{"serve", "--addr", addr, "--data-dir", dataDir, "--rate-limit", "1000"}, args...)
	go func() { done <- cli.Run(ctx, args, noEnv, strings.NewReader(""), io.Discard, logs) }()
	var once sync.Once
	s := &server{logs: logs, stop: func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("serve returned %v", err)
			}
		})
	}}
	t.Cleanup(s.stop)
	for deadline := time.Now().Add(15 * time.Second); !ready(logs.String()); time.Sleep(20 * time.Millisecond) {
		select {
		case err := <-done:
			t.Fatalf("serve exited early: %v\n%s", err, logs.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve not ready after 15s:\n%s", logs.String())
		}
	}
	return s
}

func getOK(c *http.Client, url string) bool {
	resp, err := c.Get(url)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == 200
}

// TestServeTLSFiles serves the API and a live site over https with
// certificates from files, each chosen by the name the client asks for,
// and picks up a renewed certificate without a restart; one that does
// not load leaves the previous one serving.
func TestServeTLSFiles(t *testing.T) {
	t.Parallel()
	data, certDir := t.TempDir(), t.TempDir()
	addr := freeAddr(t)
	_, port, _ := net.SplitHostPort(addr)
	public := "https://lectern.acme.test:" + port
	api := makeCert(t, certDir, "api", 1, "lectern.acme.test")
	docs := makeCert(t, certDir, "docs", 2, "docs.acme.test", "www.docs.acme.test")

	org := lastLine(lectern(t, "admin", "--data-dir", data, "org", "create", "--name", "Acme"))
	key := lastLine(lectern(t, "admin", "--data-dir", data, "key", "create", "--org", org, "--name", "ci"))
	repo, _ := newRepo(t, smallSite("Served over **TLS**."))
	prj := lastLine(lectern(t, "admin", "--data-dir", data, "project", "create", "--org", org, "--name", "Docs",
		"--repo", repo, "--domain", "docs.acme.test", "--public-url", public))

	c := tlsClient(addr, api.cert, docs.cert)
	srv := startServeOn(t, data, addr, func(string) bool { return getOK(c, public+"/healthz") }, "--public-url", public,
		"--tls-cert", api.certFile+","+docs.certFile, "--tls-key", api.keyFile+","+docs.keyFile, "--tls-reload-interval", "20ms")

	t.Log("the API over https, with the server's certificate")
	req, _ := http.NewRequest("POST", public+"/v1/project/update/"+prj, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var queued struct{ StatusID string }
	queuedProto := resp.ProtoMajor
	json.NewDecoder(resp.Body).Decode(&queued)
	resp.Body.Close()
	if resp.StatusCode != 202 || resp.TLS.PeerCertificates[0].SerialNumber.Int64() != 1 {
		t.Fatalf("update over https: %d, certificate %d", resp.StatusCode, resp.TLS.PeerCertificates[0].SerialNumber)
	}
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(25 * time.Millisecond) {
		req, _ := http.NewRequest("GET", public+"/v1/project/update-status/"+queued.StatusID, nil)
		req.Header.Set("Authorization", "Bearer "+key)
		var st struct{ Status, Summary string }
		if resp, err := c.Do(req); err == nil {
			json.NewDecoder(resp.Body).Decode(&st)
			resp.Body.Close()
		}
		if st.Status == "success" {
			break
		}
		if st.Status == "failure" || time.Now().After(deadline) {
			t.Fatalf("update %s: %q %s\n%s", queued.StatusID, st.Status, st.Summary, srv.logs.String())
		}
	}

	t.Log("the live site over https, with its own certificate (SNI)")
	resp, err = c.Get("https://docs.acme.test:" + port + "/quickstart")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "Served over <strong>TLS</strong>.") {
		t.Fatalf("the live site over https: %d %.300s\n%s", resp.StatusCode, body, srv.logs.String())
	}
	if got := resp.TLS.PeerCertificates[0].SerialNumber.Int64(); got != 2 {
		t.Errorf("docs.acme.test was shown certificate %d, want its own (2)", got)
	}
	// Over TLS, sites and the API speak HTTP/2 to a client that offers it.
	if resp.ProtoMajor != 2 || queuedProto != 2 {
		t.Errorf("over TLS the live site answered %s and the API HTTP/%d, want HTTP/2 for both", resp.Proto, queuedProto)
	}

	t.Log("the dashboard's cookies are Secure and __Host- over https")
	resp, err = c.Get(public + "/dashboard/signin")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var csrf *http.Cookie
	for _, ck := range resp.Cookies() {
		if strings.HasSuffix(ck.Name, "lectern_csrf") {
			csrf = ck
		}
	}
	if csrf == nil || csrf.Name != "__Host-lectern_csrf" || !csrf.Secure {
		t.Errorf("sign-in page over https set %v, want a Secure __Host-lectern_csrf cookie", resp.Header.Values("Set-Cookie"))
	}

	t.Log("a renewal whose key does not load keeps the previous certificate")
	writeAtomic(t, api.keyFile, []byte("not a key\n"))
	deadline := time.Now().Add(15 * time.Second)
	for !strings.Contains(srv.logs.String(), "TLS certificates not reloaded") {
		if time.Now().After(deadline) {
			t.Fatalf("a broken key file was not reported:\n%s", srv.logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got := servedSerial(t, addr, "lectern.acme.test"); got != 1 {
		t.Fatalf("after a broken renewal the server shows certificate %d, want the previous one (1)", got)
	}

	t.Log("a renewed certificate is served without a restart")
	renewed := makeCert(t, t.TempDir(), "api", 3, "lectern.acme.test")
	writeAtomic(t, api.certFile, renewed.certPEM)
	writeAtomic(t, api.keyFile, renewed.keyPEM)
	waitSerial(t, srv, addr, "lectern.acme.test", 3)
	if !getOK(tlsClient(addr, renewed.cert), public+"/healthz") {
		t.Error("the API does not answer with the renewed certificate")
	}
	if got := servedSerial(t, addr, "docs.acme.test"); got != 2 {
		t.Errorf("after the API's renewal docs.acme.test shows certificate %d, want its own (2)", got)
	}
}

// TestServeTLSReloadOnSIGHUP: with files checked only hourly, SIGHUP
// loads a renewed certificate at once. Not parallel: the signal goes to
// the whole test process, and parallel tests that listen for it (selfhost)
// are paused meanwhile.
func TestServeTLSReloadOnSIGHUP(t *testing.T) {
	certDir := t.TempDir()
	addr := freeAddr(t)
	first := makeCert(t, certDir, "api", 10, "lectern.acme.test")
	srv := startServeOn(t, t.TempDir(), addr, func(string) bool { return getOK(tlsClient(addr, first.cert), "https://lectern.acme.test/healthz") },
		"--public-url", "https://lectern.acme.test", "--tls-cert", first.certFile, "--tls-key", first.keyFile, "--tls-reload-interval", "1h")
	renewed := makeCert(t, t.TempDir(), "api", 11, "lectern.acme.test")
	writeAtomic(t, first.certFile, renewed.certPEM)
	writeAtomic(t, first.keyFile, renewed.keyPEM)
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitSerial(t, srv, addr, "lectern.acme.test", 11)
	if !strings.Contains(srv.logs.String(), "why=SIGHUP") {
		t.Errorf("the reload was not logged as SIGHUP's:\n%s", srv.logs.String())
	}
}

// TestServeTLSSettings: TLS settings that cannot work are refused before
// anything starts, each with what to do.
func TestServeTLSSettings(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := makeCert(t, dir, "good", 1, "lectern.acme.test")
	other := makeCert(t, dir, "other", 2, "lectern.acme.test")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--tls-cert", good.certFile}, "--tls-cert and --tls-key go together"},
		{[]string{"--tls-cert", good.certFile, "--tls-key", other.keyFile}, "private key does not match public key"},
		{[]string{"--tls-cert", good.certFile + "," + other.certFile, "--tls-key", good.keyFile}, "give one key file per certificate file"},
		{[]string{"--tls-cert", filepath.Join(dir, "missing.pem"), "--tls-key", good.keyFile}, "missing.pem"},
		{[]string{"--tls-cert", good.certFile, "--tls-key", good.keyFile, "--public-url", "http://lectern.acme.test"}, "is http:// but --tls-cert or --tls-acme serves https"},
		{[]string{"--tls-acme", "--tls-cert", good.certFile, "--tls-key", good.keyFile, "--public-url", "https://lectern.acme.test"}, "choose one"},
		{[]string{"--tls-acme"}, "--tls-acme needs --public-url https://HOST with the server's DNS name"},
		{[]string{"--tls-redirect-addr", ":0"}, "--tls-redirect-addr redirects plain http to https: it needs --tls-cert or --tls-acme"},
		{[]string{"--tls-acme", "--public-url", "https://lectern.acme.test", "--demo"}, "--demo serves plain http"},
	} {
		data := t.TempDir()
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second) // a serve that started would run until then
		err := cli.Run(ctx, append([]string{"serve", "--data-dir", data, "--addr", "127.0.0.1:0"}, c.args...), noEnv, strings.NewReader(""), io.Discard, io.Discard)
		cancel()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("serve %v: %v, want an error saying %q", c.args, err, c.want)
		}
		if entries, _ := os.ReadDir(data); len(entries) != 0 {
			t.Errorf("serve %v failed but wrote into its data folder: %v", c.args, entries)
		}
	}
}

// TestCertPolicy asks the certificate policy, through /tls-allowed on
// --metrics-addr (the "ask" endpoint of a proxy that orders certificates
// on demand), about the server's own names, projects' domains and
// strangers: only the first two may get a certificate.
func TestCertPolicy(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	org := lastLine(lectern(t, "admin", "--data-dir", data, "org", "create", "--name", "Acme"))
	hostArgs := []string{"--public-url", "https://lectern.acme.test", "--reserved-hosts", "api.acme.test,*.internal.acme.test"}
	lectern(t, append([]string{"admin", "--data-dir", data, "project", "create", "--org", org, "--name", "Docs",
		"--repo", t.TempDir(), "--domain", "docs.acme.test", "--domain", "docs.localhost"}, hostArgs...)...)
	gone := lastLine(lectern(t, append([]string{"admin", "--data-dir", data, "project", "create", "--org", org, "--name", "Gone",
		"--repo", t.TempDir(), "--domain", "gone.acme.test"}, hostArgs...)...))
	lectern(t, "admin", "--data-dir", data, "project", "delete", gone)

	metrics := freeAddr(t)
	srv := startServe(t, data, append(hostArgs, "--metrics-addr", metrics)...)
	for name, allowed := range map[string]bool{
		"lectern.acme.test":      true, // the public URL's host
		"LECTERN.acme.test.":     true,
		"api.acme.test":          true, // a reserved host written out
		"docs.acme.test":         true, // a project's domain
		"x.internal.acme.test":   false,
		"stranger.acme.test":     false,
		"gone.acme.test":         false, // a deleted project's
		"docs.localhost":         false,
		"localhost":              false,
		"127.0.0.1":              false,
		"":                       false,
		"docs.acme.test/../evil": false,
	} {
		resp, err := http.Get("http://" + metrics + "/tls-allowed?domain=" + strings.ReplaceAll(name, "/", "%2F"))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if got := resp.StatusCode == 200; got != allowed {
			t.Errorf("/tls-allowed?domain=%s: %d %s, want allowed=%v", name, resp.StatusCode, body, allowed)
		}
	}
	if code, _ := page(t, srv.url, "lectern.acme.test", "/tls-allowed?domain=docs.acme.test"); code == 200 {
		t.Error("/tls-allowed answers on --addr; it belongs to the operator's --metrics-addr only")
	}
}

// TestServeTLSACME runs built-in ACME against a stand-in CA on loopback
// (never a real one): a TLS hello for a name the policy refuses orders
// nothing, one for a project's domain goes to the CA; the plain-http
// listener redirects to https and answers http-01 challenges only for
// allowed names.
func TestServeTLSACME(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	ca := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(http.StatusForbidden) // not retried by the ACME client
		io.WriteString(w, `{"type": "urn:ietf:params:acme:error:unauthorized", "detail": "stand-in CA"}`)
	}))
	defer ca.Close()
	data := t.TempDir()
	org := lastLine(lectern(t, "admin", "--data-dir", data, "org", "create", "--name", "Acme"))
	lectern(t, "admin", "--data-dir", data, "project", "create", "--org", org, "--name", "Docs",
		"--repo", t.TempDir(), "--domain", "docs.acme.test", "--public-url", "https://lectern.acme.test")
	addr, plain := freeAddr(t), freeAddr(t)
	_, port, _ := net.SplitHostPort(addr)
	srv := startServeOn(t, data, addr, func(logs string) bool { return strings.Contains(logs, "lectern listening") },
		"--public-url", "https://lectern.acme.test:"+port, "--tls-acme", "--tls-acme-directory", ca.URL+"/directory",
		"--tls-acme-email", "ops@acme.test", "--tls-redirect-addr", plain)
	waitListening(t, plain)

	hello := func(name string) error {
		conn, err := tls.Dial("tcp", addr, &tls.Config{ServerName: name, InsecureSkipVerify: true})
		if err == nil {
			conn.Close()
		}
		return err
	}
	for _, name := range []string{"stranger.acme.test", "x.docs.acme.test"} {
		if err := hello(name); err == nil {
			t.Errorf("TLS hello for %s: the server showed a certificate", name)
		}
	}
	if n := calls.Load(); n != 0 {
		t.Fatalf("TLS hellos for names the policy refuses made %d requests to the CA", n)
	}
	if err := hello("docs.acme.test"); err == nil {
		t.Error("TLS hello for docs.acme.test: a certificate although the CA refused")
	}
	if calls.Load() == 0 {
		t.Errorf("TLS hello for the project's domain docs.acme.test did not ask the CA:\n%s", srv.logs.String())
	}
	if _, err := os.Stat(filepath.Join(data, "acme")); err != nil {
		t.Errorf("the ACME cache is not in the data folder: %v", err)
	}

	t.Log("plain http: redirects, and http-01 challenges for allowed names only")
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, c := range []struct {
		method, host, path string
		code               int
		location           string
	}{
		{"GET", "docs.acme.test", "/quickstart?x=1", 308, "https://docs.acme.test:" + port + "/quickstart?x=1"},
		{"HEAD", "lectern.acme.test", "/v1/openapi.json", 308, "https://lectern.acme.test:" + port + "/v1/openapi.json"},
		{"POST", "lectern.acme.test", "/v1/project/update/prj_x", 400, ""},
		{"GET", "stranger.acme.test", "/.well-known/acme-challenge/token", 403, ""},
		{"GET", "docs.acme.test", "/.well-known/acme-challenge/token", 404, ""},
	} {
		req, _ := http.NewRequest(c.method, "http://"+plain+c.path, nil)
		req.Host = c.host
		resp, err := noFollow.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.code || resp.Header.Get("Location") != c.location {
			t.Errorf("%s http://%s%s: %d %q, want %d %q", c.method, c.host, c.path, resp.StatusCode, resp.Header.Get("Location"), c.code, c.location)
		}
	}
}

// waitListening waits until addr accepts connections.
func waitListening(t *testing.T, addr string) {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if conn, err := net.Dial("tcp", addr); err == nil {
			conn.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not listening after 15s", addr)
		}
	}
}
