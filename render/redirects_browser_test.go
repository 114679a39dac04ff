package render

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"lectern.dev/lectern/internal/sitetest"
	"lectern.dev/lectern/render/output"
)

// redirectsBrowserFlow builds wildcardSite in the live form under /docs
// and in the export form (with and without a known address), serves each
// the way Lectern does (404.html for what is missing) and checks where
// Chromium lands for missing paths: the destination of a matching rule, or
// the 404 page.
func redirectsBrowserFlow(t *testing.T, ctx, browserCtx context.Context) {
	type landing struct{ path, want string } // want "" : the 404 page stays
	forms := []struct {
		name  string
		opts  Options
		cases []landing
	}{
		{"live", Options{BasePath: "/docs"}, []landing{
			{"/docs/old/a", "/docs/new/a"},
			{"/docs/old/deep/b?x=1#f", "/docs/new/deep/b?x=1#f"},
			{"/docs/opt", "/docs/guide/index"},
			{"/docs/chain/z", "/docs/intro"},
			{"/docs/hop/deep/b", "/docs/new/deep/b"},
			{"/docs/img/logo.png", "/docs/images/logo.png"},
			{"/docs/caf%C3%A9/a", "/docs/new/a"},
			{"/docs/old/nope", ""},
			{"/docs/a/x/b", ""},
		}},
		// The 404 page finds the script by its absolute path, from any depth.
		{"export", Options{Export: true}, []landing{
			{"/opt.html", "/guide/index.html"},
			{"/old/deep/b", "/new/deep/b.html"},
			{"/nope.html", ""},
		}},
		// With the site's address known, from any depth.
		{"export-site-url", Options{Export: true, SiteURL: "https://docs.test"}, []landing{
			{"/old/a.html", "/new/a.html"},
			{"/one/a.html", "/new/a.html#top"},
			{"/old/deep/b", "/new/deep/b.html"},
			{"/old/nope.html", ""},
		}},
	}
	for _, f := range forms {
		t.Run(f.name, func(t *testing.T) {
			dir := t.TempDir()
			out := dir
			if f.opts.BasePath != "" {
				out = filepath.Join(dir, strings.TrimPrefix(f.opts.BasePath, "/"))
			}
			if _, err := Build(ctx, sitetest.Archive(t, wildcardSite), output.Dir{Dir: out}, f.opts); err != nil {
				t.Fatalf("Build: %v", err)
			}
			if out != dir { // the server's 404 page is the site's
				data, err := os.ReadFile(filepath.Join(out, "404.html"))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, "404.html"), data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			base := serveSite(t, dir)
			tabCtx, cancelTab := chromedp.NewContext(browserCtx)
			defer cancelTab()
			problems := &pageProblems{}
			if err := chromedp.Listen(tabCtx, func(ev any) {
				switch ev := ev.(type) {
				case *network.EventRequestWillBeSent:
					if !localURL(ev.Request.URL) {
						problems.add("request to another host: %s", ev.Request.URL)
					}
				case *runtime.EventExceptionThrown:
					problems.add("uncaught exception: %s", ev.ExceptionDetails.Text)
				}
			}); err != nil {
				t.Fatalf("listen: %v", err)
			}
			for _, c := range f.cases {
				stepCtx, cancel := context.WithTimeout(tabCtx, stepTimeout)
				err := chromedp.Do(stepCtx, chromedp.Navigate(base+c.path))
				cancel()
				if err != nil {
					t.Errorf("open %s: %v", c.path, err)
					continue
				}
				// A redirect replaces the page: ask until a loaded page
				// answers and stays.
				var loc, notFound string
				for deadline := time.Now().Add(stepTimeout); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
					stepCtx, cancel := context.WithTimeout(tabCtx, time.Second)
					v, err := chromedp.Run(stepCtx, chromedp.Evaluate[string](
						`document.readyState === "complete" ? location.href + " " + document.body.classList.contains("lc-not-found") : ""`))
					cancel()
					if err != nil || v == "" {
						continue
					}
					l, nf, _ := strings.Cut(v, " ")
					if l == loc && nf == notFound {
						break
					}
					loc, notFound = l, nf
				}
				want, wantNotFound := base+c.want, "false"
				if c.want == "" {
					want, wantNotFound = base+c.path, "true"
				}
				if loc != want || notFound != wantNotFound {
					t.Errorf("%s: landed on %s (404 page: %s), want %s (404 page: %s)", c.path, loc, notFound, want, wantNotFound)
				}
			}
			for _, p := range problems.take() {
				t.Error(p)
			}
		})
	}
}
