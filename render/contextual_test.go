package render

import (
	"strings"
	"testing"
)

// TestContextualMenu: docs.json's contextual chooses the page actions:
// by default "Copy page" and a menu with "View as Markdown" and "Copy
// link"; "view" first makes the button a link to the Markdown; no option
// leaves them and their script out.
func TestContextualMenu(t *testing.T) {
	t.Parallel()
	site := func(contextual string) string {
		return "-- docs.json --\n{\"name\": \"X\"" + contextual + ", \"navigation\": {\"pages\": [\"index\", \"guides/a\"]}}\n" +
			"-- index.mdx --\n---\ntitle: Home\n---\nHi.\n-- guides/a.mdx --\n---\ntitle: A\n---\nA.\n"
	}
	cases := []struct {
		name, contextual string
		export           bool
		want, not        []string
		script           bool
	}{
		{name: "default", want: []string{`<div class="lc-page-actions" id="page-context-menu" data-markdown="/guides/a.md">`,
			`<button class="lc-page-action" type="button" data-action="copy">`, `data-action="view"`, `data-action="link"`,
			`<script src="/_lectern/contextual.js" defer></script>`}, script: true},
		{name: "export", export: true, want: []string{`data-markdown="a.md"`, `href="a.md" data-action="view"`,
			`<script src="../_lectern/contextual.js" defer></script>`}, script: true},
		{name: "view first", contextual: `, "contextual": {"options": ["view", "chatgpt"]}`,
			want: []string{`<a class="lc-page-action" href="/guides/a.md" data-action="view">`, `data-action="link"`},
			not:  []string{`data-action="copy"`}, script: true},
		{name: "copy only", contextual: `, "contextual": {"options": ["copy"]}`,
			want: []string{`<button class="lc-page-action" type="button" data-action="copy">`}, not: []string{`data-action="view"`}, script: true},
		{name: "none", contextual: `, "contextual": {"options": []}`, not: []string{`lc-page-actions`, `contextual.js`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, out := build(t, site(c.contextual), Options{Export: c.export})
			page := out.get(t, "guides/a.html")
			for _, w := range c.want {
				if w = out.named(w); !strings.Contains(page, w) {
					t.Errorf("guides/a.html lacks %s", w)
				}
			}
			for _, n := range c.not {
				if strings.Contains(page, n) {
					t.Errorf("guides/a.html has %s", n)
				}
			}
			if out.has("_lectern/contextual.js") != c.script {
				t.Errorf("_lectern/contextual.js written: %v, want %v", out.has("_lectern/contextual.js"), c.script)
			}
			if strings.Contains(out.get(t, "404.html"), "lc-page-actions") {
				t.Errorf("404.html has the page actions")
			}
			// The Markdown is there whatever the menu.
			if !strings.HasPrefix(out.get(t, "guides/a.md"), "# A\n") {
				t.Errorf("guides/a.md: %q", out.get(t, "guides/a.md"))
			}
		})
	}
}
