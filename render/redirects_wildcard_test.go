package render

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"lectern.dev/lectern/render/features"
)

// wildcardSite has wildcard redirects of every supported form, an exact
// one they may lead to, and rules that cannot be expressed.
const wildcardSite = `
-- docs.json --
{"navigation": {"pages": ["index", "new/a", "new/deep/b", "guide/index", "intro"]},
 "redirects": [
  {"source": "/old/:slug*", "destination": "/new/:slug*"},
  {"source": "/blog/*", "destination": "https://blog.test/posts/*"},
  {"source": "/one/:id", "destination": "/new/:id#top"},
  {"source": "/opt/:p?", "destination": "/guide/:p?"},
  {"source": "/plus/:rest+", "destination": "/new/:rest+"},
  {"source": "/legacy", "destination": "/intro"},
  {"source": "/chain/:x", "destination": "/legacy"},
  {"source": "/hop/:x*", "destination": "/old/:x*"},
  {"source": "/img/:f", "destination": "/images/:f"},
  {"source": "/caf%C3%A9/:x", "destination": "/new/:x"},
  {"source": "/q/:x", "destination": "/new/:x?from=q"},
  {"source": "/a/:x*/b", "destination": "/new"},
  {"source": "/a/foo-:id", "destination": "/new/:id"},
  {"source": "/a/(.*)", "destination": "/new"},
  {"source": "/b/:x", "destination": "/new/:y"},
  {"source": "/c/:x", "destination": "javascript:alert(1)"},
  {"source": "/d/:x*", "destination": "/nowhere"},
  {"source": "/e/:x/:x", "destination": "/new/:x"}
 ]}
-- index.mdx --
# Home
-- new/a.mdx --
# A
-- new/deep/b.mdx --
# B
-- guide/index.mdx --
# Guide
-- intro.mdx --
# Intro
-- images/logo.png --
PNG
`

// redirectsData decodes the configuration appended to redirects.js.
func redirectsData(t *testing.T, script string) redirectConfig {
	t.Helper()
	if !strings.HasPrefix(script, string(redirectsJS)) || !strings.HasSuffix(script, ");\n") {
		t.Fatalf("redirects.js is not the matcher and its call:\n%s", script)
	}
	var c redirectConfig
	data := strings.TrimSuffix(strings.TrimPrefix(script, string(redirectsJS)+"("), ");\n")
	if err := json.Unmarshal([]byte(data), &c); err != nil {
		t.Fatalf("redirects.js data: %v\n%s", err, data)
	}
	return c
}

