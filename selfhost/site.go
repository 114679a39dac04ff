package selfhost

import (
	"golang.org/x/time/rate"

	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/assistant"
	"lectern.dev/lectern/bundle"
	"lectern.dev/lectern/internal/precompress"
	"lectern.dev/lectern/render/features"
	"lectern.dev/lectern/render/search"
)

// Site is one served tree: a cached bundle with the configured features
// applied, in a folder of its own, and the index of its files. A Site never
// changes once built; a new configuration or bundle builds a new Site.
type Site struct {
	// Version and CreatedAt come from the bundle's manifest.
	Version   string
	CreatedAt time.Time
	// BuiltAt is when this tree was built.
	BuiltAt time.Time
	// Features are the features the pages were transformed for.
	Features features.Site
	// UnreachableServers are the API servers that "Try it" forms offer but
	// the Content-Security-Policy does not allow (not in
	// Features.PlaygroundOrigins): the playground cannot call them.
	UnreachableServers []string

	dir     string   // the tree: files/, and gzip/ and br/ variants made on demand
	root    *os.Root // on dir
	csp     []string // the Content-Security-Policy header value
	index   map[string]*siteFile
	memLeft atomic.Int64 // bytes of content that may still be kept in memory
	refs    atomic.Int64 // requests in flight
	retired atomic.Bool
	closeMu sync.Once

	// The own assistant (assistant.go), when the pages use it: the
	// bundle's search index, the rate of questions and the service.
	searchIx  *search.Index
	limiter   *rate.Limiter
	assistant atomic.Pointer[assistant.Service]
	// mcp answers POST /mcp (mcp.go).
	mcp http.Handler
	// analytics is selfhost's own (analytics.go), when the pages send
	// their events to it (Features.AnalyticsURL is features.OwnAnalytics).
	analytics *Analytics
	// closers close what the tools opened, with the site.
	closers []func() error
}

// siteFile is one servable file of a Site. Header values are kept as the
// slices net/http sends, so that sending them allocates nothing.
type siteFile struct {
	name      string // slash path in the site
	file      string // path below the site folder: "files/" + name
	size      int64
	data      []byte   // the content, when small enough to keep in memory
	length    []string // Content-Length of data, when kept
	etag      []string // quoted, without an encoding suffix
	csp       []string // Content-Security-Policy (features.ServeHeaders)
	ctype     []string
	immutable bool
	compress  bool                                  // worth compressing (text types over a minimum size)
	variants  [numEncodings]atomic.Pointer[variant] // by encoding
	once      [numEncodings]sync.Once
}

// Memory use of a Site: files up to maxMemFile bytes are served from memory
// (with their compressed copies) until memBudget bytes are used; the rest
// from the served folder.
const (
	maxMemFile = 256 << 10
	memBudget  = 128 << 20
)

// keep reserves n bytes of the memory budget, reporting whether it could.
func (s *Site) keep(n int64) bool {
	if n > maxMemFile {
		return false
	}
	if s.memLeft.Add(-n) < 0 {
		s.memLeft.Add(n)
		return false
	}
	return true
}

// hashedAsset matches file names carrying a content hash (app.3f2a9c1d.js,
// chunk-5f3a9b2c1d0e.css): they never change, so they are cached for a year.
var hashedAsset = regexp.MustCompile(`[.-][0-9a-f]{8,64}\.[A-Za-z0-9]+$`)

// BuildSite builds the served tree of cache entry e with features f in
// the new folder dir: every file of the bundle goes through f.Transform
// (features that are off removed, the others configured, files of
// disabled features dropped); files it leaves unchanged are hard-linked to
// the cache rather than copied. It fails if dir exists, if f is invalid,
// if a cached file no longer matches its manifest size, or when ctx ends;
// on error it removes what it wrote.
func BuildSite(ctx context.Context, e *Entry, f features.Site, dir string) (*Site, error) {
	return buildSite(ctx, e, f, dir, memBudget)
}

// buildSite is BuildSite keeping at most budget bytes of content in memory.
func buildSite(ctx context.Context, e *Entry, f features.Site, dir string, budget int64) (s *Site, err error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("building the served tree: %w", err)
	}
	defer func() {
		if err != nil {
			os.RemoveAll(dir)
		}
	}()
	filesDir := filepath.Join(dir, "files")
	if err := os.Mkdir(filesDir, 0o755); err != nil {
		return nil, fmt.Errorf("building the served tree: %w", err)
	}
	src, err := os.OpenRoot(e.Dir)
	if err != nil {
		return nil, fmt.Errorf("reading cached version %s: %w", e.Version, err)
	}
	defer src.Close()
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			root.Close()
		}
	}()
	dst, err := root.OpenRoot("files")
	if err != nil {
		return nil, err
	}
	defer dst.Close()
	s = &Site{Version: e.Version, CreatedAt: e.Manifest.CreatedAt, BuiltAt: time.Now().UTC(), Features: f,
		dir: dir, root: root, csp: []string{f.ContentSecurityPolicy()}, index: make(map[string]*siteFile, len(e.Manifest.Files))}
	s.memLeft.Store(budget)
	for _, mf := range e.Manifest.Files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := s.add(src, dst, e, mf); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// largeFile is the size from which a file that Transform returns as it is
// (anything but pages and the theme's stylesheets) is linked without being
// read into memory.
const largeFile = 16 << 20

