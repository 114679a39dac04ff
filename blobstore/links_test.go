package blobstore

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

var linkKey = []byte("0123456789abcdef0123456789abcdef-test-signing-key")

const (
	bundleKey  = "exports/exp_1/docs.example.com-2026-01-02.tar.gz"
	bundleBody = "\x1f\x8b\x08\x00fake-gzip-bundle-body-0123456789-abcdefghijklmnopqrstuvwxyz"
)

// clock is a settable time source for LocalLinks.Now.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Set(t time.Time) { c.mu.Lock(); c.t = t; c.mu.Unlock() }

var t0 = time.Date(2026, 3, 4, 5, 6, 7, 500_000_000, time.UTC)

func newLinks(t testing.TB) (*LocalLinks, *clock) {
	t.Helper()
	b := openTemp(t)
	if err := b.WriteAll(t.Context(), bundleKey, []byte(bundleBody), nil); err != nil {
		t.Fatal(err)
	}
	c := &clock{t: t0}
	return &LocalLinks{Bucket: b, PublicURL: "https://docs.example.com:8443/", Key: linkKey, Now: c.Now}, c
}

func sign(t testing.TB, l *LocalLinks, key string, ttl time.Duration) (*url.URL, time.Time) {
	t.Helper()
	s, exp, err := l.SignedURL(t.Context(), key, ttl)
	if err != nil {
		t.Fatalf("SignedURL(%q): %v", key, err)
	}
	u, err := url.Parse(s)
	if err != nil {
		t.Fatalf("SignedURL gave %q: %v", s, err)
	}
	return u, exp
}

// get serves a request for u's path and query (its RequestURI) from l.
func get(l http.Handler, method, requestURI string, hdr ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, requestURI, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Set(hdr[i], hdr[i+1])
	}
	w := httptest.NewRecorder()
	l.ServeHTTP(w, r)
	return w
}

type problem struct {
	Type, Title, Detail, Code string
	Status                    int
}

func wantProblem(t *testing.T, w *httptest.ResponseRecorder, status int, what string) problem {
	t.Helper()
	var p problem
	if w.Code != status {
		t.Errorf("%s: status %d (%q), want %d", what, w.Code, w.Body.String(), status)
	}
	if strings.Contains(w.Body.String(), "fake-gzip") {
		t.Errorf("%s: the blob leaked into a refusal: %q", what, w.Body.String())
	}
	if ct := w.Header().Get("Content-Type"); ct != "application/problem+json" {
		t.Errorf("%s: Content-Type %q, want application/problem+json", what, ct)
	}
	if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil {
		t.Errorf("%s: body %q is not JSON: %v", what, w.Body.String(), err)
	}
	if p.Status != status || p.Detail == "" || p.Code == "" {
		t.Errorf("%s: problem %+v, want status %d with a detail and code", what, p, status)
	}
	if cc := w.Header().Get("Cache-Control"); cc != "no-store" {
		t.Errorf("%s: Cache-Control %q, want no-store", what, cc)
	}
	return p
}

func TestSignedURLShape(t *testing.T) {
	t.Parallel()
	l, _ := newLinks(t)
	u, exp := sign(t, l, bundleKey, 10*time.Minute)
	if u.Scheme != "https" || u.Host != "docs.example.com:8443" || u.Path != LinkPath+bundleKey {
		t.Errorf("URL = %s, want https://docs.example.com:8443%s%s", u, LinkPath, bundleKey)
	}
	if strings.Contains(u.String(), "8443//") {
		t.Errorf("URL %s keeps the PublicURL's trailing slash", u)
	}
	// The expiry is ttl rounded up to a whole second, and is what the URL says.
	if want := time.Date(2026, 3, 4, 5, 16, 8, 0, time.UTC); !exp.Equal(want) {
		t.Errorf("expiry = %v, want %v", exp, want)
	}
	if got := u.Query().Get("expires"); got != strconv.FormatInt(exp.Unix(), 10) {
		t.Errorf("expires = %q, want %d", got, exp.Unix())
	}
	if u.Query().Get("nonce") == "" || u.Query().Get("signature") == "" {
		t.Errorf("URL %s lacks a nonce or signature", u)
	}
	// Signed twice in the same instant, two links differ.
	u2, exp2 := sign(t, l, bundleKey, 10*time.Minute)
	if u2.String() == u.String() || u2.Query().Get("nonce") == u.Query().Get("nonce") || u2.Query().Get("signature") == u.Query().Get("signature") {
		t.Errorf("two links are the same: %s", u)
	}
	if !exp2.Equal(exp) {
		t.Errorf("same-instant expiries differ: %v %v", exp, exp2)
	}
	// Both work.
	for _, x := range []*url.URL{u, u2} {
		if w := get(l, "GET", x.RequestURI()); w.Code != 200 {
			t.Errorf("GET %s = %d", x, w.Code)
		}
	}
}

