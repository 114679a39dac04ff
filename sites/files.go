package sites

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"

	"lectern.dev/lectern/blobstore"
	"lectern.dev/lectern/internal/precompress"
	"lectern.dev/lectern/render/features"
)

// Cache-Control values of a deployment's files (cacheControl).
const (
	cacheRevalidate = "no-cache" // kept, but revalidated with the ETag: a switch shows at once
	cacheShort      = "public, max-age=300"
	cacheImmutable  = "public, max-age=31536000, immutable"
)

// cacheControl returns the Cache-Control of site file name. Pages, their
// Markdown, the navigation and the search index's meta files keep their
// names while their content changes (features.Revalidated): they are
// revalidated on every use, which the content-hash ETag answers with a
// 304 when they did not change. Lectern's own assets
// (_lectern/style.0123456789.css, features.HashedAsset) and the search
// index's chunks are named by their content and never change: kept for a
// year. Other files under _lectern/ (the own assets of deployments built
// before their names had a hash) are revalidated too; other files of the
// repository (images) are kept for five minutes.
func cacheControl(name string) string {
	switch {
	case strings.HasPrefix(name, features.SearchChunkDir), features.HashedAsset(name):
		return cacheImmutable
	case features.Revalidated(name), strings.HasPrefix(name, features.ScriptDir):
		return cacheRevalidate
	}
	return cacheShort
}

// serveFile serves one file of the deployment; false when it does not
// exist. A deployment with a manifest (published by this version of
// Lectern) says which files exist without a read, and has compressed
// copies and content-hash ETags; one without is served as it is, with an
// ETag of the deployment and the name. A Range request gets the file as
// it is, so that its ranges are of the file, whatever the encoding.
func (s *Server) serveFile(w http.ResponseWriter, r *http.Request, e hostEntry, name string, status int) bool {
	ctx := r.Context()
	m, err := s.manifests.get(ctx, s.bucket, e)
	if err != nil {
		if ctx.Err() == nil {
			s.log.Error("site manifest read failed", "deployment", e.deploymentID, "err", err)
		}
		unavailable(w)
		return true
	}
	var f precompress.File
	if m != nil {
		var ok bool
		if f, ok = m.Files[name]; !ok {
			return false
		}
	}
	key := keyOf(e, m, name)
	var rd fileReader // the file as it is, once open
	defer func() {
		if rd != nil {
			rd.Close()
		}
	}()
	var content io.ReadSeeker // what is sent, once known
	openFile := func() bool {
		if rd == nil {
			if rd, err = s.read(ctx, m, e.projectID, key, f.Size); rd == nil {
				return false
			}
		}
		if content == nil {
			content = rd
		}
		return true
	}
	if m == nil && !openFile() {
		// Without a manifest, reading the file tells whether it exists.
		return s.failed(w, err)
	}
	pageCSP, known := "", false
	if features.IsPage(name) {
		pageCSP, known = s.policies.get(key)
	}
	if features.IsPage(name) && !known {
		var page io.ReadSeeker
		pageCSP, page, err = s.pagePolicy(ctx, e, m, key, func() (io.ReadSeeker, error) {
			if !openFile() {
				return nil, err
			}
			return rd, nil
		})
		switch {
		case err != nil:
			if ctx.Err() == nil {
				s.log.Error("site file read failed", "key", key, "err", err)
			}
			unavailable(w)
			return true
		case pageCSP == "":
			return false // listed but missing: as missing as any other
		case page != nil:
			content = page
		}
	}
	ctype, csp := features.ServeHeaders(name, blobstore.ContentType(name), pageCSP)
	h := w.Header()
	h.Set("Content-Type", ctype)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", csp)
	compressible := precompress.Compressible(ctype)
	if compressible && status == http.StatusOK {
		// Even a deployment without copies: the next one has them.
		h.Set("Vary", "Accept-Encoding")
	}
	enc := -1
	if m != nil && compressible && status == http.StatusOK && r.Header.Get("Range") == "" {
		enc = precompress.Negotiate(r.Header.Get("Accept-Encoding"), f.Offered())
	}
	var length int64
	if enc >= 0 {
		vr, err := s.read(ctx, m, e.projectID, variantKeyOf(e, m, name, enc), f.Variant(enc))
		switch {
		case err != nil:
			s.failed(w, err)
			return true
		case vr == nil:
			enc = -1 // listed but missing: the file as it is will do
		default:
			defer vr.Close()
			content, length = vr, vr.Size()
		}
	}
	if enc < 0 && content == nil && !openFile() {
		return s.failed(w, err)
	}
	if status != http.StatusOK {
		h.Set("Cache-Control", "no-store")
		w.WriteHeader(status)
		if r.Method != http.MethodHead {
			if _, err := io.Copy(w, content); err != nil {
				s.log.Debug("site write failed", "err", err)
			}
		}
		return true
	}
	var etag string
	var modTime time.Time
	if m != nil {
		etag, modTime = f.ETag(), m.CreatedAt
	} else {
		sum := sha256.Sum256([]byte(e.deploymentID + "/" + name))
		etag, modTime = `"`+hex.EncodeToString(sum[:12])+`"`, rd.ModTime()
	}
	if enc >= 0 {
		etag = precompress.ETag(etag, enc)
		h.Set("Content-Encoding", precompress.Names[enc])
		// http.ServeContent leaves out Content-Length when there is a
		// Content-Encoding; the copy's is known.
		w = lengthWriter{w, strconv.FormatInt(length, 10)}
	}
	h.Set("ETag", etag)
	h.Set("Cache-Control", cacheControl(name))
	if _, ok := content.(*hotFile); ok {
		w = hotWriter{w}
	}
	http.ServeContent(w, r, "", modTime, content)
	return true
}

