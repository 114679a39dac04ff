package render

import (
	"strings"
	"testing"
)

func TestIcons(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, src string
		want      []string
		warn      string
	}{
		{name: "known name",
			src:  `Go <Icon icon="rocket" /> now.`,
			want: []string{`<svg class="lc-icon" data-icon="rocket" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="1em" height="1em"`, `<path d="M12 15v5s3.03-.55 4-2c1.08-1.62 0-5 0-5"/>`, `</svg> now.`}},
		{name: "size and colour",
			src:  `<Icon icon="star" size={32} color="#FF0000" />`,
			want: []string{`data-icon="star"`, `width="32" height="32"`, `style="color: #FF0000"`}},
		{name: "font awesome alias",
			src:  `<Icon icon="pen-to-square" /> <Icon icon="book-open-cover" /> <Icon icon="fa-solid fa-gear" />`,
			want: []string{`data-icon="pen-to-square"`, `data-icon="book-open-cover"`, `data-icon="fa-solid fa-gear"`}},
		{name: "brand icon",
			src:  `<Icon icon="github" />`,
			want: []string{`<svg class="lc-icon" data-icon="github"`}},
		{name: "card tab step accordion update",
			src: "<Card title=\"C\" icon=\"code\">x</Card>\n\n<Tabs>\n<Tab title=\"T\" icon=\"terminal\">y</Tab>\n</Tabs>\n\n" +
				"<Steps>\n<Step title=\"S\" icon=\"key\">z</Step>\n</Steps>\n\n<Accordion title=\"A\" icon=\"lock\">w</Accordion>\n\n" +
				"<Note icon=\"bell\">n</Note>",
			want: []string{`<div class="lc-card"><svg class="lc-icon" data-icon="code"`, `<div class="lc-tab-title"><svg class="lc-icon" data-icon="terminal"`,
				`<div class="lc-step-title"><svg class="lc-icon" data-icon="key"`, `<summary><svg class="lc-icon" data-icon="lock"`,
				`<svg class="lc-icon" data-icon="bell"`}},
		{name: "unknown name",
			src:  "Line one.\n\nSee <Icon icon=\"no-such-icon-xyz\" /> here.",
			want: []string{`See <span class="lc-icon" data-icon="no-such-icon-xyz" aria-hidden="true"></span> here.`},
			warn: `index.mdx:3: unknown icon "no-such-icon-xyz"`},
		{name: "path icon",
			src:  `<Card title="P" icon="/images/x.svg">p</Card>`,
			want: []string{`<img class="lc-icon" src="/docs/images/x.svg" alt="" aria-hidden="true">`}},
		{name: "missing path icon",
			src:  `<Card title="P" icon="/images/none.svg">p</Card>`,
			want: []string{`<img class="lc-icon" src="/docs/images/none.svg"`},
			warn: `image "/images/none.svg" not found`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, ws := renderIndex(t, c.src, "-- images/x.svg --\n<svg xmlns=\"http://www.w3.org/2000/svg\"/>\n")
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("missing %q in\n%s", w, got)
				}
			}
			wt := warningsText(ws)
			if c.warn == "" && wt != "" {
				t.Errorf("warnings: %s", wt)
			}
			if c.warn != "" && !strings.Contains(wt, c.warn) {
				t.Errorf("warnings %q lack %q", wt, c.warn)
			}
		})
	}
}

func TestIconAliasesResolve(t *testing.T) {
	t.Parallel()
	for fa, lucide := range faIcons {
		if lucideIcons()[lucide] == "" {
			t.Errorf("faIcons[%q] = %q, which is not a bundled icon", fa, lucide)
		}
	}
	for _, n := range []string{"rocket", "code", "terminal", "github", "book-open", "square-pen", "house", "mic", "edit", "help-circle"} {
		if lookupIcon(n) == "" {
			t.Errorf("icon %q missing", n)
		}
	}
	if len(lucideIcons()) < 2000 {
		t.Errorf("only %d icons bundled", len(lucideIcons()))
	}
	if len(lucideData) > 1<<20 {
		t.Errorf("icon data is %d bytes, want under 1 MB", len(lucideData))
	}
	if iconHTML("/x.svg") != "" || iconHTML("nope-nope") != "" || !strings.HasPrefix(iconHTML("rocket"), "<svg") {
		t.Errorf("iconHTML: wrong result")
	}
}

func BenchmarkIconSVG(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		_ = iconSVG("rocket", 0, "")
	}
}

func TestNavGroupIcon(t *testing.T) {
	t.Parallel()
	_, out := build(t, "-- docs.json --\n{\"navigation\": {\"groups\": [{\"group\": \"Start\", \"icon\": \"rocket\", \"pages\": [\"index\"]}]}}\n-- index.mdx --\n# Hi\n", Options{})
	if page := out.get(t, "index.html"); !strings.Contains(page, `<svg class="lc-icon" data-icon="rocket"`) {
		t.Errorf("navigation group icon not rendered")
	}
}
