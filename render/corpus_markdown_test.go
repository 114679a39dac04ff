package render

import (
	"context"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"lectern.dev/lectern/internal/sitetest"
	"lectern.dev/lectern/render/output"
)

// TestCorpusMarkdown builds the Pipecat docs (read in place; skipped when
// the corpus is absent) and checks every page's Markdown (PAGE.md): there
// is one beside each page, it starts with the page's title, and its prose
// (outside fences and code spans) holds no tag of a component and no
// brace of a JSX expression; llms.txt lists every page of the sitemap and
// llms-full.txt holds each.
func TestCorpusMarkdown(t *testing.T) {
	t.Parallel()
	src := corpusDir + "pipecat-docs"
	if _, err := os.Stat(src + "/docs.json"); err != nil {
		t.Skipf("corpus pipecat-docs is not here (%v)", err)
	}
	dir := t.TempDir()
	res, err := Build(context.Background(), os.DirFS(src), output.Dir{Dir: dir}, Options{BasePath: "/docs"})
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	files := sitetest.ReadDir(t, dir)
	pages := 0
	for name := range files {
		page, ok := strings.CutSuffix(name, ".html")
		if !ok || name == "404.html" || strings.HasPrefix(name, "_lectern/") || isRedirectPage(files[name]) {
			continue
		}
		pages++
		md, ok := files[page+".md"]
		if !ok {
			t.Errorf("%s has no %s.md", name, page)
			continue
		}
		text := string(md)
		if !strings.HasPrefix(text, "# ") {
			t.Errorf("%s.md does not start with the page's title:\n%.200s", page, text)
		}
		for _, p := range proseProblems(text) {
			t.Errorf("%s.md: %s", page, p)
		}
	}
	if pages < res.Pages {
		t.Errorf("%d pages checked, the build made %d", pages, res.Pages)
	}
	llms, full := string(files["llms.txt"]), string(files["llms-full.txt"])
	if !strings.HasPrefix(llms, "# Pipecat\n") {
		t.Errorf("llms.txt does not start with the site's name:\n%.300s", llms)
	}
	locs := regexp.MustCompile(`<loc>/docs/([^<]*)</loc>`).FindAllStringSubmatch(string(files["sitemap.xml"]), -1)
	if len(locs) < 400 {
		t.Fatalf("only %d pages in the sitemap", len(locs))
	}
	for _, m := range locs {
		page := m[1]
		md := page + ".md"
		if page == "" {
			md = "index.md"
		}
		if !strings.Contains(llms, "](/docs/"+md+")") {
			t.Errorf("llms.txt does not list %s", md)
		}
		if !strings.Contains(full, "\nSource: /docs/"+page+"\n") {
			t.Errorf("llms-full.txt does not hold /docs/%s", page)
		}
	}
	for _, p := range proseProblems(full) {
		t.Errorf("llms-full.txt: %s", p)
	}
}

// isRedirectPage reports whether a page of the output is a redirect page
// (redirects.go), which has no Markdown.
func isRedirectPage(data []byte) bool {
	return strings.Contains(string(data[:min(len(data), 600)]), `http-equiv="refresh"`)
}

var (
	componentTagRE = regexp.MustCompile(`</?[A-Z][A-Za-z0-9]*(\.[A-Za-z]+)?[\s/>]`)
	codeSpanRE     = regexp.MustCompile("(`+)[^`]*?(`+)")
	escapedRE      = regexp.MustCompile(`\\.`)
)

// proseProblems returns what the prose of md (its paragraphs outside
// fences, without code spans and escaped characters) should not hold: a
// component's tag, or a brace.
func proseProblems(md string) []string {
	var out []string
	var para []string
	start := 0
	check := func() {
		text := codeSpanRE.ReplaceAllString(escapedRE.ReplaceAllString(strings.Join(para, "\n"), ""), "")
		if m := componentTagRE.FindString(text); m != "" {
			out = append(out, "paragraph at line "+strconv.Itoa(start)+": a component's tag "+strings.TrimSpace(m)+" in "+strings.Join(para, "\n"))
		}
		if strings.ContainsAny(text, "{}") {
			out = append(out, "paragraph at line "+strconv.Itoa(start)+": a brace in "+strings.Join(para, "\n"))
		}
		para = para[:0]
	}
	fence := ""
	for i, line := range strings.Split(md, "\n") {
		t := strings.TrimLeft(line, " >")
		switch {
		case fence != "":
			if strings.HasPrefix(strings.TrimSpace(t), fence) {
				fence = ""
			}
		case strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
			check()
			fence = t[:len(t)-len(strings.TrimLeft(t, t[:1]))]
		case strings.TrimSpace(t) == "":
			check()
		default:
			if len(para) == 0 {
				start = i + 1
			}
			para = append(para, line)
		}
		if len(out) > 20 {
			break
		}
	}
	check()
	return out
}
