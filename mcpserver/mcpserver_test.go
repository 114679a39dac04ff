package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"lectern.dev/lectern/render"
	"lectern.dev/lectern/render/output"
	"lectern.dev/lectern/render/search"
)

var acme = fstest.MapFS{
	"docs.json": {Data: []byte(`{"name":"Acme","navigation":{"groups":[{"group":"Guides","pages":["index","deploy","billing","guides/index"]}]}}`)},
	"index.mdx": {Data: []byte("---\ntitle: Welcome\n---\n\nAcme runs your jobs.\n")},
	"deploy.mdx": {Data: []byte("---\ntitle: Deploying\n---\n\nSome words first.\n\n## Rolling back\n\n" +
		"To roll back a release, run acme rollback with the release number. The previous release is live at once.\n\n" +
		"## Regions\n\nReleases go to every region.\n")},
	"billing.mdx":      {Data: []byte("---\ntitle: Billing\n---\n\nInvoices are sent monthly. A release costs nothing.\n")},
	"guides/index.mdx": {Data: []byte("---\ntitle: Guides\n---\n\nEvery guide, in order.\n")},
}

// secret is in a file beside the site's folder, which no tool may read.
const secret = "TOP-SECRET-beside-the-site"

// buildSite builds acme into a folder with opts, writes each page's
// Markdown beside its HTML when the build does not (its source, as
// "x.md"), plants a file outside the folder and a link to it inside, and
// returns the site over an os.Root of the folder.
func buildSite(t *testing.T, opts render.Options) (FSSite, map[string]string) {
	t.Helper()
	parent := t.TempDir()
	dir := filepath.Join(parent, "site")
	if _, err := render.Build(context.Background(), acme, output.Dir{Dir: dir}, opts); err != nil {
		t.Fatal(err)
	}
	md := map[string]string{}
	for name, f := range acme {
		page, ok := strings.CutSuffix(name, ".mdx")
		if !ok {
			continue
		}
		file := filepath.Join(dir, filepath.FromSlash(page)+".md")
		if _, err := os.Stat(file); err != nil {
			if err := os.WriteFile(file, f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		md[page] = string(data)
	}
	for _, name := range []string{"secret.md", "passwd"} {
		if err := os.WriteFile(filepath.Join(parent, name), []byte(secret), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(parent, "secret.md"), filepath.Join(dir, "leak.md")); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	ix, err := search.Open(root.FS())
	if err != nil {
		t.Fatal(err)
	}
	return FSSite{FS: root.FS(), Index: ix}, md
}

// connect serves site with info and connects the SDK's client to it, at
// protocol version (the newest when "").
func connect(t *testing.T, site Site, info Info, version string) *mcp.ClientSession {
	t.Helper()
	h, err := Handler(site, info)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL, MaxRetries: -1},
		&mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func call(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: %v", tool, args, err)
	}
	return res
}

func texts(res *mcp.CallToolResult) []string {
	var out []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			out = append(out, tc.Text)
		}
	}
	return out
}

func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		if tool.Annotations == nil || !tool.Annotations.ReadOnlyHint || tool.Description == "" {
			t.Errorf("tool %s: not read-only or no description: %+v", tool.Name, tool)
		}
	}
	slices.Sort(names)
	return names
}

