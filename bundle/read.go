package bundle

import (
	"archive/tar"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"path"
	"strings"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/gzip"
)

// Read reads and verifies a bundle from r and returns its manifest.
//
// Read checks, as the archive streams past: gzip and tar integrity (CRC,
// truncation, trailing data other than zero padding); that the first entry is
// [ManifestName], a regular file holding a valid manifest whose file list is
// sorted, unique, made of clean paths, with sizes and lower-case hex SHA-256
// sums; that every entry name is a clean relative path (no absolute path, no
// "..", no backslash, no NUL); that entries are only regular files and
// directories (symlinks, hard links, devices, FIFOs and sparse files are
// refused); that no name appears twice or is both a file and a directory;
// that every regular file is listed in the manifest with its size and SHA-256
// and that no listed file is missing; and the limits lim (see [Limits]; a
// header claiming a size over MaxTotal is refused before its content is read).
// Entry modes, times and owners are not checked.
//
// For each listed regular file, in archive order, Read calls fn (if fn is
// not nil) with the file's path (as listed, never unclean) and a reader of its
// content, valid only during the call. The reader verifies as it goes: at the
// end of the content it returns the verification error instead of io.EOF if
// the size or checksum is wrong. Read drains whatever fn left unread and
// verifies the whole file before going on, so every file fn saw has been
// fully checked when Read returns nil. fn is not called for the manifest or
// for directories. Since a later entry can still fail, a caller that stores
// what fn sees must discard it when Read returns an error.
//
// Read returns the zero Manifest and an error on the first problem found.
// Errors about the archive itself are sentences naming the entry, such as
// `bundle: entry "../x": path escapes the archive root`, and match
// [ErrInvalid]. An error from r is wrapped as "bundle: reading archive: ..."
// and an error returned by fn as `bundle: entry "name": ...`; neither matches
// ErrInvalid, both keep their cause for errors.Is.
func Read(r io.Reader, lim Limits, fn func(path string, r io.Reader) error) (Manifest, error) {
	rd := &reader{lim: lim.withDefaults(), src: &srcReader{r: r}, fn: fn}
	m, err := rd.read()
	if err != nil {
		return Manifest{}, err
	}
	return m, nil
}

// reader holds the state of one Read.
type reader struct {
	lim    Limits
	src    *srcReader
	fn     func(string, io.Reader) error
	stream *budgetReader // the decompressed tar stream
	tr     *tar.Reader
	files  map[string]File // manifest entries by path
	seen   map[string]bool // entry names read so far (directories without "/")
	last   string          // raw name of the last entry read, for messages
	total  int64           // regular file bytes admitted so far
	count  int             // entries read so far
}

func (rd *reader) read() (Manifest, error) {
	zr, err := gzip.NewReader(rd.src)
	if err != nil {
		if rd.fromSource(err) {
			return Manifest{}, fmt.Errorf("bundle: reading archive: %w", err)
		}
		return Manifest{}, &verifyError{msg: "not a gzip stream", err: err}
	}
	defer zr.Close()
	rd.stream = &budgetReader{r: zr, left: rd.lim.streamBudget()}
	rd.tr = tar.NewReader(rd.stream)

	m, err := rd.readManifest()
	if err != nil {
		return Manifest{}, err
	}
	for {
		hdr, err := rd.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return Manifest{}, err
		}
		if err := rd.entry(hdr); err != nil {
			return Manifest{}, err
		}
	}
	if err := rd.trailer(); err != nil {
		return Manifest{}, err
	}
	var missing []string
	for _, f := range m.Files {
		if !rd.seen[f.Path] {
			missing = append(missing, f.Path)
		}
	}
	switch len(missing) {
	case 0:
		return m, nil
	case 1:
		return Manifest{}, invalidf(missing[0], "listed in the manifest but missing from the archive")
	default:
		return Manifest{}, invalidf(missing[0], "listed in the manifest but missing from the archive (and %d more missing)", len(missing)-1)
	}
}

// next returns the next tar header, io.EOF at the end of the archive, or an
// error.
func (rd *reader) next() (*tar.Header, error) {
	hdr, err := rd.tr.Next()
	if errors.Is(err, tar.ErrInsecurePath) && hdr != nil {
		err = nil // GODEBUG=tarinsecurepath=0; entry checks paths anyway.
	}
	if err == io.EOF {
		return nil, io.EOF
	}
	if err != nil {
		return nil, rd.streamErr(err, "", rd.last)
	}
	rd.last = hdr.Name
	rd.count++
	if rd.count > rd.lim.MaxFiles {
		return nil, invalidf(hdr.Name, "archive has more than %d entries, over the limit", rd.lim.MaxFiles)
	}
	return hdr, nil
}

