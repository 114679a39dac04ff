package render

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"lectern.dev/lectern/internal/browsertest"
	"lectern.dev/lectern/render/output"
)

// sidebarWindowBrowserFlow opens a page of a section of 1,500 pages,
// whose sidebar is windowed: the current page is shown and scrolled to,
// the "more" links are readable in light and dark mode, and one is
// followed with the keyboard. It keeps screenshots of each mode
// (browsertest.ScreenshotPath; "-dark" for the dark mode, "-top" with the
// sidebar scrolled to its top).
func sidebarWindowBrowserFlow(t *testing.T, ctx, browserCtx context.Context) {
	dir := t.TempDir()
	if _, err := Build(ctx, oneGroupSite(1500), output.Dir{Dir: dir}, Options{}); err != nil {
		t.Fatalf("Build: %v", err)
	}
	base := serveSite(t, dir)
	tab := browsertest.NewTab(t, browserCtx, browsertest.Options{Origins: []string{base}})
	if !tab.Open(base + "/p/00750") {
		return
	}
	// The sidebar's links, the current one shown in the sidebar's box,
	// and the contrast of the "more" links with the page.
	const check = `(function () {
		const side = document.getElementById("sidebar");
		const links = side.querySelectorAll("a");
		const more = side.querySelectorAll("a.lc-nav-more");
		const active = side.querySelector("a.lc-active");
		if (!active) return "no current page in the sidebar";
		if (active.textContent !== "Page 750") return "current page " + active.textContent;
		const s = side.getBoundingClientRect(), a = active.getBoundingClientRect();
		if (a.top < s.top || a.bottom > s.bottom) return "the current page is not in view in the sidebar";
		if (links.length > 110 || more.length !== 2) return links.length + " links, " + more.length + " more links";
		const rgb = c => (c.match(/[\d.]+/g) || []).slice(0, 3).map(Number);
		const lum = c => {
			const v = rgb(c).map(x => { x /= 255; return x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4); });
			return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2];
		};
		const fg = lum(getComputedStyle(more[0]).color), bg = lum(getComputedStyle(document.body).backgroundColor);
		const ratio = (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
		if (ratio < 4.5) return "contrast of the more links " + ratio.toFixed(2);
		return "ok " + more[0].textContent + " / " + more[1].textContent + ", contrast " + ratio.toFixed(2);
	})()`
	shot := func(suffix string) {
		t.Helper()
		sctx, cancel := context.WithTimeout(tab.Context(), stepTimeout)
		defer cancel()
		png, err := chromedp.Run(sctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Errorf("screenshot: %v", err)
			return
		}
		name := strings.TrimSuffix(browsertest.ScreenshotPath(t), ".png") + suffix + ".png"
		if err := os.WriteFile(name, png, 0o644); err != nil {
			t.Errorf("screenshot: %v", err)
			return
		}
		t.Logf("screenshot: %s", name)
	}
	scrolled, _ := tab.Eval("the sidebar's scroll position", `String(document.getElementById("sidebar").scrollTop)`)
	if scrolled == "" || scrolled == "0" {
		t.Errorf("the sidebar is not scrolled to the current page (scrollTop %q)", scrolled)
		scrolled = "0"
	}
	for _, mode := range []string{"light", "dark"} {
		if mode == "dark" {
			tab.Eval("dark mode", `document.documentElement.setAttribute("data-theme", "dark"), ""`)
		} else {
			tab.Eval("light mode", `document.documentElement.setAttribute("data-theme", "light"), ""`)
		}
		res, ok := tab.Eval("windowed sidebar, "+mode, check)
		if ok && !strings.HasPrefix(res, "ok") {
			t.Errorf("windowed sidebar, %s: %s", mode, res)
		}
		t.Logf("windowed sidebar, %s: %s", mode, res)
		suffix := ""
		if mode == "dark" {
			suffix = "-dark"
		}
		shot(suffix)
		// And with the "more" link before the window in view.
		tab.Eval("scroll the sidebar", `(function () {
			const side = document.getElementById("sidebar");
			const at = side.scrollTop;
			side.scrollTop = 0;
			return String(at); })()`)
		shot(suffix + "-top")
		tab.Eval("scroll the sidebar back", `document.getElementById("sidebar").scrollTop = `+scrolled+`, ""`)
	}
	// The "more" link after the window, with the keyboard: focus, Enter.
	tab.Eval("focus", `document.querySelectorAll("#sidebar a.lc-nav-more")[1].focus(), ""`)
	if tab.Run("follow the more link with Enter", chromedp.KeyEvent(kb.Enter)) {
		loc := ""
		for deadline := time.Now().Add(stepTimeout); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			if v, err := tab.Try(`document.readyState === "complete" ? location.pathname : ""`, time.Second); err == nil && v != "" {
				if loc = v; strings.HasSuffix(v, "/p/00800") {
					break
				}
			}
		}
		if !strings.HasSuffix(loc, "/p/00800") {
			t.Errorf("the more link led to %q, want /p/00800, the first page after the window", loc)
		}
	}
	tab.Check("windowed sidebar")
}
