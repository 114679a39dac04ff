package search

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
)

// TestFileCodec: an index file is a Snappy framed stream in base64 that
// reads back, past one chunk of 64 KB too; a file with a byte of its
// stream changed is refused or reads as written, never as other data;
// and a file of an index written before Snappy (gzip) still reads, for
// the deployments built then.
func TestFileCodec(t *testing.T) {
	long := []byte(strings.Repeat(`["deploy","the retry timeout of a pipeline"],`, 4000)) // 180 KB: three chunks
	for _, payload := range [][]byte{nil, []byte(`{"v":2}`), long} {
		file := encodeFile(payload)
		if !bytes.HasPrefix(file, []byte(filePrefix+base64.StdEncoding.EncodeToString(snappyMagic)[:12])) {
			t.Fatalf("file %.40q does not start with the Snappy stream's identifier", file)
		}
		got, err := decodeFile(file)
		if err != nil || !bytes.Equal(got, payload) {
			t.Fatalf("round trip of %d bytes: %d bytes, %v", len(payload), len(got), err)
		}
	}
	z, _ := base64.StdEncoding.DecodeString(strings.TrimSuffix(strings.TrimPrefix(string(encodeFile(long[:5000])), filePrefix), fileSuffix))
	for i := len(snappyMagic); i < len(z); i++ {
		d := bytes.Clone(z)
		d[i] ^= 0x5a
		got, err := decodeFile([]byte(filePrefix + base64.StdEncoding.EncodeToString(d) + fileSuffix))
		if err == nil && !bytes.Equal(got, long[:5000]) {
			t.Fatalf("byte %d changed: read as %.40q", i, got)
		}
	}
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write(long)
	w.Close()
	if got, err := decodeFile([]byte(filePrefix + base64.StdEncoding.EncodeToString(b.Bytes()) + fileSuffix)); err != nil || !bytes.Equal(got, long) {
		t.Fatalf("a gzip file reads as %d bytes, %v", len(got), err)
	}
	if _, err := decodeFile([]byte(filePrefix + base64.StdEncoding.EncodeToString([]byte("sNaPpY but not")) + fileSuffix)); err == nil {
		t.Fatal("a file that is neither Snappy nor gzip reads")
	}
}
