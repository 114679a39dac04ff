package bundle_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"testing/fstest"
	"time"

	"lectern.dev/lectern/bundle"
)

func ExampleFileName() {
	// 23:30 in New York on March 14 is already March 15 in UTC.
	t := time.Date(2025, 3, 14, 23, 30, 0, 0, time.FixedZone("EDT", -4*3600))
	fmt.Println(bundle.FileName("docs.example.com", t))
	// Output: docs.example.com-export-2025-03-15.tar.gz
}

func ExampleRead() {
	site := fstest.MapFS{
		"index.html":       {Data: []byte("<h1>Docs</h1>")},
		"guide/start.html": {Data: []byte("<h1>Start</h1>")},
	}
	var buf bytes.Buffer
	_, err := bundle.Write(context.Background(), &buf, site, bundle.Manifest{
		Version: "1", JobID: "job_1", Domain: "docs.example.com", PageCount: 2,
		CreatedAt: time.Date(2025, 3, 14, 9, 0, 0, 0, time.UTC),
	})
	if err != nil {
		panic(err)
	}
	m, err := bundle.Read(&buf, bundle.Limits{MaxTotal: 1 << 20, MaxFiles: 100}, func(path string, r io.Reader) error {
		b, err := io.ReadAll(r)
		fmt.Printf("%s: %s\n", path, b)
		return err
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(m.Domain, m.CreatedAt.Format(time.RFC3339), len(m.Files), "files")
	// Output:
	// guide/start.html: <h1>Start</h1>
	// index.html: <h1>Docs</h1>
	// docs.example.com 2025-03-14T09:00:00Z 2 files
}
