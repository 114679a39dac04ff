package selfhost

import (
	"fmt"
	"net/http"

	"lectern.dev/lectern/mcpserver"
	"lectern.dev/lectern/render/search"
)

// mcpPath is where the site answers the Model Context Protocol.
const mcpPath = "/mcp"

// openMCP readies the site's /mcp (package mcpserver) over its served
// files: get_page reads the pages' Markdown (x.md beside x.html), and,
// when the search feature is on and the bundle's index can be read,
// search reads the served search index. An air-gapped site (search
// unavailable) has get_page only.
func (s *Site) openMCP() error {
	files, err := s.root.OpenRoot("files")
	if err != nil {
		return fmt.Errorf("the site's MCP server: %w", err)
	}
	site := mcpserver.FSSite{FS: files.FS()}
	if s.Features.Search {
		// The same files as the own assistant's, when it has them: one
		// index open, not two.
		if s.searchIx != nil {
			site.Index = s.searchIx
		} else if ix, err := search.Open(files.FS()); err == nil {
			site.Index = ix
		}
	}
	h, err := mcpserver.Handler(site, mcpserver.Info{Export: true, Search: site.Index != nil})
	if err != nil {
		files.Close()
		return err
	}
	s.mcp = h
	s.closers = append(s.closers, files.Close)
	return nil
}

// serveMCP answers POST /mcp, within the site's rate of questions.
func (s *Site) serveMCP(w http.ResponseWriter, r *http.Request) {
	if !s.limiter.Allow() {
		w.Header().Set("Retry-After", "1")
		http.Error(w, "Too many requests at once; try again in a moment.", http.StatusTooManyRequests)
		return
	}
	s.mcp.ServeHTTP(w, r)
}