func (rd *reader) readManifest() (Manifest, error) {
	hdr, err := rd.next()
	if err == io.EOF {
		return Manifest{}, invalidf("", "manifest missing: the archive has no entries")
	}
	if err != nil {
		return Manifest{}, err
	}
	if hdr.Name != ManifestName {
		return Manifest{}, invalidf(hdr.Name, "manifest missing: the first entry must be %q", ManifestName)
	}
	if hdr.Typeflag != tar.TypeReg {
		return Manifest{}, invalidf(hdr.Name, "manifest is not a regular file")
	}
	if limit := min(rd.lim.MaxTotal, maxManifestSize); hdr.Size > limit {
		return Manifest{}, invalidf(hdr.Name, "manifest header claims %d bytes, over the limit of %d", hdr.Size, limit)
	}
	rd.total += hdr.Size
	data, err := io.ReadAll(rd.tr)
	if err != nil {
		return Manifest{}, rd.streamErr(err, hdr.Name, "")
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return Manifest{}, invalidf(hdr.Name, "manifest is not valid JSON: %v", err)
	}
	if err := rd.checkManifest(m); err != nil {
		return Manifest{}, err
	}
	rd.seen = map[string]bool{ManifestName: true}
	return m, nil
}

// checkManifest validates the file list of m and indexes it.
func (rd *reader) checkManifest(m Manifest) error {
	if m.Files == nil {
		return invalidf(ManifestName, "manifest has no \"files\" list")
	}
	if len(m.Files) >= rd.lim.MaxFiles {
		return invalidf(ManifestName, "manifest lists %d files, over the limit of %d entries", len(m.Files), rd.lim.MaxFiles)
	}
	rd.files = make(map[string]File, len(m.Files))
	budget := rd.lim.MaxTotal - rd.total
	for i, f := range m.Files {
		if msg := PathProblem(f.Path); msg != "" {
			return invalidf(ManifestName, "manifest lists %q: %s", f.Path, msg)
		}
		if f.Path == ManifestName {
			return invalidf(ManifestName, "manifest lists itself")
		}
		if i > 0 && f.Path <= m.Files[i-1].Path {
			return invalidf(ManifestName, "manifest lists %q after %q: files must be sorted by path, without duplicates", f.Path, m.Files[i-1].Path)
		}
		if f.Size < 0 {
			return invalidf(ManifestName, "manifest lists %q with negative size %d", f.Path, f.Size)
		}
		if !isSHA256(f.SHA256) {
			return invalidf(ManifestName, "manifest lists %q with sha256 %q, want 64 lower-case hex digits", f.Path, f.SHA256)
		}
		if f.Size > budget {
			return invalidf(ManifestName, "manifest lists more than %d bytes of files, over the limit", rd.lim.MaxTotal)
		}
		budget -= f.Size
		rd.files[f.Path] = f
	}
	for _, f := range m.Files {
		if p := rd.fileAncestor(f.Path); p != "" {
			return invalidf(ManifestName, "manifest lists %q both as a file and as a directory of %q", p, f.Path)
		}
	}
	return nil
}

// fileAncestor returns the first parent directory of name that is a file
// (listed, or the manifest), or "".
func (rd *reader) fileAncestor(name string) string {
	for d := path.Dir(name); d != "."; d = path.Dir(d) {
		if _, ok := rd.files[d]; ok || d == ManifestName {
			return d
		}
	}
	return ""
}

