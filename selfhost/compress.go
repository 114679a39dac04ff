package selfhost

import (
	"bytes"
	"io"
	"path"
	"strconv"

	"lectern.dev/lectern/internal/precompress"
)

// Content encodings a site serves, by preference (package precompress).
const (
	encBrotli    = precompress.Brotli
	encGzip      = precompress.Gzip
	numEncodings = precompress.NumEncodings
)

// maxCompressSize bounds the files compressed on demand; larger ones are
// sent as they are.
const maxCompressSize = precompress.MaxSize

// variant is a compressed copy of a site file, in memory or in the
// site's folder.
type variant struct {
	name     string   // path below the site folder: "br/guides/x.html"
	data     []byte   // the content, when kept in memory
	length   []string // Content-Length of data, when kept
	etag     []string
	encoding []string
}

// negotiate returns the preferred encoding the request accepts, or -1.
// Copies are made on demand, so every encoding is offered.
func negotiate(acceptEncoding string) int {
	return precompress.Negotiate(acceptEncoding, precompress.All)
}

// variant returns f compressed with encoding enc, making it on first use,
// or nil when f is not worth compressing or compression failed (the file is
// then served as it is).
func (s *Site) variant(f *siteFile, enc int) *variant {
	if !f.compress || f.size > maxCompressSize {
		return nil
	}
	f.once[enc].Do(func() {
		if v := s.makeVariant(f, enc); v != nil {
			f.variants[enc].Store(v)
		}
	})
	return f.variants[enc].Load()
}

func (s *Site) makeVariant(f *siteFile, enc int) *variant {
	var src io.Reader = bytes.NewReader(f.data)
	if f.data == nil {
		fh, err := s.root.Open(f.file)
		if err != nil {
			return nil
		}
		defer fh.Close()
		src = fh
	}
	data, ok := precompress.Compress(enc, src, f.size)
	if !ok {
		return nil // not worth it, or unreadable
	}
	v := &variant{etag: []string{precompress.ETag(f.etag[0], enc)}, encoding: []string{precompress.Names[enc]}}
	if f.data != nil && s.keep(int64(len(data))) {
		v.data, v.length = data, []string{strconv.Itoa(len(data))}
		return v
	}
	v.name = path.Join(precompress.Names[enc], f.name)
	if err := s.root.MkdirAll(path.Dir(v.name), 0o755); err != nil {
		return nil
	}
	if err := s.root.WriteFile(v.name, data, 0o644); err != nil {
		return nil
	}
	return v
}
