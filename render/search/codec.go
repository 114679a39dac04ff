package search

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/s2"
	asmbase64 "github.com/segmentio/asm/base64"
)

// The files of the index are scripts, so that the reader's browser loads
// them with <script> tags, which work from file:// (an export opened from
// disk) where fetch() does not: each calls LECTERN_SEARCH with its payload,
// JSON compressed as a Snappy framed stream and written in base64, which
// the browser decompresses (unsnap.js). The script does not name itself:
// the loader knows it by document.currentScript.
const (
	filePrefix = `LECTERN_SEARCH("`
	fileSuffix = "\");\n"
)

// Snappy rather than gzip: most of the index's bytes are the pages' text,
// which Snappy (LZ77 alone, without gzip's Huffman codes) compresses in
// about half the time gzip's fastest level takes, to a third more bytes
// (0.44 of the text against 0.33 on the synthetic corpus); it was a fifth
// of what search added to a build. The framed format checks each chunk
// of 64 KB with a CRC-32C, as gzip checked a file with its CRC-32.
var snappyMagic, gzipMagic = []byte("\xff\x06\x00\x00sNaPpY"), []byte{0x1f, 0x8b}

// encoder is a Snappy framed writer and the buffer it writes to, kept
// for the next file (encoders).
type encoder struct {
	w   *s2.Writer
	buf bytes.Buffer
}

var encoders = sync.Pool{New: func() any {
	e := new(encoder)
	e.w = s2.NewWriter(&e.buf, s2.WriterSnappyCompat(), s2.WriterConcurrency(1))
	return e
}}

// encodeFile returns the file of payload: compressed into a buffer, then
// that in base64 (at once: faster than streaming into base64's encoder)
// between the file's prefix and suffix.
func encodeFile(payload []byte) []byte {
	e := encoders.Get().(*encoder)
	defer encoders.Put(e)
	e.buf.Reset()
	e.w.Reset(&e.buf)
	_, _ = e.w.Write(payload)
	_ = e.w.Close()
	if e.buf.Len() == 0 {
		e.buf.Write(snappyMagic) // (the writer writes none for no data)
	}
	z := e.buf.Bytes()
	out := make([]byte, len(filePrefix)+b64.EncodedLen(len(z))+len(fileSuffix))
	copy(out, filePrefix)
	b64.Encode(out[len(filePrefix):], z)
	copy(out[len(out)-len(fileSuffix):], fileSuffix)
	return out
}

// b64 is base64 as RFC 4648 writes it, with AVX2 where the processor has
// it: encoding/base64's loop took half as long as compressing.
var b64 = asmbase64.StdEncoding

// errFile says a file is not one of the index's.
var errFile = errors.New("search: not a search index file")

// decodeFile returns the payload of a file of the index.
func decodeFile(data []byte) ([]byte, error) {
	if len(data) < len(filePrefix)+len(fileSuffix) || !bytes.HasPrefix(data, []byte(filePrefix)) || !bytes.HasSuffix(data, []byte(fileSuffix)) {
		return nil, errFile
	}
	if len(data) > maxFile {
		return nil, errFile // not decoded whole to find out
	}
	z, err := base64.StdEncoding.AppendDecode(nil, data[len(filePrefix):len(data)-len(fileSuffix)])
	if err != nil {
		return nil, errFile
	}
	var r io.Reader
	switch {
	case bytes.HasPrefix(z, snappyMagic):
		r = s2.NewReader(bytes.NewReader(z), s2.ReaderMaxBlockSize(64<<10))
	case bytes.HasPrefix(z, gzipMagic):
		// The index of a deployment built before Snappy, which the
		// server still reads (Open); a rebuild never keeps such files
		// beside Snappy ones, since search.js, whose hash is in the
		// rebuild cache's key, changed with them.
		if r, err = gzip.NewReader(bytes.NewReader(z)); err != nil {
			return nil, errFile
		}
	default:
		return nil, errFile
	}
	// The index is the build's own output; still, a payload is at most
	// a bounded size, so that a damaged file cannot exhaust memory.
	out, err := io.ReadAll(io.LimitReader(r, maxPayload+1))
	if err != nil || len(out) > maxPayload {
		return nil, errFile
	}
	return out, nil
}

// maxPayload bounds a file's payload when it is read, and maxFile the
// file (its payload stored, in base64: Snappy's worst).
const (
	maxPayload = 256 << 20
	maxFile    = (maxPayload+maxPayload/64)/3*4 + 64
)

// MaxFile is the largest index file Open reads: a reader that hands it
// the files can stop there.
const MaxFile = maxFile

// Fragments are the fragments of the pages of one fragment file
// (FragmentFile): that of id in slot id%FragmentGroup, nil for no page.
type Fragments [FragmentGroup][]byte

// EncodeFragments returns the fragment file of fs: their payload is a
// JSON array of the fragments, null for none, without the nulls at its
// end.
func EncodeFragments(fs *Fragments) []byte {
	n := len(fs)
	for n > 0 && fs[n-1] == nil {
		n--
	}
	size := 2
	for _, f := range fs[:n] {
		size += len(f) + 5
	}
	payload := make([]byte, 0, size)
	payload = append(payload, '[')
	for i, f := range fs[:n] {
		if i > 0 {
			payload = append(payload, ',')
		}
		if f == nil {
			payload = append(payload, "null"...)
		} else {
			payload = append(payload, f...)
		}
	}
	return encodeFile(append(payload, ']'))
}

// DecodeFragments returns the fragments of a fragment file, as
// EncodeFragments was given them (a rebuild's, to write the file again
// with some of them changed).
func DecodeFragments(data []byte) (*Fragments, error) {
	payload, err := decodeFile(data)
	if err != nil {
		return nil, err
	}
	return splitFragments(payload)
}

// splitFragments reads the payload of a fragment file: at most
// FragmentGroup values, read one at a time (a damaged file of many small
// values is not made a list first).
func splitFragments(payload []byte) (*Fragments, error) {
	d := json.NewDecoder(bytes.NewReader(payload))
	if t, err := d.Token(); err != nil || t != json.Delim('[') {
		return nil, errFile
	}
	var fs Fragments
	for i := 0; d.More(); i++ {
		var f json.RawMessage
		if i == FragmentGroup || d.Decode(&f) != nil {
			return nil, errFile
		}
		if string(f) != "null" {
			fs[i] = f
		}
	}
	if t, err := d.Token(); err != nil || t != json.Delim(']') {
		return nil, errFile
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, errFile
	}
	return &fs, nil
}
