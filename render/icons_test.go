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
			src: `Go <Icon icon="rocket" /> now.`,
			want: []string{`<svg class="lc-icon" data-icon="rocket" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 512 512" width="1em" height="1em" fill="currentColor" aria-hidden="true">`,
				`<path d="M128 320L24.5 320c-24.9`, `</svg> now.`}},
		{name: "font awesome bolt is lightning",
			src:  `<Icon icon="bolt" />`,
			want: []string{`viewBox="0 0 448 512"`, `<path d="M338.8-9.9c11.9 8.6`}},
		{name: "size and colour",
			src:  `<Icon icon="star" size={32} color="#FF0000" />`,
			want: []string{`data-icon="star"`, `width="32" height="32"`, `style="color: #FF0000"`}},
		{name: "icon type",
			// Regular unless told otherwise, as on Mintlify; solid when asked.
			src: `<Icon icon="star" /> <Icon icon="star" iconType="solid" /> <Icon icon="star" iconType="duotone" /> <Icon icon="fa-solid fa-star" />`,
			want: []string{`data-icon="star" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 576 512" width="1em" height="1em" fill="currentColor" aria-hidden="true"><path d="M288.1-32c9 0 17.3 5.1 21.4 13.1L383 125.3`,
				`<svg class="lc-icon" data-icon="star" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 576 512" width="1em" height="1em" fill="currentColor" aria-hidden="true"><path d="M309.5-18.9c-4.1-8-12.4-13.1-21.4-13.1s-17.3 5.1-21.4 13.1L193.1 125.3`,
				`data-icon="fa-solid fa-star" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 576 512" width="1em" height="1em" fill="currentColor" aria-hidden="true"><path d="M309.5-18.9c`}},
		{name: "font awesome alias",
			src:  `<Icon icon="pen-to-square" /> <Icon icon="book-open-cover" /> <Icon icon="fa-solid fa-gear" /> <Icon icon="cog" />`,
			want: []string{`data-icon="pen-to-square"`, `data-icon="book-open-cover"`, `data-icon="fa-solid fa-gear"`, `data-icon="cog"`}},
		{name: "brand icon",
			src: `<Icon icon="github" /> <Icon icon="fa-brands fa-discord" /> <Icon icon="anthropic" size={20} />`,
			want: []string{`<svg class="lc-icon" data-icon="github" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 512 512" width="1em" height="1em" fill="currentColor" aria-hidden="true"><path d="M173.9 397.4c`,
				`data-icon="fa-brands fa-discord" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 576 512"`,
				// Not in Font Awesome: the curated brand logos.
				`<svg class="lc-icon" data-icon="anthropic" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="20" height="20" fill="currentColor" aria-hidden="true"><path d="M17.3041 3.541h`}},
		{name: "lucide name on a font awesome site",
			src:  `<Icon icon="cpu" /> <Icon icon="refresh-cw" />`,
			want: []string{`data-icon="cpu" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="1em" height="1em" fill="none" stroke="currentColor"`, `data-icon="refresh-cw" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"`}},
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

// docs.json's icons.library chooses the set names come from first: Lucide
// draws "bolt" as a nut and "rocket" stroked, Font Awesome names that
// Lucide lacks still draw; a library Mintlify does not know is Font
// Awesome, with a warning.
func TestIconLibrary(t *testing.T) {
	t.Parallel()
	page := "-- index.mdx --\n<Icon icon=\"bolt\" /> <Icon icon=\"rocket\" /> <Icon icon=\"arrow-pointer\" /> <Icon icon=\"gear\" />\n"
	res, out := build(t, "-- docs.json --\n{\"icons\": {\"library\": \"lucide\"}, \"navigation\": {\"groups\": [{\"group\": \"G\", \"icon\": \"bolt\", \"pages\": [\"index\"]}]}}\n"+page, Options{})
	if len(res.Warnings) > 0 {
		t.Errorf("warnings: %v", res.Warnings)
	}
	got := out.get(t, "index.html")
	for _, want := range []string{
		`<svg class="lc-icon" data-icon="bolt" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="1em" height="1em" fill="none" stroke="currentColor"`,
		`data-icon="rocket" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"`,
		`data-icon="arrow-pointer" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 448 512"`,
		`data-icon="gear" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"`,
		// The navigation's icons come from the library too.
		`<p class="lc-nav-heading"><svg class="lc-icon" data-icon="bolt" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	res, out = build(t, "-- docs.json --\n{\n\"icons\": {\"library\": \"material\"},\n\"navigation\": {\"pages\": [\"index\"]}}\n"+page, Options{})
	if wt := warningsText(res.Warnings); wt != `docs.json:2: icons.library "material" is not fontawesome, lucide or tabler; using Font Awesome` {
		t.Errorf("warnings: %s", wt)
	}
	if got := out.get(t, "index.html"); !strings.Contains(got, `data-icon="bolt" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 448 512"`) {
		t.Errorf("an unknown library does not draw Font Awesome")
	}
}

// An icon of the configuration or of a page's front matter that no set
// draws is a warning naming it, once per name.
func TestUnknownConfigIcons(t *testing.T) {
	t.Parallel()
	site := "-- docs.json --\n{\"navigation\": {\"tabs\": [{\"tab\": \"T\", \"icon\": \"no-such-tab-icon\", \"groups\": [\n" +
		"{\"group\": \"A\", \"icon\": \"no-such-group-icon\", \"pages\": [\"index\", \"b\"]},\n" +
		"{\"group\": \"B\", \"icon\": \"no-such-group-icon\", \"pages\": [\"c\"]},\n" +
		"{\"group\": \"C\", \"icon\": \"/img/x.svg\", \"pages\": [\"d\"]},\n" +
		"{\"group\": \"D\", \"icon\": \"fa-duotone fa-rocket\", \"pages\": [\"e\"]}]}]}}\n" +
		"-- index.mdx --\n---\ntitle: Home\nicon: no-such-page-icon\n---\nHi\n" +
		"-- b.mdx --\n---\nicon: rocket\n---\nB\n-- c.mdx --\nC\n-- d.mdx --\nD\n-- e.mdx --\nE\n-- img/x.svg --\n<svg xmlns=\"http://www.w3.org/2000/svg\"/>\n"
	res, _ := build(t, site, Options{})
	want := "docs.json:1: unknown icon \"no-such-tab-icon\"\ndocs.json:2: unknown icon \"no-such-group-icon\"\nindex.mdx:1: unknown icon \"no-such-page-icon\" (front matter)"
	if got := warningsText(res.Warnings); got != want {
		t.Errorf("warnings:\n%s\nwant:\n%s", got, want)
	}
}
