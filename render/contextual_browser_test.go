package render

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"lectern.dev/lectern/internal/browsertest"
	"lectern.dev/lectern/internal/sitetest"
	"lectern.dev/lectern/render/features"
	"lectern.dev/lectern/render/output"
)

// contextualSite is a page under a long title, with content to copy.
const contextualSite = `
-- docs.json --
{"name": "Acme", "favicon": "/favicon.svg", "navigation": {"groups": [{"group": "Guides", "pages": ["index", "guides/setup"]}]}}
-- favicon.svg --
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><circle cx="8" cy="8" r="7"/></svg>
-- index.mdx --
---
title: Home
---
Start with [setup](/guides/setup).
-- guides/setup.mdx --
---
title: Setting up the Acme command-line tool on every platform
description: Install, configure and check it.
---
<Note>Run it as **root**.</Note>

` + "```bash\nacme install\n```" + `
`

// contextualBrowserFlow opens a page of contextualSite served under the
// site's policy and checks its page actions (contextual.js): "Copy page"
// puts the page's Markdown on the clipboard and says so; the menu opens
// with Enter, the arrow keys move through its items and wrap, Escape
// closes it and gives the focus back, ArrowUp opens it on its last item,
// "Copy link" copies the page's address. Screenshots of the open menu,
// light and dark and 390 pixels wide, are kept (browsertest.ScreenshotPath).
// From file://, where the Markdown cannot be fetched, "Copy page" opens
// the Markdown instead.
func contextualBrowserFlow(t *testing.T, ctx, browserCtx context.Context) {
	site := newMemOutput()
	if _, err := Build(ctx, sitetest.Archive(t, contextualSite), site, Options{}); err != nil {
		t.Fatalf("Build: %v", err)
	}
	header := http.Header{"Content-Security-Policy": {features.Site{}.ContentSecurityPolicy()}, "X-Content-Type-Options": {"nosniff"}}
	base := serveFiles(t, site.files, header)
	tab := browsertest.NewTab(t, browserCtx, browsertest.Options{Origins: []string{base}})
	c := chromedp.FromContext(tab.Context())
	for _, name := range []string{"clipboard-read", "clipboard-write"} {
		if !tab.Run("grant "+name, chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
			_, err := cdp.Call(ctx, c.Browser, browser.SetPermission, browser.SetPermissionParams{
				Permission: &browser.PermissionDescriptor{Name: name, AllowWithoutSanitization: true}, Setting: browser.PermissionSettingGranted, Origin: base})
			return err
		})) {
			return
		}
	}
	page := base + "/guides/setup"
	if !tab.Open(page) {
		return
	}
	wait := func(step, js string) bool {
		t.Helper()
		return tab.Run(step, chromedp.Poll[chromedp.Void](js, chromedp.WithPollingTimeout(stepTimeout)))
	}
	focused := `(document.activeElement && document.activeElement.getAttribute("data-action")) || (document.activeElement && document.activeElement.className) || ""`
	if !wait("page actions ready", `document.getElementById("page-context-menu").hasAttribute("data-ready")`) {
		return
	}

	// Copy page: the Markdown on the clipboard.
	md := string(site.files["guides/setup.md"])
	if !strings.HasPrefix(md, "# Setting up the Acme command-line tool") || !strings.Contains(md, "> **Note**") {
		t.Fatalf("guides/setup.md:\n%s", md)
	}
	if tab.Run("copy page", chromedp.Click(chromedp.CSS(".lc-page-action"), chromedp.NodeVisible)) &&
		wait("copied", `document.querySelector(".lc-page-action-label").textContent === "Copied" && document.querySelector(".lc-page-actions-status").textContent === "Page copied as Markdown"`) {
		if got, _ := tab.Eval("clipboard", `navigator.clipboard.readText()`); got != md {
			t.Errorf("clipboard after Copy page:\n%q\nwant the page's Markdown:\n%q", got, md)
		}
	}

	// The menu with the keyboard.
	tab.Run("focus the menu button", chromedp.Focus(chromedp.CSS(".lc-page-menu-button")), chromedp.KeyEvent(kb.Enter))
	if !wait("menu open", `!document.getElementById("lc-page-menu").hidden && document.querySelector(".lc-page-menu-button").getAttribute("aria-expanded") === "true"`) {
		return
	}
	for i, want := range []string{"copy", "view", "link", "copy"} {
		if i > 0 {
			tab.Run("arrow down", chromedp.KeyEvent(kb.ArrowDown))
		}
		if got, _ := tab.Eval("focused item", focused); got != want {
			t.Errorf("item %d of the menu focused: %q, want %q", i, got, want)
		}
	}
	tab.Run("arrow up", chromedp.KeyEvent(kb.ArrowUp))
	if got, _ := tab.Eval("focused item", focused); got != "link" {
		t.Errorf("ArrowUp from the first item focused %q, want the last (link)", got)
	}
	tab.Run("escape", chromedp.KeyEvent(kb.Escape))
	if got, _ := tab.Eval("after Escape", `(document.getElementById("lc-page-menu").hidden ? "closed " : "open ") + document.activeElement.className`); got != "closed lc-page-menu-button" {
		t.Errorf("after Escape: %q, want the menu closed and the focus on its button", got)
	}
	// ArrowUp opens it on its last item, Copy link; Enter copies the link.
	tab.Run("arrow up on the button", chromedp.KeyEvent(kb.ArrowUp))
	if got, _ := tab.Eval("focused item", focused); got != "link" {
		t.Errorf("ArrowUp on the menu button focused %q, want link", got)
	}
	tab.Run("copy link", chromedp.KeyEvent(kb.Enter))
	if wait("link copied", `document.getElementById("lc-page-menu").hidden && document.querySelector(".lc-page-actions-status").textContent === "Link copied"`) {
		if got, _ := tab.Eval("clipboard", `navigator.clipboard.readText()`); got != page {
			t.Errorf("clipboard after Copy link: %q, want %q", got, page)
		}
	}
	// View as Markdown is a link to the page's Markdown.
	if got, _ := tab.Eval("view link", `document.querySelector("#lc-page-menu [data-action=view]").href`); got != base+"/guides/setup.md" {
		t.Errorf("View as Markdown links to %q", got)
	}
	tab.Check("page actions")

	// Screenshots: the menu open, light and dark, wide and narrow.
	scheme := func(s string) chromedp.Action[chromedp.Void] {
		return chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
			_, err := cdp.Call(ctx, target, emulation.SetEmulatedMedia,
				emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: s}}})
			return err
		})
	}
	for _, shot := range []struct {
		name  string
		width int64
	}{{"light", 1280}, {"dark", 1280}, {"narrow-dark", 390}, {"narrow-light", 390}} {
		t.Run(shot.name, func(t *testing.T) {
			mode := strings.TrimPrefix(shot.name, "narrow-")
			if !tab.Run("viewport", chromedp.EmulateViewport(shot.width, 700), scheme(mode)) || !tab.Open(page) {
				return
			}
			tab.Run("open the menu", chromedp.Click(chromedp.CSS(".lc-page-menu-button"), chromedp.NodeVisible))
			if r, _ := tab.Eval("menu on screen", `(function () {
				const m = document.getElementById("lc-page-menu").getBoundingClientRect(), d = document.documentElement;
				return m.width > 0 && m.left >= 0 && m.right <= d.clientWidth && d.scrollWidth <= d.clientWidth ? "" : JSON.stringify(m) + " in " + d.clientWidth;
			})()`); r != "" {
				t.Errorf("%s: the menu is not within the window: %s", shot.name, r)
			}
			time.Sleep(100 * time.Millisecond)
			screenshot(t, tab)
		})
	}
	tab.Run("wide again", chromedp.EmulateViewport(1280, 800), scheme("light"))
}

