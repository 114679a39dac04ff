package selfhost

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"lectern.dev/lectern/assistant"
	"lectern.dev/lectern/internal/sitebuild"
	"lectern.dev/lectern/render"
	"lectern.dev/lectern/render/features"
)

// exportedSite renders a small site as an export and returns its files.
func exportedSite(t *testing.T) fstest.MapFS {
	f := features.All()
	site := fstest.MapFS{}
	for name, data := range sitebuild.Files(t, sitebuild.Small, render.Options{Export: true, Features: &f}) {
		site[name] = &fstest.MapFile{Data: []byte(data)}
	}
	return site
}

// ownAssistantSite serves site's bundle with the assistant on and no
// endpoint: selfhost's own, with features f (search may be off).
func ownAssistantSite(t *testing.T, site fstest.MapFS, f features.Site) (*httptest.Server, error) {
	t.Helper()
	o := newOrigin(t)
	c, _ := newTestCache(t)
	e, err := c.Fetch(context.Background(), o.put("/b.tar.gz", makeBundle(t, site, "v1")), "")
	if err != nil {
		t.Fatal(err)
	}
	s, err := buildSite(context.Background(), e, f, filepath.Join(c.Dir(), "site"), memBudget)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.openTools(e, &assistant.Service{}); err != nil {
		s.remove()
		return nil, err
	}
	h := NewHandler(slog.New(slog.DiscardHandler))
	h.Swap(s)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv, nil
}

// TestOwnAssistant: a client-hosted site whose assistant has no endpoint
// is answered by selfhost from the bundle's index (even with search off,
// whose files are not served), streamed and cited; its pages point the
// widget at it; a bundle without an index is refused with what to do.
func TestOwnAssistant(t *testing.T) {
	t.Parallel()
	f := features.Site{Assistant: true, AssistantURL: features.OwnAssistant, Playground: true}
	srv, err := ownAssistantSite(t, exportedSite(t), f)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(srv.URL+"/_lectern/assistant", "application/json",
		strings.NewReader(`{"messages":[{"role":"user","content":"How do I roll back a release?"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	body := readAll(t, resp)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") ||
		!strings.Contains(body, "run acme rollback with the release number") || !strings.Contains(body, `"url":"deploy.html#rolling-back"`) {
		t.Fatalf("ask: %d %s\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	if r, _ := get(t, "GET", srv.URL+"/_lectern/assistant"); r.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET the assistant: %d", r.StatusCode)
	}
	if r, _ := get(t, "GET", srv.URL+"/_lectern/search/meta.js"); r.StatusCode != 404 {
		t.Errorf("search is off, but its index is served: %d", r.StatusCode)
	}
	resp, err = http.Post(srv.URL+"/_lectern/assistant", "application/json", strings.NewReader(`{"messages":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	if b := readAll(t, resp); resp.StatusCode != 400 || !strings.Contains(b, `"error"`) {
		t.Errorf("bad body: %d %s", resp.StatusCode, b)
	}
	_, page := get(t, "GET", srv.URL+"/deploy")
	if !strings.Contains(page, `<meta name="lectern-assistant-url" content="/_lectern/assistant">`) {
		t.Errorf("the page does not point the widget at selfhost's assistant")
	}

	// MCP: search is off here, so get_page only, over the served pages.
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp", MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(tools.Tools) != 1 || tools.Tools[0].Name != "get_page" {
		t.Fatalf("tools %+v %v", tools, err)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_page", Arguments: map[string]any{"path": "deploy.html"}})
	if err != nil || res.IsError || len(res.Content) == 0 {
		t.Fatalf("get_page: %+v %v", res, err)
	}
	var md strings.Builder
	for _, c := range res.Content {
		md.WriteString(c.(*mcp.TextContent).Text)
	}
	if !strings.Contains(md.String(), "To roll back a release, run acme rollback") {
		t.Errorf("get_page: %s", md.String())
	}

	noIndex := testSite("v1")
	for name := range noIndex {
		if strings.HasPrefix(name, features.SearchDir) {
			delete(noIndex, name)
		}
	}
	if _, err := ownAssistantSite(t, noIndex, f); err == nil || !strings.Contains(err.Error(), "has no search index") {
		t.Errorf("a bundle without an index: %v", err)
	}
	if _, err := ownAssistantSite(t, testSite("v1"), f); err == nil || !strings.Contains(err.Error(), "the search index cannot be read") {
		t.Errorf("a bundle with a broken index: %v", err)
	}
}

func readAll(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			return b.String()
		}
	}
}
