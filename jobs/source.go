package jobs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sync"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"

	"lectern.dev/lectern"
	"lectern.dev/lectern/blobstore"
	"lectern.dev/lectern/bundle"
	"lectern.dev/lectern/internal/precompress"
	"lectern.dev/lectern/render/limits"
)

// sourceVersion is the version of the source list's format.
const sourceVersion = 1

// maxSourceList bounds the source list read back, and maxSourceFiles its
// files (bundle's own bound on an archive's entries).
const (
	maxSourceList  = 64 << 20
	maxSourceFiles = bundle.DefaultMaxFiles
)

// sourceList is a deployment's snapshot of the docs it was built from
// (blobstore.SourceFilesKey): every file the render could read, each
// stored once per project by its content (blobstore.SourceObjectKey), so
// that an export renders the very same files, and a deployment stores
// only the sources that changed.
type sourceList struct {
	Version int                   `json:"version"`
	Files   map[string]sourceFile `json:"files"` // by slash path
}

type sourceFile struct {
	Hash string `json:"hash"`
	Size int64  `json:"size"`
}

// storeSource stores the snapshot of the docs in dir as deployment depID's:
// the folders and regular files the render reads (regularFiles: no
// symbolic links, no dot-files but the root's .mintignore), those the
// live deployment's snapshot (prev, nil for none) does not hold stored
// first, then the list. stamps (nil for none; updated in place) spare
// hashing the files whose size and modification time did not change.
// It runs beside the render, so it applies the render's limits on the
// source itself (lim: a file's size, the files' count and their total),
// before storing anything. A name the snapshot cannot keep (a backslash)
// or a limit passed is an EINVALID error naming it. It returns the number
// of files stored.
func storeSource(ctx context.Context, b *blob.Bucket, dir, projectID, depID string, prev *sourceList, stamps map[string]fileStamp, lim limits.Limits) (int, error) {
	lim = lim.WithDefaults()
	maxFiles := min(lim.MaxFiles, maxSourceFiles)
	root, err := os.OpenRoot(dir)
	if err != nil {
		return 0, err
	}
	defer root.Close()
	fsys := regularFiles{root.FS()}
	type entry struct {
		name      string
		size, mod int64
	}
	var files []entry
	var total int64
	err = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == "." || d.IsDir() {
			return err
		}
		if msg := bundle.PathProblem(p); msg != "" {
			return lectern.Errorf(lectern.EINVALID, "the source path %q cannot be kept: %s; rename or remove it in the repository.", p, msg)
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		total += fi.Size()
		switch {
		case fi.Size() > lim.MaxFileBytes:
			return limits.Errorf(limits.MaxFileSize, p, limits.FormatSize(lim.MaxFileBytes), "the file is %s", limits.FormatSize(fi.Size()))
		case total > lim.MaxSourceBytes:
			return limits.Errorf(limits.MaxSourceSize, "", limits.FormatSize(lim.MaxSourceBytes), "the docs' files are larger together")
		case len(files) >= maxFiles:
			return limits.Errorf(limits.MaxFiles, "", fmt.Sprint(maxFiles), "the docs hold more files")
		}
		files = append(files, entry{p, fi.Size(), fi.ModTime().UnixNano()})
		return nil
	})
	if err != nil {
		return 0, err
	}
	held := map[string]bool{}
	if prev != nil {
		for _, f := range prev.Files {
			held[f.Hash] = true
		}
	}
	list := &sourceList{Version: sourceVersion, Files: make(map[string]sourceFile, len(files))}
	book := &stampBook{m: stamps}
	var mu sync.Mutex
	stored := 0
	storing := map[string]bool{}
	err = forEach(ctx, files, storeWorkers(), func(ctx context.Context, e entry) error {
		hash, err := book.hash(e.name, e.size, e.mod, func() (string, error) {
			h, _, err := hashFS(fsys, e.name)
			return h, err
		})
		if err != nil {
			return fmt.Errorf("store source %s: %w", e.name, err)
		}
		mu.Lock()
		list.Files[e.name] = sourceFile{Hash: hash, Size: e.size}
		store := !held[hash] && !storing[hash]
		storing[hash] = true
		mu.Unlock()
		if !store {
			return nil
		}
		if err := storeSourceFile(ctx, b, fsys, e.name, blobstore.SourceObjectKey(projectID, hash)); err != nil {
			return fmt.Errorf("store source %s: %w", e.name, err)
		}
		mu.Lock()
		stored++
		mu.Unlock()
		return nil
	})
	if err != nil {
		return 0, storeError(err, "storing the snapshot of the docs")
	}
	book.keepOnly(func(name string) bool { _, ok := list.Files[name]; return ok })
	data, err := json.Marshal(list)
	if err != nil {
		return 0, err
	}
	return stored, writeBlob(ctx, b, blobstore.SourceFilesKey(projectID, depID), bytes.NewReader(data))
}

