package mcpserver

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
)

// TestPagePath: the forms of a page's path and URL, with and without a
// base path, and what is refused.
func TestPagePath(t *testing.T) {
	docs, err := parseRoot("https://Docs.Acme.test/docs/", false)
	if err != nil {
		t.Fatal(err)
	}
	bare, err := parseRoot("", false)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		root      siteRoot
		arg, want string
	}{
		{docs, "/docs/guides/x", "guides/x"},
		{docs, "/guides/x", "guides/x"},
		{docs, "/docsx/y", "docsx/y"},
		{docs, "https://docs.acme.test/docs/guides/x.html#a", "guides/x"},
		{docs, "/docs", "index"},
		{docs, "guides/x.mdx", "guides/x"},
		{docs, "guides/my%20page", "guides/my page"},
		{docs, "guides/100%25", "guides/100%"},
		{bare, "https://anywhere.test/guides/x", "guides/x"},
		{bare, "/docs/x", "docs/x"},
		{bare, "x?y=../..", "x"},
	} {
		got, err := c.root.pagePath(c.arg)
		if err != nil || got != c.want {
			t.Errorf("%+v: %q, %v; want %q", c.root, got, err, c.want)
		}
	}
	for _, arg := range []string{"../x", "a/../../x", "%2e%2e", "a/%2E%2E/%2e%2e/x", "a//b", "/docs/../x", "a\\b",
		"a%5Cb", "a\x00", "a%00", "\x7f", "a/.git/config", "//host/x", "%2F%2Fhost", "ftp://docs.acme.test/x",
		"https://other.test/docs/x", "https://docs.acme.test/docs/%2e%2e/x", "https://docs.acme.test/docs/a%5cb",
		strings.Repeat("x", maxPath+1), "\xff", "%ff", "%"} {
		if got, err := docs.pagePath(arg); err == nil {
			t.Errorf("%q: accepted as %q", arg, got)
		}
	}

	for _, bad := range []string{"docs.acme.test", "ftp://x.test", "https://", "https://x.test/?q=1", "https://u@x.test", "mailto:x@y"} {
		if _, err := parseRoot(bad, false); err == nil {
			t.Errorf("Info.URL %q accepted", bad)
		}
		if _, err := Handler(FSSite{}, Info{URL: bad}); err == nil {
			t.Errorf("Handler took Info.URL %q", bad)
		}
	}
}

// TestLinks: passages' and pages' URLs, live and exported, with and
// without an origin.
func TestLinks(t *testing.T) {
	for _, c := range []struct {
		url              string
		export           bool
		index, page, idx string // index URL → link; page "a/b" → link; "index" → link
		path             string // pathOf(index URL)
	}{
		{"https://x.test/docs", false, "https://x.test/docs/a/b#h", "https://x.test/docs/a/b", "https://x.test/docs/", "a/b"},
		{"/docs", false, "/docs/a/b#h", "/docs/a/b", "/docs/", "a/b"},
		{"", false, "/docs/a/b#h", "/a/b", "/", "docs/a/b"},
		{"https://x.test", true, "https://x.test/a/b.html#h", "https://x.test/a/b.html", "https://x.test/index.html", "a/b"},
		{"/sub/", true, "/sub/a/b.html#h", "/sub/a/b.html", "/sub/index.html", "a/b"},
	} {
		r, err := parseRoot(c.url, c.export)
		if err != nil {
			t.Fatal(err)
		}
		in := "/docs/a/b#h"
		if c.export {
			in = "a/b.html#h"
		}
		if got := r.link(in); got != c.index {
			t.Errorf("%s: link(%q) = %q, want %q", c.url, in, got, c.index)
		}
		if got := r.pageLink("a/b"); got != c.page {
			t.Errorf("%s: pageLink = %q, want %q", c.url, got, c.page)
		}
		if got := r.pageLink("index"); got != c.idx {
			t.Errorf("%s: pageLink(index) = %q, want %q", c.url, got, c.idx)
		}
		if got := r.pathOf(in); got != c.path {
			t.Errorf("%s: pathOf(%q) = %q, want %q", c.url, in, got, c.path)
		}
	}
	if r, _ := parseRoot("/docs", false); r.pathOf("/docs/") != "index" || r.pathOf("/docs") != "index" {
		t.Error("the home page's path")
	}
}

// TestMarkdownTitle: front matter's title first, else the first H1.
func TestMarkdownTitle(t *testing.T) {
	for md, want := range map[string]string{
		"---\ntitle: \"Hello\"\n---\n# Other":  "Hello",
		"---\ndescription: x\n---\n\n# Head\n": "Head",
		"intro\n\n# Head\n## Sub":              "Head",
		"## Sub only":                          "",
		"---\ntitle: x":                        "",
	} {
		if got := markdownTitle(md); got != want {
			t.Errorf("%q: %q, want %q", md, got, want)
		}
	}
}

// TestHTTP: requests that are not MCP get clean HTTP errors, and the
// server answers the next request as usual.
func TestHTTP(t *testing.T) {
	h, err := Handler(FSSite{FS: fstest.MapFS{"index.md": {Data: []byte("# Home")}}}, Info{Name: "Acme"})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	post := func(body string, header map[string]string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range header {
			if k == "Host" {
				req.Host = v
			}
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}

	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "POST" {
		t.Errorf("GET: %d, Allow %q", resp.StatusCode, resp.Header.Get("Allow"))
	}
	for name, c := range map[string]struct {
		body   string
		header map[string]string
		status int
	}{
		"bad JSON":        {`{"jsonrpc":"2.0",`, nil, http.StatusBadRequest},
		"not JSON-RPC":    {`[1,2,3]`, nil, http.StatusBadRequest},
		"no JSON type":    {`{}`, map[string]string{"Content-Type": "text/plain"}, http.StatusUnsupportedMediaType},
		"too large":       {`{"x":"` + strings.Repeat("a", MaxBody) + `"}`, nil, http.StatusRequestEntityTooLarge},
		"cross-origin":    {`{}`, map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.test"}, http.StatusForbidden},
		"unknown version": {`{}`, map[string]string{"MCP-Protocol-Version": "1999-01-01"}, http.StatusBadRequest},
	} {
		if status, body := post(c.body, c.header); status != c.status {
			t.Errorf("%s: %d %q, want %d", name, status, body, c.status)
		}
	}
	// A client of the first revision, without a handshake (stateless),
	// through a reverse proxy on this machine: a loopback address, the
	// site's Host.
	status, body := post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_page","arguments":{"path":"/"}}}`,
		map[string]string{"Host": "docs.acme.test"})
	if status != http.StatusOK || !strings.Contains(body, `"text":"# Home"`) {
		t.Errorf("tools/call: %d %s", status, body)
	}
}
