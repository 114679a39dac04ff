package dashboard

import "net/http"

// orgRoutes registers the organization page: plan, features by deployment type, members and invitations, the user's password and sessions.
func (h *Handler) orgRoutes(m *http.ServeMux) {}