// open opens blob key: nil and no error when it does not exist (a path
// below a file, "/index.html/x", is as missing as any other).
func (s *Server) open(ctx context.Context, key string) (*blob.Reader, error) {
	rd, err := s.bucket.NewReader(ctx, key, nil)
	if err != nil {
		if gcerrors.Code(err) == gcerrors.NotFound || errors.Is(err, syscall.ENOTDIR) {
			return nil, nil
		}
		return nil, err
	}
	return rd, nil
}

// failed answers a read that failed with err (nil: the file is missing,
// and false tells the caller to try the next name).
func (s *Server) failed(w http.ResponseWriter, err error) bool {
	if err == nil {
		return false
	}
	// The object store is down or unreachable: say so, and when to come
	// back, rather than blame the site.
	s.log.Error("site file read failed", "err", err)
	unavailable(w)
	return true
}

// lengthWriter sets Content-Length on a 200, for a compressed copy sent
// whole.
type lengthWriter struct {
	http.ResponseWriter
	length string
}

func (l lengthWriter) WriteHeader(code int) {
	if code == http.StatusOK {
		l.Header().Set("Content-Length", l.length)
	}
	l.ResponseWriter.WriteHeader(code)
}

// pagePolicy returns the Content-Security-Policy of the page of blob key,
// "" when it turns out missing. Only the pages of a deployment with "Try
// it" forms are read whole (open opens the page, nil when missing), to
// find the API servers they call: at most maxPageReads at once, each up
// to maxPage. page is what to serve of the page as it is when it was read
// (nil if not); err a failure of the object store or the request.
func (s *Server) pagePolicy(ctx context.Context, e hostEntry, m *precompress.Manifest, key string, open func() (io.ReadSeeker, error)) (csp string, page io.ReadSeeker, err error) {
	var has bool
	if m != nil {
		has = s.manifestPlayground(e, m)
	} else if has, err = s.hasPlayground(ctx, e); err != nil {
		return "", nil, err
	}
	if !has {
		return s.plainPolicy(), nil, nil
	}
	select {
	case s.pageReads <- struct{}{}:
		defer func() { <-s.pageReads }()
	case <-ctx.Done():
		return "", nil, ctx.Err()
	}
	rd, err := open()
	if rd == nil {
		return "", nil, err
	}
	data, err := io.ReadAll(io.LimitReader(rd, maxPage+1))
	if err != nil {
		return "", nil, err
	}
	page = rd
	if len(data) > maxPage {
		data = nil // too large to look into: its forms reach the site only
		if _, err := rd.Seek(0, io.SeekStart); err != nil {
			return "", nil, err
		}
	} else {
		page = bytes.NewReader(data)
	}
	csp = pageCSP(data, s.EmbedHosts)
	s.policies.put(key, csp)
	return csp, page, nil
}

// manifestPlayground reports whether the deployment of manifest m has
// "Try it" forms: playground.js, under its name with its hash
// (features.AssetName) or, built earlier, without; remembered, as the
// manifest's files are looked through for it.
func (s *Server) manifestPlayground(e hostEntry, m *precompress.Manifest) bool {
	if has, known := s.playgrounds.get(e.deploymentID); known {
		return has
	}
	_, has := m.Files[features.PlaygroundJSFile]
	for name := range m.Files {
		if has {
			break
		}
		has = strings.HasPrefix(name, features.ScriptDir) && features.AssetBase(name) == features.PlaygroundJSFile
	}
	s.playgrounds.put(e.deploymentID, has)
	return has
}

