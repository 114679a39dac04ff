package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Info describes the site to clients and says which tools it has.
type Info struct {
	// Name is the site's name (docs.json's "name"), in the server's
	// title, instructions and tool descriptions.
	Name string
	// Version is Lectern's version, the server's in the MCP
	// implementation info; "" is "dev".
	Version string
	// URL is the site's root: an absolute http(s) URL
	// ("https://docs.acme.test" or, under a base path,
	// "https://docs.acme.test/docs"), which makes the tools' URLs
	// absolute, or only the base path ("/docs"; "" at the root), which
	// leaves them root-relative.
	URL string
	// Export says the site is in export form, as lectern selfhost serves
	// it: pages at "guides/x.html". Otherwise pages are at "/guides/x",
	// as live sites serve them.
	Export bool
	// Search offers the search tool. It needs the site's search index and
	// runs the assistant's retrieval on it (assistant.Retrieve) on the
	// server: set it only when the deployment has search
	// (lectern.FeatureSearch on). Air-gapped deployments have neither
	// search nor the assistant, so never set it for them: they get only
	// get_page, which reads the pages' Markdown and needs nothing else.
	// No tool here writes an answer with a model (the assistant feature
	// proper): a tool that did would need lectern.FeatureAssistant.
	Search bool
}

// The tools' names.
const (
	ToolSearch  = "search"
	ToolGetPage = "get_page"
)

// Bounds of the tools: the search's results (default and most), a
// query's length in characters, an excerpt's length in bytes.
const (
	defaultLimit = 5
	maxLimit     = 10
	maxQuery     = 1000
	maxExcerpt   = 1200
)

// MaxBody bounds a request's body in bytes. Tool calls are small; the
// SDK's default (4 MiB) is more than any needs.
const MaxBody = 1 << 20

// schemas caches the tools' schemas across servers (one per Handler).
var schemas = mcp.NewSchemaCache()

// SearchInput is the search tool's input.
type SearchInput struct {
	Query string `json:"query" jsonschema:"what to look for, in words: a question or keywords"`
	Limit int    `json:"limit,omitempty" jsonschema:"how many passages to return, 1 to 10; 5 when left out"`
}

// SearchOutput is the search tool's structured result.
type SearchOutput struct {
	Results []SearchResult `json:"results" jsonschema:"the passages found, best first"`
}

// SearchResult is a passage found by the search tool.
type SearchResult struct {
	Title   string `json:"title" jsonschema:"the page's title"`
	Heading string `json:"heading,omitempty" jsonschema:"the section's heading; absent for the page's opening"`
	URL     string `json:"url" jsonschema:"the section's URL"`
	Path    string `json:"path" jsonschema:"the page's path: pass it to get_page to read the whole page"`
	Excerpt string `json:"excerpt" jsonschema:"the beginning of the section's text"`
}

// PageInput is the get_page tool's input.
type PageInput struct {
	Path string `json:"path" jsonschema:"the page's path (guides/deploy, /guides/deploy, guides/deploy.html) or full URL; / is the home page"`
}

// Handler serves the Model Context Protocol for site over Streamable
// HTTP, at whatever path the caller routes to it. It is stateless: every
// POST is a request of its own, answered as JSON, and no session is kept
// (GET and DELETE answer 405). Bodies over MaxBody are refused (413);
// browsers' cross-origin requests are refused (403). It fails only for an
// Info.URL that is neither an http(s) URL nor a path.
func Handler(site Site, info Info) (http.Handler, error) {
	root, err := parseRoot(info.URL, info.Export)
	if err != nil {
		return nil, err
	}
	s := newServer(site, info, root)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{
		Stateless:    true,
		JSONResponse: true,
		// The tools read the same public pages the site serves to any Host;
		// the SDK's check would refuse every request a reverse proxy on
		// the same machine forwards (loopback address, public Host).
		DisableLocalhostProtection:   true,
		MaxRequestBodyBytes:          MaxBody,
		PropagateRequestCancellation: true,
	})
	return http.NewCrossOriginProtection().Handler(h), nil
}

// newServer returns the MCP server of site with its tools.
func newServer(site Site, info Info, root siteRoot) *mcp.Server {
	// The site's name says "docs" or not ("Acme", "Demo docs"): the
	// title adds it only when missing.
	title := strings.TrimSpace(info.Name)
	if l := strings.ToLower(title); title != "" && !strings.HasSuffix(l, "docs") && !strings.HasSuffix(l, "documentation") {
		title += " docs"
	}
	name := title
	if name == "" {
		name = "these docs"
	}
	version := info.Version
	if version == "" {
		version = "dev"
	}
	instructions := fmt.Sprintf("%s. Read a page with get_page (its path or URL).", name)
	if info.Search {
		instructions = fmt.Sprintf("%s. Find what it says with search, then read whole pages with get_page (a result's path).", name)
	}
	s := mcp.NewServer(&mcp.Implementation{
		Name:       "lectern",
		Title:      title,
		Version:    version,
		WebsiteURL: root.origin + root.base,
	}, &mcp.ServerOptions{
		Instructions: instructions,
		// Tools only: no logging, and the list never changes.
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
		SchemaCache:  schemas,
	})
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true,
		DestructiveHint: new(false), OpenWorldHint: new(false)}
	t := tools{site: site, root: root}
	if info.Search {
		mcp.AddTool(s, &mcp.Tool{
			Name:  ToolSearch,
			Title: "Search the docs",
			Description: fmt.Sprintf("Search the %s documentation. Returns up to limit passages "+
				"(sections of pages), best first, each with its page's title, the section's heading, "+
				"its URL, the page's path and the beginning of its text. Read a whole page with get_page "+
				"and the result's path. Write the query as a question or keywords in the docs' language.", name),
			InputSchema: searchSchema,
			Annotations: readOnly,
		}, t.search)
	}
	mcp.AddTool(s, &mcp.Tool{
		Name:  ToolGetPage,
		Title: "Read a docs page",
		Description: fmt.Sprintf("Read one page of the %s documentation as Markdown. path is the page's "+
			"path in the site (guides/deploy, /guides/deploy, guides/deploy.html) or its full URL; / is the "+
			"home page. Pages over %d KiB are cut, with a note saying so.", name, MaxPage>>10),
		InputSchema: pageSchema,
		Annotations: readOnly,
	}, t.getPage)
	return s
}

