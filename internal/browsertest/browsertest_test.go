package browsertest_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"lectern.dev/lectern/internal/browsertest"
)

// recorder stands for the test a Tab reports to, keeping its errors.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func page(body string) *fstest.MapFile {
	return &fstest.MapFile{Data: []byte("<!doctype html><html><head><title>t</title><link rel=\"icon\" href=\"data:,\"></head><body>" + body + "</body></html>")}
}

// TestTab opens pages that each do one thing a page must never do, and
// one that does none, and checks that Open reports exactly those: a
// console error, an uncaught exception, a request to another origin (a
// second loopback server), a missing image, a CSP violation, and a
// missing page unless the test said it would open it.
func TestTab(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	browserCtx, closeBrowser := browsertest.Start(t, ctx)
	defer closeBrowser()

	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/svg+xml")
		fmt.Fprint(w, `<svg xmlns="http://www.w3.org/2000/svg"/>`)
	}))
	defer other.Close()
	site := fstest.MapFS{
		"index.html":     page(`<p id="x">fine</p><script src="app.js"></script>`),
		"app.js":         {Data: []byte(`document.getElementById("x").textContent = "ok";`)},
		"console.html":   page(`<script src="console.js"></script>`),
		"console.js":     {Data: []byte(`console.error("broken", 42);`)},
		"throw.html":     page(`<script src="throw.js"></script>`),
		"throw.js":       {Data: []byte(`null.x;`)},
		"elsewhere.html": page(`<img src="` + other.URL + `/pixel.svg" alt="">`),
		"image.html":     page(`<img src="gone.png" alt="">`),
		"inline.html":    page(`<script>document.title = "inline";</script>`),
		"404.html":       page(`not found`),
	}
	base := browsertest.Serve(t, site, nil)
	strict := browsertest.Serve(t, site, http.Header{"Content-Security-Policy": {"script-src 'self'"}})

	for _, c := range []struct {
		name, url string
		missing   []string
		want      string // in the one problem reported; "" for none
	}{
		{"clean", base + "/", nil, ""},
		{"clean without CSP", base + "/inline", nil, ""},
		{"console error", base + "/console", nil, `console.error: broken 42`},
		{"exception", base + "/throw", nil, "uncaught exception at " + base + "/throw.js:1"},
		{"another origin", base + "/elsewhere", nil, "request to another host: GET " + other.URL + "/pixel.svg"},
		{"missing image", base + "/image", nil, "log error (network): Failed to load resource: the server responded with a status of 404 (Not Found) " + base + "/gone.png"},
		{"missing page", base + "/nope", nil, "status of 404"},
		{"expected missing page", base + "/nope", []string{base + "/nope"}, ""},
		{"CSP violation", strict + "/inline", nil, "CSP violation: script-src-elem blocked inline"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := &recorder{TB: t}
			tab := browsertest.NewTab(r, browserCtx, browsertest.Options{Origins: []string{base, strict}, Missing: c.missing})
			if !tab.Open(c.url) {
				t.Fatalf("Open %s failed: %q", c.url, r.errs)
			}
			t.Logf("reported: %q", r.errs)
			switch {
			case c.want == "" && len(r.errs) > 0:
				t.Errorf("Open %s reported %q, want nothing", c.url, r.errs)
			case c.want != "" && !slices.ContainsFunc(r.errs, func(e string) bool { return strings.Contains(e, c.want) }):
				t.Errorf("Open %s reported %q, want a problem with %q", c.url, r.errs, c.want)
			}
			if got := tab.Requested(); !slices.Contains(got, c.url) {
				t.Errorf("Requested() = %q, want it to hold %s", got, c.url)
			}
			tab.Check("again")
			if len(r.errs) > 0 && c.want == "" {
				t.Errorf("Check after Open reported %q", r.errs)
			}
		})
	}

	// Take hands the problems over without failing; Eval and Run report
	// their own errors under the step's name.
	t.Run("take, eval, run", func(t *testing.T) {
		r := &recorder{TB: t}
		tab := browsertest.NewTab(r, browserCtx, browsertest.Options{Origins: []string{base}})
		tab.Open(base + "/")
		if v, ok := tab.Eval("text", `document.getElementById("x").textContent`); !ok || v != "ok" {
			t.Errorf(`Eval = %q, %v, want "ok", true`, v, ok)
		}
		if v, ok := tab.Eval("promise", `Promise.resolve("later")`); v != "later" || !ok {
			t.Errorf(`Eval of a promise = %q, %v, want "later", true`, v, ok)
		}
		tab.Eval("log", `console.error("on purpose"), "x"`)
		if got := tab.Take(); len(got) != 1 || !strings.Contains(got[0], "on purpose") {
			t.Errorf("Take() = %q, want the console error", got)
		}
		if len(r.errs) > 0 {
			t.Errorf("reported %q before any failure", r.errs)
		}
		if _, ok := tab.Eval("bad script", `(`); ok || len(r.errs) != 1 || !strings.HasPrefix(r.errs[0], "bad script: ") {
			t.Errorf("Eval of a syntax error: ok %v, reported %q", ok, r.errs)
		}
	})
}

// TestServePaths checks that Serve maps URL paths to files as the sites
// server does, trailing slash and bare file included.
func TestServePaths(t *testing.T) {
	site := fstest.MapFS{
		"index.html":          {Data: []byte("home")},
		"guides/x.html":       {Data: []byte("x")},
		"guides/y/index.html": {Data: []byte("y")},
		"LICENSE":             {Data: []byte("license")},
		"404.html":            {Data: []byte("missing")},
	}
	base := browsertest.Serve(t, site, nil)
	for p, want := range map[string]string{"/": "home", "/guides/x": "x", "/guides/x/": "x", "/guides/y/": "y", "/LICENSE": "license", "/nope": "missing"} {
		resp, err := http.Get(base + p)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(body) != want {
			t.Errorf("GET %s = %q, want %q", p, body, want)
		}
	}
}
