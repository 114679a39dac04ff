package bundle

import (
	"archive/tar"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/klauspost/compress/gzip"
)

// Fixed archive metadata.
const (
	fileMode = 0o644
	dirMode  = 0o755
	gzipOS   = 255 // "unknown" in RFC 1952
)

// epoch is the entry time used when the manifest has no CreatedAt.
var epoch = time.Unix(0, 0).UTC()

// entry is one source path to archive.
type entry struct {
	path string
	dir  bool
}

// name returns the entry's name in the archive.
func (e entry) name() string {
	if e.dir {
		return e.path + "/"
	}
	return e.path
}

// Write writes to w a reproducible tar.gz of every directory and regular file
// of src, with the manifest m first, and returns the size and SHA-256 of the
// compressed bytes it wrote.
//
// Write sets m.Files from src (whatever the caller put there is ignored) and
// m.CreatedAt to UTC; every other manifest field is written as given. After
// the manifest, entries are sorted by name (a directory's name ends in "/",
// so "a-b" precedes "a/" which precedes "a/b"; manifest Files are sorted by
// path); directories have mode 0755 and files 0644, uid and gid 0, empty
// owner names, and the modification time m.CreatedAt truncated to the second
// (the Unix epoch if CreatedAt is zero). Each header is USTAR, or PAX when
// USTAR cannot hold it (a long or non-ASCII name). The gzip header has no
// name, no time and OS byte 255. Write streams: each file is read twice, once
// to hash it for the manifest and once to copy it, and never held whole.
//
// Write returns an error, having possibly written part of an archive to w,
// if: src cannot be walked or read; a path in src is not a clean path that
// [Read] would accept (for example it contains a backslash); src holds
// anything other than directories and regular files (a symlink, say); src has
// an entry named [ManifestName] at its root; a file changes size or content
// between the two reads; writing to w fails; or ctx is done, checked before
// each file (the error then wraps ctx.Err()). On error the Result is zero.
func Write(ctx context.Context, w io.Writer, src fs.FS, m Manifest) (Result, error) {
	ents, err := scan(ctx, src)
	if err != nil {
		return Result{}, err
	}
	buf := make([]byte, 32<<10)
	m.Files = make([]File, 0, len(ents))
	for _, e := range ents {
		if e.dir {
			continue
		}
		if err := ctx.Err(); err != nil {
			return Result{}, fmt.Errorf("bundle: write cancelled: %w", err)
		}
		f, err := hashFile(src, e.path, io.Discard, buf)
		if err != nil {
			return Result{}, err
		}
		m.Files = append(m.Files, f)
	}
	m.CreatedAt = m.CreatedAt.UTC()
	mj, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return Result{}, fmt.Errorf("bundle: encoding manifest: %w", err)
	}
	mj = append(mj, '\n')

	mtime := epoch
	if !m.CreatedAt.IsZero() {
		mtime = m.CreatedAt.Truncate(time.Second)
	}
	cw := &countWriter{w: w, h: sha256.New()}
	zw, err := gzip.NewWriterLevel(cw, gzip.DefaultCompression)
	if err != nil {
		return Result{}, fmt.Errorf("bundle: %w", err)
	}
	// The zero time.Time is not "no time" for this gzip package: it writes
	// the low 32 bits of its (negative) Unix time. Set 0 explicitly.
	zw.ModTime = time.Unix(0, 0)
	zw.Name, zw.Comment, zw.Extra = "", "", nil
	zw.OS = gzipOS
	tw := tar.NewWriter(zw)

	if err := tw.WriteHeader(header(ManifestName, int64(len(mj)), false, mtime)); err != nil {
		return Result{}, fmt.Errorf("bundle: writing manifest: %w", err)
	}
	if _, err := tw.Write(mj); err != nil {
		return Result{}, fmt.Errorf("bundle: writing manifest: %w", err)
	}
	i := 0
	for _, e := range ents {
		if e.dir {
			if err := tw.WriteHeader(header(e.name(), 0, true, mtime)); err != nil {
				return Result{}, fmt.Errorf("bundle: writing directory %q: %w", e.path, err)
			}
			continue
		}
		if err := ctx.Err(); err != nil {
			return Result{}, fmt.Errorf("bundle: write cancelled: %w", err)
		}
		want := m.Files[i]
		i++
		if err := tw.WriteHeader(header(e.path, want.Size, false, mtime)); err != nil {
			return Result{}, fmt.Errorf("bundle: writing file %q: %w", e.path, err)
		}
		got, err := hashFile(src, e.path, tw, buf)
		if err != nil && !errors.Is(err, tar.ErrWriteTooLong) {
			return Result{}, err
		}
		if err != nil || got != want {
			return Result{}, fmt.Errorf("bundle: source file %q changed while the archive was written", e.path)
		}
	}
	if err := tw.Close(); err != nil {
		return Result{}, fmt.Errorf("bundle: closing tar stream: %w", err)
	}
	if err := zw.Close(); err != nil {
		return Result{}, fmt.Errorf("bundle: closing gzip stream: %w", err)
	}
	if cw.err != nil {
		return Result{}, fmt.Errorf("bundle: writing archive: %w", cw.err)
	}
	return Result{Size: cw.n, SHA256: hex.EncodeToString(cw.h.Sum(nil)), Manifest: m}, nil
}