func TestWildcardRedirectRules(t *testing.T) {
	t.Parallel()
	res, out := build(t, wildcardSite, Options{BasePath: "/docs"})
	c := redirectsData(t, out.get(t, "_lectern/redirects.js"))
	got, _ := json.Marshal(c.Rules)
	want := `[` +
		`{"s":[{"l":"old"},{"p":"slug","m":"*"}],"d":[{"l":"new"},{"p":"slug"}]},` +
		`{"s":[{"l":"blog"},{"p":"*","m":"*"}],"d":[{"l":"https:"},{},{"l":"blog.test"},{"l":"posts"},{"p":"*"}],"x":true},` +
		`{"s":[{"l":"one"},{"p":"id"}],"d":[{"l":"new"},{"p":"id"}],"q":"#top"},` +
		`{"s":[{"l":"opt"},{"p":"p","m":"?"}],"d":[{"l":"guide"},{"p":"p"}]},` +
		`{"s":[{"l":"plus"},{"p":"rest","m":"+"}],"d":[{"l":"new"},{"p":"rest"}]},` +
		`{"s":[{"l":"chain"},{"p":"x"}],"d":[{"l":"legacy"}]},` +
		`{"s":[{"l":"hop"},{"p":"x","m":"*"}],"d":[{"l":"old"},{"p":"x"}]},` +
		`{"s":[{"l":"img"},{"p":"f"}],"d":[{"l":"images"},{"p":"f"}]},` +
		`{"s":[{"l":"café"},{"p":"x"}],"d":[{"l":"new"},{"p":"x"}]},` +
		`{"s":[{"l":"q"},{"p":"x"}],"d":[{"l":"new"},{"p":"x"}],"q":"?from=q"}]`
	if string(got) != want {
		t.Errorf("rules:\n got %s\nwant %s", got, want)
	}
	if c.Export || strings.Join(c.Pages, " ") != "index new/a new/deep/b guide/index intro" {
		t.Errorf("export %v, pages %v", c.Export, c.Pages)
	}
	if len(c.Exact) != 1 || c.Exact["legacy"] != "intro" {
		t.Errorf("exact = %v", c.Exact)
	}
	// Only the rules that cannot be expressed are warned, each at its line.
	wantWarn := []string{
		`redirect source "/a/:x*/b" has ":x*" before its end`,
		`redirect source "/a/foo-:id" has a segment "foo-:id" that a static site cannot match`,
		`redirect source "/a/(.*)" has a segment "(.*)"`,
		`redirect destination "/new/:y" names ":y", which its source "/b/:x" does not have`,
		`redirect destination "javascript:alert(1)" (from "/c/:x") is not a web address`,
		`redirect destination "/nowhere" (from "/d/:x*") not found`,
		`redirect source "/e/:x/:x" names the parameter "x" twice`,
	}
	if len(res.Warnings) != len(wantWarn) {
		t.Errorf("warnings: %v", res.Warnings)
	}
	for i, w := range res.Warnings {
		if i < len(wantWarn) && (!strings.Contains(w.Message, wantWarn[i]) || w.File != "docs.json" || w.Line == 0) {
			t.Errorf("warning %d = %v, want %s", i, w, wantWarn[i])
		}
	}
	if page := out.get(t, "404.html"); !strings.Contains(page, out.named(`<script src="/docs/_lectern/redirects.js"></script>`)) {
		t.Errorf("404.html does not load the redirects")
	}
	for _, name := range []string{"index.html", "new/a.html"} {
		if strings.Contains(out.get(t, name), "redirects.js") {
			t.Errorf("%s loads the redirects", name)
		}
	}
	checkNoExternalRefs(t, out.files)
}

func TestWildcardRedirectScriptURL(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		opts Options
		want string
	}{
		{Options{}, `<script src="/_lectern/redirects.js">`},
		{Options{BasePath: "/docs"}, `<script src="/docs/_lectern/redirects.js">`},
		{Options{Export: true}, `<script src="/_lectern/redirects.js">`},
		{Options{Export: true, BasePath: "/docs"}, `<script src="/docs/_lectern/redirects.js">`},
		// An export whose address is known finds the script from any depth.
		{Options{Export: true, SiteURL: "https://docs.test/base"}, `<script src="/base/_lectern/redirects.js">`},
		{Options{Export: true, SiteURL: "https://docs.test", BasePath: "/kb"}, `<script src="/kb/_lectern/redirects.js">`},
	} {
		_, out := build(t, wildcardSite, c.opts)
		if page := out.get(t, "404.html"); !strings.Contains(page, out.named(c.want)) {
			t.Errorf("%+v: 404.html lacks %s", c.opts, c.want)
		}
	}
	// Without wildcard redirects there is no script.
	_, out := build(t, "-- docs.json --\n{\"navigation\": {\"pages\": [\"index\"]}, \"redirects\": [{\"source\": \"/a\", \"destination\": \"/\"}]}\n-- index.mdx --\n# Hi\n", Options{})
	if out.has("_lectern/redirects.js") || strings.Contains(out.get(t, "404.html"), "redirects.js") {
		t.Errorf("a site without wildcard redirects has the script")
	}
}

// redirectCase is a missing URL and where the script must send the
// browser ("" to stay on the 404 page).
type redirectCase struct {
	URL  string `json:"url"`
	Want string `json:"want"`
}