// add puts cached file mf of e into the tree (dst) and the index, as
// s.Features.Transform says.
func (s *Site) add(src, dst *os.Root, e *Entry, mf bundle.File) error {
	f := s.Features
	if d := path.Dir(mf.Path); d != "." {
		if err := dst.MkdirAll(d, 0o755); err != nil {
			return fmt.Errorf("building the served tree: %w", err)
		}
	}
	cached := filepath.Join(e.Dir, filepath.FromSlash(mf.Path))
	if ext := strings.ToLower(path.Ext(mf.Path)); mf.Size >= largeFile && ext != ".html" && ext != ".htm" && ext != ".css" {
		if _, keep, err := f.Transform(mf.Path, nil); err != nil || !keep {
			return err
		}
		if err := os.Link(cached, filepath.Join(dst.Name(), filepath.FromSlash(mf.Path))); err != nil {
			return fmt.Errorf("building the served tree: %w", err)
		}
		s.index[mf.Path] = s.newFile(mf.Path, mf.Size, mf.SHA256, nil)
		return nil
	}
	data, err := src.ReadFile(mf.Path)
	if err != nil {
		return fmt.Errorf("reading cached version %s: %w", e.Version, err)
	}
	if int64(len(data)) != mf.Size {
		return fmt.Errorf("cached version %s: %s has %d bytes, its manifest says %d: remove %s to download it again",
			e.Version, mf.Path, len(data), mf.Size, filepath.Dir(e.Dir))
	}
	out, keep, err := f.Transform(mf.Path, data)
	if err != nil || !keep {
		return err
	}
	if f.Playground {
		for _, o := range features.PlaygroundServerOrigins(out) {
			if !slices.Contains(f.PlaygroundOrigins, o) && !slices.Contains(s.UnreachableServers, o) {
				s.UnreachableServers = append(s.UnreachableServers, o)
			}
		}
	}
	sum, changed := mf.SHA256, !bytes.Equal(out, data)
	if changed {
		h := sha256.Sum256(out)
		sum = hex.EncodeToString(h[:])
	}
	// Unchanged files share the cache's inode; changed ones are written.
	if changed || os.Link(cached, filepath.Join(dst.Name(), filepath.FromSlash(mf.Path))) != nil {
		if err := dst.WriteFile(mf.Path, out, 0o644); err != nil {
			return fmt.Errorf("building the served tree: %w", err)
		}
	}
	sf := s.newFile(mf.Path, int64(len(out)), sum, out)
	if changed {
		// The name's hash is of the file as built, not as this
		// configuration serves it (the features it leaves off taken out
		// of the stylesheet): another configuration serves other bytes
		// under the same name, so browsers must revalidate it.
		sf.immutable = false
	}
	s.index[mf.Path] = sf
	return nil
}

// newFile returns the index entry of a file of the tree with its size and
// sha256, keeping content (when not nil) in memory if the budget allows.
func (s *Site) newFile(name string, size int64, sum string, content []byte) *siteFile {
	ctype, csp := features.ServeHeaders(name, contentType(name, content), s.csp[0])
	sf := &siteFile{name: name, file: "files/" + name, size: size, etag: []string{`"` + sum[:32] + `"`}, ctype: []string{ctype}, csp: []string{csp},
		immutable: hashedAsset.MatchString(path.Base(name)) && !features.Revalidated(name), compress: size >= precompress.MinSize && precompress.Compressible(ctype)}
	if content != nil && s.keep(size) {
		sf.data, sf.length = content, []string{strconv.Itoa(len(content))}
	}
	return sf
}

// acquire counts a request in flight.
func (s *Site) acquire() { s.refs.Add(1) }

// release ends a request, and removes the tree of a retired site when it
// was the last one.
func (s *Site) release() {
	if s.refs.Add(-1) == 0 && s.retired.Load() {
		s.remove()
	}
}

// Retire marks the site as no longer current: its folder is removed as
// soon as no request uses it (at once if none does).
func (s *Site) Retire() {
	s.retired.Store(true)
	if s.refs.Load() == 0 {
		s.remove()
	}
}

func (s *Site) remove() {
	s.closeMu.Do(func() {
		for _, c := range s.closers {
			c()
		}
		s.root.Close()
		os.RemoveAll(s.dir)
	})
}

// resolve maps a request path to a file of the site by the rule of live
// sites (lectern.SiteFiles), or returns nil when nothing matches. The few
// strings it builds per request are the candidate names, as the live
// sites server builds them.
func (s *Site) resolve(urlPath string) *siteFile {
	for _, n := range lectern.SiteFiles(urlPath) {
		if f := s.index[n]; f != nil {
			return f
		}
	}
	return nil
}

// contentTypes are the types of the files a docs site holds, fixed here so
// that they do not depend on the host's mime.types.
var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8", ".htm": "text/html; charset=utf-8",
	".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".mjs": "text/javascript; charset=utf-8",
	".json": "application/json", ".map": "application/json", ".webmanifest": "application/manifest+json",
	".xml": "application/xml", ".txt": "text/plain; charset=utf-8", ".md": "text/markdown; charset=utf-8",
	".mdx": "text/markdown; charset=utf-8", ".yaml": "application/yaml", ".yml": "application/yaml", ".csv": "text/csv; charset=utf-8",
	".svg": "image/svg+xml", ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
	".webp": "image/webp", ".avif": "image/avif", ".ico": "image/x-icon",
	".woff": "font/woff", ".woff2": "font/woff2", ".ttf": "font/ttf", ".otf": "font/otf",
	".pdf": "application/pdf", ".wasm": "application/wasm", ".zip": "application/zip", ".gz": "application/gzip",
	".mp4": "video/mp4", ".webm": "video/webm", ".mp3": "audio/mpeg",
}

// contentType returns the type of file name with content data: from
// contentTypes, else sniffed from data, else (data nil, a large file)
// application/octet-stream; never from the host's mime.types.
func contentType(name string, data []byte) string {
	ext := strings.ToLower(path.Ext(name))
	if t, ok := contentTypes[ext]; ok {
		return t
	}
	if data == nil {
		return "application/octet-stream"
	}
	return http.DetectContentType(data)
}
