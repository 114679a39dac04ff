package selfhost

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"

	"lectern.dev/lectern/bundle"
)

// Extract verifies the bundle read from r with bundle.Read and limits lim,
// writing its files below the existing, empty folder dir, and returns its
// manifest.
//
// Every path is checked twice: bundle.Read refuses absolute paths, "..",
// links, devices and duplicate names before any byte is written, and files
// are created through an os.Root opened on dir, which refuses any path that
// would resolve outside it, and with O_EXCL, which refuses a name that
// exists already (two names that one file system treats as the same). On
// error, dir may hold part of the bundle: the caller removes it. Errors
// about the archive match bundle.ErrInvalid; ctx ends the extraction with
// its error.
func Extract(ctx context.Context, r io.Reader, dir string, lim bundle.Limits) (bundle.Manifest, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return bundle.Manifest{}, fmt.Errorf("extract: %w", err)
	}
	defer root.Close()
	buf := make([]byte, 128<<10)
	m, err := bundle.Read(ctxReader{ctx, r}, lim, func(name string, fr io.Reader) error {
		if d := path.Dir(name); d != "." {
			if err := root.MkdirAll(d, 0o755); err != nil {
				return fmt.Errorf("creating folder: %w", err)
			}
		}
		f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("%w: the name clashes with another entry on this file system", bundle.ErrInvalid)
		}
		if err != nil {
			return fmt.Errorf("creating file: %w", err)
		}
		_, err = io.CopyBuffer(f, onlyReader{fr}, buf)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	})
	if err != nil {
		if ctx.Err() != nil {
			return bundle.Manifest{}, fmt.Errorf("extract canceled: %w", ctx.Err())
		}
		return bundle.Manifest{}, err
	}
	return m, nil
}

// ctxReader fails reads once ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// onlyReader hides the ReaderFrom of a file so that CopyBuffer uses its
// buffer and the verifying reader's errors come through unchanged.
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }
