package render

import (
	"strings"
	"testing"
)

// TestDocsJSONBanner checks that docs.json's banner is a bar of Markdown
// at the top of every page, its links made for each page (relative in an
// export), its problems reported once.
func TestDocsJSONBanner(t *testing.T) {
	t.Parallel()
	archive := "-- docs.json --\n" + `{"name": "B", "navigation": {"pages": ["index", "guides/deep"]},
  "banner": {"content": "**New:** see the [guide](/guides/deep) or [this](javascript:alert(1)).", "type": "warning",
    "color": {"light": "#7C3AED", "dark": "red; x: y"}, "dismissible": true}}` + "\n" +
		"-- index.mdx --\n# Home\n-- guides/deep.mdx --\n# Deep\n"
	res, out := build(t, archive, Options{Export: true})
	deep := string(out.get(t, "guides/deep.html"))
	want := `<a class="lc-skip" href="#lc-content">Skip to content</a>` + "\n" +
		`<div class="lc-banner-bar lc-banner-warning" role="region" aria-label="Announcement" style="--lc-banner-bg: #7C3AED; --lc-banner-bg-dark: #7C3AED">` +
		`<div class="lc-banner-content"><strong>New:</strong> see the <a href="deep.html">guide</a> or <a href="">this</a>.</div></div>`
	if !strings.Contains(deep, want) {
		t.Errorf("guides/deep.html lacks the banner %s", want)
	}
	if index := string(out.get(t, "index.html")); !strings.Contains(index, `<a href="guides/deep.html">guide</a>`) {
		t.Errorf("index.html lacks the banner's link relative to it")
	}
	if n := strings.Count(warningsText(res.Warnings), "javascript:alert(1)"); n != 1 {
		t.Errorf("the banner's bad link is reported %d times, want once:\n%s", n, warningsText(res.Warnings))
	}
	_, out = build(t, "-- docs.json --\n{\"navigation\": {\"pages\": [\"index\"]}, \"banner\": {\"content\": \"  \"}}\n-- index.mdx --\nx\n", Options{})
	if strings.Contains(string(out.get(t, "index.html")), "lc-banner-bar") {
		t.Errorf("an empty banner is shown")
	}
}
