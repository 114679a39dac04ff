package render

import (
	"bytes"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"lectern.dev/lectern"
	"lectern.dev/lectern/internal/sitetest"
	"lectern.dev/lectern/render/features"
	"lectern.dev/lectern/render/openapi"
)

// featureSite has an operation page with a playground, plain pages, and a
// page whose content holds marker-like comments. Its text avoids the
// features' names, so that any occurrence is a trace of a feature.
const featureSite = `
-- docs.json --
{"name": "Zoo", "navigation": {"groups": [
  {"group": "Start", "pages": ["index", "guides/care", "guides/fake"]},
  {"group": "Reference", "openapi": "pets.json", "pages": []}
]}}
-- pets.json --
{
  "openapi": "3.0.3",
  "info": {"title": "Pets", "version": "1"},
  "servers": [{"url": "https://api.pets.test/v1"}],
  "paths": {
    "/pets/{petId}": {
      "get": {
        "operationId": "getPet", "summary": "Get a pet", "tags": ["Pets"],
        "parameters": [{"name": "petId", "in": "path", "required": true, "schema": {"type": "integer"}}],
        "responses": {"200": {"description": "The pet"}}
      }
    }
  }
}
-- index.mdx --
---
title: Welcome
---
Feed the animals twice a day.
-- guides/care.mdx --
---
title: Care
---
## Water

Fresh water every morning.
-- guides/fake.mdx --
---
title: Fake
---
<!--lectern:search-->
<!--/lectern:assistant-->
Kept text between fake markers.
<!--lectern:playground-->
`

// featureWords are what each feature leaves in a site: names of its files
// and of its markup. None may be in a site where the feature is off.
var featureWords = map[lectern.Feature][]string{
	lectern.FeatureSearch:     {"search", "Ctrl K"},
	lectern.FeatureAssistant:  {"assistant", "Ask AI", "question"},
	lectern.FeatureAnalytics:  {"analytics", "sendBeacon", "beacon"},
	lectern.FeaturePlayground: {"playground", "lc-pg", "Try it", "data-pg-"},
}

// featureFilesOf are the files kept only with each feature.
var featureFilesOf = map[lectern.Feature][]string{
	lectern.FeatureSearch:     {"_lectern/search.js", "_lectern/search/meta.js"},
	lectern.FeatureAssistant:  {"_lectern/assistant.js"},
	lectern.FeatureAnalytics:  {"_lectern/analytics.js"},
	lectern.FeaturePlayground: {"_lectern/playground.js"},
}

// featureCombos lists the 16 combinations of the four features, with
// endpoints set for the assistant and the analytics.
func featureCombos() []features.Site {
	var out []features.Site
	for i := 0; i < 16; i++ {
		f := features.Site{Search: i&1 != 0, Assistant: i&2 != 0, Analytics: i&4 != 0, Playground: i&8 != 0}
		if f.Assistant {
			f.AssistantURL = "https://ai.zoo.test/ask?lang=en&v=2"
		}
		if f.Analytics {
			f.AnalyticsURL = "https://stats.zoo.test/hit"
		}
		out = append(out, f)
	}
	return out
}

func comboName(f features.Site) string {
	var on []string
	for _, n := range features.Names {
		if f.Enabled(n) {
			on = append(on, string(n))
		}
	}
	if len(on) == 0 {
		return "none"
	}
	return strings.Join(on, "+")
}

// transformSite applies f to every file of a built site.
func transformSite(t *testing.T, f features.Site, files map[string][]byte) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		data, keep, err := f.Transform(name, files[name])
		if err != nil {
			t.Fatalf("Transform(%s): %v", name, err)
		}
		if keep {
			out[name] = data
		}
	}
	return out
}