func TestShortSigningKey(t *testing.T) {
	t.Parallel()
	l, _ := newLinks(t)
	for _, k := range [][]byte{nil, {}, linkKey[:31]} {
		short := &LocalLinks{Bucket: l.Bucket, PublicURL: l.PublicURL, Key: k}
		if s, _, err := short.SignedURL(t.Context(), bundleKey, time.Minute); err == nil || s != "" {
			t.Errorf("SignedURL with a %d-byte key = %q, %v; want an error", len(k), s, err)
		}
	}
	ok := &LocalLinks{Bucket: l.Bucket, PublicURL: l.PublicURL, Key: linkKey[:32]}
	if _, _, err := ok.SignedURL(t.Context(), bundleKey, time.Minute); err != nil {
		t.Errorf("SignedURL with a 32-byte key: %v", err)
	}
	// A server with a short key refuses even links "signed" with that key.
	short := &LocalLinks{Bucket: l.Bucket, Key: []byte("k")}
	exp := time.Now().Add(time.Hour).Unix()
	q := url.Values{"expires": {strconv.FormatInt(exp, 10)}, "nonce": {"n"}, "signature": {hmacSign([]byte("k"), bundleKey, exp, "n")}}
	wantProblem(t, get(short, "GET", LinkPath+bundleKey+"?"+q.Encode()), 403, "short server key")
}

