package selfhost

import (
	"bytes"
	"io"
	"path"
	"strconv"
	"strings"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
)

// Content encodings a site serves, by preference.
const (
	encBrotli = iota
	encGzip
	numEncodings
)

var encodingNames = [numEncodings]string{encBrotli: "br", encGzip: "gzip"}

// maxCompressSize bounds the files compressed on demand; larger ones are
// sent as they are.
const maxCompressSize = 8 << 20

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
func negotiate(acceptEncoding string) int {
	if acceptEncoding == "" {
		return -1
	}
	var ok [numEncodings]bool
	for part := range strings.SplitSeq(acceptEncoding, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		name = strings.ToLower(strings.TrimSpace(name))
		if q, found := strings.CutPrefix(strings.TrimSpace(params), "q="); found {
			if v, err := strconv.ParseFloat(q, 64); err == nil && v == 0 {
				continue
			}
		}
		for i, n := range encodingNames {
			if name == n {
				ok[i] = true
			}
		}
	}
	for i := range ok {
		if ok[i] {
			return i
		}
	}
	return -1
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
	var buf bytes.Buffer
	var zw io.WriteCloser
	switch enc {
	case encBrotli:
		zw = brotli.NewWriterLevel(&buf, 6)
	default:
		zw, _ = gzip.NewWriterLevel(&buf, gzip.BestCompression)
	}
	if _, err := io.Copy(zw, src); err != nil {
		return nil
	}
	if zw.Close() != nil || int64(buf.Len()) > f.size*9/10 {
		return nil // not worth it
	}
	v := &variant{etag: []string{strings.TrimSuffix(f.etag[0], `"`) + "-" + encodingNames[enc] + `"`}, encoding: []string{encodingNames[enc]}}
	if f.data != nil && s.keep(int64(buf.Len())) {
		v.data, v.length = buf.Bytes(), []string{strconv.Itoa(buf.Len())}
		return v
	}
	v.name = path.Join(encodingNames[enc], f.name)
	if err := s.root.MkdirAll(path.Dir(v.name), 0o755); err != nil {
		return nil
	}
	if err := s.root.WriteFile(v.name, buf.Bytes(), 0o644); err != nil {
		return nil
	}
	return v
}