func isSHA256(s string) bool {
	if len(s) != 2*sha256.Size {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// entry checks one entry after the manifest and verifies its content.
func (rd *reader) entry(hdr *tar.Header) error {
	raw, name := hdr.Name, hdr.Name
	if hdr.Typeflag == tar.TypeDir {
		name = strings.TrimSuffix(name, "/")
	}
	if msg := PathProblem(name); msg != "" {
		return invalidf(raw, "%s", msg)
	}
	switch hdr.Typeflag {
	case tar.TypeReg, tar.TypeDir:
	case tar.TypeSymlink:
		return invalidf(raw, "symbolic link (to %q) not allowed: only regular files and directories are", hdr.Linkname)
	case tar.TypeLink:
		return invalidf(raw, "hard link (to %q) not allowed: only regular files and directories are", hdr.Linkname)
	case tar.TypeChar, tar.TypeBlock:
		return invalidf(raw, "device file not allowed: only regular files and directories are")
	case tar.TypeFifo:
		return invalidf(raw, "named pipe (FIFO) not allowed: only regular files and directories are")
	default:
		return invalidf(raw, "entry type %q not allowed: only regular files and directories are", hdr.Typeflag)
	}
	for k := range hdr.PAXRecords {
		if strings.HasPrefix(k, "GNU.sparse.") {
			return invalidf(raw, "sparse file not allowed")
		}
	}
	if rd.seen[name] {
		return invalidf(raw, "duplicate entry: the name appears more than once")
	}
	if p := rd.fileAncestor(name); p != "" {
		return invalidf(raw, "entry is inside %q, which is a file", p)
	}
	if hdr.Typeflag == tar.TypeDir {
		if _, ok := rd.files[name]; ok {
			return invalidf(raw, "directory entry, but the manifest lists a file of that name")
		}
		if hdr.Size != 0 {
			return invalidf(raw, "directory entry with %d bytes of content", hdr.Size)
		}
		rd.seen[name] = true
		return nil
	}
	if hdr.Size > rd.lim.MaxTotal-rd.total {
		return invalidf(raw, "header claims %d bytes, over the limit of %d bytes of content (%d already used)", hdr.Size, rd.lim.MaxTotal, rd.total)
	}
	want, ok := rd.files[name]
	if !ok {
		return invalidf(raw, "file not listed in the manifest")
	}
	if hdr.Size != want.Size {
		return invalidf(raw, "size %d does not match the manifest's %d", hdr.Size, want.Size)
	}
	rd.seen[name] = true
	rd.total += hdr.Size
	return rd.content(raw, want)
}

// content verifies the current entry's content, showing it to fn.
func (rd *reader) content(raw string, want File) error {
	fr := &fileReader{rd: rd, raw: raw, want: want, h: sha256.New()}
	if rd.fn != nil {
		if err := rd.fn(want.Path, fr); err != nil {
			if fr.err != nil && fr.err != io.EOF {
				return fr.err // fn failed because the content did
			}
			return fmt.Errorf("bundle: entry %q: %w", raw, err)
		}
	}
	if _, err := io.Copy(io.Discard, fr); err != nil {
		return err
	}
	return nil
}

// fileReader reads one entry's content and verifies it at its end.
type fileReader struct {
	rd   *reader
	raw  string
	want File
	h    hash.Hash
	n    int64
	err  error // sticky: io.EOF once verified, else the failure
}

func (f *fileReader) Read(p []byte) (int, error) {
	if f.err != nil {
		return 0, f.err
	}
	n, err := f.rd.tr.Read(p)
	f.h.Write(p[:n])
	f.n += int64(n)
	switch {
	case err == io.EOF:
		err = f.verify()
	case err != nil:
		err = f.rd.streamErr(err, f.raw, "")
	}
	f.err = err
	return n, err
}

func (f *fileReader) verify() error {
	if f.n != f.want.Size {
		return invalidf(f.raw, "content has %d bytes, the manifest says %d", f.n, f.want.Size)
	}
	if sum := hex.EncodeToString(f.h.Sum(nil)); sum != f.want.SHA256 {
		return invalidf(f.raw, "sha256 mismatch: the manifest says %s, the content has %s", f.want.SHA256, sum)
	}
	return io.EOF
}

// trailer reads the rest of the gzip stream after the end of the tar
// archive, which verifies the gzip checksum, and accepts only zero padding.
func (rd *reader) trailer() error {
	buf := make([]byte, 16<<10)
	var n int
	for {
		k, err := rd.stream.Read(buf)
		for _, b := range buf[:k] {
			if b != 0 {
				return invalidf("", "data after the end of the tar archive")
			}
		}
		if n += k; n > maxTrailer {
			return invalidf("", "more than %d bytes of padding after the end of the tar archive", maxTrailer)
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return rd.streamErr(err, "", rd.last)
		}
	}
}

// streamErr describes an error of the gzip or tar layer met while reading
// entry name's content, or while reading the header after entry after.
func (rd *reader) streamErr(err error, name, after string) error {
	if ve := (*verifyError)(nil); errors.As(err, &ve) {
		return err // from budgetReader
	}
	if rd.fromSource(err) {
		if name != "" {
			return fmt.Errorf("bundle: entry %q: reading archive: %w", name, err)
		}
		return fmt.Errorf("bundle: reading archive: %w", err)
	}
	var msg string
	var corrupt flate.CorruptInputError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		msg = "archive truncated"
	case errors.Is(err, gzip.ErrChecksum):
		msg = "archive corrupt: gzip checksum mismatch"
	case errors.Is(err, gzip.ErrHeader):
		msg = "archive corrupt: invalid gzip member header"
	case errors.As(err, &corrupt):
		msg = "archive corrupt: invalid compressed data"
	case errors.Is(err, tar.ErrHeader):
		msg = "archive corrupt: invalid tar header"
	default:
		msg = "archive corrupt"
	}
	if name == "" && after != "" {
		msg += fmt.Sprintf(" after entry %q", after)
	}
	return &verifyError{name: name, msg: msg, err: err}
}

// budgetReader fails once more than left bytes have been read through it.
// It bounds the decompressed tar stream, so that a small archive cannot make
// Read inflate without end: file content is bounded by Limits.MaxTotal, but
// tar headers, PAX records and padding would not be.
type budgetReader struct {
	r    io.Reader
	left int64
}

func (b *budgetReader) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, invalidf("", "archive decompresses to more tar data than its limits allow (content limit plus %d bytes per entry for headers)", perEntryOverhead)
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	return n, err
}

// fromSource reports whether err is the error the caller's reader returned.
func (rd *reader) fromSource(err error) bool {
	return rd.src.err != nil && errors.Is(err, rd.src.err)
}

// srcReader remembers the first error, other than io.EOF, of the caller's
// reader, so that it is not mistaken for a bad archive.
type srcReader struct {
	r   io.Reader
	err error
}

func (s *srcReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err != nil && err != io.EOF && s.err == nil {
		s.err = err
	}
	return n, err
}