func TestDownloadRoundTrip(t *testing.T) {
	t.Parallel()
	l, _ := newLinks(t)
	u, _ := sign(t, l, bundleKey, time.Hour)
	w := get(l, "GET", u.RequestURI())
	if w.Code != 200 || w.Body.String() != bundleBody {
		t.Fatalf("GET = %d %q, want 200 and the blob", w.Code, w.Body.String())
	}
	h := w.Header()
	for k, want := range map[string]string{
		"Content-Type":        "application/gzip",
		"Content-Disposition": `attachment; filename="docs.example.com-2026-01-02.tar.gz"`,
		"Content-Length":      strconv.Itoa(len(bundleBody)),
		"Accept-Ranges":       "bytes",
		"Cache-Control":       "private, no-transform",
	} {
		if got := h.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	// Range.
	w = get(l, "GET", u.RequestURI(), "Range", "bytes=4-9")
	if w.Code != http.StatusPartialContent || w.Body.String() != bundleBody[4:10] {
		t.Errorf("Range 4-9 = %d %q, want 206 %q", w.Code, w.Body.String(), bundleBody[4:10])
	}
	if got, want := w.Header().Get("Content-Range"), fmt.Sprintf("bytes 4-9/%d", len(bundleBody)); got != want {
		t.Errorf("Content-Range = %q, want %q", got, want)
	}
	w = get(l, "GET", u.RequestURI(), "Range", "bytes=-5")
	if w.Code != http.StatusPartialContent || w.Body.String() != bundleBody[len(bundleBody)-5:] {
		t.Errorf("suffix Range = %d %q", w.Code, w.Body.String())
	}
	w = get(l, "GET", u.RequestURI(), "Range", fmt.Sprintf("bytes=%d-", len(bundleBody)+10))
	if w.Code != http.StatusRequestedRangeNotSatisfiable {
		t.Errorf("Range past the end = %d, want 416", w.Code)
	}
	// HEAD: headers, no body.
	w = get(l, "HEAD", u.RequestURI())
	if w.Code != 200 || w.Body.Len() != 0 || w.Header().Get("Content-Length") != strconv.Itoa(len(bundleBody)) {
		t.Errorf("HEAD = %d, %d body bytes, Content-Length %q", w.Code, w.Body.Len(), w.Header().Get("Content-Length"))
	}
	// A link keeps working until it expires: several downloads.
	if w := get(l, "GET", u.RequestURI()); w.Code != 200 {
		t.Errorf("second GET = %d", w.Code)
	}
}

// The link, as handed to a client, works over HTTP at the PublicURL.
func TestDownloadOverHTTP(t *testing.T) {
	t.Parallel()
	l, _ := newLinks(t)
	l.Now = nil // real time: the link must be valid now
	mux := http.NewServeMux()
	mux.Handle(LinkPath, l)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	l.PublicURL = srv.URL
	key := "exports/exp_2/My Docs (v1) #1?.tar.gz"
	if err := l.Bucket.WriteAll(t.Context(), key, []byte(bundleBody), nil); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{bundleKey, key} {
		s, _, err := l.SignedURL(t.Context(), k, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		res, err := srv.Client().Get(s)
		if err != nil {
			t.Fatalf("GET %s: %v", s, err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || string(body) != bundleBody {
			t.Errorf("GET %s = %d %q", s, res.StatusCode, body)
		}
	}
}

func TestEscapedKeyRoundTrip(t *testing.T) {
	t.Parallel()
	l, _ := newLinks(t)
	for _, key := range []string{
		"exports/exp_2/My Docs (v1) #1?.tar.gz",
		"exports/exp 3/100% done;v=2,x&y=z+w.zip",
		"exports/exp_4/résumé – ünïcode.json",
	} {
		if err := l.Bucket.WriteAll(t.Context(), key, []byte("body of "+key), nil); err != nil {
			t.Fatal(err)
		}
		u, _ := sign(t, l, key, time.Hour)
		if u.Fragment != "" || strings.ContainsAny(u.EscapedPath(), " #?") || u.Path != LinkPath+key {
			t.Errorf("URL path decodes to %q, want %q", u.Path, LinkPath+key)
		}
		w := get(l, "GET", u.RequestURI())
		if w.Code != 200 || w.Body.String() != "body of "+key {
			t.Errorf("GET %s = %d %q", u.RequestURI(), w.Code, w.Body.String())
			continue
		}
		name := key[strings.LastIndex(key, "/")+1:]
		if got := w.Header().Get("Content-Disposition"); got != `attachment; filename="`+name+`"` {
			t.Errorf("Content-Disposition = %q, want file name %q", got, name)
		}
		if got, want := w.Header().Get("Content-Type"), ContentType(name); got != want {
			t.Errorf("Content-Type = %q, want %q", got, want)
		}
	}
}

// tamper returns u with query parameter k set to v ("" deletes it).
func tamper(u *url.URL, k, v string) string {
	q := u.Query()
	if v == "" {
		q.Del(k)
	} else {
		q.Set(k, v)
	}
	return u.EscapedPath() + "?" + q.Encode()
}

func flip(s string) string {
	b := []byte(s)
	if b[len(b)-1] == 'A' {
		b[len(b)-1] = 'B'
	} else {
		b[len(b)-1] = 'A'
	}
	return string(b)
}

func TestTamperedLinks(t *testing.T) {
	t.Parallel()
	l, _ := newLinks(t)
	other := "exports/exp_9/other.tar.gz"
	if err := l.Bucket.WriteAll(t.Context(), other, []byte("fake-gzip other"), nil); err != nil {
		t.Fatal(err)
	}
	u, exp := sign(t, l, bundleKey, time.Hour)
	q := u.Query()
	sig, nonce := q.Get("signature"), q.Get("nonce")
	for what, target := range map[string]string{
		"signature flipped":        tamper(u, "signature", flip(sig)),
		"signature truncated":      tamper(u, "signature", sig[:len(sig)-1]),
		"signature extended":       tamper(u, "signature", sig+"A"),
		"signature std base64":     tamper(u, "signature", strings.NewReplacer("-", "+", "_", "/").Replace(sig)+"="),
		"signature missing":        tamper(u, "signature", ""),
		"signature empty":          u.EscapedPath() + "?expires=" + q.Get("expires") + "&nonce=" + nonce + "&signature=",
		"expires later":            tamper(u, "expires", strconv.FormatInt(exp.Unix()+3600, 10)),
		"expires earlier":          tamper(u, "expires", strconv.FormatInt(exp.Unix()-1, 10)),
		"expires not a number":     tamper(u, "expires", "soon"),
		"expires missing":          tamper(u, "expires", ""),
		"nonce changed":            tamper(u, "nonce", flip(nonce)),
		"nonce missing":            tamper(u, "nonce", ""),
		"key of another blob":      LinkPath + other + "?" + u.RawQuery,
		"key shortened":            LinkPath + "exports/exp_1?" + u.RawQuery,
		"key upper case":           LinkPath + strings.ToUpper(bundleKey) + "?" + u.RawQuery,
		"no query":                 u.EscapedPath(),
		"signature from other key": tamper(u, "signature", hmacSign([]byte("another-key-another-key-another-key!"), bundleKey, exp.Unix(), nonce)),
	} {
		w := get(l, "GET", target)
		p := wantProblem(t, w, 403, what)
		if !strings.Contains(p.Detail, "signature") {
			t.Errorf("%s: detail %q does not name the signature", what, p.Detail)
		}
	}
	// The untouched link still works (the tampering was the only cause).
	if w := get(l, "GET", u.RequestURI()); w.Code != 200 {
		t.Errorf("untampered GET = %d", w.Code)
	}
	// Extra query parameters do not matter.
	if w := get(l, "GET", u.RequestURI()+"&utm_source=mail"); w.Code != 200 {
		t.Errorf("GET with an extra parameter = %d", w.Code)
	}
}

func TestExpiredLink(t *testing.T) {
	t.Parallel()
	l, c := newLinks(t)
	u, exp := sign(t, l, bundleKey, time.Minute)
	c.Set(exp.Add(-time.Nanosecond))
	if w := get(l, "GET", u.RequestURI()); w.Code != 200 {
		t.Errorf("just before expiry = %d, want 200", w.Code)
	}
	for _, at := range []time.Time{exp, exp.Add(time.Second), exp.Add(48 * time.Hour)} {
		c.Set(at)
		w := get(l, "GET", u.RequestURI())
		p := wantProblem(t, w, 403, "expired at "+at.String())
		if !strings.Contains(p.Detail, "expired") || !strings.Contains(p.Detail, exp.Format(time.RFC3339)) {
			t.Errorf("expired detail %q does not name the expiry %s", p.Detail, exp.Format(time.RFC3339))
		}
	}
	// A HEAD of an expired link is refused too.
	if w := get(l, "HEAD", u.RequestURI()); w.Code != 403 {
		t.Errorf("HEAD expired = %d, want 403", w.Code)
	}
	// A negative lifetime gives a link that is already expired.
	c.Set(t0)
	u, _ = sign(t, l, bundleKey, -time.Hour)
	wantProblem(t, get(l, "GET", u.RequestURI()), 403, "negative ttl")
}

func TestDeletedBlob(t *testing.T) {
	t.Parallel()
	l, _ := newLinks(t)
	u, _ := sign(t, l, bundleKey, time.Hour)
	if err := DeletePrefix(t.Context(), l.Bucket, ExportPrefix("exp_1")); err != nil {
		t.Fatal(err)
	}
	p := wantProblem(t, get(l, "GET", u.RequestURI()), 404, "deleted blob")
	if !strings.Contains(p.Detail, "no longer exists") {
		t.Errorf("detail %q", p.Detail)
	}
	// A signed link to a key that never existed is 404 too.
	u, _ = sign(t, l, "exports/exp_404/none.tar.gz", time.Hour)
	wantProblem(t, get(l, "GET", u.RequestURI()), 404, "never existed")
}

func TestMethods(t *testing.T) {
	t.Parallel()
	l, _ := newLinks(t)
	u, _ := sign(t, l, bundleKey, time.Hour)
	for _, m := range []string{"POST", "PUT", "DELETE", "PATCH", "OPTIONS"} {
		w := get(l, m, u.RequestURI())
		wantProblem(t, w, 405, m)
		if got := w.Header().Get("Allow"); got != "GET, HEAD" {
			t.Errorf("%s Allow = %q", m, got)
		}
	}
	// DELETE through a link must not delete.
	if ok, err := l.Bucket.Exists(t.Context(), bundleKey); !ok || err != nil {
		t.Errorf("blob gone after refused methods: %v %v", ok, err)
	}
}

// Keys that are not clean paths are refused before the signature is checked
// and before anything is read: with a closed bucket (where any read would
// be a 500) they still answer 404.
func TestUncleanKeysNotRead(t *testing.T) {
	t.Parallel()
	l, _ := newLinks(t)
	ctx := t.Context()
	if err := l.Bucket.WriteAll(ctx, "secret.txt", []byte("fake-gzip TOP SECRET"), nil); err != nil {
		t.Fatal(err)
	}
	closed := openTemp(t)
	closed.Close()
	cl := &LocalLinks{Bucket: closed, PublicURL: l.PublicURL, Key: l.Key, Now: l.Now}
	// Control: a well-formed signed link on the closed bucket does read (500).
	u, _ := sign(t, l, bundleKey, time.Hour)
	if w := get(cl, "GET", u.RequestURI()); w.Code != 500 {
		t.Fatalf("control: closed bucket GET = %d, want 500", w.Code)
	}
	for _, key := range []string{"exports/../secret.txt", "exports/exp_1/../../secret.txt", "../secret.txt", "..", "exports/..",
		"exports/a..b/x", "exports//exp_1/x", "exports/./x", "exports/exp_1/", "/secret.txt", "exports/exp_1/x/.."} {
		// Properly signed (by hand: SignedURL signs bundle keys only) and
		// correctly escaped.
		u := handSigned(l, key, t0.Add(time.Hour))
		for _, target := range []string{u.RequestURI(), strings.ReplaceAll(u.RequestURI(), "..", "%2e%2e"), strings.ReplaceAll(u.RequestURI(), "..", "%2E%2E")} {
			for _, h := range []*LocalLinks{l, cl} {
				w := get(h, "GET", target)
				wantProblem(t, w, 404, "key "+key+" via "+target)
				if strings.Contains(w.Body.String(), "SECRET") {
					t.Errorf("GET %s served the traversal target", target)
				}
			}
		}
	}
	// Paths outside LinkPath.
	for _, target := range []string{"/other/" + bundleKey + "?" + u.RawQuery, LinkPath + "?" + u.RawQuery, strings.TrimSuffix(LinkPath, "/") + "?" + u.RawQuery} {
		wantProblem(t, get(cl, "GET", target), 404, target)
	}
}

// hmacSign is an independent implementation of the link signature.
func hmacSign(secret []byte, key string, exp int64, nonce string) string {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(key + "\n" + strconv.FormatInt(exp, 10) + "\n" + nonce))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// The signature in a link is the documented HMAC over key, expiry and nonce.
func TestSignatureIsHMAC(t *testing.T) {
	t.Parallel()
	l, _ := newLinks(t)
	u, exp := sign(t, l, bundleKey, time.Hour)
	q := u.Query()
	if got, want := q.Get("signature"), hmacSign(linkKey, bundleKey, exp.Unix(), q.Get("nonce")); got != want {
		t.Errorf("signature = %q, want %q", got, want)
	}
	// A link minted by hand with the same key works; so the server and
	// SignedURL agree on the message.
	nq := url.Values{"expires": {q.Get("expires")}, "nonce": {"hand-made"}, "signature": {hmacSign(linkKey, bundleKey, exp.Unix(), "hand-made")}}
	if w := get(l, "GET", LinkPath+bundleKey+"?"+nq.Encode()); w.Code != 200 || !bytes.Equal(w.Body.Bytes(), []byte(bundleBody)) {
		t.Errorf("hand-made link = %d", w.Code)
	}
}

// ---- fuzzing ----

var fuzzKeys = []string{bundleKey, "exports/exp_2/a b#?.zip", "sites/prj_1/dep_1/site/index.html"}

func newFuzzLinks(f *testing.F) *LocalLinks {
	l, _ := newLinks(f)
	for _, k := range fuzzKeys[1:] {
		if err := l.Bucket.WriteAll(f.Context(), k, []byte(bundleBody), nil); err != nil {
			f.Fatal(err)
		}
	}
	l.Now = func() time.Time { return t0 }
	return l
}

func FuzzLinkQuery(f *testing.F) {
	l := newFuzzLinks(f)
	for _, k := range fuzzKeys {
		exp := t0.Add(time.Hour).Truncate(time.Second)
		u := handSigned(l, k, exp)
		f.Add(u.Path, u.RawQuery)
		f.Add(u.EscapedPath(), u.RawQuery)
		f.Add(u.Path, u.RawQuery+"&signature=x")
		f.Add(u.Path, "signature=x&"+u.RawQuery)
		f.Add(u.Path+"/", u.RawQuery)
		f.Add(LinkPath+"exports/../"+k, u.RawQuery)
		f.Add(u.Path, strings.Replace(u.RawQuery, strconv.FormatInt(exp.Unix(), 10), strconv.FormatInt(exp.Unix()+1, 10), 1))
		f.Add(u.Path, strings.Replace(u.RawQuery, "expires=", "expires=+", 1))
		f.Add(u.Path, strings.Replace(u.RawQuery, "expires=", "expires=%20", 1))
	}
	// An expired but otherwise valid link.
	if s, _, err := l.SignedURL(f.Context(), bundleKey, -time.Minute); err == nil {
		u, _ := url.Parse(s)
		f.Add(u.Path, u.RawQuery)
	}
	f.Add("", "")
	f.Add(LinkPath, "expires=1&nonce=&signature=")
	f.Add(LinkPath+"a\nb", "expires=9999999999999999999999&nonce=%00&signature=%zz")
	f.Add("/x", ";;;&&==%")
	// Validly signed links to a site file and with a far expiry.
	for _, u := range []*url.URL{handSigned(l, fuzzKeys[2], t0.Add(time.Hour)), handSigned(l, bundleKey, t0.AddDate(10, 0, 0))} {
		f.Add(u.Path, u.RawQuery)
	}

	f.Fuzz(func(t *testing.T, p, rawQuery string) {
		r := httptest.NewRequest("GET", "/", nil)
		r.URL.Path = p
		r.URL.RawPath = ""
		r.URL.RawQuery = rawQuery
		w := httptest.NewRecorder()
		l.ServeHTTP(w, r)

		// Independent oracle: is the link valid?
		key, isLink := strings.CutPrefix(p, LinkPath)
		q, _ := url.ParseQuery(rawQuery) // what Request.URL.Query() sees
		if rq := r.URL.Query(); len(rq) != len(q) {
			t.Fatalf("query parsing disagrees: %v vs %v", rq, q)
		}
		exp, expErr := strconv.ParseInt(q.Get("expires"), 10, 64)
		sig := q.Get("signature")
		validSig := isLink && expErr == nil && sig != "" &&
			hmac.Equal([]byte(sig), []byte(hmacSign(linkKey, key, exp, q.Get("nonce"))))
		cleanKey := key != "" && !strings.Contains(key, "..") && "/"+key == path.Clean("/"+key)
		fresh := t0.Before(time.Unix(exp, 0)) && exp <= t0.Add(DefaultMaxLinkTTL+LinkClockSkew).Unix()
		bundle := strings.HasPrefix(key, "exports/")

		switch w.Code {
		case 200, 206:
			if !validSig || !cleanKey || !fresh || !bundle {
				t.Fatalf("served %d for %q ? %q without a valid, fresh signature (valid %v clean %v fresh %v)", w.Code, p, rawQuery, validSig, cleanKey, fresh)
			}
			if w.Body.String() != bundleBody {
				t.Fatalf("served body %q", w.Body.String())
			}
		case 403, 404:
			if strings.Contains(w.Body.String(), "fake-gzip") {
				t.Fatalf("refusal %d leaks the blob", w.Code)
			}
		case 500:
			// Only a read of a validly signed key may fail.
			if !validSig || !cleanKey || !bundle {
				t.Fatalf("500 for an unsigned request %q ? %q", p, rawQuery)
			}
		default:
			t.Fatalf("unexpected status %d for %q ? %q: %s", w.Code, p, rawQuery, w.Body.String())
		}
		// Two-sided: a valid, fresh link to an existing blob is served.
		if validSig && cleanKey && fresh && bundle && isExisting(key) && w.Code != 200 {
			t.Fatalf("valid link %q ? %q refused: %d %s", p, rawQuery, w.Code, w.Body.String())
		}
	})
}

func isExisting(key string) bool {
	for _, k := range fuzzKeys {
		if k == key {
			return true
		}
	}
	return false
}

// handSigned returns a link to key expiring at exp, signed with l's key
// without SignedURL's checks (as someone holding the key could).
func handSigned(l *LocalLinks, key string, exp time.Time) *url.URL {
	q := url.Values{"expires": {strconv.FormatInt(exp.Unix(), 10)}, "nonce": {"n"}, "signature": {hmacSign(l.Key, key, exp.Unix(), "n")}}
	return &url.URL{Path: LinkPath + key, RawPath: LinkPath + escapeKey(key), RawQuery: q.Encode()}
}

// A link validly signed for any blob but an export bundle is refused, and
// SignedURL does not sign one.
func TestLinksReachBundlesOnly(t *testing.T) {
	t.Parallel()
	l, _ := newLinks(t)
	for _, key := range []string{"sites/prj_1/dep_1/source.tar.gz", "sites/prj_1/dep_1/site/index.html", "source.tar.gz", "exports", "exports/exp_1", "exportsx/exp_1/a.tar.gz"} {
		if key != "exports" && key != "exports/exp_1" {
			if err := l.Bucket.WriteAll(t.Context(), key, []byte("fake-gzip private "+key), nil); err != nil {
				t.Fatal(err)
			}
		}
		if s, _, err := l.SignedURL(t.Context(), key, time.Minute); err == nil || s != "" {
			t.Errorf("SignedURL(%q) = %q, %v; want an error", key, s, err)
		}
		u := handSigned(l, key, t0.Add(time.Minute))
		p := wantProblem(t, get(l, "GET", u.RequestURI()), 403, "link to "+key)
		if !strings.Contains(p.Detail, "export bundles only") {
			t.Errorf("link to %s: detail %q does not say links reach bundles only", key, p.Detail)
		}
	}
	// The object store's presigned links are for bundles only too.
	bl := &BucketLinks{Bucket: l.Bucket}
	if s, _, err := bl.SignedURL(t.Context(), "sites/prj_1/dep_1/source.tar.gz", time.Minute); err == nil || s != "" || !strings.Contains(err.Error(), "export bundles only") {
		t.Errorf("BucketLinks.SignedURL(source snapshot) = %q, %v; want a refusal", s, err)
	}
	// Control: the same hand-made link to the bundle is served.
	if w := get(l, "GET", handSigned(l, bundleKey, t0.Add(time.Minute)).RequestURI()); w.Code != 200 {
		t.Errorf("hand-signed bundle link = %d, want 200", w.Code)
	}
}

// A link whose expiry lies beyond the server's link lifetime is refused,
// even with a valid signature; SignedURL does not sign one.
func TestLinkExpiryCapped(t *testing.T) {
	t.Parallel()
	l, _ := newLinks(t)
	l.MaxTTL = 10 * time.Minute
	for what, exp := range map[string]time.Time{
		"ten years ahead":    t0.AddDate(10, 0, 0),
		"a day ahead":        t0.Add(24 * time.Hour),
		"just past the skew": t0.Add(10*time.Minute + LinkClockSkew + 2*time.Second),
	} {
		p := wantProblem(t, get(l, "GET", handSigned(l, bundleKey, exp).RequestURI()), 403, what)
		if !strings.Contains(p.Detail, "further ahead") || !strings.Contains(p.Detail, "10m0s") {
			t.Errorf("%s: detail %q does not name the lifetime", what, p.Detail)
		}
	}
	if w := get(l, "GET", handSigned(l, bundleKey, t0.Add(10*time.Minute+LinkClockSkew/2)).RequestURI()); w.Code != 200 {
		t.Errorf("link within the lifetime and skew = %d, want 200", w.Code)
	}
	if u, _ := sign(t, l, bundleKey, 10*time.Minute); get(l, "GET", u.RequestURI()).Code != 200 {
		t.Errorf("a link signed for the whole lifetime is refused")
	}
	if s, _, err := l.SignedURL(t.Context(), bundleKey, 11*time.Minute); err == nil || s != "" {
		t.Errorf("SignedURL beyond MaxTTL = %q, %v; want an error", s, err)
	}
	// The default cap is an hour.
	l.MaxTTL = 0
	wantProblem(t, get(l, "GET", handSigned(l, bundleKey, t0.Add(2*time.Hour)).RequestURI()), 403, "two hours with the default cap")
}
