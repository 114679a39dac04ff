package sites

import (
	"context"
	"net/http"

	"lectern.dev/lectern"
	"lectern.dev/lectern/mcpserver"
)

// MCPPath is where a live site answers the Model Context Protocol.
const MCPPath = "/mcp"

// serveMCP answers /mcp on a project's domain with the tools of its live
// deployment (package mcpserver): get_page always, search where the
// deployment type has search (not air-gapped). Calls count against the
// project's rate of assistant questions.
func (s *Server) serveMCP(w http.ResponseWriter, r *http.Request, e hostEntry) {
	if r.Method == http.MethodPost && !s.assistants.allow(e.projectID) {
		w.Header().Set("Retry-After", "1")
		http.Error(w, "too many requests to this site at once; try again in a moment", http.StatusTooManyRequests)
		return
	}
	p, err := s.store.GetProject(r.Context(), e.projectID)
	if err != nil || e.deploymentID == "" {
		http.NotFound(w, r)
		return
	}
	h, err := s.mcp.get(e.deploymentID, func() (http.Handler, error) {
		keys, err := s.deploymentKeys(context.Background(), e)
		if err != nil {
			return nil, err
		}
		site := mcpserver.FSSite{FS: &blobFS{ctx: context.Background(), bucket: s.bucket, max: mcpserver.MaxPage + 1, cut: true, key: keys}}
		withSearch := p.DeploymentType != lectern.DeploymentAirGapped
		if withSearch {
			ix, err := s.deploymentIndex(p.ID, e.deploymentID)
			if err != nil {
				return nil, err
			}
			site.Index = ix
		}
		return mcpserver.Handler(site, mcpserver.Info{Name: p.Name, Version: s.Version, Search: withSearch})
	})
	if err != nil {
		s.log.Error("mcp: the deployment cannot be read", "deployment", e.deploymentID, "err", err)
		unavailable(w)
		return
	}
	h.ServeHTTP(w, r)
}
