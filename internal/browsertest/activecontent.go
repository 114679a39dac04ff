package browsertest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// Active content: a docs repository full of ways to run script on the docs
// origin, and a probe that opens its pages, clicks what could run script
// and fails when anything did. Each vector runs pwn(id) if it runs at all:
// it sets top.__pwned and posts "pwned:id" to its window and its parent
// (which the probe's listener records), so a vector in a frame of another
// origin is seen too.

// pwn is the script of vector id: no spaces and no double quotes, so that
// it fits in attributes, Markdown link destinations and javascript: URLs.
func pwn(id string) string {
	return "postMessage('pwned:" + id + "','*');parent.postMessage('pwned:" + id + "','*');top.__pwned='" + id + "'"
}

// ActiveContentRepo returns the files of a docs repository whose pages,
// components and files try every way to run script that the renderer
// and the servers must stop: <iframe srcdoc>, javascript: and data: URLs
// in links, components, frames, objects, forms and SVG links, event
// handler attributes, <script> in MDX, an SVG with scripts (opened
// directly and shown with <img>), an HTML file of the repository with
// scripts and one that loads a .js file of the repository. custom.js sets
// data-custom-script="ran" on the page's root element: it runs only when
// the project enables custom scripts (which also runs evil.js, the
// repository's other script).
func ActiveContentRepo() map[string]string {
	vectors := []string{
		"---\ntitle: Vectors\n---\n",
		`<iframe srcdoc="<script>` + pwn("srcdoc") + `</script>"></iframe>`,
		`<a class="v" href="javascript:` + pwn("a-href") + `">js link</a>`,
		`<a class="v" href="  JaVaScRiPt:` + pwn("a-case") + `">mixed case</a>`,
		`<a class="v" href="jav&#x09;ascript:` + pwn("a-entity") + `">entity</a>`,
		`<Card title="Card link" href="javascript:` + pwn("card") + `">card</Card>`,
		`<iframe src="data:text/html,<script>` + pwn("iframe-data") + `</script>"></iframe>`,
		`<object data="data:text/html,<script>` + pwn("object-data") + `</script>"></object>`,
		`<embed src="data:text/html,<script>` + pwn("embed-data") + `</script>" />`,
		`<form action="javascript:` + pwn("form-action") + `"><button formAction="javascript:` + pwn("formaction") + `">Send</button></form>`,
		`<img src="missing.png" onError="` + pwn("onerror") + `" />`,
		`<div class="v" onClick="` + pwn("onclick") + `" onMouseOver="` + pwn("onmouseover") + `">click me</div>`,
		`<svg onLoad="` + pwn("svg-onload") + `" width="60" height="20"><a xlinkHref="javascript:` + pwn("svg-link") + `"><text y="15">svg link</text></a></svg>`,
		`<img src="evil.svg" alt="an SVG with scripts, as an image" />`,
		`<script src="evil.js"></script>`,
		`<script>` + pwn("mdx-script") + `</script>`,
		"",
		"[Markdown link](javascript:" + pwn("md-link") + ")",
	}
	return map[string]string{
		"docs.json": `{"name": "Vectors", "navigation": {"pages": ["index"]}}`,
		"index.mdx": strings.Join(vectors, "\n") + "\n",
		"evil.svg": `<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20" onload="` + pwn("svg-file-onload") + `">` +
			`<script>` + pwn("svg-file-script") + `</script><rect width="20" height="20" fill="green"/></svg>` + "\n",
		"raw.html": `<!doctype html><html><head><title>raw</title><script>` + pwn("raw-inline") + `</script>` +
			`<script src="evil.js"></script></head><body><img src="nope.png" onerror="` + pwn("raw-onerror") + `"></body></html>` + "\n",
		"evil.js":   pwn("js-file") + ";\n",
		"custom.js": "document.documentElement.dataset.customScript = 'ran';\n",
	}
}

// pwnListener records, in every document of a tab, what the vectors post.
const pwnListener = `addEventListener("message", function (e) {
	if (String(e.data).indexOf("pwned:") === 0) { top.__pwned = String(e.data); }
});`

// clickVectors clicks every link of a scheme other than http(s), file,
// mailto and tel, every element of the page's content, and submits every
// form, so that handlers and URLs that survived would run.
const clickVectors = `(() => {
	let n = 0;
	for (const a of document.querySelectorAll("a")) {
		const raw = a.getAttribute("href") ?? a.getAttribute("xlink:href") ?? a.getAttributeNS("http://www.w3.org/1999/xlink", "href");
		if (raw === null) { continue; }
		let proto;
		try { proto = new URL(raw, location.href).protocol; } catch (e) { proto = "invalid:"; }
		if (!["http:", "https:", "file:", "mailto:", "tel:"].includes(proto)) {
			a.dispatchEvent(new MouseEvent("click", {bubbles: true, cancelable: true}));
			n++;
		}
	}
	for (const el of document.querySelectorAll(".v, main img, main svg, main svg *, main div, main button")) {
		for (const type of ["click", "mouseover", "load", "error"]) {
			el.dispatchEvent(new Event(type, {bubbles: true}));
		}
		n++;
	}
	for (const f of document.forms) {
		if (f.getAttribute("action") !== null) { try { f.requestSubmit(); } catch (e) {} n++; }
	}
	return String(n);
})()`

// ProbeInert opens pageURL (a page of ActiveContentRepo's site) and then
// each of direct (files of the site opened directly: the SVG, raw.html)
// in a tab that may reach origins, clicks what could run script on the
// page, and fails t when any vector ran: top.__pwned set, a "pwned:"
// message, or a request for a __pwned URL. The browser's complaints about
// what it blocked (CSP violations, refused scripts) are expected: they are
// logged, not failures.
func ProbeInert(t *testing.T, browserCtx context.Context, origins []string, pageURL string, direct ...string) {
	t.Helper()
	tab := NewTab(t, browserCtx, Options{Origins: origins})
	if !tab.Run("listen for vectors", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: pwnListener})
		return err
	})) {
		t.FailNow()
	}
	ran := func(where string) {
		t.Helper()
		// A vector may navigate the page (a javascript: URL does not; a
		// form submission to the page does): what ran is read once the
		// document is complete.
		deadline := time.Now().Add(StepTimeout)
		for time.Now().Before(deadline) {
			v, err := tab.Try(`document.readyState === "complete" ? "ok:" + String(window.__pwned || "") : ""`, time.Second)
			if err == nil && strings.HasPrefix(v, "ok:") {
				if v != "ok:" {
					t.Errorf("%s: a vector ran script: %s", where, strings.TrimPrefix(v, "ok:"))
				}
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Errorf("%s: the page did not settle", where)
	}
	for i, u := range append([]string{pageURL}, direct...) {
		if !tab.Run("open "+u, chromedp.Navigate(u)) {
			continue
		}
		time.Sleep(300 * time.Millisecond)
		ran(u)
		if i == 0 {
			n, _ := tab.Eval("click the vectors", clickVectors)
			t.Logf("%s: clicked %s elements", u, n)
			time.Sleep(500 * time.Millisecond)
			ran(u + " after clicks")
		}
		for _, p := range tab.Take() {
			t.Logf("%s: blocked as expected: %s", u, p)
		}
	}
	for _, r := range tab.Requested() {
		if strings.Contains(r, "__pwned") || strings.Contains(r, "pwned:") {
			t.Errorf("a vector sent a request: %s", r)
		}
	}
}
