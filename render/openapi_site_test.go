package render

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"lectern.dev/lectern/internal/sitetest"
)

// openAPISite (testdata/openapi-site.txtar) generates API pages from two
// documents in the ways a navigation can.
var openAPISite = func() string {
	data, err := os.ReadFile("testdata/openapi-site.txtar")
	if err != nil {
		panic(err)
	}
	return string(data)
}()

var sideLinkRE = regexp.MustCompile(`<a href="([^"]*)"[^>]*>(?:<span class="lc-nav-method lc-nav-method-(\w+)">(\w+)</span>)?([^<]*)</a>|<p class="lc-nav-heading">([^<]*)</p>|<summary>([^<]*)</summary>`)

// sidebarOutline is the sidebar of a page as lines of text: headings, and
// links with their method badge and URL.
func sidebarOutline(page string) string {
	var b strings.Builder
	for _, m := range sideLinkRE.FindAllStringSubmatch(sidebarRE.FindString(page), -1) {
		switch {
		case m[5] != "" || m[6] != "":
			b.WriteString("# " + m[5] + m[6] + "\n")
		case m[3] != "":
			b.WriteString("  [" + m[3] + "] " + m[4] + " → " + m[1] + "\n")
		default:
			b.WriteString("  " + m[4] + " → " + m[1] + "\n")
		}
	}
	return b.String()
}

// TestOpenAPISiteGolden checks the pages generated from the documents of
// openAPISite against testdata/openapi-site-*.golden: their paths (those
// Mintlify gives them), the sidebars that list them, the build's
// warnings, and the HTML of two API pages. The links the site writes to
// generated pages, as for a Mintlify site, all resolve.
func TestOpenAPISiteGolden(t *testing.T) {
	t.Parallel()
	res, out := build(t, openAPISite, Options{})
	var pages []string
	for f := range out.files {
		if strings.HasSuffix(f, ".html") && f != "404.html" {
			pages = append(pages, f)
		}
	}
	slices.Sort(pages)
	var b strings.Builder
	b.WriteString("## Pages\n" + strings.Join(pages, "\n") + "\n\n## Sidebar of the API tab\n")
	b.WriteString(sidebarOutline(out.get(t, "api-reference/plants/list-plants.html")))
	b.WriteString("\n## Sidebar of the Admin tab\n")
	b.WriteString(sidebarOutline(out.get(t, "overview.html")))
	b.WriteString("\n## Warnings\n")
	for _, w := range res.Warnings {
		b.WriteString(w.String() + "\n")
		if strings.Contains(w.Message, "broken link") {
			t.Errorf("a link to a generated page does not resolve: %s", w)
		}
	}
	// The search index has the pages' text, not their examples.
	var text strings.Builder
	for _, d := range searchDocs(t, out) {
		for _, s := range d.Sections {
			text.WriteString(s.Text + "\n")
		}
	}
	if idx := text.String(); !strings.Contains(idx, "Litres a week") || strings.Contains(idx, "import requests") || len(searchFor(t, out, "litres")) == 0 {
		t.Error("the search index lacks the API pages' text or has their examples")
	}
	for _, c := range []struct{ golden, got string }{
		{"openapi-site-pages.golden", b.String()},
		{"openapi-site-post-plants.golden", sitetest.Content(t, out.get(t, "api-reference/plants/post-plants.html")) + "\n"},
		{"openapi-site-create-user.golden", sitetest.Content(t, out.get(t, "endpoints/create-user.html")) + "\n"},
		{"openapi-site-legacy.golden", sitetest.Content(t, out.get(t, "endpoints/legacy.html")) + "\n"},
	} {
		sitetest.Golden(t, filepath.Join("testdata", c.golden), c.golden, unhashed(c.got), *updateGolden)
	}
}
