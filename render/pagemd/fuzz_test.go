package pagemd

import (
	"strings"
	"testing"
	"time"

	"lectern.dev/lectern/render/config"
	"lectern.dev/lectern/render/diag"
	"lectern.dev/lectern/render/links"
	"lectern.dev/lectern/render/mdx"
)

// FuzzRender converts MDX that the scanner reads into any tree: the
// converter must not fail, must take time in proportion to the input
// (its own scanning of links, code spans and fences is linear), and must
// write Markdown that starts with the title, ends with one newline and
// holds no NUL byte (which delimits its tokens). Run with
// go test -run '^$' -fuzz FuzzRender ./render/pagemd.
func FuzzRender(f *testing.F) {
	for _, s := range []string{
		"# Hi\n\nText [a](b) and ![c](d \"t\") and [r][x].\n\n[x]: /y\n",
		"<Note>\n  A [link](../a#b) `code [x](y)` \\[not\\](z)\n</Note>\n",
		"<Steps>\n  <Step title=\"A\">\n    ```bash\n    run\n    ```\n  </Step>\n</Steps>\n",
		"1. item\n   <Card title=\"c\" href=\"/x\">body</Card>\n2. next\n",
		"<ParamField path=\"a\" type=\"string\">Desc\n<Expandable>\n<ParamField body=\"b\" />\n</Expandable></ParamField>\n",
		"Text {1 + 2} {/* c */} {false} {unknown()} <Tabs><Tab title=\"x\">y</Tab></Tabs>\n",
		"export const C = ({ t }) => (<div><h2>{t}</h2><ul><li>a</li></ul></div>);\n\n<C t=\"T\" />\n",
		"<table><tr><td>a|b</td></tr></table> <details><summary>s</summary>d</details>\n",
		strings.Repeat("[", 300) + "x" + strings.Repeat("](y)", 300),
		strings.Repeat("`", 50) + strings.Repeat("a`", 200),
		"````md\n```js\nx\n```\n````\n\x00 nul \x001\x00\n",
	} {
		f.Add(s)
	}
	lk := &links.Resolver{HasPage: func(p string) bool { return p == "a" || p == "y" }, Files: map[string]bool{"img.png": true},
		Redirects: config.NewRedirectTable(nil)}
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 1<<16 {
			return
		}
		w := &diag.Warner{Mute: 1}
		p := mdx.NewParser(src, "p.mdx", 1, true, w)
		p.ESM = &mdx.ESMSink{}
		nodes, _ := p.ParseFlow(nil)
		mod := &mdx.Module{File: "p.mdx", Nodes: nodes, Names: map[string]*mdx.Binding{}}
		for name, b := range p.ESM.Exports {
			b.Mod = mod
			mod.Names[name] = b
		}
		start := time.Now()
		out := Render(&Env{Links: lk, MaxExpansions: 200}, Page{Title: "T", File: "p.mdx", Path: "g/p", Out: "g/p.html", Module: mod})
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%d bytes took %v", len(src), d)
		}
		if !strings.HasPrefix(out, "# T\n") || !strings.HasSuffix(out, "\n") || strings.HasSuffix(out, "\n\n") {
			t.Errorf("Markdown does not start with the title or end with one newline: %q", out)
		}
		if strings.ContainsRune(out, 0) {
			t.Errorf("Markdown holds a NUL byte (a token left in): %q", out)
		}
	})
}

// FuzzMarkupOf checks the scan of code spans and brackets: every span
// starts at backticks and ends after them, and every "[" is matched by a
// "]" after it.
func FuzzMarkupOf(f *testing.F) {
	for _, s := range []string{"[a](b) `c` [[d]] `` e ` f ``", "\\[x] \\`y` [`]`]", "a\n\n[b\n\n]c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m := markupOf(s)
		for open, end := range m.code {
			if s[open] != '`' || end <= open || end > len(s) || s[end-1] != '`' {
				t.Errorf("code span %d..%d of %q", open, end, s)
			}
		}
		for open, close := range m.match {
			if s[open] != '[' || close <= open || s[close] != ']' {
				t.Errorf("brackets %d..%d of %q", open, close, s)
			}
		}
	})
}