// contextualExportFlow opens an export of contextualSite from file://,
// where the page's Markdown cannot be fetched: "Copy page" opens it.
func contextualExportFlow(t *testing.T, ctx, browserCtx context.Context) {
	dir := t.TempDir()
	if _, err := Build(ctx, sitetest.Archive(t, contextualSite), output.Dir{Dir: dir}, Options{Export: true}); err != nil {
		t.Fatalf("Build: %v", err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	root := (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
	tab := browsertest.NewTab(t, browserCtx, browsertest.Options{Origins: []string{"file://"}})
	if !tab.Open(root + "/guides/setup.html") {
		return
	}
	tab.Run("copy page", chromedp.Poll[chromedp.Void](`document.getElementById("page-context-menu").hasAttribute("data-ready")`, chromedp.WithPollingTimeout(stepTimeout)),
		chromedp.Click(chromedp.CSS(".lc-page-action"), chromedp.NodeVisible))
	var got string
	for i := 0; i < 50; i++ {
		if got, _ = tab.Try(`location.href`, time.Second); strings.HasSuffix(got, "/guides/setup.md") {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !strings.HasSuffix(got, "/guides/setup.md") {
		t.Errorf("from file://, Copy page went to %q, want the page's Markdown", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "guides/setup.md")); err != nil {
		t.Error(err)
	}
	// The failed fetch of the Markdown is expected here, nothing else.
	for _, p := range tab.Take() {
		if !strings.Contains(p, "guides/setup.md") {
			t.Errorf("from file://: %s", p)
		}
	}
}

// screenshot saves a full-page screenshot of tab under the name of t
// (browsertest.ScreenshotPath), for one tab's several views.
func screenshot(t *testing.T, tab *browsertest.Tab) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab.Context(), stepTimeout)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	shot := browsertest.ScreenshotPath(t)
	if err == nil {
		err = os.WriteFile(shot, png, 0o644)
	}
	if err != nil {
		t.Errorf("screenshot: %v", err)
		return
	}
	t.Logf("screenshot: %s", shot)
}
