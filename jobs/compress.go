package jobs

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"gocloud.dev/blob"

	"lectern.dev/lectern/blobstore"
	"lectern.dev/lectern/internal/precompress"
	"lectern.dev/lectern/render/features"
)

// publishSite uploads the site rendered in dir as deployment depID of
// project projectID, created at created: every file at its SiteKey, the
// brotli and gzip copies of its text files (precompress.VariantKey), and
// last the deployment's manifest (precompress.Manifest), which live sites
// read to answer without asking the store whether a file exists, and to
// send content-hash ETags and the deployment's time as Last-Modified.
// The copies are made in work (a folder of the job's own) first. It
// returns the number of site files.
func publishSite(ctx context.Context, b *blob.Bucket, dir, work, projectID, depID string, created time.Time) (int, error) {
	m, err := compressSite(ctx, dir, work)
	if err != nil {
		return 0, err
	}
	m.CreatedAt = created
	n, err := uploadDir(ctx, b, dir, func(name string) string { return blobstore.SiteKey(projectID, depID, name) })
	if err != nil {
		return 0, err
	}
	prefix := blobstore.SitePrefix(projectID, depID)
	for enc := range precompress.NumEncodings {
		encDir := filepath.Join(work, precompress.Names[enc])
		if _, err := os.Stat(encDir); os.IsNotExist(err) {
			continue // no file of this deployment is worth it
		}
		if _, err := uploadDir(ctx, b, encDir, func(name string) string { return precompress.VariantKey(prefix, enc, name) }); err != nil {
			return 0, err
		}
	}
	data, err := json.Marshal(m)
	if err != nil {
		return 0, err
	}
	if err := writeBlob(ctx, b, precompress.ManifestKey(prefix), bytes.NewReader(data)); err != nil {
		return 0, err
	}
	return n, nil
}

// compressSite hashes every file of the site in dir and writes the
// compressed copies of its text files worth compressing under
// work/br/NAME and work/gzip/NAME, on as many cores as the machine has
// (compressing is the costly part). It returns the site's manifest.
func compressSite(ctx context.Context, dir, work string) (*precompress.Manifest, error) {
	var names []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		names = append(names, filepath.ToSlash(rel))
		return err
	})
	if err != nil {
		return nil, err
	}
	m := &precompress.Manifest{Version: precompress.ManifestVersion, Files: make(map[string]precompress.File, len(names))}
	var mu sync.Mutex
	var firstErr error
	work = filepath.Clean(work)
	next := make(chan string)
	var wg sync.WaitGroup
	for range max(1, runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for name := range next {
				f, err := compressFile(dir, work, name)
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = fmt.Errorf("compress %s: %w", name, err)
				}
				m.Files[name] = f
				mu.Unlock()
			}
		}()
	}
	for _, n := range names {
		mu.Lock()
		failed := firstErr != nil
		mu.Unlock()
		if failed || ctx.Err() != nil {
			break
		}
		next <- n
	}
	close(next)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	return m, ctx.Err()
}

// compressFile hashes site file name and writes its copies worth keeping.
func compressFile(dir, work, name string) (precompress.File, error) {
	p := filepath.Join(dir, filepath.FromSlash(name))
	fh, err := os.Open(p)
	if err != nil {
		return precompress.File{}, err
	}
	defer fh.Close()
	h := sha256.New()
	size, err := io.Copy(h, fh)
	if err != nil {
		return precompress.File{}, err
	}
	f := precompress.File{Hash: hex.EncodeToString(h.Sum(nil))[:32], Size: size}
	// The type the file is served with (a repository's script is text).
	ctype, _ := features.ServeHeaders(name, blobstore.ContentType(name), "")
	if size < precompress.MinSize || size > precompress.MaxSize || !precompress.Compressible(ctype) {
		return f, nil
	}
	for enc := range precompress.NumEncodings {
		if _, err := fh.Seek(0, io.SeekStart); err != nil {
			return f, err
		}
		data, ok := precompress.Compress(enc, fh, size)
		if !ok {
			continue
		}
		out := filepath.Join(work, precompress.Names[enc], filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return f, err
		}
		if err := os.WriteFile(out, data, 0o644); err != nil {
			return f, err
		}
		if enc == precompress.Brotli {
			f.Br = int64(len(data))
		} else {
			f.Gzip = int64(len(data))
		}
	}
	return f, nil
}