// TestLiveSite: a live site under a base path, at the newest protocol
// revision: the server's identity, its tools, search ranking the page
// that answers first with absolute URLs, and get_page for every form of
// a page's path.
func TestLiveSite(t *testing.T) {
	site, md := buildSite(t, render.Options{BasePath: "/docs"})
	cs := connect(t, site, Info{Name: "Acme", Version: "v1.2.3", URL: "https://docs.acme.test/docs/", Search: true}, "")
	init := cs.InitializeResult()
	if init.ServerInfo == nil || init.ServerInfo.Name != "lectern" || init.ServerInfo.Version != "v1.2.3" ||
		init.ServerInfo.Title != "Acme docs" || init.ProtocolVersion != "2026-07-28" {
		t.Fatalf("initialize result: %+v, server %+v", init, init.ServerInfo)
	}
	if got := toolNames(t, cs); !slices.Equal(got, []string{"get_page", "search"}) {
		t.Fatalf("tools %v", got)
	}

	res := call(t, cs, "search", map[string]any{"query": "How do I roll back a release?"})
	if res.IsError {
		t.Fatalf("search: %v", texts(res))
	}
	var out SearchOutput
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &out); err != nil || len(out.Results) == 0 {
		t.Fatalf("structured content %s: %v", raw, err)
	}
	first := out.Results[0]
	if first.URL != "https://docs.acme.test/docs/deploy#rolling-back" || first.Path != "deploy" ||
		first.Title != "Deploying" || first.Heading != "Rolling back" || !strings.Contains(first.Excerpt, "run acme rollback") {
		t.Fatalf("first result %+v", first)
	}
	if txt := texts(res); len(txt) != 1 || !strings.HasPrefix(txt[0], "1. Deploying › Rolling back\n   https://docs.acme.test/docs/deploy#rolling-back (path: deploy)") {
		t.Fatalf("search text %q", txt)
	}
	if res := call(t, cs, "search", map[string]any{"query": "release", "limit": 1}); len(res.StructuredContent.(map[string]any)["results"].([]any)) != 1 {
		t.Errorf("limit 1: %v", texts(res))
	}
	if res := call(t, cs, "search", map[string]any{"query": "zanzibar quokka"}); res.IsError || !strings.Contains(texts(res)[0], "Nothing in these docs matches") {
		t.Errorf("no match: %v", texts(res))
	}

	for _, path := range []string{"deploy", "/deploy", "/docs/deploy", "/docs/deploy.html", "deploy.html", "deploy.md",
		"deploy/", " deploy ", "https://docs.acme.test/docs/deploy#rolling-back", "HTTPS://DOCS.ACME.TEST/docs/deploy?x=1", "de%70loy"} {
		res := call(t, cs, "get_page", map[string]any{"path": path})
		txt := texts(res)
		if res.IsError || len(txt) != 2 || txt[1] != md["deploy"] ||
			txt[0] != `Page "Deploying", https://docs.acme.test/docs/deploy` {
			t.Errorf("get_page %q: error %v, %q", path, res.IsError, txt)
		}
	}
	for path, want := range map[string]string{"/": "index", "": "index", "/docs/": "index", "https://docs.acme.test/docs": "index",
		"index.html": "index", "guides": "guides/index", "guides/index": "guides/index", "/docs/guides/": "guides/index"} {
		res := call(t, cs, "get_page", map[string]any{"path": path})
		if txt := texts(res); res.IsError || len(txt) != 2 || txt[1] != md[want] {
			t.Errorf("get_page %q: error %v, %q; want the page %s", path, res.IsError, txt, want)
		}
	}
	if txt := texts(call(t, cs, "get_page", map[string]any{"path": "/"})); txt[0] != `Page "Welcome", https://docs.acme.test/docs/` {
		t.Errorf("the home page's URL: %q", txt[0])
	}
}

// TestBadInput: traversal, absolute paths, other hosts, missing pages,
// bad search input and unknown tools are errors, and no answer holds the
// file beside the site.
func TestBadInput(t *testing.T) {
	site, _ := buildSite(t, render.Options{})
	cs := connect(t, site, Info{Name: "Acme", URL: "https://docs.acme.test", Search: true}, "")
	for _, path := range []string{"../secret", "../../etc/passwd", "..", "%2e%2e/secret", "%2E%2E%2Fsecret", "..%2Fpasswd",
		"/../secret", "guides/../../secret", "/etc/passwd", "//etc/passwd", `..\secret`, `C:\Windows\win.ini`,
		"deploy\x00", "de%00ploy", "./deploy", ".hidden", "leak", "leak.md", "file:///etc/passwd",
		"https://evil.test/deploy", "https://docs.acme.test/%2e%2e/secret", "https://docs.acme.test/../secret",
		"missing", "deploy.html.md", strings.Repeat("a/", 600), "%zz"} {
		res := call(t, cs, "get_page", map[string]any{"path": path})
		txt := strings.Join(texts(res), "\n")
		if !res.IsError || strings.Contains(txt, secret) || txt == "" {
			t.Errorf("get_page %q: error %v, %q", path, res.IsError, txt)
		}
	}
	if txt := texts(call(t, cs, "get_page", map[string]any{"path": "missing"})); !strings.Contains(txt[0], `no page at "missing"`) {
		t.Errorf("a missing page: %q", txt)
	}
	if txt := texts(call(t, cs, "get_page", map[string]any{"path": "leak"})); !strings.Contains(txt[0], `no page at "leak"`) {
		t.Errorf("a link out of the site: %q", txt)
	}

	for _, args := range []map[string]any{{"query": ""}, {"query": "   "}, {}, {"query": "release", "limit": 11},
		{"query": "release", "limit": 0}, {"query": strings.Repeat("word ", 300)}, {"query": 5}, {"query": "release", "other": 1}} {
		res := call(t, cs, "search", args)
		if !res.IsError || len(texts(res)) == 0 {
			t.Errorf("search %v: error %v, %q", args, res.IsError, texts(res))
		}
	}
	if txt := texts(call(t, cs, "search", map[string]any{"query": " "})); !strings.Contains(txt[0], "the query is empty") {
		t.Errorf("an empty query: %q", txt)
	}
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "delete_everything", Arguments: map[string]any{}})
	if err == nil || !strings.Contains(err.Error(), "delete_everything") {
		t.Errorf("an unknown tool: %v", err)
	}
}