func TestSiteFeaturesTransform(t *testing.T) {
	t.Parallel()
	for _, export := range []bool{true, false} {
		all := features.All()
		_, built := build(t, featureSite, Options{Export: export, Features: &all})
		for _, name := range []string{"_lectern/playground.js", "_lectern/assistant.js", "_lectern/analytics.js", "_lectern/search.js"} {
			if !built.has(name) {
				t.Fatalf("export=%v: a build with every feature lacks %s", export, name)
			}
		}
		opPage := ""
		for name, data := range built.files {
			if strings.HasSuffix(name, ".html") && bytes.Contains(data, []byte("data-lc-playground")) {
				opPage = name
			}
		}
		if opPage == "" {
			t.Fatalf("export=%v: no page has a playground", export)
		}
		orig := map[string][]byte{}
		for name, data := range built.files {
			orig[name] = append([]byte(nil), data...)
		}
		for _, f := range featureCombos() {
			site := transformSite(t, f, built.files)
			name := comboName(f)
			for n, data := range built.files {
				if !bytes.Equal(data, orig[n]) {
					t.Fatalf("%s: Transform modified its input %s", name, n)
				}
			}
			for _, feat := range features.Names {
				for _, file := range featureFilesOf[feat] {
					if _, ok := site[built.resolve(file)]; ok != f.Enabled(feat) {
						t.Errorf("export=%v %s: %s kept = %v, want %v", export, name, file, ok, f.Enabled(feat))
					}
				}
			}
			for file, data := range site {
				text := string(data)
				if file == "guides/fake.html" {
					// Its content names the features in comments.
					text = strings.NewReplacer("<!-- lectern:search-->", "", "<!-- /lectern:assistant-->", "", "<!-- lectern:playground-->", "").Replace(text)
				}
				if regexp.MustCompile(`<!--/?lectern:|/\*/?lectern:`).MatchString(text) {
					t.Errorf("export=%v %s: %s keeps a marker", export, name, file)
				}
				for _, feat := range features.Names {
					if f.Enabled(feat) {
						continue
					}
					for _, w := range featureWords[feat] {
						if strings.Contains(strings.ToLower(text), strings.ToLower(w)) {
							i := strings.Index(strings.ToLower(text), strings.ToLower(w))
							t.Errorf("export=%v %s: %s has %q with %s off: …%s…", export, name, file, w, feat, text[max(0, i-80):min(len(text), i+80)])
						}
					}
				}
			}
			page := string(site[opPage])
			if got := features.PlaygroundServerOrigins(site[opPage]); f.Playground != (len(got) == 1 && got[0] == "https://api.pets.test") || !f.Playground && got != nil {
				t.Errorf("export=%v %s: PlaygroundServerOrigins = %q", export, name, got)
			}
			care := string(site["guides/care.html"])
			fake := string(site["guides/fake.html"])
			checks := []struct {
				on     bool
				page   string
				what   string
				subset []string
			}{
				{f.Search, care, "search", []string{`<button class="lc-search-button"`, `id="lc-search"`, `_lectern/search.js" defer></script>`, `data-search-index="`}},
				{f.Assistant, care, "assistant", []string{`<button class="lc-assistant-button"`, `id="lc-assistant"`, `_lectern/assistant.js" defer></script>`,
					`<meta name="lectern-assistant-url" content="https://ai.zoo.test/ask?lang=en&amp;v=2">`}},
				{f.Analytics, care, "analytics", []string{`_lectern/analytics.js" defer></script>`, `<meta name="lectern-analytics-url" content="https://stats.zoo.test/hit">`}},
				{f.Playground, page, "playground", []string{`<details class="lc-playground" data-lc-playground>`, `_lectern/playground.js" defer></script>`,
					`<option value="https://api.pets.test/v1">`}},
			}
			for _, c := range checks {
				for _, want := range c.subset {
					if want = built.named(want); strings.Contains(c.page, want) != c.on {
						t.Errorf("export=%v %s: page has %s = %v, want %v", export, name, want, !c.on, c.on)
					}
				}
			}
			// Content is never taken for markers, and stays whatever the
			// features.
			if !strings.Contains(fake, "Kept text between fake markers.") || !strings.Contains(care, "Fresh water every morning.") {
				t.Errorf("export=%v %s: content lost:\n%s", export, name, fake)
			}
			css := string(site[built.resolve("_lectern/style.css")])
			if strings.Contains(css, ".lc-search-button") != f.Search || strings.Contains(css, ".lc-assistant {") != f.Assistant {
				t.Errorf("export=%v %s: style.css rules of the features are wrong", export, name)
			}
			// Pure and deterministic.
			again := transformSite(t, f, built.files)
			for file := range site {
				if !bytes.Equal(site[file], again[file]) {
					t.Errorf("export=%v %s: %s differs between two runs", export, name, file)
				}
			}
		}
	}
}

