package render

import (
	"strings"
	"testing"
)

const mermaidSite = `-- docs.json --
{"navigation": {"pages": ["index", "guides/flow", "plain"]}}
-- index.mdx --
# Home
-- guides/flow.mdx --
# Flow

` + "```mermaid\ngraph TD;\n  A-->B & C;\n```" + `

<Mermaid chart="sequenceDiagram; A->>B: hi" />
-- plain.mdx --
# Plain

` + "```js\nlet a = 1\n```\n"

func TestMermaid(t *testing.T) {
	t.Parallel()
	for _, export := range []bool{false, true} {
		opts := Options{BasePath: "/docs"}
		lib, init := `<script src="/docs/_lectern/mermaid.min.js" defer></script>`, `<script src="/docs/_lectern/mermaid-init.js" defer></script>`
		if export {
			opts = Options{Export: true}
			lib, init = `<script src="../_lectern/mermaid.min.js" defer></script>`, `<script src="../_lectern/mermaid-init.js" defer></script>`
		}
		res, out := build(t, mermaidSite, opts)
		if len(res.Warnings) > 0 {
			t.Errorf("warnings: %s", warningsText(res.Warnings))
		}
		flow := out.get(t, "guides/flow.html")
		for _, w := range []string{"<pre class=\"mermaid\">graph TD;\n  A--&gt;B &amp; C;\n</pre>",
			`<pre class="mermaid">sequenceDiagram; A-&gt;&gt;B: hi</pre>`, lib + init} {
			if w = out.named(w); !strings.Contains(flow, w) {
				t.Errorf("export=%v: flow page lacks %q", export, w)
			}
		}
		if strings.Contains(flow, `data-lang="mermaid"`) {
			t.Errorf("mermaid fence rendered as code")
		}
		for _, p := range []string{"plain.html", "index.html"} {
			if strings.Contains(out.get(t, p), "mermaid") {
				t.Errorf("export=%v: %s loads mermaid", export, p)
			}
		}
		if out.get(t, "_lectern/mermaid.min.js") != string(mermaidJS) || len(mermaidJS) < 100000 {
			t.Errorf("export=%v: _lectern/mermaid.min.js not written", export)
		}
		if !strings.Contains(out.get(t, "_lectern/mermaid-init.js"), "startOnLoad: true") {
			t.Errorf("export=%v: _lectern/mermaid-init.js not written", export)
		}
	}
}

func TestNoMermaidNoAsset(t *testing.T) {
	t.Parallel()
	_, out := build(t, "-- docs.json --\n{\"navigation\": {\"pages\": [\"index\"]}}\n-- index.mdx --\n# Hi\n\n```go\nx := 1\n```\n", Options{})
	if out.has("_lectern/mermaid.min.js") || out.has("_lectern/mermaid-init.js") {
		t.Errorf("mermaid assets written for a site without diagrams")
	}
	if strings.Contains(out.get(t, "index.html"), "mermaid") {
		t.Errorf("page without a diagram mentions mermaid")
	}
}
