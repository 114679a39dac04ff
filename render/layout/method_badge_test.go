package layout

import (
	"testing"

	"lectern.dev/lectern/render/page"
)

func TestMethodBadge(t *testing.T) {
	for _, c := range []struct {
		openapi string
		raw     map[string]any
		want    string
	}{
		{"GET /plants", nil, `<span class="lc-nav-method lc-nav-method-get">GET</span>`},
		{"specs/api.json delete /plants/{id}", nil, `<span class="lc-nav-method lc-nav-method-delete">DEL</span>`},
		{"WEBHOOK plant.created", nil, `<span class="lc-nav-method lc-nav-method-webhook">HOOK</span>`},
		{"", map[string]any{"api": "POST https://api.test/v1/users"}, `<span class="lc-nav-method lc-nav-method-post">POST</span>`},
		{"PATCH /x", map[string]any{"hideApiMarker": true}, ""},
		{"", map[string]any{"api": "not an endpoint"}, ""},
		{"", nil, ""},
	} {
		p := &page.Page{}
		p.Front.OpenAPI, p.Front.Raw = c.openapi, c.raw
		if got := methodBadge(p); got != c.want {
			t.Errorf("methodBadge(%q, %v) = %s, want %s", c.openapi, c.raw, got, c.want)
		}
	}
}
