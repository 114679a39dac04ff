package render

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"lectern.dev/lectern/internal/browsertest"
	"lectern.dev/lectern/render/output"
)

// nestedFoldersSite is a site of 300 pages without docs.json: folders
// g000 to g002 (headings of the sidebar), each of two folders s0 and s1
// (collapsible groups) of 50 pages, two pages at its top, and four hidden
// pages: one in g001/s1, one in g002 (before its groups), one alone in the
// group g000/lone, one at the top.
// Its one section of 302 entries is split.
func nestedFoldersSite() fstest.MapFS {
	fsys := fstest.MapFS{}
	for i := range 300 {
		fsys[fmt.Sprintf("g%03d/s%d/p%05d.mdx", i/100, i%100/50, i)] = &fstest.MapFile{Data: []byte(fmt.Sprintf("---\ntitle: Page %d\n---\nText %d.\n", i, i))}
	}
	fsys["g001/s1/p00180x.mdx"] = &fstest.MapFile{Data: []byte("---\ntitle: Secret\nhidden: true\n---\nHidden.\n")}
	fsys["g002/hidden.mdx"] = &fstest.MapFile{Data: []byte("---\ntitle: Hidden\nhidden: true\n---\nHidden.\n")}
	// Alone in its group: the group is in no navigation file either.
	fsys["g000/lone/only.mdx"] = &fstest.MapFile{Data: []byte("---\ntitle: Only\nhidden: true\n---\nAlone.\n")}
	// At the top of the sidebar, where each page is a list of its own.
	fsys["a-top.mdx"] = &fstest.MapFile{Data: []byte("---\ntitle: Top A\n---\nA.\n")}
	fsys["b-top.mdx"] = &fstest.MapFile{Data: []byte("---\ntitle: Top B\nhidden: true\n---\nB.\n")}
	fsys["c-top.mdx"] = &fstest.MapFile{Data: []byte("---\ntitle: Top C\n---\nC.\n")}
	return fsys
}

// sidebarOfJS returns, once site.js has drawn the whole sidebar (when
// part is true; 303 links with a hidden page), the markup of the
// sidebar of a split section (its part's element) or of a full one (the
// sidebar), each link's URL as the path from the site's root (root, the
// URL of the site's folder), so that the two forms compare.
func sidebarOfJS(part bool, root string) string {
	sel := "#sidebar"
	if part {
		sel = "#sidebar .lc-nav-part"
	}
	return `new Promise(function (done) {
		var tries = 0;
		(function look() {
			var el = document.querySelector(` + "`" + sel + "`" + `);
			if (el && (` + fmt.Sprint(!part) + ` || el.querySelectorAll("a").length >= 300) || ++tries > 100) {
				if (!el) return done("no " + ` + "`" + sel + "`" + `);
				var c = el.cloneNode(true);
				c.querySelectorAll("a").forEach(function (a, i) {
					var u = el.querySelectorAll("a")[i].href;
					a.setAttribute("href", u.indexOf(` + "`" + root + "`" + `) === 0 ? u.slice(` + fmt.Sprint(len(root)) + `) : u);
				});
				return done(c.innerHTML.trim());
			}
			setTimeout(look, 50);
		})();
	})`
}

