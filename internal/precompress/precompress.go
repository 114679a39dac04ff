// Package precompress holds what Lectern's two servers of built sites
// share about compressed copies of a site's text files: which files are
// worth compressing, how (brotli and gzip, once, not per request), which
// copy a request's Accept-Encoding picks, the ETag of each copy, and,
// for live sites, where the update job stores the copies and the
// deployment's manifest in the blob store.
//
// lectern selfhost compresses a file on its first request and keeps the
// copy (selfhost/compress.go); the update job compresses every text file
// of a deployment when it publishes it (jobs/compress.go), and package
// sites serves the copies it finds in the manifest (sites/files.go).
package precompress

import (
	"bytes"
	"io"
	"strconv"
	"strings"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
)

// Content encodings, by preference: brotli is smaller, gzip what every
// client takes.
const (
	Brotli = iota
	Gzip
	NumEncodings
)

// Names are the encodings' Content-Encoding tokens.
var Names = [NumEncodings]string{Brotli: "br", Gzip: "gzip"}

// MinSize is the smallest file worth compressing; MaxSize bounds the
// files compressed (larger ones are sent as they are).
const (
	MinSize = 512
	MaxSize = 8 << 20
)

// Compressible reports whether content of type ctype (a Content-Type)
// shrinks when compressed: text, JSON, XML, SVG and JavaScript, and the
// few binary formats that do.
func Compressible(ctype string) bool {
	t, _, _ := strings.Cut(ctype, ";")
	t = strings.ToLower(strings.TrimSpace(t))
	switch {
	case strings.HasPrefix(t, "text/"), strings.HasSuffix(t, "+json"), strings.HasSuffix(t, "+xml"):
		return true
	}
	switch t {
	case "application/json", "application/xml", "application/javascript", "application/yaml", "image/svg+xml",
		"application/wasm", "image/x-icon", "font/ttf", "font/otf":
		return true
	}
	return false
}

// The levels trade a few percent of size for time, since every update
// compresses its whole site: on a 1,000-page build's 87 MB of text,
// brotli 5 and gzip 6 write 23 and 26 MB in about 4 CPU-s, where brotli 6
// and gzip 9 wrote 23 and 25 MB in about 7 (more than the render itself).
const (
	brotliLevel = 5
	gzipLevel   = 6
)

// Compress returns src (size bytes) compressed with encoding enc, and
// false when the copy would not be at least a tenth smaller (not worth a
// Content-Encoding and a Vary) or src cannot be read.
func Compress(enc int, src io.Reader, size int64) ([]byte, bool) {
	var buf bytes.Buffer
	var zw io.WriteCloser
	switch enc {
	case Brotli:
		zw = brotli.NewWriterLevel(&buf, brotliLevel)
	default:
		zw, _ = gzip.NewWriterLevel(&buf, gzipLevel)
	}
	if _, err := io.Copy(zw, src); err != nil {
		return nil, false
	}
	if zw.Close() != nil || int64(buf.Len()) > size*9/10 {
		return nil, false
	}
	return buf.Bytes(), true
}

// ETag returns the entity tag of the enc copy of a file whose tag is etag
// (quoted): each representation has its own (RFC 9110, 8.8.3), so a
// cache never answers a client with a copy it did not ask for.
func ETag(etag string, enc int) string {
	return strings.TrimSuffix(etag, `"`) + "-" + Names[enc] + `"`
}

// Negotiate returns the encoding the request's Accept-Encoding prefers
// among those offered, or -1 for the file as it is: the highest q-value
// wins, brotli on a tie; "q=0" refuses an encoding, "*" stands for those
// not named, and no header means identity (RFC 9110, 12.5.3).
func Negotiate(acceptEncoding string, offered [NumEncodings]bool) int {
	if acceptEncoding == "" {
		return -1
	}
	var q [NumEncodings]float64
	var named [NumEncodings]bool
	star := -1.0
	for part := range strings.SplitSeq(acceptEncoding, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		name = strings.ToLower(strings.TrimSpace(name))
		v := 1.0
		if s, found := strings.CutPrefix(strings.TrimSpace(params), "q="); found {
			f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil || f < 0 || f > 1 {
				continue // malformed: ignored, as if absent
			}
			v = f
		}
		if name == "*" {
			star = v
			continue
		}
		for i, n := range Names {
			if name == n || i == Gzip && name == "x-gzip" {
				q[i], named[i] = max(q[i], v), true
			}
		}
	}
	best, bestQ := -1, 0.0
	for i := range q {
		v := q[i]
		if !named[i] && star >= 0 {
			v = star
		}
		if offered[i] && v > bestQ {
			best, bestQ = i, v
		}
	}
	return best
}

// All offers every encoding to Negotiate.
var All = [NumEncodings]bool{true, true}
