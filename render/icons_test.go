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
			src: `<Icon icon="github" /> <Icon icon="fa-brands fa-discord" /> <Icon icon="openai" size={20} />`,
			want: []string{`<svg class="lc-icon" data-icon="github" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="1em" height="1em" fill="currentColor" aria-hidden="true"><path d="M12 .297c`,
				`data-icon="fa-brands fa-discord"`, `<svg class="lc-icon" data-icon="openai" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="20" height="20" fill="currentColor" aria-hidden="true"><g fill-rule="evenodd">`}},
		{name: "card tab step accordion update",
			src: "<Card title=\"C\" icon=\"code\">x</Card>\n\n<Tabs>\n<Tab title=\"T\" icon=\"terminal\">y</Tab>\n</Tabs>\n\n" +
				"<Steps>\n<Step title=\"S\" icon=\"key\">z</Step>\n</Steps>\n\n<Accordion title=\"A\" icon=\"lock\">w</Accordion>\n\n" +
				"<Note icon=\"bell\">n</Note>",
			want: []string{`<div class="lc-card"><span class="lc-card-icon"><svg class="lc-icon" data-icon="code"`, `<div class="lc-tab-title"><svg class="lc-icon" data-icon="terminal"`,
				`<div class="lc-step lc-step-with-icon"><span class="lc-step-icon"><svg class="lc-icon" data-icon="key"`, `<summary><svg class="lc-icon" data-icon="lock"`,
				`<aside class="lc-callout lc-note" role="note" aria-label="Note"><span class="lc-callout-icon"><svg class="lc-icon" data-icon="bell"`}},
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

func TestFooterSocials(t *testing.T) {
	t.Parallel()
	for _, form := range []string{
		`"footer": {"socials": {"x": "https://x.com/acme", "github": "https://github.com/acme", "website": "/", "mastodon": "https://m.test/@a", "myspace": "https://myspace.test/a"}}`,
		`"footerSocials": [{"type": "x", "url": "https://x.com/acme"}, {"type": "github", "url": "https://github.com/acme"}, {"type": "website", "url": "/"}, {"type": "mastodon", "url": "https://m.test/@a"}, {"type": "myspace", "url": "https://myspace.test/a"}]`,
	} {
		site := "-- docs.json --\n{\"navigation\": {\"pages\": [\"index\"]}, " + form + "}\n-- index.mdx --\n# Hi\n"
		res, out := build(t, site, Options{Export: true})
		if len(res.Warnings) > 0 {
			t.Errorf("warnings: %v", res.Warnings)
		}
		page := out.get(t, "index.html")
		i, j := strings.Index(page, `<nav class="lc-socials"`), strings.Index(page, `<span class="lc-footer-note">`)
		if i < 0 || j < i {
			t.Fatalf("no socials in\n%s", page)
		}
		footer := page[i:j]
		for _, want := range []string{
			`<a class="lc-social lc-social-github" href="https://github.com/acme" aria-label="GitHub" title="GitHub" rel="noopener"><svg class="lc-icon" data-icon="github"`,
			`<a class="lc-social lc-social-x" href="https://x.com/acme" aria-label="X" title="X" rel="noopener"><svg class="lc-icon" data-icon="x-twitter"`,
			`<a class="lc-social lc-social-website" href="index.html" aria-label="Website" title="Website"><svg class="lc-icon" data-icon="globe"`,
			`aria-label="Mastodon" title="Mastodon" rel="noopener"><svg class="lc-icon" data-icon="mastodon"`,
			// A key without an icon keeps its name as text.
			`<a class="lc-social lc-social-myspace" href="https://myspace.test/a" aria-label="Myspace" title="Myspace" rel="noopener">Myspace</a>`,
		} {
			if !strings.Contains(footer, want) {
				t.Errorf("footer lacks %s:\n%s", want, footer)
			}
		}
		// Nothing but the links themselves points at another host.
		if n := strings.Count(footer, "https://"); n != 4 {
			t.Errorf("footer names another host %d times, want 4 (the links):\n%s", n, footer)
		}
	}
}

func TestNavGroupIcon(t *testing.T) {
	t.Parallel()
	_, out := build(t, "-- docs.json --\n{\"navigation\": {\"groups\": [{\"group\": \"Start\", \"icon\": \"rocket\", \"pages\": [\"index\"]}]}}\n-- index.mdx --\n# Hi\n", Options{})
	if page := out.get(t, "index.html"); !strings.Contains(page, `<svg class="lc-icon" data-icon="rocket"`) {
		t.Errorf("navigation group icon not rendered")
	}
}