// hashFS returns the hash (precompress.File.Hash's form) and size of file
// name of fsys.
func hashFS(fsys fs.FS, name string) (string, int64, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	return precompress.HashOf(f)
}

// storeSourceFile stores file name of fsys at key. A content stored
// already (by a snapshot that failed later) is stored again, the same
// bytes under the same key.
func storeSourceFile(ctx context.Context, b *blob.Bucket, fsys fs.FS, name, key string) error {
	f, err := fsys.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	return writeBlob(ctx, b, key, f)
}

// readSourceList reads deployment depID's source list; nil and no error
// when it has none (published with one archive, blobstore.SourceKey).
func readSourceList(ctx context.Context, b *blob.Bucket, projectID, depID string) (*sourceList, error) {
	r, err := b.NewReader(ctx, blobstore.SourceFilesKey(projectID, depID), nil)
	if gcerrors.Code(err) == gcerrors.NotFound {
		return nil, nil
	}
	if err != nil {
		return nil, storeError(err, "reading the deployment's source list")
	}
	defer r.Close()
	data, err := io.ReadAll(io.LimitReader(r, maxSourceList+1))
	if err != nil {
		return nil, storeError(err, "reading the deployment's source list")
	}
	var l sourceList
	if len(data) > maxSourceList || json.Unmarshal(data, &l) != nil || l.Version != sourceVersion || len(l.Files) > maxSourceFiles {
		return nil, errors.New("the deployment's source list is not one this Lectern reads")
	}
	for name, f := range l.Files {
		if bundle.PathProblem(name) != "" || name == "." || !precompress.ValidHash(f.Hash) || f.Size < 0 {
			return nil, fmt.Errorf("the deployment's source list names %q (%q), which it cannot hold", name, f.Hash)
		}
	}
	return &l, nil
}

// writeSource writes the files of source list l of the project into dir
// (which must exist and be empty), a few at a time, through os.Root: no
// name leads out of dir.
func writeSource(ctx context.Context, b *blob.Bucket, projectID string, l *sourceList, dir string) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	names := make([]string, 0, len(l.Files))
	for name := range l.Files {
		names = append(names, name)
	}
	err = forEach(ctx, names, 8, func(ctx context.Context, name string) error {
		f := l.Files[name]
		if err := writeSourceFile(ctx, b, root, name, blobstore.SourceObjectKey(projectID, f.Hash), f.Size); err != nil {
			return fmt.Errorf("source %s: %w", name, err)
		}
		return nil
	})
	return storeError(err, "reading the deployment's source")
}

func writeSourceFile(ctx context.Context, b *blob.Bucket, root *os.Root, name, key string, size int64) error {
	if d := path.Dir(name); d != "." {
		if err := root.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	r, err := b.NewReader(ctx, key, nil)
	if err != nil {
		return err
	}
	defer r.Close()
	if r.Size() != size {
		return fmt.Errorf("stored with %d bytes, listed with %d", r.Size(), size)
	}
	f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, io.LimitReader(r, size))
	return errors.Join(err, f.Close())
}

// sourceStore is a snapshot of the docs being stored beside the render
// (UpdateHandler.storeSourceAsync).
type sourceStore struct {
	cancel context.CancelFunc
	done   chan struct{}
	err    error
	took   time.Duration
}

// storeSourceAsync starts storing the snapshot of the docs in docsDir as
// deployment depID's (storeSource), sharing the files of the live
// deployment's snapshot; stamps (nil for none) spare hashing the sources
// whose size and time did not change, and are updated in place.
func (h *UpdateHandler) storeSourceAsync(ctx context.Context, p *lectern.Project, docsDir, depID string, stamps map[string]fileStamp) *sourceStore {
	ctx, cancel := context.WithCancel(ctx)
	s := &sourceStore{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		start := time.Now()
		var prev *sourceList
		if p.LiveDeploymentID != "" {
			var err error
			prev, err = readSourceList(ctx, h.Bucket, p.ID, p.LiveDeploymentID)
			if err != nil && lectern.AsError(err) != nil {
				s.err = err // the store failed
				return
			}
			// A list this Lectern cannot read: store every file.
		}
		_, s.err = storeSource(ctx, h.Bucket, docsDir, p.ID, depID, prev, stamps, h.Limits)
		s.took = time.Since(start)
	}()
	return s
}

// wait returns the snapshot's error once it is stored.
func (s *sourceStore) wait() error {
	<-s.done
	return s.err
}

// stop cancels the snapshot, if still being stored, and waits for it: the
// update ended before it needed it.
func (s *sourceStore) stop() {
	s.cancel()
	<-s.done
}
