package precompress

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
)

func TestNegotiate(t *testing.T) {
	for _, c := range []struct {
		header  string
		offered [NumEncodings]bool
		want    int
	}{
		{"", All, -1},
		{"gzip, deflate, br", All, Brotli},
		{"gzip, deflate, br", [NumEncodings]bool{false, true}, Gzip},
		{"gzip, deflate, br", [NumEncodings]bool{}, -1},
		{"gzip;q=1, br;q=0.5", All, Gzip},
		{"br;q=0, gzip", All, Gzip},
		{"br;q=0, gzip;q=0", All, -1},
		{"*", All, Brotli},
		{"*;q=0.2, gzip;q=0.5", All, Gzip},
		{"*;q=0", All, -1},
		{"x-gzip", All, Gzip},
		{"BR", All, Brotli},
		{"identity", All, -1},
		{"br;q=2, gzip;q=0.1", All, Gzip},   // a q-value out of range is ignored
		{"br;q=abc, gzip;q=0.1", All, Gzip}, // and so is a malformed one
		{"br;q=NaN", All, -1},
		{" , ;; ,,", All, -1},
	} {
		if got := Negotiate(c.header, c.offered); got != c.want {
			t.Errorf("Negotiate(%q, %v) = %d, want %d", c.header, c.offered, got, c.want)
		}
	}
}

// FuzzNegotiate: whatever the header, the answer is -1 or an encoding
// that was offered, and a header without br or gzip (nor * nor x-gzip)
// never gets one.
func FuzzNegotiate(f *testing.F) {
	for _, s := range []string{"", "gzip, br", "br;q=0.5, gzip;q=0.9", "*;q=0", "x-gzip;q=1.0", "br;q=1e309"} {
		f.Add(s, true, true)
	}
	f.Fuzz(func(t *testing.T, header string, br, gz bool) {
		offered := [NumEncodings]bool{br, gz}
		got := Negotiate(header, offered)
		if got < -1 || got >= NumEncodings || got >= 0 && !offered[got] {
			t.Fatalf("Negotiate(%q, %v) = %d", header, offered, got)
		}
		lower := strings.ToLower(header)
		if got >= 0 && !strings.Contains(lower, "br") && !strings.Contains(lower, "gzip") && !strings.Contains(lower, "*") {
			t.Fatalf("Negotiate(%q) chose %s, which the header does not name", header, Names[got])
		}
	})
}

func TestCompressRoundTrip(t *testing.T) {
	src := []byte(strings.Repeat("<p>Lectern serves docs, compressed once.</p>\n", 200))
	for enc, open := range map[int]func(io.Reader) (io.Reader, error){
		Brotli: func(r io.Reader) (io.Reader, error) { return brotli.NewReader(r), nil },
		Gzip:   func(r io.Reader) (io.Reader, error) { return gzip.NewReader(r) },
	} {
		z, ok := Compress(enc, bytes.NewReader(src), int64(len(src)))
		if !ok || len(z) >= len(src) {
			t.Fatalf("%s: %d bytes from %d, ok %v", Names[enc], len(z), len(src), ok)
		}
		r, err := open(bytes.NewReader(z))
		if err != nil {
			t.Fatal(err)
		}
		back, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(back, src) {
			t.Errorf("%s does not decode to the original: %v", Names[enc], err)
		}
	}
}