// TestSiteFeaturesRegionLines: a region that stands on lines of its own
// leaves no empty line behind.
func TestSiteFeaturesRegionLines(t *testing.T) {
	in := "<p>a</p>\n<!--lectern:search-->\n<div>s</div>\n<!--/lectern:search-->\n<p>b</p><!--lectern:search-->x<!--/lectern:search--> c\n" +
		"  <!--lectern:assistant--><meta name=\"lectern-assistant-url\" content=\"\"><!--/lectern:assistant-->\n<!--lectern:analytics-->unclosed\n"
	out, keep, err := features.Site{}.Transform("a.html", []byte(in))
	if err != nil || !keep {
		t.Fatalf("Transform = %v, %v", keep, err)
	}
	want := "<p>a</p>\n<p>b</p> c\n<!--lectern:analytics-->unclosed\n"
	if string(out) != want {
		t.Errorf("off:\n got %q\nwant %q", out, want)
	}
	out, _, err = features.Site{Search: true, Assistant: true, AssistantURL: "http://x.test/a?b=<c>"}.Transform("a.html", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want = "<p>a</p>\n<div>s</div>\n<p>b</p>x c\n  <meta name=\"lectern-assistant-url\" content=\"http://x.test/a?b=&lt;c&gt;\">\n<!--lectern:analytics-->unclosed\n"
	if string(out) != want {
		t.Errorf("on:\n got %q\nwant %q", out, want)
	}
	out, _, _ = features.Site{Search: true}.Transform("b.html", []byte("X\n<!--lectern:search-->\n<!--/lectern:search-->\nY\n  <!--lectern:search-->\n  Z\n  <!--/lectern:search-->\n"))
	if want := "X\nY\n  Z\n"; string(out) != want {
		t.Errorf("on, markers on their own lines:\n got %q\nwant %q", out, want)
	}
	css := "a{}\n/*lectern:search*/\n.s{}\n/*/lectern:search*/\n@media (x) {\n  /*lectern:search*/\n  .t{}\n  /*/lectern:search*/\n  b{}\n}\n"
	out, _, _ = features.Site{}.Transform("_lectern/style.css", []byte(css))
	if want := "a{}\n@media (x) {\n  b{}\n}\n"; string(out) != want {
		t.Errorf("css off:\n got %q\nwant %q", out, want)
	}
	// The build's scripts are treated the same (analytics.js's report of
	// searches); the source's stylesheets and scripts, and other files,
	// are left alone.
	out, _, _ = (features.Site{}).Transform("_lectern/site.js", []byte(css))
	if string(out) != "a{}\n@media (x) {\n  b{}\n}\n" {
		t.Errorf("_lectern script, off:\n got %q", out)
	}
	for _, name := range []string{"theme.css", "data.json", "scripts/site.js"} {
		out, keep, _ = features.Site{}.Transform(name, []byte(css))
		if !keep || string(out) != css {
			t.Errorf("%s changed: %q", name, out)
		}
	}
}

func TestSiteFeaturesEndpoints(t *testing.T) {
	t.Parallel()
	bad := []features.Site{
		{Assistant: true},
		{Assistant: true, AssistantURL: "javascript:alert(1)"},
		{Assistant: true, AssistantURL: "ftp://ai.test/x"},
		{Assistant: true, AssistantURL: "/ask"},
		{Assistant: true, AssistantURL: "https://user:pw@ai.test/x"},
		{Analytics: true},
		{Analytics: true, AnalyticsURL: "data:text/plain,hi"},
		{Analytics: true, AnalyticsURL: "//stats.test/hit"},
		{Playground: true, PlaygroundOrigins: []string{"file:///etc"}},
	}
	for _, f := range bad {
		if _, _, err := f.Transform("index.html", []byte("<p>x</p>")); lectern.ErrorCode(err) != lectern.EINVALID {
			t.Errorf("Transform with %+v: err = %v, want EINVALID", f, err)
		}
		if err := f.Validate(); err == nil {
			t.Errorf("Validate(%+v) = nil", f)
		}
	}
	// Endpoints of features that are off are not checked.
	if _, _, err := (features.Site{AssistantURL: "javascript:x", AnalyticsURL: "x"}).Transform("index.html", nil); err != nil {
		t.Errorf("endpoints of features that are off: %v", err)
	}
	// A build refuses an endpoint that is not http(s), and takes none.
	for _, f := range []features.Site{{Assistant: true, AssistantURL: "javascript:alert(1)"}, {Analytics: true, AnalyticsURL: "mailto:a@b.test"}} {
		_, err := Build(t.Context(), sitetest.Archive(t, featureSite), newMemOutput(), Options{Features: &f})
		if lectern.ErrorCode(err) != lectern.EINVALID {
			t.Errorf("Build with %+v: err = %v, want EINVALID", f, err)
		}
	}
	f := features.Site{Assistant: true, AssistantURL: "https://ai.zoo.test/ask?a=1&b=2"}
	_, out := build(t, featureSite, Options{Features: &f})
	if page := out.get(t, "index.html"); !strings.Contains(page, `<meta name="lectern-assistant-url" content="https://ai.zoo.test/ask?a=1&amp;b=2">`) {
		t.Errorf("the build's endpoint is not in the page")
	}
}

func TestSiteFeaturesBuildDefaults(t *testing.T) {
	t.Parallel()
	_, out := build(t, featureSite, Options{})
	page := out.get(t, "guides/care.html")
	for _, want := range []string{"<!--lectern:search-->", `<button class="lc-search-button"`} {
		if !strings.Contains(page, want) {
			t.Errorf("default build: page lacks %s", want)
		}
	}
	for _, absent := range []string{"assistant", "analytics"} {
		if strings.Contains(page, absent) || strings.Contains(out.get(t, "_lectern/style.css"), absent) {
			t.Errorf("default build has %s", absent)
		}
	}
	if !out.has("_lectern/playground.js") || !out.has("_lectern/search.js") || out.has("_lectern/assistant.js") || out.has("_lectern/analytics.js") {
		t.Errorf("default build files: %v", slices.Sorted(maps.Keys(out.files)))
	}
	// A build without any feature has no trace of them, and no markers.
	_, out = build(t, featureSite, Options{Features: &features.Site{}})
	var names []string
	for name, data := range out.files {
		names = append(names, name)
		if name == "guides/fake.html" {
			continue
		}
		text := strings.ToLower(string(data))
		for _, feat := range features.Names {
			for _, w := range featureWords[feat] {
				if strings.Contains(text, strings.ToLower(w)) {
					t.Errorf("build without features: %s has %q", name, w)
				}
			}
		}
		if strings.Contains(text, "lectern:") {
			t.Errorf("build without features: %s has a marker", name)
		}
	}
	sort.Strings(names)
	for _, files := range featureFilesOf {
		for _, f := range files {
			if out.has(f) {
				t.Errorf("build without features wrote %s", f)
			}
		}
	}
}

func TestSiteFeaturesMarkers(t *testing.T) {
	if openapi.PlaygroundBegin != features.BeginMarker(lectern.FeaturePlayground) || openapi.PlaygroundEnd != features.EndMarker(lectern.FeaturePlayground) {
		t.Errorf("the openapi package's playground markers are not the render package's")
	}
}

func TestContentSecurityPolicy(t *testing.T) {
	t.Parallel()
	base := "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
	tail := "; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'self'"
	for _, c := range []struct {
		f       features.Site
		connect string
	}{
		{features.Site{}, "'self'"},
		{features.All(), "'self'"}, // no endpoints: nothing more
		{features.Site{Search: true, Playground: true}, "'self'"},
		{features.Site{Assistant: true, AssistantURL: "https://AI.zoo.test:8443/ask?q=1", Analytics: true, AnalyticsURL: "http://stats.zoo.test/hit"},
			"'self' https://ai.zoo.test:8443 http://stats.zoo.test"},
		{features.Site{Assistant: true, AssistantURL: "https://x.test/a", Analytics: true, AnalyticsURL: "https://x.test/b"}, "'self' https://x.test"},
		// Endpoints of features that are off are not allowed.
		{features.Site{AssistantURL: "https://ai.test/a", AnalyticsURL: "https://stats.test/b", PlaygroundOrigins: []string{"https://api.test"}}, "'self'"},
		{features.Site{Playground: true, PlaygroundOrigins: []string{"https://api.test/v1", "javascript:x", "https://[::1]:9000"}}, "'self' https://api.test https://[::1]:9000"},
		{features.Site{Assistant: true, AssistantURL: "https://ai.test/a;script-src *"}, "'self' https://ai.test"},
		{features.Site{Assistant: true, AssistantURL: "https://ai.test; script-src */a"}, "'self'"},
	} {
		if got, want := c.f.ContentSecurityPolicy(), base+"connect-src "+c.connect+tail; got != want {
			t.Errorf("%+v:\n got %s\nwant %s", c.f, got, want)
		}
	}
}
