package jobs

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"

	"lectern.dev/lectern"
	"lectern.dev/lectern/blobstore"
	"lectern.dev/lectern/bundle"
)

// storeError marks an error of the object store as EUNAVAILABLE, which the
// runner retries with backoff and, once the attempts are spent, records
// with a message that says what could not be done. Cancellation, a
// missing blob and errors that already carry a code are returned as they
// are.
func storeError(err error, doing string) error {
	var coded *lectern.Error
	switch {
	case err == nil, errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded),
		gcerrors.Code(err) == gcerrors.NotFound, errors.As(err, &coded):
		return err
	}
	return &lectern.Error{Code: lectern.EUNAVAILABLE, Err: err,
		Message: "The object store could not be reached while " + doing + "; check that the blob store (--blob-url) is up and reachable, then try again."}
}

// writeBlob writes r to key; the blob appears only if the whole write
// succeeded.
func writeBlob(ctx context.Context, b *blob.Bucket, key string, r io.Reader) (err error) {
	defer func() { err = storeError(err, "writing the site's files") }()
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := b.NewWriter(wctx, key, &blob.WriterOptions{ContentType: blobstore.ContentType(key)})
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, r); err != nil {
		cancel() // abort: nothing is written
		w.Close()
		return err
	}
	return w.Close()
}

// writeArchive streams a reproducible archive of dir (via bundle.Write) to
// key, returning its result; the blob appears only when complete. The
// archive holds dir's folders and regular files: symbolic links and other
// special files, which the render does not read either, are left out. A
// file that cannot be archived (a name with a backslash) is an EINVALID
// error naming it; only a failure of the object store is reported as one.
func writeArchive(ctx context.Context, b *blob.Bucket, key, dir string, m bundle.Manifest) (_ bundle.Result, err error) {
	var bw *blobWriter
	defer func() {
		if err != nil && (bw == nil || bw.err == nil) && ctx.Err() == nil && lectern.ErrorCode(err) == lectern.EINTERNAL && errors.Is(err, bundle.ErrSource) {
			err = lectern.Errorf(lectern.EINVALID, "%s; rename or remove it in the repository.", strings.TrimPrefix(err.Error(), "bundle: "))
			return
		}
		err = storeError(err, "writing the bundle")
	}()
	root, err := os.OpenRoot(dir)
	if err != nil {
		return bundle.Result{}, err
	}
	defer root.Close()
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The download name travels with the blob, so that a presigned link
	// straight to the object store saves it under its own name too.
	w, err := b.NewWriter(wctx, key, &blob.WriterOptions{ContentType: "application/gzip",
		ContentDisposition: `attachment; filename="` + path.Base(key) + `"`})
	if err != nil {
		return bundle.Result{}, err
	}
	bw = &blobWriter{w: w}
	res, err := bundle.Write(ctx, bw, regularFiles{root.FS()}, m)
	if err != nil {
		cancel()
		w.Close()
		return bundle.Result{}, err
	}
	return res, w.Close()
}

// blobWriter remembers the first error of the blob it writes, which tells
// a failure of the object store from one of the source.
type blobWriter struct {
	w   io.Writer
	err error
}

func (b *blobWriter) Write(p []byte) (int, error) {
	n, err := b.w.Write(p)
	if err != nil && b.err == nil {
		b.err = err
	}
	return n, err
}

// regularFiles is a folder in which only folders and regular files whose
// names do not start with a dot are listed: the source snapshot holds what
// the render reads and its limits counted, without symbolic links (the
// render warns about each) or dot-files and dot-folders (.git, caches).
// The one dot-file the render reads, the root's .mintignore, is kept, so
// that a build from the snapshot (an export) leaves out what the live
// site left out.
type regularFiles struct{ fs.FS }

func (r regularFiles) ReadDir(name string) ([]fs.DirEntry, error) {
	ents, err := fs.ReadDir(r.FS, name)
	kept := ents[:0]
	for _, e := range ents {
		switch {
		case e.IsDir() && !strings.HasPrefix(e.Name(), "."):
		case e.Type().IsRegular() && (!strings.HasPrefix(e.Name(), ".") || name == "." && e.Name() == ".mintignore"):
		default:
			continue
		}
		kept = append(kept, e)
	}
	return kept, err
}

// extractArchive verifies the archive at key and writes its files under
// dir (which must exist and be empty). Paths are checked by bundle.Read and
// written through os.Root, so nothing lands outside dir.
func extractArchive(ctx context.Context, b *blob.Bucket, key, dir string) (bundle.Manifest, error) {
	r, err := b.NewReader(ctx, key, nil)
	if err != nil {
		return bundle.Manifest{}, storeError(err, "reading the deployment's source")
	}
	defer r.Close()
	root, err := os.OpenRoot(dir)
	if err != nil {
		return bundle.Manifest{}, err
	}
	defer root.Close()
	return bundle.Read(r, bundle.Limits{}, func(name string, content io.Reader) error {
		if d := path.Dir(name); d != "." {
			if err := root.MkdirAll(d, 0o755); err != nil {
				return err
			}
		}
		f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return err
		}
		_, err = io.Copy(f, content)
		return errors.Join(err, f.Close())
	})
}
