package render

import (
	"context"
	"net/http"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"lectern.dev/lectern/internal/browsertest"
	"lectern.dev/lectern/internal/sitetest"
	"lectern.dev/lectern/render/features"
)

// narrowSite has what could make a phone's page scroll sideways: a long
// site name, navbar links and button, tabs, long titles, breadcrumbs,
// wide tables, long code lines, long identifiers and URLs in the text,
// code in a callout, cards and steps; and images shown in one mode only
// (dark:hidden), and a stylesheet of its own.
const narrowSite = `
-- docs.json --
{"name": "A documentation site with a rather long name indeed", "favicon": "/favicon.svg",
 "navbar": {"links": [{"label": "Community forum", "href": "https://forum.test"}, {"label": "Status page", "href": "https://status.test"}],
   "primary": {"type": "github", "href": "https://github.com/acme/a-repository-with-a-rather-long-name"}},
 "styling": {"eyebrows": "breadcrumbs"},
 "navigation": {"tabs": [
   {"tab": "Guides and tutorials", "groups": [{"group": "A group whose name is long enough to wrap", "pages": ["index", "wide"]}]},
   {"tab": "Reference documentation", "groups": [{"group": "Reference", "pages": ["ref"]}]},
   {"tab": "Changelog and releases", "groups": [{"group": "Changes", "pages": ["changes"]}]}
 ]}}
-- style.css --
#navbar { border-bottom-color: rgb(1, 2, 3); }
-- favicon.svg --
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><circle cx="8" cy="8" r="7"/></svg>
-- img/light.svg --
<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"><rect width="40" height="20" fill="#eee"/></svg>
-- img/dark.svg --
<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"><rect width="40" height="20" fill="#222"/></svg>
-- index.mdx --
---
title: Home
---
<Frame>
  <img id="img-light" className="block dark:hidden rounded-xl" src="/img/light.svg" alt="light" />
  <img id="img-dark" className="hidden dark:block rounded-xl" src="/img/dark.svg" alt="dark" />
</Frame>

See the [wide page](/wide).
-- wide.mdx --
---
title: ConfigurationOfTheFrameProcessorPipelineWithAVeryLongIdentifier
description: https://example.com/a/very/long/path/that/never/breaks/because/it/has/no/spaces/at/all
---
Use ` + "`pipecat.services.openai.realtime.OpenAIRealtimeBetaLLMServiceWithAVeryLongName`" + ` here, or
https://example.com/another/very/long/url/that/goes/on/and/on/without/any/space/at/all/whatsoever.

| Parameter | Type | Default | Description | Another column | And another |
|---|---|---|---|---|---|
| ` + "`a_very_long_parameter_name_here`" + ` | ` + "`Optional[Dict[str, Any]]`" + ` | ` + "`None`" + ` | A description that is long | More text | Even more |

` + "```python\nexporter = OTLPSpanExporter(endpoint=\"http://localhost:5000/v1/traces\", headers={\"x-mlflow-experiment-id\": \"0\"})\n```" + `

<Note>
Run this:

` + "```bash\nexport OTEL_EXPORTER_OTLP_ENDPOINT=\"http://localhost:5000/a/very/long/path/for/the/exporter\"\n```" + `
</Note>

<CardGroup cols={2}>
  <Card title="SuperLongCardTitleWithoutSpacesAtAll">AnotherVeryLongWordInTheCardBodyThatKeepsGoing</Card>
  <Card title="Short">Text.</Card>
</CardGroup>

<Steps>
  <Step title="Install">
` + "```bash\npip install \"pipecat-ai[daily,openai,deepgram,cartesia,silero,elevenlabs,tracing]\"\n```" + `
  </Step>
</Steps>
-- ref.mdx --
---
title: Reference
---
Text.
-- changes.mdx --
---
title: PatternPairAggregatorWithALongName
---
Text.
`

