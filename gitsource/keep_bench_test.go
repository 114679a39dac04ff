package gitsource

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// bigRepo makes a repository whose main branch holds n small files in
// folders of 100.
func bigRepo(b *testing.B, n int) string {
	b.Helper()
	repo := filepath.Join(b.TempDir(), "big")
	for i := 0; i < n; i++ {
		writeFile(b, filepath.Join(repo, fmt.Sprintf("d%03d", i/100), fmt.Sprintf("page%03d.md", i%100)),
			fmt.Sprintf("# Page %d\n\nSome text of page %d.\n", i, i))
	}
	git(b, repo, "init", "-q", "-b", "main")
	commitAll(b, repo, "Many pages")
	return repo
}

// BenchmarkFetchInto compares, on a repository of 10,000 small files, a
// fresh Fetch (what an update did before FetchInto) with FetchInto of a
// one-file change into the clone kept from the previous update:
//
//	go test ./gitsource -run '^$' -bench FetchInto -benchtime 10x
func BenchmarkFetchInto(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git is not installed")
	}
	const files = 10000
	repo := bigRepo(b, files)
	ctx := context.Background()
	b.Run(fmt.Sprintf("fresh-fetch-%d-files", files), func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			dir := filepath.Join(b.TempDir(), "w")
			b.StartTimer()
			if _, err := new(Fetcher).Fetch(ctx, repo, "main", dir); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			os.RemoveAll(dir)
			b.StartTimer()
		}
	})
	change := 0 // across the runs of the sub-benchmark
	b.Run(fmt.Sprintf("fetch-into-kept-one-file-changed-of-%d", files), func(b *testing.B) {
		b.StopTimer()
		dir := filepath.Join(b.TempDir(), "kept")
		if _, err := new(Fetcher).FetchInto(ctx, repo, "main", dir); err != nil {
			b.Fatal(err)
		}
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			change++
			writeFile(b, filepath.Join(repo, "d042", "page007.md"), fmt.Sprintf("# Page 4207\n\nChange %d.\n", change))
			sha := commitAll(b, repo, fmt.Sprintf("Change %d", change))
			b.StartTimer()
			c, err := new(Fetcher).FetchInto(ctx, repo, "main", dir)
			if err != nil {
				b.Fatal(err)
			}
			if c.SHA != sha {
				b.Fatalf("fetched %s, want %s", c.SHA, sha)
			}
		}
	})
}
