package render

import (
	"bytes"
	stdgzip "compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	kgzip "github.com/klauspost/compress/gzip"

	"lectern.dev/lectern/internal/browsertest"
	"lectern.dev/lectern/render/search"
)

// searchInflateFlow checks the browser's inflater (search.InflateJS)
// against Go's gzip writers: every block type (stored, fixed and dynamic
// Huffman codes), levels from Huffman-only to best, data past the 32 KB
// window, and headers with a name, comment and extra field; and that a
// stream cut short or with a byte changed is refused, never inflated to
// something else.
func searchInflateFlow(t *testing.T, browserCtx context.Context) {
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
	payloads := map[string][]byte{
		"empty": nil, "one": []byte("a"), "text": []byte(text.String()), "random": random,
		"run":  bytes.Repeat([]byte("x"), 100_000),
		"json": []byte(`{"p":"a.mdx","u":"a.html","t":"Ünïcödé ✓ 𝒜","s":[["","","text"]]}`),
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
		for _, level := range []int{stdgzip.HuffmanOnly, stdgzip.NoCompression, 1, 6, 9} {
			var b bytes.Buffer
			w, _ := stdgzip.NewWriterLevel(&b, level)
			if level == 9 {
				w.Header = stdgzip.Header{Name: "name.json", Comment: "a comment", Extra: []byte("extra")}
			}
			w.Write(raw)
			w.Close()
			add(fmt.Sprintf("%s/std%d", pname, level), b.Bytes(), raw)
			b.Reset()
			kw, _ := kgzip.NewWriterLevel(&b, level)
			kw.Write(raw)
			kw.Close()
			add(fmt.Sprintf("%s/klauspost%d", pname, level), b.Bytes(), raw)
		}
	}
	// Damaged: a JSON payload's stream cut at every length, and with each
	// byte past the header's time changed.
	var b bytes.Buffer
	w, _ := kgzip.NewWriterLevel(&b, 1)
	w.Write(payloads["json"])
	w.Close()
	z := b.Bytes()
	for i := 0; i < len(z); i++ {
		name := fmt.Sprintf("cut/%d", i)
		add(name, z[:i], nil)
		damaged[name] = true
	}
	for i := 8; i < len(z); i++ {
		d := bytes.Clone(z)
		d[i] ^= 0x5a
		name := fmt.Sprintf("changed/%d", i)
		add(name, d, nil)
		damaged[name] = true
	}

	dir := t.TempDir()
	page := "<!doctype html><meta charset=utf-8><title>inflate</title><link rel=icon href=data:,><script src=inflate.js></script>"
	if err := os.WriteFile(filepath.Join(dir, "index.html"), []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "inflate.js"), []byte(search.InflateJS), 0o644); err != nil {
		t.Fatal(err)
	}
	base := serveSite(t, dir)
	tab := browsertest.NewTab(t, browserCtx, browsertest.Options{Origins: []string{base}})
	if !tab.Open(base + "/") {
		return
	}
	in, _ := json.Marshal(inputs)
	got, ok := tab.Eval("inflate", `(function (inputs) {
  const out = {};
  for (const x of inputs) {
    const bin = atob(x.B64), bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    try {
      const r = lecternInflate(bytes);
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
				t.Errorf("%s: the browser inflated it to %.80s…, want the %d bytes written", x.Name, r, len(raw))
			}
			continue
		}
		// Damaged: refused, or (a changed byte of the header's flags, time
		// or OS that means nothing here) the original.
		if r != "ok "+base64.StdEncoding.EncodeToString(payloads["json"]) && !strings.HasPrefix(r, "error inflate: ") {
			t.Errorf("%s: the browser inflated a damaged stream to %.80s…", x.Name, r)
		}
	}
	tab.Check("inflate")
}
