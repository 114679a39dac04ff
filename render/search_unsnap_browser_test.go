package render

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/s2"

	"lectern.dev/lectern/internal/browsertest"
	"lectern.dev/lectern/render/search"
)

// searchUnsnapFlow checks the browser's decompressor (search.UnsnapJS)
// against the Snappy framed streams of Go's s2 writer: compressed and
// uncompressed chunks, literals of every length encoding, copies that
// overlap what they copy, chunks of 4 KB to 64 KB, padding, and streams
// one after another; and that a stream cut short or with a byte changed
// is refused, never decompressed to other data. (A stream cut at a
// chunk's end is a shorter stream: the format has no end mark. The
// index's payloads are JSON, which such a prefix is not.)
func searchUnsnapFlow(t *testing.T, browserCtx context.Context) {
	rng := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 70_000)
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	var text strings.Builder
	words := strings.Fields("the search index holds every word of every page deploy retry timeout pipeline quokka")
	for text.Len() < 150_000 {
		text.WriteString(words[rng.IntN(len(words))])
		text.WriteByte(" \n,."[rng.IntN(4)])
	}
	// Literals of 1 to 70,000 bytes between repeats: each of the length
	// encodings (in the tag, and in 1 to 3 more bytes).
	var mixed []byte
	for _, n := range []int{1, 59, 60, 61, 255, 256, 257, 65_000} {
		mixed = append(mixed, random[:n]...)
		mixed = append(mixed, text.String()[:200]...)
	}
	payloads := map[string][]byte{
		"empty": nil, "one": []byte("a"), "text": []byte(text.String()), "random": random, "mixed": mixed,
		"run":  bytes.Repeat([]byte("x"), 100_000),
		"json": []byte(`{"p":"a.mdx","u":"a.html","t":"Ünïcödé ✓ 𝒜","s":[["","","text"]]}`),
	}
	writers := map[string][]s2.WriterOption{
		"default":      nil,
		"4k":           {s2.WriterBlockSize(4 << 10)},
		"better":       {s2.WriterBetterCompression()},
		"best":         {s2.WriterBestCompression()},
		"uncompressed": {s2.WriterUncompressed()},
		"padded":       {s2.WriterPadding(1000), s2.WriterPaddingSrc(rand.NewChaCha8([32]byte{1}))},
	}
	encode := func(raw []byte, opts []s2.WriterOption) []byte {
		var b bytes.Buffer
		w := s2.NewWriter(&b, append([]s2.WriterOption{s2.WriterSnappyCompat(), s2.WriterConcurrency(1)}, opts...)...)
		if _, err := w.Write(raw); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if b.Len() == 0 { // as the index's files (encodeFile): the identifier, with no chunk
			b.WriteString("\xff\x06\x00\x00sNaPpY")
		}
		return b.Bytes()
	}
	type input struct{ Name, B64 string }
	var inputs []input
	want := map[string][]byte{}
	damaged := map[string]bool{}
	add := func(name string, z, raw []byte) {
		inputs = append(inputs, input{name, base64.StdEncoding.EncodeToString(z)})
		want[name] = raw
	}
	for pname, raw := range payloads {
		for wname, opts := range writers {
			add(pname+"/"+wname, encode(raw, opts), raw)
		}
	}
	two := append(encode(payloads["json"], nil), encode(payloads["text"], nil)...)
	add("two streams", two, append(bytes.Clone(payloads["json"]), payloads["text"]...))
	// Damaged: a stream of three chunks cut at every length, and with
	// each byte past the stream's identifier changed.
	short := payloads["text"][:10_000]
	z := encode(short, writers["4k"])
	chunkEnd := map[int]bool{}
	for at := 10; at < len(z); {
		at += 4 + int(z[at+1]) | int(z[at+2])<<8 | int(z[at+3])<<16
		chunkEnd[at] = true
	}
	for i := 0; i < len(z); i++ {
		name := fmt.Sprintf("cut/%d", i)
		add(name, z[:i], nil)
		damaged[name] = true
	}
	for i := 10; i < len(z); i++ {
		d := bytes.Clone(z)
		d[i] ^= 0x5a
		name := fmt.Sprintf("changed/%d", i)
		add(name, d, nil)
		damaged[name] = true
	}

	dir := t.TempDir()
	page := "<!doctype html><meta charset=utf-8><title>unsnap</title><link rel=icon href=data:,><script src=unsnap.js></script>"
	if err := os.WriteFile(filepath.Join(dir, "index.html"), []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "unsnap.js"), []byte(search.UnsnapJS), 0o644); err != nil {
		t.Fatal(err)
	}
	base := serveSite(t, dir)
	tab := browsertest.NewTab(t, browserCtx, browsertest.Options{Origins: []string{base}})
	if !tab.Open(base + "/") {
		return
	}
	in, _ := json.Marshal(inputs)
	got, ok := tab.Eval("unsnap", `(function (inputs) {
  const out = {};
  for (const x of inputs) {
    const bin = atob(x.B64), bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    try {
      const r = lecternUnsnap(bytes);
      let s = "";
      for (let i = 0; i < r.length; i += 8192) s += String.fromCharCode.apply(null, r.subarray(i, i + 8192));
      out[x.Name] = "ok " + btoa(s);
    } catch (e) {
      out[x.Name] = "error " + e.message;
    }
  }
  return JSON.stringify(out);
})(`+string(in)+`)`)
	if !ok {
		return
	}
	var res map[string]string
	if err := json.Unmarshal([]byte(got), &res); err != nil {
		t.Fatal(err)
	}
	for _, x := range inputs {
		r := res[x.Name]
		if !damaged[x.Name] {
			if raw := want[x.Name]; r != "ok "+base64.StdEncoding.EncodeToString(raw) {
				t.Errorf("%s: the browser decompressed it to %.80s…, want the %d bytes written", x.Name, r, len(raw))
			}
			continue
		}
		// Refused, or the data written: a copy's offset changed to
		// another place of the same bytes (the text repeats its words).
		if strings.HasPrefix(r, "error unsnap: ") || r == "ok "+base64.StdEncoding.EncodeToString(short) {
			continue
		}
		// A cut at a chunk's end: the chunks before it, whole.
		var cut int
		if _, err := fmt.Sscanf(x.Name, "cut/%d", &cut); err == nil && (cut == 10 || chunkEnd[cut]) {
			if out, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(r, "ok ")); err == nil && bytes.HasPrefix(short, out) {
				continue
			}
		}
		t.Errorf("%s: the browser decompressed a damaged stream to %.80s…", x.Name, r)
	}
	tab.Check("unsnap")
}
