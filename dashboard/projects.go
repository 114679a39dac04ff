package dashboard

import "net/http"

// projectRoutes registers the projects pages: list, create, edit, delete, deploy now, updates with their logs, deployments and promote.
func (h *Handler) projectRoutes(m *http.ServeMux) {}
