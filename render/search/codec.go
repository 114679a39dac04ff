package search

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"sync"

	"github.com/klauspost/compress/gzip"
)

// The files of the index are scripts, so that the reader's browser loads
// them with <script> tags, which work from file:// (an export opened from
// disk) where fetch() does not: each calls LECTERN_SEARCH with its payload,
// JSON compressed with gzip and written in base64, which the browser
// inflates (inflate.js). The script does not name itself: the
// loader knows it by document.currentScript.
const (
	filePrefix = `LECTERN_SEARCH("`
	fileSuffix = "\");\n"
)

// level is the gzip level of the index's files: most of their bytes are
// the pages' text, which level 1 compresses almost as well as level 6
// (7% more bytes on the synthetic corpus) in less than half the time.
const level = 1

// encoder is a gzip writer and the buffer it writes to, kept for the
// next file (encoders).
type encoder struct {
	w   *gzip.Writer
	buf bytes.Buffer
}

var encoders = sync.Pool{New: func() any {
	e := new(encoder)
	e.w, _ = gzip.NewWriterLevel(&e.buf, level)
	return e
}}

// encodeFile returns the file of payload: gzip into a buffer, then that
// in base64 (at once: a third faster than streaming gzip into base64's
// encoder) between the file's prefix and suffix.
func encodeFile(payload []byte) []byte {
	e := encoders.Get().(*encoder)
	defer encoders.Put(e)
	e.buf.Reset()
	e.w.Reset(&e.buf)
	_, _ = e.w.Write(payload)
	_ = e.w.Close()
	z := e.buf.Bytes()
	out := make([]byte, 0, len(filePrefix)+base64.StdEncoding.EncodedLen(len(z))+len(fileSuffix))
	out = append(out, filePrefix...)
	out = base64.StdEncoding.AppendEncode(out, z)
	return append(out, fileSuffix...)
}

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
	r, err := gzip.NewReader(bytes.NewReader(z))
	if err != nil {
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
// file (its payload stored, in base64: gzip's worst).
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
