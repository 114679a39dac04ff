package dashboard

import "net/http"

// OIDCConfig is the OpenID Connect provider users may sign in with.
type OIDCConfig struct {
	// Issuer is the provider's issuer URL.
	Issuer string
	// ClientID and ClientSecret are the dashboard's client at the provider.
	ClientID, ClientSecret string
}

// oidcRoutes registers sign-in through an OpenID Connect provider.
func (h *Handler) oidcRoutes(m *http.ServeMux) {}
