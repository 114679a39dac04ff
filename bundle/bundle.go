// Package bundle writes and verifies Lectern static export bundles.
//
// A bundle is a gzip-compressed tar archive named by [FileName]. Its first
// entry is [ManifestName], a JSON [Manifest] listing every other file of the
// archive with its size and SHA-256; the remaining entries are the static
// files of the exported site and their directories, in path order.
//
// [Write] is reproducible: the same source files and manifest give the same
// bytes, and so the same SHA-256, for a given build of this package (a change
// of the compression library may change the compressed bytes, never the
// content). Entry order, times, owners, modes, the tar format of each header
// and the gzip header are all fixed.
//
// [Read] verifies an archive from an untrusted stream while it reads it:
// structure, paths, entry types, sizes, checksums and resource limits. Every
// error it returns for a bad archive matches [ErrInvalid] with errors.Is.
package bundle

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"strings"
	"time"
)

// ManifestName is the manifest's path inside the archive. It is always the
// first entry, so a reader can check files as they stream past. [Write]
// refuses a source with an entry of this name at its root, and [Read] an
// archive whose first entry is not a regular file of this name.
const ManifestName = "lectern-manifest.json"

// ErrInvalid is matched (with errors.Is) by every error [Read] returns
// because the archive itself is bad: not gzip, truncated, corrupt, unsafe,
// over a limit, or not matching its manifest. Errors from the underlying
// reader and from the caller's callback do not match it.
var ErrInvalid = errors.New("bundle: invalid archive")

// ErrSource is matched (errors.Is) by Write's errors about the source
// itself: a path or a kind of file that cannot go into an archive, as
// opposed to a failure to read or write.
var ErrSource = errors.New("bundle: the source cannot be archived")

// sourceError is an error of Write about the source; it matches ErrSource.
type sourceError struct{ msg string }

func (e *sourceError) Error() string        { return e.msg }
func (e *sourceError) Is(target error) bool { return target == ErrSource }

// File is one file of the archive as listed in the manifest. [Read] refuses
// (with [ErrInvalid]) a listed File whose Path is not a clean relative path,
// whose Size is negative or whose SHA256 is not 64 lower-case hex digits.
type File struct {
	// Path is the file's slash-separated path relative to the archive root.
	Path string `json:"path"`
	// Size is the file's length in bytes.
	Size int64 `json:"size"`
	// SHA256 is the lower-case hex SHA-256 of the file's content.
	SHA256 string `json:"sha256"`
}

// Manifest is the content of [ManifestName], encoded as JSON. [Read] refuses
// (with [ErrInvalid]) a manifest that is not valid JSON, has no "files" list,
// lists files out of order, twice, or both as a file and a directory, or
// lists more files or bytes than its [Limits] allow.
type Manifest struct {
	// Version is written as the caller gives it; Read does not interpret it.
	Version string `json:"version"`
	JobID   string `json:"jobId"`
	Domain  string `json:"domain"`
	// CreatedAt is encoded as RFC 3339 in UTC. Write also uses it, truncated
	// to the second, as the modification time of every entry.
	CreatedAt time.Time `json:"createdAt"`
	PageCount int       `json:"pageCount"`
	// Files lists every file in the archive except the manifest, sorted by
	// path (byte order), with no duplicates. Write fills it.
	Files []File `json:"files"`
}

// FileName returns "{domain}-export-{YYYY-MM-DD}.tar.gz" for the UTC date of
// t. It never fails; domain is used as given, so the caller must pass a
// domain that is safe in a file name.
func FileName(domain string, t time.Time) string {
	return domain + "-export-" + t.UTC().Format(time.DateOnly) + ".tar.gz"
}

// Result describes an archive written by [Write]; Write returns the zero
// Result with any error.
type Result struct {
	// Size is the number of compressed bytes written.
	Size int64
	// SHA256 is the lower-case hex SHA-256 of those bytes.
	SHA256 string
	// Manifest is the manifest as written, Files included.
	Manifest Manifest
}

