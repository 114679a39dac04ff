package jobs

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"

	"lectern.dev/lectern"
	"lectern.dev/lectern/blobstore"
	"lectern.dev/lectern/internal/precompress"
	"lectern.dev/lectern/render/features"
)

// published is what publishSite did: the deployment's manifest, and how
// many of its files (and bytes) were new, stored and compressed, rather
// than shared with the previous deployment.
type published struct {
	manifest *precompress.Manifest
	files    int
	newFiles int
	newBytes int64
}

// fileStamp is what a worker remembers of a file of the site it published
// last (buildCache): its size and modification time when it was hashed,
// and its hash, so that a file the next build did not write again is not
// read again.
type fileStamp struct {
	Size  int64  `json:"s"`
	MTime int64  `json:"m"` // nanoseconds
	Hash  string `json:"h"`
}

// publishSite stores the site rendered in dir as deployment depID of
// project projectID, created at created, by content
// (precompress.ManifestVersionShared): each file whose content the
// project's stores do not hold yet goes to its precompress.ObjectKey with
// its brotli and gzip copies (text files worth it), and last the
// deployment's manifest, which names every file's content and which live
// sites read. Files held by prev (the manifest of the deployment live
// now, nil for none) are neither compressed nor stored again: a
// deployment costs what changed. stamps (updated in place; nil for none)
// spare hashing the files whose size and time did not change.
func publishSite(ctx context.Context, b *blob.Bucket, dir, projectID, depID string, created time.Time, prev *precompress.Manifest, stamps map[string]fileStamp) (*published, error) {
	type entry struct {
		name string
		size int64
		mod  int64
	}
	var files []entry
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		files = append(files, entry{filepath.ToSlash(rel), info.Size(), info.ModTime().UnixNano()})
		return err
	})
	if err != nil {
		return nil, err
	}
	held := map[string]precompress.File{} // by hash, with its copies
	if prev != nil && prev.Shared() {
		for _, f := range prev.Files {
			held[f.Hash] = f
		}
	}
	m := &precompress.Manifest{Version: precompress.ManifestVersionShared, CreatedAt: created,
		Files: make(map[string]precompress.File, len(files))}
	out := &published{manifest: m, files: len(files)}
	prefix := blobstore.ProjectPrefix(projectID)

	book := &stampBook{m: stamps}
	var mu sync.Mutex
	storing := map[string]*storeOnce{} // the contents stored by this publish, by hash
	var newFiles, newBytes atomic.Int64
	err = forEach(ctx, files, storeWorkers(), func(ctx context.Context, e entry) error {
		hash, err := book.hash(e.name, e.size, e.mod, func() (string, error) {
			return hashFile(filepath.Join(dir, filepath.FromSlash(e.name)))
		})
		if err != nil {
			return fmt.Errorf("store %s: %w", e.name, err)
		}
		f, ok := held[hash]
		if !ok || f.Size != e.size {
			mu.Lock()
			once := storing[hash]
			if once == nil {
				once = &storeOnce{}
				storing[hash] = once
			}
			mu.Unlock()
			once.Do(func() {
				once.f, once.err = storeFile(ctx, b, prefix, dir, e.name, hash, e.size)
				if once.err == nil {
					newFiles.Add(1)
					newBytes.Add(once.f.Size + once.f.Br + once.f.Gzip)
				}
			})
			if once.err != nil {
				return fmt.Errorf("store %s: %w", e.name, once.err)
			}
			f = once.f
		}
		mu.Lock()
		m.Files[e.name] = f
		mu.Unlock()
		return nil
	})
	if err != nil {
		return nil, storeError(err, "storing the site's files")
	}
	book.keepOnly(func(name string) bool { _, ok := m.Files[name]; return ok })
	data, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	if err := writeBlob(ctx, b, precompress.ManifestKey(blobstore.SitePrefix(projectID, depID)), bytes.NewReader(data)); err != nil {
		return nil, err
	}
	out.newFiles, out.newBytes = int(newFiles.Load()), newBytes.Load()
	return out, nil
}

// storeOnce stores one content once, however many files of the site hold
// it.
type storeOnce struct {
	sync.Once
	f   precompress.File
	err error
}

// hashFile returns the first 128 bits of the SHA-256 of file p, in hex
// (precompress.File.Hash).
func hashFile(p string) (string, error) {
	fh, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer fh.Close()
	hash, _, err := precompress.HashOf(fh)
	return hash, err
}

// storeFile stores site file name of dir, of the given hash and size, at
// its object key under the project's prefix, with its compressed copies
// worth keeping (the copies first, so that a stored file always has its
// copies). A content stored already (by a publish that failed later) is
// stored again: the same bytes under the same key, without a read of the
// store per file to find out.
func storeFile(ctx context.Context, b *blob.Bucket, prefix, dir, name, hash string, size int64) (precompress.File, error) {
	p := filepath.Join(dir, filepath.FromSlash(name))
	f := precompress.File{Hash: hash, Size: size}
	key := precompress.ObjectKey(prefix, hash)
	// The type the file is served with (a repository's script is text).
	ctype, _ := features.ServeHeaders(name, blobstore.ContentType(name), "")
	text := size >= precompress.MinSize && size <= precompress.MaxSize && precompress.Compressible(ctype)
	if text {
		for enc := range precompress.NumEncodings {
			fh, err := os.Open(p)
			if err != nil {
				return f, err
			}
			data, ok := precompress.Compress(enc, fh, size)
			fh.Close()
			if !ok {
				continue
			}
			if err := writeBlob(ctx, b, precompress.ObjectVariantKey(key, enc), bytes.NewReader(data)); err != nil {
				return f, err
			}
			if enc == precompress.Brotli {
				f.Br = int64(len(data))
			} else {
				f.Gzip = int64(len(data))
			}
		}
	}
	fh, err := os.Open(p)
	if err != nil {
		return f, err
	}
	defer fh.Close()
	return f, writeBlob(ctx, b, key, fh)
}

// liveManifest returns the manifest of project p's live deployment, whose
// stored files a new deployment shares; nil when there is none, or it has
// none (published before manifests) or cannot be parsed.
func (h *UpdateHandler) liveManifest(ctx context.Context, p *lectern.Project) (*precompress.Manifest, error) {
	if p.LiveDeploymentID == "" {
		return nil, nil
	}
	data, err := h.Bucket.ReadAll(ctx, precompress.ManifestKey(blobstore.SitePrefix(p.ID, p.LiveDeploymentID)))
	if gcerrors.Code(err) == gcerrors.NotFound {
		return nil, nil
	}
	if err != nil {
		return nil, storeError(err, "reading the live deployment's manifest")
	}
	m, err := precompress.ParseManifest(data)
	if err != nil {
		h.Log.Warn("the live deployment's manifest cannot be read; storing every file again", "project", p.ID, "err", err)
		return nil, nil
	}
	return m, nil
}
