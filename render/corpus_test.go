package render

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"lectern.dev/lectern/internal/sitetest"
	"lectern.dev/lectern/render/output"
)

// corpusDir is where the shared test corpora live, read in place; see
// ../../shared/corpus/README.md.
const corpusDir = "../../shared/corpus/"

// corpora lists the real sites built by TestCorpus, with the counts their
// SOURCE.md gives and the only kinds of warning each may produce: problems
// its source really has.
var corpora = []struct {
	name string
	// pages is the number of distinct navigation entries (SOURCE.md);
	// unlisted that of the other pages, which are built but not listed
	// (SOURCE.md itself is one).
	pages, unlisted int
	// maxWarnings bounds the warnings; allowed matches each of them.
	maxWarnings int
	allowed     *regexp.Regexp
	// spot maps output files to text they must contain.
	spot map[string][]string
}{
	{
		name: "mintlify-starter", pages: 17, unlisted: 1, maxWarnings: 5,
		// The starter links to two pages it does not have, and its
		// contextual menu offers services Lectern does not link to.
		allowed: regexp.MustCompile(`^(broken link "/(api-playground/demo|writing-content/embed)": |` + contextualWarning + `)`),
		spot: map[string][]string{
			"essentials/reusable-snippets.html":  {"One of the core principles of software development is DRY"},
			"index.html":                         {`class="lc-card lc-card-link lc-card-horizontal"`, `<div class="lc-columns" style="--lc-cols: 2">`},
			"essentials/markdown.html":           {`<div class="lc-latex"><code>8 x (vk x H1 - H2) = (0,1)</code></div>`},
			"api-reference/endpoint/create.html": {`<span class="lc-method lc-method-post">POST</span><code class="lc-openapi-path">/plants</code>`},
			"essentials/images.html":             {`<a class="lc-media-card" href="https://www.youtube.com/watch?v=4KzFe50RQkQ" target="_blank" rel="noopener noreferrer">`},
		},
	},
	{
		name: "pipecat-docs", pages: 469, unlisted: 2, maxWarnings: 30,
		// Images over 300 KB, videos and .jsx snippets were left out of
		// the corpus on purpose (SOURCE.md).
		// One redirect goes to a page the site does not have.
		allowed: regexp.MustCompile(`^((image|media file) "/(images|videos)/[^"]+" not found|cannot import "/snippets/js-transport-support\.jsx": .*|<TransportTable> is not rendered: the import that defines it failed; a placeholder is shown|redirect destination "/pipecat/examples" \(from "/examples"\) not found: .*|` + contextualWarning + `.*)$`),
		spot: map[string][]string{
			"api-reference/server/services/tts/murf.html": {
				`<strong>Community-maintained integration.</strong> This service is built and maintained by <a href="https://github.com/murf-ai"`,
			},
			"pipecat/examples/recipes.html": {`<h2 class="lc-update-label" id="record-audio"><svg class="lc-icon" data-icon="microphone"`, `</svg><span style="margin-left: 8px">Record Audio</span></h2>`},
		},
	},
}

// contextualWarning starts the warning about the options of the
// contextual menu that send the page to other services (render/config).
const contextualWarning = `contextual options ("[a-z]+"(, )?)+ send the page to another service`

func TestCorpus(t *testing.T) {
	t.Parallel()
	for _, c := range corpora {
		for _, export := range []bool{false, true} {
			name := c.name + "/live"
			opts := Options{BasePath: "/docs"}
			if export {
				name = c.name + "/export"
				opts = Options{Export: true}
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				src := corpusDir + c.name
				if _, err := os.Stat(src + "/docs.json"); err != nil {
					t.Fatalf("corpus %s is not readable: %v", c.name, err)
				}
				dir := t.TempDir()
				start := time.Now()
				res, err := Build(context.Background(), os.DirFS(src), output.Dir{Dir: dir}, opts)
				if err != nil {
					t.Fatalf("Build: %v", err)
				}
				t.Logf("%d pages, %d files, %d warnings in %v", res.Pages, res.Files, len(res.Warnings), time.Since(start))
				for _, w := range res.Warnings {
					t.Log(w)
					if !c.allowed.MatchString(w.Message) {
						t.Errorf("unexpected warning: %s", w)
					}
				}
				if len(res.Warnings) > c.maxWarnings {
					t.Errorf("%d warnings, want at most %d", len(res.Warnings), c.maxWarnings)
				}
				entries := res.Config.Nav.Pages()
				if res.Pages != c.pages+c.unlisted || len(entries) != c.pages {
					t.Errorf("Pages = %d, navigation entries = %d, want %d and %d", res.Pages, len(entries), c.pages+c.unlisted, c.pages)
				}
				files := sitetest.ReadDir(t, dir)
				if res.Files != len(files) {
					t.Errorf("Files = %d, but %d files are in the output", res.Files, len(files))
				}
				for _, e := range entries {
					if files[e.Page+".html"] == nil {
						t.Errorf("no %s.html for navigation entry %q", e.Page, e.Page)
					}
				}
				for _, f := range []string{"index.html", "404.html", "sitemap.xml", "robots.txt", "_lectern/style.css", "_lectern/search/meta.js", "favicon.svg", "logo/light.svg"} {
					if files[f] == nil && ownAssetName(files, f) == "" {
						t.Errorf("no %s", f)
					}
				}
				for f, wants := range c.spot {
					for _, want := range wants {
						if !strings.Contains(string(files[f]), want) {
							t.Errorf("%s lacks %s", f, want)
						}
					}
				}
				for f, data := range files {
					if strings.HasSuffix(f, ".html") && strings.Contains(string(data), "lc-unknown") {
						t.Errorf("%s has an unknown component", f)
					}
				}
				checkNoExternalRefs(t, files)
				warned := warnedTargets(res.Warnings)
				links := internalLinks(t, files, opts)
				broken := 0
				for _, l := range links {
					if files[l.target] != nil {
						continue
					}
					if warned[l.target] || warned[strings.TrimSuffix(l.target, ".html")] {
						continue // the source lacks it and a warning says so
					}
					broken++
					if broken <= 20 {
						t.Errorf("%s: link %q → %s does not exist and no warning names it", l.from, l.href, l.target)
					}
				}
				if len(links) < res.Pages {
					t.Errorf("only %d internal links checked", len(links))
				}
			})
		}
	}
}
