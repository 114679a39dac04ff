package assistant

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"lectern.dev/lectern/render"
	"lectern.dev/lectern/render/output"
	"lectern.dev/lectern/render/search"
)

// buildIndex builds a site from fsys and opens its search index.
func buildIndex(t testing.TB, fsys fstest.MapFS) *search.Index {
	t.Helper()
	dir := t.TempDir()
	if _, err := render.Build(context.Background(), fsys, output.Dir{Dir: dir}, render.Options{}); err != nil {
		t.Fatal(err)
	}
	ix, err := search.Open(os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

var smallSite = fstest.MapFS{
	"docs.json": {Data: []byte(`{"name":"Acme","navigation":{"groups":[{"group":"Guides","pages":["index","deploy","billing"]}]}}`)},
	"index.mdx": {Data: []byte("---\ntitle: Welcome\n---\n\nAcme runs your jobs.\n")},
	"deploy.mdx": {Data: []byte("---\ntitle: Deploying\n---\n\nSome words first.\n\n## Rolling back\n\n" +
		"To roll back a release, run acme rollback with the release number. The previous release is live at once.\n\n" +
		"## Regions\n\nReleases go to every region.\n")},
	"billing.mdx": {Data: []byte("---\ntitle: Billing\n---\n\nInvoices are sent monthly. A release costs nothing.\n")},
}

// TestRetrieveAndExtract: the section that answers is found, quoted and
// cited with its anchor; a question the docs do not answer says so.
func TestRetrieveAndExtract(t *testing.T) {
	ix := buildIndex(t, smallSite)
	ps, err := Retrieve(ix, "How do I roll back a release?", 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) == 0 || ps[0].URL != "/deploy#rolling-back" || ps[0].Heading != "Rolling back" {
		t.Fatalf("passages: %+v", ps)
	}
	a := Extract("How do I roll back a release?", ps)
	if !a.Found || len(a.Citations) == 0 || a.Citations[0].URL != "/deploy#rolling-back" ||
		!strings.Contains(a.Text, "run acme rollback with the release number") || !strings.Contains(a.Text, "[1]") {
		t.Fatalf("answer: %+v", a)
	}
	if strings.Contains(a.Text, "Invoices") {
		t.Errorf("the answer quotes an unrelated page: %s", a.Text)
	}

	none := Extract("What is the capital of Mongolia?", mustRetrieve(t, ix, "What is the capital of Mongolia?"))
	if none.Found || !strings.HasPrefix(none.Text, NotFound) {
		t.Fatalf("unanswerable: %+v", none)
	}
	if ps, _ := Retrieve(ix, "how do I", 5); len(ps) != 0 {
		t.Errorf("a question of stop words only retrieved %+v", ps)
	}
}

func mustRetrieve(t *testing.T, ix *search.Index, q string) []Passage {
	t.Helper()
	ps, err := Retrieve(ix, q, 5)
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

// TestWriteEvents: the answer streams as text, citation and done events.
func TestWriteEvents(t *testing.T) {
	var b strings.Builder
	flushes := 0
	a := Answer{Text: "> one [1]\n\n> two [2]", Found: true, Citations: []Citation{{1, "A", "a#x"}, {2, "B", "b"}}}
	if err := WriteEvents(&b, func() { flushes++ }, a); err != nil {
		t.Fatal(err)
	}
	var events []string
	var texts []string
	sc := bufio.NewScanner(strings.NewReader(b.String()))
	for sc.Scan() {
		line := sc.Text()
		if e, ok := strings.CutPrefix(line, "event: "); ok {
			events = append(events, e)
		}
		if d, ok := strings.CutPrefix(line, "data: "); ok && events[len(events)-1] == "text" {
			var v struct{ Text string }
			json.Unmarshal([]byte(d), &v)
			texts = append(texts, v.Text)
		}
	}
	if strings.Join(events, ",") != "text,text,citation,citation,done" || flushes != 5 || strings.Join(texts, "") != a.Text {
		t.Fatalf("events %v, flushes %d, texts %q:\n%s", events, flushes, texts, b.String())
	}
}

// TestAnswerQualityPipecat: twenty questions written from the Pipecat
// docs; the share whose answer cites the page it should. It is reported,
// and fails below 15 of 20.
func TestAnswerQualityPipecat(t *testing.T) {
	src := "../../shared/corpus/pipecat-docs"
	if _, err := os.Stat(src + "/docs.json"); err != nil {
		t.Skipf("corpus pipecat-docs is not readable: %v", err)
	}
	dir := t.TempDir()
	if _, err := render.Build(context.Background(), os.DirFS(src), output.Dir{Dir: dir}, render.Options{}); err != nil {
		t.Fatal(err)
	}
	ix, err := search.Open(os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("testdata/questions.txt")
	if err != nil {
		t.Fatal(err)
	}
	hits, total := 0, 0
	for _, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		q, want, _ := strings.Cut(line, "\t")
		total++
		a := Extract(q, mustRetrieve(t, ix, q))
		cited := false
		for _, c := range a.Citations {
			page, _, _ := strings.Cut(c.URL, "#")
			if strings.TrimSuffix(page, ".html") == want {
				cited = true
			}
		}
		if cited && a.Found {
			hits++
		} else {
			var urls []string
			for _, c := range a.Citations {
				urls = append(urls, c.URL)
			}
			t.Logf("miss: %q cites %v, want %s", q, urls, want)
		}
	}
	t.Logf("answer quality, pipecat-docs: %d of %d questions cite the right page (%.0f%%)", hits, total, 100*float64(hits)/float64(total))
	if total != 20 || hits < 15 {
		t.Errorf("%d of %d questions cite the right page, want at least 15 of 20", hits, total)
	}
}

// TestRetrieveDescription: a page that says what it is about only in its
// description (front matter) answers from it.
func TestRetrieveDescription(t *testing.T) {
	ix := buildIndex(t, fstest.MapFS{
		"docs.json":      {Data: []byte(`{"name":"Acme","navigation":{"groups":[{"group":"G","pages":["index","quickstart"]}]}}`)},
		"index.mdx":      {Data: []byte("---\ntitle: Welcome\n---\n\nHello.\n")},
		"quickstart.mdx": {Data: []byte("---\ntitle: Quickstart\ndescription: Deploy and export this site through the API.\n---\n\n1. **Trigger an update**\n\n   Commit a change.\n")},
	})
	a := Extract("How do I deploy?", mustRetrieve(t, ix, "How do I deploy?"))
	if !a.Found || len(a.Citations) == 0 || a.Citations[0].URL != "/quickstart" || !strings.Contains(a.Text, "Deploy and export this site") {
		t.Fatalf("answer %+v", a)
	}
}