// TestNoSearch: without Info.Search the server has get_page only, and
// search is an unknown tool, for clients of the newest revision and of
// the initialize handshake alike; the site needs no search index.
func TestNoSearch(t *testing.T) {
	site, md := buildSite(t, render.Options{})
	site.Index = nil
	for _, version := range []string{"", "2025-11-25", "2025-06-18"} {
		cs := connect(t, site, Info{Name: "Acme"}, version)
		if v := cs.InitializeResult().ProtocolVersion; version != "" && v != version {
			t.Errorf("asked for %s, got %s", version, v)
		}
		if got := toolNames(t, cs); !slices.Equal(got, []string{"get_page"}) {
			t.Fatalf("%s: tools %v", version, got)
		}
		if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": "release"}}); err == nil {
			t.Errorf("%s: search without Info.Search answered", version)
		}
		res := call(t, cs, "get_page", map[string]any{"path": "/billing"})
		if txt := texts(res); res.IsError || txt[0] != `Page "Billing", /billing` || txt[1] != md["billing"] {
			t.Errorf("%s: get_page: %q", version, txt)
		}
	}
	if _, err := (FSSite{}).Search(context.Background(), "release", 5); err == nil {
		t.Error("FSSite without an index searched")
	}
}

// TestExportSite: an export's URLs are relative to the site's root
// (pages at x.html); with no site URL known, the tools' URLs are
// root-relative.
func TestExportSite(t *testing.T) {
	site, md := buildSite(t, render.Options{Export: true})
	cs := connect(t, site, Info{Name: "Acme", Export: true, Search: true}, "")
	res := call(t, cs, "search", map[string]any{"query": "roll back a release", "limit": 3})
	first := res.StructuredContent.(map[string]any)["results"].([]any)[0].(map[string]any)
	if first["url"] != "/deploy.html#rolling-back" || first["path"] != "deploy" {
		t.Fatalf("first result %v", first)
	}
	res = call(t, cs, "get_page", map[string]any{"path": first["path"]})
	if txt := texts(res); res.IsError || txt[0] != `Page "Deploying", /deploy.html` || txt[1] != md["deploy"] {
		t.Fatalf("get_page: %q", txt)
	}
}

// TestLongPage: a page over MaxPage is cut at a character, with a note
// that says so and links the page.
func TestLongPage(t *testing.T) {
	long := "# Huge\n\n" + strings.Repeat("é", MaxPage) // two bytes each: the cut falls inside one at first
	site := FSSite{FS: fstest.MapFS{"huge.md": {Data: []byte(long)}, "small.md": {Data: []byte("# Small\n\nshort")}}}
	cs := connect(t, site, Info{URL: "https://x.test/"}, "")
	txt := texts(call(t, cs, "get_page", map[string]any{"path": "huge"}))
	body, note, ok := strings.Cut(txt[1], "\n\n[Cut here: this page has 1025 KiB of Markdown, and get_page returns the first 512 KiB. The whole page: https://x.test/huge]")
	if !ok || len(body) > MaxPage || len(body) < MaxPage-1 || !strings.HasPrefix(long, body) || note != "" || txt[0] != `Page "Huge", https://x.test/huge` {
		t.Fatalf("head %q, body of %d bytes, tail %q", txt[0], len(body), txt[1][max(0, len(txt[1])-200):])
	}
	if txt := texts(call(t, cs, "get_page", map[string]any{"path": "small"})); txt[1] != "# Small\n\nshort" {
		t.Errorf("small page: %q", txt)
	}
}

// TestSiteErrors: a Site's own errors reach the client without their
// text.
func TestSiteErrors(t *testing.T) {
	cs := connect(t, failing{}, Info{Search: true}, "")
	for tool, args := range map[string]map[string]any{"search": {"query": "x"}, "get_page": {"path": "x"}} {
		res := call(t, cs, tool, args)
		if txt := strings.Join(texts(res), " "); !res.IsError || strings.Contains(txt, "/srv/secret") || !strings.Contains(txt, "try again") {
			t.Errorf("%s: %q", tool, txt)
		}
	}
}

type failing struct{}

func (failing) Search(context.Context, string, int) ([]Passage, error) {
	return nil, errors.New("open /srv/secret/index: permission denied")
}

func (failing) Page(context.Context, string) (Page, error) {
	return Page{}, errors.New("open /srv/secret/x.md: permission denied")
}

// TestServerTitle: "docs" is added to a site's name only when it lacks it.
func TestServerTitle(t *testing.T) {
	site, _ := buildSite(t, render.Options{})
	for name, want := range map[string]string{"Acme": "Acme docs", "Demo docs": "Demo docs", "Acme Documentation": "Acme Documentation"} {
		cs := connect(t, site, Info{Name: name}, "")
		if got := cs.InitializeResult().ServerInfo.Title; got != want {
			t.Errorf("%q: title %q, want %q", name, got, want)
		}
		if ins := cs.InitializeResult().Instructions; !strings.HasPrefix(ins, want+".") {
			t.Errorf("%q: instructions %q", name, ins)
		}
	}
}
