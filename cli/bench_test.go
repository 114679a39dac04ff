package cli_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"
)

// BenchmarkTriggerToLive measures, for a 20-page site in a local git
// repository, the time from the 202 of POST /v1/project/update to the
// status reading success (fetch, render, publish). Target: under 1 s.
//
//	go test ./cli -run '^$' -bench TriggerToLive -benchtime 20x
func BenchmarkTriggerToLive(b *testing.B) {
	data := b.TempDir()
	srv := startServe(b, data)
	files := map[string]string{}
	var pages []string
	for i := range 20 {
		name := fmt.Sprintf("guides/page-%02d", i)
		pages = append(pages, `"`+name+`"`)
		files[name+".mdx"] = fmt.Sprintf("---\ntitle: Page %d\n---\n\n## Section\n\n%s\n\n```go\nfunc main() {}\n```\n\n<Note>Note %d</Note>\n",
			i, strings.Repeat("Some words about the product. ", 100), i)
	}
	files["docs.json"] = `{"name": "Bench", "navigation": {"groups": [{"group": "Guides", "pages": [` + strings.Join(pages, ", ") + `]}]}}`
	repo, _ := newRepo(b, files)
	org := lastLine(lectern(b, "admin", "--data-dir", data, "org", "create", "--name", "B", "--plan", "enterprise"))
	prj := lastLine(lectern(b, "admin", "--data-dir", data, "project", "create", "--org", org, "--name", "b", "--repo", repo, "--domain", "bench.docs.test"))
	key := lastLine(lectern(b, "admin", "--data-dir", data, "key", "create", "--org", org, "--name", "b"))

	var took []time.Duration
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		id := trigger(b, srv.url, key, prj)
		for {
			_, st, _ := call(b, "GET", srv.url+"/v1/project/update-status/"+id, key, nil)
			if st["status"] == "success" {
				break
			}
			if st["status"] == "failure" || st["status"] == "superseded" {
				b.Fatalf("update ended: %v", st)
			}
			time.Sleep(2 * time.Millisecond)
		}
		took = append(took, time.Since(start))
	}
	b.StopTimer()
	sort.Slice(took, func(i, j int) bool { return took[i] < took[j] })
	b.ReportMetric(float64(took[len(took)/2].Milliseconds()), "p50-ms")
	b.ReportMetric(float64(took[len(took)-1].Milliseconds()), "max-ms")
}