// sidebarSplitBrowserFlow opens pages of a split section, served over
// HTTP and from file://: site.js draws the whole sidebar from the
// section's navigation file, the same as the full sidebar of a build that
// does not split it (current page marked, its groups open, the hidden
// page on its own page), with the current page in view, and usable with
// the keyboard; 404.html too. Without JavaScript, the page shows its own
// group. It keeps a screenshot (browsertest.ScreenshotPath).
func sidebarSplitBrowserFlow(t *testing.T, ctx, browserCtx context.Context) {
	fsys := nestedFoldersSite()
	build := func(export, split bool) string {
		dir := t.TempDir()
		if !split {
			restore := setSplit(t, 1<<20, 0, 0)
			defer restore()
		}
		if _, err := Build(ctx, fsys, output.Dir{Dir: dir}, Options{Export: export}); err != nil {
			t.Fatalf("Build: %v", err)
		}
		return dir
	}
	fileRoot := func(dir string) string {
		abs, err := filepath.Abs(dir)
		if err != nil {
			t.Fatal(err)
		}
		return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String() + "/"
	}
	liveSplit, liveFull := serveSite(t, build(false, true))+"/", serveSite(t, build(false, false))+"/"
	exportSplit, exportFull := fileRoot(build(true, true)), fileRoot(build(true, false))
	forms := []struct {
		name        string
		split, full string // the sites' roots
		page        func(p string) string
		origins     []string
	}{
		{"live", liveSplit, liveFull, func(p string) string { return p }, []string{strings.TrimSuffix(liveSplit, "/"), strings.TrimSuffix(liveFull, "/")}},
		{"export", exportSplit, exportFull, func(p string) string { return p + ".html" }, []string{"file://"}},
	}
	for _, f := range forms {
		tab := browsertest.NewTab(t, browserCtx, browsertest.Options{Origins: f.origins, Missing: []string{f.split + "no-such-page", f.split + "favicon.ico", f.full + "favicon.ico"}})
		for _, p := range []string{"g001/s1/p00180", "g001/s1/p00180x", "g002/hidden", "g000/lone/only", "g002/s0/p00200", "b-top"} {
			if !tab.Open(f.full + f.page(p)) {
				return
			}
			want, _ := tab.Eval("full sidebar of "+p, sidebarOfJS(false, f.full))
			if !tab.Open(f.split + f.page(p)) {
				return
			}
			got, _ := tab.Eval("drawn sidebar of "+p, sidebarOfJS(true, f.split))
			if got != want || !strings.Contains(got, `aria-current="page"`) {
				t.Errorf("%s %s: the sidebar drawn from the navigation file is not the full one:\n%s", f.name, p, firstDiff(want, got))
			}
		}
		if f.name == "live" {
			// 404.html: the whole sidebar, nothing current.
			tab.Visit(f.split + "no-such-page")
			got, _ := tab.Eval("404 sidebar", sidebarOfJS(true, f.split))
			if strings.Count(got, "<a ") != 302 || strings.Contains(got, "lc-active") {
				t.Errorf("404.html: %d links in the sidebar, or one current:\n%.2000s", strings.Count(got, "<a "), got)
			}
			tab.Check("404.html")
		}
		// The current page in view in the sidebar, once it is drawn.
		tab.Open(f.split + f.page("g001/s1/p00180"))
		tab.Eval("drawn", sidebarOfJS(true, f.split))
		res, _ := tab.Eval("current page in view", `(function () {
			const side = document.getElementById("sidebar"), a = side.querySelector("a.lc-active");
			if (!a) return "no current page";
			const s = side.getBoundingClientRect(), r = a.getBoundingClientRect();
			return r.top >= s.top && r.bottom <= s.bottom ? "ok" : "current page at " + r.top + ", sidebar " + s.top + "-" + s.bottom;
		})()`)
		if res != "ok" {
			t.Errorf("%s: %s", f.name, res)
		}
		if f.name == "live" {
			tab.Screenshot()
		}
		// The keyboard: a closed group opens with Enter on its summary,
		// and a link of another group, not in the page's part, is
		// followed with Enter.
		tab.Eval("focus a closed group", `document.querySelectorAll("#sidebar details:not([open]) > summary")[0].focus(), ""`)
		tab.Run("open it with Enter", chromedp.KeyEvent(kb.Enter))
		if open, _ := tab.Eval("group opened", `String(document.activeElement.parentNode.open)`); open != "true" {
			t.Errorf("%s: Enter on a group's summary did not open it", f.name)
		}
		tab.Eval("focus a link of g000", `Array.prototype.find.call(document.querySelectorAll("#sidebar a"), a => a.textContent === "Page 7").focus(), ""`)
		if tab.Run("follow it with Enter", chromedp.KeyEvent(kb.Enter)) {
			loc := ""
			for deadline := time.Now().Add(stepTimeout); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
				if v, err := tab.Try(`document.readyState === "complete" ? location.href : ""`, time.Second); err == nil && strings.HasSuffix(v, f.page("g000/s0/p00007")) {
					loc = v
					break
				}
			}
			if loc == "" {
				t.Errorf("%s: Enter on the link of Page 7 did not open it", f.name)
			}
		}
		tab.Check(f.name)

		// On a phone, the sidebar is hidden until the menu opens: it opens
		// with the current page in view, not at the top of the section.
		phone := browsertest.NewTab(t, browserCtx, browsertest.Options{Origins: f.origins, Missing: []string{f.split + "favicon.ico"}})
		if phone.Run("a phone's viewport", chromedp.EmulateViewport(390, 844)) && phone.Open(f.split+f.page("g002/s1/p00290")) {
			phone.Eval("drawn", sidebarOfJS(true, f.split))
			res, _ = phone.Eval("current page in view on a phone", `(function () {
				document.querySelector(".lc-menu-button").click();
				const side = document.getElementById("sidebar"), a = side.querySelector("a.lc-active");
				if (!a) return "no current page";
				const s = side.getBoundingClientRect(), r = a.getBoundingClientRect();
				return s.height > 0 && r.top >= s.top && r.bottom <= s.bottom ? "ok" : "current page at " + r.top + ", sidebar " + s.top + "-" + s.bottom;
			})()`)
			if res != "ok" {
				t.Errorf("%s on a phone: %s", f.name, res)
			}
			phone.Check(f.name + " on a phone")
		}

		// Without JavaScript: the page's own group, G001, and no other.
		nojs := browsertest.NewTab(t, browserCtx, browsertest.Options{Origins: f.origins, Missing: []string{f.split + "favicon.ico"}})
		if !nojs.Run("disable JavaScript", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
			return err
		})) || !nojs.Open(f.split+f.page("g001/s1/p00180")) {
			return
		}
		res, _ = nojs.Eval("sidebar without JavaScript", `(function () {
			const links = document.querySelectorAll("#sidebar a"), text = document.getElementById("sidebar").textContent;
			const a = document.querySelector("#sidebar a.lc-active");
			if (window.lecternNavReady !== undefined) return "site.js ran";
			return links.length + " links, current " + (a ? a.textContent + (a.closest("details").open ? " (open)" : " (closed)") : "none") +
				", G000 " + text.includes("G000") + ", G001 " + text.includes("G001") + ", G002 " + text.includes("G002");
		})()`)
		if want := "100 links, current Page 180 (open), G000 false, G001 true, G002 false"; res != want {
			t.Errorf("%s without JavaScript: %s, want %s", f.name, res, want)
		}
		nojs.Check(f.name + " without JavaScript")
	}
}

// firstDiff shows where want and got part.
func firstDiff(want, got string) string {
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	from := max(i-200, 0)
	return fmt.Sprintf("at byte %d of %d/%d:\nwant …%.400s\ngot  …%.400s", i, len(want), len(got), want[from:], got[from:])
}
