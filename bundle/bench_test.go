package bundle

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/fstest"
)

// benchFS generates n small HTML pages of 1 to 4 KB in 10 directories.
func benchFS(n int) (fstest.MapFS, int64) {
	fsys := fstest.MapFS{}
	var total int64
	for i := range n {
		var b strings.Builder
		fmt.Fprintf(&b, "<!doctype html><title>Page %d</title><main>", i)
		for j := 0; b.Len() < 1024+(i*37)%3072; j++ {
			fmt.Fprintf(&b, "<p>Paragraph %d of page %d: lorem ipsum dolor sit amet %x.</p>\n", j, i, i*j)
		}
		fsys[fmt.Sprintf("section-%d/page-%04d.html", i%10, i)] = &fstest.MapFile{Data: []byte(b.String())}
		total += int64(b.Len())
	}
	return fsys, total
}

func BenchmarkWrite(b *testing.B) {
	fsys, total := benchFS(1000)
	m := sampleManifest()
	b.SetBytes(total)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Write(context.Background(), io.Discard, fsys, m); err != nil {
			b.Fatal(err)
		}
	}
}
