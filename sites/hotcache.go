package sites

import (
	"container/list"
	"context"
	"errors"
	"io"
	"net/http"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"lectern.dev/lectern/internal/precompress"
)

// Defaults of the hot cache (Server.SetHotCache).
const (
	// DefaultHotCacheSize bounds the bytes of the files kept in memory.
	DefaultHotCacheSize = 256 << 20
	// DefaultHotFileMax is the largest file kept: larger ones (videos,
	// archives) are streamed from the store, and would crowd out pages.
	DefaultHotFileMax = 1 << 20
	// hotEntryOverhead is what an entry costs besides its bytes (key,
	// list elements, map slot), counted so that many small files cannot
	// exceed the bound.
	hotEntryOverhead = 256
)

// hotCache keeps the files of live deployments read most recently, by blob
// key (which names the deployment, the path and the encoding), within a
// bound in bytes: the file used least recently goes first. No site (a
// project) holds more than share of it, so that a busy site evicts its
// own files, not every other site's. Deployments are immutable, so an
// entry never goes stale; those of a deployment no longer live are no
// longer asked for and age out. Safe for concurrent use.
type hotCache struct {
	mu      sync.Mutex
	max     int64 // bytes in all; 0 disables the cache
	share   int64 // bytes per site at most
	fileMax int64 // largest file kept
	used    int64
	all     list.List                // of *hotEntry, most recent first
	sites   map[string]*hotSite      // by project
	by      map[string]*list.Element // in all, by key

	fill singleflight.Group // the reads in progress, by key

	// evicted, when set, is called (under mu) with each entry the cache
	// lets go of: the disk cache removes its file.
	evicted func(*hotEntry)
}

type hotSite struct {
	files list.List // of *hotEntry, most recent first
	used  int64
}

type hotEntry struct {
	key, site string
	data      []byte
	size      int64         // of data, or of the file on disk (diskCache)
	inSite    *list.Element // in its site's files
}

func (e *hotEntry) cost() int64 { return e.size + int64(len(e.key)) + hotEntryOverhead }

// setLimits sets the bound (0 disables the cache), the share of one site
// (a fraction of max, 0 < share <= 1) and the largest file kept, and
// forgets every file.
func (c *hotCache) setLimits(max int64, share float64, fileMax int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.max, c.share, c.fileMax = max, int64(float64(max)*share), fileMax
	c.all.Init()
	c.used, c.sites, c.by = 0, map[string]*hotSite{}, map[string]*list.Element{}
}

// fits0 reports whether a file of size bytes would be kept; under mu.
func (c *hotCache) fits0(size int64) bool {
	return size <= c.fileMax && size+hotEntryOverhead <= c.share && c.max > 0
}

// get returns the bytes of key, marking them used.
func (c *hotCache) get(key string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.get0(key)
}

// lookup is get, and fits for size when key is not kept: one lock taken
// on the hot path.
func (c *hotCache) lookup(key string, size int64) (data []byte, ok, fits bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if data, ok = c.get0(key); ok {
		return data, true, true
	}
	return nil, false, c.fits0(size)
}

func (c *hotCache) get0(key string) ([]byte, bool) {
	el := c.by[key]
	if el == nil {
		return nil, false
	}
	e := el.Value.(*hotEntry)
	c.all.MoveToFront(el)
	c.sites[e.site].files.MoveToFront(e.inSite)
	return e.data, true
}

// put keeps data as key's, of site, evicting the site's least recent
// files past its share and then anyone's past the bound. data must not
// change afterwards.
func (c *hotCache) put(site, key string, data []byte) {
	c.putSized(site, key, data, int64(len(data)))
}

// putSized is put of an entry of size bytes, held in data or elsewhere
// (diskCache); false when it is not kept.
func (c *hotCache) putSized(site, key string, data []byte, size int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.fits0(size) || c.by[key] != nil {
		return false
	}
	s := c.sites[site]
	if s == nil {
		s = &hotSite{}
		c.sites[site] = s
	}
	e := &hotEntry{key: key, site: site, data: data, size: size}
	for s.used+e.cost() > c.share && s.files.Len() > 0 {
		c.remove(s.files.Back().Value.(*hotEntry))
	}
	for c.used+e.cost() > c.max && c.all.Len() > 0 {
		c.remove(c.all.Back().Value.(*hotEntry))
	}
	if c.sites[site] == nil { // remove dropped it when it emptied
		c.sites[site] = s
	}
	e.inSite = s.files.PushFront(e)
	c.by[key] = c.all.PushFront(e)
	s.used += e.cost()
	c.used += e.cost()
	return true
}

// remove forgets e; under mu.
func (c *hotCache) remove(e *hotEntry) {
	el := c.by[e.key]
	c.all.Remove(el)
	delete(c.by, e.key)
	s := c.sites[e.site]
	s.files.Remove(e.inSite)
	s.used -= e.cost()
	c.used -= e.cost()
	if s.files.Len() == 0 {
		delete(c.sites, e.site)
	}
	if c.evicted != nil {
		c.evicted(e)
	}
}

// dropSite forgets every file of site (a deleted project's).
func (c *hotCache) dropSite(site string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for s := c.sites[site]; s != nil && s.files.Len() > 0; s = c.sites[site] {
		c.remove(s.files.Back().Value.(*hotEntry))
	}
}

// stats returns the bytes held, in all and by site.
func (c *hotCache) stats() (used int64, bySite map[string]int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	bySite = map[string]int64{}
	for k, s := range c.sites {
		bySite[k] = s.used
	}
	return c.used, bySite
}

// CacheBytes returns the bytes the memory cache of live sites' files
// holds, counting each file's overhead.
func (s *Server) CacheBytes() int64 {
	used, _ := s.hot.stats()
	return used
}

