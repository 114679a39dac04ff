package sites

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// Defaults of the disk cache (Server.SetDiskCache).
const (
	// DefaultDiskCacheSize bounds the bytes of the files kept on disk.
	DefaultDiskCacheSize = 2 << 30
	// diskFileShare: the largest file kept is this fraction of the
	// bound, so that one video cannot push out a hundred sites' pages.
	diskFileShare = 16
)

// diskCache keeps on local disk the files of live deployments read from a
// remote blob store (S3), so that a file not in memory (or too large for
// it) costs a local read, not a round trip: by blob key, within a bound in
// bytes, least recently used first out, no site holding more than a
// quarter (the hot cache's bookkeeping, whose entries here hold no bytes).
// Deployments are immutable, so a file never goes stale. The folder is
// emptied when the server starts: what it holds is only ever a copy.
type diskCache struct {
	dir string
	lru hotCache
}

// SetDiskCache keeps up to size bytes of the live sites' files in folder
// dir (created; an earlier run's files are removed in the background),
// for a blob store that is not on this machine. size 0 (the default)
// keeps none. Set before serving.
func (s *Server) SetDiskCache(dir string, size int64) error {
	if size <= 0 {
		s.disk = nil
		return nil
	}
	// An earlier run's files are moved aside at once and removed in the
	// background: a full cache (2 GiB of small files) would otherwise
	// hold up the start.
	if _, err := os.Stat(dir); err == nil {
		if err := os.Rename(dir, fmt.Sprintf("%s.old-%d", dir, time.Now().UnixNano())); err != nil {
			return err
		}
	}
	if old, _ := filepath.Glob(dir + ".old-*"); len(old) > 0 {
		go func() {
			for _, o := range old {
				os.RemoveAll(o)
			}
		}()
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	d := &diskCache{dir: dir}
	d.lru.setLimits(size, 0.25, size/diskFileShare)
	d.lru.evicted = func(e *hotEntry) { os.Remove(d.path(e.key)) }
	s.disk = d
	return nil
}

// path is where the file of blob key is kept: named by the SHA-256 of the
// key, so that no name of a site's reaches the file system.
func (d *diskCache) path(key string) string {
	h := sha256.Sum256([]byte(key))
	name := hex.EncodeToString(h[:])
	return filepath.Join(d.dir, name[:2], name)
}

// fits reports whether a file of size bytes would be kept.
func (d *diskCache) fits(size int64) bool {
	d.lru.mu.Lock()
	defer d.lru.mu.Unlock()
	return d.lru.fits0(size)
}

// open opens blob key of project site, size bytes (from the deployment's
// manifest), from the disk; a file not there yet is read from the store
// with fetch once, however many requests ask for it at the same time,
// and kept. nil and no error when the store has no such file; errNotHot
// when its size is not the manifest's (the caller reads it as it is).
func (d *diskCache) open(ctx context.Context, site, key string, size int64, fetch func(context.Context, string) (fileReader, error)) (fileReader, error) {
	for range 2 {
		if _, ok := d.lru.get(key); ok {
			f, err := os.Open(d.path(key))
			if err == nil {
				return &diskFile{File: f, size: size}, nil
			}
			// Evicted since: read it again.
		}
		ch := d.lru.fill.DoChan(key, func() (any, error) {
			if _, ok := d.lru.get(key); ok {
				return nil, nil
			}
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Minute)
			defer cancel()
			return nil, d.fill(rctx, site, key, size, fetch)
		})
		select {
		case r := <-ch:
			if r.Err == errMissing {
				return nil, nil
			}
			if r.Err != nil {
				return nil, r.Err
			}
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return nil, errNotHot // kept and evicted at once: read from the store
}

// fill copies blob key to its place on disk, through a temporary file
// renamed once complete, and keeps it.
func (d *diskCache) fill(ctx context.Context, site, key string, size int64, fetch func(context.Context, string) (fileReader, error)) error {
	rd, err := fetch(ctx, key)
	if rd == nil {
		if err == nil {
			err = errMissing
		}
		return err
	}
	defer rd.Close()
	if rd.Size() != size {
		return errNotHot
	}
	p := d.path(key)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".fill-*")
	if err != nil {
		return err
	}
	n, err := io.Copy(tmp, io.LimitReader(rd, size+1))
	if err == nil && n != size {
		err = errNotHot
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), p)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if !d.lru.putSized(site, key, nil, size) {
		if _, kept := d.lru.get(key); !kept {
			os.Remove(p) // too large after all
		}
	}
	return nil
}

// dropSite removes every file of site (a deleted project's).
func (d *diskCache) dropSite(site string) { d.lru.dropSite(site) }

// diskFile is a file of the disk cache, read in place.
type diskFile struct {
	*os.File
	size int64
}

func (f *diskFile) Size() int64        { return f.size }
func (f *diskFile) ModTime() time.Time { return time.Time{} }
