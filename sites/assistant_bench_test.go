package sites

import (
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"lectern.dev/lectern/blobstore/blobtest"
	"lectern.dev/lectern/internal/sitebuild"
	"lectern.dev/lectern/render"
)

// benchVocabulary is a made-up vocabulary of 3,000 words, so that pages
// differ and questions match a few pages each.
func benchVocabulary() []string {
	syl := []string{"ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "ze", "pa", "qu", "do", "fe", "gi", "ho", "ju"}
	words := make([]string, 0, 3000)
	for i := 0; len(words) < 3000; i++ {
		w := syl[i%16] + syl[(i/16)%16] + syl[(i/256)%16] + "r"
		words = append(words, w)
	}
	return words
}

// benchSite renders a site of n pages, each of four sections of
// sentences drawn from the vocabulary, and returns its files and the
// questions: three words of a section each.
func benchSite(b *testing.B, n int) (map[string]string, []string) {
	b.Helper()
	words := benchVocabulary()
	rng := rand.New(rand.NewPCG(1, 2))
	src := fstest.MapFS{}
	var pages, questions []string
	for p := 0; p < n; p++ {
		var body strings.Builder
		fmt.Fprintf(&body, "---\ntitle: Page %d %s\n---\n\n", p, words[rng.IntN(len(words))])
		for s := 0; s < 4; s++ {
			fmt.Fprintf(&body, "## Section %s %s\n\n", words[rng.IntN(len(words))], words[rng.IntN(len(words))])
			var sec []string
			for w := 0; w < 120; w++ {
				sec = append(sec, words[rng.IntN(len(words))])
				if w%12 == 11 {
					sec[len(sec)-1] += "."
				}
			}
			body.WriteString(strings.Join(sec, " ") + "\n\n")
			if s == 1 && p%10 == 0 {
				questions = append(questions, "How do I "+sec[3]+" the "+sec[20]+" "+strings.TrimSuffix(sec[40], ".")+"?")
			}
		}
		name := fmt.Sprintf("p%04d", p)
		src[name+".mdx"] = &fstest.MapFile{Data: []byte(body.String())}
		pages = append(pages, `"`+name+`"`)
	}
	src["docs.json"] = &fstest.MapFile{Data: []byte(`{"name":"Bench","navigation":{"groups":[{"group":"All","pages":[` + strings.Join(pages, ",") + `]}]}}`)}
	return sitebuild.Files(b, src, render.Options{}), questions
}

// BenchmarkAssistant: extractive answers of a cloud site of 1,000 pages
// asked by 16 askers at once over HTTP, beside plain page requests of the
// same site by 16 clients: requests a second and p50/p99 latency of
// each (go test ./sites -run '^$' -bench Assistant -benchtime 2000x).
func BenchmarkAssistant(b *testing.B) {
	st, bk := openStore(b), blobtest.Folder(b)
	files, questions := benchSite(b, 1000)
	p := newProject(b, st, "bench.example.com")
	publish(b, st, bk, p.ID, files)
	s := New(discardLog(), st, bk)
	s.assistants.unlimited = true
	srv := httptest.NewServer(s)
	b.Cleanup(srv.Close)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 32}}
	do := func(i int, ask bool) error {
		var req *http.Request
		if ask {
			body := `{"messages":[{"role":"user","content":"` + questions[i%len(questions)] + `"}]}`
			req, _ = http.NewRequest("POST", srv.URL+AssistantPath, strings.NewReader(body))
		} else {
			req, _ = http.NewRequest("GET", srv.URL+fmt.Sprintf("/p%04d", i%1000), nil)
		}
		req.Host = "bench.example.com"
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 || (ask && !strings.Contains(string(data), "event: done")) {
			return fmt.Errorf("%d %.200s", resp.StatusCode, data)
		}
		return nil
	}
	// The first question opens the index (not timed).
	if err := do(0, true); err != nil {
		b.Fatal(err)
	}
	run := func(name string, ask bool) {
		b.Run(name, func(b *testing.B) {
			const askers = 16
			var mu sync.Mutex
			lat := make([]time.Duration, 0, b.N)
			next := make(chan int)
			var wg sync.WaitGroup
			errs := make(chan error, askers)
			start := time.Now()
			for a := 0; a < askers; a++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range next {
						t0 := time.Now()
						if err := do(i, ask); err != nil {
							errs <- err
							return
						}
						d := time.Since(t0)
						mu.Lock()
						lat = append(lat, d)
						mu.Unlock()
					}
				}()
			}
			for i := 0; i < b.N; i++ {
				next <- i
			}
			close(next)
			wg.Wait()
			elapsed := time.Since(start)
			select {
			case err := <-errs:
				b.Fatal(err)
			default:
			}
			slices.Sort(lat)
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "req/s")
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
		})
	}
	run("answers-16-askers", true)
	run("pages-16-clients", false)
}