// header returns the fixed tar header of a file or directory.
func header(name string, size int64, dir bool, mtime time.Time) *tar.Header {
	h := &tar.Header{
		Typeflag: tar.TypeReg,
		Name:     name,
		Size:     size,
		Mode:     fileMode,
		ModTime:  mtime,
		// PAX lets the writer use plain USTAR whenever the header fits, and
		// PAX records only when it must; never GNU extensions.
		Format: tar.FormatPAX,
	}
	if dir {
		h.Typeflag, h.Size, h.Mode = tar.TypeDir, 0, dirMode
	}
	return h
}

// scan walks src and returns its directories and regular files sorted by
// archive name, the root excluded.
func scan(ctx context.Context, src fs.FS) ([]entry, error) {
	var ents []entry
	err := fs.WalkDir(src, ".", func(p string, d fs.DirEntry, err error) error {
		if p == "." {
			if err != nil {
				return fmt.Errorf("bundle: reading source root: %w", err)
			}
			return nil
		}
		if msg := PathProblem(p); msg != "" {
			return &sourceError{fmt.Sprintf("bundle: source path %q: %s", p, msg)}
		}
		if err != nil {
			return fmt.Errorf("bundle: reading source %q: %w", p, err)
		}
		if p == ManifestName {
			return &sourceError{fmt.Sprintf("bundle: source %q clashes with the bundle manifest", p)}
		}
		switch t := d.Type(); {
		case t.IsDir():
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("bundle: write cancelled: %w", err)
			}
			ents = append(ents, entry{path: p, dir: true})
		case t.IsRegular():
			ents = append(ents, entry{path: p})
		default:
			return &sourceError{fmt.Sprintf("bundle: source %q is not a regular file or directory (mode %v)", p, t)}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	// WalkDir's order is per directory; the archive is sorted by entry name,
	// directories with their trailing slash ("a-b" sorts before "a/"). A
	// directory still precedes its children, of which its name is a prefix.
	slices.SortFunc(ents, func(a, b entry) int { return strings.Compare(a.name(), b.name()) })
	return ents, nil
}

// hashFile copies the named file to w and returns its manifest entry.
func hashFile(src fs.FS, name string, w io.Writer, buf []byte) (File, error) {
	f, err := src.Open(name)
	if err != nil {
		return File{}, fmt.Errorf("bundle: opening source %q: %w", name, err)
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.CopyBuffer(io.MultiWriter(w, h), onlyReader{f}, buf)
	if err != nil {
		return File{}, fmt.Errorf("bundle: copying source %q: %w", name, err)
	}
	return File{Path: name, Size: n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// onlyReader hides any WriterTo of the source so that CopyBuffer uses buf.
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

// countWriter counts and hashes the bytes written through it and remembers
// the first error of w.
type countWriter struct {
	w   io.Writer
	h   hash.Hash
	n   int64
	err error
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.h.Write(p[:n])
	c.n += int64(n)
	if err != nil && c.err == nil {
		c.err = err
	}
	return n, err
}
