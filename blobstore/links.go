package blobstore

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"

	"lectern.dev/lectern"
)

// Linker signs time-limited download links to blobs.
type Linker interface {
	// SignedURL returns a URL that downloads key without credentials until
	// the returned expiry. Errors are internal.
	SignedURL(ctx context.Context, key string, ttl time.Duration) (string, time.Time, error)
}

// LinkPath is the URL path under which LocalLinks serves signed downloads.
const LinkPath = "/_lectern/download/"

// LocalLinks signs links that Lectern serves itself: PublicURL + LinkPath +
// key, with an expiry and an HMAC-SHA256 signature over both. It is the
// Linker of file:// buckets and the http.Handler that serves them.
//
// Links reach export bundles only (keys under "exports/", see IsBundleKey):
// SignedURL refuses other keys and ServeHTTP refuses a link to one even
// when its signature is valid, so a leaked signing key cannot open a site
// or a source snapshot. An expiry further ahead than MaxTTL (plus
// LinkClockSkew) is refused too, so no link outlives the server's setting.
type LocalLinks struct {
	Bucket    *blob.Bucket
	PublicURL string // scheme://host[:port] clients use to reach this server
	Key       []byte // HMAC key, at least 32 bytes
	// MaxTTL is the longest lifetime of a link (the server's
	// --bundle-url-ttl); zero means DefaultMaxLinkTTL.
	MaxTTL time.Duration
	Now    func() time.Time
}

// DefaultMaxLinkTTL is LocalLinks.MaxTTL when it is zero.
const DefaultMaxLinkTTL = time.Hour

// LinkClockSkew is how far an expiry may lie beyond MaxTTL from now: the
// server that signed a link may run a little ahead of the one serving it,
// and expiries are rounded up to the second.
const LinkClockSkew = time.Minute

// IsBundleKey reports whether key is an export job's blob ("exports/JOB/..."),
// the only blobs download links reach.
func IsBundleKey(key string) bool {
	rest, ok := strings.CutPrefix(key, "exports/")
	job, file, ok2 := strings.Cut(rest, "/")
	return ok && ok2 && job != "" && file != ""
}

func (l *LocalLinks) maxTTL() time.Duration {
	if l.MaxTTL > 0 {
		return l.MaxTTL
	}
	return DefaultMaxLinkTTL
}

var _ Linker = (*LocalLinks)(nil)

func (l *LocalLinks) now() time.Time {
	if l.Now != nil {
		return l.Now()
	}
	return time.Now()
}

func (l *LocalLinks) sign(key string, exp int64, nonce string) string {
	m := hmac.New(sha256.New, l.Key)
	fmt.Fprintf(m, "%s\n%d\n%s", key, exp, nonce)
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// SignedURL returns a link to key valid for ttl (rounded up to a second).
func (l *LocalLinks) SignedURL(_ context.Context, key string, ttl time.Duration) (string, time.Time, error) {
	if len(l.Key) < 32 {
		return "", time.Time{}, errors.New("link signing key too short")
	}
	if !IsBundleKey(key) {
		return "", time.Time{}, fmt.Errorf("download links reach export bundles only, not %q", key)
	}
	if ttl > l.maxTTL() {
		return "", time.Time{}, fmt.Errorf("link lifetime %s is longer than the longest allowed, %s", ttl, l.maxTTL())
	}
	exp := l.now().Add(ttl).Truncate(time.Second).Add(time.Second).UTC()
	// A random nonce makes every link fresh, even two signed in one second.
	var n [9]byte
	if _, err := rand.Read(n[:]); err != nil {
		return "", time.Time{}, err
	}
	nonce := base64.RawURLEncoding.EncodeToString(n[:])
	u := strings.TrimRight(l.PublicURL, "/") + LinkPath + escapeKey(key) +
		"?expires=" + strconv.FormatInt(exp.Unix(), 10) + "&nonce=" + nonce + "&signature=" + l.sign(key, exp.Unix(), nonce)
	return u, exp, nil
}

func escapeKey(key string) string {
	parts := strings.Split(key, "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	return strings.Join(parts, "/")
}

// linkError is the problem body of a refused download.
func linkError(w http.ResponseWriter, status int, code, detail string) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"type":"urn:lectern:problem:%s","title":%q,"status":%d,"detail":%q,"code":%q}`,
		code, http.StatusText(status), status, detail, code)
}

// ServeHTTP serves a signed download: 403 for a missing, tampered or
// expired signature, for a key that is not an export bundle's, and for an
// expiry further ahead than MaxTTL allows; 404 when the blob is gone, else the blob with its
// length, type and a download file name (Range and HEAD supported).
func (l *LocalLinks) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		linkError(w, http.StatusMethodNotAllowed, lectern.EMETHOD, "Download links accept GET and HEAD.")
		return
	}
	key := strings.TrimPrefix(r.URL.Path, LinkPath)
	if key == r.URL.Path || key == "" || strings.Contains(key, "..") || path.Clean("/"+key) != "/"+key {
		linkError(w, http.StatusNotFound, lectern.ENOTFOUND, "No such download.")
		return
	}
	q := r.URL.Query()
	exp, err := strconv.ParseInt(q.Get("expires"), 10, 64)
	sig := q.Get("signature")
	if err != nil || sig == "" || len(l.Key) < 32 || !hmac.Equal([]byte(sig), []byte(l.sign(key, exp, q.Get("nonce")))) {
		linkError(w, http.StatusForbidden, lectern.EFORBIDDEN, "The download link's signature is invalid; request a new link from the bundle endpoint.")
		return
	}
	if !IsBundleKey(key) {
		linkError(w, http.StatusForbidden, lectern.EFORBIDDEN, "Download links reach export bundles only.")
		return
	}
	now := l.now()
	if expAt := time.Unix(exp, 0).UTC(); !now.Before(expAt) {
		linkError(w, http.StatusForbidden, lectern.EFORBIDDEN,
			"The download link expired at "+expAt.Format(time.RFC3339)+"; call the bundle endpoint again for a fresh link.")
		return
	}
	if limit := now.Add(l.maxTTL() + LinkClockSkew); exp > limit.Unix() {
		linkError(w, http.StatusForbidden, lectern.EFORBIDDEN,
			"The download link's expiry lies further ahead than this server's link lifetime ("+l.maxTTL().String()+") allows; call the bundle endpoint again for a fresh link.")
		return
	}
	rd, err := l.Bucket.NewReader(r.Context(), key, nil)
	if err != nil {
		if gcerrors.Code(err) == gcerrors.NotFound {
			linkError(w, http.StatusNotFound, lectern.ENOTFOUND, "The file behind this link no longer exists.")
			return
		}
		linkError(w, http.StatusInternalServerError, lectern.EINTERNAL, "The download could not be read.")
		return
	}
	defer rd.Close()
	h := w.Header()
	h.Set("Content-Type", ContentType(key))
	h.Set("Content-Disposition", `attachment; filename="`+path.Base(key)+`"`)
	h.Set("Cache-Control", "private, no-transform")
	http.ServeContent(w, r, "", rd.ModTime(), rd)
}
