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
	"runtime"
	"sync"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"

	"lectern.dev/lectern"
	"lectern.dev/lectern/blobstore"
	"lectern.dev/lectern/bundle"
	"lectern.dev/lectern/internal/precompress"
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
// hashing the files whose size and modification time did not change. A name the snapshot cannot keep (a backslash) is
// an EINVALID error naming it. It returns the number of files stored.
func storeSource(ctx context.Context, b *blob.Bucket, dir, projectID, depID string, prev *sourceList, stamps map[string]fileStamp) (int, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return 0, err
	}
	defer root.Close()
	fsys := regularFiles{root.FS()}
	var names []string
	info := map[string]fileStamp{} // size and time of each file, for stamps
	err = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == "." || d.IsDir() {
			return err
		}
		if msg := bundle.PathProblem(p); msg != "" {
			return lectern.Errorf(lectern.EINVALID, "the source path %q cannot be kept: %s; rename or remove it in the repository.", p, msg)
		}
		if stamps != nil {
			if fi, err := d.Info(); err == nil {
				info[p] = fileStamp{Size: fi.Size(), MTime: fi.ModTime().UnixNano()}
			}
		}
		names = append(names, p)
		if len(names) > maxSourceFiles {
			return lectern.Errorf(lectern.EINVALID, "the docs hold more than %d files; remove some from the repository.", maxSourceFiles)
		}
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
	list := &sourceList{Version: sourceVersion, Files: make(map[string]sourceFile, len(names))}
	var mu sync.Mutex
	var firstErr error
	stored := 0
	storing := map[string]bool{}
	next := make(chan string)
	var wg sync.WaitGroup
	for range max(4, 2*runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for name := range next {
				f, store, err := func() (sourceFile, bool, error) {
					mu.Lock()
					st, stamped := stamps[name]
					now, known := info[name]
					mu.Unlock()
					var f sourceFile
					if stamped && known && st.Size == now.Size && st.MTime == now.MTime {
						f = sourceFile{Hash: st.Hash, Size: st.Size}
					} else {
						hash, size, err := hashFS(fsys, name)
						if err != nil {
							return sourceFile{}, false, err
						}
						f = sourceFile{Hash: hash, Size: size}
					}
					mu.Lock()
					defer mu.Unlock()
					if stamps != nil && known && now.Size == f.Size {
						stamps[name] = fileStamp{Size: f.Size, MTime: now.MTime, Hash: f.Hash}
					}
					if held[f.Hash] || storing[f.Hash] {
						return f, false, nil
					}
					storing[f.Hash] = true
					return f, true, nil
				}()
				if err == nil && store {
					err = storeSourceFile(ctx, b, fsys, name, blobstore.SourceObjectKey(projectID, f.Hash), f.Size)
				}
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = fmt.Errorf("store source %s: %w", name, err)
				}
				if store && err == nil {
					stored++
				}
				list.Files[name] = f
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
		return 0, storeError(firstErr, "storing the snapshot of the docs")
	}
	for name := range stamps {
		if _, ok := list.Files[name]; !ok {
			delete(stamps, name)
		}
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
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

// storeSourceFile stores file name of fsys at key, unless the store holds
// it already (a snapshot that failed after storing it, or one older than
// the live one).
func storeSourceFile(ctx context.Context, b *blob.Bucket, fsys fs.FS, name, key string, size int64) error {
	if attrs, err := b.Attributes(ctx, key); err == nil && attrs.Size == size {
		return nil
	} else if err != nil && gcerrors.Code(err) != gcerrors.NotFound {
		return err
	}
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
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var mu sync.Mutex
	var firstErr error
	next := make(chan string)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for name := range next {
				f := l.Files[name]
				err := writeSourceFile(ctx, b, root, name, blobstore.SourceObjectKey(projectID, f.Hash), f.Size)
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = fmt.Errorf("source %s: %w", name, err)
					}
					mu.Unlock()
					cancel()
				}
			}
		}()
	}
feed:
	for name := range l.Files {
		select {
		case next <- name:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if firstErr != nil {
		return storeError(firstErr, "reading the deployment's source")
	}
	return ctx.Err()
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
		_, s.err = storeSource(ctx, h.Bucket, docsDir, p.ID, depID, prev, stamps)
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