// searchSchema is the search tool's input schema: SearchInput's, with
// its bounds.
var searchSchema = func() *jsonschema.Schema {
	s, err := jsonschema.For[SearchInput](nil)
	if err != nil {
		panic(err)
	}
	q, l := s.Properties["query"], s.Properties["limit"]
	q.MinLength, q.MaxLength = new(1), new(maxQuery)
	l.Minimum, l.Maximum = new(float64(1)), new(float64(maxLimit))
	l.Default = []byte(fmt.Sprint(defaultLimit))
	return s
}()

// pageSchema is the get_page tool's input schema: PageInput's, with its
// bound.
var pageSchema = func() *jsonschema.Schema {
	s, err := jsonschema.For[PageInput](nil)
	if err != nil {
		panic(err)
	}
	s.Properties["path"].MaxLength = new(maxPath)
	return s
}()

// tools are the tools' handlers over a site.
type tools struct {
	site Site
	root siteRoot
}

func (t tools) search(ctx context.Context, _ *mcp.CallToolRequest, in SearchInput) (*mcp.CallToolResult, SearchOutput, error) {
	q := strings.TrimSpace(in.Query)
	switch {
	case q == "":
		return nil, SearchOutput{}, errors.New("the query is empty: give words to look for")
	case utf8.RuneCountInString(q) > maxQuery:
		return nil, SearchOutput{}, fmt.Errorf("the query is longer than %d characters", maxQuery)
	}
	limit := in.Limit
	if limit <= 0 {
		limit = defaultLimit
	}
	limit = min(limit, maxLimit)
	ps, err := t.site.Search(ctx, q, limit)
	if err != nil {
		if ctx.Err() != nil {
			return nil, SearchOutput{}, ctx.Err()
		}
		return nil, SearchOutput{}, errors.New("the docs' search index cannot be read; try again shortly")
	}
	out := SearchOutput{Results: []SearchResult{}}
	var b strings.Builder
	for i, p := range ps[:min(len(ps), limit)] {
		r := SearchResult{Title: p.Title, Heading: p.Heading, URL: t.root.link(p.URL),
			Path: t.root.pathOf(p.URL), Excerpt: excerpt(p.Text, maxExcerpt)}
		out.Results = append(out.Results, r)
		title := r.Title
		if r.Heading != "" {
			title += " › " + r.Heading
		}
		fmt.Fprintf(&b, "%d. %s\n   %s (path: %s)\n   %s\n\n", i+1, title, r.URL, r.Path,
			strings.ReplaceAll(r.Excerpt, "\n", "\n   "))
	}
	if len(out.Results) == 0 {
		fmt.Fprintf(&b, "Nothing in these docs matches %q. Try other words, or fewer.", q)
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.TrimRight(b.String(), "\n")}}}
	return res, out, nil
}

func (t tools) getPage(ctx context.Context, _ *mcp.CallToolRequest, in PageInput) (*mcp.CallToolResult, any, error) {
	p, err := t.root.pagePath(in.Path)
	if err != nil {
		return nil, nil, fmt.Errorf("path %q: %v", clipArg(in.Path), err)
	}
	pg, err := t.site.Page(ctx, p)
	switch {
	case errors.Is(err, ErrNotFound):
		return nil, nil, fmt.Errorf("no page at %q in these docs: use a path from search, or the page's URL", clipArg(in.Path))
	case err != nil && ctx.Err() != nil:
		return nil, nil, ctx.Err()
	case err != nil:
		return nil, nil, errors.New("the page cannot be read; try again shortly")
	}
	if pg.Path == "" {
		pg.Path = p
	}
	md, size := pg.Markdown, pg.Size
	if len(md) > MaxPage {
		size = max(size, int64(len(md)))
	}
	if size > 0 {
		md = cutAt(md, MaxPage) + fmt.Sprintf("\n\n[Cut here: this page has %d KiB of Markdown, and get_page returns the first %d KiB. The whole page: %s]",
			(size+1023)>>10, MaxPage>>10, t.root.pageLink(pg.Path))
	}
	head := "Page " + pg.Path
	if pg.Title != "" {
		head = fmt.Sprintf("Page %q", pg.Title)
	}
	head += ", " + t.root.pageLink(pg.Path)
	return &mcp.CallToolResult{Content: []mcp.Content{
		&mcp.TextContent{Text: head},
		&mcp.TextContent{Text: md},
	}}, nil, nil
}

// excerpt returns the first n bytes or so of text, cut after a word,
// with "…" when cut.
func excerpt(text string, n int) string {
	text = strings.TrimSpace(text)
	if len(text) <= n {
		return text
	}
	cut := cutAt(text, n)
	if i := strings.LastIndexFunc(cut, unicode.IsSpace); i > n/2 {
		cut = cut[:i]
	}
	return strings.TrimRightFunc(cut, unicode.IsSpace) + "…"
}

// cutAt returns the first n bytes of s at most, cut at a rune.
func cutAt(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// clipArg returns an argument to quote in an error: at most 200 bytes.
func clipArg(s string) string {
	if len(s) <= 200 {
		return s
	}
	return cutAt(s, 200) + "…"
}