// Default limits used by [Read] for a zero or negative [Limits] field. They
// are generous; callers reading untrusted bundles should set their own.
const (
	DefaultMaxTotal = 4 << 30 // 4 GiB of uncompressed content
	DefaultMaxFiles = 200_000 // entries
)

// maxManifestSize bounds the manifest, which Read holds in memory.
const maxManifestSize = 64 << 20

// maxTrailer bounds the zero padding Read accepts after the end of the tar
// archive (tar writers other than Go's pad to a record size).
const maxTrailer = 1 << 20

// Limits bounds what [Read] accepts; Read refuses (with [ErrInvalid]) an
// archive over either limit as soon as a header or the manifest shows it,
// before reading the content. Read also refuses an archive whose decompressed
// tar stream is longer than MaxTotal plus 8 KiB per allowed entry plus 64 KiB,
// which bounds headers, PAX records and padding as well as content. A zero or
// negative field means the matching default ([DefaultMaxTotal],
// [DefaultMaxFiles]).
type Limits struct {
	// MaxTotal bounds the sum of the sizes of all regular files, manifest
	// included, in uncompressed bytes.
	MaxTotal int64
	// MaxFiles bounds the number of entries: manifest, files and directories.
	MaxFiles int
}

// perEntryOverhead is the room Read allows each entry, beyond its content,
// in the decompressed tar stream: a header block, padding, and PAX records
// for a long name. streamSlack adds room for the end of the archive.
const (
	perEntryOverhead = 8 << 10
	streamSlack      = 64 << 10
)

// streamBudget bounds the decompressed tar stream for l (with defaults set).
func (l Limits) streamBudget() int64 {
	if int64(l.MaxFiles) > (math.MaxInt64-streamSlack)/perEntryOverhead {
		return math.MaxInt64
	}
	n := int64(l.MaxFiles)*perEntryOverhead + streamSlack
	if l.MaxTotal > math.MaxInt64-n {
		return math.MaxInt64
	}
	return l.MaxTotal + n
}

func (l Limits) withDefaults() Limits {
	if l.MaxTotal <= 0 {
		l.MaxTotal = DefaultMaxTotal
	}
	if l.MaxFiles <= 0 {
		l.MaxFiles = DefaultMaxFiles
	}
	return l
}

// PathProblem says why name is not a clean, relative, slash-separated path
// naming something below the archive root, or returns "" if it is one.
// Write and Read share it, so whatever Write writes Read accepts; the
// update job's source snapshots (stored file by file) check their names
// with it too.
func PathProblem(name string) string {
	switch {
	case name == "":
		return "empty path"
	case strings.IndexByte(name, 0) >= 0:
		return "path contains a NUL byte"
	case strings.IndexByte(name, '\\') >= 0:
		return "path contains a backslash"
	case strings.HasPrefix(name, "/"):
		return "absolute path"
	case name == ".." || strings.HasPrefix(name, "../") ||
		strings.HasSuffix(name, "/..") || strings.Contains(name, "/../"):
		return "path escapes the archive root"
	case name == ".":
		return "path names the archive root"
	case !fs.ValidPath(name):
		return "path is not clean (empty or \".\" element, trailing slash, or invalid UTF-8)"
	}
	return ""
}

// invalidf returns an error matching ErrInvalid for the named entry (or for
// the archive as a whole if name is "").
func invalidf(name, format string, args ...any) error {
	return &verifyError{name: name, msg: fmt.Sprintf(format, args...)}
}

type verifyError struct {
	name string
	msg  string
	err  error // optional cause
}

func (e *verifyError) Error() string {
	if e.name == "" && e.msg == "" {
		return "bundle: " + e.err.Error()
	}
	s := "bundle: "
	if e.name != "" {
		s += fmt.Sprintf("entry %q: ", e.name)
	}
	s += e.msg
	if e.err != nil {
		s += ": " + e.err.Error()
	}
	return s
}

func (e *verifyError) Unwrap() error { return e.err }

func (e *verifyError) Is(target error) bool { return target == ErrInvalid }