// SetHotCache bounds the memory of the files of live sites kept in memory
// (0 disables it; default DefaultHotCacheSize): no site holds more than
// share of it (0 < share <= 1; 0 takes a quarter), and files larger than
// fileMax (0: DefaultHotFileMax) are read from the store every time. Set
// before serving.
func (s *Server) SetHotCache(size int64, share float64, fileMax int64) {
	if share <= 0 || share > 1 {
		share = 0.25
	}
	if fileMax <= 0 {
		fileMax = DefaultHotFileMax
	}
	s.hot.setLimits(max(size, 0), share, fileMax)
}

// fileReader is an open file of a deployment: *blob.Reader from the
// store, or hotFile from the hot cache.
type fileReader interface {
	io.ReadSeeker
	io.Closer
	Size() int64
	ModTime() time.Time
}

// hotFile is a file of the hot cache, read in place. Only files of
// deployments with a manifest are kept, whose time is the manifest's:
// ModTime is not asked.
type hotFile struct {
	data []byte
	off  int64
}

func newHotFile(data []byte) *hotFile { return &hotFile{data: data} }

func (f *hotFile) Size() int64        { return int64(len(f.data)) }
func (f *hotFile) Close() error       { return nil }
func (f *hotFile) ModTime() time.Time { return time.Time{} }

func (f *hotFile) Read(p []byte) (int, error) {
	if f.off >= int64(len(f.data)) {
		return 0, io.EOF
	}
	n := copy(p, f.data[f.off:])
	f.off += int64(n)
	return n, nil
}

func (f *hotFile) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		offset += f.off
	case io.SeekEnd:
		offset += int64(len(f.data))
	}
	if offset < 0 {
		return 0, errors.New("seek before the start of the file")
	}
	f.off = offset
	return offset, nil
}

// next returns up to n bytes from the offset on, and moves past them.
func (f *hotFile) next(n int64) []byte {
	if f.off >= int64(len(f.data)) {
		return nil
	}
	b := f.data[f.off:]
	if int64(len(b)) > n {
		b = b[:n]
	}
	f.off += int64(len(b))
	return b
}

// WriteTo writes the rest of the file in one Write.
func (f *hotFile) WriteTo(w io.Writer) (int64, error) {
	n, err := w.Write(f.next(int64(len(f.data))))
	return int64(n), err
}

// hotWriter sends a hot file in one Write: http.ServeContent copies
// through an io.LimitedReader, which io.Copy would otherwise read in 32 KB
// chunks into a buffer allocated per request (the writers of the API's
// middleware hide the connection's own ReadFrom).
type hotWriter struct{ http.ResponseWriter }

func (w hotWriter) ReadFrom(r io.Reader) (int64, error) {
	if lr, ok := r.(*io.LimitedReader); ok {
		if f, ok := lr.R.(*hotFile); ok {
			b := f.next(lr.N)
			lr.N -= int64(len(b))
			n, err := w.ResponseWriter.Write(b)
			return int64(n), err
		}
	}
	return io.Copy(w.ResponseWriter, r)
}

// errMissing ends a shared read of a file listed but missing; errNotHot
// one of a file whose size is not the manifest's, read from the store
// every time instead.
var (
	errMissing = errors.New("missing")
	errNotHot  = errors.New("not the manifest's size")
)

// read opens blob key, a file of size bytes (from the manifest m) of
// project site: nil and no error when it does not exist. A file of a
// deployment with a manifest small enough for the hot cache is served
// from memory, read from the store once however many requests ask for it
// at the same time.
func (s *Server) read(ctx context.Context, m *precompress.Manifest, site, key string, size int64) (fileReader, error) {
	var fits bool
	if m != nil {
		var data []byte
		var ok bool
		if data, ok, fits = s.hot.lookup(key, size); ok {
			return newHotFile(data), nil
		}
	}
	if !fits {
		if m != nil {
			return s.source(ctx, site, key, size)
		}
		return s.fetch(ctx, key)
	}
	ch := s.hot.fill.DoChan(key, func() (any, error) {
		if data, ok := s.hot.get(key); ok { // filled while this one waited
			return data, nil
		}
		// The read is shared by every request waiting for it: the first
		// one going away must not fail the others.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		rd, err := s.source(rctx, site, key, size)
		if rd == nil {
			if err == nil {
				err = errMissing
			}
			return nil, err
		}
		defer rd.Close()
		if rd.Size() != size {
			return nil, errNotHot // the manifest is wrong: read it as it is
		}
		data, err := io.ReadAll(io.LimitReader(rd, size+1))
		if err != nil {
			return nil, err
		}
		s.hot.put(site, key, data)
		return data, nil
	})
	select {
	case r := <-ch:
		switch {
		case r.Err == errMissing:
			return nil, nil
		case r.Err == errNotHot:
			return s.fetch(ctx, key)
		case r.Err != nil:
			return nil, r.Err
		}
		return newHotFile(r.Val.([]byte)), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// source opens blob key, size bytes by its deployment's manifest, from
// the disk cache when there is one and the file fits, else from the
// store.
func (s *Server) source(ctx context.Context, site, key string, size int64) (fileReader, error) {
	if s.disk != nil && s.disk.fits(size) {
		rd, err := s.disk.open(ctx, site, key, size, s.fetch)
		if err != errNotHot {
			return rd, err
		}
	}
	return s.fetch(ctx, key)
}

// fetch opens blob key from the store: nil and no error when it does not
// exist.
func (s *Server) fetch(ctx context.Context, key string) (fileReader, error) {
	rd, err := s.open(ctx, key)
	if rd == nil {
		return nil, err // not a nil *blob.Reader in an interface
	}
	return rd, nil
}
