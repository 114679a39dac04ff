package render

import (
	"strings"
	"testing"
)

const copyButton = `<button class="lc-copy" type="button" aria-label="Copy code">Copy</button>`

func TestCodeBlockHighlighting(t *testing.T) {
	t.Parallel()
	fence := "```"
	cases := []struct {
		name, src string
		want      []string
		not       []string
	}{
		{name: "go with title",
			src: fence + "go main.go\npackage main\n\nfunc main() {}\n" + fence,
			want: []string{
				`<div class="lc-code" data-lang="go"><div class="lc-code-header"><span class="lc-code-title">main.go</span>` + copyButton + `</div><pre class="chroma"><code>`,
				`<span class="kn">package</span> <span class="nx">main</span>`,
				`<span class="kd">func</span> <span class="nf">main</span><span class="p">()</span>`,
				"</code></pre></div>",
			}},
		{name: "python highlight braces",
			src: fence + "python title.py {1,3-4}\nimport os\nx = 1\ny = 'a'\n# done\nz = 2\n" + fence,
			want: []string{
				`data-lang="python"`, `<span class="lc-code-title">title.py</span>`,
				`<span class="hl"><span class="kn">import</span> <span class="nn">os</span>` + "\n</span>",
				"<span class=\"hl\">y <span class=\"o\">=</span>",
				"<span class=\"hl\"><span class=\"c1\"># done</span>\n</span>",
				`<span class="s1">'a'</span>`,
			},
			not: []string{`<span class="hl">x`, `<span class="hl">z`}},
		{name: "js title words and highlight attribute",
			src: fence + "js Title Here highlight={2} lines wrap\nconst a = 1;\nconst b = \"<b>\";\n" + fence,
			want: []string{
				`data-lang="js"`, `<span class="lc-code-title">Title Here</span>`,
				`<span class="hl"><span class="kr">const</span> <span class="nx">b</span>`,
				`<span class="s2">&#34;&lt;b&gt;&#34;</span>`,
			},
			not: []string{`<span class="hl"><span class="kr">const</span> <span class="nx">a</span>`}},
		{name: "title attribute",
			src:  fence + "bash title=\"Install it\"\nnpm i acme\n" + fence,
			want: []string{`data-lang="bash"`, `<span class="lc-code-title">Install it</span>`}},
		{name: "unknown language is plain text",
			src:  fence + "klingon\nqapla' <x> & y\n" + fence,
			want: []string{`<div class="lc-code" data-lang="klingon">` + copyButton + `<pre class="chroma"><code>qapla' &lt;x&gt; &amp; y` + "\n</code></pre></div>"},
			not:  []string{"lc-code-header", "lc-code-title"}},
		{name: "no language",
			src:  fence + "\nplain <text>\n" + fence,
			want: []string{`<div class="lc-code" data-lang="text">` + copyButton + `<pre class="chroma"><code>plain &lt;text&gt;` + "\n</code></pre></div>"},
			not:  []string{"lc-code-header", "lc-code-title"}},
		{name: "line numbers, wrap and icon",
			src: fence + "js app.js icon=\"rocket\" lines wrap\na()\nb()\n" + fence,
			want: []string{`<div class="lc-code lc-code-wrap" data-lang="js"><div class="lc-code-header"><span class="lc-code-title"><svg class="lc-icon" data-icon="rocket"`,
				`</svg>app.js</span>` + copyButton + `</div><div class="lc-code-lines chroma"><div class="lc-line-numbers" aria-hidden="true">1` + "\n2\n</div>" + `<pre class="chroma"><code>`,
				"</code></pre></div></div>"}},
		{name: "code group",
			src: "<CodeGroup>\n\n" + fence + "bash npm\nnpm i acme\n" + fence + "\n\n" + fence + "bash yarn\nyarn add acme\n" + fence + "\n\n</CodeGroup>",
			want: []string{`<div class="lc-code-group"><div class="lc-code" data-lang="bash"><div class="lc-code-header"><span class="lc-code-title">npm</span>`,
				`<span class="lc-code-title">yarn</span>`}},
		{name: "request example",
			src:  "<RequestExample>\n\n" + fence + "json Body\n{\"a\": 1}\n" + fence + "\n\n</RequestExample>",
			want: []string{`<div class="lc-request-example lc-code-group">`, `data-lang="json"`, `<span class="nt">&#34;a&#34;</span>`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, ws := renderIndex(t, c.src, "")
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("missing %q in\n%s", w, got)
				}
			}
			for _, w := range c.not {
				if strings.Contains(got, w) {
					t.Errorf("unexpected %q in\n%s", w, got)
				}
			}
			if len(ws) > 0 {
				t.Errorf("warnings: %s", warningsText(ws))
			}
		})
	}
}

// TestHighlightCSSInStyle checks that the theme's style sheet carries the
// highlight CSS.
func TestHighlightCSSInStyle(t *testing.T) {
	t.Parallel()
	_, out := build(t, "-- docs.json --\n{\"navigation\": {\"pages\": [\"index\"]}}\n-- index.mdx --\nhi\n", Options{})
	if !strings.Contains(out.get(t, "_lectern/style.css"), `html[data-theme="dark"] .chroma .k {`) {
		t.Errorf("style.css does not include the highlight CSS")
	}
}