// redirectCases are the cases of the live form under /docs, served at
// http://h, and of the export form opened from file:///site.
var redirectCases = map[bool][]redirectCase{
	false: {
		{"http://h/docs/old/a", "http://h/docs/new/a"},
		{"http://h/docs/old/deep/b/", "http://h/docs/new/deep/b"},
		{"http://h/docs/old/a.html?x=1#f", "http://h/docs/new/a?x=1#f"},
		{"http://h/docs/old/nope", ""},
		{"http://h/docs/old", ""},
		{"http://h/docs/blog/2024/hello?x=1", "https://blog.test/posts/2024/hello?x=1"},
		{"http://h/docs/blog/a%20b", "https://blog.test/posts/a%20b"},
		{"http://h/docs/one/a", "http://h/docs/new/a#top"},
		{"http://h/docs/one/a/b", ""},
		{"http://h/docs/opt", "http://h/docs/guide/index"},
		{"http://h/docs/opt/x", ""},
		{"http://h/docs/plus", ""},
		{"http://h/docs/plus/deep/b", "http://h/docs/new/deep/b"},
		{"http://h/docs/chain/z", "http://h/docs/intro"},
		{"http://h/docs/hop/deep/b", "http://h/docs/new/deep/b"},
		{"http://h/docs/img/logo.png", "http://h/docs/images/logo.png"},
		{"http://h/docs/caf%C3%A9/a", "http://h/docs/new/a"},
		{"http://h/docs/q/a#f", "http://h/docs/new/a?from=q"},
		{"http://h/old/a", ""},
		{"http://h/docs/a/x/b", ""},
		{"http://h/docs/e/a/a", ""},
	},
	true: {
		{"file:///site/old/a.html", "file:///site/new/a.html"},
		{"file:///site/old/deep/b.html", "file:///site/new/deep/b.html"},
		{"file:///site/opt.html", "file:///site/guide/index.html"},
		{"file:///site/one/a.html", "file:///site/new/a.html#top"},
		{"file:///site/chain/z.html", "file:///site/intro.html"},
		{"file:///site/blog/x.html", "https://blog.test/posts/x"},
		{"file:///site/old/nope.html", ""},
		{"file:///elsewhere/old/a.html", ""},
	},
}

// TestWildcardRedirectsScript runs _lectern/redirects.js in Node, when it
// is installed, with a stand-in document and location for each case. The
// browser test runs it in Chromium against a served site.
func TestWildcardRedirectsScript(t *testing.T) {
	t.Parallel()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed")
	}
	for _, export := range []bool{false, true} {
		opts, scriptURL := Options{BasePath: "/docs"}, "http://h/docs/"
		if export {
			opts, scriptURL = Options{Export: true}, "file:///site/"
		}
		_, out := build(t, wildcardSite, opts)
		// The script finds the site's root from its own name, with its hash.
		scriptURL += out.resolve("_lectern/redirects.js")
		if !features.HashedAsset(out.resolve("_lectern/redirects.js")) {
			t.Fatalf("export=%v: redirects.js is written without its hash", export)
		}
		dir := t.TempDir()
		script := filepath.Join(dir, "redirects.js")
		cases := filepath.Join(dir, "cases.json")
		harness := filepath.Join(dir, "run.js")
		data, _ := json.Marshal(redirectCases[export])
		for name, content := range map[string]string{script: out.get(t, "_lectern/redirects.js"), cases: string(data), harness: nodeHarness} {
			if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		res, err := exec.Command(node, harness, script, cases, scriptURL).CombinedOutput()
		if err != nil {
			t.Fatalf("node: %v\n%s", err, res)
		}
		var got []string
		if err := json.Unmarshal(res, &got); err != nil {
			t.Fatalf("node output: %v\n%s", err, res)
		}
		for i, c := range redirectCases[export] {
			if i >= len(got) || got[i] != c.Want {
				t.Errorf("export=%v: %s → %q, want %q", export, c.URL, got[min(i, len(got)-1)], c.Want)
			}
		}
	}
}

// nodeHarness runs a redirects.js (argv 2) for each case of a JSON file
// (argv 3) with the script at the URL argv 4, and prints where each went.
const nodeHarness = `
const fs = require("fs");
const code = fs.readFileSync(process.argv[2], "utf8");
const cases = JSON.parse(fs.readFileSync(process.argv[3], "utf8"));
const out = cases.map(c => {
  const u = new URL(c.url);
  let went = "";
  const location = { pathname: u.pathname, search: u.search, hash: u.hash, href: u.href, replace(to) { went = to; } };
  const document = { currentScript: { src: process.argv[4] } };
  new Function("document", "location", code)(document, location);
  return went;
});
console.log(JSON.stringify(out));
`
