package selfhost

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"lectern.dev/lectern"
)

// An air-gapped installation has no link to download from: the bundle is
// carried in, and staticExport.bundleUrl names its file, as a file:// URL
// or a path. It is read and verified exactly as a download is (size limit,
// archive checks, manifest, version pin).

// localBundle returns the absolute path of a bundle file that s names (a
// file:// URL, an absolute path or a path relative to the working
// folder), ok false when s is not one (an http(s) link or anything else),
// and a problem when it names a file wrongly.
func localBundle(s string) (path string, ok bool, problem string) {
	switch {
	case strings.HasPrefix(s, "file:"):
		u, err := url.Parse(s)
		if err != nil {
			return "", true, "is not a valid file:// URL"
		}
		if u.Host != "" && u.Host != "localhost" {
			return "", true, fmt.Sprintf("is a file:// URL on the host %q: only local files (file:///path) can be read", u.Host)
		}
		if u.Path == "" || !strings.HasPrefix(u.Path, "/") || u.RawQuery != "" || u.Fragment != "" {
			return "", true, "must be a file:// URL of an absolute path, like file:///srv/bundles/docs.tar.gz"
		}
		return filepath.FromSlash(u.Path), true, ""
	case strings.Contains(s, "://"):
		return "", false, ""
	}
	abs, err := filepath.Abs(s)
	if err != nil {
		return "", true, "is not a usable path: " + err.Error()
	}
	return abs, true, ""
}

// readLocal copies the bundle file at path into dst, at most maxSize
// bytes, and returns its size and SHA-256. A file that cannot be read is a
// *DownloadError (so that a cached version is served instead), one over
// the limit an EINVALID error.
func readLocal(path string, dst *os.File, maxSize int64) (download, error) {
	// The kind of file first: opening a FIFO would wait for a writer.
	if st, err := os.Stat(path); err != nil {
		return download{}, &DownloadError{Link: path, Err: localError(err)}
	} else if !st.Mode().IsRegular() {
		return download{}, lectern.Errorf(lectern.EINVALID, "staticExport.bundleUrl names %s, which is not a file: name the bundle's .tar.gz", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return download{}, &DownloadError{Link: path, Err: localError(err)}
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return download{}, &DownloadError{Link: path, Err: localError(err)}
	}
	if !st.Mode().IsRegular() { // replaced meanwhile
		return download{}, lectern.Errorf(lectern.EINVALID, "staticExport.bundleUrl names %s, which is not a file: name the bundle's .tar.gz", path)
	}
	if st.Size() > maxSize {
		return download{}, lectern.Errorf(lectern.EINVALID, "the bundle is %d bytes, over the limit of %d (--max-bundle-size)", st.Size(), maxSize)
	}
	if _, err := dst.Seek(0, io.SeekStart); err != nil {
		return download{}, err
	}
	if err := dst.Truncate(0); err != nil {
		return download{}, err
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(dst, h), io.LimitReader(f, maxSize+1))
	if err != nil {
		return download{}, &DownloadError{Link: path, Err: localError(err)}
	}
	if n > maxSize {
		return download{}, lectern.Errorf(lectern.EINVALID, "the bundle is more than %d bytes, over the limit (--max-bundle-size)", maxSize)
	}
	return download{size: n, sha256: hex.EncodeToString(h.Sum(nil))}, nil
}

// localError says what went wrong reading a bundle file, without Go's
// "open PATH:" prefix (the message names the file already).
func localError(err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return errors.New("there is no such file: carry the bundle in and name it in staticExport.bundleUrl")
	case errors.Is(err, fs.ErrPermission):
		return errors.New("the file cannot be read: make it readable by the user selfhost runs as")
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// bundleStamp describes a local bundle file's state (size and time of
// change), so that a file replaced at the same path is read again; "" for
// a link or a file that cannot be read.
func bundleStamp(link string) string {
	path, ok, problem := localBundle(link)
	if !ok || problem != "" {
		return ""
	}
	st, err := os.Stat(path)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%d@%d", st.Size(), st.ModTime().UnixNano())
}
