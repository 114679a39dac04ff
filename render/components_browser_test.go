package render

import (
	"context"
	"testing"

	"lectern.dev/lectern/internal/browsertest"
	"lectern.dev/lectern/internal/sitetest"
	"lectern.dev/lectern/render/output"
)

// componentsSite is a page of the components that site.js makes
// interactive.
const componentsSite = "-- docs.json --\n" +
	`{"name": "C", "favicon": "/favicon.svg", "colors": {"primary": "#16A34A"}, "banner": {"content": "Hello **all**"}, "navigation": {"pages": ["index"]}}` + "\n" +
	"-- favicon.svg --\n<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 1 1\"/>\n" +
	"-- index.mdx --\n---\ntitle: Components\n---\n\n## Start\n\n" +
	"<Tabs>\n  <Tab title=\"JavaScript\">JS tab.</Tab>\n  <Tab title=\"Python\">Python tab.</Tab>\n</Tabs>\n\n" +
	"<CodeGroup>\n```js JavaScript\nlet a\n```\n```py Python\na = 1\n```\n</CodeGroup>\n\n" +
	"<CodeGroup dropdown>\n```js One\n1\n```\n```js Two\n2\n```\n</CodeGroup>\n\n" +
	"<View title=\"Go\">\n  ## Go setup\n  Go view.\n</View>\n\n<View title=\"Rust\">\n  ## Rust setup\n  Rust view.\n</View>\n\n" +
	"An <Tooltip tip=\"Application Programming Interface\">API</Tooltip> term.\n\n" +
	"<Accordion title=\"Question\" id=\"faq\">Answer.</Accordion>\n\n" +
	"<Prompt description=\"A prompt\">Write **docs**.</Prompt>\n\n" +
	"<Color variant=\"compact\">\n  <Color.Item name=\"a\" value=\"#3B82F6\" />\n</Color>\n\n" +
	"<Panel>\n  Side note.\n</Panel>\n\n" +
	"```bash wrap\necho \"a long line of words that goes on and on, past the width of the page, so that it wraps under its copy button\"\n```\n"

// componentsBrowserFlow checks the behaviour site.js gives components:
// tabs and code groups in sync by title, a code group's menu, one view
// at a time, a tooltip shown on focus, an accordion opened by the URL and
// the panel beside the page.
func componentsBrowserFlow(t *testing.T, ctx, browserCtx context.Context) {
	dir := t.TempDir()
	if _, err := Build(ctx, sitetest.Archive(t, componentsSite), output.Dir{Dir: dir}, Options{}); err != nil {
		t.Fatalf("Build: %v", err)
	}
	base := serveSite(t, dir)
	tab := browsertest.NewTab(t, browserCtx, browsertest.Options{Origins: []string{base}})
	if !tab.Open(base + "/#faq") {
		return
	}
	for _, c := range []struct{ step, js, want string }{
		{"the banner is above the header", `document.body.querySelector(".lc-banner-bar + .lc-header") ? "ok" : "no"`, "ok"},
		{"the accordion named by the URL is open", `document.getElementById("faq").open ? "open" : "closed"`, "open"},
		{"choosing a tab chooses the code group's block of that title", `(function () {
			document.querySelectorAll(".lc-tabs .lc-tab-button")[1].click();
			const group = document.querySelector(".lc-code-group:not(.lc-code-dropdown)");
			const shown = Array.from(group.querySelectorAll(":scope > .lc-code")).filter(p => !p.hidden);
			return shown.length + " " + shown[0].getAttribute("data-lang");
		})()`, "1 py"},
		{"a code group with dropdown has a menu", `(function () {
			const group = document.querySelector(".lc-code-dropdown");
			const menu = group.querySelector("select");
			menu.value = "1";
			menu.dispatchEvent(new Event("change"));
			const shown = Array.from(group.querySelectorAll(":scope > .lc-code")).filter(p => !p.hidden);
			return group.querySelector(".lc-code-current").textContent + " " + shown.length + " " + shown[0].textContent.includes("2");
		})()`, "Two 1 true"},
		{"one view at a time, and the table of contents follows", `(function () {
			const views = Array.from(document.querySelectorAll(".lc-view")).filter(v => !v.hidden);
			const menu = document.querySelector(".lc-view-select select");
			const toc = Array.from(document.querySelectorAll(".lc-toc li")).filter(li => !li.hidden).map(li => li.textContent.trim());
			return views.length + " " + views[0].getAttribute("data-view") + " " + menu.options.length + " " + toc.join(",");
		})()`, "1 Go 2 Start,Go setup"},
		{"a tooltip shows on keyboard focus", `(function () {
			const t = document.querySelector(".lc-tooltip");
			t.focus();
			return getComputedStyle(t.querySelector(".lc-tooltip-bubble")).visibility;
		})()`, "visible"},
		{"the banner's text reads on its colour", `(function () {
			const rgb = c => (c.match(/[\d.]+/g) || []).slice(0, 3).map(Number);
			const lum = c => {
				const v = rgb(c).map(x => { x /= 255; return x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4); });
				return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2];
			};
			const bar = getComputedStyle(document.querySelector(".lc-banner-bar"));
			const a = lum(bar.color), b = lum(bar.backgroundColor);
			const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
			return ratio >= 4.5 ? "ok" : "contrast " + ratio.toFixed(2);
		})()`, "ok"},
		{"the first line of a wrapped block without a header ends before its copy button", `(function () {
			const block = document.querySelector(".lc-code-wrap");
			const button = block.querySelector(":scope > .lc-copy").getBoundingClientRect();
			const range = document.createRange();
			range.selectNodeContents(block.querySelector("code"));
			const rects = Array.from(range.getClientRects());
			const right = Math.max(...rects.filter(r => r.top < rects[0].bottom).map(r => r.right));
			return right <= button.left ? "ok" : "the first line ends at " + right + ", the button starts at " + button.left;
		})()`, "ok"},
		{"the prompt's text is on the page for its copy button", `document.querySelector(".lc-prompt-text").textContent`, "Write **docs**."},
		{"the panel is beside the page when the table of contents shows", `(function () {
			const toc = document.querySelector(".lc-toc");
			if (!toc || getComputedStyle(toc).display === "none") return "ok";
			return toc.querySelector(".lc-panel") ? "ok" : "not moved";
		})()`, "ok"},
	} {
		if got, ok := tab.Eval(c.step, c.js); ok && got != c.want {
			t.Errorf("%s: got %q, want %q", c.step, got, c.want)
		}
	}
	tab.Check("the components page")
}
