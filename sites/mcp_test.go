package sites

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"lectern.dev/lectern"
	"lectern.dev/lectern/blobstore/blobtest"
)

// hostTransport sends every request to the test server with Host host.
type hostTransport struct{ host string }

func (h hostTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Host = h.host
	return http.DefaultTransport.RoundTrip(r)
}

// mcpSession connects an MCP client (the official SDK's) to host's /mcp.
func mcpSession(t *testing.T, url, host string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url + MCPPath, MaxRetries: -1,
		HTTPClient: &http.Client{Transport: hostTransport{host}}}, nil)
	if err != nil {
		t.Fatalf("connect to %s: %v", host, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
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
	}
	slices.Sort(names)
	return names
}

func toolText(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

// TestMCPOnLiveSites: a live site answers MCP at /mcp (POST) with its
// own deployment's pages and search; an air-gapped project's has no
// search tool; GET /mcp is the site's page of that name, if any.
func TestMCPOnLiveSites(t *testing.T) {
	t.Parallel()
	st, b := openStore(t), blobtest.Folder(t)
	files := builtFiles(t)
	cloud := newProject(t, st, "cloud.example.com")
	publish(t, st, b, cloud.ID, files)
	gapped := &lectern.Project{OrgID: cloud.OrgID, Name: "Gapped", RepoURL: "https://git.example.com/g.git", Branch: "main", DocsRoot: "/",
		Domains: []string{"gapped.example.com"}, DeploymentType: lectern.DeploymentAirGapped}
	if err := st.CreateProject(context.Background(), gapped); err != nil {
		t.Fatal(err)
	}
	other := map[string]string{}
	for k, v := range files {
		other[k] = strings.ReplaceAll(v, "roll back", "revert")
	}
	publish(t, st, b, gapped.ID, other)
	srv := httptest.NewServer(New(discardLog(), st, b))
	t.Cleanup(srv.Close)

	cs := mcpSession(t, srv.URL, "cloud.example.com")
	if got := toolNames(t, cs); !slices.Equal(got, []string{"get_page", "search"}) {
		t.Fatalf("cloud tools %v", got)
	}
	if text, isErr := toolText(t, cs, "search", map[string]any{"query": "roll back a release"}); isErr || !strings.Contains(text, "/deploy#rolling-back") {
		t.Errorf("search: %v %s", isErr, text)
	}
	if text, isErr := toolText(t, cs, "get_page", map[string]any{"path": "/deploy"}); isErr || !strings.Contains(text, "roll back a release") {
		t.Errorf("get_page: %v %s", isErr, text)
	}
	if text, isErr := toolText(t, cs, "get_page", map[string]any{"path": "../../etc/passwd"}); !isErr || strings.Contains(text, "root:") {
		t.Errorf("get_page of a path out of the site: %v %s", isErr, text)
	}

	gs := mcpSession(t, srv.URL, "gapped.example.com")
	if got := toolNames(t, gs); !slices.Equal(got, []string{"get_page"}) {
		t.Fatalf("air-gapped tools %v", got)
	}
	if text, _ := toolText(t, gs, "get_page", map[string]any{"path": "deploy"}); !strings.Contains(text, "revert") || strings.Contains(text, "roll back") {
		t.Errorf("the air-gapped site's page is not its own: %s", text)
	}

	req, _ := http.NewRequest("GET", srv.URL+MCPPath, nil)
	req.Host = "cloud.example.com"
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Errorf("GET /mcp on a site without such a page: %d, want its 404", resp.StatusCode)
	}
}