// themeBrowserFlow opens the pages of narrowSite and of the starter
// corpus 390 pixels wide and checks that none scrolls sideways; then
// checks that narrowSite's stylesheet applies and that its dark:hidden
// image shows in light mode only, and its hidden dark:block image in
// dark mode only, in both dark modes: the system's and the toggle's.
func themeBrowserFlow(t *testing.T, ctx, browserCtx context.Context) {
	site := newMemOutput()
	if _, err := Build(ctx, sitetest.Archive(t, narrowSite), site, Options{}); err != nil {
		t.Fatalf("Build: %v", err)
	}
	starter := newMemOutput()
	if _, err := Build(ctx, os.DirFS(corpusDir+"mintlify-starter"), starter, Options{}); err != nil {
		t.Fatalf("Build starter: %v", err)
	}
	header := http.Header{"Content-Security-Policy": {features.Site{}.ContentSecurityPolicy()}, "X-Content-Type-Options": {"nosniff"}}
	base := serveFiles(t, site.files, header)
	starterBase := serveFiles(t, starter.files, header)
	tab := browsertest.NewTab(t, browserCtx, browsertest.Options{Origins: []string{base, starterBase}})

	scheme := func(s string) chromedp.Action[chromedp.Void] {
		return chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
			_, err := cdp.Call(ctx, target, emulation.SetEmulatedMedia,
				emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: s}}})
			return err
		})
	}
	if !tab.Run("a phone's viewport", chromedp.EmulateViewport(390, 844), scheme("light")) {
		return
	}
	pages := []string{base + "/", base + "/wide", base + "/ref", base + "/changes"}
	for _, p := range starterPages(starter) {
		pages = append(pages, starterBase+"/"+p)
	}
	for _, u := range pages {
		if !tab.Open(u) {
			continue
		}
		if w, _ := tab.Eval("width", `(function () {
			const d = document.documentElement;
			return d.scrollWidth <= d.clientWidth ? "" : d.scrollWidth + " > " + d.clientWidth;
		})()`); w != "" {
			t.Errorf("%s scrolls sideways at 390 px: %s", u, w)
		}
	}

	// The menu's sidebar starts below the header, which the starter's
	// tabs make taller than its bar.
	if tab.Open(starterBase + "/") {
		if r, _ := tab.Eval("sidebar below the header", `(function () {
			document.querySelector(".lc-menu-button").click();
			const side = document.getElementById("sidebar").getBoundingClientRect(), head = document.getElementById("navbar").getBoundingClientRect();
			return side.height > 0 && side.top >= head.bottom - 0.5 ? "" : "sidebar " + side.top + "-" + side.bottom + ", header to " + head.bottom;
		})()`); r != "" {
			t.Errorf("the menu's sidebar is under the header: %s", r)
		}
	}

	if !tab.Open(base + "/") {
		return
	}
	if c, _ := tab.Eval("custom stylesheet", `getComputedStyle(document.getElementById("navbar")).borderBottomColor`); c != "rgb(1, 2, 3)" {
		t.Errorf("the repository's style.css does not apply: #navbar's border is %q", c)
	}
	const shown = `(function () {
		const on = id => getComputedStyle(document.getElementById(id)).display !== "none";
		return (on("img-light") ? "light" : "") + (on("img-dark") ? "dark" : "") +
			(document.documentElement.classList.contains("dark") ? " html.dark" : "");
	})()`
	check := func(mode, want string) {
		t.Helper()
		got, _ := tab.Eval("images of "+mode, shown)
		for i := 0; got != want && i < 20; i++ { // html.dark follows a change of the system's mode by an event
			time.Sleep(50 * time.Millisecond)
			got, _ = tab.Eval("images of "+mode, shown)
		}
		if got != want {
			t.Errorf("%s: images shown %q, want %q", mode, got, want)
		}
	}
	check("light mode", "light")
	if tab.Run("the system's dark mode", scheme("dark")) {
		check("the system's dark mode", "dark html.dark")
	}
	if tab.Run("light mode", scheme("light")) && tab.Run("toggle", chromedp.Click(chromedp.CSS(selThemeToggle), chromedp.NodeVisible)) {
		check("dark mode by the toggle", "dark html.dark")
		tab.Eval("forget the choice", `localStorage.removeItem("lectern-theme"), ""`)
	}
	tab.Check("theme")
}

// starterPages returns the paths of the pages of a built site, sorted
// ("" for the home page).
func starterPages(out *memOutput) []string {
	var pages []string
	for name := range out.files {
		if strings.HasSuffix(name, ".html") && !strings.HasPrefix(name, "_lectern/") && name != "404.html" {
			p := strings.TrimSuffix(name, ".html")
			if p == "index" {
				p = ""
			}
			pages = append(pages, p)
		}
	}
	sort.Strings(pages)
	return pages
}