// hasPlayground reports whether a deployment without a manifest has
// "Try it" forms (features.PlaygroundJSFile), remembering the answer:
// the pages of one without are not read.
func (s *Server) hasPlayground(ctx context.Context, e hostEntry) (bool, error) {
	has, known := s.playgrounds.get(e.deploymentID)
	if known {
		return has, nil
	}
	_, err := s.bucket.Attributes(ctx, blobstore.SiteKey(e.projectID, e.deploymentID, features.PlaygroundJSFile))
	switch {
	case err == nil:
		has = true
	case gcerrors.Code(err) != gcerrors.NotFound:
		return false, err
	}
	s.playgrounds.put(e.deploymentID, has)
	return has, nil
}

// maxManifestFiles bounds the files of the manifests kept in memory (about
// 150 bytes each): past it, the deployments used least recently are
// forgotten, and read again from the store when next asked for.
const maxManifestFiles = 300_000

// manifests keeps the manifests of the deployments served, read once per
// deployment (deployments are immutable, so a manifest never goes
// stale): requests for a deployment not yet read wait for the one read.
// Safe for concurrent use.
type manifests struct {
	mu    sync.Mutex
	by    map[string]*manifestEntry // by deployment
	files int                       // of the manifests in by
	tick  uint64
}

type manifestEntry struct {
	ready chan struct{} // closed once m and err are set
	m     *precompress.Manifest
	err   error
	used  uint64 // tick of the last use, under manifests.mu
}

// get returns the manifest of e's deployment, nil for a deployment
// published before manifests (or whose manifest is unreadable: it is then
// served as such one).
func (c *manifests) get(ctx context.Context, b *blob.Bucket, e hostEntry) (*precompress.Manifest, error) {
	c.mu.Lock()
	c.tick++
	en := c.by[e.deploymentID]
	if en != nil {
		en.used = c.tick
		c.mu.Unlock()
		select {
		case <-en.ready:
			return en.m, en.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if c.by == nil {
		c.by = map[string]*manifestEntry{}
	}
	en = &manifestEntry{ready: make(chan struct{}), used: c.tick}
	c.by[e.deploymentID] = en
	c.mu.Unlock()

	// The read is shared by every request waiting for it: the first one
	// going away must not fail the others.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	en.m, en.err = readManifest(rctx, b, e)
	cancel()
	close(en.ready)

	c.mu.Lock()
	defer c.mu.Unlock()
	if en.err != nil {
		if c.by[e.deploymentID] == en {
			delete(c.by, e.deploymentID) // asked again on the next request
		}
		return nil, en.err
	}
	if en.m != nil {
		c.files += len(en.m.Files)
	}
	for c.files > maxManifestFiles && len(c.by) > 1 {
		c.evict(en)
	}
	return en.m, nil
}

// evict forgets the manifest used least recently, but keep.
func (c *manifests) evict(keep *manifestEntry) {
	var oldID string
	var old *manifestEntry
	for id, o := range c.by {
		select {
		case <-o.ready:
		default:
			continue // still being read: counted once it is
		}
		if o != keep && (old == nil || o.used < old.used) {
			oldID, old = id, o
		}
	}
	if old == nil {
		c.files = 0 // nothing else to forget; count again from here
		return
	}
	delete(c.by, oldID)
	if old.m != nil {
		c.files -= len(old.m.Files)
	}
}

// maxManifest bounds a manifest's size (about 100 bytes per file).
const maxManifest = 256 << 20

// readManifest reads a deployment's manifest: nil when it has none.
func readManifest(ctx context.Context, b *blob.Bucket, e hostEntry) (*precompress.Manifest, error) {
	rd, err := b.NewReader(ctx, precompress.ManifestKey(blobstore.SitePrefix(e.projectID, e.deploymentID)), nil)
	if gcerrors.Code(err) == gcerrors.NotFound {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	data, err := io.ReadAll(io.LimitReader(rd, maxManifest))
	if err != nil {
		return nil, err
	}
	m, err := precompress.ParseManifest(data)
	if err != nil {
		// Its files are still there: served as they are, without copies.
		return nil, nil
	}
	return m, nil
}
